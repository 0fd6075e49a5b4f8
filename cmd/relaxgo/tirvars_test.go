package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// runBothModes runs `relaxgo run` on module with x as the only input, in
// bytecode and then compiled mode, and passes each mode's outputs to check.
func runBothModes(t *testing.T, module string, x *runtime.Tensor, check func(mode string, out *tensorio.Archive)) {
	t.Helper()
	in := &tensorio.Archive{}
	if err := in.Add("x", x); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	inPath := filepath.Join(dir, "in.npz")
	if err := tensorio.WriteNPZFile(inPath, in); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"bytecode", "compiled"} {
		out := filepath.Join(dir, mode+".npz")
		var stdout, stderr bytes.Buffer
		if code := runRun([]string{"--mode=" + mode, "--inputs", inPath, "--output", out, module}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr.String())
		}
		a, err := tensorio.ReadNPZFile(out)
		if err != nil {
			t.Fatal(err)
		}
		check(mode, a)
	}
}

// TestCallTIRVars runs a call_tir with tir_vars (the v0.23 form: a symbolic
// scalar n*2 passed to the PrimFunc's scalar parameter) in both modes.
func TestCallTIRVars(t *testing.T) {
	x, _ := runtime.FromSlice([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 3, 4)
	runBothModes(t, "testdata/tirvars.py", x, func(mode string, a *tensorio.Archive) {
		got, _ := a.Get("out_0")
		// m = n * 2 = 6: every element is scaled by 6.
		for i, v := range got.Float32s() {
			if want := x.Float32s()[i] * 6; v != want {
				t.Fatalf("%s: element %d = %v, want %v", mode, i, v, want)
			}
		}
	})
}

// TestCallTIRInplace runs R.call_tir_inplace: output 0 is the argument,
// scaled in place; output 1 is a new tensor holding its sum.
func TestCallTIRInplace(t *testing.T) {
	x, _ := runtime.FromSlice([]float32{1, 2, 3, 4}, 4)
	runBothModes(t, "testdata/inplace.py", x, func(mode string, a *tensorio.Archive) {
		scaled, _ := a.Get("out_0")
		sum, _ := a.Get("out_1")
		for i, v := range scaled.Float32s() {
			if want := 4 * x.Float32s()[i]; v != want {
				t.Fatalf("%s: scaled[%d] = %v, want %v", mode, i, v, want)
			}
		}
		if s := sum.Float32s()[0]; s != 40 {
			t.Fatalf("%s: sum = %v, want 40", mode, s)
		}
	})
}

// TestTIRAssume runs a PrimFunc holding T.assume (an assumption for TVM's
// simplifier, nothing to run) in both modes: the values are the arithmetic's.
func TestTIRAssume(t *testing.T) {
	x, _ := runtime.FromSlice([]float32{1, 2, 3, 4}, 4)
	runBothModes(t, "testdata/assume.py", x, func(mode string, a *tensorio.Archive) {
		got, _ := a.Get("out_0")
		for i, v := range got.Float32s() {
			if want := x.Float32s()[i] * 2; v != want {
				t.Fatalf("%s: element %d = %v, want %v", mode, i, v, want)
			}
		}
	})
}

// TestTIRAttr runs a PrimFunc whose block holds T.attr (a hint for TVM's
// lowering wrapping the rest of the body) in both modes.
func TestTIRAttr(t *testing.T) {
	x, _ := runtime.FromSlice([]float32{1, 2, 3, 4}, 4)
	runBothModes(t, "testdata/attr.py", x, func(mode string, a *tensorio.Archive) {
		got, _ := a.Get("out_0")
		for i, v := range got.Float32s() {
			if want := x.Float32s()[i] * 2; v != want {
				t.Fatalf("%s: element %d = %v, want %v", mode, i, v, want)
			}
		}
	})
}
