package kernels

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
)

// stridedPlan builds a one-input plan for writing a contiguous output of shape
// dims whose element at multi-index i is x[base + sum(i[k]*strides[k])].
// Size-1 dims are dropped and mergeable neighbours coalesced.
func stridedPlan(dims, strides []int64) bplan {
	var p bplan
	p.n = 1
	for i := range dims {
		if dims[i] == 1 {
			continue
		}
		d, s := int(dims[i]), int(strides[i])
		if p.nd > 0 && p.st[0][p.nd-1] == s*d {
			p.dims[p.nd-1] *= d
			p.st[0][p.nd-1] = s
			continue
		}
		p.dims[p.nd] = d
		p.st[0][p.nd] = s
		p.nd++
	}
	if p.nd == 0 {
		p.nd = 1
		p.dims[0] = 1
	}
	p.inner = p.dims[p.nd-1]
	p.rows = 1
	for i := 0; i < p.nd-1; i++ {
		p.rows *= p.dims[i]
	}
	return p
}

// gatherStrided fills out (contiguous) from x following plan p and base
// offset base (in elements), dispatching on the element size.
func gatherStrided(out, x *runtime.Tensor, p *bplan, base int) error {
	if out.NumElements() == 0 {
		return nil
	}
	switch x.DType().ElemBytes() {
	case 1:
		runGather(p, base, elems[uint8](out), elems[uint8](x))
	case 2:
		runGather(p, base, elems[uint16](out), elems[uint16](x))
	case 4:
		runGather(p, base, elems[uint32](out), elems[uint32](x))
	case 8:
		runGather(p, base, elems[uint64](out), elems[uint64](x))
	default:
		return fmt.Errorf("unsupported element size %d", x.DType().ElemBytes())
	}
	return nil
}

func runGather[T any](p *bplan, base int, o, x []T) {
	total := p.rows * p.inner
	if total < parThreshold || p.rows == 1 || NumThreads() <= 1 {
		gatherRows(p, base, o, x, 0, p.rows)
		return
	}
	pc := *p
	parFor(pc.rows, rowGrain(pc.inner), func(lo, hi int) { gatherRows(&pc, base, o, x, lo, hi) })
}

// gatherRows copies output rows [lo, hi).
func gatherRows[T any](p *bplan, base int, o, x []T, lo, hi int) {
	inner := p.inner
	s := p.st[0][p.nd-1]
	var c bcur
	p.seek(&c, lo)
	for r := lo; r < hi; r++ {
		ro := o[r*inner : (r+1)*inner]
		xi := base + c.off[0]
		switch s {
		case 1:
			copy(ro, x[xi:xi+inner])
		case 0:
			v := x[xi]
			for i := range ro {
				ro[i] = v
			}
		default:
			for i := range ro {
				ro[i] = x[xi]
				xi += s
			}
		}
		p.next(&c)
	}
}

// transpose2D writes the (rows, cols) matrix x transposed into o (cols, rows)
// in cache-sized tiles.
func transpose2D[T any](o, x []T, rows, cols int) {
	const tile = 32
	for i0 := 0; i0 < rows; i0 += tile {
		i1 := min(i0+tile, rows)
		for j0 := 0; j0 < cols; j0 += tile {
			j1 := min(j0+tile, cols)
			for i := i0; i < i1; i++ {
				xr := x[i*cols : i*cols+cols]
				for j := j0; j < j1; j++ {
					o[j*rows+i] = xr[j]
				}
			}
		}
	}
}
