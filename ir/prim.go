package ir

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
)

// DataType is the element type of tensors and PrimExprs (shared with the runtime).
type DataType = runtime.DataType

// PrimExpr is a scalar expression: TIR's expression language, also used for
// symbolic shape dimensions in Relax struct info.
type PrimExpr interface {
	// DType is the expression's scalar type.
	DType() DataType
	primExpr()
}

// IntImm is an integer (or bool) literal.
type IntImm struct {
	Value int64
	Type  DataType
}

// FloatImm is a floating-point literal.
type FloatImm struct {
	Value float64
	Type  DataType
}

// PrimStr is a string literal inside TIR (e.g. in T.evaluate calls).
type PrimStr struct{ Value string }

// PrimVar is a scalar variable: a symbolic shape variable (n = T.int64()), a
// loop variable, a block iteration variable or a PrimFunc parameter. Variables
// are compared by identity.
type PrimVar struct {
	Name string
	Type DataType
}

// BinOp is the operator of a Binary expression.
type BinOp int

// Binary operators. Div is true division for floats and truncating division
// for integers (TIR's Div); FloorDiv/FloorMod are Python's // and %.
const (
	OpAdd BinOp = iota
	OpSub
	OpMul
	OpDiv
	OpMod
	OpFloorDiv
	OpFloorMod
	OpMin
	OpMax
	OpEQ
	OpNE
	OpLT
	OpLE
	OpGT
	OpGE
	OpAnd
	OpOr
)

var binOpNames = [...]string{"+", "-", "*", "/", "%", "//", "%", "min", "max", "==", "!=", "<", "<=", ">", ">=", "and", "or"}

// String is the operator's spelling (Python operator or function name).
func (o BinOp) String() string { return binOpNames[o] }

// IsCompare reports whether o yields a bool.
func (o BinOp) IsCompare() bool { return o >= OpEQ && o <= OpGE }

// Binary is a binary arithmetic, comparison or logical expression.
type Binary struct {
	Op   BinOp
	A, B PrimExpr
}

// Not is logical negation.
type Not struct{ A PrimExpr }

// Cast converts Value to Type.
type Cast struct {
	Type  DataType
	Value PrimExpr
}

// Select is TIR's Select: both branches are evaluated.
type Select struct {
	Cond, True, False PrimExpr
}

// PrimCall is a call of a TIR intrinsic or math function, named by its TVMScript
// spelling without the "T." prefix: "exp", "if_then_else", "likely", "sqrt", ...
type PrimCall struct {
	Op   string
	Args []PrimExpr
	Type DataType
}

// BufferLoad reads Buffer at Indices.
type BufferLoad struct {
	Buffer  *Buffer
	Indices []PrimExpr
}

// Let binds Var to Value inside Body (T.let).
type Let struct {
	Var   *PrimVar
	Value PrimExpr
	Body  PrimExpr
}

func (*IntImm) primExpr()     {}
func (*FloatImm) primExpr()   {}
func (*PrimStr) primExpr()    {}
func (*PrimVar) primExpr()    {}
func (*Binary) primExpr()     {}
func (*Not) primExpr()        {}
func (*Cast) primExpr()       {}
func (*Select) primExpr()     {}
func (*PrimCall) primExpr()   {}
func (*BufferLoad) primExpr() {}
func (*Let) primExpr()        {}

// DType is the literal's type.
func (e *IntImm) DType() DataType { return e.Type }

// DType is the literal's type.
func (e *FloatImm) DType() DataType { return e.Type }

// DType of a string literal is handle.
func (e *PrimStr) DType() DataType {
	return runtime.DataType{Code: runtime.CodeHandle, Bits: 64, Lanes: 1}
}

// DType is the variable's type.
func (e *PrimVar) DType() DataType { return e.Type }

// DType is bool for comparisons and logical operators, else the operands' type.
func (e *Binary) DType() DataType {
	if e.Op.IsCompare() || e.Op == OpAnd || e.Op == OpOr {
		return runtime.Bool
	}
	return e.A.DType()
}

// DType is bool.
func (e *Not) DType() DataType { return runtime.Bool }

// DType is the target type.
func (e *Cast) DType() DataType { return e.Type }

// DType is the branches' type.
func (e *Select) DType() DataType { return e.True.DType() }

// DType is the call's result type.
func (e *PrimCall) DType() DataType { return e.Type }

// DType is the buffer's element type.
func (e *BufferLoad) DType() DataType { return e.Buffer.DType }

// DType is the body's type.
func (e *Let) DType() DataType { return e.Body.DType() }

// Int64 makes an int64 literal.
func Int64(v int64) *IntImm { return &IntImm{Value: v, Type: runtime.Int64} }

// NewPrimVar makes a fresh variable.
func NewPrimVar(name string, t DataType) *PrimVar { return &PrimVar{Name: name, Type: t} }

// AsInt returns e's value when e is an integer literal.
func AsInt(e PrimExpr) (int64, bool) {
	if i, ok := e.(*IntImm); ok {
		return i.Value, true
	}
	return 0, false
}

// Add builds the simplified sum a + b.
func Add(a, b PrimExpr) PrimExpr { return Simplify(&Binary{OpAdd, a, b}) }

// Sub builds the simplified difference a - b.
func Sub(a, b PrimExpr) PrimExpr { return Simplify(&Binary{OpSub, a, b}) }

// Mul builds the simplified product a * b.
func Mul(a, b PrimExpr) PrimExpr { return Simplify(&Binary{OpMul, a, b}) }

// FloorDiv builds the simplified floor division a // b.
func FloorDiv(a, b PrimExpr) PrimExpr { return Simplify(&Binary{OpFloorDiv, a, b}) }

// FloorMod builds the simplified floor modulo a % b.
func FloorMod(a, b PrimExpr) PrimExpr { return Simplify(&Binary{OpFloorMod, a, b}) }

// FloorDivInt is Python's // on int64.
func FloorDivInt(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// FloorModInt is Python's % on int64.
func FloorModInt(a, b int64) int64 {
	m := a % b
	if m != 0 && ((m < 0) != (b < 0)) {
		m += b
	}
	return m
}

// EvalInt evaluates an integer expression with the given variable values.
// It fails on unbound variables, division by zero and non-integer expressions.
func EvalInt(e PrimExpr, env map[*PrimVar]int64) (int64, error) {
	switch x := e.(type) {
	case *IntImm:
		return x.Value, nil
	case *PrimVar:
		if v, ok := env[x]; ok {
			return v, nil
		}
		return 0, fmt.Errorf("unbound variable %s", x.Name)
	case *Cast:
		if x.Type.IsFloat() {
			break
		}
		return EvalInt(x.Value, env)
	case *Binary:
		a, err := EvalInt(x.A, env)
		if err != nil {
			return 0, err
		}
		b, err := EvalInt(x.B, env)
		if err != nil {
			return 0, err
		}
		return evalIntBinary(x.Op, a, b)
	case *Not:
		a, err := EvalInt(x.A, env)
		if err != nil {
			return 0, err
		}
		return b2i(a == 0), nil
	case *Select:
		c, err := EvalInt(x.Cond, env)
		if err != nil {
			return 0, err
		}
		if c != 0 {
			return EvalInt(x.True, env)
		}
		return EvalInt(x.False, env)
	}
	return 0, fmt.Errorf("cannot evaluate %s as an integer", ExprString(e))
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func evalIntBinary(op BinOp, a, b int64) (int64, error) {
	switch op {
	case OpAdd:
		return a + b, nil
	case OpSub:
		return a - b, nil
	case OpMul:
		return a * b, nil
	case OpDiv, OpMod, OpFloorDiv, OpFloorMod:
		if b == 0 {
			return 0, fmt.Errorf("integer division by zero")
		}
		switch op {
		case OpDiv:
			return a / b, nil
		case OpMod:
			return a % b, nil
		case OpFloorDiv:
			return FloorDivInt(a, b), nil
		default:
			return FloorModInt(a, b), nil
		}
	case OpMin:
		return min(a, b), nil
	case OpMax:
		return max(a, b), nil
	case OpEQ:
		return b2i(a == b), nil
	case OpNE:
		return b2i(a != b), nil
	case OpLT:
		return b2i(a < b), nil
	case OpLE:
		return b2i(a <= b), nil
	case OpGT:
		return b2i(a > b), nil
	case OpGE:
		return b2i(a >= b), nil
	case OpAnd:
		return b2i(a != 0 && b != 0), nil
	case OpOr:
		return b2i(a != 0 || b != 0), nil
	}
	return 0, fmt.Errorf("unknown operator %d", op)
}

// FreeVars lists the PrimVars e reads, in first-appearance order.
func FreeVars(e PrimExpr) []*PrimVar {
	var out []*PrimVar
	seen := map[*PrimVar]bool{}
	VisitPrim(e, func(x PrimExpr) {
		if v, ok := x.(*PrimVar); ok && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	})
	return out
}

// VisitPrim calls f on e and every sub-expression, parents first.
func VisitPrim(e PrimExpr, f func(PrimExpr)) {
	if e == nil {
		return
	}
	f(e)
	switch x := e.(type) {
	case *Binary:
		VisitPrim(x.A, f)
		VisitPrim(x.B, f)
	case *Not:
		VisitPrim(x.A, f)
	case *Cast:
		VisitPrim(x.Value, f)
	case *Select:
		VisitPrim(x.Cond, f)
		VisitPrim(x.True, f)
		VisitPrim(x.False, f)
	case *PrimCall:
		for _, a := range x.Args {
			VisitPrim(a, f)
		}
	case *BufferLoad:
		for _, a := range x.Indices {
			VisitPrim(a, f)
		}
	case *Let:
		VisitPrim(x.Value, f)
		VisitPrim(x.Body, f)
	}
}

// SubstPrim replaces variables by expressions (returns e itself when nothing changes).
func SubstPrim(e PrimExpr, m map[*PrimVar]PrimExpr) PrimExpr {
	if e == nil || len(m) == 0 {
		return e
	}
	switch x := e.(type) {
	case *PrimVar:
		if r, ok := m[x]; ok {
			return r
		}
		return x
	case *Binary:
		a, b := SubstPrim(x.A, m), SubstPrim(x.B, m)
		if a == x.A && b == x.B {
			return x
		}
		return &Binary{x.Op, a, b}
	case *Not:
		a := SubstPrim(x.A, m)
		if a == x.A {
			return x
		}
		return &Not{a}
	case *Cast:
		v := SubstPrim(x.Value, m)
		if v == x.Value {
			return x
		}
		return &Cast{x.Type, v}
	case *Select:
		c, t, f := SubstPrim(x.Cond, m), SubstPrim(x.True, m), SubstPrim(x.False, m)
		if c == x.Cond && t == x.True && f == x.False {
			return x
		}
		return &Select{c, t, f}
	case *PrimCall:
		args, changed := substList(x.Args, m)
		if !changed {
			return x
		}
		return &PrimCall{x.Op, args, x.Type}
	case *BufferLoad:
		idx, changed := substList(x.Indices, m)
		if !changed {
			return x
		}
		return &BufferLoad{x.Buffer, idx}
	case *Let:
		v, b := SubstPrim(x.Value, m), SubstPrim(x.Body, m)
		if v == x.Value && b == x.Body {
			return x
		}
		return &Let{x.Var, v, b}
	}
	return e
}

func substList(es []PrimExpr, m map[*PrimVar]PrimExpr) ([]PrimExpr, bool) {
	changed := false
	out := make([]PrimExpr, len(es))
	for i, a := range es {
		out[i] = SubstPrim(a, m)
		changed = changed || out[i] != a
	}
	return out, changed
}
