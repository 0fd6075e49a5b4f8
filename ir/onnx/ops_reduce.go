package onnx

import (
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Reductions, ArgMax/ArgMin and TopK.

func init() {
	for op, relaxOp := range map[string]string{"ReduceMean": "relax.mean", "ReduceMax": "relax.max",
		"ReduceMin": "relax.min", "ReduceProd": "relax.prod", "ReduceSum": "relax.sum"} {
		since := 18
		if op == "ReduceSum" {
			since = 13
		}
		Register(op, 1, convReduce(relaxOp, since, ""))
	}
	Register("ReduceL1", 1, convReduce("relax.sum", 18, "abs"))
	Register("ReduceL2", 1, convReduce("relax.sum", 18, "l2"))
	Register("ReduceSumSquare", 1, convReduce("relax.sum", 18, "square"))
	Register("ReduceLogSum", 1, convReduce("relax.sum", 18, "log"))
	Register("ReduceLogSumExp", 1, convReduce("relax.sum", 18, "logsumexp"))
	Register("ArgMax", 1, convArg("relax.argmax"))
	Register("ArgMin", 1, convArg("relax.argmin"))
}

func convReduce(op string, axesInputSince int, kind string) ConvFunc {
	return func(c *Ctx, n *Node) ([]*Value, error) {
		if err := needInputs(n, 1); err != nil {
			return nil, err
		}
		x := n.In[0]
		r := x.Rank()
		if r < 0 {
			return nil, n.unsupported("input rank unknown")
		}
		axes, has, err := axesArg(n, axesInputSince, 1)
		if err != nil {
			return nil, err
		}
		if len(axes) == 0 {
			has = false
		}
		if !has && n.Int("noop_with_empty_axes", 0) != 0 {
			return identity(c, n)
		}
		var norm []int64
		if has {
			for _, a := range axes {
				k, err := normAxis(n, a, r)
				if err != nil {
					return nil, err
				}
				norm = append(norm, int64(k))
			}
		} else {
			for i := 0; i < r; i++ {
				norm = append(norm, int64(i))
			}
		}
		keep := n.Int("keepdims", 1) != 0
		if fill, ok := emptyReduceFill(op, kind); ok {
			if xd, static := x.StaticDims(); static && x.DType().IsFloat() {
				empty := false
				var out []ir.PrimExpr
				for i, d := range xd {
					red := false
					for _, a := range norm {
						red = red || a == int64(i)
					}
					empty = empty || red && d == 0
					if !red {
						out = append(out, ir.Int64(d))
					} else if keep {
						out = append(out, ir.Int64(1))
					}
				}
				if empty {
					// max/min/logsumexp over an empty axis: the identity of the reduction.
					k, err := c.Scalar(fill, x.DType())
					if err != nil {
						return nil, err
					}
					return one(c.Emit("relax.full", []ir.Expr{shapeExpr(out), k.Expr}, Attr("dtype", x.DType())))
				}
			}
		}
		attrs := []ir.Attr{Attr("axis", intsAny(norm)), Attr("keepdims", keep)}
		f := &formula{c: c}
		switch kind {
		case "":
			return one(c.Un(op, x, attrs...))
		case "abs":
			return one(c.Un(op, f.un("relax.abs", x), attrs...))
		case "square":
			return one(c.Un(op, f.bin("relax.multiply", x, x), attrs...))
		case "l2":
			s := f.un(op, f.bin("relax.multiply", x, x), attrs...)
			if f.err == nil && !x.DType().IsFloat() {
				s = f.un("relax.astype", s, Attr("dtype", runtime.Float32))
				return one(c.Cast(f.un("relax.sqrt", s), x.DType()))
			}
			return one(f.un("relax.sqrt", s), f.err)
		case "log":
			return one(f.un("relax.log", f.un(op, x, attrs...)), f.err)
		case "logsumexp":
			m := f.un("relax.max", x, Attr("axis", intsAny(norm)), Attr("keepdims", true))
			s := f.un(op, f.un("relax.exp", f.bin("relax.subtract", x, m)), Attr("axis", intsAny(norm)), Attr("keepdims", true))
			y := f.bin("relax.add", f.un("relax.log", s), m)
			if !keep {
				y = f.un("relax.squeeze", y, Attr("axis", intsAny(norm)))
			}
			return one(y, f.err)
		}
		return nil, n.unsupported("reduction %s", kind)
	}
}

func convArg(op string) ConvFunc {
	return func(c *Ctx, n *Node) ([]*Value, error) {
		if err := needInputs(n, 1); err != nil {
			return nil, err
		}
		x := n.In[0]
		axis, err := normAxis(n, n.Int("axis", 0), x.Rank())
		if err != nil {
			return nil, err
		}
		keep := n.Int("keepdims", 1) != 0
		if n.Int("select_last_index", 0) == 0 {
			return one(c.Un(op, x, Attr("axis", int64(axis)), Attr("keepdims", keep)))
		}
		dims, ok := x.StaticDims()
		if !ok {
			return nil, n.unsupported("select_last_index with a non-static shape")
		}
		f := &formula{c: c}
		fl := f.un("relax.flip", x, Attr("axis", int64(axis)))
		i := f.un(op, fl, Attr("axis", int64(axis)), Attr("keepdims", keep))
		if f.err != nil {
			return nil, f.err
		}
		y := f.bin("relax.subtract", f.k(float64(dims[axis]-1), i), i)
		return one(y, f.err)
	}
}

func convTopK(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	var k int64
	if n.Opset < 10 {
		k = n.Int("k", 0)
	} else {
		ks, ok := n.Input(1).Ints()
		if !ok || len(ks) != 1 {
			return nil, n.unsupported("k must be a known scalar")
		}
		k = ks[0]
	}
	axis, err := normAxis(n, n.Int("axis", -1), x.Rank())
	if err != nil {
		return nil, err
	}
	if n.Int("sorted", 1) == 0 {
		return nil, n.unsupported("sorted=0")
	}
	t, err := c.Un("relax.topk", x, Attr("k", k), Attr("axis", int64(axis)), Attr("ret_type", "both"),
		Attr("largest", n.Int("largest", 1) != 0), Attr("dtype", runtime.Int64))
	if err != nil {
		return nil, err
	}
	return []*Value{c.Item(t, 0), c.Item(t, 1)}, nil
}

// emptyReduceFill is the value of a max/min/logsumexp reduction over an empty
// axis (ONNX: -inf for max and logsumexp, +inf for min).
func emptyReduceFill(op, kind string) (float64, bool) {
	switch {
	case kind == "logsumexp", kind == "" && op == "relax.max":
		return math.Inf(-1), true
	case kind == "" && op == "relax.min":
		return math.Inf(1), true
	}
	return 0, false
}
