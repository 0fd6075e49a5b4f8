package kernels

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/runtime"
)

// Relu6 computes min(max(x, 0), 6) (Relax nn.relu6, as TVM legalizes it: clip).
func Relu6(out, x *runtime.Tensor) error { return Clip(out, x, 0, 6) }

// SELU constants (Klambauer et al.), as TVM's topi uses them.
const (
	seluAlpha = 1.6732632423543772848170429916717
	seluScale = 1.0507009873554804934193349852946
)

// Selu computes scale * (x > 0 ? x : alpha * (exp(x) - 1)) for float tensors.
func Selu(out, x *runtime.Tensor) error {
	if out == nil || x == nil {
		return fmt.Errorf("nn.selu: nil tensor")
	}
	if err := checkOut("nn.selu", out, x.Shape(), x.DType()); err != nil {
		return err
	}
	switch x.DType() {
	case runtime.Float32:
		o := out.Float32s()
		for i, v := range x.Float32s() {
			if v > 0 {
				o[i] = float32(seluScale * float64(v))
			} else {
				o[i] = float32(seluScale * seluAlpha * math.Expm1(float64(v)))
			}
		}
	case runtime.Float64:
		o := out.Float64s()
		for i, v := range x.Float64s() {
			if v > 0 {
				o[i] = seluScale * v
			} else {
				o[i] = seluScale * seluAlpha * math.Expm1(v)
			}
		}
	default:
		return fmt.Errorf("nn.selu: requires float32 or float64, got %s", x.DType())
	}
	return nil
}

// AdaptiveAvgPool1D averages x (NCW) over adaptive windows into out (NCW),
// as Relax nn.adaptive_avg_pool1d; outputSize nil keeps the width.
func AdaptiveAvgPool1D(out, x *runtime.Tensor, outputSize []int64, layout, outLayout string) error {
	const name = "nn.adaptive_avg_pool1d"
	if out == nil || x == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	if layout != "NCW" || (outLayout != "" && outLayout != "NCW") {
		return fmt.Errorf("%s: only the NCW layout is supported, got %q -> %q", name, layout, outLayout)
	}
	xs, os := x.Shape(), out.Shape()
	if len(xs) != 3 || len(os) != 3 {
		return fmt.Errorf("%s: want 3-D tensors, got %v and %v", name, xs, os)
	}
	if len(outputSize) > 1 {
		return fmt.Errorf("%s: output_size must have 1 value, got %v", name, outputSize)
	}
	u := unitViews.Get()
	defer u.release()
	var osz []int64
	if len(outputSize) == 1 {
		u.size = [2]int64{1, outputSize[0]}
		osz = u.size[:]
	}
	x4, err := view4(&u.x, x, &u.xs, xs[0], xs[1], 1, xs[2])
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	o4, err := view4(&u.out, out, &u.os, os[0], os[1], 1, os[2])
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return AdaptiveAvgPool2D(o4, x4, osz, "NCHW", "NCHW")
}

func init() {
	registerUnary("nn.relu6", "x, out", Relu6)
	registerUnary("nn.selu", "x, out", Selu)
	register("wrap_param", "data, dtype (DataType), out (the dtype conversion of astype)", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"wrap_param", args)
		p.count(3)
		x, out := p.tensor(0), p.tensor(2)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Astype(out, x))
	})
	register("nn.adaptive_avg_pool1d", "data, output_size (Shape or nil = input size), layout (string), out_layout (string or nil), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"nn.adaptive_avg_pool1d", args)
			p.count(5)
			x, layout := p.tensor(0), p.string(2)
			osz, outLayout := p.optInts(1), p.optString(3)
			out := p.tensor(4)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(AdaptiveAvgPool1D(out, x, osz, layout, outLayout))
		})
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

func init() {
	register("nn.prelu", "x, alpha, axis (int64), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.nn.prelu", args)
		p.count(4)
		x, alpha, axis, out := p.tensor(0), p.tensor(1), p.int(2), p.tensor(3)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Prelu(out, x, alpha, axis))
	})
}
