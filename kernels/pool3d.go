package kernels

import (
	"fmt"
	"math"
	"slices"

	"github.com/relaxgo/relaxgo/runtime"
)

// 3-D pooling (nn.max_pool3d, nn.avg_pool3d, nn.adaptive_avg_pool3d) and
// median. These run element by element through float64 (every dtype the
// element helpers cover); they favour coverage over speed.

// spatial3D gives the positions of N, C and the three spatial dims in a 5-D layout.
func spatial3D(name, layout string) (n, c int, sp [3]int, err error) {
	switch layout {
	case "", "NCDHW":
		return 0, 1, [3]int{2, 3, 4}, nil
	case "NDHWC":
		return 0, 4, [3]int{1, 2, 3}, nil
	}
	return 0, 0, sp, fmt.Errorf("%s: unsupported layout %q (want NCDHW or NDHWC)", name, layout)
}

// triple expands a 1- or 3-value list (default def when empty).
func triple(name, what string, v []int64, def int64) ([3]int64, error) {
	switch len(v) {
	case 0:
		return [3]int64{def, def, def}, nil
	case 1:
		return [3]int64{v[0], v[0], v[0]}, nil
	case 3:
		return [3]int64{v[0], v[1], v[2]}, nil
	}
	return [3]int64{}, fmt.Errorf("%s: %s must have 1 or 3 values, got %d", name, what, len(v))
}

// Pool3D is max or average pooling over the three spatial dims (Relax
// nn.max_pool3d / nn.avg_pool3d): padding has 1, 3 or 6 values (front, top,
// left, back, bottom, right); average divides by the window's in-bounds
// count, or with count_include_pad by its count inside the padded input.
func Pool3D(name string, out, x *runtime.Tensor, a Pool2DAttrs, isMax bool) error {
	if err := checkRank(name, x); err != nil {
		return err
	}
	if x.NDim() != 5 {
		return fmt.Errorf("%s: input must be 5-D, got %s", name, shapeStr(x.Shape()))
	}
	if a.OutLayout != "" && a.OutLayout != a.Layout && !(a.Layout == "" && a.OutLayout == "NCDHW") {
		return fmt.Errorf("%s: out_layout %q differs from layout %q", name, a.OutLayout, a.Layout)
	}
	_, _, sp, err := spatial3D(name, a.Layout)
	if err != nil {
		return err
	}
	k, err := triple(name, "pool_size", a.PoolSize, 1)
	if err != nil {
		return err
	}
	s, err := triple(name, "strides", a.Strides, 1)
	if err != nil {
		return err
	}
	d, err := triple(name, "dilation", a.Dilation, 1)
	if err != nil {
		return err
	}
	var pb, pa [3]int64
	switch len(a.Padding) {
	case 0:
	case 1:
		pb = [3]int64{a.Padding[0], a.Padding[0], a.Padding[0]}
		pa = pb
	case 3:
		pb = [3]int64{a.Padding[0], a.Padding[1], a.Padding[2]}
		pa = pb
	case 6:
		pb = [3]int64{a.Padding[0], a.Padding[1], a.Padding[2]}
		pa = [3]int64{a.Padding[3], a.Padding[4], a.Padding[5]}
	default:
		return fmt.Errorf("%s: padding must have 1, 3 or 6 values, got %d", name, len(a.Padding))
	}
	xs := x.Shape()
	os := append([]int64{}, xs...)
	for i, ax := range sp {
		if k[i] < 1 || s[i] < 1 || d[i] < 1 || pb[i] < 0 || pa[i] < 0 {
			return fmt.Errorf("%s: invalid pool_size, strides, dilation or padding", name)
		}
		os[ax] = int64(max(poolOutDim(int(xs[ax]), int(k[i]), int(s[i]), int(d[i]), int(pb[i]), int(pa[i]), a.CeilMode), 0))
	}
	if err := checkOut(name, out, os, x.DType()); err != nil {
		return err
	}
	var xst, ost [5]int64
	stridesOf(xs, xst[:])
	stridesOf(os, ost[:])
	var pos [5]int64
	total := prod(os)
	for o := int64(0); o < total; o++ {
		rem := o
		for dd := 4; dd >= 0; dd-- {
			pos[dd] = rem % os[dd]
			rem /= os[dd]
		}
		base := int64(0)
		for dd := 0; dd < 5; dd++ {
			if dd != sp[0] && dd != sp[1] && dd != sp[2] {
				base += pos[dd] * xst[dd]
			}
		}
		m := math.Inf(-1)
		var sum float64
		cnt, cntPad := 0, 0
		for kz := int64(0); kz < k[0]; kz++ {
			z := pos[sp[0]]*s[0] - pb[0] + kz*d[0]
			for ky := int64(0); ky < k[1]; ky++ {
				y := pos[sp[1]]*s[1] - pb[1] + ky*d[1]
				for kx := int64(0); kx < k[2]; kx++ {
					xx := pos[sp[2]]*s[2] - pb[2] + kx*d[2]
					if z < xs[sp[0]]+pa[0] && y < xs[sp[1]]+pa[1] && xx < xs[sp[2]]+pa[2] {
						cntPad++
					}
					if z < 0 || z >= xs[sp[0]] || y < 0 || y >= xs[sp[1]] || xx < 0 || xx >= xs[sp[2]] {
						continue
					}
					v := elemFloat(x, int(base+z*xst[sp[0]]+y*xst[sp[1]]+xx*xst[sp[2]]))
					if v > m || v != v {
						m = v
					}
					sum += v
					cnt++
				}
			}
		}
		r := m
		if !isMax {
			div := cnt
			if a.CountIncludePad {
				div = cntPad
			}
			r = sum / float64(max(div, 1))
			if !x.DType().IsFloat() {
				r = math.Trunc(r)
			}
		}
		if err := storeF(out, int(o), r); err != nil {
			return err
		}
	}
	return nil
}

// storeF stores v into element k of any float, integer or bool tensor.
func storeF(t *runtime.Tensor, k int, v float64) error {
	if t.DType().IsFloat() {
		setFloat(t, k, v)
		return nil
	}
	return setInt(t, k, int64(v), v)
}

// AdaptiveAvgPool3D averages x over adaptive windows (Relax
// nn.adaptive_avg_pool3d): output cell i along an axis of input extent n and
// output extent m covers [floor(i*n/m), ceil((i+1)*n/m)). outputSize nil
// keeps the input's spatial size; one value applies to all three dims.
func AdaptiveAvgPool3D(out, x *runtime.Tensor, outputSize []int64, layout, outLayout string) error {
	const name = "nn.adaptive_avg_pool3d"
	if err := checkRank(name, x); err != nil {
		return err
	}
	if x.NDim() != 5 {
		return fmt.Errorf("%s: input must be 5-D, got %s", name, shapeStr(x.Shape()))
	}
	if outLayout != "" && outLayout != layout {
		return fmt.Errorf("%s: out_layout %q differs from layout %q", name, outLayout, layout)
	}
	_, _, sp, err := spatial3D(name, layout)
	if err != nil {
		return err
	}
	xs := x.Shape()
	osz := [3]int64{xs[sp[0]], xs[sp[1]], xs[sp[2]]}
	if outputSize != nil {
		if osz, err = triple(name, "output_size", outputSize, 1); err != nil {
			return err
		}
	}
	os := append([]int64{}, xs...)
	for i, ax := range sp {
		os[ax] = osz[i]
	}
	if err := checkOut(name, out, os, x.DType()); err != nil {
		return err
	}
	var xst [5]int64
	stridesOf(xs, xst[:])
	var pos [5]int64
	total := prod(os)
	for o := int64(0); o < total; o++ {
		rem := o
		for dd := 4; dd >= 0; dd-- {
			pos[dd] = rem % os[dd]
			rem /= os[dd]
		}
		base := int64(0)
		for dd := 0; dd < 5; dd++ {
			if dd != sp[0] && dd != sp[1] && dd != sp[2] {
				base += pos[dd] * xst[dd]
			}
		}
		var lo, hi [3]int64
		for i, ax := range sp {
			n, m := xs[ax], os[ax]
			lo[i] = pos[ax] * n / m
			hi[i] = ((pos[ax]+1)*n + m - 1) / m
		}
		var sum float64
		for z := lo[0]; z < hi[0]; z++ {
			for y := lo[1]; y < hi[1]; y++ {
				for xx := lo[2]; xx < hi[2]; xx++ {
					sum += elemFloat(x, int(base+z*xst[sp[0]]+y*xst[sp[1]]+xx*xst[sp[2]]))
				}
			}
		}
		cnt := (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2])
		r := sum / float64(max(cnt, 1))
		if !x.DType().IsFloat() {
			r = math.Trunc(r)
		}
		if err := storeF(out, int(o), r); err != nil {
			return err
		}
	}
	return nil
}

// Median computes the lower median (element (n-1)/2 of the sorted values, as
// torch.median and TVM's legalization) over axes (nil = all), and, when
// indices is not nil, the position along the single axis of the element
// chosen (the stable sort's). NaNs sort last.
func Median(values, indices, x *runtime.Tensor, axes []int64, keepdims bool) error {
	const name = "median"
	if err := checkRank(name, x); err != nil {
		return err
	}
	nd := x.NDim()
	mask, err := axisMask(name, axes, nd)
	if err != nil {
		return err
	}
	xs := x.Shape()
	var os, keptShape []int64
	for i := 0; i < nd; i++ {
		if mask&(1<<uint(i)) == 0 {
			os = append(os, xs[i])
			keptShape = append(keptShape, xs[i])
		} else if keepdims {
			os = append(os, 1)
		}
	}
	if values == nil {
		return fmt.Errorf("%s: nil output", name)
	}
	if err := checkOut(name, values, os, x.DType()); err != nil {
		return err
	}
	if indices != nil {
		if err := checkOut(name, indices, os, runtime.Int64); err != nil {
			return err
		}
	}
	var st [maxRank]int64
	stridesOf(xs, st[:nd])
	// Offsets of the reduced positions relative to a kept position.
	var redShape []int64
	var redSt []int64
	for i := 0; i < nd; i++ {
		if mask&(1<<uint(i)) != 0 {
			redShape = append(redShape, xs[i])
			redSt = append(redSt, st[i])
		}
	}
	nRed := prod(redShape)
	if nRed == 0 {
		return fmt.Errorf("%s: empty reduction", name)
	}
	offs := make([]int64, nRed)
	for r := int64(0); r < nRed; r++ {
		rem, off := r, int64(0)
		for i := len(redShape) - 1; i >= 0; i-- {
			off += (rem % redShape[i]) * redSt[i]
			rem /= redShape[i]
		}
		offs[r] = off
	}
	nOut := prod(keptShape)
	order := make([]int, nRed)
	vals := make([]float64, nRed)
	for o := int64(0); o < nOut; o++ {
		rem, base := o, int64(0)
		k := len(keptShape) - 1
		for i := nd - 1; i >= 0; i-- {
			if mask&(1<<uint(i)) == 0 {
				base += (rem % keptShape[k]) * st[i]
				rem /= keptShape[k]
				k--
			}
		}
		for r := range order {
			order[r] = r
			vals[r] = elemFloat(x, int(base+offs[r]))
		}
		slices.SortStableFunc(order, func(a, b int) int {
			va, vb := vals[a], vals[b]
			switch {
			case va < vb || (vb != vb && va == va):
				return -1
			case va > vb || (va != va && vb == vb):
				return 1
			}
			return 0
		})
		mid := order[(nRed-1)/2]
		if x.DType().IsFloat() {
			setFloat(values, int(o), vals[mid])
		} else {
			if err := setInt(values, int(o), elemInt(x, int(base+offs[mid])), 0); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		if indices != nil {
			indices.Int64s()[o] = int64(mid)
		}
	}
	return nil
}

func pool3dPacked(op string, isMax bool) runtime.PackedFunc {
	full := Prefix + op
	return func(args []runtime.Value) (runtime.Value, error) {
		x, out, a, err := readPoolArgs(full, args)
		if err != nil {
			return nil, err
		}
		return nil, wrapErr(Pool3D(op, out, x, a, isMax))
	}
}

func init() {
	const poolArgs = "data, pool_size (Shape), strides (Shape), padding (Shape, 1, 3 or 6 values: front, top, left, back, bottom, right), dilation (Shape), ceil_mode (bool), count_include_pad (bool), layout (string), out_layout (string or nil), out"
	register("nn.max_pool3d", poolArgs, pool3dPacked("nn.max_pool3d", true))
	register("nn.avg_pool3d", poolArgs, pool3dPacked("nn.avg_pool3d", false))
	register("nn.adaptive_avg_pool3d", "data, output_size (Shape or nil = input size), layout (string), out_layout (string or nil), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"nn.adaptive_avg_pool3d", args)
			p.count(5)
			x, size, layout, outLayout, out := p.tensor(0), p.optInts(1), p.string(2), p.optString(3), p.tensor(4)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(AdaptiveAvgPool3D(out, x, size, layout, outLayout))
		})
	register("median", "x, axis (Shape or nil = all), keepdims (bool), out (values; then indices when axis has one entry)",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"median", args)
			if !p.atLeast(4) {
				return nil, p.err
			}
			x, axes, keep, vals := p.tensor(0), p.optInts(1), p.bool(2), p.tensor(3)
			var idx *runtime.Tensor
			if len(args) == 5 {
				idx = p.tensor(4)
			} else {
				p.count(4)
			}
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(Median(vals, idx, x, axes, keep))
		})
}
