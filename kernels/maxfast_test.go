package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// TestMaxFast32 compares maxFast32 with a plain loop on every length up to
// past the assembly threshold: the exact maximum for rows without NaN, a NaN
// for rows with one; and softmax of a long row holding a NaN is all NaN.
func TestMaxFast32(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	ninf := float32(math.Inf(-1))
	for n := 0; n <= asmMaxMin+40; n++ {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64() * 10)
		}
		want := ninf
		for _, v := range x {
			if v > want {
				want = v
			}
		}
		if got := maxFast32(x); got != want {
			t.Fatalf("n=%d: maxFast32 = %v, want %v", n, got, want)
		}
		if n > 0 {
			x[r.Intn(n)] = float32(math.NaN())
			if got := maxFast32(x); got == got {
				t.Fatalf("n=%d with a NaN: maxFast32 = %v, want NaN", n, got)
			}
		}
	}
	for _, n := range []int{7, 100, asmMaxMin + 3} {
		x := make([]float32, n)
		x[n/2] = float32(math.NaN())
		o := make([]float32, n)
		softmaxRowF32(false, o, x)
		for i, v := range o {
			if v == v {
				t.Fatalf("softmax of a %d-row with a NaN: [%d] = %v, want NaN", n, i, v)
			}
		}
	}
}
