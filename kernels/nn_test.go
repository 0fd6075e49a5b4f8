package kernels

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// refSoftmax computes (log-)softmax along axis with float64 math.
func refSoftmax(xv []float64, shape []int64, axis int, log bool) []float64 {
	out := make([]float64, len(xv))
	outer, n, inner := splitAxis(shape, axis)
	for o := 0; o < outer; o++ {
		for j := 0; j < inner; j++ {
			at := func(k int) int { return (o*n+k)*inner + j }
			m := math.Inf(-1)
			for k := 0; k < n; k++ {
				m = math.Max(m, xv[at(k)])
			}
			var s float64
			for k := 0; k < n; k++ {
				s += math.Exp(xv[at(k)] - m)
			}
			for k := 0; k < n; k++ {
				if log {
					out[at(k)] = xv[at(k)] - m - math.Log(s)
				} else {
					out[at(k)] = math.Exp(xv[at(k)]-m) / s
				}
			}
		}
	}
	return out
}

func TestSoftmax(t *testing.T) {
	cases := []struct {
		shape []int64
		axis  int64
	}{
		{[]int64{7}, 0}, {[]int64{1}, -1}, {[]int64{3, 17}, -1}, {[]int64{3, 17}, 0},
		{[]int64{2, 33, 5}, 1}, {[]int64{2, 33, 5}, -2}, {[]int64{4, 257}, 1}, {[]int64{0, 5}, 1},
		{[]int64{300, 257}, -1}, {[]int64{1, 4, 8, 8}, -1},
	}
	for _, c := range cases {
		for _, dt := range []runtime.DataType{f32, f64, f16} {
			for _, op := range []string{"nn.softmax", "nn.log_softmax"} {
				x := randT(t, 5, c.shape, dt, -8, 8)
				out := mustT(t, c.shape, dt)
				mustCall(t, op, x, c.axis, out)
				ax := int(c.axis)
				if ax < 0 {
					ax += len(c.shape)
				}
				want := refSoftmax(vals(x), c.shape, ax, op == "nn.log_softmax")
				rtol, atol := tolFor(dt)
				if dt == f32 {
					rtol, atol = 1e-5, 1e-6
				}
				if dt == f16 {
					atol = 4e-3
				}
				expectClose(t, name(op, " ", dt, c.shape, " axis ", c.axis), out, want, rtol, atol)
			}
		}
	}
	// large inputs do not overflow
	x := fromF(t, f32, []float64{1000, 1000, -1000}, 3)
	out := mustT(t, []int64{3}, f32)
	mustCall(t, "nn.softmax", x, int64(0), out)
	expectClose(t, "softmax large", out, []float64{0.5, 0.5, 0}, 1e-6, 1e-7)
	nan := math.NaN()
	mustCall(t, "nn.softmax", fromF(t, f32, []float64{1, nan, 2}, 3), int64(0), out)
	expectClose(t, "softmax NaN row", out, []float64{nan, nan, nan}, 0, 0)
	mustCall(t, "nn.softmax", fromF(t, f32, []float64{1, math.Inf(1), 2}, 3), int64(0), out)
	expectClose(t, "softmax +Inf row", out, []float64{nan, nan, nan}, 0, 0) // as NumPy: inf-inf poisons the sum
	if err := call("nn.softmax", x, int64(1), out); err == nil {
		t.Error("softmax axis out of range: want error")
	}
	if err := call("nn.softmax", mustT(t, []int64{3}, i32), int64(0), mustT(t, []int64{3}, i32)); err == nil {
		t.Error("softmax on int32: want error")
	}
}

// refNorm is the two-pass reference of layer_norm / rms_norm over axes.
func refNorm(xv []float64, shape []int64, axes []int, g, b []float64, eps float64, rms bool) []float64 {
	isRed := make([]bool, len(shape))
	for _, a := range axes {
		isRed[a] = true
	}
	key := func(idx []int) (int, int) { // (group id over kept dims, param index over reduced dims)
		k, p := 0, 0
		for d := range shape {
			if isRed[d] {
				p = p*int(shape[d]) + idx[d]
			} else {
				k = k*int(shape[d]) + idx[d]
			}
		}
		return k, p
	}
	sum := map[int]float64{}
	cnt := map[int]float64{}
	for i, v := range xv {
		k, _ := key(unravel(i, shape))
		if rms {
			sum[k] += v * v
		} else {
			sum[k] += v
		}
		cnt[k]++
	}
	vs := map[int]float64{}
	for i, v := range xv {
		k, _ := key(unravel(i, shape))
		d := v - sum[k]/cnt[k]
		vs[k] += d * d
	}
	out := make([]float64, len(xv))
	for i, v := range xv {
		k, p := key(unravel(i, shape))
		if rms {
			out[i] = v / math.Sqrt(sum[k]/cnt[k]+eps) * g[p]
		} else {
			out[i] = (v-sum[k]/cnt[k])/math.Sqrt(vs[k]/cnt[k]+eps)*g[p] + b[p]
		}
	}
	return out
}

func TestLayerNormRMSNorm(t *testing.T) {
	cases := []struct {
		shape []int64
		axes  []int64
	}{
		{[]int64{1, 8, 32}, []int64{-1}}, {[]int64{7}, []int64{0}}, {[]int64{3, 7, 5}, []int64{1, 2}},
		{[]int64{3, 7, 5}, []int64{-2, -1}}, {[]int64{4, 6, 5}, []int64{0}}, {[]int64{4, 6, 5}, []int64{0, 2}},
		{[]int64{257, 33}, []int64{1}}, {[]int64{0, 4}, []int64{1}}, {[]int64{2100, 33}, []int64{-1}},
	}
	for _, c := range cases {
		axes := make([]int, len(c.axes))
		var pshape []int64
		for i, a := range c.axes {
			axes[i] = int(a)
			if a < 0 {
				axes[i] += len(c.shape)
			}
		}
		for d := range c.shape {
			for _, a := range axes {
				if a == d {
					pshape = append(pshape, c.shape[d])
				}
			}
		}
		for _, dt := range []runtime.DataType{f32, f64, f16} {
			x := randT(t, 9, c.shape, dt, -4, 6)
			g := randT(t, 10, pshape, dt, 0.5, 1.5)
			b := randT(t, 11, pshape, dt, -1, 1)
			out := mustT(t, c.shape, dt)
			mustCall(t, "nn.layer_norm", x, g, b, runtime.Shape(c.axes), 1e-5, true, int64(1), out)
			rtol, atol := tolFor(dt)
			if dt == f32 {
				rtol, atol = 1e-5, 1e-5
			}
			if dt == f16 {
				rtol, atol = 4e-3, 8e-3
			}
			expectClose(t, name("layer_norm ", dt, c.shape, c.axes), out, refNorm(vals(x), c.shape, axes, vals(g), vals(b), 1e-5, false), rtol, atol)
			mustCall(t, "nn.rms_norm", x, g, runtime.Shape(c.axes), 1e-6, out)
			expectClose(t, name("rms_norm ", dt, c.shape, c.axes), out, refNorm(vals(x), c.shape, axes, vals(g), nil, 1e-6, true), rtol, atol)
		}
	}
	x := mustT(t, []int64{2, 4}, f32)
	if err := call("nn.layer_norm", x, mustT(t, []int64{3}, f32), mustT(t, []int64{4}, f32), shp(-1), 1e-5, true, true, mustT(t, []int64{2, 4}, f32)); err == nil {
		t.Error("layer_norm with wrong gamma shape: want error")
	}
}

func TestBatchNormDropout(t *testing.T) {
	shape := []int64{2, 3, 4, 5}
	x := randT(t, 1, shape, f32, -2, 2)
	g := randT(t, 2, []int64{3}, f32, 0.5, 1.5)
	b := randT(t, 3, []int64{3}, f32, -1, 1)
	mm := randT(t, 4, []int64{3}, f32, -1, 1)
	mv := randT(t, 5, []int64{3}, f32, 0.5, 2)
	out, om, ov := mustT(t, shape, f32), mustT(t, []int64{3}, f32), mustT(t, []int64{3}, f32)
	mustCall(t, "nn.batch_norm", x, g, b, mm, mv, int64(1), 1e-5, true, true, 0.1, false, out, om, ov)
	xv, gv, bv, mmv, mvv := vals(x), vals(g), vals(b), vals(mm), vals(mv)
	want := make([]float64, len(xv))
	for i, v := range xv {
		c := unravel(i, shape)[1]
		want[i] = (v-mmv[c])/math.Sqrt(mvv[c]+1e-5)*gv[c] + bv[c]
	}
	expectClose(t, "batch_norm", out, want, 1e-5, 1e-6)
	expectClose(t, "batch_norm mean", om, mmv, 0, 0)
	expectClose(t, "batch_norm var", ov, mvv, 0, 0)
	// 12-argument form (no momentum/training), axis -1, no center/scale
	shape2 := []int64{6, 3}
	x2 := randT(t, 6, shape2, f64, -2, 2)
	out2 := mustT(t, shape2, f64)
	g2, b2, m2, v2 := randT(t, 7, []int64{3}, f64, 1, 2), randT(t, 8, []int64{3}, f64, 1, 2), randT(t, 9, []int64{3}, f64, 1, 2), randT(t, 10, []int64{3}, f64, 1, 2)
	mustCall(t, "nn.batch_norm", x2, g2, b2, m2, v2, int64(-1), 1e-3, false, false, out2, mustT(t, []int64{3}, f64), mustT(t, []int64{3}, f64))
	for i, v := range vals(x2) {
		c := i % 3
		want := (v - vals(m2)[c]) / math.Sqrt(vals(v2)[c]+1e-3)
		if math.Abs(vals(out2)[i]-want) > 1e-12 {
			t.Fatalf("batch_norm no scale: %v vs %v", vals(out2)[i], want)
		}
	}
	// training mode uses batch statistics
	mustCall(t, "nn.batch_norm", x2, g2, b2, m2, v2, int64(1), 1e-3, false, false, 0.25, true, out2, om2(t), om2(t))
	d := mustT(t, shape, f32)
	mask := mustT(t, shape, f32)
	mustCall(t, "nn.dropout", x, 0.5, d, mask)
	expectClose(t, "dropout", d, xv, 0, 0)
	ones := make([]float64, len(xv))
	for i := range ones {
		ones[i] = 1
	}
	expectClose(t, "dropout mask", mask, ones, 0, 0)
	mustCall(t, "nn.dropout", x, 0.5, d)
}

func om2(t *testing.T) *runtime.Tensor { return mustT(t, []int64{3}, f64) }

// TestGroupNormShapes holds group_norm and instance_norm to a float64
// reference on the layouts the block path takes (channels on axis 1, every
// later axis reduced: NCHW, an ONNX GroupNorm's (N, G, L) reshape, 5-D,
// blocks of one element, odd block lengths, large blocks at 1 and 2
// threads) and on one it does not (channels last, NHWC).
func TestGroupNormShapes(t *testing.T) {
	defer SetNumThreads(0)
	for i, c := range []struct {
		shape  []int64
		groups int64
		ca     int64
		axes   []int64
	}{
		{[]int64{1, 4, 4096}, 4, 1, []int64{2}},
		{[]int64{2, 32, 5, 7}, 8, 1, []int64{2, 3}},
		{[]int64{1, 6, 3, 3, 3}, 3, 1, []int64{2, 3, 4}},
		{[]int64{3, 8, 1}, 2, 1, []int64{2}},
		{[]int64{1, 64, 33, 31}, 32, 1, []int64{2, 3}},
		{[]int64{2, 5, 7, 6}, 3, 3, []int64{1, 2}},
	} {
		for _, th := range []int{1, 2} {
			SetNumThreads(th)
			nch := c.shape[c.ca]
			x := randT(t, int64(10+i), c.shape, f32, -3, 5)
			g := randT(t, int64(20+i), []int64{nch}, f32, 0.5, 1.5)
			b := randT(t, int64(30+i), []int64{nch}, f32, -1, 1)
			xv, gv, bv := vals(x), vals(g), vals(b)
			// Reference: group key per element from its index.
			n := len(xv)
			key, ch := make([]int, n), make([]int, n)
			idx := make([]int64, len(c.shape))
			for e := 0; e < n; e++ {
				k := 0
				for d := range c.shape {
					reduced := slices.Contains(c.axes, int64(d))
					switch {
					case int64(d) == c.ca:
						k = k*int(c.groups) + int(idx[d]/(nch/c.groups))
						ch[e] = int(idx[d])
					case !reduced:
						k = k*int(c.shape[d]) + int(idx[d])
					}
				}
				key[e] = k
				for d := len(c.shape) - 1; d >= 0; d-- {
					if idx[d]++; idx[d] < c.shape[d] {
						break
					}
					idx[d] = 0
				}
			}
			sum, cnt, sq := map[int]float64{}, map[int]float64{}, map[int]float64{}
			for e, v := range xv {
				sum[key[e]] += v
				cnt[key[e]]++
			}
			for e, v := range xv {
				d := v - sum[key[e]]/cnt[key[e]]
				sq[key[e]] += d * d
			}
			want := make([]float64, n)
			for e, v := range xv {
				k := key[e]
				want[e] = (v-sum[k]/cnt[k])/math.Sqrt(sq[k]/cnt[k]+1e-5)*gv[ch[e]] + bv[ch[e]]
			}
			o := mustT(t, c.shape, f32)
			mustCall(t, "nn.group_norm", x, g, b, c.groups, c.ca, runtime.Shape(c.axes), 1e-5, true, true, o)
			expectClose(t, fmt.Sprintf("group_norm %v/%d threads=%d", c.shape, c.groups, th), o, want, 2e-5, 2e-5)
		}
	}
}

func TestGroupInstanceNorm(t *testing.T) {
	shape := []int64{2, 6, 3, 4}
	x := randT(t, 1, shape, f32, -2, 3)
	g := randT(t, 2, []int64{6}, f32, 0.5, 1.5)
	b := randT(t, 3, []int64{6}, f32, -1, 1)
	xv, gv, bv := vals(x), vals(g), vals(b)
	for _, groups := range []int64{1, 2, 3, 6} {
		o := mustT(t, shape, f32)
		mustCall(t, "nn.group_norm", x, g, b, groups, int64(1), shp(2, 3), 1e-5, true, true, o)
		gs := int(6 / groups)
		want := make([]float64, len(xv))
		for n := 0; n < 2; n++ {
			for gi := 0; gi < int(groups); gi++ {
				var s, q, c float64
				for ch := gi * gs; ch < (gi+1)*gs; ch++ {
					for k := 0; k < 12; k++ {
						s += xv[(n*6+ch)*12+k]
						c++
					}
				}
				m := s / c
				for ch := gi * gs; ch < (gi+1)*gs; ch++ {
					for k := 0; k < 12; k++ {
						d := xv[(n*6+ch)*12+k] - m
						q += d * d
					}
				}
				for ch := gi * gs; ch < (gi+1)*gs; ch++ {
					for k := 0; k < 12; k++ {
						i := (n*6+ch)*12 + k
						want[i] = (xv[i]-m)/math.Sqrt(q/c+1e-5)*gv[ch] + bv[ch]
					}
				}
			}
		}
		expectClose(t, name("group_norm ", groups), o, want, 1e-5, 1e-5)
		if groups == 6 {
			oi := mustT(t, shape, f32)
			mustCall(t, "nn.instance_norm", x, g, b, int64(1), shp(2, 3), 1e-5, true, true, oi)
			expectClose(t, "instance_norm", oi, want, 1e-5, 1e-5)
		}
	}
	if err := call("nn.group_norm", x, g, b, int64(4), int64(1), shp(2, 3), 1e-5, true, true, mustT(t, shape, f32)); err == nil {
		t.Error("group_norm with non-dividing groups: want error")
	}
}
