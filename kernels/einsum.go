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
	if dt == runtime.Float32 && len(operands) == 2 && !einsumScalar && einsumGEMM(out, operands[0], operands[1], ins[0], ins[1], outL, size) {
		return nil
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

// einsumScalar makes Einsum take its element-at-a-time loops for every
// einsum (tests compare them with einsumGEMM).
var einsumScalar bool

// einsumGEMMMin is the least product per batch item (m*n*k) einsumGEMM
// takes; smaller ones (an elementwise product's 1) stay on the loops.
const einsumGEMMMin = 256

// einsumGEMM computes a float32 einsum of two operands that is a batched
// matrix product: every label once per operand, each either in both
// operands and the output (batch), in a and the output (m), in b and the
// output (n) or in both operands only (k, summed), none broadcast. a is
// copied into (batch, m, k) order and b into (batch, k, n) where they are
// not already, Sgemm multiplies each batch item, and the product goes to
// the output's label order. The sums are Sgemm's (blocked, in float32),
// not the loops' running sum: results differ from those by rounding. It
// reports false, having written nothing, for any other einsum. The loops
// take ~50 ns a multiply-add (an index decode and two element reads each):
// 4 heads of 128x128x64 scores, 'bhqd,bhkd->bhqk', 215-227 ms against
// 0.36-0.39 here (BenchmarkEinsum, 1 thread).
func einsumGEMM(out, a, b *runtime.Tensor, la, lb, lo []rune, size map[rune]int64) bool {
	inA, inB, inO := map[rune]int{}, map[rune]int{}, map[rune]int{}
	for _, m := range []struct {
		l []rune
		t map[rune]int
	}{{la, inA}, {lb, inB}, {lo, inO}} {
		for i, r := range m.l {
			if _, dup := m.t[r]; dup {
				return false
			}
			m.t[r] = i
		}
	}
	for i, r := range la {
		if a.Shape()[i] != size[r] || size[r] == 0 {
			return false
		}
	}
	for i, r := range lb {
		if b.Shape()[i] != size[r] || size[r] == 0 {
			return false
		}
	}
	var batch, ml, nl, kl []rune
	for _, r := range lo {
		_, ia := inA[r]
		_, ib := inB[r]
		switch {
		case ia && ib:
			batch = append(batch, r)
		case ia:
			ml = append(ml, r)
		default:
			nl = append(nl, r)
		}
	}
	for _, r := range la {
		_, ib := inB[r]
		_, io := inO[r]
		if !io && !ib {
			return false // summed over a alone
		}
		if !io {
			kl = append(kl, r)
		}
	}
	for _, r := range lb {
		_, ia := inA[r]
		_, io := inO[r]
		if !io && !ia {
			return false
		}
	}
	prodOf := func(ls []rune) int {
		p := 1
		for _, r := range ls {
			p *= int(size[r])
		}
		return p
	}
	nb, m, n, k := prodOf(batch), prodOf(ml), prodOf(nl), prodOf(kl)
	if m*n*k < einsumGEMMMin {
		return false
	}
	// The element stride of each label in a, b and the product C (batch,
	// m, n rows-major), and a gather plan reading one of them in a label
	// order (stridedPlan: the order's sizes, the label's strides there).
	// Where a plan coalesces to one unit-stride run, the operand is already
	// in that order and is used in place.
	labelStrides := func(labels []rune) map[rune]int64 {
		st, s := map[rune]int64{}, int64(1)
		for i := len(labels) - 1; i >= 0; i-- {
			st[labels[i]] = s
			s *= size[labels[i]]
		}
		return st
	}
	planOf := func(order []rune, st map[rune]int64) bplan {
		var dims, strides [2 * maxRank]int64
		for i, r := range order {
			dims[i], strides[i] = size[r], st[r]
		}
		return stridedPlan(dims[:len(order)], strides[:len(order)])
	}
	inPlace := func(p *bplan) bool { return p.nd == 1 && (p.dims[0] == 1 || p.st[0][0] == 1) }
	cat := func(ls ...[]rune) []rune { return append(append(append([]rune(nil), ls[0]...), ls[1]...), ls[2]...) }
	ap, bp, cp, od := a.Float32s(), b.Float32s(), out.Float32s(), out.Float32s()
	if p := planOf(cat(batch, ml, kl), labelStrides(la)); !inPlace(&p) {
		buf := getScratch(nb * m * k)
		defer putScratch(buf)
		gather32(&p, 0, *buf, ap)
		ap = *buf
	}
	if p := planOf(cat(batch, kl, nl), labelStrides(lb)); !inPlace(&p) {
		buf := getScratch(nb * k * n)
		defer putScratch(buf)
		gather32(&p, 0, *buf, bp)
		bp = *buf
	}
	// The output read from C in its own label order.
	po := planOf(lo, labelStrides(cat(batch, ml, nl)))
	direct := inPlace(&po)
	if !direct {
		buf := getScratch(nb * m * n)
		defer putScratch(buf)
		cp = *buf
	}
	for bi := 0; bi < nb; bi++ {
		if err := Sgemm(false, false, m, n, k, 1, ap[bi*m*k:], k, bp[bi*k*n:], n, 0, cp[bi*m*n:], n); err != nil {
			panic(fmt.Sprintf("einsum: %v", err)) // sizes checked above
		}
	}
	if !direct {
		gather32(&po, 0, od, cp)
	}
	return true
}
