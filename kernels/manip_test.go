package kernels

import (
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

var manipDTypes = []runtime.DataType{f32, f64, f16, i32, i64, bl, runtime.Int8}

// refGather builds the expected output of shape os where element idx reads
// x at src(idx) (or the value fill when src returns -1).
func refGather(xv []float64, os []int64, src func(idx []int) int, fill float64) []float64 {
	n := 1
	for _, d := range os {
		n *= int(d)
	}
	out := make([]float64, n)
	for i := range out {
		j := src(unravel(i, os))
		if j < 0 {
			out[i] = fill
		} else {
			out[i] = xv[j]
		}
	}
	return out
}

func TestReshapeFamily(t *testing.T) {
	for _, dt := range manipDTypes {
		x := randT(t, 1, []int64{2, 3, 4}, dt, -3, 3)
		xv := vals(x)
		out := mustT(t, []int64{6, 4}, dt)
		mustCall(t, "reshape", x, shp(6, 4), out)
		expectClose(t, "reshape", out, xv, 0, 0)
		mustCall(t, "reshape", x, shp(-1, 4), out)
		expectClose(t, "reshape -1", out, xv, 0, 0)
		if err := call("reshape", x, shp(5, 4), mustT(t, []int64{5, 4}, dt)); err == nil {
			t.Error("reshape to a different size: want error")
		}
		f := mustT(t, []int64{24}, dt)
		mustCall(t, "flatten", x, f)
		expectClose(t, "flatten", f, xv, 0, 0)
		e := mustT(t, []int64{2, 1, 3, 4, 1}, dt)
		mustCall(t, "expand_dims", x, shp(1, -1), e)
		expectClose(t, "expand_dims", e, xv, 0, 0)
		s := mustT(t, []int64{2, 3, 4}, dt)
		mustCall(t, "squeeze", e, nil, s)
		expectClose(t, "squeeze all", s, xv, 0, 0)
		s2 := mustT(t, []int64{2, 3, 4, 1}, dt)
		mustCall(t, "squeeze", e, shp(1), s2)
		expectClose(t, "squeeze axis", s2, xv, 0, 0)
		// A listed axis of size other than 1 is kept (TVM, PyTorch).
		s3 := mustT(t, []int64{2, 3, 4, 1}, dt)
		mustCall(t, "squeeze", e, shp(0, 1), s3)
		expectClose(t, "squeeze keeps a non-1 axis", s3, xv, 0, 0)
		if err := call("squeeze", e, shp(0), s2); err == nil {
			t.Error("squeeze into the wrong output shape: want error")
		}
	}
	// zero-copy when out views x's storage
	x := randT(t, 1, []int64{4, 6}, f32, -3, 3)
	v, _ := x.Reshape([]int64{24})
	mustCall(t, "reshape", x, shp(24), v)
	mustCall(t, "reshape", x, int64(24), mustT(t, []int64{24}, f32))
	z := mustT(t, []int64{0, 3}, f32)
	mustCall(t, "reshape", z, shp(3, 0), mustT(t, []int64{3, 0}, f32))
}

func TestPermuteDims(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	shapes := [][]int64{{7}, {1, 1}, {33, 17}, {257, 33}, {2, 3, 4}, {1, 8, 4, 8}, {2, 3, 1, 5, 2}, {2, 3, 4, 5, 6}, {0, 3}, {}, {64, 1024},
		{1, 2, 2, 2, 9, 13}, {1, 2, 3, 3, 4, 5}, {2, 3, 5, 7}}
	for _, s := range shapes {
		for _, dt := range manipDTypes {
			x := randT(t, 2, s, dt, -3, 3)
			xv := vals(x)
			perms := [][]int64{nil}
			for k := 0; k < 3; k++ {
				p := r.Perm(len(s))
				pp := make([]int64, len(p))
				for i, v := range p {
					pp[i] = int64(v)
					if k == 1 {
						pp[i] -= int64(len(s)) // negative axes
					}
				}
				perms = append(perms, pp)
			}
			switch len(s) {
			case 4:
				perms = append(perms, []int64{0, 2, 1, 3}) // a head split: rows of the last dim
			case 5:
				perms = append(perms, []int64{3, 1, 0, 2, 4}) // three outer dims around contiguous rows
			case 6:
				perms = append(perms, []int64{0, 1, 4, 2, 5, 3}) // a pixel shuffle: rows interleaved in twos
			}
			if len(s) == 4 {
				perms = append(perms, []int64{0, 2, 3, 1}) // NCHW to NHWC: three rows interleaved
			}
			for _, p := range perms {
				norm := make([]int, len(s))
				for i := range norm {
					if p == nil {
						norm[i] = len(s) - 1 - i
					} else {
						norm[i] = int(p[i])
						if norm[i] < 0 {
							norm[i] += len(s)
						}
					}
				}
				os := make([]int64, len(s))
				for i, a := range norm {
					os[i] = s[a]
				}
				out := mustT(t, os, dt)
				var axes runtime.Value
				if p != nil {
					axes = runtime.Shape(p)
				}
				mustCall(t, "permute_dims", x, axes, out)
				want := refGather(xv, os, func(idx []int) int {
					src := make([]int, len(s))
					for i, a := range norm {
						src[a] = idx[i]
					}
					return ravel(src, s)
				}, 0)
				expectClose(t, name("permute_dims ", dt, s, p), out, want, 0, 0)
			}
		}
	}
	if err := call("permute_dims", mustT(t, []int64{2, 3}, f32), shp(0, 0), mustT(t, []int64{2, 2}, f32)); err == nil {
		t.Error("permute_dims repeated axis: want error")
	}
}

func TestBroadcastToTileRepeatFlip(t *testing.T) {
	for _, dt := range manipDTypes {
		x := randT(t, 3, []int64{3, 1, 4}, dt, -3, 3)
		xv := vals(x)
		os := []int64{2, 3, 5, 4}
		out := mustT(t, os, dt)
		mustCall(t, "broadcast_to", x, runtime.Shape(os), out)
		expectClose(t, "broadcast_to", out, refGather(xv, os, func(idx []int) int { return bcastIndex(idx, x.Shape()) }, 0), 0, 0)
		if err := call("broadcast_to", x, shp(3, 2, 4), mustT(t, []int64{3, 2, 4}, dt)); err != nil {
			t.Error(err)
		}
		if err := call("broadcast_to", x, shp(2, 2, 4), mustT(t, []int64{2, 2, 4}, dt)); err == nil {
			t.Error("broadcast_to incompatible: want error")
		}
		// tile with reps longer and shorter than the rank
		for _, reps := range [][]int64{{2, 1, 3}, {2, 1, 1, 2}, {3}, {1, 0, 1}} {
			nd := max(len(reps), 3)
			xs := make([]int64, nd)
			rs := make([]int64, nd)
			for i := range xs {
				xs[i], rs[i] = 1, 1
			}
			copy(xs[nd-3:], x.Shape())
			copy(rs[nd-len(reps):], reps)
			os := make([]int64, nd)
			for i := range os {
				os[i] = xs[i] * rs[i]
			}
			out := mustT(t, os, dt)
			mustCall(t, "tile", x, runtime.Shape(reps), out)
			want := refGather(xv, os, func(idx []int) int {
				src := make([]int, nd)
				for i := range idx {
					src[i] = idx[i] % int(xs[i])
				}
				return ravel(src, xs)
			}, 0)
			expectClose(t, name("tile ", reps), out, want, 0, 0)
		}
		// repeat along an axis and flattened
		for _, ax := range []runtime.Value{int64(0), int64(-1), int64(1), nil} {
			var os []int64
			a := -1
			if v, ok := ax.(int64); ok {
				a = int(v)
				if a < 0 {
					a += 3
				}
				os = append([]int64{}, x.Shape()...)
				os[a] *= 2
			} else {
				os = []int64{x.NumElements() * 2}
			}
			out := mustT(t, os, dt)
			mustCall(t, "repeat", x, int64(2), ax, out)
			want := refGather(xv, os, func(idx []int) int {
				if a < 0 {
					return idx[0] / 2
				}
				src := append([]int{}, idx...)
				src[a] /= 2
				return ravel(src, x.Shape())
			}, 0)
			expectClose(t, name("repeat ", ax), out, want, 0, 0)
		}
		for _, ax := range []int64{0, 1, 2, -1} {
			out := mustT(t, x.Shape(), dt)
			mustCall(t, "flip", x, ax, out)
			a := int(ax)
			if a < 0 {
				a += 3
			}
			want := refGather(xv, x.Shape(), func(idx []int) int {
				src := append([]int{}, idx...)
				src[a] = int(x.Shape()[a]) - 1 - src[a]
				return ravel(src, x.Shape())
			}, 0)
			expectClose(t, name("flip ", ax), out, want, 0, 0)
		}
	}
}

func TestStridedSlice(t *testing.T) {
	x := randT(t, 5, []int64{7, 17}, f32, -3, 3)
	xv := vals(x)
	cases := []struct {
		axes, begin, end, strides []int64
	}{
		{[]int64{0}, []int64{1}, []int64{5}, nil},
		{[]int64{1}, []int64{-5}, []int64{1 << 40}, []int64{2}},
		{[]int64{0, 1}, []int64{6, 16}, []int64{-100, 0}, []int64{-1, -3}},
		{[]int64{-1}, []int64{3}, []int64{3}, []int64{1}},
		{[]int64{0}, []int64{-1}, []int64{-8}, []int64{-2}},
		{[]int64{1, 0}, []int64{0, 0}, []int64{17, 7}, []int64{5, 3}},
		{[]int64{0}, []int64{100}, []int64{200}, []int64{1}},
	}
	for _, c := range cases {
		s := x.Shape()
		starts := []int64{0, 0}
		steps := []int64{1, 1}
		os := append([]int64{}, s...)
		for k, a := range c.axes {
			if a < 0 {
				a += 2
			}
			st := int64(1)
			if c.strides != nil {
				st = c.strides[k]
			}
			// Python slicing reference
			n := s[a]
			b, e := c.begin[k], c.end[k]
			clamp := func(i int64) int64 {
				if i < 0 {
					i += n
				}
				if st > 0 {
					return min(max(i, 0), n)
				}
				return min(max(i, -1), n-1)
			}
			b, e = clamp(b), clamp(e)
			var cnt int64
			for i := b; (st > 0 && i < e) || (st < 0 && i > e); i += st {
				cnt++
			}
			starts[a], steps[a], os[a] = b, st, cnt
		}
		out := mustT(t, os, f32)
		var strides runtime.Value
		if c.strides != nil {
			strides = runtime.Shape(c.strides)
		}
		mustCall(t, "strided_slice", x, runtime.Shape(c.axes), runtime.Shape(c.begin), runtime.Shape(c.end), strides, false, out)
		want := refGather(xv, os, func(idx []int) int {
			return ravel([]int{int(starts[0]) + idx[0]*int(steps[0]), int(starts[1]) + idx[1]*int(steps[1])}, s)
		}, 0)
		expectClose(t, name("strided_slice ", c), out, want, 0, 0)
	}
	if err := call("strided_slice", x, shp(0), shp(0), shp(1), shp(0), false, mustT(t, []int64{1, 17}, f32)); err == nil {
		t.Error("strided_slice stride 0: want error")
	}
}

func TestConcatStackSplit(t *testing.T) {
	for _, dt := range manipDTypes {
		a := randT(t, 1, []int64{2, 3, 4}, dt, -3, 3)
		b := randT(t, 2, []int64{2, 1, 4}, dt, -3, 3)
		c := randT(t, 3, []int64{2, 0, 4}, dt, -3, 3)
		out := mustT(t, []int64{2, 4, 4}, dt)
		mustCall(t, "concat", runtime.Tuple{a, b, c}, int64(-2), out)
		av, bv := vals(a), vals(b)
		want := make([]float64, 32)
		for i := range want {
			idx := unravel(i, []int64{2, 4, 4})
			if idx[1] < 3 {
				want[i] = av[ravel(idx, a.Shape())]
			} else {
				want[i] = bv[ravel([]int{idx[0], idx[1] - 3, idx[2]}, b.Shape())]
			}
		}
		expectClose(t, "concat", out, want, 0, 0)
		flat := mustT(t, []int64{32}, dt)
		mustCall(t, "concat", runtime.Tuple{a, b}, nil, flat)
		expectClose(t, "concat flat", flat, append(append([]float64{}, av...), bv...), 0, 0)
		if err := call("concat", runtime.Tuple{a, randT(t, 1, []int64{3, 3, 4}, dt, 0, 1)}, int64(1), out); err == nil {
			t.Error("concat mismatched dims: want error")
		}
		// split into equal sections and at indices, then concat back
		x := randT(t, 4, []int64{3, 7}, dt, -3, 3)
		xv := vals(x)
		s1, s2, s3 := mustT(t, []int64{3, 3}, dt), mustT(t, []int64{3, 3}, dt), mustT(t, []int64{3, 1}, dt)
		mustCall(t, "split", x, int64(3), int64(1), s1, s2, s3)
		back := mustT(t, []int64{3, 7}, dt)
		mustCall(t, "concat", runtime.Tuple{s1, s2, s3}, int64(1), back)
		expectClose(t, "split sections", back, xv, 0, 0)
		p1, p2, p3 := mustT(t, []int64{3, 2}, dt), mustT(t, []int64{3, 0}, dt), mustT(t, []int64{3, 5}, dt)
		mustCall(t, "split", x, shp(2, 1), int64(-1), runtime.Tuple{p1, p2, p3})
		mustCall(t, "concat", runtime.Tuple{p1, p2, p3}, int64(1), back)
		expectClose(t, "split indices", back, xv, 0, 0)
		if err := call("split", x, int64(3), int64(1), s1, s2); err == nil {
			t.Error("split with too few outputs: want error")
		}
		// stack on each axis
		for _, ax := range []int64{0, 1, 2, -1} {
			aa := int(ax)
			if aa < 0 {
				aa += 3
			}
			os := []int64{2, 3}
			os = append(os[:aa], append([]int64{2}, os[aa:]...)...)
			u, v := randT(t, 5, []int64{2, 3}, dt, -3, 3), randT(t, 6, []int64{2, 3}, dt, -3, 3)
			out := mustT(t, os, dt)
			mustCall(t, "stack", runtime.Tuple{u, v}, ax, out)
			uv, vv := vals(u), vals(v)
			want := make([]float64, 12)
			for i := range want {
				idx := unravel(i, os)
				k := idx[aa]
				rest := append(append([]int{}, idx[:aa]...), idx[aa+1:]...)
				if k == 0 {
					want[i] = uv[ravel(rest, []int64{2, 3})]
				} else {
					want[i] = vv[ravel(rest, []int64{2, 3})]
				}
			}
			expectClose(t, name("stack ", ax), out, want, 0, 0)
		}
	}
}

func TestTake(t *testing.T) {
	x := randT(t, 7, []int64{4, 5}, f32, -3, 3)
	xv := vals(x)
	for _, idt := range []runtime.DataType{i32, i64} {
		ind := fromF(t, idt, []float64{3, 0, -1, 2, 2, 1}, 2, 3)
		out := mustT(t, []int64{2, 3, 5}, f32)
		mustCall(t, "take", x, ind, int64(0), "fast", out)
		iv := []int{3, 0, 3, 2, 2, 1}
		want := refGather(xv, []int64{2, 3, 5}, func(idx []int) int { return iv[idx[0]*3+idx[1]]*5 + idx[2] }, 0)
		expectClose(t, "take axis 0", out, want, 0, 0)
		out1 := mustT(t, []int64{4, 2, 3}, f32)
		mustCall(t, "take", x, ind, int64(-1), "fast", out1)
		iv1 := []int{3, 0, 4, 2, 2, 1} // -1 counts from the end of an axis of 5
		want = refGather(xv, []int64{4, 2, 3}, func(idx []int) int { return idx[0]*5 + iv1[idx[1]*3+idx[2]] }, 0)
		expectClose(t, "take axis -1", out1, want, 0, 0)
		// flattened, with clip and wrap
		big := fromF(t, idt, []float64{25, -3, 19}, 3)
		o := mustT(t, []int64{3}, f32)
		mustCall(t, "take", x, big, nil, "clip", o)
		expectClose(t, "take clip", o, []float64{xv[19], xv[0], xv[19]}, 0, 0)
		mustCall(t, "take", x, big, nil, "wrap", o)
		expectClose(t, "take wrap", o, []float64{xv[5], xv[17], xv[19]}, 0, 0)
		if err := call("take", x, big, nil, "fast", o); err == nil {
			t.Error("take fast out of range: want error")
		}
		// 4-argument form without mode
		mustCall(t, "take", x, fromF(t, idt, []float64{1}, 1), int64(0), mustT(t, []int64{1, 5}, f32))
	}
}

func TestAstype(t *testing.T) {
	in := []float64{-2.7, -1, 0, 0.5, 1.5, 3.9, 100}
	all := []runtime.DataType{f16, f32, f64, runtime.Int8, runtime.Int16, i32, i64, runtime.UInt8, runtime.UInt16, runtime.UInt32, runtime.UInt64, bl}
	for _, from := range all {
		x := fromF(t, from, in, 7)
		if from.IsUInt() || from.IsBool() {
			x = fromF(t, from, []float64{0, 1, 2, 3, 1, 0, 5}, 7)
			if from.IsBool() {
				x = fromF(t, from, []float64{0, 1, 1, 0, 1, 0, 1}, 7)
			}
		}
		xv := vals(x)
		for _, to := range all {
			out := mustT(t, []int64{7}, to)
			mustCall(t, "astype", x, to, out)
			want := make([]float64, 7)
			for i, v := range xv {
				switch {
				case to.IsBool():
					want[i] = b2f(v != 0)
				case to.IsFloat():
					want[i] = roundTo(to, v)
				default:
					tmp := mustT(t, nil, to)
					_ = setInt(tmp, 0, int64(v), v)
					want[i] = elemFloat(tmp, 0)
				}
			}
			expectClose(t, name("astype ", from, "->", to), out, want, 0, 0)
		}
	}
	if err := call("astype", mustT(t, []int64{2}, f32), "int32", mustT(t, []int64{2}, i64)); err == nil {
		t.Error("astype with wrong output dtype: want error")
	}
	mustCall(t, "astype", mustT(t, []int64{2}, f32), "int64", mustT(t, []int64{2}, i64))
}

func TestOneHotGatherElements(t *testing.T) {
	ind := fromF(t, i64, []float64{0, 2, 1, 5}, 2, 2)
	o := mustT(t, []int64{2, 2, 3}, f32)
	mustCall(t, "one_hot", ind, 1.0, 0.0, int64(3), int64(-1), o)
	expectClose(t, "one_hot", o, []float64{1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0}, 0, 0)
	o2 := mustT(t, []int64{3, 2, 2}, i32)
	mustCall(t, "one_hot", ind, int64(5), int64(-1), int64(3), int64(0), o2)
	expectClose(t, "one_hot axis 0", o2, []float64{5, -1, -1, -1, -1, -1, 5, -1, -1, 5, -1, -1}, 0, 0)
	data := fromF(t, f32, []float64{1, 2, 3, 4, 5, 6}, 2, 3)
	gi := fromF(t, i32, []float64{2, 0, 1, -1}, 2, 2)
	og := mustT(t, []int64{2, 2}, f32)
	mustCall(t, "gather_elements", data, gi, int64(1), og)
	expectClose(t, "gather_elements", og, []float64{3, 1, 5, 6}, 0, 0)
	if err := call("gather_elements", data, fromF(t, i32, []float64{3}, 1, 1), int64(1), mustT(t, []int64{1, 1}, f32)); err == nil {
		t.Error("gather_elements out of range: want error")
	}
}

// TestTransposeBatch32 compares the 4-byte batched transpose (8x8 SIMD
// transposes plus Go rows) with the generic loops bit for bit, at every
// SIMD level, on random bit patterns (NaN payloads among them) and row
// counts around the 8-row groups.
func TestTransposeBatch32(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	forEachLevel(t, func(l asm.Level) {
		for _, b := range []int{1, 3} {
			for _, rows := range []int{1, 7, 8, 9, 16, 17, 33} {
				for _, cols := range []int{1, 5, 8, 13, 32, 40} {
					x := make([]float32, b*rows*cols)
					for i := range x {
						x[i] = math.Float32frombits(r.Uint32())
					}
					got, want := make([]float32, len(x)), make([]uint32, len(x))
					transposeBatch32(got, x, b, rows, cols)
					xb := make([]uint32, len(x))
					for i, v := range x {
						xb[i] = math.Float32bits(v)
					}
					transposeBatch(want, xb, b, rows, cols)
					for i := range want {
						if math.Float32bits(got[i]) != want[i] {
							t.Fatalf("%s b=%d rows=%d cols=%d: [%d] %#x, want %#x", l, b, rows, cols, i, math.Float32bits(got[i]), want[i])
						}
					}
				}
			}
		}
	})
}
