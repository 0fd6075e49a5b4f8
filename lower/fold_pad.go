package lower

import (
	"math"

	"github.com/relaxgo/relaxgo/ir"
)

// FoldPad folds a constant zero padding of the two spatial axes of an NCHW
// tensor into the 2-D convolution or average pool that reads it, as ONNX
// Runtime's pad fusion does: PyTorch exports avg_pool2d(padding=1) as a Pad
// then an unpadded AveragePool (Inception-v3's nine pools), and TensorFlow
// models pad explicitly before their convolutions. The convolution's
// padding grows by the pad's widths; the pool's too, with
// count_include_pad set, so that the padded zeros still count in each
// window's divisor. The pad's result must have no other use and sit in the
// same binding block as its reader, its widths must be non-negative and
// zero on the batch and channel axes, and its value +0 in constant mode; a
// pool must not be in ceil mode, and its own padding, if any, must already
// count (count_include_pad). The kernels then read the padding as zeros
// without the padded copy in memory: the pool's sums are the same
// (adding +0 changes no sum but a -0 one), the convolution's the same sums
// of products of the same inputs. Runs after Legalize, before
// FuseConvChain.
func FoldPad(m *ir.Module) (*ir.Module, error) {
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		uses := useCounts(fn)
		def, block := bindingIndex(fn)
		drop := map[*ir.Var]bool{}
		folded := map[*ir.Var]*ir.Tuple{}
		symbol := map[*ir.Var]string{}
		for _, blk := range allBlocks(fn.Body) {
			for _, b := range blk.Bindings {
				v := b.BoundVar()
				name, args, ok := kernelCall(b.BoundValue())
				if !ok || len(args.Fields) == 0 {
					continue
				}
				p, isVar := args.Fields[0].(*ir.Var)
				if !isVar || uses[p] != 1 || block[p] != blk {
					continue
				}
				pname, pargs, ok := kernelCall(def[p])
				if !ok || pname != KernelName("relax.nn.pad") {
					continue
				}
				x, pads, ok := spatialZeroPad(pargs)
				if !ok {
					continue
				}
				var f []ir.Expr
				switch name {
				case KernelName("relax.nn.avg_pool2d"):
					f, ok = foldPadPool(args, pads)
				case KernelName("relax.nn.conv2d"):
					f, ok = foldPadConv(args, pads)
				default:
					continue
				}
				if !ok {
					continue
				}
				f[0] = x
				folded[v] = tupleExpr(f)
				symbol[v] = name
				drop[p] = true
			}
		}
		if len(folded) == 0 {
			return fn, nil
		}
		return rewriteFusedBy(fn, func(v *ir.Var) string { return symbol[v] }, drop, folded)
	})
}

// spatialZeroPad returns the input of a kernels.nn.pad call's arguments
// and its widths [top, left, bottom, right] when it pads a 4-D tensor
// with +0 (constant mode) on its last two axes only, by non-negative
// widths.
func spatialZeroPad(args *ir.Tuple) (ir.Expr, [4]int64, bool) {
	var pads [4]int64
	f := args.Fields
	if len(f) != 4 {
		return nil, pads, false
	}
	if s, ok := f[0].SInfo().(*ir.TensorSInfo); !ok || s.Shape == nil || len(s.Shape) != 4 {
		return nil, pads, false
	}
	se, ok := f[1].(*ir.ShapeExpr)
	if !ok {
		return nil, pads, false
	}
	pw, ok := shapeInts(se)
	if !ok || len(pw) != 8 || pw[0] != 0 || pw[1] != 0 || pw[2] != 0 || pw[3] != 0 {
		return nil, pads, false
	}
	for _, w := range pw[4:] {
		if w < 0 {
			return nil, pads, false
		}
	}
	// The value and the mode, in either order (the kernel tells them apart
	// by type); both must be given.
	var mode, value bool
	for _, e := range f[2:] {
		switch x := e.(type) {
		case *ir.StringImm:
			mode = x.Value == "constant"
		case *ir.PrimValue:
			switch n := x.Value.(type) {
			case *ir.FloatImm:
				value = math.Float64bits(n.Value) == 0
			case *ir.IntImm:
				value = n.Value == 0
			}
		}
	}
	if !mode || !value {
		return nil, pads, false
	}
	// Interleaved (before, after) per axis: H is axis 2, W axis 3.
	pads = [4]int64{pw[4], pw[6], pw[5], pw[7]}
	return f[0], pads, true
}

// foldPadPool returns a kernels.nn.avg_pool2d call's arguments (data,
// pool_size, strides, padding, dilation, ceil_mode, count_include_pad,
// layout, out_layout) with pads added to its padding and count_include_pad
// set, or false when the pool is not an NCHW one in floor mode whose own
// padding (if any) counts.
func foldPadPool(args *ir.Tuple, pads [4]int64) ([]ir.Expr, bool) {
	f := append([]ir.Expr{}, args.Fields...)
	if len(f) != 9 || !layoutIs(f[7], "NCHW") || !layoutIs(f[8], "NCHW") {
		return nil, false
	}
	ceil, ok1 := primIntValue(f[5])
	cip, ok2 := primIntValue(f[6])
	own, ok3 := padding4(f[3])
	if !ok1 || !ok2 || !ok3 || ceil != 0 {
		return nil, false
	}
	if cip == 0 && own != [4]int64{} {
		return nil, false
	}
	f[3] = intsShape(addPads(own, pads))
	f[6] = primInt(1)
	return f, true
}

// foldPadConv returns a kernels.nn.conv2d call's arguments (data, weight,
// strides, padding, dilation, groups, data_layout, kernel_layout,
// out_layout, out_dtype) with pads added to its padding, or false when its
// data is not NCHW.
func foldPadConv(args *ir.Tuple, pads [4]int64) ([]ir.Expr, bool) {
	f := append([]ir.Expr{}, args.Fields...)
	if len(f) != 10 || !layoutIs(f[6], "NCHW") {
		return nil, false
	}
	own, ok := padding4(f[3])
	if !ok {
		return nil, false
	}
	f[3] = intsShape(addPads(own, pads))
	return f, true
}

// layoutIs reports whether e is the layout string want ("" or a null
// value also mean the default, NCHW).
func layoutIs(e ir.Expr, want string) bool {
	switch x := e.(type) {
	case *ir.StringImm:
		return x.Value == want || x.Value == ""
	case *ir.Call:
		return x.OpName() == "relax.null_value" && want == "NCHW"
	}
	return false
}

// primIntValue returns an integer PrimValue's value.
func primIntValue(e ir.Expr) (int64, bool) {
	p, ok := e.(*ir.PrimValue)
	if !ok {
		return 0, false
	}
	n, ok := p.Value.(*ir.IntImm)
	if !ok {
		return 0, false
	}
	return n.Value, true
}

// padding4 reads a 2-D padding of 0, 1, 2 or 4 values as [top, left,
// bottom, right] (none; one for all; top/bottom and left/right; or all
// four), as the kernels read it.
func padding4(e ir.Expr) ([4]int64, bool) {
	se, ok := e.(*ir.ShapeExpr)
	if !ok {
		return [4]int64{}, false
	}
	p, ok := shapeInts(se)
	if !ok {
		return [4]int64{}, false
	}
	switch len(p) {
	case 0:
		return [4]int64{}, true
	case 1:
		return [4]int64{p[0], p[0], p[0], p[0]}, true
	case 2:
		return [4]int64{p[0], p[1], p[0], p[1]}, true
	case 4:
		return [4]int64{p[0], p[1], p[2], p[3]}, true
	}
	return [4]int64{}, false
}

// addPads returns the paddings a and b summed, as a list.
func addPads(a, b [4]int64) []int64 {
	for i := range a {
		a[i] += b[i]
	}
	return a[:]
}
