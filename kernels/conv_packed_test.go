package kernels

import (
	"math"
	"testing"
)

// TestConvRegisteredWeights checks that a convolution whose weight is a
// registered constant (packed once into GEMM panels) gives the bits of the
// same convolution packing the weight per call: regular, pointwise, grouped,
// few and many output channels, deep enough for several depth blocks, at 1
// and 2 threads.
func TestConvRegisteredWeights(t *testing.T) {
	defer SetNumThreads(0)
	for gi, g := range []struct{ n, c, h, w, o, k, stride, pad, groups int }{
		{1, 3, 9, 11, 8, 3, 1, 1, 1},
		{2, 40, 7, 7, 70, 1, 1, 0, 1},   // pointwise
		{1, 6, 8, 8, 12, 3, 1, 1, 3},    // grouped
		{1, 64, 10, 10, 20, 3, 2, 1, 1}, // depth 576: three depth blocks
		{1, 16, 6, 6, 5, 3, 1, 0, 1},    // few output channels (small tile)
	} {
		x := randT(t, int64(gi), []int64{int64(g.n), int64(g.c), int64(g.h), int64(g.w)}, f32, -2, 2)
		w := randT(t, int64(gi+50), []int64{int64(g.o), int64(g.c / g.groups), int64(g.k), int64(g.k)}, f32, -1, 1)
		oh := (g.h+2*g.pad-g.k)/g.stride + 1
		ow := (g.w+2*g.pad-g.k)/g.stride + 1
		attrs := Conv2DAttrs{Strides: []int64{int64(g.stride), int64(g.stride)}, Padding: []int64{int64(g.pad)}, Groups: int64(g.groups)}
		for _, th := range []int{1, 2} {
			SetNumThreads(th)
			want := mustT(t, []int64{int64(g.n), int64(g.o), int64(oh), int64(ow)}, f32)
			if err := Conv2D(want, x, w, attrs); err != nil {
				t.Fatal(err)
			}
			RegisterConstant(w)
			for rep := 0; rep < 2; rep++ { // packed on first use, then cached
				got := mustT(t, []int64{int64(g.n), int64(g.o), int64(oh), int64(ow)}, f32)
				if err := Conv2D(got, x, w, attrs); err != nil {
					t.Fatal(err)
				}
				wf, gf := want.Float32s(), got.Float32s()
				for i := range wf {
					if math.Float32bits(wf[i]) != math.Float32bits(gf[i]) {
						t.Fatalf("geometry %d threads %d: [%d] packed %v, unpacked %v", gi, th, i, gf[i], wf[i])
					}
				}
			}
			if constConvPacked(w, g.groups, g.o/g.groups, g.c/g.groups*g.k*g.k, false) == nil {
				t.Errorf("geometry %d: the registered weight was not packed", gi)
			}
			UnregisterConstant(w)
		}
	}
}
