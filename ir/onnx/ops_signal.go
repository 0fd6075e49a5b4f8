package onnx

import (
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Window functions (computed at import time from a known size), Swish,
// MeanVarianceNormalization and LRN.

func init() {
	for name, coef := range map[string][3]float64{
		"HannWindow":     {0.5, 0.5, 0},
		"HammingWindow":  {25.0 / 46, 21.0 / 46, 0},
		"BlackmanWindow": {0.42, 0.5, 0.08},
	} {
		coef := coef
		Register(name, 17, func(c *Ctx, n *Node) ([]*Value, error) {
			if err := needInputs(n, 1); err != nil {
				return nil, err
			}
			sz, ok := n.In[0].Ints()
			if !ok || len(sz) != 1 || sz[0] < 0 || sz[0] > 1<<24 {
				return nil, n.unsupported("size must be a known scalar")
			}
			dt := runtime.Float32
			if n.Has("output_datatype") {
				var err error
				if dt, err = DType(int32(n.Int("output_datatype", 1))); err != nil {
					return nil, n.unsupported("%v", err)
				}
			}
			size := sz[0]
			den := float64(size)
			if n.Int("periodic", 1) == 0 {
				den = float64(size - 1)
			}
			t, err := runtime.NewTensor([]int64{size}, dt)
			if err != nil {
				return nil, err
			}
			for i := int64(0); i < size; i++ {
				x := 2 * math.Pi * float64(i) / den
				v := coef[0] - coef[1]*math.Cos(x) + coef[2]*math.Cos(2*x)
				if err := setElem(t, int(i), v); err != nil {
					return nil, n.unsupported("%v", err)
				}
			}
			return []*Value{c.Const(t)}, nil
		})
	}
	registerN("Swish", 24, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		f := &formula{c: c}
		y := f.bin("relax.multiply", x, f.un("relax.sigmoid", f.bin("relax.multiply", x, f.k(n.Float("alpha", 1), x))))
		return one(y, f.err)
	})
	registerN("MeanVarianceNormalization", 9, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		axes := n.Ints("axes", []int64{0, 2, 3})
		keep := []ir.Attr{Attr("axis", intsAny(axes)), Attr("keepdims", true)}
		f := &formula{c: c}
		mean := f.un("relax.mean", x, keep...)
		d := f.bin("relax.subtract", x, mean)
		v := f.un("relax.mean", f.bin("relax.multiply", d, d), keep...)
		return one(f.bin("relax.divide", d, f.bin("relax.add", f.un("relax.sqrt", v), f.k(1e-9, x))), f.err)
	})
	registerN("LRN", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		d, ok := x.StaticDims()
		if !ok || len(d) < 3 {
			return nil, n.unsupported("input must have a static shape of rank >= 3")
		}
		size := n.Int("size", 0)
		if size <= 0 {
			return nil, n.unsupported("size=%d", size)
		}
		rest := int64(1)
		for _, e := range d[2:] {
			rest *= e
		}
		f := &formula{c: c}
		sq := f.bin("relax.multiply", x, x)
		if f.err != nil {
			return nil, f.err
		}
		// Sum of squares over a channel window: pad channels, then an
		// average pool (count_include_pad) over (size, 1), times size.
		r, err := c.Emit("relax.reshape", []ir.Expr{sq.Expr, shapeExpr([]ir.PrimExpr{ir.Int64(d[0]), ir.Int64(1), ir.Int64(d[1]), ir.Int64(rest)})})
		if err != nil {
			return nil, err
		}
		lo, hi := (size-1)/2, size-1-(size-1)/2
		avg, err := c.Un("relax.nn.avg_pool2d", r, Attr("pool_size", []any{size, int64(1)}), Attr("strides", []any{int64(1), int64(1)}),
			Attr("padding", []any{lo, int64(0), hi, int64(0)}), Attr("count_include_pad", true))
		if err != nil {
			return nil, err
		}
		sum, err := c.Emit("relax.reshape", []ir.Expr{avg.Expr, shapeExpr(x.Dims())})
		if err != nil {
			return nil, err
		}
		alpha, beta, bias := n.Float("alpha", 1e-4), n.Float("beta", 0.75), n.Float("bias", 1)
		// sum/size * size * alpha/size = avg * alpha
		den := f.bin("relax.power", f.bin("relax.add", f.k(bias, x), f.bin("relax.multiply", sum, f.k(alpha, x))), f.k(beta, x))
		return one(f.bin("relax.divide", x, den), f.err)
	})
}
