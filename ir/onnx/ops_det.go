package onnx

import (
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Det (opset 11) for small matrices (n <= 5), by the Leibniz formula: gather
// the n entries of each permutation with one take, multiply them, and sum
// with the permutations' signs.

const detMaxN = 5

func permutations(n int) ([][]int, []float64) {
	var perms [][]int
	var signs []float64
	p := make([]int, n)
	used := make([]bool, n)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			inv := 0
			for a := 0; a < n; a++ {
				for b := a + 1; b < n; b++ {
					if p[a] > p[b] {
						inv++
					}
				}
			}
			perms = append(perms, append([]int{}, p...))
			signs = append(signs, float64(1-2*(inv%2)))
			return
		}
		for v := 0; v < n; v++ {
			if !used[v] {
				used[v], p[i] = true, v
				rec(i + 1)
				used[v] = false
			}
		}
	}
	rec(0)
	return perms, signs
}

func convDet(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	xd, ok := x.StaticDims()
	if !ok || len(xd) < 2 || xd[len(xd)-1] != xd[len(xd)-2] {
		return nil, n.unsupported("input must be static square matrices")
	}
	if !x.DType().IsFloat() {
		return nil, n.unsupported("dtype %s", x.DType())
	}
	m := xd[len(xd)-1]
	if m < 1 || m > detMaxN {
		return nil, n.unsupported("%dx%d matrices (only up to %dx%d)", m, m, detMaxN, detMaxN)
	}
	perms, signs := permutations(int(m))
	P := int64(len(perms))
	idx, err := runtime.NewTensor([]int64{P, m}, runtime.Int64)
	if err != nil {
		return nil, err
	}
	iv := idx.Int64s()
	for p, perm := range perms {
		for i, j := range perm {
			iv[int64(p)*m+int64(i)] = int64(i)*m + int64(j)
		}
	}
	sg, err := runtime.NewTensor([]int64{P}, x.DType())
	if err != nil {
		return nil, err
	}
	for i, s := range signs {
		if err := setElem(sg, i, s); err != nil {
			return nil, err
		}
	}
	var flat []ir.PrimExpr
	for _, d := range xd[:len(xd)-2] {
		flat = append(flat, ir.Int64(d))
	}
	flat = append(flat, ir.Int64(m*m))
	f := &formula{c: c}
	xf, err := c.Emit("relax.reshape", []ir.Expr{x.Expr, shapeExpr(flat)})
	if err != nil {
		return nil, err
	}
	g, err := c.Emit("relax.take", []ir.Expr{xf.Expr, c.Const(idx).Expr}, Attr("axis", int64(-1)))
	if err != nil {
		return nil, err
	}
	prod := f.un("relax.prod", g, Attr("axis", []any{int64(-1)}), Attr("keepdims", false))
	terms := f.bin("relax.multiply", prod, c.Const(sg))
	y := f.un("relax.sum", terms, Attr("axis", []any{int64(-1)}), Attr("keepdims", false))
	return one(y, f.err)
}
