package onnx

import (
	"fmt"
	"sort"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Einsum without a dedicated kernel: each operand is permuted and reshaped to
// a common letter order (output letters first), the operands are multiplied
// with broadcasting and the contracted letters summed. Repeated letters
// within an operand (diagonals) are reduced first with an identity mask.

func convEinsum(c *Ctx, n *Node) ([]*Value, error) {
	eq := strings.ReplaceAll(n.Str("equation", ""), " ", "")
	if len(n.In) == 0 {
		return nil, n.unsupported("no inputs")
	}
	for i := range n.In {
		if err := needInputs(n, i+1); err != nil {
			return nil, err
		}
	}
	lhs, out, explicit := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(n.In) {
		return nil, fmt.Errorf("equation %q has %d operands, the node %d inputs", eq, len(terms), len(n.In))
	}
	// Expand "..." into fresh letters (aligned to the right, as numpy does).
	ell := 0
	for i, t := range terms {
		if strings.Contains(t, "...") {
			r := n.In[i].Rank() - (len(t) - 3)
			if r < 0 {
				return nil, fmt.Errorf("equation %q does not match input %d's rank", eq, i)
			}
			ell = max(ell, r)
		}
	}
	fresh := func(k int) string {
		var b strings.Builder
		for i := ell - k; i < ell; i++ {
			b.WriteByte(byte('0' + i)) // digits never clash with letters
		}
		return b.String()
	}
	for i, t := range terms {
		if strings.Contains(t, "...") {
			terms[i] = strings.Replace(t, "...", fresh(n.In[i].Rank()-(len(t)-3)), 1)
		}
	}
	// Diagonals: a letter repeated within an operand keeps only equal
	// indices (an identity mask) and sums out the second occurrence.
	ins := append([]*Value{}, n.In...)
	for i := range terms {
		for {
			j1, j2 := -1, -1
			for a := 0; a < len(terms[i]) && j1 < 0; a++ {
				if b := strings.IndexByte(terms[i][a+1:], terms[i][a]); b >= 0 {
					j1, j2 = a, a+1+b
				}
			}
			if j1 < 0 {
				break
			}
			d, ok := ins[i].StaticDims()
			if !ok || len(d) != len(terms[i]) || d[j1] != d[j2] {
				return nil, n.unsupported("diagonal of operand %d needs static equal dimensions", i)
			}
			if d[j1]*d[j1] > maxFoldElems {
				return nil, n.unsupported("diagonal of size %d", d[j1])
			}
			mshape := make([]int64, len(d))
			for k := range mshape {
				mshape[k] = 1
			}
			mshape[j1], mshape[j2] = d[j1], d[j1]
			eye, err := runtime.NewTensor(mshape, runtime.Bool)
			if err != nil {
				return nil, err
			}
			for k := int64(0); k < d[j1]; k++ {
				eye.Bytes()[k*d[j1]+k] = 1
			}
			f := &formula{c: c}
			x := f.where(c.Const(eye), ins[i], f.k(0, ins[i]))
			x = f.un("relax.sum", x, Attr("axis", []any{int64(j2)}), Attr("keepdims", false))
			if f.err != nil {
				return nil, f.err
			}
			ins[i] = x
			terms[i] = terms[i][:j2] + terms[i][j2+1:]
		}
	}
	n.In = ins
	if explicit {
		out = strings.Replace(out, "...", fresh(ell), 1)
	} else {
		count := map[byte]int{}
		for _, t := range terms {
			for j := 0; j < len(t); j++ {
				count[t[j]]++
			}
		}
		var letters []byte
		for l, k := range count {
			if k == 1 && !(l >= '0' && l <= '9') {
				letters = append(letters, l)
			}
		}
		sort.Slice(letters, func(i, j int) bool { return letters[i] < letters[j] })
		out = fresh(ell) + string(letters)
	}
	size := map[byte]ir.PrimExpr{}
	order := []byte(out)
	seen := map[byte]bool{}
	for j := 0; j < len(out); j++ {
		if seen[out[j]] {
			return nil, n.unsupported("repeated output letter in %q", eq)
		}
		seen[out[j]] = true
	}
	for i, t := range terms {
		dims := n.In[i].Dims()
		if len(dims) != len(t) {
			return nil, fmt.Errorf("equation %q: operand %d has rank %d", eq, i, len(dims))
		}
		local := map[byte]bool{}
		for j := 0; j < len(t); j++ {
			l := t[j]
			if local[l] {
				return nil, n.unsupported("repeated letter %q in operand %d (diagonal)", l, i)
			}
			local[l] = true
			if d, ok := size[l]; !ok || isOne(d) {
				size[l] = dims[j]
			}
			if !seen[l] {
				seen[l] = true
				order = append(order, l)
			}
		}
	}
	for j := 0; j < len(out); j++ {
		if _, ok := size[out[j]]; !ok {
			return nil, fmt.Errorf("output letter %q appears in no operand", out[j])
		}
	}
	pos := map[byte]int{}
	for i, l := range order {
		pos[l] = i
	}
	f := &formula{c: c}
	var acc *Value
	for i, t := range terms {
		x := n.In[i]
		// Permute to the common order, then insert ones for missing letters.
		perm := make([]int64, len(t))
		idx := make([]int, len(t))
		for j := range idx {
			idx[j] = j
		}
		sort.Slice(idx, func(a, b int) bool { return pos[t[idx[a]]] < pos[t[idx[b]]] })
		ident := true
		for j, k := range idx {
			perm[j] = int64(k)
			ident = ident && j == k
		}
		if !ident {
			x = f.un("relax.permute_dims", x, Attr("axes", intsAny(perm)))
		}
		if f.err != nil {
			return nil, f.err
		}
		shape := make([]ir.PrimExpr, len(order))
		dims := n.In[i].Dims()
		for j, l := range order {
			shape[j] = ir.Int64(1)
			if k := strings.IndexByte(t, l); k >= 0 {
				shape[j] = dims[k]
			}
		}
		if len(t) != len(order) {
			r, err := c.Emit("relax.reshape", []ir.Expr{x.Expr, shapeExpr(shape)})
			if err != nil {
				return nil, err
			}
			x = r
		}
		if acc == nil {
			acc = x
		} else {
			acc = f.bin("relax.multiply", acc, x)
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	if len(order) > len(out) {
		var axes []int64
		for j := len(out); j < len(order); j++ {
			axes = append(axes, int64(j))
		}
		acc = f.un("relax.sum", acc, Attr("axis", intsAny(axes)), Attr("keepdims", false))
	}
	if f.err != nil {
		return nil, f.err
	}
	// Broadcast size-1 output dimensions an operand left at 1.
	want := make([]ir.PrimExpr, len(out))
	for j := 0; j < len(out); j++ {
		want[j] = size[out[j]]
	}
	if !sameDims(acc.Dims(), want) {
		return one(c.Emit("relax.broadcast_to", []ir.Expr{acc.Expr, shapeExpr(want)}))
	}
	if len(n.In) == 1 && acc == n.In[0] {
		return identity(c, n)
	}
	return []*Value{acc}, nil
}

func isOne(d ir.PrimExpr) bool {
	v, ok := ir.AsInt(d)
	return ok && v == 1
}
