package ir

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
)

// Span is a source location: file, 1-based line and column. The zero Span means unknown.
type Span struct {
	File      string
	Line, Col int
}

// String renders "file:line:col" (or "" when unknown).
func (s Span) String() string {
	if s.Line == 0 {
		return s.File
	}
	return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col)
}

// Expr is a Relax expression.
type Expr interface {
	// SInfo is the expression's struct info (nil until inferred).
	SInfo() StructInfo
	// SetSInfo records the expression's struct info.
	SetSInfo(StructInfo)
	// Pos is where the expression came from.
	Pos() Span
	exprNode()
}

// ExprBase holds the fields every expression has.
type ExprBase struct {
	Info StructInfo
	Loc  Span
}

// SInfo returns the recorded struct info.
func (b *ExprBase) SInfo() StructInfo { return b.Info }

// SetSInfo records struct info.
func (b *ExprBase) SetSInfo(s StructInfo) { b.Info = s }

// Pos returns the source location.
func (b *ExprBase) Pos() Span { return b.Loc }

// Var is a Relax variable (Dataflow for variables bound inside a dataflow
// block and not output). Variables are compared by identity.
type Var struct {
	ExprBase
	Name     string
	Dataflow bool
}

// GlobalVar names a function of the module (cls.f).
type GlobalVar struct {
	ExprBase
	Name string
}

// ExternFunc names a function outside the module, looked up at run time (R.ExternFunc / call_packed).
type ExternFunc struct {
	ExprBase
	Symbol string
}

// Op is a Relax operator, e.g. "relax.add", "relax.nn.conv2d", "relax.call_tir".
type Op struct {
	ExprBase
	Name string
}

// Constant is a tensor literal. MetaIndex is its index in the printed
// metadata["relax.expr.Constant"] table, or -1 for an inline R.const.
type Constant struct {
	ExprBase
	Value     *runtime.Tensor
	MetaIndex int
}

// ShapeExpr is a shape value, R.shape([...]).
type ShapeExpr struct {
	ExprBase
	Values []PrimExpr
}

// PrimValue is a scalar value, R.prim_value(v).
type PrimValue struct {
	ExprBase
	Value PrimExpr
}

// StringImm is a string value, R.str("...").
type StringImm struct {
	ExprBase
	Value string
}

// DataTypeImm is a dtype value, R.dtype("float32").
type DataTypeImm struct {
	ExprBase
	Value DataType
}

// Tuple builds a tuple value.
type Tuple struct {
	ExprBase
	Fields []Expr
}

// TupleGetItem reads field Index of a tuple.
type TupleGetItem struct {
	ExprBase
	Tuple Expr
	Index int
}

// Attr is one keyword attribute of a call. Values are int64, float64, bool,
// string, DataType, PrimExpr, nil (None), or []any of these.
type Attr struct {
	Key   string
	Value any
}

// Attrs is an ordered attribute list.
type Attrs []Attr

// Get returns the value of key.
func (a Attrs) Get(key string) (any, bool) {
	for _, x := range a {
		if x.Key == key {
			return x.Value, true
		}
	}
	return nil, false
}

// Set replaces key's value or appends it.
func (a Attrs) Set(key string, v any) Attrs {
	for i, x := range a {
		if x.Key == key {
			out := append(Attrs{}, a...)
			out[i].Value = v
			return out
		}
	}
	return append(append(Attrs{}, a...), Attr{key, v})
}

// Call calls an operator, a module function, an external function or a value.
// Callee is *Op, *GlobalVar, *ExternFunc or any expression yielding a callable.
type Call struct {
	ExprBase
	Callee Expr
	Args   []Expr
	Attrs  Attrs
	// SInfoArgs are explicit result types (out_sinfo/sinfo_args, today out_ty/ty_args).
	SInfoArgs []StructInfo
}

// If is a conditional; Then and Else are *SeqExpr.
type If struct {
	ExprBase
	Cond       Expr
	Then, Else *SeqExpr
}

// SeqExpr is a sequence of binding blocks followed by a result.
type SeqExpr struct {
	ExprBase
	Blocks []*BindingBlock
	Body   Expr
}

// BindingBlock is a list of bindings; a dataflow block when Dataflow is true.
type BindingBlock struct {
	Dataflow bool
	Bindings []Binding
	Loc      Span
}

// Binding binds a variable: *VarBinding or *MatchCast.
type Binding interface {
	BoundVar() *Var
	BoundValue() Expr
	Pos() Span
}

// VarBinding is `var = value`.
type VarBinding struct {
	Var   *Var
	Value Expr
	Loc   Span
}

// MatchCast is `var = R.match_cast(value, sinfo)`: a run-time checked cast that
// may bind symbolic variables.
type MatchCast struct {
	Var   *Var
	Value Expr
	Info  StructInfo
	Loc   Span
}

// BoundVar is the variable the binding defines.
func (b *VarBinding) BoundVar() *Var { return b.Var }

// BoundVar is the variable the match cast defines.
func (b *MatchCast) BoundVar() *Var { return b.Var }

// BoundValue is the bound expression.
func (b *VarBinding) BoundValue() Expr { return b.Value }

// BoundValue is the expression being cast.
func (b *MatchCast) BoundValue() Expr { return b.Value }

// Pos is where the binding is written.
func (b *VarBinding) Pos() Span { return b.Loc }

// Pos is where the match cast is written.
func (b *MatchCast) Pos() Span { return b.Loc }

// Function is a Relax function.
type Function struct {
	ExprBase
	Name   string
	Params []*Var
	Body   *SeqExpr
	Ret    StructInfo
	Attrs  Attrs
	// Pure is false for @R.function(pure=False).
	Pure bool
	// Private marks @R.function(private=True): no global_symbol.
	Private bool
}

// NumInput is the "num_input" attribute (all params when absent).
func (f *Function) NumInput() int {
	if v, ok := f.Attrs.Get("num_input"); ok {
		if n, ok := v.(int64); ok && n >= 0 && int(n) <= len(f.Params) {
			return int(n)
		}
	}
	return len(f.Params)
}

func (*Var) exprNode()          {}
func (*GlobalVar) exprNode()    {}
func (*ExternFunc) exprNode()   {}
func (*Op) exprNode()           {}
func (*Constant) exprNode()     {}
func (*ShapeExpr) exprNode()    {}
func (*PrimValue) exprNode()    {}
func (*StringImm) exprNode()    {}
func (*DataTypeImm) exprNode()  {}
func (*Tuple) exprNode()        {}
func (*TupleGetItem) exprNode() {}
func (*Call) exprNode()         {}
func (*If) exprNode()           {}
func (*SeqExpr) exprNode()      {}
func (*Function) exprNode()     {}

// OpName returns the operator name when c calls an *Op, else "".
func (c *Call) OpName() string {
	if op, ok := c.Callee.(*Op); ok {
		return op.Name
	}
	return ""
}
