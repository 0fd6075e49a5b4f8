package asm

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestChooseLevel(t *testing.T) {
	for _, c := range []struct {
		env  string
		max  Level
		want Level
		msg  string
	}{
		{"", LevelAVX512, LevelAVX512, ""},
		{"avx2", LevelAVX512, LevelAVX2, ""},
		{"AVX512", LevelAVX512, LevelAVX512, ""},
		{"generic", LevelAVX2, LevelGo, ""},
		{"go", LevelAVX2, LevelGo, ""},
		{"avx512", LevelAVX2, LevelAVX2, "refused"},
		{"avx2", LevelGo, LevelGo, "refused"},
		{"sse9", LevelAVX2, LevelAVX2, "ignored"},
	} {
		got, msg := chooseLevel(c.env, c.max)
		if got != c.want || (c.msg == "") != (msg == "") || !strings.Contains(msg, c.msg) {
			t.Errorf("chooseLevel(%q, %s) = %s, %q; want %s, message containing %q", c.env, c.max, got, msg, c.want, c.msg)
		}
	}
}

// TestISAEnvForcesLevel starts the test binary again with RELAXGO_ISA set to
// each level name and checks the level it starts at (the variable is read
// once, at package initialization).
func TestISAEnvForcesLevel(t *testing.T) {
	if want := os.Getenv("RELAXGO_ISA_WANT"); want != "" {
		if got := CurrentLevel().String(); got != want {
			t.Fatalf("%s=%q: started at %s, want %s", ISAEnv, os.Getenv(ISAEnv), got, want)
		}
		return
	}
	for _, name := range []string{"generic", "avx2", "avx512"} {
		l, err := ParseLevel(name)
		if err != nil {
			t.Fatal(err)
		}
		want := min(l, MaxLevel())
		cmd := exec.Command(os.Args[0], "-test.run=^TestISAEnvForcesLevel$", "-test.count=1")
		cmd.Env = append(os.Environ(), ISAEnv+"="+name, "RELAXGO_ISA_WANT="+want.String())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s=%s: %v\n%s", ISAEnv, name, err, out)
		}
		if refused := strings.Contains(string(out), "refused"); refused != (l > MaxLevel()) {
			t.Errorf("%s=%s: refusal message %v, want %v:\n%s", ISAEnv, name, refused, l > MaxLevel(), out)
		}
	}
}
