package ir

import (
	"fmt"
	"sort"
	"strings"
)

// einsum(operands, subscripts), as in TVM's relax.einsum (EinsumAttrs:
// subscripts). NumPy's notation: explicit ("ij,jk->ik") or implicit output
// (labels that appear once, sorted), and "..." for broadcast dims.
func init() {
	reg("relax.einsum", true, inferEinsum, args(argK("operands", ArgTuple)), attrReq("subscripts", AttrString))
}

// parseEinsum expands subscripts for operands of the given ranks into one
// label list per operand and the output's labels. An ellipsis becomes labels
// 0x100+k (k counting from the right-most broadcast dim).
func parseEinsum(sub string, ranks []int) ([][]rune, []rune, error) {
	sub = strings.ReplaceAll(sub, " ", "")
	lhs, rhs, explicit := strings.Cut(sub, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(ranks) {
		return nil, nil, fmt.Errorf("subscripts %q name %d operands, got %d", sub, len(terms), len(ranks))
	}
	ell := 0
	expand := func(term string, rank int) ([]rune, error) {
		pre, post, has := strings.Cut(term, "...")
		named := len([]rune(pre)) + len([]rune(post))
		if rank >= 0 && (named > rank || (!has && named != rank)) {
			return nil, fmt.Errorf("subscript %q does not fit an operand of rank %d", term, rank)
		}
		out := []rune(pre)
		if has {
			n := rank - named
			ell = max(ell, n)
			for k := n - 1; k >= 0; k-- {
				out = append(out, rune(0x100+k))
			}
		}
		out = append(out, []rune(post)...)
		for _, r := range out {
			if r < 0x100 && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
				return nil, fmt.Errorf("invalid subscript label %q in %q", r, term)
			}
		}
		return out, nil
	}
	ins := make([][]rune, len(terms))
	count := map[rune]int{}
	for i, t := range terms {
		l, err := expand(t, ranks[i])
		if err != nil {
			return nil, nil, err
		}
		ins[i] = l
		for _, r := range l {
			count[r]++
		}
	}
	var out []rune
	if explicit {
		if strings.Contains(rhs, "...") {
			pre, post, _ := strings.Cut(rhs, "...")
			out = []rune(pre)
			for k := ell - 1; k >= 0; k-- {
				out = append(out, rune(0x100+k))
			}
			out = append(out, []rune(post)...)
		} else {
			out = []rune(rhs)
		}
		seen := map[rune]bool{}
		for _, r := range out {
			if count[r] == 0 || seen[r] {
				return nil, nil, fmt.Errorf("output label %q of %q is repeated or not an input label", r, sub)
			}
			seen[r] = true
		}
	} else {
		for k := ell - 1; k >= 0; k-- {
			out = append(out, rune(0x100+k))
		}
		var once []rune
		for r, n := range count {
			if n == 1 && r < 0x100 {
				once = append(once, r)
			}
		}
		sort.Slice(once, func(a, b int) bool { return once[a] < once[b] })
		out = append(out, once...)
	}
	return ins, out, nil
}

func inferEinsum(c *Call, _ *InferCtx) (StructInfo, error) {
	ts, err := tupleTensors(c, 0)
	if err != nil {
		return nil, err
	}
	dt, err := commonDType(c, ts)
	if err != nil {
		return nil, err
	}
	ranks := make([]int, len(ts))
	known := true
	for i, t := range ts {
		ranks[i] = t.NDim
		known = known && t.Shape != nil
	}
	sub := attrStr(c, "subscripts")
	ins, out, err := parseEinsum(sub, ranks)
	if err != nil {
		return nil, opErr(c, "%v", err)
	}
	if !known {
		return unknownTensor(len(out), dt), nil
	}
	size := map[rune]PrimExpr{}
	for i, l := range ins {
		for j, r := range l {
			d := ts[i].Shape[j]
			prev, ok := size[r]
			switch {
			case !ok || isOne(prev):
				size[r] = d
			case isOne(d):
			case provablyDifferent(prev, d):
				return nil, opErr(c, "label %q has sizes %s and %s", r, dimsString([]PrimExpr{prev}), dimsString([]PrimExpr{d}))
			}
		}
	}
	shape := make([]PrimExpr, len(out))
	for i, r := range out {
		shape[i] = size[r]
	}
	return &TensorSInfo{Shape: shape, NDim: len(shape), DType: dt}, nil
}

func isOne(e PrimExpr) bool {
	v, ok := AsInt(Simplify(e))
	return ok && v == 1
}
