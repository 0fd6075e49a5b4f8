package kernels

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/runtime"
)

// Less common ops, written for correctness over speed: they go through
// float64 element access.

// Cumsum computes the inclusive (or exclusive) running sum along axis;
// hasAxis false runs over the flattened input (out is 1-D). out's dtype may
// differ from x's (Relax's dtype attribute).
func Cumsum(out, x *runtime.Tensor, axis int64, hasAxis, exclusive bool) error {
	return scan("cumsum", out, x, axis, hasAxis, exclusive, false)
}

// Cumprod is Cumsum with products.
func Cumprod(out, x *runtime.Tensor, axis int64, hasAxis, exclusive bool) error {
	return scan("cumprod", out, x, axis, hasAxis, exclusive, true)
}

func scan(name string, out, x *runtime.Tensor, axis int64, hasAxis, exclusive, isProd bool) error {
	if x == nil || out == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	shape := x.Shape()
	ax := 0
	var flat [1]int64
	if !hasAxis {
		flat[0] = x.NumElements()
		shape = flat[:]
	} else {
		a, err := normAxis(name, axis, x.NDim())
		if err != nil {
			return err
		}
		ax = a
	}
	if err := checkOut(name, out, shape, out.DType()); err != nil {
		return err
	}
	outer, n, inner := splitAxis(shape, ax)
	isInt := !out.DType().IsFloat()
	for o := 0; o < outer; o++ {
		for j := 0; j < inner; j++ {
			acc, iacc := 0.0, int64(0)
			if isProd {
				acc, iacc = 1, 1
			}
			for k := 0; k < n; k++ {
				i := (o*n+k)*inner + j
				v, iv := elemFloat(x, i), elemInt(x, i)
				if !exclusive {
					acc, iacc = step(acc, iacc, v, iv, isProd)
				}
				if isInt {
					if err := setInt(out, i, iacc, float64(iacc)); err != nil {
						return fmt.Errorf("%s: %w", name, err)
					}
				} else {
					setFloat(out, i, acc)
				}
				if exclusive {
					acc, iacc = step(acc, iacc, v, iv, isProd)
				}
			}
		}
	}
	return nil
}

func step(acc float64, iacc int64, v float64, iv int64, isProd bool) (float64, int64) {
	if isProd {
		return acc * v, iacc * iv
	}
	return acc + v, iacc + iv
}

// Prelu computes x > 0 ? x : alpha[c] * x with c the index along axis.
func Prelu(out, x, alpha *runtime.Tensor, axis int64) error {
	const name = "nn.prelu"
	if x == nil || alpha == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	ax, err := normAxis(name, axis, x.NDim())
	if err != nil {
		return err
	}
	if err := checkOut(name, out, x.Shape(), x.DType()); err != nil {
		return err
	}
	if !x.DType().IsFloat() || alpha.DType() != x.DType() {
		return fmt.Errorf("%s: want float data and alpha of the same dtype, got %s and %s", name, x.DType(), alpha.DType())
	}
	outer, n, inner := splitAxis(x.Shape(), ax)
	if alpha.NumElements() != int64(n) || alpha.NDim() != 1 {
		return fmt.Errorf("%s: alpha shape %s, want (%d,)", name, shapeStr(alpha.Shape()), n)
	}
	for o := 0; o < outer; o++ {
		for c := 0; c < n; c++ {
			a := elemFloat(alpha, c)
			for j := 0; j < inner; j++ {
				i := (o*n+c)*inner + j
				v := elemFloat(x, i)
				if v < 0 {
					v *= a
				}
				setFloat(out, i, v)
			}
		}
	}
	return nil
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
		if p.DType() != dt || !shapeEq(p.Shape(), cs) {
			return fmt.Errorf("%s: parameter %s, want (%d,) %s", name, p, c, dt)
		}
	}
	gsize := c / a.NumGroups
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

// OneHot writes on where the last-axis (or axis) position equals the index
// and off elsewhere; out has indices' shape with depth inserted at axis.
func OneHot(out, indices *runtime.Tensor, on, off float64, depth, axis int64) error {
	const name = "one_hot"
	if indices == nil || out == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	if indices.DType().IsFloat() {
		return fmt.Errorf("%s: indices must be integers, got %s", name, indices.DType())
	}
	nd := indices.NDim() + 1
	if axis < 0 {
		axis += int64(nd)
	}
	if axis < 0 || axis >= int64(nd) || depth < 0 {
		return fmt.Errorf("%s: invalid axis %d or depth %d", name, axis, depth)
	}
	os := make([]int64, 0, nd)
	os = append(os, indices.Shape()[:axis]...)
	os = append(os, depth)
	os = append(os, indices.Shape()[axis:]...)
	if err := checkOut(name, out, os, out.DType()); err != nil {
		return err
	}
	outer, _, inner := splitAxis(os, int(axis))
	for o := 0; o < outer; o++ {
		for d := 0; d < int(depth); d++ {
			for j := 0; j < inner; j++ {
				v := off
				if elemInt(indices, o*inner+j) == int64(d) {
					v = on
				}
				if err := setInt(out, (o*int(depth)+d)*inner+j, int64(v), v); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
			}
		}
	}
	return nil
}

// GatherElements sets out[i...] = data[... indices[i...] at axis ...]
// (indices and out share a shape; negative indices count from the end).
func GatherElements(out, data, indices *runtime.Tensor, axis int64) error {
	const name = "gather_elements"
	if err := checkRank(name, out, data, indices); err != nil {
		return err
	}
	ax, err := normAxis(name, axis, data.NDim())
	if err != nil {
		return err
	}
	if indices.NDim() != data.NDim() || indices.DType().IsFloat() {
		return fmt.Errorf("%s: indices %s do not match data %s", name, indices, data)
	}
	if err := checkOut(name, out, indices.Shape(), data.DType()); err != nil {
		return err
	}
	ds, is := data.Shape(), indices.Shape()
	eb := data.DType().ElemBytes()
	ob, db := out.Bytes(), data.Bytes()
	n := int(indices.NumElements())
	idx := make([]int, len(is))
	for i := 0; i < n; i++ {
		k := elemInt(indices, i)
		if k < 0 {
			k += ds[ax]
		}
		if k < 0 || k >= ds[ax] {
			return fmt.Errorf("%s: index %d out of range for axis of size %d", name, elemInt(indices, i), ds[ax])
		}
		src := 0
		for d := range ds {
			v := idx[d]
			if d == ax {
				v = int(k)
			} else if int64(v) >= ds[d] {
				return fmt.Errorf("%s: indices shape %s exceeds data shape %s", name, shapeStr(is), shapeStr(ds))
			}
			src = src*int(ds[d]) + v
		}
		copy(ob[i*eb:(i+1)*eb], db[src*eb:(src+1)*eb])
		for d := len(is) - 1; d >= 0; d-- {
			idx[d]++
			if int64(idx[d]) < is[d] {
				break
			}
			idx[d] = 0
		}
	}
	return nil
}

// Pool1DAttrs are Relax's nn.max_pool1d / nn.avg_pool1d attributes (Padding
// has 1 or 2 values: left, right; Layout "NCW" or "NWC").
type Pool1DAttrs struct {
	PoolSize, Strides, Dilation, Padding []int64
	CeilMode, CountIncludePad            bool
	Layout, OutLayout                    string
}

// pool1dAs2d runs a 1-D pooling as 2-D pooling over a height-1 view.
func pool1dAs2d(name string, out, x *runtime.Tensor, a Pool1DAttrs, isMax bool) error {
	if x == nil || out == nil || x.NDim() != 3 || out.NDim() != 3 {
		return fmt.Errorf("%s: want 3-D input and output", name)
	}
	layout := "NCHW"
	switch a.Layout {
	case "", "NCW":
	case "NWC":
		layout = "NHWC"
	default:
		return fmt.Errorf("%s: unsupported layout %q", name, a.Layout)
	}
	if a.OutLayout != "" && a.OutLayout != a.Layout && !(a.Layout == "" && a.OutLayout == "NCW") {
		return fmt.Errorf("%s: out_layout %q differs from layout %q", name, a.OutLayout, a.Layout)
	}
	one := func(v []int64, def int64) []int64 {
		if len(v) == 0 {
			return []int64{1, def}
		}
		return []int64{1, v[0]}
	}
	var pad []int64
	switch len(a.Padding) {
	case 0:
		pad = []int64{0, 0, 0, 0}
	case 1:
		pad = []int64{0, a.Padding[0], 0, a.Padding[0]}
	case 2:
		pad = []int64{0, a.Padding[0], 0, a.Padding[1]}
	default:
		return fmt.Errorf("%s: padding must have 1 or 2 values", name)
	}
	if len(a.PoolSize) > 1 || len(a.Strides) > 1 || len(a.Dilation) > 1 {
		return fmt.Errorf("%s: pool_size, strides and dilation must have 1 value", name)
	}
	view := func(t *runtime.Tensor) (*runtime.Tensor, error) {
		s := t.Shape()
		if layout == "NCHW" {
			return t.Reshape([]int64{s[0], s[1], 1, s[2]})
		}
		return t.Reshape([]int64{s[0], 1, s[1], s[2]})
	}
	x4, err := view(x)
	if err != nil {
		return err
	}
	o4, err := view(out)
	if err != nil {
		return err
	}
	a2 := Pool2DAttrs{PoolSize: one(a.PoolSize, 1), Strides: one(a.Strides, 1), Dilation: one(a.Dilation, 1),
		Padding: pad, CeilMode: a.CeilMode, CountIncludePad: a.CountIncludePad, Layout: layout, OutLayout: layout}
	return pool2d(name, o4, x4, &a2, isMax)
}

// MaxPool1D computes 1-D max pooling.
func MaxPool1D(out, x *runtime.Tensor, a Pool1DAttrs) error {
	return pool1dAs2d("nn.max_pool1d", out, x, a, true)
}

// AvgPool1D computes 1-D average pooling.
func AvgPool1D(out, x *runtime.Tensor, a Pool1DAttrs) error {
	return pool1dAs2d("nn.avg_pool1d", out, x, a, false)
}

func pool1dPacked(op string, isMax bool) runtime.PackedFunc {
	full := Prefix + op
	return func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(full, args)
		p.count(10)
		x := p.tensor(0)
		a := Pool1DAttrs{PoolSize: p.ints(1), Strides: p.ints(2), Padding: p.ints(3), Dilation: p.ints(4),
			CeilMode: p.bool(5), CountIncludePad: p.bool(6), Layout: p.string(7)}
		if p.err == nil && args[8] != nil {
			a.OutLayout = p.string(8)
		}
		out := p.tensor(9)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(pool1dAs2d(op, out, x, a, isMax))
	}
}

func init() {
	scanPacked := func(op string, isProd bool) {
		register(op, "data, axis (int64 or nil = flattened), dtype (DataType or nil; must match out), exclusive (bool), out",
			func(args []runtime.Value) (runtime.Value, error) {
				p := newArgs(Prefix+op, args)
				p.count(5)
				x := p.tensor(0)
				axis, has := p.optInt(1)
				dt, excl, out := p.dtype(2), p.bool(3), p.tensor(4)
				if p.err != nil {
					return nil, p.err
				}
				if !dt.IsVoid() && dt != out.DType() {
					return nil, fmt.Errorf("kernels.%s: output dtype is %s, want %s", op, out.DType(), dt)
				}
				return nil, wrapErr(scan(op, out, x, axis, has, excl, isProd))
			})
	}
	scanPacked("cumsum", false)
	scanPacked("cumprod", true)
	register("nn.prelu", "x, alpha, axis (int64), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.nn.prelu", args)
		p.count(4)
		x, alpha, axis, out := p.tensor(0), p.tensor(1), p.int(2), p.tensor(3)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Prelu(out, x, alpha, axis))
	})
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
	register("one_hot", "indices, on_value (float64/int64 or scalar Tensor), off_value, depth (int64), axis (int64), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.one_hot", args)
			p.count(6)
			ind, on, off, depth, axis, out := p.tensor(0), p.float(1), p.float(2), p.int(3), p.int(4), p.tensor(5)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(OneHot(out, ind, on, off, depth, axis))
		})
	register("gather_elements", "data, indices, axis (int64), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.gather_elements", args)
		p.count(4)
		data, ind, axis, out := p.tensor(0), p.tensor(1), p.int(2), p.tensor(3)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(GatherElements(out, data, ind, axis))
	})
	const pool1dArgs = "data, pool_size (Shape), strides (Shape), padding (Shape: left, right), dilation (Shape), ceil_mode (bool), count_include_pad (bool), layout (string), out_layout (string or nil), out"
	register("nn.max_pool1d", pool1dArgs, pool1dPacked("nn.max_pool1d", true))
	register("nn.avg_pool1d", pool1dArgs, pool1dPacked("nn.avg_pool1d", false))
}
