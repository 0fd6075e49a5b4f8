package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// refAttention is attention in float64 with a true masked softmax.
func refAttention(q, k, v, bias *runtime.Tensor, scale *float64, mask string) []float64 {
	qs, ks, vs := q.Shape(), k.Shape(), v.Shape()
	b, s, n, h := int(qs[0]), int(qs[1]), int(qs[2]), int(qs[3])
	skv, hv := int(ks[1]), int(vs[3])
	off := 0
	if mask == "BottomRight" {
		off = int(math.Abs(float64(s - skv)))
	}
	out := make([]float64, b*s*n*hv)
	for bi := 0; bi < b; bi++ {
		for ni := 0; ni < n; ni++ {
			for i := 0; i < s; i++ {
				p := make([]float64, skv)
				mx := math.Inf(-1)
				for j := 0; j < skv; j++ {
					var acc float64
					for d := 0; d < h; d++ {
						acc += float64(q.Float32s()[((bi*s+i)*n+ni)*h+d]) * float64(k.Float32s()[((bi*skv+j)*n+ni)*h+d])
					}
					if scale != nil {
						acc *= *scale
					} else {
						acc /= math.Sqrt(float64(h))
					}
					if bias != nil { // bias is (1, n, 1, skv) in these tests
						acc += float64(bias.Float32s()[ni*skv+j])
					}
					if mask != "" && j > i+off {
						p[j] = math.Inf(-1)
						continue
					}
					p[j] = acc
					mx = math.Max(mx, acc)
				}
				var sum float64
				for j := range p {
					p[j] = math.Exp(p[j] - mx)
					sum += p[j]
				}
				for d := 0; d < hv; d++ {
					var o float64
					for j := range p {
						o += p[j] / sum * float64(v.Float32s()[((bi*skv+j)*n+ni)*hv+d])
					}
					out[((bi*s+i)*n+ni)*hv+d] = o
				}
			}
		}
	}
	return out
}

func TestAttention(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	half := 0.5
	for _, tc := range []struct {
		b, s, skv, n, h, hv int
		mask                string
		scale               *float64
		bias                bool
	}{
		{1, 4, 4, 2, 8, 8, "", nil, false},
		{2, 3, 5, 2, 4, 6, "", &half, true},
		{1, 5, 5, 1, 8, 8, "TopLeft", nil, false},
		{2, 3, 6, 2, 4, 4, "BottomRight", nil, true},
		{1, 6, 3, 2, 4, 4, "BottomRight", nil, false},
	} {
		t.Run(fmt.Sprintf("%+v", tc), func(t *testing.T) {
			q := randF32(r, int64(tc.b), int64(tc.s), int64(tc.n), int64(tc.h))
			k := randF32(r, int64(tc.b), int64(tc.skv), int64(tc.n), int64(tc.h))
			v := randF32(r, int64(tc.b), int64(tc.skv), int64(tc.n), int64(tc.hv))
			out := runtime.MustNewTensor([]int64{int64(tc.b), int64(tc.s), int64(tc.n), int64(tc.hv)}, runtime.Float32)
			var bias *runtime.Tensor
			op, args := "nn.attention", []runtime.Value{q, k, v}
			if tc.bias {
				bias = randF32(r, 1, int64(tc.n), 1, int64(tc.skv))
				op, args = "nn.attention_bias", append(args, bias)
			}
			var scale, mask runtime.Value
			if tc.scale != nil {
				scale = *tc.scale
			}
			if tc.mask != "" {
				mask = tc.mask
			}
			mustCall(t, op, append(args, scale, mask, nil, out)...)
			want := refAttention(q, k, v, bias, tc.scale, tc.mask)
			for i, g := range out.Float32s() {
				if math.Abs(float64(g)-want[i]) > 1e-5 {
					t.Fatalf("out[%d] = %v, want %v", i, g, want[i])
				}
			}
		})
	}
	q := randF32(r, 1, 2, 1, 4)
	out := runtime.MustNewTensor([]int64{1, 2, 1, 4}, runtime.Float32)
	if err := call("nn.attention", q, q, q, nil, nil, int64(2), out); err == nil {
		t.Error("window_size accepted")
	}
	if err := call("nn.attention", q, q, q, nil, "Diagonal", nil, out); err == nil {
		t.Error("unknown causal mask accepted")
	}
	if err := call("nn.attention", q, randF32(r, 1, 2, 1, 3), q, nil, nil, nil, out); err == nil {
		t.Error("mismatched head dims accepted")
	}
}
