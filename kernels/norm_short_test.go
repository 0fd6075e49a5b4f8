package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// TestLayerNormShortRowsMatchRowPath requires the short-row layer norm
// kernel to give normRowF32's bits (the row-by-row path it replaces) for
// every row length it takes, NaNs and infinities among the inputs.
func TestLayerNormShortRowsMatchRowPath(t *testing.T) {
	r := rand.New(rand.NewSource(32))
	for n := 1; n < 64; n++ {
		const rows = 3
		x, g, b := randVec(r, rows*n), randVec(r, n), randVec(r, n)
		if n%7 == 0 {
			x[r.Intn(len(x))] = float32(math.Inf(1))
		}
		if n%11 == 0 {
			x[r.Intn(len(x))] = float32(math.NaN())
		}
		got, want := make([]float32, rows*n), make([]float32, rows*n)
		normRows(rows, n, 1e-5, false, got, x, g, b, 0, rows)
		for i := 0; i < rows; i++ {
			normRowF32(want[i*n:(i+1)*n], x[i*n:(i+1)*n], g, b, 1e-5, false)
		}
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n=%d: out[%d] = %v, row path %v", n, i, got[i], want[i])
			}
		}
	}
}
