package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// TestSoftmaxAttentionMatchesUnfused requires the fused attention to give the
// bits of Matmul, Multiply or Divide by a one-element tensor, Softmax over
// the last axis and Matmul run one after another: ranks 2-4, short rows (the
// one-vector softmax) and long ones, several row blocks, the parallel path,
// and NaNs, infinities and large values among the inputs.
func TestSoftmaxAttentionMatchesUnfused(t *testing.T) {
	defer SetNumThreads(0)
	r := rand.New(rand.NewSource(33))
	for _, c := range []struct {
		batch      []int64
		m, k, n, d int64
	}{
		{nil, 1, 1, 1, 1},
		{nil, 5, 3, 7, 2},
		{[]int64{4}, 8, 8, 8, 8},
		{[]int64{1, 4}, 8, 8, 8, 8},
		{[]int64{2, 3}, 17, 9, 33, 5},
		{[]int64{1, 4}, 128, 64, 128, 64},
		{[]int64{2}, 250, 16, 600, 12}, // row blocks of attentionScores/600 rows (109 on a 1 MiB L2), the last short
		{[]int64{1, 2}, 3, 300, 5, 4},  // depth past one GEMM block
	} {
		for op := AttentionNoScale; op <= AttentionDivide; op++ {
			for mop := AttentionNoMask; mop <= AttentionWhereKeep; mop++ {
				for _, threads := range []int{1, 2} {
					SetNumThreads(threads)
					shape := func(x, y int64) []int64 { return append(append([]int64{}, c.batch...), x, y) }
					a := randT(t, r.Int63(), shape(c.m, c.k), f32, -3, 3)
					b := randT(t, r.Int63(), shape(c.k, c.n), f32, -3, 3)
					v := randT(t, r.Int63(), shape(c.n, c.d), f32, -2, 2)
					if xs := a.Float32s(); len(xs) > 4 {
						xs[r.Intn(len(xs))] = float32(math.NaN())
						xs[r.Intn(len(xs))] = float32(math.Inf(1))
						xs[r.Intn(len(xs))] = 300 // exp overflows without the maximum
					}
					scale := float32(0.35)
					st := mustT(t, []int64{}, f32)
					st.Float32s()[0] = scale
					// The four ops.
					s := mustT(t, shape(c.m, c.n), f32)
					if err := Matmul(s, a, b); err != nil {
						t.Fatal(err)
					}
					s2 := mustT(t, shape(c.m, c.n), f32)
					switch op {
					case AttentionMultiply:
						if err := Multiply(s2, s, st); err != nil {
							t.Fatal(err)
						}
					case AttentionDivide:
						if err := Divide(s2, s, st); err != nil {
							t.Fatal(err)
						}
					default:
						s2 = s
					}
					// The mask: the scores' shape, or broadcast rows, columns
					// or batch (by the case), and its op.
					mshape := shape(c.m, c.n)
					switch (int(c.m) + mop) % 3 {
					case 1:
						mshape = []int64{c.m, c.n} // over the batch
					case 2:
						mshape = shape(1, c.n) // one row for all
					}
					if mop == AttentionAddMask && c.n%2 == 0 {
						mshape = shape(c.m, 1) // one value a row
					}
					var mask *runtime.Tensor
					fill := float32(math.Inf(-1))
					s3 := s2
					switch mop {
					case AttentionAddMask, AttentionMaskAdd:
						mask = randT(t, r.Int63(), mshape, f32, -2, 2)
						if xs := mask.Float32s(); len(xs) > 2 {
							xs[0] = float32(math.Inf(-1))
						}
						s3 = mustT(t, shape(c.m, c.n), f32)
						x, y := s2, mask
						if mop == AttentionMaskAdd {
							x, y = mask, s2
						}
						if err := Add(s3, x, y); err != nil {
							t.Fatal(err)
						}
					case AttentionWhereFill, AttentionWhereKeep:
						mask = mustT(t, mshape, runtime.Bool)
						for i, bs := 0, elems[bool](mask); i < len(bs); i++ {
							bs[i] = r.Intn(3) > 0
						}
						ft := mustT(t, []int64{}, f32)
						ft.Float32s()[0] = fill
						s3 = mustT(t, shape(c.m, c.n), f32)
						x, y := ft, s2
						if mop == AttentionWhereKeep {
							x, y = s2, ft
						}
						if err := Where(s3, mask, x, y); err != nil {
							t.Fatal(err)
						}
					}
					p := mustT(t, shape(c.m, c.n), f32)
					if err := Softmax(p, s3, -1); err != nil {
						t.Fatal(err)
					}
					want := mustT(t, shape(c.m, c.d), f32)
					if err := Matmul(want, p, v); err != nil {
						t.Fatal(err)
					}
					got := mustT(t, shape(c.m, c.d), f32)
					ft := mustT(t, []int64{1}, f32)
					ft.Float32s()[0] = fill
					var mv runtime.Value = int64(0)
					if mask != nil {
						mv = mask
					}
					if _, err := packedSoftmaxAttention([]runtime.Value{a, b, v, st, int64(op), mv, ft, int64(mop), got}); err != nil {
						t.Fatal(err)
					}
					what := fmt.Sprintf("%v %dx%dx%dx%d op=%d mask=%d threads=%d", c.batch, c.m, c.k, c.n, c.d, op, mop, threads)
					for i, g := range got.Float32s() {
						if w := want.Float32s()[i]; math.Float32bits(g) != math.Float32bits(w) {
							t.Fatalf("%s: out[%d] = %v, the unfused ops give %v", what, i, g, w)
						}
					}
				}
			}
		}
	}
	// Refusals: shapes that do not chain, a wrong output, a bad scale.
	a, b, v := mustT(t, []int64{2, 3}, f32), mustT(t, []int64{3, 4}, f32), mustT(t, []int64{4, 5}, f32)
	o := mustT(t, []int64{2, 5}, f32)
	for _, args := range [][]runtime.Value{
		{a, b, mustT(t, []int64{3, 5}, f32), int64(0), int64(0), int64(0), int64(0), int64(0), o},
		{a, b, v, int64(0), int64(0), int64(0), int64(0), int64(0), mustT(t, []int64{2, 4}, f32)},
		{a, b, v, mustT(t, []int64{2}, f32), int64(1), int64(0), int64(0), int64(0), o},
		{a, b, v, int64(0), int64(7), int64(0), int64(0), int64(0), o},
		{mustT(t, []int64{1, 2, 3}, f32), b, v, int64(0), int64(0), int64(0), int64(0), int64(0), o},
		{a, b, v, int64(0), int64(0), mustT(t, []int64{3, 4}, f32), int64(0), int64(1), o},                  // mask does not broadcast
		{a, b, v, int64(0), int64(0), mustT(t, []int64{2, 4}, runtime.Bool), int64(0), int64(1), o},         // an add with a bool mask
		{a, b, v, int64(0), int64(0), mustT(t, []int64{2, 4}, f32), mustT(t, []int64{1}, f32), int64(3), o}, // a where with a float mask
		{a, b, v, int64(0), int64(0), mustT(t, []int64{2, 4}, f32), int64(0), int64(9), o},
	} {
		if _, err := packedSoftmaxAttention(args); err == nil {
			t.Errorf("softmax_attention accepted %v", args)
		}
	}
}

// TestSoftmaxAttentionAllocs requires the fused attention, mask included,
// to allocate nothing in steady state on one thread.
func TestSoftmaxAttentionAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled items at random")
	}
	defer SetNumThreads(0)
	SetNumThreads(1)
	a := randT(t, 1, []int64{1, 4, 32, 16}, f32, -1, 1)
	b := randT(t, 2, []int64{1, 4, 16, 32}, f32, -1, 1)
	v := randT(t, 3, []int64{1, 4, 32, 16}, f32, -1, 1)
	mask := mustT(t, []int64{1, 1, 32, 32}, runtime.Bool)
	out := mustT(t, []int64{1, 4, 32, 16}, f32)
	m := AttentionMask{Op: AttentionWhereFill, Mask: mask, Fill: float32(math.Inf(-1))}
	run := func() {
		if err := SoftmaxAttention(out, a, b, v, 0.25, AttentionMultiply, m); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if n := testing.AllocsPerRun(50, run); n != 0 {
		t.Errorf("%v allocations a call, want 0", n)
	}
}

// BenchmarkSoftmaxAttention times the fused attention at 1 and 2 threads on the
// transformer_s128_d256 block's shape (4 heads, 128 tokens, 64 per head)
// and on one with 384 tokens, without a mask and with a causal one.
func BenchmarkSoftmaxAttention(b *testing.B) {
	defer SetNumThreads(0)
	for _, s := range []struct{ heads, tokens, d int }{{4, 128, 64}, {4, 384, 64}, {12, 197, 64}} {
		for _, causal := range []bool{false, true} {
			h, n, d := int64(s.heads), int64(s.tokens), int64(s.d)
			q := randT(b, 1, []int64{1, h, n, d}, f32, -1, 1)
			k := randT(b, 2, []int64{1, h, d, n}, f32, -1, 1)
			v := randT(b, 3, []int64{1, h, n, d}, f32, -1, 1)
			out := mustT(b, []int64{1, h, n, d}, f32)
			var mask AttentionMask
			if causal {
				m := mustT(b, []int64{1, 1, n, n}, f32)
				ms := m.Float32s()
				for i := range ms {
					if int64(i)%n > int64(i)/n {
						ms[i] = float32(math.Inf(-1))
					}
				}
				mask = AttentionMask{Op: AttentionAddMask, Mask: m}
			}
			for _, threads := range []int{1, 2} {
				b.Run(fmt.Sprintf("h=%d/n=%d/d=%d/causal=%v/threads=%d", h, n, d, causal, threads), func(b *testing.B) {
					SetNumThreads(threads)
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						if err := SoftmaxAttention(out, q, k, v, 8, AttentionDivide, mask); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(4*float64(h*n*n*d)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// TestSoftmaxAttentionLayouts requires every token-major combination (a, v,
// out) to give the bits of the head-major call on operands permuted by
// PermuteDims (and its output permuted back): ranks 4 (B, T, H, F) and 3 (T, G, F), short
// and long rows, several row blocks, a mask, one and two threads, NaNs
// among the inputs; and refuses operands whose layout does not fit.
func TestSoftmaxAttentionLayouts(t *testing.T) {
	defer SetNumThreads(0)
	r := rand.New(rand.NewSource(41))
	for _, c := range []struct{ bs, h, m, n, k, d int64 }{ // bs 0: rank 3
		{1, 1, 1, 1, 1, 1}, {2, 3, 5, 7, 3, 2}, {1, 4, 17, 33, 9, 5}, {2, 2, 250, 600, 16, 12}, {1, 4, 128, 128, 64, 64},
		{0, 1, 1, 1, 1, 1}, {0, 8, 12, 12, 16, 16}, {0, 3, 250, 600, 16, 12},
	} {
		// The shapes of a (tokens, features) operand token-major and
		// head-major, and the permutations between them.
		tm := func(tok, f int64) []int64 { return []int64{c.bs, tok, c.h, f} }
		hm := func(x, y int64) []int64 { return []int64{c.bs, c.h, x, y} }
		toHeads, keys := []int64{0, 2, 1, 3}, []int64{0, 2, 3, 1}
		maskShape := []int64{1, 1, c.m, c.n}
		if c.bs == 0 {
			tm = func(tok, f int64) []int64 { return []int64{tok, c.h, f} }
			hm = func(x, y int64) []int64 { return []int64{c.h, x, y} }
			toHeads, keys = []int64{1, 0, 2}, []int64{1, 2, 0}
			maskShape = []int64{1, c.m, c.n}
		}
		q := randT(t, r.Int63(), tm(c.m, c.k), f32, -3, 3)
		kt := randT(t, r.Int63(), tm(c.n, c.k), f32, -3, 3)
		vt := randT(t, r.Int63(), tm(c.n, c.d), f32, -2, 2)
		if xs := q.Float32s(); len(xs) > 4 {
			xs[r.Intn(len(xs))] = float32(math.NaN())
		}
		// The head-major operands, as the permutes make them.
		a := mustT(t, hm(c.m, c.k), f32)
		b := mustT(t, hm(c.k, c.n), f32)
		v := mustT(t, hm(c.n, c.d), f32)
		for _, p := range []struct {
			out, x *runtime.Tensor
			axes   []int64
		}{{a, q, toHeads}, {b, kt, keys}, {v, vt, toHeads}} {
			if err := PermuteDims(p.out, p.x, p.axes); err != nil {
				t.Fatal(err)
			}
		}
		mask := randT(t, r.Int63(), maskShape, f32, -1, 1)
		for _, threads := range []int{1, 2} {
			SetNumThreads(threads)
			m := AttentionMask{Op: AttentionAddMask, Mask: mask}
			headMajor := mustT(t, hm(c.m, c.d), f32)
			if err := SoftmaxAttention(headMajor, a, b, v, 0.125, AttentionMultiply, m); err != nil {
				t.Fatal(err)
			}
			tokenMajor := mustT(t, tm(c.m, c.d), f32)
			if err := PermuteDims(tokenMajor, headMajor, toHeads); err != nil { // its own inverse
				t.Fatal(err)
			}
			for layout := 1; layout < 8; layout++ {
				pick := func(bit int, tm, hm *runtime.Tensor) *runtime.Tensor {
					if layout&bit != 0 {
						return tm
					}
					return hm
				}
				want := pick(AttentionTokenMajorOut, tokenMajor, headMajor)
				got := mustT(t, want.Shape(), f32)
				err := SoftmaxAttentionLayout(got, pick(AttentionTokenMajorA, q, a), b, pick(AttentionTokenMajorV, vt, v),
					0.125, AttentionMultiply, m, layout)
				if err != nil {
					t.Fatalf("%+v layout %d: %v", c, layout, err)
				}
				wf, gf := want.Float32s(), got.Float32s()
				for i := range wf {
					if math.Float32bits(wf[i]) != math.Float32bits(gf[i]) {
						t.Fatalf("%+v layout %d threads %d: [%d] = %v, want %v", c, layout, threads, i, gf[i], wf[i])
					}
				}
			}
		}
	}
	// Token-major operands need rank 3 or 4, and their head counts must agree.
	q2 := mustT(t, []int64{2, 8}, f32)
	k2 := mustT(t, []int64{2, 8}, f32)
	if err := SoftmaxAttentionLayout(mustT(t, []int64{2, 8}, f32), q2, k2, mustT(t, []int64{2, 8}, f32), 1, AttentionNoScale, AttentionMask{}, AttentionTokenMajorA); err == nil {
		t.Error("a rank-2 token-major operand accepted")
	}
	q4 := mustT(t, []int64{1, 5, 2, 8}, f32) // (B, M=5, H=2, K=8)
	k4 := mustT(t, []int64{1, 2, 8, 3}, f32)
	v4 := mustT(t, []int64{1, 3, 5, 8}, f32) // (B, N=3, H=5, D=8): 5 heads
	o4 := mustT(t, []int64{1, 2, 5, 8}, f32)
	if err := SoftmaxAttentionLayout(o4, q4, k4, v4, 1, AttentionNoScale, AttentionMask{}, AttentionTokenMajorA|AttentionTokenMajorV); err == nil {
		t.Error("token-major operands with different head counts accepted")
	}
	if err := SoftmaxAttentionLayout(o4, q4, k4, v4, 1, AttentionNoScale, AttentionMask{}, 8); err == nil {
		t.Error("layout 8 accepted")
	}
}
