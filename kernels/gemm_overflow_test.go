package kernels

import (
	"math"
	"testing"
)

// Regression test for issue "Reliability": stride and size checks whose
// extent (rows-1)*ld+cols overflows int must return an error, never let the
// call through to a SIGSEGV or a slice-bounds panic.

func TestSgemmStrideOverflowRejected(t *testing.T) {
	a := make([]float32, 64)
	b := make([]float32, 64)
	c := make([]float32, 64)
	huge := []int{math.MaxInt64/13 + 1, math.MaxInt64/2 + 1, math.MaxInt64}
	for _, ld := range huge {
		cases := map[string]func() error{
			"ldc":        func() error { return Sgemm(false, false, 14, 4, 4, 1, a, 4, b, 4, 0, c, ld) },
			"lda":        func() error { return Sgemm(false, false, 2, 2, 2, 1, a, ld, b, 2, 0, c, 2) },
			"lda transA": func() error { return Sgemm(true, false, 2, 2, 2, 1, a, ld, b, 2, 0, c, 2) },
			"ldb":        func() error { return Sgemm(false, false, 2, 2, 2, 1, a, 2, b, ld, 0, c, 2) },
			"ldb transB": func() error { return Sgemm(false, true, 2, 2, 2, 1, a, 2, b, ld, 0, c, 2) },
			"ldc beta": func() error {
				return SgemmEx(false, false, 3, 2, 2, 1, a, 2, b, 2, 1, c, ld, &GemmEpilogue{Relu: true})
			},
			"ldc k=0": func() error { return Sgemm(false, false, 3, 2, 0, 1, a, 1, b, 2, 1, c, ld) },
			"PackB": func() error {
				_, err := PackB(false, 3, 2, b, ld)
				return err
			},
		}
		for name, f := range cases {
			if err := f(); err == nil {
				t.Errorf("%s = %d accepted", name, ld)
			}
		}
		pb, err := PackB(false, 2, 2, b, 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := SgemmPacked(false, 3, 1, a, ld, pb, 0, c, 2, nil); err == nil {
			t.Errorf("SgemmPacked lda = %d accepted", ld)
		}
		if err := SgemmPacked(false, 3, 1, a, 2, pb, 0, c, ld, nil); err == nil {
			t.Errorf("SgemmPacked ldc = %d accepted", ld)
		}
	}
	// A single row may have any stride: it is never stepped over.
	if err := Sgemm(false, false, 1, 2, 2, 1, a, math.MaxInt64, b, 2, 0, c, math.MaxInt64); err != nil {
		t.Errorf("one-row product with a huge stride: %v", err)
	}
	// Huge sizes with a normal stride.
	if err := Sgemm(false, false, math.MaxInt64, 2, 2, 1, a, 2, b, 2, 0, c, 2); err == nil {
		t.Error("m = MaxInt64 accepted")
	}
}
