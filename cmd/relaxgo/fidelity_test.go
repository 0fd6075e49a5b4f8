package main

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// TestFidelityOps runs every testdata/fidelity/<case>.py module with
// <case>.in.npz through `relaxgo run` in both modes, checks each output
// against <case>.want.npz (computed independently with NumPy/PyTorch by
// testdata/fidelity/gen.py, committed; the tests never run Python), and checks
// that the two modes agree bit for bit.
func TestFidelityOps(t *testing.T) {
	mods, err := filepath.Glob(filepath.Join("testdata", "fidelity", "*.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mod := range mods {
		base := mod[:len(mod)-len(".py")]
		if filepath.Base(base) == "gen" {
			continue
		}
		t.Run(filepath.Base(base), func(t *testing.T) {
			want, err := tensorio.ReadNPZFile(base + ".want.npz")
			if err != nil {
				t.Fatal(err)
			}
			var outs [2]*tensorio.Archive
			for k, mode := range []string{"bytecode", "compiled"} {
				out := filepath.Join(t.TempDir(), "out.npz")
				var stdout, stderr bytes.Buffer
				if code := runRun([]string{"--mode=" + mode, "--inputs", base + ".in.npz", "--output", out, mod}, &stdout, &stderr); code != 0 {
					t.Fatalf("%s: exit %d: %s", mode, code, stderr.String())
				}
				if outs[k], err = tensorio.ReadNPZFile(out); err != nil {
					t.Fatal(err)
				}
				checkArchive(t, mode, outs[k], want)
			}
			for _, n := range outs[0].Names() {
				a, _ := outs[0].Get(n)
				b, ok := outs[1].Get(n)
				if !ok || !runtime.ValuesEqual(a, b) {
					t.Errorf("%s: bytecode and compiled modes differ", n)
				}
			}
		})
	}
}

// checkArchive compares got with want by name: same shape and dtype, integer
// and bool elements equal, float elements within 1e-5 relative (4e-3 for
// float16) or 1e-5 absolute (inputs are O(1); float32 sums of a few O(1)
// terms, as in bicubic sampling, can cancel to small results).
func checkArchive(t *testing.T, mode string, got, want *tensorio.Archive) {
	t.Helper()
	if got.Len() != want.Len() {
		t.Fatalf("%s: %d outputs, want %d", mode, got.Len(), want.Len())
	}
	for _, n := range want.Names() {
		w, _ := want.Get(n)
		g, ok := got.Get(n)
		if !ok {
			t.Fatalf("%s: output %s missing", mode, n)
		}
		if g.DType() != w.DType() || !runtime.Shape(g.Shape()).Equal(runtime.Shape(w.Shape())) {
			t.Fatalf("%s: %s is %s%v, want %s%v", mode, n, g.DType(), g.Shape(), w.DType(), w.Shape())
		}
		gv, wv := tensorio.AsFloat64s(g), tensorio.AsFloat64s(w)
		tol := 1e-5
		if w.DType() == runtime.Float16 {
			tol = 4e-3
		}
		for i := range wv {
			d := math.Abs(gv[i] - wv[i])
			if w.DType().IsFloat() {
				if d <= 1e-5 || d <= tol*math.Abs(wv[i]) || (math.IsNaN(gv[i]) && math.IsNaN(wv[i])) || gv[i] == wv[i] {
					continue
				}
			} else if d == 0 {
				continue
			}
			t.Fatalf("%s: %s[%d] = %v, want %v", mode, n, i, gv[i], wv[i])
		}
	}
}
