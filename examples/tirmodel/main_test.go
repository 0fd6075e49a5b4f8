package main

import (
	"math"
	"testing"

	"github.com/relaxgo/relaxgo/examples/internal/demo"
	"github.com/relaxgo/relaxgo/examples/tirmodel/model"
	"github.com/relaxgo/relaxgo/runtime"
)

// Expected outputs for x = demo.Input(3, 8) and b = Bias(), computed once in
// float64 with NumPy and math.erf (h = 0.5*t*(1+erf(t/sqrt 2)) with t = x+b,
// m = h.mean(axis=1)); the test does not run Python.
var (
	wantH = []float64{
		-0.14383273, -0.16948432, -0.14685985, -0.046017217, 0.14967658, 0.43544815, 0.78749667, -0.14685985,
		-0.16565411, -0.16013783, -0.084148059, 0.083942658, 0.34573123, 0.68198686, -0.16013783, -0.084148054,
		-0.16759997, -0.11462658, 0.025996939, 0.2621687, 0.58002949, -0.16759997, -0.11462658, 0.025996947,
	}
	wantM = []float64{0.08994593, 0.057179358, 0.041217372}
)

// TestTIRModel runs the model in both modes and checks the generated TIR
// loops against the independently computed values.
func TestTIRModel(t *testing.T) {
	x, b := demo.Input(3, 8), Bias()
	h, m, err := model.Main(x, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  *runtime.Tensor
		want []float64
	}{{"h", h, wantH}, {"m", m, wantM}} {
		got := c.got.Float32s()
		if len(got) != len(c.want) {
			t.Fatalf("%s: %d values, want %d", c.name, len(got), len(c.want))
		}
		for i, w := range c.want {
			if d := math.Abs(float64(got[i]) - w); d > 1e-6 {
				t.Errorf("%s[%d] = %v, want %v (difference %g)", c.name, i, got[i], w, d)
			}
		}
	}
	mod, err := model.Default()
	if err != nil {
		t.Fatal(err)
	}
	bc := demo.Bytecode(mod, "main", x, b)
	if !runtime.ValuesEqual(bc, runtime.Tuple{h, m}) {
		t.Errorf("bytecode result %v differs from compiled %v", bc, runtime.Tuple{h, m})
	}
	// The batch dimension is symbolic; a wrong inner dimension is refused.
	if _, _, err := model.Main(demo.Input(2, 7), b); err == nil {
		t.Error("Main accepted a (2, 7) input")
	}
}
