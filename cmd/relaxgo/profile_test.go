package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// TestProfile profiles a function that calls another: the table has a row
// per called function with its call count per profiled call, the callee's
// time includes its kernel's, and a bad -n is a usage error.
func TestProfile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npz")
	a := &tensorio.Archive{}
	for _, name := range []string{"x", "w"} {
		v, err := runtime.FromSlice([]float32{1, 2, 3, 4}, 4)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Add(name, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := tensorio.WriteNPZFile(in, a); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := runProfile([]string{"-n", "5", "--allow-missing-params", "--inputs", in, "testdata/calls_head.py"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	rows := map[string][]string{}
	for _, line := range strings.Split(out, "\n")[2:] {
		if f := strings.Fields(line); len(f) == 5 {
			rows[f[0]] = f
		}
	}
	for _, name := range []string{"head", "kernels.add"} {
		r, ok := rows[name]
		if !ok {
			t.Fatalf("no row for %s in:\n%s", name, out)
		}
		if r[1] != "1.0" {
			t.Errorf("%s: %s calls per profiled call, want 1.0", name, r[1])
		}
	}
	if !strings.HasPrefix(out, "main: 5 calls, ") {
		t.Errorf("header: %q", strings.SplitN(out, "\n", 2)[0])
	}
	// --by shape: one row per function and argument shapes.
	stdout.Reset()
	if code := runProfile([]string{"-n", "2", "--by", "shape", "--allow-missing-params", "--inputs", in, "testdata/calls_head.py"}, &stdout, &stderr); code != 0 {
		t.Fatalf("--by shape: exit %d: %s", code, stderr.String())
	}
	if out := stdout.String(); !strings.Contains(out, "\nkernels.add (4, 4, 4) ") {
		t.Errorf("--by shape: no row for kernels.add (4, 4, 4) in:\n%s", out)
	}
	stderr.Reset()
	if code := runProfile([]string{"--by", "layer", "--inputs", in, "testdata/calls_head.py"}, &stdout, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "--by must be op or shape") {
		t.Errorf("--by layer: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	if code := runProfile([]string{"-n", "0", "--inputs", in, "testdata/calls_head.py"}, &stdout, &stderr); code != 2 ||
		!strings.HasPrefix(stderr.String(), "relaxgo profile: -n must be at least 1") {
		t.Errorf("-n 0: exit %d, stderr %q", code, stderr.String())
	}
}
