package onnx

import (
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// STFT (opset 17): frames gathered with one take (frame indices built at
// import time), multiplied by the window, and transformed like DFT with
// cos/sin matrix products. frame_step and frame_length must be known.

func scalarInt(v *Value) (int64, bool) {
	if v == nil {
		return 0, false
	}
	is, ok := v.Ints()
	if !ok || len(is) != 1 {
		return 0, false
	}
	return is[0], true
}

func convSTFT(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	xd, ok := x.StaticDims()
	if !ok || len(xd) != 3 || xd[2] < 1 || xd[2] > 2 {
		return nil, n.unsupported("signal must have a static shape [batch, length, 1 or 2]")
	}
	if !x.DType().IsFloat() {
		return nil, n.unsupported("dtype %s", x.DType())
	}
	step, ok := scalarInt(n.In[1])
	if !ok {
		return nil, n.unsupported("frame_step must be known at import time")
	}
	win := n.Input(2)
	var FL int64
	if v := n.Input(3); v != nil {
		if FL, ok = scalarInt(v); !ok {
			return nil, n.unsupported("frame_length must be known at import time")
		}
	} else if win != nil {
		wd, ok := win.StaticDims()
		if !ok || len(wd) != 1 {
			return nil, n.unsupported("window must be a static 1-D tensor")
		}
		FL = wd[0]
	} else {
		return nil, n.unsupported("neither window nor frame_length")
	}
	if win != nil {
		if wd, ok := win.StaticDims(); !ok || len(wd) != 1 || wd[0] != FL {
			return nil, n.unsupported("window shape must be [%d]", FL)
		}
	}
	L := xd[1]
	if step < 1 || FL < 1 || FL > L || FL > 1<<12 {
		return nil, n.unsupported("frame_step %d and frame_length %d for a signal of %d", step, FL, L)
	}
	frames := (L-FL)/step + 1
	if frames*FL > 1<<24 {
		return nil, n.unsupported("too many frames")
	}
	onesided := n.Int("onesided", 1) != 0
	bins := FL
	if onesided {
		bins = FL/2 + 1
	}
	idx, err := runtime.NewTensor([]int64{frames, FL}, runtime.Int64)
	if err != nil {
		return nil, err
	}
	for f := int64(0); f < frames; f++ {
		for i := int64(0); i < FL; i++ {
			idx.Int64s()[f*FL+i] = f*step + i
		}
	}
	cosM, err := runtime.NewTensor([]int64{FL, bins}, x.DType())
	if err != nil {
		return nil, err
	}
	sinM, err := runtime.NewTensor([]int64{FL, bins}, x.DType())
	if err != nil {
		return nil, err
	}
	for i := int64(0); i < FL; i++ {
		for k := int64(0); k < bins; k++ {
			ang := 2 * math.Pi * float64((i*k)%FL) / float64(FL)
			if err := setElem(cosM, int(i*bins+k), math.Cos(ang)); err != nil {
				return nil, err
			}
			if err := setElem(sinM, int(i*bins+k), math.Sin(ang)); err != nil {
				return nil, err
			}
		}
	}
	f := &formula{c: c}
	fr, err := c.Emit("relax.take", []ir.Expr{x.Expr, c.Const(idx).Expr}, Attr("axis", int64(1))) // [B, frames, FL, C]
	if err != nil {
		return nil, err
	}
	part := func(ch int64) *Value {
		if f.err != nil {
			return nil
		}
		v, err := c.Emit("relax.strided_slice", []ir.Expr{fr.Expr, &ir.Tuple{Fields: []ir.Expr{primInt(3)}},
			&ir.Tuple{Fields: []ir.Expr{primInt(ch)}}, &ir.Tuple{Fields: []ir.Expr{primInt(ch + 1)}}, &ir.Tuple{Fields: []ir.Expr{primInt(1)}}})
		if err != nil {
			f.err = err
			return nil
		}
		v = f.un("relax.squeeze", v, Attr("axis", []any{int64(3)}))
		if win != nil {
			w := win
			if w.DType() != x.DType() {
				w = f.un("relax.astype", w, Attr("dtype", x.DType()))
			}
			v = f.bin("relax.multiply", v, w)
		}
		return v
	}
	C, S := c.Const(cosM), c.Const(sinM)
	re := part(0)
	outRe := f.bin("relax.matmul", re, C)
	outIm := f.un("relax.negative", f.bin("relax.matmul", re, S))
	if xd[2] == 2 {
		im := part(1)
		outRe = f.bin("relax.add", outRe, f.bin("relax.matmul", im, S))
		outIm = f.bin("relax.add", outIm, f.bin("relax.matmul", im, C))
	}
	if f.err != nil {
		return nil, f.err
	}
	return one(c.Emit("relax.stack", []ir.Expr{&ir.Tuple{Fields: []ir.Expr{outRe.Expr, outIm.Expr}}}, Attr("axis", int64(3))))
}
