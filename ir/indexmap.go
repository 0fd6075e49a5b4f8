package ir

import (
	"fmt"
	"strings"
)

// IndexMap is TIR's index map, `T.index_map(lambda i, j: (j, i // 4, i % 4))`:
// the index of an element in a new layout as a function of its index in the
// old one. Params are the lambda's parameters (bound only inside Results).
// It is the value of relax.layout_transform's index_map attribute.
type IndexMap struct {
	Params  []*PrimVar
	Results []PrimExpr
}

// String prints the map as a lambda.
func (m *IndexMap) String() string {
	ps := make([]string, len(m.Params))
	for i, p := range m.Params {
		ps[i] = p.Name
	}
	rs := make([]string, len(m.Results))
	for i, r := range m.Results {
		rs[i] = ExprString(r)
	}
	tail := ""
	if len(rs) == 1 {
		tail = ","
	}
	return "lambda " + strings.Join(ps, ", ") + ": (" + strings.Join(rs, ", ") + tail + ")"
}

// Index-map program opcodes (IndexMap.Program): a token is an opcode, and
// IdxConst and IdxParam take the following token as their operand; the
// binary opcodes pop b then a and push a op b.
const (
	IdxConst = iota // push the next token
	IdxParam        // push parameter number <next token>
	IdxAdd
	IdxSub
	IdxMul
	IdxTruncDiv
	IdxTruncMod
	IdxFloorDiv
	IdxFloorMod
	IdxMin
	IdxMax
)

var idxOps = map[BinOp]int64{
	OpAdd: IdxAdd, OpSub: IdxSub, OpMul: IdxMul, OpDiv: IdxTruncDiv, OpMod: IdxTruncMod,
	OpFloorDiv: IdxFloorDiv, OpFloorMod: IdxFloorMod, OpMin: IdxMin, OpMax: IdxMax,
}

// Program encodes the map as integers a kernel can evaluate without the IR:
// [len(Params), len(Results), then for each result its token count and its
// tokens in postfix order]. Only integer arithmetic (+ - * // % min max and
// truncating / %) over the parameters and constants is encodable.
func (m *IndexMap) Program() ([]int64, error) {
	params := make(map[*PrimVar]int64, len(m.Params))
	for i, p := range m.Params {
		params[p] = int64(i)
	}
	prog := []int64{int64(len(m.Params)), int64(len(m.Results))}
	var emit func(e PrimExpr, toks []int64) ([]int64, error)
	emit = func(e PrimExpr, toks []int64) ([]int64, error) {
		switch x := e.(type) {
		case *IntImm:
			return append(toks, IdxConst, x.Value), nil
		case *PrimVar:
			i, ok := params[x]
			if !ok {
				return nil, fmt.Errorf("index map %s reads %s, which is not one of its parameters", m, x.Name)
			}
			return append(toks, IdxParam, i), nil
		case *Cast:
			if x.Type.IsInt() || x.Type.IsUInt() {
				return emit(x.Value, toks)
			}
		case *Binary:
			op, ok := idxOps[x.Op]
			if !ok {
				break
			}
			toks, err := emit(x.A, toks)
			if err != nil {
				return nil, err
			}
			if toks, err = emit(x.B, toks); err != nil {
				return nil, err
			}
			return append(toks, op), nil
		}
		return nil, fmt.Errorf("index map %s: %s is not integer arithmetic on its parameters", m, ExprString(e))
	}
	for _, r := range m.Results {
		toks, err := emit(r, nil)
		if err != nil {
			return nil, err
		}
		prog = append(prog, int64(len(toks)))
		prog = append(prog, toks...)
	}
	return prog, nil
}

// MapShape is the shape of the layout the map produces from a tensor of
// shape in, as TVM's IndexMap.MapShape computes it: each result's extent is
// the size of its range over the input index domain. A result that is one
// parameter takes that dimension (symbolic or not); other results need a
// static input shape (ok is false otherwise). Ranges are found by interval
// arithmetic, as TVM's iterator analysis finds them for the affine maps
// layouts use (splits i//c, i%c with i%c spanning all of [0, c), fusions
// i*c+j, permutations).
func (m *IndexMap) MapShape(in []PrimExpr) (out []PrimExpr, ok bool, err error) {
	if len(in) != len(m.Params) {
		return nil, false, fmt.Errorf("the index map takes %d indices, the input has rank %d", len(m.Params), len(in))
	}
	dom := make(map[*PrimVar][2]int64, len(in))
	static := true
	for i, p := range m.Params {
		n, isInt := AsInt(in[i])
		if !isInt {
			static = false
			continue
		}
		if n <= 0 {
			// An empty input maps to an empty output of every result.
			dom[p] = [2]int64{0, -1}
			continue
		}
		dom[p] = [2]int64{0, n - 1}
	}
	out = make([]PrimExpr, len(m.Results))
	for i, r := range m.Results {
		if v, isVar := r.(*PrimVar); isVar {
			for j, p := range m.Params {
				if p == v {
					out[i] = in[j]
				}
			}
			if out[i] != nil {
				continue
			}
		}
		if !static {
			return nil, false, nil
		}
		lo, hi, err := intervalOf(r, dom)
		if err != nil {
			return nil, false, fmt.Errorf("index map %s: %w", m, err)
		}
		if hi < lo {
			out[i] = Int64(0)
			continue
		}
		if lo < 0 {
			return nil, false, fmt.Errorf("index map %s: result %d can be negative (%d) over the input shape", m, i, lo)
		}
		out[i] = Int64(hi - lo + 1)
	}
	return out, true, nil
}

// intervalOf bounds e over the parameter ranges dom ([lo, hi], empty when
// hi < lo).
func intervalOf(e PrimExpr, dom map[*PrimVar][2]int64) (lo, hi int64, err error) {
	switch x := e.(type) {
	case *IntImm:
		return x.Value, x.Value, nil
	case *PrimVar:
		r, ok := dom[x]
		if !ok {
			return 0, 0, fmt.Errorf("%s is not a parameter", x.Name)
		}
		return r[0], r[1], nil
	case *Cast:
		return intervalOf(x.Value, dom)
	case *Binary:
		alo, ahi, err := intervalOf(x.A, dom)
		if err != nil {
			return 0, 0, err
		}
		blo, bhi, err := intervalOf(x.B, dom)
		if err != nil {
			return 0, 0, err
		}
		if ahi < alo || bhi < blo {
			return 0, -1, nil
		}
		switch x.Op {
		case OpAdd:
			return alo + blo, ahi + bhi, nil
		case OpSub:
			return alo - bhi, ahi - blo, nil
		case OpMul:
			c := [4]int64{alo * blo, alo * bhi, ahi * blo, ahi * bhi}
			return min(c[0], c[1], c[2], c[3]), max(c[0], c[1], c[2], c[3]), nil
		case OpMin:
			return min(alo, blo), min(ahi, bhi), nil
		case OpMax:
			return max(alo, blo), max(ahi, bhi), nil
		case OpFloorDiv, OpDiv, OpFloorMod, OpMod:
			if blo != bhi || blo <= 0 {
				return 0, 0, fmt.Errorf("%s: only division by a positive constant is supported", ExprString(e))
			}
			c := blo
			if (x.Op == OpDiv || x.Op == OpMod) && alo < 0 {
				return 0, 0, fmt.Errorf("%s: truncating division of a possibly negative value", ExprString(e))
			}
			if x.Op == OpFloorDiv || x.Op == OpDiv {
				return FloorDivInt(alo, c), FloorDivInt(ahi, c), nil
			}
			// TVM's iterator analysis gives a modulus its whole range
			// (i % 16 over 14 values has extent 16: the padding).
			return 0, c - 1, nil
		}
	}
	return 0, 0, fmt.Errorf("%s is not integer arithmetic on the parameters", ExprString(e))
}
