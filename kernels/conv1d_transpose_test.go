package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestConv1DTranspose(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, tc := range []struct{ n, cin, w, o, k, s, pl, pr, op, d, g int }{
		{1, 2, 5, 3, 3, 1, 0, 0, 0, 1, 1},
		{2, 4, 7, 6, 3, 2, 1, 2, 1, 1, 2},
		{1, 3, 6, 3, 2, 3, 0, 1, 2, 2, 3},
	} {
		t.Run(fmt.Sprintf("%+v", tc), func(t *testing.T) {
			ow := (tc.w-1)*tc.s - tc.pl - tc.pr + tc.d*(tc.k-1) + tc.op + 1
			x := randF32(r, int64(tc.n), int64(tc.cin), int64(tc.w))
			w := randF32(r, int64(tc.cin), int64(tc.o/tc.g), int64(tc.k))
			out := runtime.MustNewTensor([]int64{int64(tc.n), int64(tc.o), int64(ow)}, runtime.Float32)
			err := call("nn.conv1d_transpose", x, w, runtime.Shape{int64(tc.s)}, runtime.Shape{int64(tc.pl), int64(tc.pr)},
				runtime.Shape{int64(tc.op)}, runtime.Shape{int64(tc.d)}, int64(tc.g), "NCW", "IOW", "NCW", nil, out)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, tc.n*tc.o*ow)
			cpg, opg := tc.cin/tc.g, tc.o/tc.g
			for n := 0; n < tc.n; n++ {
				for c := 0; c < tc.cin; c++ {
					for oo := 0; oo < opg; oo++ {
						o := c/cpg*opg + oo
						for i := 0; i < tc.w; i++ {
							for k := 0; k < tc.k; k++ {
								if p := i*tc.s - tc.pl + k*tc.d; p >= 0 && p < ow {
									want[(n*tc.o+o)*ow+p] += float64(x.Float32s()[(n*tc.cin+c)*tc.w+i]) * float64(w.Float32s()[(c*opg+oo)*tc.k+k])
								}
							}
						}
					}
				}
			}
			for i, g := range out.Float32s() {
				if math.Abs(float64(g)-want[i]) > 1e-4 {
					t.Fatalf("out[%d] = %v, want %v", i, g, want[i])
				}
			}
		})
	}
	x := randF32(r, 1, 2, 4)
	out := runtime.MustNewTensor([]int64{1, 2, 6}, runtime.Float32)
	if err := call("nn.conv1d_transpose", x, randF32(r, 2, 2, 3), runtime.Shape{1}, runtime.Shape{0, 0}, runtime.Shape{0}, runtime.Shape{1}, int64(1), "NWC", "IOW", "NCW", nil, out); err == nil {
		t.Error("NWC accepted")
	}
}
