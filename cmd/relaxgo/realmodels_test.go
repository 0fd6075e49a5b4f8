package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// TestONNXRealModels runs the real-model fixtures (testdata/onnxmodels:
// resnet18, mobilenet_v2, squeezenet1_1, a BERT-style encoder and a
// GPT-style decoder, exported from PyTorch with outputs computed by torch)
// straight from their .onnx files in bytecode and compiled mode: both must
// agree bit for bit and match torch within the fixture's tolerance. The
// compiled runner is built with CGO_ENABLED=0.
func TestONNXRealModels(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "onnxmodels")
	for _, name := range []string{"squeezenet1_1", "encoder", "decoder", "mobilenet_v2", "resnet18"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			var meta struct {
				Tolerance struct{ Atol, Rtol float64 } `json:"tolerance"`
			}
			b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &meta); err != nil {
				t.Fatal(err)
			}
			if meta.Tolerance.Atol <= 0 || meta.Tolerance.Atol > 1e-3 || meta.Tolerance.Rtol > 1e-3 {
				t.Fatalf("tolerance %+v: want at most 1e-3", meta.Tolerance)
			}
			model, in := filepath.Join(dir, "model.onnx"), filepath.Join(dir, "inputs.npz")
			bc := runONNX(t, model, in, "bytecode")
			cc := runONNX(t, model, in, "compiled")
			sameArchives(t, bc, cc)
			want, err := tensorio.ReadNPZFile(filepath.Join(dir, "expected.npz"))
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Names()) != len(bc.Names()) {
				t.Fatalf("%d outputs, want %d", len(bc.Names()), len(want.Names()))
			}
			for i, wn := range want.Names() {
				w, _ := want.Get(wn)
				g, _ := bc.Get(bc.Names()[i])
				worst, err := withinTolerance(g, w, meta.Tolerance.Atol, meta.Tolerance.Rtol)
				if err != nil {
					t.Fatalf("output %s: %v", wn, err)
				}
				t.Logf("output %s %v: worst error %.3g of the tolerance", wn, w.Shape(), worst)
			}
		})
	}
}

// withinTolerance checks |got-want| <= atol + rtol*|want| elementwise and
// returns the largest error as a fraction of its bound.
func withinTolerance(got, want *runtime.Tensor, atol, rtol float64) (float64, error) {
	if got.DType() != want.DType() || fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) {
		return 0, fmt.Errorf("got %s, want %s", got, want)
	}
	g, w := tensorio.AsFloat64s(got), tensorio.AsFloat64s(want)
	worst := 0.0
	for i := range w {
		bound := atol + rtol*math.Abs(w[i])
		d := math.Abs(g[i] - w[i])
		if !(d <= bound) {
			return 0, fmt.Errorf("element %d %v: got %v, want %v (bound %.3g)", i, unravel(i, want.Shape()), g[i], w[i], bound)
		}
		worst = max(worst, d/bound)
	}
	return worst, nil
}

// unravel is the index per axis of element i of a row-major tensor of shape dims.
func unravel(i int, dims []int64) []int64 {
	idx := make([]int64, len(dims))
	for k := len(dims) - 1; k >= 0; k-- {
		if dims[k] > 0 {
			idx[k] = int64(i) % dims[k]
			i /= int(dims[k])
		}
	}
	return idx
}
