package lower

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Conv2DChainKernel is the fused kernel FuseConvChain targets: the
// arguments of kernels.nn.conv2d, then an elementwise chain's codes and
// operands; see kernels.Conv2DChainKernel.
const Conv2DChainKernel = KernelPrefix + "relaxgo.conv2d_chain"

// convChainMaxSteps is the longest chain the fused kernel takes.
const convChainMaxSteps = 16

// FuseConvChain merges a float32 NCHW/OIHW 2-D convolution with the
// elementwise work on its output (an EwChainKernel call from
// FuseElementwiseChains, or a single batch-norm step, bias add or relu),
// when every operand holds one value per output channel or one for all and
// at least one varies along the channels, or (a one-image, one-group
// convolution) one operand has the output's shape and is added,
// subtracted, multiplied or divided (a residual connection), into one
// call of the fused kernel, which runs the chain on output planes just
// computed, still in cache, instead of in a pass of its own (MobileNet's
// batch norm and ReLU6 after each convolution), and drops the
// convolution's intermediate tensor. On one-position outputs the chain may
// hold unary steps (sigmoid, silu, gelu, ...), which the kernel runs after
// the product. The convolution's result must have no
// other use and sit in the same binding block. The chain computes the same
// float32 operations in the same order, so results do not change. Runs
// after FuseElementwiseChains.
func FuseConvChain(m *ir.Module) (*ir.Module, error) {
	if _, ok := runtime.Lookup(Conv2DChainKernel); !ok {
		return m, nil
	}
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		uses := useCounts(fn)
		convs := map[*ir.Var]*ir.Tuple{} // fusable convolutions' arguments
		block := map[*ir.Var]*ir.BindingBlock{}
		fused := map[*ir.Var]*ir.Tuple{} // chain var -> fused call's arguments
		drop := map[*ir.Var]bool{}
		rest := map[*ir.Var]*ir.Tuple{} // chain var -> its unfused steps' chain (the fused call's result first)
		var nm *namer
		for _, blk := range allBlocks(fn.Body) {
			for _, b := range blk.Bindings {
				v := b.BoundVar()
				block[v] = blk
				name, args, ok := kernelCall(b.BoundValue())
				if !ok {
					continue
				}
				if name == KernelName("relax.nn.conv2d") {
					if fusableConv(args, v.Info) {
						convs[v] = args
					}
					continue
				}
				conv, codes, ops, ok := convChainStep(name, args, v.Info, convs, uses)
				if !ok || block[conv] != blk || len(codes.Values) > convChainMaxSteps {
					continue
				}
				if cut := unaryCut(codes); cut < len(codes.Values) && onPlanes(v.Info) {
					// The steps from the first unary one on stay a chain
					// on the fused call's result.
					vals, _ := shapeInts(codes) // literal: convChainStep checked
					nops := chainOperands(vals[:cut])
					if nm == nil {
						nm = newNamer(fn)
					}
					t := newVar(nm.fresh(v.Name+"_conv"), v.Info, b.Pos())
					t.Dataflow = blk.Dataflow
					rest[v] = tupleExpr(append([]ir.Expr{t, shapeExpr(codes.Values[cut:])}, ops[nops:]...))
					codes, ops = shapeExpr(codes.Values[:cut]), ops[:nops]
				}
				fields := append([]ir.Expr{}, convs[conv].Fields...)
				fields = append(append(fields, codes), ops...)
				fused[v] = tupleExpr(fields)
				drop[conv] = true
				delete(convs, conv)
			}
		}
		if len(fused) == 0 {
			return fn, nil
		}
		if len(rest) == 0 {
			return rewriteFused(fn, Conv2DChainKernel, drop, fused)
		}
		return rewriteFunction(fn, func(b ir.Binding, emit func(ir.Binding)) error {
			v := b.BoundVar()
			switch {
			case drop[v]:
			case rest[v] != nil:
				t := rest[v].Fields[0].(*ir.Var)
				emit(&ir.VarBinding{Var: t, Value: dpsCall(Conv2DChainKernel, fused[v], t.Info, b.Pos()), Loc: b.Pos()})
				emit(&ir.VarBinding{Var: v, Value: dpsCall(EwChainKernel, rest[v], v.Info, b.Pos()), Loc: b.Pos()})
			case fused[v] != nil:
				emit(&ir.VarBinding{Var: v, Value: dpsCall(Conv2DChainKernel, fused[v], v.Info, b.Pos()), Loc: b.Pos()})
			default:
				emit(b)
			}
			return nil
		})
	})
}

// chainOperands is how many operands a chain's codes take: one per
// binary step (relu and the unary steps take none).
func chainOperands(codes []int64) int {
	n := 0
	for _, c := range codes {
		if c != ewChainRelu && !unaryChainCode(c) {
			n++
		}
	}
	return n
}

// onPlanes reports whether a convolution's NCHW output has more than one
// position a plane.
func onPlanes(out ir.StructInfo) bool {
	shape, ok := staticF32Shape(out)
	return ok && len(shape) == 4 && shape[2]*shape[3] > 1
}

// unaryCut is the index of a chain's first unary step other than relu (its
// length when there is none): on output planes the fused kernel takes the
// steps before it, and the rest stay a chain of their own on its result
// (a convolution's bias, then SiLU): unary steps in the kernel's call ran
// after the product a few calls a row of output, which cost more than
// their own pass (EfficientNet-B0's 16->96 1x1 on 112² and its SiLU: 1.39
// + 1.47 ms apart, 3.73 fused), while the steps before them cost the
// fused kernel next to nothing.
func unaryCut(codes *ir.ShapeExpr) int {
	for i, c := range codes.Values {
		if n, ok := c.(*ir.IntImm); ok && unaryChainCode(n.Value) {
			return i
		}
	}
	return len(codes.Values)
}

// fusableConv reports whether a kernels.nn.conv2d call with args is a
// convolution of float32 NCHW data with static 4-D OIHW weights into a
// float32 NCHW result of static shape.
func fusableConv(args *ir.Tuple, out ir.StructInfo) bool {
	if len(args.Fields) != 10 || !isF32Tensor(out) || !isF32Tensor(args.Fields[0].SInfo()) {
		return false
	}
	if _, ok := staticF32Shape(out); !ok {
		return false
	}
	if ws, ok := staticF32Shape(args.Fields[1].SInfo()); !ok || len(ws) != 4 {
		return false
	}
	// data_layout, kernel_layout and out_layout ("" is the default).
	for i, want := range []string{"NCHW", "OIHW", "NCHW"} {
		s, ok := args.Fields[6+i].(*ir.StringImm)
		if !ok || (s.Value != want && s.Value != "") {
			return false
		}
	}
	dt, ok := args.Fields[9].(*ir.DataTypeImm)
	return ok && (dt.Value.IsVoid() || dt.Value == runtime.Float32)
}

// convChainStep recognizes an elementwise call on a fusable convolution's
// result (used only there): an EwChainKernel call, a relu, or a binary
// operation, with operands per channel, one of them varying along the
// channels. It returns the convolution's var and the chain's codes and
// operands.
func convChainStep(name string, args *ir.Tuple, out ir.StructInfo, convs map[*ir.Var]*ir.Tuple, uses map[*ir.Var]int) (*ir.Var, *ir.ShapeExpr, []ir.Expr, bool) {
	shape, ok := staticF32Shape(out)
	if !ok || len(shape) != 4 || shape[1] < 2 {
		return nil, nil, nil, false
	}
	isConv := func(e ir.Expr) (*ir.Var, bool) {
		v, ok := e.(*ir.Var)
		return v, ok && convs[v] != nil && uses[v] == 1 && sameStaticShape(v.Info, shape)
	}
	// The chain kernel's rows are then the output planes, as the fused
	// kernel applies it.
	perChannel := func(ops []ir.Expr) bool {
		varies := false
		for _, o := range ops {
			ts, ok := staticF32Shape(o.SInfo())
			if !ok || !channelOperand(ts, shape) {
				return false
			}
			if ax := 1 - (len(shape) - len(ts)); ax >= 0 && ts[ax] == shape[1] {
				varies = true
			}
		}
		return varies
	}
	// residual reports whether the chain's operands are per channel but
	// for one laid out as the output itself (a residual connection's add),
	// whose step (codes, in order, relu taking none) adds, subtracts,
	// multiplies or divides, and conv, of one image, has one group: the
	// fused kernel adds that operand's planes where it runs the chain on
	// output planes, and computes the rest as unfused otherwise.
	residual := func(conv *ir.Var, codes []int64, ops []ir.Expr) bool {
		if shape[0] != 1 || !convOneGroup(convs[conv]) {
			return false
		}
		full, k := 0, 0
		for _, c := range codes {
			if c == ewChainRelu || unaryChainCode(c) {
				continue
			}
			if k >= len(ops) {
				return false
			}
			o := ops[k]
			k++
			if ov, ok := o.(*ir.Var); ok && ov == conv {
				return false
			}
			if sameStaticShape(o.SInfo(), shape) {
				if full++; full > 1 || c/2 > 3 {
					return false
				}
				continue
			}
			if ts, ok := staticF32Shape(o.SInfo()); !ok || !channelOperand(ts, shape) {
				return false
			}
		}
		return full == 1 && k == len(ops)
	}
	c, isBin := ewChainCodes[name]
	switch {
	case name == EwChainKernel && len(args.Fields) >= 3:
		codes, isShape := args.Fields[1].(*ir.ShapeExpr)
		ops := args.Fields[2:]
		if !isShape {
			break
		}
		vals, literal := shapeInts(codes)
		if !literal {
			break
		}
		if conv, ok := isConv(args.Fields[0]); ok {
			// Unary steps on one-position outputs (a squeeze and
			// excitation's sigmoid) go into the kernel; on planes the
			// steps before the first one do (unaryCut), which must then
			// be some.
			pre, preOps := vals, ops
			if onPlanes(out) {
				cut := unaryCut(codes)
				if cut == 0 {
					break
				}
				pre = vals[:cut]
				preOps = ops[:chainOperands(pre)]
			}
			if len(preOps) > 0 && perChannel(preOps) || residual(conv, pre, preOps) {
				return conv, codes, ops, true
			}
			break
		}
		// A chain that starts from the residual, r op conv: the same
		// chain on the convolution with its first step's sides swapped
		// (the same operands of the same operation).
		if !literal || len(vals) == 0 || vals[0] == ewChainRelu || unaryChainCode(vals[0]) || !sameStaticShape(args.Fields[0].SInfo(), shape) {
			break
		}
		if conv, ok := isConv(ops[0]); ok {
			vals[0] ^= 1
			swapped := append([]ir.Expr{args.Fields[0]}, ops[1:]...)
			if residual(conv, vals, swapped) {
				return conv, intsShape(vals), swapped, true
			}
		}
	case isBin && len(args.Fields) == 2:
		for side := 0; side < 2; side++ {
			conv, ok := isConv(args.Fields[side])
			other := args.Fields[1-side]
			code := c*2 + int64(side)
			if ok && (perChannel([]ir.Expr{other}) || residual(conv, []int64{code}, []ir.Expr{other})) {
				return conv, shapeExpr([]ir.PrimExpr{ir.Int64(code)}), []ir.Expr{other}, true
			}
		}
	}
	return nil, nil, nil, false
}

// convOneGroup reports whether a fusable convolution's arguments have one
// group: the weight's input channels are all of x's.
func convOneGroup(args *ir.Tuple) bool {
	if args == nil {
		return false
	}
	xs, ok := staticF32Shape(args.Fields[0].SInfo())
	ws, wok := staticF32Shape(args.Fields[1].SInfo())
	return ok && wok && len(xs) == 4 && len(ws) == 4 && ws[1] == xs[1]
}

// shapeInts returns a ShapeExpr's values when each is an integer literal.
func shapeInts(s *ir.ShapeExpr) ([]int64, bool) {
	out := make([]int64, len(s.Values))
	for i, v := range s.Values {
		n, ok := v.(*ir.IntImm)
		if !ok {
			return nil, false
		}
		out[i] = n.Value
	}
	return out, true
}

// staticF32Shape returns the static shape of a float32 tensor.
func staticF32Shape(s ir.StructInfo) ([]int64, bool) {
	t, ok := s.(*ir.TensorSInfo)
	if !ok || t.DType != runtime.Float32 {
		return nil, false
	}
	return t.StaticShape()
}

// channelOperand reports whether an operand of static shape ts broadcasts
// to the NCHW shape with at most the channel axis not 1.
func channelOperand(ts, shape []int64) bool {
	if len(ts) > len(shape) {
		return false
	}
	for i, d := range ts {
		if ax := len(shape) - len(ts) + i; d != 1 && (ax != 1 || d != shape[1]) {
			return false
		}
	}
	return true
}
