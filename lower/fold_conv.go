package lower

import (
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// FoldConvAffine folds the leading affine steps of a fused convolution's
// chain into its weights, as ONNX Runtime's and TVM's conv/batch-norm
// folding do: when the weights are a constant and the chain starts with
// adds, subtracts, multiplies and divides by constants (an inference batch
// norm: (conv - mean) * scale + shift), output channel o computes
// a[o]*conv + t[o], so the weights become W[o]*a[o] and those steps one add
// of t. The chain then does one operation per element where it did three
// or four, and the steps after (ReLU, clip) stay. Each folded value is
// rounded to float32 once, from float64 products and sums, so results
// differ from the unfolded ones by float32 rounding only; both execution
// modes and every SIMD level run the folded program alike. Chains without a
// multiply or divide keep their bits: nothing is folded. Runs after
// FuseConvChain.
func FoldConvAffine(m *ir.Module) (*ir.Module, error) {
	return rewriteWithConsts(m, func(vb *ir.VarBinding, consts map[*ir.Var]*ir.Constant) ir.Expr {
		if name, args, ok := kernelCall(vb.Value); ok && name == Conv2DChainKernel {
			if folded, ok := foldConvAffine(args, consts, vb.Var.Info, vb.Pos()); ok {
				return dpsCall(Conv2DChainKernel, folded, vb.Var.Info, vb.Pos())
			}
		}
		return nil
	})
}

// convChainArgs is the number of a Conv2DChainKernel call's arguments
// before the chain's codes (kernels.nn.conv2d's ten).
const convChainArgs = 10

// foldConvAffine returns the folded arguments of a Conv2DChainKernel call
// (see FoldConvAffine), or false when there is nothing to fold.
func foldConvAffine(args *ir.Tuple, consts map[*ir.Var]*ir.Constant, out ir.StructInfo, loc ir.Span) (*ir.Tuple, bool) {
	f := args.Fields
	if len(f) <= convChainArgs {
		return nil, false
	}
	codes, ok := f[convChainArgs].(*ir.ShapeExpr)
	if !ok {
		return nil, false
	}
	w := constOf(f[1], consts)
	if w == nil || w.DType() != runtime.Float32 || w.NDim() != 4 {
		return nil, false
	}
	oc := int(w.Shape()[0])
	if oshape, ok := staticF32Shape(out); !ok || len(oshape) != 4 || oshape[1] != int64(oc) {
		return nil, false
	}
	a := make([]float64, oc)
	t := make([]float64, oc)
	for i := range a {
		a[i] = 1
	}
	scaled := false
	steps := 0 // leading steps folded
	for _, ce := range codes.Values {
		c, ok := ce.(*ir.IntImm)
		if !ok || c.Value < 0 || c.Value/2 > 3 {
			break // relu, maximum, minimum: the affine part ends
		}
		op, rev := c.Value/2, c.Value%2 == 1
		if op == 3 && rev {
			break // operand / conv is not affine
		}
		v := channelValues(constOf(f[convChainArgs+1+steps], consts), oc)
		if v == nil {
			break
		}
		for o := range a {
			switch {
			case op == 0:
				t[o] += v[o]
			case op == 1 && !rev:
				t[o] -= v[o]
			case op == 1:
				a[o], t[o] = -a[o], v[o]-t[o]
			case op == 2:
				a[o], t[o] = a[o]*v[o], t[o]*v[o]
			default:
				a[o], t[o] = a[o]/v[o], t[o]/v[o]
			}
		}
		scaled = scaled || op >= 2 || (op == 1 && rev)
		steps++
	}
	if !scaled {
		return nil, false
	}
	for o := range a {
		if a[o] == 0 || math.IsInf(a[o], 0) || math.IsNaN(a[o]) || math.IsInf(t[o], 0) || math.IsNaN(t[o]) {
			return nil, false
		}
	}
	ws := w.Float32s()
	per := len(ws) / oc
	nw := runtime.MustNewTensor(w.Shape(), runtime.Float32)
	nws := nw.Float32s()
	for i, x := range ws {
		nws[i] = float32(float64(x) * a[i/per])
	}
	bias := runtime.MustNewTensor([]int64{int64(oc), 1, 1}, runtime.Float32)
	bs := bias.Float32s()
	for o := range t {
		bs[o] = float32(t[o])
	}
	nf := append([]ir.Expr{}, f[:convChainArgs]...)
	nf[1] = constExpr(nw, loc)
	rest := codes.Values[steps:]
	nc := append([]ir.PrimExpr{ir.Int64(0)}, rest...)
	nf = append(nf, shapeExpr(nc), constExpr(bias, loc))
	nf = append(nf, f[convChainArgs+1+steps:]...)
	return tupleExpr(nf), true
}

// constOf returns the tensor of a constant, or of a variable bound to one.
func constOf(e ir.Expr, consts map[*ir.Var]*ir.Constant) *runtime.Tensor {
	switch x := e.(type) {
	case *ir.Constant:
		return x.Value
	case *ir.Var:
		if k := consts[x]; k != nil {
			return k.Value
		}
	}
	return nil
}

// channelValues returns a float32 operand's value per output channel (one
// value for all, or one per channel), or nil.
func channelValues(t *runtime.Tensor, oc int) []float64 {
	if t == nil || t.DType() != runtime.Float32 {
		return nil
	}
	xs := t.Float32s()
	if len(xs) != 1 && len(xs) != oc {
		return nil
	}
	v := make([]float64, oc)
	for o := range v {
		v[o] = float64(xs[o%len(xs)])
	}
	return v
}

// constExpr is a constant expression holding t.
func constExpr(t *runtime.Tensor, loc ir.Span) *ir.Constant {
	k := &ir.Constant{Value: t, MetaIndex: -1}
	k.Info = ir.StaticTensorSInfo(t.Shape(), t.DType())
	k.Loc = loc
	return k
}
