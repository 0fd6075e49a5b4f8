package main

import (
	"fmt"
	"io"
	goruntime "runtime"
	"runtime/debug"

	"github.com/relaxgo/relaxgo/asm"
)

// runVersion is `relaxgo version`.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version", stderr,
		"usage: relaxgo version",
		"\nPrints the relaxgo module version, the Go version it was built with, and the",
		"SIMD level its kernels use on this machine (RELAXGO_ISA can lower it).",
	)
	args, code := parseFlags(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	if len(args) != 0 {
		return usageError(fs, stderr, "takes no arguments")
	}
	fmt.Fprintf(stdout, "relaxgo %s %s %s/%s isa=%s (best on this CPU: %s)\n", moduleVersion(), goruntime.Version(),
		goruntime.GOOS, goruntime.GOARCH, asm.CurrentLevel(), asm.MaxLevel())
	return exitOK
}

// moduleVersion is the relaxgo module's version as the go command recorded
// it: a tag or pseudo-version when installed with go install/go get,
// "(devel)" plus the VCS revision when built from a checkout.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "(devel)"
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " " + s.Value[:12]
			}
			if s.Key == "vcs.modified" && s.Value == "true" {
				v += "+dirty"
			}
		}
	}
	return v
}
