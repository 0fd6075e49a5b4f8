package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// TestBenchCPUProfile times a module in both modes with --cpuprofile and
// --memprofile and checks that each mode wrote its own profiles
// (gzip-compressed pprof data).
func TestBenchCPUProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated runner")
	}
	dir := t.TempDir()
	in := benchInput(t, dir)
	prof := filepath.Join(dir, "cpu.pprof")
	mem := filepath.Join(dir, "mem.pprof")
	var stdout, stderr bytes.Buffer
	code := runBench([]string{"--mode=both", "-n", "20", "--inputs", in, "--cpuprofile", prof, "--memprofile", mem, "testdata/inplace.py"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "compiled/bytecode median ratio") {
		t.Errorf("no ratio line in:\n%s", stdout.String())
	}
	for _, mode := range []string{"bytecode", "compiled"} {
		for _, kind := range []string{"cpu", "mem"} {
			b, err := os.ReadFile(filepath.Join(dir, kind+"."+mode+".pprof"))
			if err != nil {
				t.Fatal(err)
			}
			if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
				t.Errorf("%s %s profile is not gzip-compressed pprof data (%d bytes)", mode, kind, len(b))
			}
		}
	}
}

// TestBenchBothModesAlternate times a module in both modes without
// profiles, where the runner alternates the modes in rounds, and checks that
// each mode reports a positive median and minimum.
func TestBenchBothModesAlternate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated runner")
	}
	dir := t.TempDir()
	in := benchInput(t, dir)
	var stdout, stderr bytes.Buffer
	if code := runBench([]string{"--mode=both", "-n", "50", "--inputs", in, "testdata/inplace.py"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(stdout.String(), "\n") {
		f := strings.Fields(line)
		if len(f) != 5 || f[0] != "bytecode" && f[0] != "compiled" {
			continue
		}
		for _, d := range f[1:3] {
			v, err := time.ParseDuration(d)
			if err != nil || v <= 0 {
				t.Errorf("%s: median/min %q is not a positive duration", f[0], d)
			}
		}
		seen[f[0]] = true
	}
	if !seen["bytecode"] || !seen["compiled"] || !strings.Contains(stdout.String(), "compiled/bytecode median ratio") {
		t.Errorf("want a row per mode and the ratio line in:\n%s", stdout.String())
	}
}

// benchInput writes testdata/inplace.py's argument, x = [1, 2, 3, 4], to
// dir/in.npz and returns its path.
func benchInput(t *testing.T, dir string) string {
	t.Helper()
	in := filepath.Join(dir, "in.npz")
	x, err := runtime.FromSlice([]float32{1, 2, 3, 4}, 4)
	if err != nil {
		t.Fatal(err)
	}
	a := &tensorio.Archive{}
	if err := a.Add("x", x); err != nil {
		t.Fatal(err)
	}
	if err := tensorio.WriteNPZFile(in, a); err != nil {
		t.Fatal(err)
	}
	return in
}
