package kernels

import (
	"fmt"
	"sort"
	"strings"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// einsumLabels expands NumPy einsum subscripts for operands of the given
// ranks (the same rules as ir's inference): one label list per operand and
// the output's; an ellipsis becomes labels 0x100+k.
func einsumLabels(sub string, ranks []int) ([][]rune, []rune, error) {
	sub = strings.ReplaceAll(sub, " ", "")
	lhs, rhs, explicit := strings.Cut(sub, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(ranks) {
		return nil, nil, fmt.Errorf("subscripts %q name %d operands, got %d", sub, len(terms), len(ranks))
	}
	ell := 0
	ellipsis := func(n int) []rune {
		var out []rune
		for k := n - 1; k >= 0; k-- {
			out = append(out, rune(0x100+k))
		}
		return out
	}
	ins := make([][]rune, len(terms))
	count := map[rune]int{}
	for i, t := range terms {
		pre, post, has := strings.Cut(t, "...")
		named := len([]rune(pre)) + len([]rune(post))
		if named > ranks[i] || (!has && named != ranks[i]) {
			return nil, nil, fmt.Errorf("subscript %q does not fit an operand of rank %d", t, ranks[i])
		}
		l := []rune(pre)
		if has {
			ell = max(ell, ranks[i]-named)
			l = append(l, ellipsis(ranks[i]-named)...)
		}
		l = append(l, []rune(post)...)
		ins[i] = l
		for _, r := range l {
			count[r]++
		}
	}
	var out []rune
	if explicit {
		pre, post, has := strings.Cut(rhs, "...")
		out = []rune(pre)
		if has {
			out = append(out, ellipsis(ell)...)
		}
		out = append(out, []rune(post)...)
		for _, r := range out {
			if count[r] == 0 {
				return nil, nil, fmt.Errorf("output label %q of %q is not an input label", r, sub)
			}
		}
	} else {
		out = ellipsis(ell)
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

// Einsum evaluates subscripts over operands into out (Relax einsum):
// out[o...] = sum over the other labels of the product of the operands;
// size-1 dims broadcast, a label repeated within an operand takes its
// diagonal. Products and sums are in float32 for float32/float16 (float16
// rounded at the end), float64 for float64, int64 for integers.
func Einsum(out *runtime.Tensor, operands []*runtime.Tensor, subscripts string) error {
	const name = "einsum"
	if len(operands) == 0 {
		return fmt.Errorf("%s: no operands", name)
	}
	if err := checkRank(name, operands...); err != nil {
		return err
	}
	dt := operands[0].DType()
	ranks := make([]int, len(operands))
	for i, t := range operands {
		if t.DType() != dt {
			return fmt.Errorf("%s: operands have dtypes %s and %s", name, dt, t.DType())
		}
		ranks[i] = t.NDim()
	}
	ins, outL, err := einsumLabels(subscripts, ranks)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	size := map[rune]int64{}
	for i, l := range ins {
		for j, r := range l {
			d := operands[i].Shape()[j]
			if p, ok := size[r]; !ok || p == 1 {
				size[r] = d
			} else if d != 1 && d != p {
				return fmt.Errorf("%s: label %q has sizes %d and %d", name, r, p, d)
			}
		}
	}
	// All labels: output labels first, then the summed ones.
	labels := append([]rune{}, outL...)
	isOut := map[rune]bool{}
	for _, r := range outL {
		isOut[r] = true
	}
	for _, l := range ins {
		for _, r := range l {
			if !isOut[r] {
				isOut[r] = true
				labels = append(labels, r)
			}
		}
	}
	oshape := make([]int64, len(outL))
	for i, r := range outL {
		oshape[i] = size[r]
	}
	if err := checkOut(name, out, oshape, dt); err != nil {
		return err
	}
	pos := map[rune]int{}
	for i, r := range labels {
		pos[r] = i
	}
	// strides[i][k]: element stride of operand i for label k (0 when absent or broadcast).
	strides := make([][]int64, len(operands))
	for i, l := range ins {
		st := make([]int64, len(operands[i].Shape()))
		stridesOf(operands[i].Shape(), st)
		strides[i] = make([]int64, len(labels))
		for j, r := range l {
			if operands[i].Shape()[j] != 1 {
				strides[i][pos[r]] += st[j]
			}
		}
	}
	dims := make([]int64, len(labels))
	for i, r := range labels {
		dims[i] = size[r]
	}
	nOut := prod(oshape)
	nRed := prod(dims[len(outL):])
	idx := make([]int64, len(labels))
	var readF func(t *runtime.Tensor, k int) float64
	switch {
	case dt == runtime.Float32 || dt == runtime.Float16:
		readF = func(t *runtime.Tensor, k int) float64 { return elemFloat(t, k) }
	}
	for o := int64(0); o < nOut; o++ {
		rem := o
		for k := len(outL) - 1; k >= 0; k-- {
			idx[k] = rem % dims[k]
			rem /= dims[k]
		}
		var acc32 float32
		var acc64 float64
		var accI int64
		for r := int64(0); r < nRed; r++ {
			rr := r
			for k := len(labels) - 1; k >= len(outL); k-- {
				idx[k] = rr % dims[k]
				rr /= dims[k]
			}
			var p32 float32 = 1
			var p64 float64 = 1
			var pI int64 = 1
			for i, t := range operands {
				var off int64
				for k, s := range strides[i] {
					off += idx[k] * s
				}
				switch {
				case readF != nil:
					p32 *= float32(readF(t, int(off)))
				case dt.IsFloat():
					p64 *= elemFloat(t, int(off))
				default:
					pI *= elemInt(t, int(off))
				}
			}
			acc32 += p32
			acc64 += p64
			accI += pI
		}
		switch {
		case dt == runtime.Float16:
			elems[uint16](out)[o] = half.Float32ToFloat16(acc32)
		case readF != nil:
			elems[float32](out)[o] = acc32
		case dt.IsFloat():
			setFloat(out, int(o), acc64)
		default:
			if err := setInt(out, int(o), accI, 0); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return nil
}

func init() {
	register("einsum", "operands (Tuple), subscripts (string), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"einsum", args)
		p.count(3)
		ts, sub, out := p.tensors(0), p.string(1), p.tensor(2)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Einsum(out, ts, sub))
	})
}
