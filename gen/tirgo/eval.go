package tirgo

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// Interpret runs f on args with the packed-call semantics of the code
// Func generates (a *runtime.Tensor per buffer parameter, an int64,
// float64 or bool per scalar parameter), by walking its IR. It is a plain,
// slow reference implementation used as the oracle in tests: every value is
// kept in a canonical 64-bit form and rounded or wrapped to its TIR type
// after each operation. Buffer accesses are checked per dimension.
func Interpret(f *ir.PrimFunc, args []runtime.Value) (err error) {
	in := &interp{f: f, env: map[*ir.PrimVar]tval{}, bufs: map[*ir.Buffer]*ibuf{}}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(interpError); ok {
				err = fmt.Errorf("%s: %s", f.Name, string(e))
				return
			}
			panic(r)
		}
	}()
	if err := in.bind(args); err != nil {
		return err
	}
	in.stmt(f.Body)
	for _, b := range in.params {
		if b.written {
			b.store()
		}
	}
	return nil
}

// tval is a scalar: integers (and bools, as 0/1) canonical in i — signed
// types sign-extended, unsigned types zero-extended (uint64 as its bits) —
// and floats in f, already rounded to their type.
type tval struct {
	i int64
	f float64
}

type interpError string

func ifail(format string, args ...any) { panic(interpError(fmt.Sprintf(format, args...))) }

type ibuf struct {
	buf     *ir.Buffer
	shape   []int64
	vals    []tval
	tensor  *runtime.Tensor
	written bool
}

type interp struct {
	f      *ir.PrimFunc
	env    map[*ir.PrimVar]tval
	bufs   map[*ir.Buffer]*ibuf
	params []*ibuf
}

func (in *interp) bind(args []runtime.Value) error {
	f := in.f
	if len(args) != len(f.Params) {
		return fmt.Errorf("%s: expected %d arguments, got %d", f.Name, len(f.Params), len(args))
	}
	type pending struct {
		dim  ir.PrimExpr
		got  int64
		what string
	}
	var checks []pending
	for i, p := range f.Params {
		b := f.BufferMap[p]
		if b == nil {
			v, err := scalarArg(args[i], p.Type)
			if err != nil {
				return fmt.Errorf("%s: parameter %d (%s): %v", f.Name, i, p.Name, err)
			}
			in.env[p] = v
			continue
		}
		t, ok := args[i].(*runtime.Tensor)
		if !ok || t == nil {
			return fmt.Errorf("%s: parameter %d (%s): expected a tensor, got %T", f.Name, i, b.Name, args[i])
		}
		if t.DType() != b.DType {
			return fmt.Errorf("%s: parameter %d (%s): expected dtype %s, got %s", f.Name, i, b.Name, b.DType, t.DType())
		}
		sh := t.Shape()
		if len(sh) != len(b.Shape) {
			return fmt.Errorf("%s: parameter %d (%s): expected rank %d, got %d", f.Name, i, b.Name, len(b.Shape), len(sh))
		}
		for d, e := range b.Shape {
			what := fmt.Sprintf("parameter %d (%s) dimension %d", i, b.Name, d)
			if v, ok := e.(*ir.PrimVar); ok {
				if _, bound := in.env[v]; !bound {
					if v.Type.IsInt() && v.Type.Bits < 64 && sh[d] != wrapInt(sh[d], v.Type) {
						return fmt.Errorf("%s: %s: %d does not fit %s %s", f.Name, what, sh[d], v.Type, v.Name)
					}
					in.env[v] = tval{i: sh[d]}
					continue
				}
			}
			checks = append(checks, pending{e, sh[d], what})
		}
		ib := &ibuf{buf: b, shape: sh, tensor: t}
		ib.load()
		in.bufs[b] = ib
		in.params = append(in.params, ib)
	}
	for _, c := range checks {
		want := in.expr(c.dim)
		if want.i != c.got {
			return fmt.Errorf("%s: %s: expected %d (%s), got %d", f.Name, c.what, want.i, ir.ExprString(c.dim), c.got)
		}
	}
	return nil
}

func scalarArg(a runtime.Value, dt runtime.DataType) (tval, error) {
	switch {
	case dt.IsBool():
		if b, ok := a.(bool); ok {
			if b {
				return tval{i: 1}, nil
			}
			return tval{}, nil
		}
		return tval{}, fmt.Errorf("expected a bool, got %T", a)
	case dt.IsFloat():
		switch x := a.(type) {
		case float64:
			return tval{f: roundF(x, dt)}, nil
		case float32:
			return tval{f: roundF(float64(x), dt)}, nil
		}
		return tval{}, fmt.Errorf("expected a float64, got %T", a)
	}
	var v int64
	switch x := a.(type) {
	case int64:
		v = x
	case int:
		v = int64(x)
	case int32:
		v = int64(x)
	default:
		return tval{}, fmt.Errorf("expected an int64, got %T", a)
	}
	if wrapInt(v, dt) != v && !(dt.IsUInt() && dt.Bits == 64) {
		return tval{}, fmt.Errorf("%d does not fit %s", v, dt)
	}
	return tval{i: v}, nil
}

func (b *ibuf) load() {
	t, dt := b.tensor, b.buf.DType
	n := int(t.NumElements())
	b.vals = make([]tval, n)
	for k := 0; k < n; k++ {
		var v tval
		switch {
		case dt == runtime.Float32:
			v.f = float64(t.Float32s()[k])
		case dt == runtime.Float64:
			v.f = t.Float64s()[k]
		case dt == runtime.Float16:
			v.f = float64(half.Float16ToFloat32(t.Uint16s()[k]))
		case dt == runtime.BFloat16:
			v.f = float64(half.BFloat16ToFloat32(t.Uint16s()[k]))
		case dt == runtime.Bool:
			if t.Bools()[k] {
				v.i = 1
			}
		case dt == runtime.Int8:
			v.i = int64(t.Int8s()[k])
		case dt == runtime.Int16:
			v.i = int64(t.Int16s()[k])
		case dt == runtime.Int32:
			v.i = int64(t.Int32s()[k])
		case dt == runtime.Int64:
			v.i = t.Int64s()[k]
		case dt == runtime.UInt8:
			v.i = int64(t.Uint8s()[k])
		case dt == runtime.UInt16:
			v.i = int64(t.Uint16s()[k])
		case dt == runtime.UInt32:
			v.i = int64(t.Uint32s()[k])
		case dt == runtime.UInt64:
			v.i = int64(t.Uint64s()[k])
		default:
			ifail("unsupported buffer dtype %s", dt)
		}
		b.vals[k] = v
	}
}

func (b *ibuf) store() {
	t, dt := b.tensor, b.buf.DType
	for k, v := range b.vals {
		switch {
		case dt == runtime.Float32:
			t.Float32s()[k] = float32(v.f)
		case dt == runtime.Float64:
			t.Float64s()[k] = v.f
		case dt == runtime.Float16:
			t.Uint16s()[k] = half.Float32ToFloat16(float32(v.f))
		case dt == runtime.BFloat16:
			t.Uint16s()[k] = half.Float32ToBFloat16(float32(v.f))
		case dt == runtime.Bool:
			t.Bools()[k] = v.i != 0
		case dt == runtime.Int8:
			t.Int8s()[k] = int8(v.i)
		case dt == runtime.Int16:
			t.Int16s()[k] = int16(v.i)
		case dt == runtime.Int32:
			t.Int32s()[k] = int32(v.i)
		case dt == runtime.Int64:
			t.Int64s()[k] = v.i
		case dt == runtime.UInt8:
			t.Uint8s()[k] = uint8(v.i)
		case dt == runtime.UInt16:
			t.Uint16s()[k] = uint16(v.i)
		case dt == runtime.UInt32:
			t.Uint32s()[k] = uint32(v.i)
		case dt == runtime.UInt64:
			t.Uint64s()[k] = uint64(v.i)
		}
	}
}

// wrapInt brings v to the canonical form of integer type dt.
func wrapInt(v int64, dt runtime.DataType) int64 {
	if dt.IsBool() {
		if v != 0 {
			return 1
		}
		return 0
	}
	bits := uint(dt.Bits)
	if bits >= 64 {
		return v
	}
	if dt.IsUInt() {
		return int64(uint64(v) & (1<<bits - 1))
	}
	return v << (64 - bits) >> (64 - bits)
}

// roundF rounds v to float type dt.
func roundF(v float64, dt runtime.DataType) float64 {
	switch {
	case dt.Bits == 64:
		return v
	case dt.Code == runtime.CodeBFloat:
		return float64(half.BFloat16ToFloat32(half.Float32ToBFloat16(float32(v))))
	case dt.Bits == 16:
		return float64(half.Float16ToFloat32(half.Float32ToFloat16(float32(v))))
	}
	return float64(float32(v))
}

func (in *interp) alloc(b *ir.Buffer) {
	sh := make([]int64, len(b.Shape))
	n := int64(1)
	for d, e := range b.Shape {
		sh[d] = in.expr(e).i
		if sh[d] < 0 {
			ifail("buffer %s: negative dimension %d", b.Name, sh[d])
		}
		n *= sh[d]
	}
	in.bufs[b] = &ibuf{buf: b, shape: sh, vals: make([]tval, n)}
}

func (in *interp) stmt(s ir.Stmt) {
	switch x := s.(type) {
	case *ir.SeqStmt:
		for _, y := range x.Stmts {
			in.stmt(y)
		}
	case *ir.For:
		if x.Kind == ir.ForThreadBinding {
			ifail("thread_binding loops are not supported")
		}
		lo, ext := in.expr(x.Min), in.expr(x.Extent)
		for k := int64(0); k < ext.i; k++ {
			in.env[x.Var] = tval{i: wrapInt(lo.i+k, x.Var.Type)}
			in.stmt(x.Body)
		}
		delete(in.env, x.Var)
	case *ir.Block:
		for _, iv := range x.IterVars {
			v := in.expr(iv.Binding)
			if iv.Binding.DType() != iv.Var.Type {
				v = castVal(v, iv.Binding.DType(), iv.Var.Type)
			}
			in.env[iv.Var] = v
		}
		if x.Predicate != nil && in.expr(x.Predicate).i == 0 {
			return
		}
		for _, b := range x.AllocBuffers {
			in.alloc(b)
		}
		if x.Init != nil {
			first := true
			for _, iv := range x.IterVars {
				if iv.Kind == ir.IterReduce && in.env[iv.Var].i != in.expr(iv.Dom.Min).i {
					first = false
				}
			}
			if first {
				in.stmt(x.Init)
			}
		}
		in.stmt(x.Body)
	case *ir.BufferStore:
		v := in.expr(x.Value)
		b, k := in.locate(x.Buffer, x.Indices)
		b.vals[k] = v
		b.written = true
	case *ir.IfThenElse:
		if in.expr(x.Cond).i != 0 {
			in.stmt(x.Then)
		} else if x.Else != nil {
			in.stmt(x.Else)
		}
	case *ir.LetStmt:
		in.env[x.Var] = in.expr(x.Value)
		in.stmt(x.Body)
	case *ir.AttrStmt:
		in.stmt(x.Body)
	case *ir.Evaluate:
		in.expr(x.Value)
	case *ir.AllocBuffer:
		in.alloc(x.Buffer)
		in.stmt(x.Body)
	default:
		ifail("unsupported statement %T", s)
	}
}

func (in *interp) locate(b *ir.Buffer, idx []ir.PrimExpr) (*ibuf, int64) {
	ib := in.bufs[b]
	if ib == nil {
		ifail("buffer %s is not allocated", b.Name)
	}
	if len(idx) != len(ib.shape) {
		ifail("buffer %s indexed with %d indices", b.Name, len(idx))
	}
	off := int64(0)
	for d, e := range idx {
		v := in.expr(e).i
		if v < 0 || v >= ib.shape[d] {
			ifail("index %d out of range [0, %d) in dimension %d of %s", v, ib.shape[d], d, b.Name)
		}
		off = off*ib.shape[d] + v
	}
	return ib, off
}

func b2v(b bool) tval {
	if b {
		return tval{i: 1}
	}
	return tval{}
}

// castVal converts v from type from to type to.
func castVal(v tval, from, to runtime.DataType) tval {
	switch {
	case to.IsBool():
		if from.IsFloat() {
			return b2v(v.f != 0)
		}
		return b2v(v.i != 0)
	case to.IsFloat():
		if from.IsFloat() {
			return tval{f: roundF(v.f, to)}
		}
		var f32 float32
		var f64 float64
		if from.IsUInt() {
			f32, f64 = float32(uint64(v.i)), float64(uint64(v.i))
		} else {
			f32, f64 = float32(v.i), float64(v.i)
		}
		if to.Bits == 64 {
			return tval{f: f64}
		}
		return tval{f: roundF(float64(f32), to)}
	default:
		if from.IsFloat() {
			if to.IsUInt() && to.Bits == 64 {
				return tval{i: int64(uint64(v.f))}
			}
			return tval{i: wrapInt(int64(v.f), to)}
		}
		return tval{i: wrapInt(v.i, to)}
	}
}

func (in *interp) expr(e ir.PrimExpr) tval {
	switch x := e.(type) {
	case *ir.IntImm:
		if x.Type.IsFloat() {
			return tval{f: roundF(float64(x.Value), x.Type)}
		}
		return tval{i: wrapInt(x.Value, x.Type)}
	case *ir.FloatImm:
		switch {
		case x.Type.Bits == 64:
			return tval{f: x.Value}
		case x.Type.Code == runtime.CodeBFloat:
			return tval{f: float64(half.BFloat16ToFloat32(half.Float64ToBFloat16(x.Value)))}
		case x.Type.Bits == 16:
			return tval{f: float64(half.Float16ToFloat32(half.Float64ToFloat16(x.Value)))}
		}
		return tval{f: float64(float32(x.Value))}
	case *ir.PrimVar:
		v, ok := in.env[x]
		if !ok {
			ifail("unbound variable %s", x.Name)
		}
		return v
	case *ir.Binary:
		return in.binary(x)
	case *ir.Not:
		return b2v(in.expr(x.A).i == 0)
	case *ir.Cast:
		return castVal(in.expr(x.Value), x.Value.DType(), x.Type)
	case *ir.Select:
		c, a, b := in.expr(x.Cond), in.expr(x.True), in.expr(x.False)
		if c.i != 0 {
			return a
		}
		return b
	case *ir.BufferLoad:
		b, k := in.locate(x.Buffer, x.Indices)
		return b.vals[k]
	case *ir.Let:
		old, had := in.env[x.Var]
		in.env[x.Var] = in.expr(x.Value)
		r := in.expr(x.Body)
		if had {
			in.env[x.Var] = old
		} else {
			delete(in.env, x.Var)
		}
		return r
	case *ir.PrimCall:
		return in.call(x)
	}
	ifail("unsupported expression %s", ir.ExprString(e))
	return tval{}
}

func (in *interp) binary(x *ir.Binary) tval {
	switch x.Op {
	case ir.OpAnd:
		if in.expr(x.A).i == 0 {
			return tval{}
		}
		return b2v(in.expr(x.B).i != 0)
	case ir.OpOr:
		if in.expr(x.A).i != 0 {
			return tval{i: 1}
		}
		return b2v(in.expr(x.B).i != 0)
	}
	a, b := in.expr(x.A), in.expr(x.B)
	t := x.A.DType()
	if t.IsFloat() {
		return floatBinary(x.Op, a.f, b.f, t)
	}
	if t.IsUInt() || t.IsBool() {
		ua, ub := uint64(a.i), uint64(b.i)
		switch x.Op {
		case ir.OpDiv, ir.OpFloorDiv, ir.OpMod, ir.OpFloorMod:
			if ub == 0 {
				ifail("integer division by zero")
			}
			if x.Op == ir.OpDiv || x.Op == ir.OpFloorDiv {
				return tval{i: wrapInt(int64(ua/ub), t)}
			}
			return tval{i: wrapInt(int64(ua%ub), t)}
		case ir.OpMin:
			return tval{i: int64(min(ua, ub))}
		case ir.OpMax:
			return tval{i: int64(max(ua, ub))}
		case ir.OpLT:
			return b2v(ua < ub)
		case ir.OpLE:
			return b2v(ua <= ub)
		case ir.OpGT:
			return b2v(ua > ub)
		case ir.OpGE:
			return b2v(ua >= ub)
		}
	}
	var r int64
	switch x.Op {
	case ir.OpAdd:
		r = a.i + b.i
	case ir.OpSub:
		r = a.i - b.i
	case ir.OpMul:
		r = a.i * b.i
	case ir.OpDiv, ir.OpMod, ir.OpFloorDiv, ir.OpFloorMod:
		if b.i == 0 {
			ifail("integer division by zero")
		}
		switch x.Op {
		case ir.OpDiv:
			r = a.i / b.i
		case ir.OpMod:
			r = a.i % b.i
		case ir.OpFloorDiv:
			r = ir.FloorDivInt(a.i, b.i)
		default:
			r = ir.FloorModInt(a.i, b.i)
		}
	case ir.OpMin:
		r = min(a.i, b.i)
	case ir.OpMax:
		r = max(a.i, b.i)
	case ir.OpEQ:
		return b2v(a.i == b.i)
	case ir.OpNE:
		return b2v(a.i != b.i)
	case ir.OpLT:
		return b2v(a.i < b.i)
	case ir.OpLE:
		return b2v(a.i <= b.i)
	case ir.OpGT:
		return b2v(a.i > b.i)
	case ir.OpGE:
		return b2v(a.i >= b.i)
	default:
		ifail("unsupported operator %s", x.Op)
	}
	return tval{i: wrapInt(r, t)}
}

// floatBinary applies op in the precision of t: float64 math for float64,
// float32 math (rounded again for the 16-bit types) otherwise.
func floatBinary(op ir.BinOp, a, b float64, t runtime.DataType) tval {
	switch op {
	case ir.OpEQ:
		return b2v(a == b)
	case ir.OpNE: // ordered: false when either side is NaN, as LLVM's fcmp one
		return b2v(a < b || a > b)
	case ir.OpLT:
		return b2v(a < b)
	case ir.OpLE:
		return b2v(a <= b)
	case ir.OpGT:
		return b2v(a > b)
	case ir.OpGE:
		return b2v(a >= b)
	case ir.OpMin: // a < b ? a : b
		if a < b {
			return tval{f: a}
		}
		return tval{f: b}
	case ir.OpMax: // a > b ? a : b
		if a > b {
			return tval{f: a}
		}
		return tval{f: b}
	}
	if t.Bits == 64 {
		return tval{f: floatArith(op, a, b, t)}
	}
	return tval{f: roundF(float64(floatArith(op, float32(a), float32(b), t)), t)}
}

// floatArith applies an arithmetic op in F's precision. Products are
// converted explicitly so that Go never fuses them into FMAs, as in the
// generated code.
func floatArith[F float32 | float64](op ir.BinOp, x, y F, t runtime.DataType) F {
	switch op {
	case ir.OpAdd:
		return x + y
	case ir.OpSub:
		return x - y
	case ir.OpMul:
		return F(x * y)
	case ir.OpDiv:
		return x / y
	case ir.OpMod:
		return F(math.Mod(float64(x), float64(y)))
	case ir.OpFloorDiv:
		return F(math.Floor(float64(x / y)))
	case ir.OpFloorMod:
		return x - F(F(math.Floor(float64(x/y)))*y)
	}
	ifail("unsupported operator %s on %s", op, t)
	return 0
}

// mathFuncs are the float intrinsics, evaluated in float64 and rounded once
// to the argument's type.
var mathFuncs1 = map[string]func(float64) float64{
	"exp": math.Exp, "exp2": math.Exp2, "exp10": func(x float64) float64 { return math.Pow(10, x) },
	"log": math.Log, "log2": math.Log2, "log10": math.Log10, "log1p": math.Log1p,
	"sqrt": math.Sqrt, "rsqrt": func(x float64) float64 { return 1 / math.Sqrt(x) },
	"tanh": math.Tanh, "tan": math.Tan, "sin": math.Sin, "cos": math.Cos, "sinh": math.Sinh, "cosh": math.Cosh,
	"asin": math.Asin, "acos": math.Acos, "atan": math.Atan, "asinh": math.Asinh, "acosh": math.Acosh, "atanh": math.Atanh,
	"sigmoid": func(x float64) float64 { return 1 / (1 + math.Exp(-x)) },
	"erf":     math.Erf, "fabs": math.Abs, "floor": math.Floor, "ceil": math.Ceil,
	"round": math.RoundToEven, "nearbyint": math.RoundToEven, "trunc": math.Trunc,
	"fast_exp": math.Exp, "fast_tanh": math.Tanh, "fast_erf": math.Erf,
}

var mathFuncs2 = map[string]func(float64, float64) float64{
	"pow": math.Pow, "atan2": math.Atan2, "fmod": math.Mod, "hypot": math.Hypot, "copysign": math.Copysign,
}

func (in *interp) call(x *ir.PrimCall) tval {
	switch x.Op {
	case "if_then_else":
		if in.expr(x.Args[0]).i != 0 {
			return in.expr(x.Args[1])
		}
		return in.expr(x.Args[2])
	case "likely":
		return in.expr(x.Args[0])
	case "isnan", "isinf", "isfinite":
		a := in.expr(x.Args[0])
		if !x.Args[0].DType().IsFloat() {
			return b2v(x.Op == "isfinite")
		}
		switch x.Op {
		case "isnan":
			return b2v(math.IsNaN(a.f))
		case "isinf":
			return b2v(math.IsInf(a.f, 0))
		}
		return b2v(!math.IsNaN(a.f) && !math.IsInf(a.f, 0))
	case "abs":
		a := in.expr(x.Args[0])
		t := x.Args[0].DType()
		if t.IsFloat() {
			return tval{f: math.Abs(a.f)}
		}
		if t.IsInt() && a.i < 0 {
			return tval{i: wrapInt(-a.i, t)}
		}
		return a
	}
	if fn := mathFuncs1[x.Op]; fn != nil && len(x.Args) == 1 {
		return tval{f: roundF(fn(in.expr(x.Args[0]).f), x.Args[0].DType())}
	}
	if fn := mathFuncs2[x.Op]; fn != nil && len(x.Args) == 2 {
		return tval{f: roundF(fn(in.expr(x.Args[0]).f, in.expr(x.Args[1]).f), x.Args[0].DType())}
	}
	ifail("unsupported intrinsic T.%s", x.Op)
	return tval{}
}
