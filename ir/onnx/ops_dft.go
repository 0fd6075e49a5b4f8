package onnx

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// DFT as two real matrix products with cos/sin matrices built at import time
// (the signal length must be static). Input [..., n, 1|2] (real or complex),
// output [..., k, 2].

func convDFT(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	xd, ok := x.StaticDims()
	if !ok || len(xd) < 2 || xd[len(xd)-1] < 1 || xd[len(xd)-1] > 2 {
		return nil, n.unsupported("input must have a static shape [..., n, 1 or 2]")
	}
	r := len(xd) - 1 // rank without the complex axis
	axis := int64(1)
	if n.Opset >= 20 {
		axis = -2
		if v := n.Input(2); v != nil {
			a, ok := v.Ints()
			if !ok || len(a) != 1 {
				return nil, n.unsupported("axis must be known at import time")
			}
			axis = a[0]
		}
	} else {
		axis = n.Int("axis", 1)
	}
	if axis < 0 {
		axis += int64(len(xd))
	}
	if axis < 0 || axis >= int64(r) {
		return nil, fmt.Errorf("axis %d out of range for input rank %d", axis, len(xd))
	}
	nsig := xd[axis]
	L := nsig
	if v := n.Input(1); v != nil {
		l, ok := v.Ints()
		if !ok || len(l) != 1 {
			return nil, n.unsupported("dft_length must be known at import time")
		}
		L = l[0]
	}
	inverse, onesided := n.Int("inverse", 0) != 0, n.Int("onesided", 0) != 0
	if L <= 0 || L > 1<<12 {
		return nil, n.unsupported("dft_length %d", L)
	}
	K := L
	if onesided {
		K = L/2 + 1
	}
	dt := x.DType()
	f := &formula{c: c}
	part := func(i int64) *Value {
		if f.err != nil {
			return nil
		}
		s, err := c.Emit("relax.strided_slice", []ir.Expr{x.Expr, &ir.Tuple{Fields: []ir.Expr{primInt(int64(r))}},
			&ir.Tuple{Fields: []ir.Expr{primInt(i)}}, &ir.Tuple{Fields: []ir.Expr{primInt(i + 1)}}, &ir.Tuple{Fields: []ir.Expr{primInt(1)}}})
		if err != nil {
			f.err = err
			return nil
		}
		return f.un("relax.squeeze", s, Attr("axis", []any{int64(r)}))
	}
	// Move the signal axis last.
	perm := make([]int64, 0, r)
	for i := 0; i < r; i++ {
		if int64(i) != axis {
			perm = append(perm, int64(i))
		}
	}
	perm = append(perm, axis)
	toLast := func(v *Value) *Value {
		if axis == int64(r-1) {
			return v
		}
		return f.un("relax.permute_dims", v, Attr("axes", intsAny(perm)))
	}
	fit := func(v *Value) *Value { // truncate or zero-pad the signal to L
		if f.err != nil || L == nsig {
			return v
		}
		if L < nsig {
			s, err := c.Emit("relax.strided_slice", []ir.Expr{v.Expr, &ir.Tuple{Fields: []ir.Expr{primInt(int64(r - 1))}},
				&ir.Tuple{Fields: []ir.Expr{primInt(0)}}, &ir.Tuple{Fields: []ir.Expr{primInt(L)}}, &ir.Tuple{Fields: []ir.Expr{primInt(1)}}})
			f.err = err
			return s
		}
		width := make([]int64, 2*r)
		width[2*r-1] = L - nsig
		return f.un("relax.nn.pad", v, Attr("pad_width", intsAny(width)), Attr("pad_value", 0.0), Attr("pad_mode", "constant"))
	}
	if inverse && onesided {
		return irfft(c, n, f, toLast(part(0)), toLast(part(1)), xd, axis, r, n.Input(1) != nil, L, perm)
	}
	re := fit(toLast(part(0)))
	var im *Value
	if xd[len(xd)-1] == 2 {
		im = fit(toLast(part(1)))
	}
	if f.err != nil {
		return nil, f.err
	}
	cosM, err := runtime.NewTensor([]int64{L, K}, dt)
	if err != nil {
		return nil, n.unsupported("%v", err)
	}
	sinM := cosM.Clone()
	for j := int64(0); j < L; j++ {
		for k := int64(0); k < K; k++ {
			a := 2 * math.Pi * float64((j*k)%L) / float64(L)
			if err := setElem(cosM, int(j*K+k), math.Cos(a)); err != nil {
				return nil, n.unsupported("%v", err)
			}
			setElem(sinM, int(j*K+k), math.Sin(a))
		}
	}
	C, S := c.Const(cosM), c.Const(sinM)
	var outRe, outIm *Value
	if !inverse {
		// (re + i im)(cos - i sin)
		outRe = f.bin("relax.matmul", re, C)
		outIm = f.un("relax.negative", f.bin("relax.matmul", re, S))
		if im != nil {
			outRe = f.bin("relax.add", outRe, f.bin("relax.matmul", im, S))
			outIm = f.bin("relax.add", outIm, f.bin("relax.matmul", im, C))
		}
	} else {
		// (re + i im)(cos + i sin) / L
		outRe = f.bin("relax.matmul", re, C)
		outIm = f.bin("relax.matmul", re, S)
		if im != nil {
			outRe = f.bin("relax.subtract", outRe, f.bin("relax.matmul", im, S))
			outIm = f.bin("relax.add", outIm, f.bin("relax.matmul", im, C))
		}
		outRe = f.bin("relax.divide", outRe, f.k(float64(L), re))
		outIm = f.bin("relax.divide", outIm, f.k(float64(L), re))
	}
	if f.err != nil {
		return nil, f.err
	}
	y, err := c.Emit("relax.stack", []ir.Expr{&ir.Tuple{Fields: []ir.Expr{outRe.Expr, outIm.Expr}}}, Attr("axis", int64(r)))
	if err != nil {
		return nil, err
	}
	// y is [others..., K, 2].
	return dftAxisBack(c, y, axis, r)
}

// irfft is the inverse of a one-sided DFT: the input holds k = n/2+1
// coefficients of a Hermitian spectrum; the output is real, [..., n, 1].
func irfft(c *Ctx, n *Node, f *formula, re, im *Value, xd []int64, axis int64, r int, hasLen bool, L int64, perm []int64) ([]*Value, error) {
	if f.err != nil {
		return nil, f.err
	}
	kin := xd[axis]
	if !hasLen {
		L = 2 * (kin - 1)
	}
	if L <= 0 || kin > L/2+1 {
		return nil, n.unsupported("one-sided inverse with %d coefficients for length %d", kin, L)
	}
	dt := re.DType()
	cosM, err := runtime.NewTensor([]int64{kin, L}, dt)
	if err != nil {
		return nil, n.unsupported("%v", err)
	}
	sinM := cosM.Clone()
	for k := int64(0); k < kin; k++ {
		w := 2.0
		if k == 0 || 2*k == L {
			w = 1
		}
		for j := int64(0); j < L; j++ {
			a := 2 * math.Pi * float64((j*k)%L) / float64(L)
			setElem(cosM, int(k*L+j), w*math.Cos(a)/float64(L))
			setElem(sinM, int(k*L+j), w*math.Sin(a)/float64(L))
		}
	}
	out := f.bin("relax.matmul", re, c.Const(cosM))
	if im != nil && xd[len(xd)-1] == 2 {
		out = f.bin("relax.subtract", out, f.bin("relax.matmul", im, c.Const(sinM)))
	}
	if f.err != nil {
		return nil, f.err
	}
	y, err := c.Un("relax.expand_dims", out, Attr("axis", []any{int64(r)}))
	if err != nil {
		return nil, err
	}
	return dftAxisBack(c, y, axis, r)
}

// dftAxisBack moves the signal axis of y ([others..., K, 2] or [..., n, 1],
// rank r+1), which the transform computed last, back to position axis.
func dftAxisBack(c *Ctx, y *Value, axis int64, r int) ([]*Value, error) {
	if axis == int64(r-1) {
		return []*Value{y}, nil
	}
	back := make([]int64, r+1)
	j := 0
	for i := 0; i < r; i++ {
		if int64(i) == axis {
			back[i] = int64(r - 1)
		} else {
			back[i] = int64(j)
			j++
		}
	}
	back[r] = int64(r)
	return one(c.Un("relax.permute_dims", y, Attr("axes", intsAny(back))))
}
