package kernels

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
)

// broadcastShape computes the NumPy broadcast of shapes into dst (reusing its
// storage) and returns it.
func broadcastShape(op string, dst []int64, shapes ...[]int64) ([]int64, error) {
	nd := 0
	for _, s := range shapes {
		if len(s) > nd {
			nd = len(s)
		}
	}
	if nd > maxRank {
		return nil, fmt.Errorf("%s: rank %d exceeds the supported maximum of %d", op, nd, maxRank)
	}
	dst = dst[:0]
	for i := 0; i < nd; i++ {
		d := int64(1)
		for _, s := range shapes {
			j := i - (nd - len(s))
			if j < 0 {
				continue
			}
			e := s[j]
			switch {
			case e == d || e == 1:
			case d == 1:
				d = e
			default:
				return nil, fmt.Errorf("%s: shapes %s are not broadcast-compatible at axis %d (%d vs %d)",
					op, fmtShapes(shapes), i, d, e)
			}
		}
		dst = append(dst, d)
	}
	return dst, nil
}

func fmtShapes(shapes [][]int64) string {
	s := ""
	for i, sh := range shapes {
		if i > 0 {
			s += " and "
		}
		s += runtime.Shape(sh).String()
	}
	return s
}

// bplan is an iteration plan for a broadcast elementwise op with up to three
// inputs: the output shape coalesced into nd dims, each input's element
// strides (0 on broadcast dims), and the innermost row length. Rows of the
// output are contiguous; an input's innermost stride is 0 or 1.
type bplan struct {
	nd    int
	n     int // number of inputs
	dims  [maxRank]int
	st    [3][maxRank]int
	inner int // dims[nd-1]
	rows  int // product of dims[:nd-1]
}

// makePlan builds the plan for output shape out and inputs ins (each
// broadcastable to out; rank <= len(out)).
func makePlan(out []int64, ins ...[]int64) bplan {
	var p bplan
	p.n = len(ins)
	// Every input of the output's shape (the common case): one contiguous
	// row, which the general coalescing below would also reach.
	if n, ok := sameShapes(out, ins); ok && n > 1 {
		p.nd, p.dims[0], p.inner, p.rows = 1, n, n, 1
		for j := range ins {
			p.st[j][0] = 1
		}
		return p
	}
	return makePlanGeneral(out, ins...)
}

// makePlanGeneral is makePlan without the same-shape shortcut.
func makePlanGeneral(out []int64, ins ...[]int64) bplan {
	var p bplan
	p.n = len(ins)
	nd := len(out)
	// strides of each input against the output's dims, skipping size-1 output dims
	var dims [maxRank]int
	var st [3][maxRank]int
	k := 0
	for i := 0; i < nd; i++ {
		if out[i] == 1 {
			continue
		}
		dims[k] = int(out[i])
		k++
	}
	for j, s := range ins {
		stride := 1
		kk := k
		for i := nd - 1; i >= 0; i-- {
			if out[i] == 1 {
				continue
			}
			kk--
			si := i - (nd - len(s))
			if si >= 0 && s[si] != 1 {
				st[j][kk] = stride
				stride *= int(s[si])
			} else {
				st[j][kk] = 0
			}
		}
	}
	if k == 0 {
		p.nd = 1
		p.dims[0] = 1
		p.inner = 1
		p.rows = 1
		return p
	}
	// Coalesce adjacent dims where every input is mergeable: the stride of
	// the merged dim so far (the stride of its innermost original dim) is
	// the next dim's stride times its size.
	p.nd = 0
	for i := 0; i < k; i++ {
		if p.nd > 0 {
			last := p.nd - 1
			ok := true
			for j := 0; j < p.n; j++ {
				if p.st[j][last] != st[j][i]*dims[i] {
					ok = false
					break
				}
			}
			if ok {
				p.dims[last] *= dims[i]
				for j := 0; j < p.n; j++ {
					p.st[j][last] = st[j][i]
				}
				continue
			}
		}
		p.dims[p.nd] = dims[i]
		for j := 0; j < p.n; j++ {
			p.st[j][p.nd] = st[j][i]
		}
		p.nd++
	}
	p.inner = p.dims[p.nd-1]
	p.rows = 1
	for i := 0; i < p.nd-1; i++ {
		p.rows *= p.dims[i]
	}
	return p
}

// sameShapes reports whether every shape in ins equals out, and out's
// element count.
func sameShapes(out []int64, ins [][]int64) (int, bool) {
	for _, s := range ins {
		if len(s) != len(out) {
			return 0, false
		}
		for i, d := range s {
			if d != out[i] {
				return 0, false
			}
		}
	}
	n := 1
	for _, d := range out {
		n *= int(d)
	}
	return n, true
}

// innerStride is input j's stride along the innermost dim (0 or 1).
func (p *bplan) innerStride(j int) int { return p.st[j][p.nd-1] }

// bcur walks the rows of a plan: idx is the outer multi-index, off the
// element offset of each input at the start of the current row.
type bcur struct {
	idx [maxRank]int
	off [3]int
}

// seek positions c at row r.
func (p *bplan) seek(c *bcur, r int) {
	c.off = [3]int{}
	for d := p.nd - 2; d >= 0; d-- {
		i := r % p.dims[d]
		r /= p.dims[d]
		c.idx[d] = i
		for j := 0; j < p.n; j++ {
			c.off[j] += i * p.st[j][d]
		}
	}
}

// next advances c to the following row.
func (p *bplan) next(c *bcur) {
	for d := p.nd - 2; d >= 0; d-- {
		c.idx[d]++
		for j := 0; j < p.n; j++ {
			c.off[j] += p.st[j][d]
		}
		if c.idx[d] < p.dims[d] {
			return
		}
		for j := 0; j < p.n; j++ {
			c.off[j] -= p.st[j][d] * p.dims[d]
		}
		c.idx[d] = 0
	}
}

// rowSlice is input j's data for the current row: the whole row when its
// inner stride is 1, a single element when 0.
func rowSlice[T any](p *bplan, c *bcur, j int, x []T) []T {
	o := c.off[j]
	if p.st[j][p.nd-1] == 0 {
		return x[o : o+1]
	}
	return x[o : o+p.inner]
}

// rowGrain is the number of rows per parallel chunk so that each chunk holds
// about parGrain elements.
func rowGrain(inner int) int { return grainRows(parGrain, inner) }

// grainRows is the number of rows of inner elements per parallel chunk so
// that each chunk holds about grain elements (at least one row).
func grainRows(grain, inner int) int {
	if inner <= 0 {
		return 1
	}
	return max(1, grain/inner)
}
