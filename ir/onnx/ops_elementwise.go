package onnx

import (
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Elementwise operators: unary math, activations, broadcasting binary ops,
// comparisons and logic, Clip, Cast, Where.

// Un emits a one-argument Relax op.
func (c *Ctx) Un(op string, x *Value, attrs ...ir.Attr) (*Value, error) {
	return c.Emit(op, []ir.Expr{x.Expr}, attrs...)
}

// Bin emits a two-argument (broadcasting) Relax op.
func (c *Ctx) Bin(op string, a, b *Value) (*Value, error) {
	return c.Emit(op, []ir.Expr{a.Expr, b.Expr})
}

// ScalarLike makes a 0-d constant x of v's dtype.
func (c *Ctx) ScalarLike(x float64, v *Value) (*Value, error) { return c.Scalar(x, v.DType()) }

func unary(op string) ConvFunc {
	return func(c *Ctx, n *Node) ([]*Value, error) {
		if err := needInputs(n, 1); err != nil {
			return nil, err
		}
		y, err := c.Un(op, n.In[0])
		return one(y, err)
	}
}

func binop(op string) ConvFunc {
	return func(c *Ctx, n *Node) ([]*Value, error) {
		if err := needInputs(n, 2); err != nil {
			return nil, err
		}
		if n.Opset < 7 && n.Int("broadcast", 0) != 0 && n.Has("axis") {
			return nil, n.unsupported("legacy broadcast with axis")
		}
		y, err := c.Bin(op, n.In[0], n.In[1])
		return one(y, err)
	}
}

// variadic folds a binary op over all inputs (Max, Min, Sum, Mean).
func variadic(op string, mean bool) ConvFunc {
	return func(c *Ctx, n *Node) ([]*Value, error) {
		if err := needInputs(n, 1); err != nil {
			return nil, err
		}
		acc := n.In[0]
		for _, x := range n.In[1:] {
			var err error
			if acc, err = c.Bin(op, acc, x); err != nil {
				return nil, err
			}
		}
		if mean && len(n.In) > 1 {
			k, err := c.ScalarLike(float64(len(n.In)), acc)
			if err != nil {
				return nil, err
			}
			acc, err = c.Bin("relax.divide", acc, k)
			return one(acc, err)
		}
		if len(n.In) == 1 {
			return identity(c, n)
		}
		return one(acc, nil)
	}
}

func one(v *Value, err error) ([]*Value, error) {
	if err != nil {
		return nil, err
	}
	return []*Value{v}, nil
}

func needInputs(n *Node, k int) error {
	if len(n.In) < k {
		return n.unsupported("needs %d inputs, has %d", k, len(n.In))
	}
	for i := 0; i < k; i++ {
		if n.In[i] == nil {
			return n.unsupported("input %d is missing", i)
		}
		if n.In[i].Info() == nil {
			return n.unsupported("input %d is not a tensor", i)
		}
	}
	return nil
}

func identity(c *Ctx, n *Node) ([]*Value, error) {
	if err := needInputs(n, 1); err != nil {
		return nil, err
	}
	v := *n.In[0]
	v.Name = ""
	return []*Value{&v}, nil
}

// chain applies f to x after a sequence of scalar ops: a helper for formulas.
type formula struct {
	c   *Ctx
	err error
}

func (f *formula) bin(op string, a, b *Value) *Value {
	if f.err != nil {
		return nil
	}
	v, err := f.c.Bin(op, a, b)
	f.err = err
	return v
}

func (f *formula) un(op string, a *Value, attrs ...ir.Attr) *Value {
	if f.err != nil {
		return nil
	}
	v, err := f.c.Un(op, a, attrs...)
	f.err = err
	return v
}

func (f *formula) k(x float64, like *Value) *Value {
	if f.err != nil {
		return nil
	}
	v, err := f.c.ScalarLike(x, like)
	f.err = err
	return v
}

// reshape emits relax.reshape of v to s.
func (f *formula) reshape(v *Value, s *ir.ShapeExpr) *Value {
	if f.err != nil {
		return nil
	}
	r, err := f.c.Emit("relax.reshape", []ir.Expr{v.Expr, s})
	f.err = err
	return r
}

// reshapeTo is reshape to the static dims d.
func (f *formula) reshapeTo(v *Value, d ...int64) *Value {
	return f.reshape(v, staticShape(d))
}

func (f *formula) where(cond, a, b *Value) *Value {
	if f.err != nil {
		return nil
	}
	v, err := f.c.Emit("relax.where", []ir.Expr{cond.Expr, a.Expr, b.Expr})
	f.err = err
	return v
}

func init() {
	for onnxOp, relaxOp := range map[string]string{
		"Relu": "relax.nn.relu", "Sigmoid": "relax.sigmoid", "Tanh": "relax.tanh", "Erf": "relax.erf",
		"Sqrt": "relax.sqrt", "Exp": "relax.exp", "Log": "relax.log", "Neg": "relax.negative", "Abs": "relax.abs",
		"Floor": "relax.floor", "Ceil": "relax.ceil", "Round": "relax.round", "Sign": "relax.sign",
		"Sin": "relax.sin", "Cos": "relax.cos", "Tan": "relax.tan", "Asin": "relax.asin", "Acos": "relax.acos",
		"Atan": "relax.atan", "Sinh": "relax.sinh", "Cosh": "relax.cosh", "Asinh": "relax.asinh",
		"Acosh": "relax.acosh", "Atanh": "relax.atanh", "Not": "relax.logical_not", "IsNaN": "relax.isnan",
		"BitwiseNot": "relax.bitwise_not", "Softplus": "relax.nn.softplus",
	} {
		Register(onnxOp, 1, unary(onnxOp2relax(relaxOp)))
	}
	for onnxOp, relaxOp := range map[string]string{
		"Add": "relax.add", "Sub": "relax.subtract", "Mul": "relax.multiply",
		"Equal": "relax.equal", "Less": "relax.less", "LessOrEqual": "relax.less_equal", "Greater": "relax.greater",
		"GreaterOrEqual": "relax.greater_equal", "And": "relax.logical_and", "Or": "relax.logical_or",
		"Xor": "relax.logical_xor", "BitwiseAnd": "relax.bitwise_and", "BitwiseOr": "relax.bitwise_or",
		"BitwiseXor": "relax.bitwise_xor",
	} {
		Register(onnxOp, 1, binop(relaxOp))
	}
	Register("Max", 1, variadic("relax.maximum", false))
	Register("Min", 1, variadic("relax.minimum", false))
	Register("Sum", 1, variadic("relax.add", false))
	Register("Mean", 1, variadic("relax.add", true))
	registerN("Reciprocal", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		f := &formula{c: c}
		y := f.bin("relax.divide", f.k(1, n.In[0]), n.In[0])
		return one(y, f.err)
	})
	registerN("IsInf", 10, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		pos, neg := n.Int("detect_positive", 1), n.Int("detect_negative", 1)
		f := &formula{c: c}
		inf := f.un("relax.isinf", x)
		switch {
		case pos != 0 && neg != 0:
		case pos != 0:
			inf = f.bin("relax.logical_and", inf, f.bin("relax.greater", x, f.k(0, x)))
		case neg != 0:
			inf = f.bin("relax.logical_and", inf, f.bin("relax.less", x, f.k(0, x)))
		default:
			inf = f.bin("relax.logical_and", inf, f.bin("relax.less", x, x)) // all false
		}
		return one(inf, f.err)
	})
	registerN("LeakyRelu", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		y, err := c.Un("relax.nn.leakyrelu", n.In[0], Attr("alpha", n.Float("alpha", 0.01)))
		return one(y, err)
	})
	registerN("Elu", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		f := &formula{c: c}
		neg := f.bin("relax.multiply", f.k(n.Float("alpha", 1), x), f.bin("relax.subtract", f.un("relax.exp", x), f.k(1, x)))
		y := f.where(f.bin("relax.greater", x, f.k(0, x)), x, neg)
		return one(y, f.err)
	})
	registerN("Celu", 12, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		alpha := n.Float("alpha", 1)
		f := &formula{c: c}
		neg := f.bin("relax.multiply", f.k(alpha, x), f.bin("relax.subtract", f.un("relax.exp", f.bin("relax.divide", x, f.k(alpha, x))), f.k(1, x)))
		y := f.bin("relax.add", f.bin("relax.maximum", x, f.k(0, x)), f.bin("relax.minimum", f.k(0, x), neg))
		return one(y, f.err)
	})
	registerN("Selu", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		alpha, gamma := n.Float("alpha", 1.67326319217681884765625), n.Float("gamma", 1.05070102214813232421875)
		f := &formula{c: c}
		neg := f.bin("relax.multiply", f.k(alpha, x), f.bin("relax.subtract", f.un("relax.exp", x), f.k(1, x)))
		y := f.bin("relax.multiply", f.k(gamma, x), f.where(f.bin("relax.greater", x, f.k(0, x)), x, neg))
		return one(y, f.err)
	})
	registerN("ThresholdedRelu", 10, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		f := &formula{c: c}
		y := f.where(f.bin("relax.greater", x, f.k(n.Float("alpha", 1), x)), x, f.k(0, x))
		return one(y, f.err)
	})
	hardSigmoid := func(f *formula, x *Value, alpha, beta float64) *Value {
		y := f.bin("relax.add", f.bin("relax.multiply", x, f.k(alpha, x)), f.k(beta, x))
		return f.bin("relax.minimum", f.bin("relax.maximum", y, f.k(0, x)), f.k(1, x))
	}
	registerN("HardSigmoid", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		f := &formula{c: c}
		y := hardSigmoid(f, n.In[0], n.Float("alpha", 0.2), n.Float("beta", 0.5))
		return one(y, f.err)
	})
	registerN("HardSwish", 14, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		f := &formula{c: c}
		y := f.bin("relax.multiply", n.In[0], hardSigmoid(f, n.In[0], 1.0/6, 0.5))
		return one(y, f.err)
	})
	registerN("Softsign", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		f := &formula{c: c}
		y := f.bin("relax.divide", x, f.bin("relax.add", f.k(1, x), f.un("relax.abs", x)))
		return one(y, f.err)
	})
	registerN("Mish", 18, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		f := &formula{c: c}
		sp := f.un("relax.log", f.bin("relax.add", f.k(1, x), f.un("relax.exp", x)))
		y := f.bin("relax.multiply", x, f.un("relax.tanh", sp))
		return one(y, f.err)
	})
	registerN("Gelu", 20, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		switch a := n.Str("approximate", "none"); a {
		case "none":
			return one(c.Un("relax.nn.gelu", n.In[0]))
		case "tanh":
			return one(c.Un("relax.nn.gelu_tanh", n.In[0]))
		default:
			return nil, n.unsupported("approximate=%q", a)
		}
	})
	registerN("PRelu", 1, 2, func(c *Ctx, n *Node) ([]*Value, error) {
		x, slope := n.In[0], n.In[1]
		f := &formula{c: c}
		y := f.where(f.bin("relax.less", x, f.k(0, x)), f.bin("relax.multiply", x, slope), x)
		return one(y, f.err)
	})
	registerN("Shrink", 9, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		x := n.In[0]
		bias, lambd := n.Float("bias", 0), n.Float("lambd", 0.5)
		f := &formula{c: c}
		lo := f.bin("relax.add", x, f.k(bias, x))
		hi := f.bin("relax.subtract", x, f.k(bias, x))
		y := f.where(f.bin("relax.less", x, f.k(-lambd, x)), lo, f.where(f.bin("relax.greater", x, f.k(lambd, x)), hi, f.k(0, x)))
		return one(y, f.err)
	})
	registerN("Where", 9, 3, func(c *Ctx, n *Node) ([]*Value, error) {
		y, err := c.Emit("relax.where", []ir.Expr{n.In[0].Expr, n.In[1].Expr, n.In[2].Expr})
		return one(y, err)
	})
	registerN("Cast", 1, 1, func(c *Ctx, n *Node) ([]*Value, error) {
		to := n.Int("to", 0)
		if n.Has("to") && n.attrs["to"].GetType() == 3 { // opset 1-5 spelled the type as a string
			return nil, n.unsupported("string 'to' attribute")
		}
		dt, err := DType(int32(to))
		if err != nil {
			return nil, n.unsupported("cast to %v", err)
		}
		if n.Int("saturate", 1) != 1 && n.Opset >= 19 && false {
			return nil, n.unsupported("saturate=0")
		}
		return one(c.Cast(n.In[0], dt))
	})
	registerN("CastLike", 15, 2, func(c *Ctx, n *Node) ([]*Value, error) {
		return one(c.Cast(n.In[0], n.In[1].DType()))
	})
}

func onnx2relaxIdentity(s string) string { return s }

var onnxOp2relax = onnx2relaxIdentity

// Cast converts v to dtype dt (shape values stay known).
func (c *Ctx) Cast(v *Value, dt runtime.DataType) (*Value, error) {
	if v.DType() == dt {
		return v, nil
	}
	y, err := c.Un("relax.astype", v, Attr("dtype", dt))
	if err != nil {
		return nil, err
	}
	if v.ShapeVals != nil && (dt == runtime.Int64 || dt == runtime.Int32) && y.Const == nil {
		y.ShapeVals = v.ShapeVals
	}
	return y, nil
}

func convDiv(c *Ctx, n *Node) ([]*Value, error) {
	a, b := n.In[0], n.In[1]
	if dt := a.DType(); dt.IsInt() || dt.IsUInt() {
		// ONNX integer division truncates toward zero.
		f := &formula{c: c}
		q := f.bin("relax.floor_divide", a, b)
		r := f.bin("relax.floor_mod", a, b)
		if dt.IsUInt() {
			return one(q, f.err)
		}
		// floor differs from trunc when the remainder is nonzero and the signs differ.
		adj := f.bin("relax.logical_and", f.bin("relax.not_equal", r, f.k(0, a)),
			f.bin("relax.not_equal", f.bin("relax.less", a, f.k(0, a)), f.bin("relax.less", b, f.k(0, b))))
		y := f.where(adj, f.bin("relax.add", q, f.k(1, a)), q)
		return one(y, f.err)
	}
	return one(c.Bin("relax.divide", a, b))
}

func convPow(c *Ctx, n *Node) ([]*Value, error) {
	a, b := n.In[0], n.In[1]
	if b.DType() != a.DType() {
		var err error
		if b, err = c.Cast(b, a.DType()); err != nil {
			return nil, err
		}
	}
	return one(c.Bin("relax.power", a, b))
}

func convMod(c *Ctx, n *Node) ([]*Value, error) {
	a, b := n.In[0], n.In[1]
	if n.Int("fmod", 0) == 1 {
		if a.DType().IsFloat() {
			// fmod: a - trunc(a/b)*b
			f := &formula{c: c}
			y := f.bin("relax.subtract", a, f.bin("relax.multiply", f.un("relax.trunc", f.bin("relax.divide", a, b)), b))
			return one(y, f.err)
		}
		return one(c.Bin("relax.mod", a, b))
	}
	if a.DType().IsFloat() {
		return nil, n.unsupported("fmod=0 with float inputs")
	}
	return one(c.Bin("relax.floor_mod", a, b))
}

func convBitShift(c *Ctx, n *Node) ([]*Value, error) {
	switch d := n.Str("direction", ""); d {
	case "LEFT":
		return one(c.Bin("relax.left_shift", n.In[0], n.In[1]))
	case "RIGHT":
		return one(c.Bin("relax.right_shift", n.In[0], n.In[1]))
	default:
		return nil, n.unsupported("direction=%q", d)
	}
}

func convClip(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	dt := x.DType()
	var lo, hi *Value
	if n.Opset < 11 {
		var err error
		if lo, err = c.ScalarLike(n.Float("min", -math.MaxFloat32), x); err != nil {
			return nil, err
		}
		if hi, err = c.ScalarLike(n.Float("max", math.MaxFloat32), x); err != nil {
			return nil, err
		}
	} else {
		lo, hi = n.Input(1), n.Input(2)
	}
	y := x
	f := &formula{c: c}
	if lo != nil {
		y = f.bin("relax.maximum", y, lo)
	}
	if hi != nil {
		y = f.bin("relax.minimum", y, hi)
	}
	if f.err != nil {
		return nil, f.err
	}
	if y == x {
		return identity(c, n)
	}
	_ = dt
	return one(y, nil)
}
