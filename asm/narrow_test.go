package asm

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// TestSgemmNarrow runs the narrow kernels against their twin at every level
// on odd row counts (every 8/4/2/1 split), every column count up to the
// vector, odd strides and both alphas and betas, with NaNs, infinities and
// signed zeros among the inputs, and checks that C's elements past cols and
// around the tile keep their sentinels.
func TestSgemmNarrow(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	for _, l := range levels() {
		withLevel(t, l, func() {
			w := SgemmNarrowWidth()
			i := 0
			for _, rows := range []int{1, 2, 3, 5, 7, 8, 9, 15, 16, 17} {
				for _, cols := range []int{1, 3, w / 2, w - 1, w} {
					for _, kc := range []int{0, 1, 2, 3, 8, 17, 64} {
						for _, beta := range []float32{0, 1, -0.5} {
							i++
							alpha := alphaFor(i)
							lda, ldb, ldc := kc+3, cols+5, cols+2
							a := randInput(r, max(0, (rows-1)*lda+kc), 1)
							b := randInput(r, max(0, (kc-1)*ldb+cols), 1)
							n := (rows-1)*ldc + cols
							buf, c := guarded(n, i%7)
							want := make([]float32, n)
							for x := 0; x < rows; x++ {
								for y := 0; y < cols; y++ {
									c[x*ldc+y] = float32(x - y)
									want[x*ldc+y] = float32(x - y)
								}
							}
							if beta == 0 {
								c[0] = float32(math.NaN())
							}
							if err := SgemmNarrow(rows, cols, kc, a, lda, b, ldb, c, ldc, alpha, beta); err != nil {
								t.Fatal(err)
							}
							sgemmNarrowGo(rows, cols, kc, a, lda, b, ldb, want, ldc, alpha, beta)
							what := fmt.Sprintf("SgemmNarrow %s %dx%d kc=%d alpha=%v beta=%v", l, rows, cols, kc, alpha, beta)
							checkTile(t, what, c, want, rows, cols, ldc)
							checkGuards(t, what, buf, n, i%7)
							for x := 0; x < rows-1; x++ {
								for y := cols; y < ldc; y++ {
									if v := c[x*ldc+y]; math.Float32bits(v) != math.Float32bits(sentinel) {
										t.Fatalf("%s: wrote %v at row %d column %d, past the %d columns", what, v, x, y, cols)
									}
								}
							}
						}
					}
				}
			}
		})
	}
	for _, c := range []struct{ rows, cols, kc, lda, ldb, ldc, la, lb, lc int }{
		{1, 17, 1, 1, 17, 17, 1, 17, 17},  // more columns than any vector
		{2, 4, 3, 2, 4, 4, 100, 100, 100}, // lda < kc
		{2, 4, 3, 3, 4, 4, 5, 100, 100},   // A short
		{2, 4, 3, 3, 4, 4, 6, 11, 100},    // B short
		{2, 4, 3, 3, 4, 4, 6, 12, 7},      // C short
		{-1, 4, 3, 3, 4, 4, 6, 12, 8},
	} {
		if err := SgemmNarrow(c.rows, c.cols, c.kc, make([]float32, c.la), c.lda, make([]float32, c.lb), c.ldb, make([]float32, c.lc), c.ldc, 1, 0); err == nil {
			t.Errorf("SgemmNarrow accepted %+v", c)
		}
	}
}

// TestSgemmNarrowTwinIsPacked checks that the narrow twin gives the packed
// micro-kernels' twin's bits on A packed from the same rows, so that a
// product may take either path.
func TestSgemmNarrowTwinIsPacked(t *testing.T) {
	r := rand.New(rand.NewSource(22))
	const rows, cols, kc = 4, 16, 37
	for _, beta := range []float32{0, 1, -0.5} {
		a, b := randInput(r, rows*kc, 1), randInput(r, kc*cols, 1)
		packed := make([]float32, kc*rows)
		for i := 0; i < rows; i++ {
			for p := 0; p < kc; p++ {
				packed[p*rows+i] = a[i*kc+p]
			}
		}
		c, want := make([]float32, rows*cols), make([]float32, rows*cols)
		for i := range c {
			c[i] = float32(i)
			want[i] = float32(i)
		}
		sgemmNarrowGo(rows, cols, kc, a, kc, b, cols, c, cols, 1.5, beta)
		sgemmTwin(rows, cols, kc, packed, b, cols, nil, want, cols, 1.5, beta)
		checkTile(t, fmt.Sprintf("beta=%v", beta), c, want, rows, cols, cols)
	}
}
