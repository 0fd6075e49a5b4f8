package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
