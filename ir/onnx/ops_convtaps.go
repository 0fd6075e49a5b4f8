package onnx

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// convTransposeTaps is a transposed convolution of any rank with static
// shapes, for the ranks without a kernel (3-D): for every output position and
// kernel offset the contributing input position, (o + pad - k*dil) / stride
// when divisible and in range, is fixed at import time; the inputs are
// gathered with one take (missing taps read an appended 0) and contracted
// with the weights by a matmul per group.
func convTransposeTaps(c *Ctx, n *Node, x, w *Value, strides, pads, outPad, dil []int64, groups int64) (*Value, error) {
	xd, ok1 := x.StaticDims()
	wd, ok2 := w.StaticDims()
	sp := len(strides)
	if !ok1 || !ok2 || len(xd) != sp+2 || len(wd) != sp+2 {
		return nil, n.unsupported("%d-D transposed convolution needs static shapes", sp)
	}
	if !x.DType().IsFloat() {
		return nil, n.unsupported("%d-D transposed convolution of %s", sp, x.DType())
	}
	N, Cin := xd[0], xd[1]
	if groups < 1 || Cin%groups != 0 || wd[0] != Cin {
		return nil, fmt.Errorf("weight shape %v for %d input channels in %d groups", wd, Cin, groups)
	}
	Cout := wd[1] * groups
	in, ker := xd[2:], wd[2:]
	out := make([]int64, sp)
	for i := 0; i < sp; i++ {
		out[i] = strides[i]*(in[i]-1) + outPad[i] + (ker[i]-1)*dil[i] + 1 - pads[i] - pads[sp+i]
		if out[i] < 1 {
			return nil, n.unsupported("output size %d", out[i])
		}
	}
	P, K, S := prod(out), prod(ker), prod(in)
	if P*K > 1<<24 || N*Cin*P*K > 1<<26 {
		return nil, n.unsupported("too many taps (%d x %d)", P, K)
	}
	taps, err := runtime.NewTensor([]int64{P, K}, runtime.Int64)
	if err != nil {
		return nil, err
	}
	tv := taps.Int64s()
	oc, kc := make([]int64, sp), make([]int64, sp)
	for p := int64(0); p < P; p++ {
		unravel(p, out, oc)
		for k := int64(0); k < K; k++ {
			unravel(k, ker, kc)
			flat, ok := int64(0), true
			for i := 0; i < sp && ok; i++ {
				num := oc[i] + pads[i] - kc[i]*dil[i]
				if num < 0 || num%strides[i] != 0 || num/strides[i] >= in[i] {
					ok = false
					break
				}
				flat = flat*in[i] + num/strides[i]
			}
			if ok {
				tv[p*K+k] = flat
			} else {
				tv[p*K+k] = S
			}
		}
	}
	f := &formula{c: c}
	zero, err := c.Scalar(0, x.DType())
	if err != nil {
		return nil, err
	}
	padv, err := c.Emit("relax.full", []ir.Expr{staticShape([]int64{N, Cin, 1}), zero.Expr}, Attr("dtype", x.DType()))
	if err != nil {
		return nil, err
	}
	xf := f.reshapeTo(x, N, Cin, S)
	if f.err != nil {
		return nil, f.err
	}
	xp, err := c.Emit("relax.concat", []ir.Expr{&ir.Tuple{Fields: []ir.Expr{xf.Expr, padv.Expr}}}, Attr("axis", int64(2)))
	if err != nil {
		return nil, err
	}
	cols, err := c.Emit("relax.take", []ir.Expr{xp.Expr, c.Const(taps).Expr}, Attr("axis", int64(2))) // (N, Cin, P, K)
	if err != nil {
		return nil, err
	}
	G, Cg, Og := groups, Cin/groups, wd[1]
	// (N, G, Cg, P, K) -> (N, G, P, Cg*K) @ (G, Cg*K, Og) -> (N, G, P, Og)
	cv := f.un("relax.permute_dims", f.reshapeTo(cols, N, G, Cg, P, K), Attr("axes", []any{int64(0), int64(1), int64(3), int64(2), int64(4)}))
	cv = f.reshapeTo(cv, N, G, P, Cg*K)
	wv := f.un("relax.permute_dims", f.reshapeTo(w, G, Cg, Og, K), Attr("axes", []any{int64(0), int64(1), int64(3), int64(2)}))
	wv = f.reshapeTo(wv, G, Cg*K, Og)
	y := f.bin("relax.matmul", cv, wv)
	y = f.un("relax.permute_dims", y, Attr("axes", []any{int64(0), int64(1), int64(3), int64(2)})) // (N, G, Og, P)
	return f.reshapeTo(y, append([]int64{N, Cout}, out...)...), f.err
}
