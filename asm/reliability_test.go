package asm

import (
	"math"
	"strings"
	"testing"
)

// Regression tests for the bounds checks of the exported kernels (issue
// "Reliability"): sizes whose extent overflows int must be rejected with an
// error, never reach the kernels.

func TestExtentOK(t *testing.T) {
	cases := []struct {
		rows, cols, ld, length int
		ok                     bool
	}{
		{0, 5, 0, 0, true},
		{3, 0, 0, 0, true},
		{1, 4, 4, 4, true},
		{2, 4, 4, 8, true},
		{2, 4, 4, 7, false},
		{2, 4, 3, 100, false}, // ld < cols
		{2, 1, math.MaxInt64, math.MaxInt64, false},
		{3, 1, math.MaxInt64/2 + 1, math.MaxInt64, false},
		{14, 16, math.MaxInt64/13 + 1, 1 << 20, false},
		{math.MaxInt64, 1, 1, math.MaxInt64, true},
		{-1, 1, 1, 10, false},
		{1, 1, -1, 10, false},
	}
	for _, c := range cases {
		if got := extentOK(c.rows, c.cols, c.ld, c.length); got != c.ok {
			t.Errorf("extentOK(%d, %d, %d, %d) = %v, want %v", c.rows, c.cols, c.ld, c.length, got, c.ok)
		}
	}
	if productOK(1<<62, 4, math.MaxInt64) || productOK(math.MaxInt64, 2, math.MaxInt64) || !productOK(3, 4, 12) || productOK(-1, 4, 12) {
		t.Error("productOK wrong")
	}
}

func TestSgemmKernelOverflowRejected(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		mr, nr := SgemmTile()
		_, snr := SgemmTileSmall()
		a := make([]float32, 64*mr)
		b := make([]float32, 64*nr)
		c := make([]float32, 64*nr)
		// kc*mr wraps to 0: kc = 1<<62 (mr and nr are multiples of 4 in
		// every tile, so the product is a multiple of 1<<64).
		if err := SgemmKernel(1<<62, a, b, c, nr, 1, 0); err == nil {
			t.Error("SgemmKernel(kc=1<<62) accepted")
		}
		if err := SgemmKernelSmall(1<<62, a, b, c, snr, 1, 0); err == nil {
			t.Error("SgemmKernelSmall(kc=1<<62) accepted")
		}
		// (mr-1)*ldc+nr wraps around.
		for _, ldc := range []int{math.MaxInt64/13 + 1, math.MaxInt64 / 2, math.MaxInt64} {
			if err := SgemmKernel(1, a, b, c, ldc, 1, 0); err == nil {
				t.Errorf("SgemmKernel(ldc=%d) accepted", ldc)
			}
			if err := SgemmKernelSmall(1, a, b, c, ldc, 1, 0); err == nil {
				t.Errorf("SgemmKernelSmall(ldc=%d) accepted", ldc)
			}
		}
		for _, r := range []int{1, 2, 4} {
			w, ok := SgemmDirectTile(r)
			if !ok {
				continue
			}
			a := make([]float32, 8*r)
			b := make([]float32, 8*w)
			c := make([]float32, 4*w)
			for _, ld := range []int{math.MaxInt64/7 + 1, math.MaxInt64} {
				if err := SgemmDirect(r, 8, a, b, ld, c, w, 1, 0); err == nil {
					t.Errorf("SgemmDirect(r=%d, ldb=%d) accepted", r, ld)
				}
				if r > 1 {
					if err := SgemmDirect(r, 1, a, b, w, c, ld, 1, 0); err == nil {
						t.Errorf("SgemmDirect(r=%d, ldc=%d) accepted", r, ld)
					}
				}
			}
			if err := SgemmDirect(r, 1<<62, a, b, w, c, w, 1, 0); err == nil {
				t.Errorf("SgemmDirect(r=%d, kc=1<<62) accepted", r)
			}
		}
	})
}

// TestElementwiseShortInput: an input with len < len(dst) <= cap panics
// with a clear message before any element is read or written; nothing
// past len(x) is read.
func TestElementwiseShortInput(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		const n = 67
		full := make([]float32, n)
		short := make([]float32, 3, n) // cap covers dst, len does not
		calls := map[string]func(dst []float32){
			"AddF32 x":   func(d []float32) { AddF32(d, short, full) },
			"AddF32 y":   func(d []float32) { AddF32(d, full, short) },
			"SubF32":     func(d []float32) { SubF32(d, short, full) },
			"MulF32":     func(d []float32) { MulF32(d, full, short) },
			"DivF32":     func(d []float32) { DivF32(d, short, full) },
			"AddScalar":  func(d []float32) { AddScalarF32(d, short, 1) },
			"SubScalar":  func(d []float32) { SubScalarF32(d, short, 1) },
			"RSubScalar": func(d []float32) { RSubScalarF32(d, short, 1) },
			"MulScalar":  func(d []float32) { MulScalarF32(d, short, 1) },
			"DivScalar":  func(d []float32) { DivScalarF32(d, short, 1) },
			"RDivScalar": func(d []float32) { RDivScalarF32(d, short, 1) },
			"Relu":       func(d []float32) { ReluF32(d, short) },
			"Exp":        func(d []float32) { ExpF32(d, short) },
			"Tanh":       func(d []float32) { TanhF32(d, short) },
			"Erf":        func(d []float32) { ErfF32(d, short) },
			"Sigmoid":    func(d []float32) { SigmoidF32(d, short) },
			"Dot":        func(d []float32) { DotF32(d, short) },
		}
		for name, f := range calls {
			dst := make([]float32, n)
			for i := range dst {
				dst[i] = 42
			}
			msg := func() (msg string) {
				defer func() {
					if r := recover(); r != nil {
						msg, _ = r.(string)
					}
				}()
				f(dst)
				return ""
			}()
			if !strings.HasPrefix(msg, "asm: ") || !strings.Contains(msg, "has 3 elements, need at least 67") {
				t.Errorf("%s: panic message %q, want asm: ... has 3 elements, need at least 67", name, msg)
			}
			for i, v := range dst {
				if v != 42 {
					t.Errorf("%s: dst[%d] written before the length check", name, i)
					break
				}
			}
		}
	})
}

func forEachLevel(t *testing.T, f func(t *testing.T)) {
	for _, l := range levels() {
		t.Run(l.String(), func(t *testing.T) { withLevel(t, l, func() { f(t) }) })
	}
}
