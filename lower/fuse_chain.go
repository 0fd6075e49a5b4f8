package lower

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// EwChainKernel is the fused kernel FuseElementwiseChains targets: (x, codes,
// operand...) -> out; see kernels.EwChainKernel for the codes.
const EwChainKernel = KernelPrefix + "relaxgo.ew_chain"

// ewChainCodes are the binary operations a chain may hold, with their codes
// (times 2; +1 when the chain value is the right operand).
var ewChainCodes = map[string]int64{
	KernelName("relax.add"): 0, KernelName("relax.subtract"): 1, KernelName("relax.multiply"): 2,
	KernelName("relax.divide"): 3, KernelName("relax.maximum"): 4, KernelName("relax.minimum"): 5,
}

// ewChainRelu is the code of relu in a chain.
const ewChainRelu = 100

// Codes of the other unary operations a chain may hold (no operand), as
// kernels.EwChainExp... number them. A convolution's chain has none of them
// (FuseConvChain).
const (
	ewChainExp = 101 + iota
	ewChainTanh
	ewChainErf
	ewChainSigmoid
	ewChainGelu
	ewChainGeluTanh
	ewChainSilu
	// ewChainXSigmoid is x * sigmoid(x) with x the product's left
	// operand: a sigmoid and the product of its input with it, as one
	// step (siluPairs).
	ewChainXSigmoid
)

// ewChainUnary maps the kernels of those operations to their codes.
var ewChainUnary = map[string]int64{
	KernelName("relax.exp"): ewChainExp, KernelName("relax.tanh"): ewChainTanh, KernelName("relax.erf"): ewChainErf,
	KernelName("relax.sigmoid"): ewChainSigmoid, KernelName("relax.nn.gelu"): ewChainGelu,
	KernelName("relax.nn.gelu_tanh"): ewChainGeluTanh, KernelName("relax.nn.silu"): ewChainSilu,
}

// unaryChainCode reports whether code is one of ewChainUnary's.
func unaryChainCode(code int64) bool { return code >= ewChainExp && code <= ewChainXSigmoid }

// ewChain is a chain being built: x, then codes[i] with operands.
type ewChain struct {
	x        ir.Expr
	codes    []int64
	operands []ir.Expr
	// pairs counts the codes that stand for two operations (siluPairs).
	pairs int
}

// FuseElementwiseChains merges runs of float32 elementwise operations, each
// on the previous one's result (with no other use, in the same block, of the
// same static shape), with operands that broadcast into it (a bias, a batch
// norm's per-channel scale and shift, the bounds of a clip) and relus, into
// one call of the chain kernel, which makes one pass over the data instead
// of one pass and one tensor per operation; e.g. a convolution's bias add,
// batch norm and ReLU6 from an ONNX import. Each step runs the unfused
// kernel's row function, so results do not change. Runs after Legalize and
// FuseMatmulEpilogue.
func FuseElementwiseChains(m *ir.Module) (*ir.Module, error) {
	if _, ok := runtime.Lookup(EwChainKernel); !ok {
		return m, nil
	}
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		uses := useCounts(fn)
		block := map[*ir.Var]*ir.BindingBlock{}
		for _, blk := range allBlocks(fn.Body) {
			for _, b := range blk.Bindings {
				block[b.BoundVar()] = blk
			}
		}
		chains := map[*ir.Var]*ewChain{}
		drop := map[*ir.Var]bool{}
		pairs := siluPairs(fn, uses, block)
		for _, blk := range allBlocks(fn.Body) {
			for _, b := range blk.Bindings {
				v := b.BoundVar()
				if p, ok := pairs[v]; ok && p.sigmoid {
					drop[v] = true // computed by its product's step
					continue
				}
				name, args, ok := kernelCall(b.BoundValue())
				if !ok || !isF32Tensor(v.Info) {
					continue
				}
				shape, ok := v.Info.(*ir.TensorSInfo).StaticShape()
				if !ok {
					continue
				}
				// The chain value and the step's code and operand.
				var in ir.Expr
				var code int64
				var operand ir.Expr
				pair := 0
				if p, ok := pairs[v]; ok {
					in, code, pair = p.x, p.code, 1
				} else if name == KernelName("relax.nn.relu") && len(args.Fields) == 1 {
					in, code = args.Fields[0], ewChainRelu
				} else if c, isUnary := ewChainUnary[name]; isUnary && len(args.Fields) == 1 {
					in, code = args.Fields[0], c
				} else if c, isBin := ewChainCodes[name]; isBin && len(args.Fields) == 2 {
					for side := 0; side < 2; side++ {
						cand, other := args.Fields[side], args.Fields[1-side]
						if !sameStaticShape(cand.SInfo(), shape) || !broadcastsInto(other.SInfo(), shape) {
							continue
						}
						// Prefer the side that continues a chain.
						if in == nil || isChainVar(cand, chains, uses, block, blk) {
							in, code, operand = cand, c*2+int64(side), other
						}
					}
				}
				if in == nil || !sameStaticShape(in.SInfo(), shape) {
					continue
				}
				if u, isVar := in.(*ir.Var); isVar && isChainVar(u, chains, uses, block, blk) {
					c := chains[u]
					delete(chains, u)
					drop[u] = true
					c.codes = append(c.codes, code)
					c.pairs += pair
					if operand != nil {
						c.operands = append(c.operands, operand)
					}
					chains[v] = c
					continue
				}
				c := &ewChain{x: in, codes: []int64{code}, pairs: pair}
				if operand != nil {
					c.operands = []ir.Expr{operand}
				}
				chains[v] = c
			}
		}
		fused := map[*ir.Var]*ir.Tuple{}
		for v, c := range chains {
			if len(c.codes)+c.pairs < 2 {
				continue
			}
			fused[v] = tupleExpr(append([]ir.Expr{c.x, intsShape(c.codes)}, c.operands...))
		}
		if len(fused) == 0 {
			return fn, nil
		}
		return rewriteFused(fn, EwChainKernel, drop, fused)
	})
}

// siluPair is a sigmoid and the product of its input with it, in a
// binding block: both bound vars map to one.
type siluPair struct {
	x       *ir.Var // the sigmoid's input
	code    int64   // ewChainSilu (sigmoid * x) or ewChainXSigmoid (x * sigmoid)
	sigmoid bool    // the entry of the sigmoid's var
}

// siluPairs finds SiLU written as two operations, s = sigmoid(x) and
// multiply(x, s) or multiply(s, x), float32 of one static shape, in one
// block, s used only there: one chain step each, which reads x once and
// keeps no sigmoid tensor (ewChainXSigmoid, or ewChainSilu with the
// sigmoid on the left, as nn.silu's kernel multiplies), and x counted as
// used once for the pair. ONNX has no SiLU operator: exports write it so
// (EfficientNet, YOLO).
func siluPairs(fn *ir.Function, uses map[*ir.Var]int, block map[*ir.Var]*ir.BindingBlock) map[*ir.Var]siluPair {
	sigmoidOf := map[*ir.Var]*ir.Var{}
	var pairs map[*ir.Var]siluPair
	for _, blk := range allBlocks(fn.Body) {
		for _, b := range blk.Bindings {
			v := b.BoundVar()
			name, args, ok := kernelCall(b.BoundValue())
			if !ok || len(args.Fields) != 1 && len(args.Fields) != 2 || !isF32Tensor(v.Info) {
				continue
			}
			shape, ok := v.Info.(*ir.TensorSInfo).StaticShape()
			if !ok {
				continue
			}
			if name == KernelName("relax.sigmoid") && len(args.Fields) == 1 {
				if x, ok := args.Fields[0].(*ir.Var); ok && sameStaticShape(x.Info, shape) {
					sigmoidOf[v] = x
				}
				continue
			}
			if name != KernelName("relax.multiply") || len(args.Fields) != 2 {
				continue
			}
			for side, code := range []int64{ewChainSilu, ewChainXSigmoid} {
				s, ok := args.Fields[side].(*ir.Var)
				x := sigmoidOf[s]
				if !ok || x == nil || args.Fields[1-side] != ir.Expr(x) || uses[s] != 1 || block[s] != blk || pairs[s].x != nil {
					continue
				}
				if pairs == nil {
					pairs = map[*ir.Var]siluPair{}
				}
				pairs[v] = siluPair{x: x, code: code}
				pairs[s] = siluPair{x: x, code: code, sigmoid: true}
				uses[x]--
				break
			}
		}
	}
	return pairs
}

// intsShape is a list of integers as a kernel's Shape argument (a chain's
// codes, a padding).
func intsShape(codes []int64) *ir.ShapeExpr {
	pe := make([]ir.PrimExpr, len(codes))
	for i, k := range codes {
		pe[i] = ir.Int64(k)
	}
	return shapeExpr(pe)
}

// isChainVar reports whether e is a chain's current end that can be
// extended in blk: used once, bound in blk.
func isChainVar(e ir.Expr, chains map[*ir.Var]*ewChain, uses map[*ir.Var]int, block map[*ir.Var]*ir.BindingBlock, blk *ir.BindingBlock) bool {
	u, ok := e.(*ir.Var)
	return ok && chains[u] != nil && uses[u] == 1 && block[u] == blk
}

// sameStaticShape reports whether s is a float32 tensor of exactly shape.
func sameStaticShape(s ir.StructInfo, shape []int64) bool {
	t, ok := s.(*ir.TensorSInfo)
	if !ok || t.DType != runtime.Float32 {
		return false
	}
	ts, ok := t.StaticShape()
	if !ok || len(ts) != len(shape) {
		return false
	}
	for i := range ts {
		if ts[i] != shape[i] {
			return false
		}
	}
	return true
}

// broadcastsInto reports whether s is a float32 tensor with a static shape
// that broadcasts to shape without growing it.
func broadcastsInto(s ir.StructInfo, shape []int64) bool {
	t, ok := s.(*ir.TensorSInfo)
	if !ok || t.DType != runtime.Float32 {
		return false
	}
	ts, ok := t.StaticShape()
	if !ok || len(ts) > len(shape) {
		return false
	}
	for i, d := range ts {
		if e := shape[len(shape)-len(ts)+i]; d != 1 && d != e {
			return false
		}
	}
	return true
}
