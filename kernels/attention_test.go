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
		// The fused kernel's path (no causal mask) on sizes that split
		// into row blocks and tiles with remainders.
		{2, 37, 53, 3, 20, 12, "", &half, true},
		{1, 130, 77, 2, 40, 24, "", nil, true},
		{1, 9, 200, 4, 64, 64, "", nil, false},
		{2, 70, 70, 3, 16, 24, "TopLeft", &half, true},
		{1, 40, 90, 2, 32, 32, "BottomRight", nil, false},
		{1, 90, 40, 2, 32, 8, "BottomRight", nil, true},
		{1, 300, 100, 1, 8, 8, "TopLeft", nil, false}, // two row blocks of scores
	} {
		sc := "default"
		if tc.scale != nil {
			sc = fmt.Sprint(*tc.scale)
		}
		t.Run(fmt.Sprintf("b%d_s%d_skv%d_n%d_h%d_hv%d_mask%q_scale=%s_bias=%v", tc.b, tc.s, tc.skv, tc.n, tc.h, tc.hv, tc.mask, sc, tc.bias), func(t *testing.T) {
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
			want := refAttention(q, k, v, bias, tc.scale, tc.mask)
			// Both paths: the fused kernel and the scalar loops.
			for _, scalar := range []bool{false, true} {
				attentionScalar = scalar
				mustCall(t, op, append(args, scale, mask, nil, out)...)
				attentionScalar = false
				for i, g := range out.Float32s() {
					if math.Abs(float64(g)-want[i]) > 1e-5 {
						t.Fatalf("scalar=%v: out[%d] = %v, want %v", scalar, i, g, want[i])
					}
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

// BenchmarkAttention times Relax's nn.attention (TVM's frontends print
// PyTorch's scaled_dot_product_attention as it) on BERT-base's 12 heads of
// 128 tokens, with and without a causal mask, on the fused kernel and on
// the scalar loops, 1 thread.
func BenchmarkAttention(b *testing.B) {
	defer SetNumThreads(0)
	r := rand.New(rand.NewSource(1))
	q, k, v := randF32(r, 1, 128, 12, 64), randF32(r, 1, 128, 12, 64), randF32(r, 1, 128, 12, 64)
	out := runtime.MustNewTensor([]int64{1, 128, 12, 64}, runtime.Float32)
	for _, causal := range []bool{false, true} {
		a := AttentionAttrs{}
		if causal {
			a.CausalMask = "TopLeft"
		}
		for _, scalar := range []bool{false, true} {
			b.Run(fmt.Sprintf("causal=%v/scalar=%v", causal, scalar), func(b *testing.B) {
				SetNumThreads(1)
				attentionScalar = scalar
				defer func() { attentionScalar = false }()
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if err := Attention(out, q, k, v, nil, a); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
