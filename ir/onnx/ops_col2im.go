package onnx

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Col2Im (opset 18): the sum of sliding blocks back into an image, computed
// as a transposed convolution whose one-hot weights send input channel
// c*prod(block)+k to output channel c at kernel offset k.

func convCol2Im(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	img, ok1 := n.In[1].Ints()
	blk, ok2 := n.In[2].Ints()
	if !ok1 || !ok2 {
		return nil, n.unsupported("image_shape and block_shape must be known at import time")
	}
	sp := len(img)
	if sp < 1 || len(blk) != sp {
		return nil, n.unsupported("image_shape %v and block_shape %v", img, blk)
	}
	if sp > 3 {
		return nil, n.unsupported("%d spatial dimensions", sp)
	}
	xd, ok := x.StaticDims()
	if !ok || len(xd) != 3 {
		return nil, n.unsupported("only 3-D inputs with static shapes are supported")
	}
	ones := make([]int64, sp)
	for i := range ones {
		ones[i] = 1
	}
	strides, dil := n.Ints("strides", ones), n.Ints("dilations", ones)
	pads := n.Ints("pads", make([]int64, 2*sp))
	if len(strides) != sp || len(dil) != sp || len(pads) != 2*sp {
		return nil, fmt.Errorf("attribute lengths do not match %d spatial dimensions", sp)
	}
	for _, a := range []struct {
		name string
		v    []int64
		lo   int64
	}{{"image_shape", img, 1}, {"block_shape", blk, 1}, {"strides", strides, 1}, {"dilations", dil, 1}, {"pads", pads, 0}} {
		if err := checkRange(n, a.name, a.v, a.lo); err != nil {
			return nil, err
		}
	}
	K := int64(1)
	for _, b := range blk {
		K *= b
	}
	if K > 1<<12 || xd[1]%K != 0 {
		return nil, n.unsupported("input channels %d are not a multiple of the block size %d", xd[1], K)
	}
	C := xd[1] / K
	blocks := make([]int64, sp)
	outPad := make([]int64, sp)
	L := int64(1)
	for i := 0; i < sp; i++ {
		span := dil[i]*(blk[i]-1) + 1
		full := img[i] + pads[i] + pads[sp+i]
		if full < span {
			return nil, n.unsupported("block larger than the padded image")
		}
		blocks[i] = (full-span)/strides[i] + 1
		L *= blocks[i]
		// conv_transpose yields (blocks-1)*stride + span - pads; the rest is output_padding.
		outPad[i] = full - ((blocks[i]-1)*strides[i] + span)
	}
	if L != xd[2] {
		return nil, n.unsupported("input has %d blocks, the image holds %d", xd[2], L)
	}
	if C*K*C*K > 1<<22 {
		return nil, n.unsupported("too many channels (%d) for the one-hot weights", C)
	}
	wshape := append([]int64{C * K, C}, blk...)
	w, err := runtime.NewTensor(wshape, runtime.Float32)
	if err != nil {
		return nil, err
	}
	wv := w.Float32s()
	for ch := int64(0); ch < C; ch++ {
		for k := int64(0); k < K; k++ {
			// weight[ch*K+k, ch, offset k]
			wv[((ch*K+k)*C+ch)*K+k] = 1
		}
	}
	wc, err := c.Cast(c.Const(w), x.DType())
	if err != nil {
		return nil, err
	}
	dims := []ir.PrimExpr{ir.Int64(xd[0]), ir.Int64(C * K)}
	for _, b := range blocks {
		dims = append(dims, ir.Int64(b))
	}
	xr, err := c.Emit("relax.reshape", []ir.Expr{x.Expr, shapeExpr(dims)})
	if err != nil {
		return nil, err
	}
	if sp == 3 {
		return one(convTransposeTaps(c, n, xr, wc, strides, pads, outPad, dil, 1))
	}
	return one(c.Emit(fmt.Sprintf("relax.nn.conv%dd_transpose", sp), []ir.Expr{xr.Expr, wc.Expr},
		Attr("strides", intsAny(strides)), Attr("padding", intsAny(pads)), Attr("output_padding", intsAny(outPad)),
		Attr("dilation", intsAny(dil)), Attr("groups", int64(1))))
}
