package kernels

import (
	"fmt"
	"math"
	"slices"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/freelist"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// splitAxis returns (outer, n, inner) for viewing shape as
// [prod(shape[:axis]), shape[axis], prod(shape[axis+1:])].
func splitAxis(shape []int64, axis int) (outer, n, inner int) {
	outer, inner = 1, 1
	for i, d := range shape {
		switch {
		case i < axis:
			outer *= int(d)
		case i == axis:
			n = int(d)
		default:
			inner *= int(d)
		}
	}
	return
}

// Softmax computes exp(x - max) / sum(exp(x - max)) along axis.
func Softmax(out, x *runtime.Tensor, axis int64) error {
	return softmax("nn.softmax", out, x, axis, false)
}

// LogSoftmax computes x - max - log(sum(exp(x - max))) along axis.
func LogSoftmax(out, x *runtime.Tensor, axis int64) error {
	return softmax("nn.log_softmax", out, x, axis, true)
}

func softmax(name string, out, x *runtime.Tensor, axis int64, log bool) error {
	if err := checkRank(name, out, x); err != nil {
		return err
	}
	if err := checkOut(name, out, x.Shape(), x.DType()); err != nil {
		return err
	}
	ax, err := normAxis(name, axis, x.NDim())
	if err != nil {
		return err
	}
	outer, n, inner := splitAxis(x.Shape(), ax)
	if outer*n*inner == 0 {
		return nil
	}
	switch x.DType() {
	case runtime.Float32:
		runRows(outer, n*inner, log, elems[float32](out), elems[float32](x), n, inner, softmaxBlock[float32])
	case runtime.Float64:
		runRows(outer, n*inner, log, elems[float64](out), elems[float64](x), n, inner, softmaxBlock[float64])
	case runtime.Float16:
		return viaFloat32(out, []*runtime.Tensor{x}, func(o *runtime.Tensor, in []*runtime.Tensor) error {
			return softmax(name, o, in[0], axis, log)
		})
	default:
		return fmt.Errorf("%s: requires a float dtype, got %s", name, x.DType())
	}
	return nil
}

// runRows calls f(flag, o, x, n, inner, lo, hi) over blocks [lo, hi) of
// `blocks` blocks of blockLen elements each, in parallel when large (the
// softmax's: an exp an element, so from heavyParThreshold). f must be a
// top-level function so that serial calls do not allocate.
func runRows[T any](blocks, blockLen int, flag bool, o, x []T, n, inner int, f func(bool, []T, []T, int, int, int, int)) {
	threshold, grain := parLimits(true)
	if blocks*blockLen < threshold || blocks == 1 || NumThreads() <= 1 {
		f(flag, o, x, n, inner, 0, blocks)
		return
	}
	pool := poolFor[rowsJob[T]]()
	j := pool.Get()
	j.flag, j.o, j.x, j.n, j.inner, j.f = flag, o, x, n, inner, f
	parFor(blocks, grainRows(grain, blockLen), j.fn)
	j.o, j.x, j.f = nil, nil, nil
	pool.Put(j)
}

// softmaxBlock computes softmax over blocks [lo, hi) of shape (n, inner),
// reducing along n.
func softmaxBlock[T floating](log bool, o, x []T, n, inner, lo, hi int) {
	if inner == 1 && !log && (n < softmaxShortRow || asm.SoftmaxRowsOK(n)) && isF32[T]() {
		softmaxRowsF32(as32(o[lo*n:hi*n]), as32(x[lo*n:hi*n]), n)
		return
	}
	for b := lo; b < hi; b++ {
		base := b * n * inner
		if inner == 1 {
			softmaxRow(log, o[base:base+n], x[base:base+n])
			continue
		}
		for j := 0; j < inner; j++ {
			m := x[base+j]
			for k := 1; k < n; k++ {
				if v := x[base+k*inner+j]; v > m || v != v {
					m = v
				}
			}
			var s float64
			for k := 0; k < n; k++ {
				i := base + k*inner + j
				e := expT(x[i] - m)
				if !log {
					o[i] = e
				}
				s += float64(e)
			}
			if log {
				ls := T(math.Log(s))
				for k := 0; k < n; k++ {
					i := base + k*inner + j
					o[i] = x[i] - m - ls
				}
			} else {
				r := T(1 / s)
				for k := 0; k < n; k++ {
					o[base+k*inner+j] *= r
				}
			}
		}
	}
}

// expT is e**v in T's precision (the fast float32 path for float32).
func expT[T floating](v T) T {
	if isF32[T]() {
		return T(expf(float32(v)))
	}
	return T(math.Exp(float64(v)))
}

// softmaxRow computes softmax (or log-softmax) of one contiguous row.
func softmaxRow[T floating](log bool, o, x []T) {
	x = x[:len(o)]
	if isF32[T]() {
		softmaxRowF32(log, as32(o), as32(x))
		return
	}
	m, s := maxExpSum(x)
	if log {
		ls := T(math.Log(s))
		for i, v := range x {
			o[i] = v - m - ls
		}
		return
	}
	for i, v := range x {
		o[i] = T(math.Exp(float64(v-m)) / s)
	}
}

// LayerNormAttrs are Relax's nn.layer_norm attributes.
type LayerNormAttrs struct {
	Axes    []int64
	Epsilon float64
	// Center and Scale are accepted for completeness; as in TVM's
	// legalization (topi.nn.layer_norm), gamma and beta are always applied.
	Center, Scale bool
}

// LayerNorm computes (x - mean) / sqrt(var + eps) * gamma + beta, with mean and
// (population) variance over attrs.Axes; gamma and beta have the shape of
// those axes.
func LayerNorm(out, data, gamma, beta *runtime.Tensor, attrs LayerNormAttrs) error {
	return normalize("nn.layer_norm", out, data, gamma, beta, attrs.Axes, attrs.Epsilon, false)
}

// RMSNorm computes x / sqrt(mean(x^2) + eps) * weight over axes.
func RMSNorm(out, data, weight *runtime.Tensor, axes []int64, epsilon float64) error {
	return normalize("nn.rms_norm", out, data, weight, nil, axes, epsilon, true)
}

// normalize implements layer_norm and rms_norm (beta == nil for rms).
func normalize(name string, out, data, gamma, beta *runtime.Tensor, axes []int64, eps float64, rms bool) error {
	if err := checkRank(name, out, data, gamma); err != nil {
		return err
	}
	dt := data.DType()
	if err := checkOut(name, out, data.Shape(), dt); err != nil {
		return err
	}
	nd := data.NDim()
	if nd == 0 {
		return fmt.Errorf("%s: cannot normalize a 0-d tensor", name)
	}
	if len(axes) == 0 {
		return fmt.Errorf("%s: axes must not be empty", name)
	}
	mask, err := axisMask(name, axes, nd)
	if err != nil {
		return err
	}
	// the shape of gamma/beta: data's dims at the reduced axes, in order
	var pbuf [maxRank]int64
	pshape := pbuf[:0]
	for i := 0; i < nd; i++ {
		if mask&(1<<uint(i)) != 0 {
			pshape = append(pshape, data.Shape()[i])
		}
	}
	for _, p := range []*runtime.Tensor{gamma, beta} {
		if p == nil {
			continue
		}
		if p.DType() != dt {
			return fmt.Errorf("%s: parameter dtype %s differs from data dtype %s", name, p.DType(), dt)
		}
		if !slices.Equal(p.Shape(), pshape) {
			return fmt.Errorf("%s: parameter shape %s, want %s", name, shapeStr(p.Shape()), shapeStr(pshape))
		}
	}
	if data.NumElements() == 0 {
		return nil
	}
	trailing := bits32(mask) == len(axes) && mask == (uint32(1)<<uint(nd)-1)&^(uint32(1)<<uint(nd-len(axes))-1)
	if !trailing {
		return normalizeGeneral(name, out, data, gamma, beta, mask, eps, rms)
	}
	m := int(prod(pshape))
	rows := int(data.NumElements()) / m
	switch dt {
	case runtime.Float32:
		var b []float32
		if beta != nil {
			b = elems[float32](beta)
		}
		runNorm(rows, m, eps, rms, elems[float32](out), elems[float32](data), elems[float32](gamma), b)
	case runtime.Float64:
		var b []float64
		if beta != nil {
			b = elems[float64](beta)
		}
		runNorm(rows, m, eps, rms, elems[float64](out), elems[float64](data), elems[float64](gamma), b)
	case runtime.Float16:
		return viaFloat32(out, []*runtime.Tensor{data, gamma, beta}, func(o *runtime.Tensor, in []*runtime.Tensor) error {
			return normalize(name, o, in[0], in[1], in[2], axes, eps, rms)
		})
	default:
		return fmt.Errorf("%s: requires a float dtype, got %s", name, dt)
	}
	return nil
}

func bits32(m uint32) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// normParMin is the fewest elements a normalization splits over the
// threads, a quarter of parThreshold: a float32 row takes four passes, each
// a call (normRowF32), ~1.7 ns an element in a model at AVX2, so a
// transformer's 128x256 layer norm (32K elements, ~55 µs) repays a worker's
// wake-up many times (BenchmarkOpLayerNorm/128x256).
const normParMin = parThreshold / 4

// runNorm normalizes rows of length m, in parallel when large.
func runNorm[T floating](rows, m int, eps float64, rms bool, o, x, g, b []T) {
	if rows*m < normParMin || rows == 1 || NumThreads() <= 1 {
		normRows(rows, m, eps, rms, o, x, g, b, 0, rows)
		return
	}
	pool := poolFor[normJob[T]]()
	j := pool.Get()
	j.rows, j.m, j.eps, j.rms, j.o, j.x, j.g, j.b = rows, m, eps, rms, o, x, g, b
	parFor(rows, rowGrain(m), j.fn)
	j.o, j.x, j.g, j.b = nil, nil, nil, nil
	pool.Put(j)
}

// normRows normalizes rows [lo, hi): two-pass mean and variance (as topi's
// layer_norm), accumulated in float64.
func normRows[T floating](rows, m int, eps float64, rms bool, o, x, g, b []T, lo, hi int) {
	g = g[:m]
	if b != nil {
		b = b[:m]
	}
	if isF32[T]() {
		of, xf, gf, bf := as32(o), as32(x), as32(g), as32(b)
		if !rms && bf != nil && m < asm.LayerNormShortMax {
			// Short rows: one call for all of them, normRowF32's bits
			// (-bench OpLayerNorm/8x32: 410 -> 136 ns).
			asm.LayerNormShortF32(of[lo*m:hi*m], xf[lo*m:hi*m], gf, bf, hi-lo, m, eps)
			return
		}
		for r := lo; r < hi; r++ {
			normRowF32(of[r*m:(r+1)*m], xf[r*m:(r+1)*m], gf, bf, eps, rms)
		}
		return
	}
	for r := lo; r < hi; r++ {
		xr := x[r*m : (r+1)*m]
		or := o[r*m : (r+1)*m]
		if rms {
			var ss float64
			for _, v := range xr {
				ss += float64(v) * float64(v)
			}
			inv := T(1 / math.Sqrt(ss/float64(m)+eps))
			for i, v := range xr {
				or[i] = v * inv * g[i]
			}
			continue
		}
		var s float64
		for _, v := range xr {
			s += float64(v)
		}
		mean := s / float64(m)
		var vs float64
		for _, v := range xr {
			d := float64(v) - mean
			vs += d * d
		}
		inv := 1 / math.Sqrt(vs/float64(m)+eps)
		mt, it := T(mean), T(inv)
		for i, v := range xr {
			or[i] = (v-mt)*it*g[i] + b[i]
		}
	}
}

// normalizeGeneral handles reduction axes that are not the trailing ones by
// permuting them to the end, normalizing, and permuting back.
func normalizeGeneral(name string, out, data, gamma, beta *runtime.Tensor, mask uint32, eps float64, rms bool) error {
	nd := data.NDim()
	perm := make([]int64, 0, nd)
	var axes []int64
	for i := 0; i < nd; i++ {
		if mask&(1<<uint(i)) == 0 {
			perm = append(perm, int64(i))
		}
	}
	for i := 0; i < nd; i++ {
		if mask&(1<<uint(i)) != 0 {
			perm = append(perm, int64(i))
			axes = append(axes, int64(len(perm)-1))
		}
	}
	pshape := make([]int64, nd)
	for i, p := range perm {
		pshape[i] = data.Shape()[p]
	}
	tmp, err := runtime.NewTensor(pshape, data.DType())
	if err != nil {
		return err
	}
	if err := PermuteDims(tmp, data, perm); err != nil {
		return err
	}
	tmp2, err := runtime.NewTensor(pshape, data.DType())
	if err != nil {
		return err
	}
	if err := normalize(name, tmp2, tmp, gamma, beta, axes, eps, rms); err != nil {
		return err
	}
	inv := make([]int64, nd)
	for i, p := range perm {
		inv[p] = int64(i)
	}
	return PermuteDims(out, tmp2, inv)
}

// BatchNormAttrs are Relax's nn.batch_norm attributes.
type BatchNormAttrs struct {
	Axis          int64
	Epsilon       float64
	Center, Scale bool
	Momentum      float64
	Training      bool
}

// BatchNorm computes Relax's nn.batch_norm into (out, outMean, outVar). In
// inference (Training false) it normalizes with the moving statistics and
// returns them unchanged; in training it uses the batch statistics and returns
// (1-momentum)*moving + momentum*batch. Per-channel parameters have shape
// (C,) where C = data.shape[axis].
func BatchNorm(out, outMean, outVar, data, gamma, beta, movingMean, movingVar *runtime.Tensor, attrs BatchNormAttrs) error {
	const name = "nn.batch_norm"
	if err := checkRank(name, out, outMean, outVar, data, gamma, beta, movingMean, movingVar); err != nil {
		return err
	}
	dt := data.DType()
	ax, err := normAxis(name, attrs.Axis, data.NDim())
	if err != nil {
		return err
	}
	if err := checkOut(name, out, data.Shape(), dt); err != nil {
		return err
	}
	c := data.Shape()[ax]
	cs := []int64{c}
	for _, t := range []*runtime.Tensor{gamma, beta, movingMean, movingVar, outMean, outVar} {
		if err := checkOut(name+" (channel parameter)", t, cs, dt); err != nil {
			return err
		}
	}
	if dt == runtime.Float16 {
		return viaFloat32Multi([]*runtime.Tensor{out, outMean, outVar}, []*runtime.Tensor{data, gamma, beta, movingMean, movingVar},
			func(o, in []*runtime.Tensor) error {
				return BatchNorm(o[0], o[1], o[2], in[0], in[1], in[2], in[3], in[4], attrs)
			})
	}
	if dt != runtime.Float32 && dt != runtime.Float64 {
		return fmt.Errorf("%s: requires a float dtype, got %s", name, dt)
	}
	outer, n, inner := splitAxis(data.Shape(), ax)
	cnt := float64(outer * inner)
	mean := make([]float64, n)
	vari := make([]float64, n)
	if attrs.Training {
		for ch := 0; ch < n; ch++ {
			var s float64
			for o := 0; o < outer; o++ {
				base := (o*n + ch) * inner
				for i := 0; i < inner; i++ {
					s += elemFloat(data, base+i)
				}
			}
			mean[ch] = s / cnt
			var v float64
			for o := 0; o < outer; o++ {
				base := (o*n + ch) * inner
				for i := 0; i < inner; i++ {
					d := elemFloat(data, base+i) - mean[ch]
					v += d * d
				}
			}
			vari[ch] = v / cnt
		}
	} else {
		for ch := 0; ch < n; ch++ {
			mean[ch] = elemFloat(movingMean, ch)
			vari[ch] = elemFloat(movingVar, ch)
		}
	}
	scale := make([]float64, n)
	shift := make([]float64, n)
	for ch := 0; ch < n; ch++ {
		inv := 1 / math.Sqrt(vari[ch]+attrs.Epsilon)
		g, b := 1.0, 0.0
		if attrs.Scale {
			g = elemFloat(gamma, ch)
		}
		if attrs.Center {
			b = elemFloat(beta, ch)
		}
		scale[ch] = inv * g
		shift[ch] = b - mean[ch]*inv*g
	}
	switch dt {
	case runtime.Float32:
		affineChannels(elems[float32](out), elems[float32](data), scale, shift, outer, n, inner)
	case runtime.Float64:
		affineChannels(elems[float64](out), elems[float64](data), scale, shift, outer, n, inner)
	}
	for ch := 0; ch < n; ch++ {
		mm, mv := elemFloat(movingMean, ch), elemFloat(movingVar, ch)
		if attrs.Training {
			mm = (1-attrs.Momentum)*mm + attrs.Momentum*mean[ch]
			mv = (1-attrs.Momentum)*mv + attrs.Momentum*vari[ch]
		}
		setFloat(outMean, ch, mm)
		setFloat(outVar, ch, mv)
	}
	return nil
}

// affineChannels computes o = x*scale[c] + shift[c] over an (outer, n, inner) view.
func affineChannels[T floating](o, x []T, scale, shift []float64, outer, n, inner int) {
	for b := 0; b < outer; b++ {
		for ch := 0; ch < n; ch++ {
			base := (b*n + ch) * inner
			s, t := T(scale[ch]), T(shift[ch])
			xr, or := x[base:base+inner], o[base:base+inner]
			for i, v := range xr {
				or[i] = v*s + t
			}
		}
	}
}

// setFloat stores v into element k of a float tensor.
func setFloat(t *runtime.Tensor, k int, v float64) {
	switch t.DType() {
	case runtime.Float32:
		elems[float32](t)[k] = float32(v)
	case runtime.Float64:
		elems[float64](t)[k] = v
	case runtime.Float16:
		elems[uint16](t)[k] = half.Float64ToFloat16(v)
	}
}

// viaFloat32Multi is viaFloat32 for ops with several outputs.
func viaFloat32Multi(outs, ins []*runtime.Tensor, fn func(outs, ins []*runtime.Tensor) error) error {
	wi := make([]*runtime.Tensor, len(ins))
	for i, t := range ins {
		wi[i] = t
		if t != nil && t.DType() == runtime.Float16 {
			w, err := asF32Tensor(t)
			if err != nil {
				return err
			}
			wi[i] = w
		}
	}
	wo := make([]*runtime.Tensor, len(outs))
	for i, t := range outs {
		wo[i] = t
		if t.DType() == runtime.Float16 {
			w, err := runtime.NewTensor(t.Shape(), runtime.Float32)
			if err != nil {
				return err
			}
			wo[i] = w
		}
	}
	if err := fn(wo, wi); err != nil {
		return err
	}
	for i, t := range outs {
		if wo[i] != t {
			storeF32AsHalf(t, wo[i])
		}
	}
	return nil
}

// Dropout is inference-mode dropout: out = data and mask (if non-nil) = 1, as
// TVM's legalization does. rate is validated but otherwise unused.
func Dropout(out, mask, data *runtime.Tensor, rate float64) error {
	const name = "nn.dropout"
	if data == nil {
		return fmt.Errorf("%s: nil input", name)
	}
	if rate < 0 || rate > 1 {
		return fmt.Errorf("%s: rate %g outside [0, 1]", name, rate)
	}
	if err := checkOut(name, out, data.Shape(), data.DType()); err != nil {
		return err
	}
	if !sameData(out, data) {
		copy(out.Bytes(), data.Bytes())
	}
	if mask != nil {
		if err := checkOut(name+" (mask)", mask, data.Shape(), data.DType()); err != nil {
			return err
		}
		return fillValue(mask, 1)
	}
	return nil
}

func init() {
	register("nn.softmax", "x, axis (int64), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.nn.softmax", args)
		p.count(3)
		x, axis, out := p.tensor(0), p.int(1), p.tensor(2)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Softmax(out, x, axis))
	})
	register("nn.log_softmax", "x, axis (int64), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.nn.log_softmax", args)
		p.count(3)
		x, axis, out := p.tensor(0), p.int(1), p.tensor(2)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(LogSoftmax(out, x, axis))
	})
	register("nn.layer_norm", "data, gamma, beta, axes (Shape), epsilon (float64), center (bool), scale (bool), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.nn.layer_norm", args)
			p.count(8)
			data, gamma, beta := p.tensor(0), p.tensor(1), p.tensor(2)
			attrs := LayerNormAttrs{Axes: p.ints(3), Epsilon: p.float(4), Center: p.bool(5), Scale: p.bool(6)}
			out := p.tensor(7)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(normalize("nn.layer_norm", out, data, gamma, beta, attrs.Axes, attrs.Epsilon, false))
		})
	register("nn.rms_norm", "data, weight, axes (Shape), epsilon (float64), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.nn.rms_norm", args)
			p.count(5)
			data, weight, axes, eps, out := p.tensor(0), p.tensor(1), p.ints(2), p.float(3), p.tensor(4)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(RMSNorm(out, data, weight, axes, eps))
		})
	register("nn.batch_norm", "data, gamma, beta, moving_mean, moving_var, axis (int64), epsilon (float64), center (bool), scale (bool), momentum (float64, optional), training (bool, optional), out, out_mean, out_var",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.nn.batch_norm", args)
			if len(args) < 12 || len(args) > 14 {
				p.fail("want 12 to 14 arguments, got %d", len(args))
				return nil, p.err
			}
			k := len(args) - 3
			attrs := BatchNormAttrs{Axis: p.int(5), Epsilon: p.float(6), Center: p.bool(7), Scale: p.bool(8), Momentum: 0.1}
			if k > 9 {
				attrs.Momentum = p.float(9)
			}
			if k > 10 {
				attrs.Training = p.bool(10)
			}
			data, gamma, beta, mm, mv := p.tensor(0), p.tensor(1), p.tensor(2), p.tensor(3), p.tensor(4)
			out, om, ov := p.tensor(k), p.tensor(k+1), p.tensor(k+2)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(BatchNorm(out, om, ov, data, gamma, beta, mm, mv, attrs))
		})
	register("nn.dropout", "data, rate (float64), out, mask (mask optional)", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.nn.dropout", args)
		if len(args) != 3 && len(args) != 4 {
			p.fail("want 3 or 4 arguments, got %d", len(args))
			return nil, p.err
		}
		data, rate, out := p.tensor(0), p.float(1), p.tensor(2)
		var mask *runtime.Tensor
		if len(args) == 4 {
			mask = p.tensor(3)
		}
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Dropout(out, mask, data, rate))
	})
}

// GroupNormAttrs are Relax's nn.group_norm attributes.
type GroupNormAttrs struct {
	NumGroups     int64
	ChannelAxis   int64
	Axes          []int64
	Epsilon       float64
	Center, Scale bool
}

// GroupNorm normalizes each group of NumGroups channel groups together with
// Axes, then applies per-channel gamma and beta (as topi's group_norm).
func GroupNorm(out, data, gamma, beta *runtime.Tensor, a GroupNormAttrs) error {
	return groupNorm("nn.group_norm", out, data, gamma, beta, a)
}

// InstanceNorm normalizes over axes separately for every channel (group_norm
// with one group per channel).
func InstanceNorm(out, data, gamma, beta *runtime.Tensor, channelAxis int64, axes []int64, epsilon float64) error {
	if data == nil {
		return fmt.Errorf("nn.instance_norm: nil input")
	}
	ca, err := normAxis("nn.instance_norm", channelAxis, data.NDim())
	if err != nil {
		return err
	}
	return groupNorm("nn.instance_norm", out, data, gamma, beta,
		GroupNormAttrs{NumGroups: data.Shape()[ca], ChannelAxis: channelAxis, Axes: axes, Epsilon: epsilon})
}

func groupNorm(name string, out, data, gamma, beta *runtime.Tensor, a GroupNormAttrs) error {
	if err := checkRank(name, out, data, gamma, beta); err != nil {
		return err
	}
	dt := data.DType()
	if !dt.IsFloat() {
		return fmt.Errorf("%s: requires a float dtype, got %s", name, dt)
	}
	if err := checkOut(name, out, data.Shape(), dt); err != nil {
		return err
	}
	nd := data.NDim()
	ca, err := normAxis(name, a.ChannelAxis, nd)
	if err != nil {
		return err
	}
	mask, err := axisMask(name, a.Axes, nd)
	if err != nil {
		return err
	}
	if mask&(1<<uint(ca)) != 0 {
		return fmt.Errorf("%s: axes contain the channel axis", name)
	}
	shape := data.Shape()
	c := shape[ca]
	if a.NumGroups <= 0 || c%a.NumGroups != 0 {
		return fmt.Errorf("%s: %d channels do not split into %d groups", name, c, a.NumGroups)
	}
	cs := []int64{c}
	for _, p := range []*runtime.Tensor{gamma, beta} {
		if p.DType() != dt || !slices.Equal(p.Shape(), cs) {
			return fmt.Errorf("%s: parameter %s, want (%d,) %s", name, p, c, dt)
		}
	}
	gsize := c / a.NumGroups
	if all := uint32(1)<<uint(nd) - 1; dt == runtime.Float32 && ca == 1 && nd >= 3 && mask == all&^3 {
		// Channels then the reduced axes (NCHW, and an ONNX GroupNorm's
		// (N, G, rest) reshape): each group's elements are one block.
		groupNormBlocks(elems[float32](out), elems[float32](data), elems[float32](gamma), elems[float32](beta),
			int(shape[0]), int(c), int(a.NumGroups), int(data.NumElements())/int(shape[0]*c), a.Epsilon)
		return nil
	}
	n := int(data.NumElements())
	// group key: kept (non-reduced, non-channel) coordinates and the group
	key := make([]int, n)
	nkeys := 0
	{
		idx := make([]int, nd)
		for i := 0; i < n; i++ {
			k := 0
			for d := 0; d < nd; d++ {
				switch {
				case d == ca:
					k = k*int(a.NumGroups) + idx[d]/int(gsize)
				case mask&(1<<uint(d)) == 0:
					k = k*int(shape[d]) + idx[d]
				}
			}
			key[i] = k
			nkeys = max(nkeys, k+1)
			for d := nd - 1; d >= 0; d-- {
				idx[d]++
				if idx[d] < int(shape[d]) {
					break
				}
				idx[d] = 0
			}
		}
	}
	sum := make([]float64, nkeys)
	cnt := make([]float64, nkeys)
	for i := 0; i < n; i++ {
		sum[key[i]] += elemFloat(data, i)
		cnt[key[i]]++
	}
	vs := make([]float64, nkeys)
	for i := 0; i < n; i++ {
		d := elemFloat(data, i) - sum[key[i]]/cnt[key[i]]
		vs[key[i]] += d * d
	}
	_, _, inner := splitAxis(shape, ca)
	for i := 0; i < n; i++ {
		k := key[i]
		ch := (i / inner) % int(c)
		v := (elemFloat(data, i) - sum[k]/cnt[k]) / math.Sqrt(vs[k]/cnt[k]+a.Epsilon)
		setFloat(out, i, v*elemFloat(gamma, ch)+elemFloat(beta, ch))
	}
	return nil
}

// groupNormBlocks is groupNorm on float32 data laid out (n, c, hw) with
// groups of c/groups consecutive channels: each (image, group) block's mean
// and variance in float64 (two passes, four partial sums), then each
// channel's plane through one asm.ScalarChainF32 pass, (x - mean) * inv *
// gamma + beta in float32. (The general path, per element with float64
// throughout, took 60-70 ns an element.)
func groupNormBlocks(o, x, gamma, beta []float32, n, c, groups, hw int, eps float64) {
	j := groupNormJobPool.Get()
	j.o, j.x, j.gamma, j.beta, j.c, j.groups, j.hw, j.eps = o, x, gamma, beta, c, groups, hw, eps
	blocks, size := n*groups, c/groups*hw
	if NumThreads() > 1 && blocks > 1 && blocks*size >= parThreshold {
		ParallelFor(blocks, 1, j.fn)
	} else {
		j.run(0, blocks)
	}
	j.o, j.x, j.gamma, j.beta = nil, nil, nil, nil
	groupNormJobPool.Put(j)
}

// groupNormJob is one groupNormBlocks call; pooled, fn bound once.
type groupNormJob struct {
	o, x, gamma, beta []float32
	c, groups, hw     int
	eps               float64
	fn                func(lo, hi int)
}

var groupNormJobPool = freelist.List[*groupNormJob]{New: func() *groupNormJob {
	j := new(groupNormJob)
	j.fn = j.run
	return j
}}

// run normalizes the (image, group) blocks [lo, hi).
func (j *groupNormJob) run(lo, hi int) {
	gsize := j.c / j.groups
	size := gsize * j.hw
	for b := lo; b < hi; b++ {
		xb := j.x[b*size : (b+1)*size]
		mean := sumF32(xb) / float64(size)
		var v0, v1, v2, v3 float64
		i := 0
		for ; i+4 <= len(xb); i += 4 {
			d0, d1, d2, d3 := float64(xb[i])-mean, float64(xb[i+1])-mean, float64(xb[i+2])-mean, float64(xb[i+3])-mean
			v0 += d0 * d0
			v1 += d1 * d1
			v2 += d2 * d2
			v3 += d3 * d3
		}
		for ; i < len(xb); i++ {
			d := float64(xb[i]) - mean
			v0 += d * d
		}
		inv := float32(1 / math.Sqrt(((v0+v1)+(v2+v3))/float64(size)+j.eps))
		codes := [4]uint8{asm.ChainSub, asm.ChainMul, asm.ChainMul, asm.ChainAdd}
		for k := 0; k < gsize; k++ {
			ch := (b%j.groups)*gsize + k
			off := b*size + k*j.hw
			sc := [4]float32{float32(mean), inv, j.gamma[ch], j.beta[ch]}
			asm.ScalarChainF32(j.o[off:off+j.hw], j.x[off:off+j.hw], codes[:], sc[:])
		}
	}
}

func init() {
	register("nn.group_norm", "data, gamma, beta, num_groups (int64), channel_axis (int64), axes (Shape), epsilon (float64), center (bool), scale (bool), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.nn.group_norm", args)
			p.count(10)
			data, gamma, beta := p.tensor(0), p.tensor(1), p.tensor(2)
			a := GroupNormAttrs{NumGroups: p.int(3), ChannelAxis: p.int(4), Axes: p.ints(5), Epsilon: p.float(6), Center: p.bool(7), Scale: p.bool(8)}
			out := p.tensor(9)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(GroupNorm(out, data, gamma, beta, a))
		})
	register("nn.instance_norm", "data, gamma, beta, channel_axis (int64), axes (Shape), epsilon (float64), center (bool), scale (bool), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.nn.instance_norm", args)
			p.count(9)
			data, gamma, beta := p.tensor(0), p.tensor(1), p.tensor(2)
			ca, axes, eps := p.int(3), p.ints(4), p.float(5)
			_, _ = p.bool(6), p.bool(7)
			out := p.tensor(8)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(InstanceNorm(out, data, gamma, beta, ca, axes, eps))
		})
}
