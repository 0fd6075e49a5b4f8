package onnx

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// GridSample (4-D, linear or nearest) without a dedicated kernel: sample
// coordinates are computed elementwise, and each tap is a gather_elements on
// the flattened image, weighted and masked per ONNX's padding modes.

func init() {
	Register("GridSample", 16, convGridSample)
}

func convGridSample(c *Ctx, n *Node) ([]*Value, error) {
	if err := needInputs(n, 2); err != nil {
		return nil, err
	}
	x, grid := n.In[0], n.In[1]
	xd, ok1 := x.StaticDims()
	gd, ok2 := grid.StaticDims()
	if !ok1 || !ok2 || len(xd) != 4 || len(gd) != 4 || gd[3] != 2 {
		return nil, n.unsupported("only 4-D inputs with static shapes are supported")
	}
	if !x.DType().IsFloat() || grid.DType() != x.DType() {
		return nil, n.unsupported("input types %s and %s", x.DType(), grid.DType())
	}
	mode := n.Str("mode", "bilinear")
	switch mode {
	case "bilinear", "linear":
		mode = "linear"
	case "nearest":
	default:
		return nil, n.unsupported("mode=%q", mode)
	}
	pad := n.Str("padding_mode", "zeros")
	if pad != "zeros" && pad != "border" && pad != "reflection" {
		return nil, n.unsupported("padding_mode=%q", pad)
	}
	align := n.Int("align_corners", 0) != 0
	N, C, H, W := xd[0], xd[1], xd[2], xd[3]
	Ho, Wo := gd[1], gd[2]
	f := &formula{c: c}
	coord := func(i int64, size int64) *Value {
		if f.err != nil {
			return nil
		}
		g, err := c.sliceAt(grid, 3, i)
		if err != nil {
			f.err = err
			return nil
		}
		one := f.k(1, g)
		// unnormalize
		var v *Value
		if align {
			v = f.bin("relax.multiply", f.bin("relax.divide", f.bin("relax.add", g, one), f.k(2, g)), f.k(float64(size-1), g))
		} else {
			v = f.bin("relax.divide", f.bin("relax.subtract", f.bin("relax.multiply", f.bin("relax.add", g, one), f.k(float64(size), g)), one), f.k(2, g))
		}
		switch pad {
		case "border":
			v = f.bin("relax.minimum", f.bin("relax.maximum", v, f.k(0, g)), f.k(float64(size-1), g))
		case "reflection":
			lo, hi := -0.5, float64(size)-0.5
			if align {
				lo, hi = 0, float64(size-1)
			}
			span := hi - lo
			if span <= 0 {
				return f.bin("relax.multiply", v, f.k(0, g))
			}
			// reflect into [lo, hi]: t = |v - lo| mod 2span; t > span ? 2span - t : t
			t := f.bin("relax.floor_mod", f.un("relax.abs", f.bin("relax.subtract", v, f.k(lo, g))), f.k(2*span, g))
			t = f.where(f.bin("relax.greater", t, f.k(span, g)), f.bin("relax.subtract", f.k(2*span, g), t), t)
			v = f.bin("relax.add", t, f.k(lo, g))
		}
		return v
	}
	gx, gy := coord(0, W), coord(1, H)
	if f.err != nil {
		return nil, f.err
	}
	flat, err := c.Emit("relax.reshape", []ir.Expr{x.Expr, staticShape([]int64{N, C, H * W})})
	if err != nil {
		return nil, err
	}
	// tap gathers x at integer coordinates (xi, yi) (float tensors of shape
	// (N, Ho, Wo)) and returns it masked where out of range (zeros padding) or
	// with clamped coordinates (border, reflection), as (N, C, Ho*Wo).
	tap := func(xi, yi *Value) *Value {
		if f.err != nil {
			return nil
		}
		inside := f.bin("relax.logical_and",
			f.bin("relax.logical_and", f.bin("relax.greater_equal", xi, f.k(0, xi)), f.bin("relax.less_equal", xi, f.k(float64(W-1), xi))),
			f.bin("relax.logical_and", f.bin("relax.greater_equal", yi, f.k(0, yi)), f.bin("relax.less_equal", yi, f.k(float64(H-1), yi))))
		cx := f.bin("relax.minimum", f.bin("relax.maximum", xi, f.k(0, xi)), f.k(float64(W-1), xi))
		cy := f.bin("relax.minimum", f.bin("relax.maximum", yi, f.k(0, yi)), f.k(float64(H-1), yi))
		idx := f.un("relax.astype", f.bin("relax.add", f.bin("relax.multiply", cy, f.k(float64(W), cy)), cx), Attr("dtype", runtime.Int64))
		if f.err != nil {
			return nil
		}
		r, err := c.Emit("relax.reshape", []ir.Expr{idx.Expr, staticShape([]int64{N, 1, Ho * Wo})})
		if err != nil {
			f.err = err
			return nil
		}
		b, err := c.Emit("relax.broadcast_to", []ir.Expr{r.Expr, staticShape([]int64{N, C, Ho * Wo})})
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
			m, err := c.Emit("relax.reshape", []ir.Expr{f.un("relax.astype", inside, Attr("dtype", x.DType())).Expr, staticShape([]int64{N, 1, Ho * Wo})})
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
		r, err := c.Emit("relax.reshape", []ir.Expr{w.Expr, staticShape([]int64{N, 1, Ho * Wo})})
		f.err = err
		return r
	}
	var y *Value
	if mode == "nearest" {
		y = tap(f.un("relax.round", gx), f.un("relax.round", gy))
	} else {
		x0, y0 := f.un("relax.floor", gx), f.un("relax.floor", gy)
		x1, y1 := f.bin("relax.add", x0, f.k(1, x0)), f.bin("relax.add", y0, f.k(1, y0))
		wx1, wy1 := f.bin("relax.subtract", gx, x0), f.bin("relax.subtract", gy, y0)
		wx0, wy0 := f.bin("relax.subtract", f.k(1, gx), wx1), f.bin("relax.subtract", f.k(1, gy), wy1)
		y = f.bin("relax.multiply", tap(x0, y0), weight(f.bin("relax.multiply", wx0, wy0)))
		y = f.bin("relax.add", y, f.bin("relax.multiply", tap(x1, y0), weight(f.bin("relax.multiply", wx1, wy0))))
		y = f.bin("relax.add", y, f.bin("relax.multiply", tap(x0, y1), weight(f.bin("relax.multiply", wx0, wy1))))
		y = f.bin("relax.add", y, f.bin("relax.multiply", tap(x1, y1), weight(f.bin("relax.multiply", wx1, wy1))))
	}
	if f.err != nil {
		return nil, f.err
	}
	return one(c.Emit("relax.reshape", []ir.Expr{y.Expr, staticShape([]int64{N, C, Ho, Wo})}))
}

func init() {
	Register("AffineGrid", 20, convAffineGrid)
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
		rem := p
		for a := nd - 1; a >= 0; a-- {
			idx[a] = rem % sp[a]
			rem /= sp[a]
		}
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
