package asm

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// ISAEnv is the environment variable that forces the SIMD level at start-up:
// "avx512", "avx2" or "generic" (also "go"). It is read once, when the
// package initializes. A level the CPU (or a noasm build) cannot run is
// refused with a message on stderr, and the detected level is used instead;
// an unknown value is likewise reported and ignored. Unset or empty means
// the highest level the CPU supports.
const ISAEnv = "RELAXGO_ISA"

// startLevel is the level chosen at start-up: detect(), lowered by ISAEnv.
func startLevel() Level {
	l, msg := chooseLevel(os.Getenv(ISAEnv), detect())
	if msg != "" {
		fmt.Fprintln(stderr, msg)
	}
	return l
}

var stderr io.Writer = os.Stderr

// ParseLevel parses a level name as accepted by RELAXGO_ISA.
func ParseLevel(s string) (Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "avx512":
		return LevelAVX512, nil
	case "avx2":
		return LevelAVX2, nil
	case "generic", "go", "noasm":
		return LevelGo, nil
	}
	return LevelGo, fmt.Errorf("asm: unknown ISA level %q (want avx512, avx2 or generic)", s)
}

// chooseLevel resolves the RELAXGO_ISA value env against the detected level
// max. It returns the level to install and, when env is refused, the message
// to print.
func chooseLevel(env string, max Level) (Level, string) {
	if strings.TrimSpace(env) == "" {
		return max, ""
	}
	l, err := ParseLevel(env)
	if err != nil {
		return max, fmt.Sprintf("relaxgo: %s=%s ignored: %v; using %s", ISAEnv, env, err, max)
	}
	if l > max {
		return max, fmt.Sprintf("relaxgo: %s=%s refused: this CPU/build supports at most %s; using %s", ISAEnv, env, max, max)
	}
	return l, ""
}
