package kernels

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
)

// Index-map program opcodes, as ir.IndexMap.Program encodes them.
const (
	idxConst = iota
	idxParam
	idxAdd
	idxSub
	idxMul
	idxTruncDiv
	idxTruncMod
	idxFloorDiv
	idxFloorMod
	idxMin
	idxMax
)

// indexProgram is a decoded index-map program: per result, postfix tokens.
type indexProgram struct {
	params  int
	results [][]int64
	stack   []int64
}

// decodeIndexProgram checks and splits prog ([nparams, nresults, then for
// each result its token count and tokens]); every result must leave exactly
// one value on the stack.
func decodeIndexProgram(name string, prog []int64) (*indexProgram, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: malformed index-map program: "+format, append([]any{name}, a...)...)
	}
	if len(prog) < 2 || prog[0] < 0 || prog[0] > maxRank || prog[1] < 0 || prog[1] > maxRank {
		return nil, bad("header %v", prog[:min(len(prog), 2)])
	}
	p := &indexProgram{params: int(prog[0])}
	rest := prog[2:]
	depth := 0
	for r := int64(0); r < prog[1]; r++ {
		if len(rest) == 0 || rest[0] < 0 || rest[0] > int64(len(rest)-1) {
			return nil, bad("result %d: length out of range", r)
		}
		toks := rest[1 : 1+rest[0]]
		rest = rest[1+rest[0]:]
		sp := 0
		for i := 0; i < len(toks); i++ {
			switch op := toks[i]; {
			case op == idxConst || op == idxParam:
				if i+1 >= len(toks) {
					return nil, bad("result %d: operand missing", r)
				}
				if op == idxParam && (toks[i+1] < 0 || toks[i+1] >= prog[0]) {
					return nil, bad("result %d: parameter %d of %d", r, toks[i+1], prog[0])
				}
				i++
				sp++
				depth = max(depth, sp)
			case op >= idxAdd && op <= idxMax:
				if sp < 2 {
					return nil, bad("result %d: stack underflow", r)
				}
				sp--
			default:
				return nil, bad("result %d: opcode %d", r, op)
			}
		}
		if sp != 1 {
			return nil, bad("result %d leaves %d values", r, sp)
		}
		p.results = append(p.results, toks)
	}
	if len(rest) != 0 {
		return nil, bad("%d trailing tokens", len(rest))
	}
	p.stack = make([]int64, depth)
	return p, nil
}

// eval computes result r at the input index idx.
func (p *indexProgram) eval(r int, idx []int64) (int64, error) {
	st := p.stack[:0]
	toks := p.results[r]
	for i := 0; i < len(toks); i++ {
		switch op := toks[i]; op {
		case idxConst:
			i++
			st = append(st, toks[i])
		case idxParam:
			i++
			st = append(st, idx[toks[i]])
		default:
			a, b := st[len(st)-2], st[len(st)-1]
			st = st[:len(st)-1]
			var v int64
			switch op {
			case idxAdd:
				v = a + b
			case idxSub:
				v = a - b
			case idxMul:
				v = a * b
			case idxMin:
				v = min(a, b)
			case idxMax:
				v = max(a, b)
			default:
				if b == 0 {
					return 0, fmt.Errorf("division by zero")
				}
				switch op {
				case idxTruncDiv:
					v = a / b
				case idxTruncMod:
					v = a % b
				case idxFloorDiv:
					v = a / b
					if (a%b != 0) && ((a < 0) != (b < 0)) {
						v--
					}
				default:
					v = a % b
					if v != 0 && ((v < 0) != (b < 0)) {
						v += b
					}
				}
			}
			st[len(st)-1] = v
		}
	}
	return st[0], nil
}

// LayoutTransform is Relax layout_transform: out[m(i)] = x[i] for every index
// i of x, where m is the index map encoded in prog (ir.IndexMap.Program);
// elements of out that no index maps to hold pad (nil: zero). An index
// mapped outside out is an error.
func LayoutTransform(out, x *runtime.Tensor, prog []int64, pad runtime.Value) error {
	const name = "layout_transform"
	if err := checkRank(name, out, x); err != nil {
		return err
	}
	p, err := decodeIndexProgram(name, prog)
	if err != nil {
		return err
	}
	xs, os := x.Shape(), out.Shape()
	if p.params != len(xs) || len(p.results) != len(os) {
		return fmt.Errorf("%s: the index map takes %d indices to %d, got input %s and output %s", name, p.params, len(p.results), x, out)
	}
	if out.DType() != x.DType() {
		return fmt.Errorf("%s: output dtype %s, want %s", name, out.DType(), x.DType())
	}
	eb := int64(x.DType().ElemBytes())
	ob, xb := out.Bytes(), x.Bytes()
	if sameData(out, x) {
		xb = append([]byte(nil), xb...)
	}
	n, total := prod(xs), prod(os)
	if total != n || pad != nil {
		if pad == nil {
			clear(ob)
		} else if b, ok := pad.(bool); ok {
			v := int64(0)
			if b {
				v = 1
			}
			if err := fillFrom(name, out, v); err != nil {
				return err
			}
		} else if err := fillFrom(name, out, pad); err != nil {
			return err
		}
	}
	var ost [maxRank]int64
	stridesOf(os, ost[:len(os)])
	var idx [maxRank]int64
	for i := int64(0); i < n; i++ {
		unravelIndex(idx[:len(xs)], i, xs)
		var off int64
		for r := range p.results {
			v, err := p.eval(r, idx[:len(xs)])
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if v < 0 || v >= os[r] {
				return fmt.Errorf("%s: input index %v maps to %d in output dimension %d of extent %d", name, idx[:len(xs)], v, r, os[r])
			}
			off += v * ost[r]
		}
		copy(ob[off*eb:(off+1)*eb], xb[i*eb:(i+1)*eb])
	}
	return nil
}

func init() {
	register("layout_transform", "x, index_map (Shape: ir.IndexMap.Program), pad_value (int64, float64 or nil = 0), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"layout_transform", args)
			if !p.count(4) {
				return nil, p.err
			}
			x, prog, pad, out := p.tensor(0), p.ints(1), args[2], p.tensor(3)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(LayoutTransform(out, x, prog, pad))
		})
}
