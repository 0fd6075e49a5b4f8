package onnx

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// GridSample (4-D and 5-D; linear, nearest, and cubic) without a dedicated
// kernel, following ONNX's reference: sample coordinates are computed
// elementwise, and each tap is a gather_elements on the flattened image,
// weighted and masked per the padding mode.

func convGridSample(c *Ctx, n *Node) ([]*Value, error) {
	x, grid := n.In[0], n.In[1]
	xd, ok1 := x.StaticDims()
	gd, ok2 := grid.StaticDims()
	if !ok1 || !ok2 || len(xd) < 4 || len(xd) > 5 || len(gd) != len(xd) || gd[len(gd)-1] != int64(len(xd)-2) || gd[0] != xd[0] {
		return nil, n.unsupported("only 4-D and 5-D inputs with static shapes are supported")
	}
	if !x.DType().IsFloat() || grid.DType() != x.DType() {
		return nil, n.unsupported("input types %s and %s", x.DType(), grid.DType())
	}
	nd := len(xd) - 2
	mode := n.Str("mode", "bilinear")
	switch mode {
	case "bilinear", "linear":
		mode = "linear"
	case "bicubic", "cubic":
		mode = "cubic"
		if nd != 2 {
			return nil, n.unsupported("cubic mode on %d-D images", nd)
		}
	case "nearest":
	default:
		return nil, n.unsupported("mode=%q", mode)
	}
	pad := n.Str("padding_mode", "zeros")
	if pad != "zeros" && pad != "border" && pad != "reflection" {
		return nil, n.unsupported("padding_mode=%q", pad)
	}
	align := n.Int("align_corners", 0) != 0
	N, C := xd[0], xd[1]
	S := xd[2:]           // spatial sizes, outermost first
	outSp := gd[1 : 1+nd] // output spatial sizes
	P := prod(outSp)      // output points per image
	total := prod(S)
	if P <= 0 || total <= 0 {
		return nil, n.unsupported("grid of %v points on an image of %v", outSp, S)
	}
	f := &formula{c: c}
	bounds := func(size int64) (float64, float64) {
		if align {
			return 0, float64(size - 1)
		}
		return -0.5, float64(size) - 0.5
	}
	// reflect maps v into [lo, hi] by reflecting at the borders.
	reflect := func(v *Value, size int64) *Value {
		lo, hi := bounds(size)
		span := hi - lo
		if span <= 0 {
			return f.bin("relax.multiply", v, f.k(0, v))
		}
		t := f.bin("relax.floor_mod", f.un("relax.abs", f.bin("relax.subtract", v, f.k(lo, v))), f.k(2*span, v))
		t = f.where(f.bin("relax.greater", t, f.k(span, v)), f.bin("relax.subtract", f.k(2*span, v), t), t)
		return f.bin("relax.add", t, f.k(lo, v))
	}
	// coords[i] is the unnormalized coordinate along spatial dim i; the grid's
	// last axis lists them innermost first (x, y[, z]).
	coords := make([]*Value, nd)
	for i := 0; i < nd; i++ {
		if f.err != nil {
			return nil, f.err
		}
		g, err := c.sliceAt(grid, len(gd)-1, int64(nd-1-i))
		if err != nil {
			return nil, err
		}
		size := S[i]
		one := f.k(1, g)
		var v *Value
		if align {
			v = f.bin("relax.multiply", f.bin("relax.divide", f.bin("relax.add", g, one), f.k(2, g)), f.k(float64(size-1), g))
		} else {
			v = f.bin("relax.divide", f.bin("relax.subtract", f.bin("relax.multiply", f.bin("relax.add", g, one), f.k(float64(size), g)), one), f.k(2, g))
		}
		if mode == "nearest" {
			// round half to even (numpy's rint, which the test data follows for 2-D and 3-D)
			v = f.un("relax.round", v)
		}
		switch pad {
		case "border":
			v = f.bin("relax.minimum", f.bin("relax.maximum", v, f.k(0, g)), f.k(float64(size-1), g))
		case "reflection":
			v = reflect(v, size)
		}
		coords[i] = v
	}
	if f.err != nil {
		return nil, f.err
	}
	flat, err := c.Emit("relax.reshape", []ir.Expr{x.Expr, staticShape([]int64{N, C, total})})
	if err != nil {
		return nil, err
	}
	strides := make([]int64, nd)
	st := int64(1)
	for i := nd - 1; i >= 0; i-- {
		strides[i] = st
		st *= S[i]
	}
	// tap gathers x at integer coordinates idx (float tensors of the grid's
	// point shape) as (N, C, P): masked outside the image (zeros padding),
	// else with the coordinates clamped (border, linear reflection) or
	// reflected (cubic reflection, as the reference's pixel lookup).
	tap := func(idx []*Value) *Value {
		if f.err != nil {
			return nil
		}
		var inside, flatIdx *Value
		for i, v := range idx {
			size := S[i]
			if pad == "reflection" && mode == "cubic" {
				r := reflect(v, size)
				v = f.bin("relax.maximum", f.un("relax.floor", r), f.k(0, r)) // int() of a value >= -0.5
			}
			in := f.bin("relax.logical_and", f.bin("relax.greater_equal", v, f.k(0, v)), f.bin("relax.less_equal", v, f.k(float64(size-1), v)))
			if inside == nil {
				inside = in
			} else {
				inside = f.bin("relax.logical_and", inside, in)
			}
			cv := f.bin("relax.multiply", f.bin("relax.minimum", f.bin("relax.maximum", v, f.k(0, v)), f.k(float64(size-1), v)), f.k(float64(strides[i]), v))
			if flatIdx == nil {
				flatIdx = cv
			} else {
				flatIdx = f.bin("relax.add", flatIdx, cv)
			}
		}
		ii := f.un("relax.astype", flatIdx, Attr("dtype", runtime.Int64))
		if f.err != nil {
			return nil
		}
		r, err := c.Emit("relax.reshape", []ir.Expr{ii.Expr, staticShape([]int64{N, 1, P})})
		if err != nil {
			f.err = err
			return nil
		}
		b, err := c.Emit("relax.broadcast_to", []ir.Expr{r.Expr, staticShape([]int64{N, C, P})})
		if err != nil {
			f.err = err
			return nil
		}
		v, err := c.Emit("relax.gather_elements", []ir.Expr{flat.Expr, b.Expr}, Attr("axis", int64(2)))
		if err != nil {
			f.err = err
			return nil
		}
		if pad == "zeros" {
			m, err := c.Emit("relax.reshape", []ir.Expr{f.un("relax.astype", inside, Attr("dtype", x.DType())).Expr, staticShape([]int64{N, 1, P})})
			if err != nil {
				f.err = err
				return nil
			}
			v = f.bin("relax.multiply", v, m)
		}
		return v
	}
	weight := func(w *Value) *Value {
		if f.err != nil {
			return nil
		}
		r, err := c.Emit("relax.reshape", []ir.Expr{w.Expr, staticShape([]int64{N, 1, P})})
		f.err = err
		return r
	}
	// Per dim: the tap offsets from floor(coord) and their weights in t = coord - floor.
	type tapW struct {
		off int64
		w   *Value
	}
	var y *Value
	if mode == "nearest" {
		y = tap(coords)
	} else {
		base := make([]*Value, nd)
		per := make([][]tapW, nd)
		for i, v := range coords {
			b := f.un("relax.floor", v)
			t := f.bin("relax.subtract", v, b)
			base[i] = b
			if mode == "linear" {
				per[i] = []tapW{{0, f.bin("relax.subtract", f.k(1, t), t)}, {1, t}}
				continue
			}
			const A = -0.75
			t1 := f.bin("relax.add", t, f.k(1, t))
			u := f.bin("relax.subtract", f.k(1, t), t)
			u1 := f.bin("relax.add", u, f.k(1, u))
			// Keys' cubic: far taps A|s|^3 - 5A|s|^2 + 8A|s| - 4A, near (A+2)|s|^3 - (A+3)|s|^2 + 1.
			far := func(s *Value) *Value {
				return f.bin("relax.subtract", f.bin("relax.multiply", f.bin("relax.add", f.bin("relax.multiply",
					f.bin("relax.subtract", f.bin("relax.multiply", f.k(A, s), s), f.k(5*A, s)), s), f.k(8*A, s)), s), f.k(4*A, s))
			}
			near := func(s *Value) *Value {
				return f.bin("relax.add", f.bin("relax.multiply", f.bin("relax.multiply",
					f.bin("relax.subtract", f.bin("relax.multiply", f.k(A+2, s), s), f.k(A+3, s)), s), s), f.k(1, s))
			}
			per[i] = []tapW{{-1, far(t1)}, {0, near(t)}, {1, near(u)}, {2, far(u1)}}
		}
		// Sum over every combination of per-dim taps.
		var rec func(i int, idx []*Value, w *Value)
		rec = func(i int, idx []*Value, w *Value) {
			if f.err != nil {
				return
			}
			if i == nd {
				term := f.bin("relax.multiply", tap(idx), weight(w))
				if y == nil {
					y = term
				} else {
					y = f.bin("relax.add", y, term)
				}
				return
			}
			for _, tw := range per[i] {
				p := base[i]
				if tw.off != 0 {
					p = f.bin("relax.add", base[i], f.k(float64(tw.off), base[i]))
				}
				ww := tw.w
				if w != nil {
					ww = f.bin("relax.multiply", w, tw.w)
				}
				rec(i+1, append(append([]*Value{}, idx...), p), ww)
			}
		}
		rec(0, nil, nil)
	}
	if f.err != nil {
		return nil, f.err
	}
	return one(c.Emit("relax.reshape", []ir.Expr{y.Expr, staticShape(append([]int64{N, C}, outSp...))}))
}

// convAffineGrid: grid = base @ theta^T, with the base grid of normalized
// coordinates (x, y[, z], 1) built at import time from the known size.
func convAffineGrid(c *Ctx, n *Node) ([]*Value, error) {
	if err := needInputs(n, 2); err != nil {
		return nil, err
	}
	theta := n.In[0]
	size, ok := n.In[1].Ints()
	if !ok || (len(size) != 4 && len(size) != 5) {
		return nil, n.unsupported("size must be known at import time (4 or 5 values)")
	}
	sp := size[2:] // (H, W) or (D, H, W)
	nd := int64(len(sp))
	td, ok := theta.StaticDims()
	if !ok || len(td) != 3 || td[1] != nd || td[2] != nd+1 || td[0] != size[0] {
		return nil, fmt.Errorf("theta shape %v for size %v", td, size)
	}
	total := prod(sp)
	if total <= 0 || total > maxFoldElems/4 {
		return nil, n.unsupported("grid of %v points", sp)
	}
	align := n.Int("align_corners", 0) != 0
	lin := func(i, k int64) float64 {
		if align {
			if k == 1 {
				return -1
			}
			return -1 + 2*float64(i)/float64(k-1)
		}
		return (2*float64(i)+1)/float64(k) - 1
	}
	base, err := runtime.NewTensor([]int64{total, nd + 1}, theta.DType())
	if err != nil {
		return nil, n.unsupported("%v", err)
	}
	idx := make([]int64, nd)
	for p := int64(0); p < total; p++ {
		unravel(p, sp, idx)
		// coordinates in (x, y, z) order: x follows the last axis
		for a := int64(0); a < nd; a++ {
			ax := nd - 1 - a
			setElem(base, int(p*(nd+1)+a), lin(idx[ax], sp[ax]))
		}
		setElem(base, int(p*(nd+1)+nd), 1)
	}
	f := &formula{c: c}
	tT := f.un("relax.permute_dims", theta, Attr("axes", []any{int64(0), int64(2), int64(1)}))
	g := f.bin("relax.matmul", c.Const(base), tT)
	if f.err != nil {
		return nil, f.err
	}
	return one(c.Emit("relax.reshape", []ir.Expr{g.Expr, staticShape(append(append([]int64{size[0]}, sp...), nd))}))
}
