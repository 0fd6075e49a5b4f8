package ir

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// StructuralEqual compares two modules structurally and returns a
// description of the first difference, or nil when they are equal.
//
// Functions are matched by name (declaration order is ignored). Variables
// (Relax Vars, PrimVars) and buffers are compared by binding position: the
// first time a variable of a meets one of b they are paired, and every later
// occurrence must respect the pairing; their names and types must agree too.
// Source positions are ignored, and so are presentation-only flags (STIR:
// whether the text said s_tir=True). The struct info recorded on a Relax
// variable is compared only when both sides have one (a missing annotation
// means "not inferred yet"); parameter and return annotations are always
// compared.
func StructuralEqual(a, b *Module) error {
	if a == nil || b == nil {
		if a == b {
			return nil
		}
		return fmt.Errorf("one module is nil")
	}
	names := func(m *Module) []string {
		out := make([]string, 0, len(m.Funcs))
		for n := range m.Funcs {
			out = append(out, n)
		}
		sort.Strings(out)
		return out
	}
	na, nb := names(a), names(b)
	if strings.Join(na, ",") != strings.Join(nb, ",") {
		return fmt.Errorf("function sets differ: [%s] vs [%s]", strings.Join(na, ", "), strings.Join(nb, ", "))
	}
	eq := newStructEq()
	if err := eq.attrs("module attrs", a.Attrs, b.Attrs); err != nil {
		return err
	}
	if err := eq.attrs("module global infos", a.GlobalInfos, b.GlobalInfos); err != nil {
		return err
	}
	for _, n := range na {
		var err error
		switch fa := a.Funcs[n].(type) {
		case *Function:
			fb, ok := b.Funcs[n].(*Function)
			if !ok {
				return fmt.Errorf("function %s: Relax function vs %T", n, b.Funcs[n])
			}
			err = eq.function(fa, fb)
		case *PrimFunc:
			fb, ok := b.Funcs[n].(*PrimFunc)
			if !ok {
				return fmt.Errorf("function %s: PrimFunc vs %T", n, b.Funcs[n])
			}
			err = eq.primFunc(fa, fb)
		default:
			err = fmt.Errorf("unknown function type %T", fa)
		}
		if err != nil {
			return fmt.Errorf("function %s: %w", n, err)
		}
	}
	return nil
}

// FunctionStructuralEqual compares two Relax functions like StructuralEqual.
func FunctionStructuralEqual(a, b *Function) error { return newStructEq().function(a, b) }

// StructInfoEqual reports whether two struct infos are structurally equal,
// pairing symbolic variables by first occurrence.
func StructInfoEqual(a, b StructInfo) bool { return newStructEq().sinfo("", a, b) == nil }

type structEq struct {
	vars    map[*Var]*Var
	rvars   map[*Var]*Var
	pvars   map[*PrimVar]*PrimVar
	rpvars  map[*PrimVar]*PrimVar
	bufs    map[*Buffer]*Buffer
	rbufs   map[*Buffer]*Buffer
	checked map[*Buffer]bool
}

func newStructEq() *structEq {
	return &structEq{vars: map[*Var]*Var{}, rvars: map[*Var]*Var{}, pvars: map[*PrimVar]*PrimVar{},
		rpvars: map[*PrimVar]*PrimVar{}, bufs: map[*Buffer]*Buffer{}, rbufs: map[*Buffer]*Buffer{}, checked: map[*Buffer]bool{}}
}

func diff(path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if path == "" {
		return fmt.Errorf("%s", msg)
	}
	return fmt.Errorf("%s: %s", path, msg)
}

func (q *structEq) relaxVar(path string, a, b *Var) error {
	if a == nil || b == nil {
		if a == b {
			return nil
		}
		return diff(path, "variable vs nil")
	}
	if a.Name != b.Name {
		return diff(path, "variable %s vs %s", a.Name, b.Name)
	}
	if a.Dataflow != b.Dataflow {
		return diff(path, "variable %s: dataflow %v vs %v", a.Name, a.Dataflow, b.Dataflow)
	}
	if m, ok := q.vars[a]; ok {
		if m != b {
			return diff(path, "variable %s refers to a different binding", a.Name)
		}
		return nil
	}
	if _, ok := q.rvars[b]; ok {
		return diff(path, "variable %s refers to a different binding", a.Name)
	}
	q.vars[a], q.rvars[b] = b, a
	if a.Info != nil && b.Info != nil {
		if err := q.sinfo(path+": "+a.Name+" annotation", a.Info, b.Info); err != nil {
			return err
		}
	}
	return nil
}

func (q *structEq) primVar(path string, a, b *PrimVar) error {
	if a.Name != b.Name {
		return diff(path, "variable %s vs %s", a.Name, b.Name)
	}
	if a.Type != b.Type {
		return diff(path, "variable %s: type %s vs %s", a.Name, a.Type, b.Type)
	}
	if m, ok := q.pvars[a]; ok {
		if m != b {
			return diff(path, "variable %s refers to a different definition", a.Name)
		}
		return nil
	}
	if _, ok := q.rpvars[b]; ok {
		return diff(path, "variable %s refers to a different definition", a.Name)
	}
	q.pvars[a], q.rpvars[b] = b, a
	return nil
}

func (q *structEq) function(a, b *Function) error {
	if a.Name != b.Name {
		return diff("", "name %s vs %s", a.Name, b.Name)
	}
	if a.Pure != b.Pure {
		return diff("", "purity %v vs %v", a.Pure, b.Pure)
	}
	if a.Private != b.Private {
		return diff("", "private %v vs %v", a.Private, b.Private)
	}
	if len(a.Params) != len(b.Params) {
		return diff("", "%d params vs %d", len(a.Params), len(b.Params))
	}
	for i := range a.Params {
		p := fmt.Sprintf("param %d", i)
		if (a.Params[i].Info == nil) != (b.Params[i].Info == nil) {
			return diff(p, "annotation present on one side only")
		}
		if err := q.relaxVar(p, a.Params[i], b.Params[i]); err != nil {
			return err
		}
	}
	if err := q.sinfo("return type", a.Ret, b.Ret); err != nil {
		return err
	}
	if err := q.attrs("attrs", a.Attrs, b.Attrs); err != nil {
		return err
	}
	return q.seq("body", a.Body, b.Body)
}

func (q *structEq) seq(path string, a, b *SeqExpr) error {
	if a == nil || b == nil {
		if a == b {
			return nil
		}
		return diff(path, "sequence vs nil")
	}
	if len(a.Blocks) != len(b.Blocks) {
		return diff(path, "%d binding blocks vs %d", len(a.Blocks), len(b.Blocks))
	}
	for i := range a.Blocks {
		ba, bb := a.Blocks[i], b.Blocks[i]
		p := fmt.Sprintf("%s: block %d", path, i)
		if ba.Dataflow != bb.Dataflow {
			return diff(p, "dataflow %v vs %v", ba.Dataflow, bb.Dataflow)
		}
		if len(ba.Bindings) != len(bb.Bindings) {
			return diff(p, "%d bindings vs %d", len(ba.Bindings), len(bb.Bindings))
		}
		for j := range ba.Bindings {
			x, y := ba.Bindings[j], bb.Bindings[j]
			bp := fmt.Sprintf("%s: binding %d (%s)", p, j, x.BoundVar().Name)
			switch xa := x.(type) {
			case *VarBinding:
				ya, ok := y.(*VarBinding)
				if !ok {
					return diff(bp, "VarBinding vs %T", y)
				}
				if err := q.expr(bp, xa.Value, ya.Value); err != nil {
					return err
				}
				if err := q.relaxVar(bp, xa.Var, ya.Var); err != nil {
					return err
				}
			case *MatchCast:
				ya, ok := y.(*MatchCast)
				if !ok {
					return diff(bp, "MatchCast vs %T", y)
				}
				if err := q.expr(bp, xa.Value, ya.Value); err != nil {
					return err
				}
				if err := q.sinfo(bp+": match_cast type", xa.Info, ya.Info); err != nil {
					return err
				}
				if err := q.relaxVar(bp, xa.Var, ya.Var); err != nil {
					return err
				}
			default:
				return diff(bp, "unknown binding %T", x)
			}
		}
	}
	return q.expr(path+": result", a.Body, b.Body)
}

func (q *structEq) exprs(path string, a, b []Expr) error {
	if len(a) != len(b) {
		return diff(path, "%d elements vs %d", len(a), len(b))
	}
	for i := range a {
		if err := q.expr(fmt.Sprintf("%s[%d]", path, i), a[i], b[i]); err != nil {
			return err
		}
	}
	return nil
}

func (q *structEq) expr(path string, a, b Expr) error {
	if a == nil || b == nil {
		if isNilExpr(a) && isNilExpr(b) {
			return nil
		}
		return diff(path, "%s vs %s", exprKindName(a), exprKindName(b))
	}
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return diff(path, "%s vs %s", exprKindName(a), exprKindName(b))
	}
	switch x := a.(type) {
	case *Var:
		y := b.(*Var)
		m, ok := q.vars[x]
		if !ok {
			if x == y {
				return nil // the same free variable
			}
			return diff(path, "unbound variable %s", x.Name)
		}
		if m != y {
			return diff(path, "variable %s vs %s", x.Name, y.Name)
		}
	case *GlobalVar:
		if y := b.(*GlobalVar); x.Name != y.Name {
			return diff(path, "global %s vs %s", x.Name, y.Name)
		}
	case *ExternFunc:
		if y := b.(*ExternFunc); x.Symbol != y.Symbol {
			return diff(path, "extern func %q vs %q", x.Symbol, y.Symbol)
		}
	case *Op:
		if y := b.(*Op); x.Name != y.Name {
			return diff(path, "op %s vs %s", x.Name, y.Name)
		}
	case *Constant:
		y := b.(*Constant)
		if x.MetaIndex != y.MetaIndex {
			return diff(path, "constant metadata index %d vs %d", x.MetaIndex, y.MetaIndex)
		}
		if (x.Value == nil) != (y.Value == nil) {
			return diff(path, "constant value missing on one side")
		}
		if x.Value != nil {
			if x.Value.DType() != y.Value.DType() {
				return diff(path, "constant dtype %s vs %s", x.Value.DType(), y.Value.DType())
			}
			if fmt.Sprint(x.Value.Shape()) != fmt.Sprint(y.Value.Shape()) {
				return diff(path, "constant shape %v vs %v", x.Value.Shape(), y.Value.Shape())
			}
			if !bytes.Equal(x.Value.Bytes(), y.Value.Bytes()) {
				return diff(path, "constant values differ")
			}
		}
	case *ShapeExpr:
		return q.prims(path+": shape", x.Values, b.(*ShapeExpr).Values)
	case *PrimValue:
		return q.prim(path+": prim value", x.Value, b.(*PrimValue).Value)
	case *StringImm:
		if y := b.(*StringImm); x.Value != y.Value {
			return diff(path, "string %q vs %q", x.Value, y.Value)
		}
	case *DataTypeImm:
		if y := b.(*DataTypeImm); x.Value != y.Value {
			return diff(path, "dtype %s vs %s", x.Value, y.Value)
		}
	case *Tuple:
		return q.exprs(path+": tuple", x.Fields, b.(*Tuple).Fields)
	case *TupleGetItem:
		y := b.(*TupleGetItem)
		if x.Index != y.Index {
			return diff(path, "tuple index %d vs %d", x.Index, y.Index)
		}
		return q.expr(path, x.Tuple, y.Tuple)
	case *Call:
		y := b.(*Call)
		if err := q.expr(path+": callee", x.Callee, y.Callee); err != nil {
			return err
		}
		if err := q.exprs(path+": args", x.Args, y.Args); err != nil {
			return err
		}
		if err := q.attrs(path+": attrs", x.Attrs, y.Attrs); err != nil {
			return err
		}
		if len(x.SInfoArgs) != len(y.SInfoArgs) {
			return diff(path, "%d sinfo args vs %d", len(x.SInfoArgs), len(y.SInfoArgs))
		}
		for i := range x.SInfoArgs {
			if err := q.sinfo(fmt.Sprintf("%s: sinfo arg %d", path, i), x.SInfoArgs[i], y.SInfoArgs[i]); err != nil {
				return err
			}
		}
	case *If:
		y := b.(*If)
		if err := q.expr(path+": condition", x.Cond, y.Cond); err != nil {
			return err
		}
		if err := q.seq(path+": then", x.Then, y.Then); err != nil {
			return err
		}
		return q.seq(path+": else", x.Else, y.Else)
	case *SeqExpr:
		return q.seq(path, x, b.(*SeqExpr))
	case *Function:
		if err := q.function(x, b.(*Function)); err != nil {
			return diff(path, "nested function: %v", err)
		}
	default:
		return diff(path, "cannot compare %T", a)
	}
	return nil
}

func isNilExpr(e Expr) bool {
	if e == nil {
		return true
	}
	v := reflect.ValueOf(e)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

func exprKindName(e Expr) string {
	if isNilExpr(e) {
		return "nil"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", e), "*ir.")
}

func (q *structEq) sinfo(path string, a, b StructInfo) error {
	if a == nil || b == nil {
		if a == nil && b == nil {
			return nil
		}
		return diff(path, "struct info %s vs %s", sinfoDesc(a), sinfoDesc(b))
	}
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return diff(path, "struct info %s vs %s", sinfoDesc(a), sinfoDesc(b))
	}
	switch x := a.(type) {
	case *ObjectSInfo:
	case *PrimSInfo:
		y := b.(*PrimSInfo)
		if x.DType != y.DType {
			return diff(path, "prim dtype %s vs %s", x.DType, y.DType)
		}
		return q.prim(path, x.Value, y.Value)
	case *ShapeSInfo:
		y := b.(*ShapeSInfo)
		if x.NDim != y.NDim || (x.Values == nil) != (y.Values == nil) {
			return diff(path, "struct info %s vs %s", sinfoDesc(a), sinfoDesc(b))
		}
		return q.prims(path, x.Values, y.Values)
	case *TensorSInfo:
		y := b.(*TensorSInfo)
		if x.NDim != y.NDim || x.DType != y.DType || (x.Shape == nil) != (y.Shape == nil) {
			return diff(path, "struct info %s vs %s", sinfoDesc(a), sinfoDesc(b))
		}
		return q.prims(path, x.Shape, y.Shape)
	case *TupleSInfo:
		y := b.(*TupleSInfo)
		if len(x.Fields) != len(y.Fields) {
			return diff(path, "struct info %s vs %s", sinfoDesc(a), sinfoDesc(b))
		}
		for i := range x.Fields {
			if err := q.sinfo(fmt.Sprintf("%s: field %d", path, i), x.Fields[i], y.Fields[i]); err != nil {
				return err
			}
		}
	case *FuncSInfo:
		y := b.(*FuncSInfo)
		if x.Opaque != y.Opaque || x.Pure != y.Pure || x.DeriveFunc != y.DeriveFunc || len(x.Params) != len(y.Params) {
			return diff(path, "struct info %s vs %s", sinfoDesc(a), sinfoDesc(b))
		}
		for i := range x.Params {
			if err := q.sinfo(fmt.Sprintf("%s: param %d", path, i), x.Params[i], y.Params[i]); err != nil {
				return err
			}
		}
		return q.sinfo(path+": result", x.Ret, y.Ret)
	default:
		return diff(path, "cannot compare struct info %T", a)
	}
	return nil
}

func sinfoDesc(s StructInfo) string {
	if s == nil {
		return "none"
	}
	return SInfoString(s)
}

func (q *structEq) prims(path string, a, b []PrimExpr) error {
	if len(a) != len(b) {
		return diff(path, "%d values vs %d", len(a), len(b))
	}
	for i := range a {
		if err := q.prim(fmt.Sprintf("%s[%d]", path, i), a[i], b[i]); err != nil {
			return err
		}
	}
	return nil
}

func primDesc(e PrimExpr) string {
	if e == nil {
		return "none"
	}
	return ExprString(e)
}

func (q *structEq) prim(path string, a, b PrimExpr) error {
	if a == nil || b == nil {
		if a == nil && b == nil {
			return nil
		}
		return diff(path, "%s vs %s", primDesc(a), primDesc(b))
	}
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return diff(path, "%s vs %s", primDesc(a), primDesc(b))
	}
	mismatch := func() error { return diff(path, "%s vs %s", primDesc(a), primDesc(b)) }
	switch x := a.(type) {
	case *IntImm:
		y := b.(*IntImm)
		if x.Value != y.Value || x.Type != y.Type {
			return diff(path, "%s (%s) vs %s (%s)", primDesc(a), x.Type, primDesc(b), y.Type)
		}
	case *FloatImm:
		y := b.(*FloatImm)
		same := x.Value == y.Value || math.IsNaN(x.Value) && math.IsNaN(y.Value)
		if !same || x.Type != y.Type {
			return diff(path, "%s (%s) vs %s (%s)", primDesc(a), x.Type, primDesc(b), y.Type)
		}
	case *PrimStr:
		if x.Value != b.(*PrimStr).Value {
			return mismatch()
		}
	case *PrimVar:
		return q.primVar(path, x, b.(*PrimVar))
	case *Binary:
		y := b.(*Binary)
		if x.Op != y.Op {
			return mismatch()
		}
		if err := q.prim(path, x.A, y.A); err != nil {
			return err
		}
		return q.prim(path, x.B, y.B)
	case *Not:
		return q.prim(path, x.A, b.(*Not).A)
	case *Cast:
		y := b.(*Cast)
		if x.Type != y.Type {
			return mismatch()
		}
		return q.prim(path, x.Value, y.Value)
	case *Select:
		y := b.(*Select)
		if err := q.prim(path, x.Cond, y.Cond); err != nil {
			return err
		}
		if err := q.prim(path, x.True, y.True); err != nil {
			return err
		}
		return q.prim(path, x.False, y.False)
	case *PrimCall:
		y := b.(*PrimCall)
		if x.Op != y.Op || x.Type != y.Type {
			return mismatch()
		}
		return q.prims(path, x.Args, y.Args)
	case *BufferLoad:
		y := b.(*BufferLoad)
		if err := q.buffer(path, x.Buffer, y.Buffer); err != nil {
			return err
		}
		return q.prims(path, x.Indices, y.Indices)
	case *Let:
		y := b.(*Let)
		if err := q.prim(path, x.Value, y.Value); err != nil {
			return err
		}
		if err := q.primVar(path, x.Var, y.Var); err != nil {
			return err
		}
		return q.prim(path, x.Body, y.Body)
	default:
		return diff(path, "cannot compare %T", a)
	}
	return nil
}

// attrs compares attribute lists key by key, in order.
func (q *structEq) attrs(path string, a, b Attrs) error {
	if len(a) != len(b) {
		return diff(path, "%d attributes vs %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Key != b[i].Key {
			return diff(path, "attribute %q vs %q", a[i].Key, b[i].Key)
		}
		if err := q.attrValue(path+": "+a[i].Key, a[i].Value, b[i].Value); err != nil {
			return err
		}
	}
	return nil
}

func (q *structEq) attrValue(path string, a, b any) error {
	switch x := a.(type) {
	case Attrs:
		y, ok := b.(Attrs)
		if !ok {
			return diff(path, "%v vs %v", a, b)
		}
		return q.attrs(path, x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return diff(path, "%v vs %v", a, b)
		}
		for i := range x {
			if err := q.attrValue(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); err != nil {
				return err
			}
		}
		return nil
	case PrimExpr:
		y, ok := b.(PrimExpr)
		if !ok {
			return diff(path, "%v vs %v", a, b)
		}
		return q.prim(path, x, y)
	case *IndexMap:
		y, ok := b.(*IndexMap)
		if !ok || len(x.Params) != len(y.Params) || len(x.Results) != len(y.Results) {
			return diff(path, "%v vs %v", a, b)
		}
		for i := range x.Params {
			if err := q.primVar(path, x.Params[i], y.Params[i]); err != nil {
				return err
			}
		}
		for i := range x.Results {
			if err := q.prim(fmt.Sprintf("%s[%d]", path, i), x.Results[i], y.Results[i]); err != nil {
				return err
			}
		}
		return nil
	case StructInfo:
		y, ok := b.(StructInfo)
		if !ok {
			return diff(path, "%v vs %v", a, b)
		}
		return q.sinfo(path, x, y)
	case Expr:
		y, ok := b.(Expr)
		if !ok {
			return diff(path, "%v vs %v", a, b)
		}
		return q.expr(path, x, y)
	case float64:
		y, ok := b.(float64)
		if !ok || !(x == y || math.IsNaN(x) && math.IsNaN(y)) {
			return diff(path, "%v vs %v", a, b)
		}
		return nil
	}
	if !reflect.DeepEqual(a, b) {
		return diff(path, "%v vs %v", a, b)
	}
	return nil
}

// ---- TIR ----

func (q *structEq) buffer(path string, a, b *Buffer) error {
	if a == nil || b == nil {
		if a == b {
			return nil
		}
		return diff(path, "buffer vs nil")
	}
	if m, ok := q.bufs[a]; ok {
		if m != b {
			return diff(path, "buffer %s refers to a different buffer", a.Name)
		}
		return nil
	}
	if _, ok := q.rbufs[b]; ok {
		return diff(path, "buffer %s refers to a different buffer", a.Name)
	}
	q.bufs[a], q.rbufs[b] = b, a
	p := path + ": buffer " + a.Name
	if a.Name != b.Name {
		return diff(path, "buffer %s vs %s", a.Name, b.Name)
	}
	if a.DType != b.DType {
		return diff(p, "dtype %s vs %s", a.DType, b.DType)
	}
	scope := func(s string) string {
		if s == "" {
			return "global"
		}
		return s
	}
	if scope(a.Scope) != scope(b.Scope) {
		return diff(p, "scope %s vs %s", scope(a.Scope), scope(b.Scope))
	}
	if err := q.prims(p+": shape", a.Shape, b.Shape); err != nil {
		return err
	}
	if err := q.prims(p+": strides", a.Strides, b.Strides); err != nil {
		return err
	}
	return q.prim(p+": elem_offset", a.ElemOffset, b.ElemOffset)
}

func (q *structEq) primFunc(a, b *PrimFunc) error {
	if a.Name != b.Name {
		return diff("", "name %s vs %s", a.Name, b.Name)
	}
	if a.Private != b.Private {
		return diff("", "private %v vs %v", a.Private, b.Private)
	}
	if len(a.Params) != len(b.Params) {
		return diff("", "%d params vs %d", len(a.Params), len(b.Params))
	}
	for i := range a.Params {
		p := fmt.Sprintf("param %d", i)
		if err := q.primVar(p, a.Params[i], b.Params[i]); err != nil {
			return err
		}
		ba, bb := a.BufferMap[a.Params[i]], b.BufferMap[b.Params[i]]
		if (ba == nil) != (bb == nil) {
			return diff(p, "buffer binding present on one side only")
		}
		if ba != nil {
			if err := q.buffer(p, ba, bb); err != nil {
				return err
			}
		}
	}
	if err := q.attrs("attrs", a.Attrs, b.Attrs); err != nil {
		return err
	}
	return q.stmt("body", a.Body, b.Body)
}

func (q *structEq) ranges(path string, a, b []Range) error {
	if len(a) != len(b) {
		return diff(path, "%d ranges vs %d", len(a), len(b))
	}
	for i := range a {
		p := fmt.Sprintf("%s[%d]", path, i)
		if err := q.prim(p+".min", a[i].Min, b[i].Min); err != nil {
			return err
		}
		if err := q.prim(p+".extent", a[i].Extent, b[i].Extent); err != nil {
			return err
		}
	}
	return nil
}

func (q *structEq) regions(path string, a, b []BufferRegion) error {
	if len(a) != len(b) {
		return diff(path, "%d regions vs %d", len(a), len(b))
	}
	for i := range a {
		p := fmt.Sprintf("%s[%d]", path, i)
		if err := q.buffer(p, a[i].Buffer, b[i].Buffer); err != nil {
			return err
		}
		if err := q.ranges(p, a[i].Region, b[i].Region); err != nil {
			return err
		}
	}
	return nil
}

func stmtKind(s Stmt) string {
	if s == nil {
		return "nil"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", s), "*ir.")
}

func (q *structEq) stmt(path string, a, b Stmt) error {
	if sa, ok := a.(*SeqStmt); ok && len(sa.Stmts) == 1 {
		a = sa.Stmts[0]
	}
	if sb, ok := b.(*SeqStmt); ok && len(sb.Stmts) == 1 {
		b = sb.Stmts[0]
	}
	if a == nil || b == nil || reflect.TypeOf(a) != reflect.TypeOf(b) {
		if a == nil && b == nil {
			return nil
		}
		return diff(path, "%s vs %s", stmtKind(a), stmtKind(b))
	}
	switch x := a.(type) {
	case *SeqStmt:
		y := b.(*SeqStmt)
		if len(x.Stmts) != len(y.Stmts) {
			return diff(path, "%d statements vs %d", len(x.Stmts), len(y.Stmts))
		}
		for i := range x.Stmts {
			if err := q.stmt(fmt.Sprintf("%s: stmt %d", path, i), x.Stmts[i], y.Stmts[i]); err != nil {
				return err
			}
		}
	case *For:
		y := b.(*For)
		p := path + ": for " + x.Var.Name
		if x.Kind != y.Kind || x.ThreadTag != y.ThreadTag {
			return diff(p, "loop kind %s %q vs %s %q", x.Kind, x.ThreadTag, y.Kind, y.ThreadTag)
		}
		if err := q.prim(p+": min", x.Min, y.Min); err != nil {
			return err
		}
		if err := q.prim(p+": extent", x.Extent, y.Extent); err != nil {
			return err
		}
		if err := q.primVar(p, x.Var, y.Var); err != nil {
			return err
		}
		if err := q.attrs(p+": annotations", x.Annotations, y.Annotations); err != nil {
			return err
		}
		return q.stmt(p, x.Body, y.Body)
	case *Block:
		y := b.(*Block)
		p := path + ": block " + x.Name
		if x.Name != y.Name {
			return diff(path, "block %q vs %q", x.Name, y.Name)
		}
		if x.Implicit != y.Implicit {
			return diff(p, "implicit root %v vs %v", x.Implicit, y.Implicit)
		}
		if len(x.IterVars) != len(y.IterVars) {
			return diff(p, "%d iteration variables vs %d", len(x.IterVars), len(y.IterVars))
		}
		for i := range x.IterVars {
			iva, ivb := x.IterVars[i], y.IterVars[i]
			ip := fmt.Sprintf("%s: iter var %d", p, i)
			if iva.Kind != ivb.Kind {
				return diff(ip, "kind %d vs %d", iva.Kind, ivb.Kind)
			}
			if err := q.ranges(ip+": domain", []Range{iva.Dom}, []Range{ivb.Dom}); err != nil {
				return err
			}
			if err := q.prim(ip+": binding", iva.Binding, ivb.Binding); err != nil {
				return err
			}
			if err := q.primVar(ip, iva.Var, ivb.Var); err != nil {
				return err
			}
		}
		if err := q.prim(p+": predicate", x.Predicate, y.Predicate); err != nil {
			return err
		}
		if len(x.AllocBuffers) != len(y.AllocBuffers) {
			return diff(p, "%d allocated buffers vs %d", len(x.AllocBuffers), len(y.AllocBuffers))
		}
		for i := range x.AllocBuffers {
			if err := q.buffer(p+": alloc", x.AllocBuffers[i], y.AllocBuffers[i]); err != nil {
				return err
			}
		}
		if err := q.regions(p+": reads", x.Reads, y.Reads); err != nil {
			return err
		}
		if err := q.regions(p+": writes", x.Writes, y.Writes); err != nil {
			return err
		}
		if err := q.attrs(p+": annotations", x.Annotations, y.Annotations); err != nil {
			return err
		}
		if (x.Init == nil) != (y.Init == nil) {
			return diff(p, "init present on one side only")
		}
		if x.Init != nil {
			if err := q.stmt(p+": init", x.Init, y.Init); err != nil {
				return err
			}
		}
		return q.stmt(p, x.Body, y.Body)
	case *BufferStore:
		y := b.(*BufferStore)
		p := path + ": store"
		if err := q.buffer(p, x.Buffer, y.Buffer); err != nil {
			return err
		}
		if err := q.prims(p+": indices", x.Indices, y.Indices); err != nil {
			return err
		}
		return q.prim(p+": value", x.Value, y.Value)
	case *IfThenElse:
		y := b.(*IfThenElse)
		if err := q.prim(path+": if condition", x.Cond, y.Cond); err != nil {
			return err
		}
		if err := q.stmt(path+": then", x.Then, y.Then); err != nil {
			return err
		}
		return q.stmt(path+": else", x.Else, y.Else)
	case *LetStmt:
		y := b.(*LetStmt)
		if err := q.prim(path+": let value", x.Value, y.Value); err != nil {
			return err
		}
		if err := q.primVar(path+": let", x.Var, y.Var); err != nil {
			return err
		}
		return q.stmt(path, x.Body, y.Body)
	case *AttrStmt:
		y := b.(*AttrStmt)
		if x.Key != y.Key {
			return fmt.Errorf("%s: attr key %q vs %q", path, x.Key, y.Key)
		}
		if err := q.prim(path+": attr node", x.Node, y.Node); err != nil {
			return err
		}
		if err := q.prim(path+": attr value", x.Value, y.Value); err != nil {
			return err
		}
		return q.stmt(path, x.Body, y.Body)
	case *Evaluate:
		return q.prim(path+": evaluate", x.Value, b.(*Evaluate).Value)
	case *AllocBuffer:
		y := b.(*AllocBuffer)
		if err := q.buffer(path+": alloc", x.Buffer, y.Buffer); err != nil {
			return err
		}
		return q.stmt(path, x.Body, y.Body)
	default:
		return diff(path, "cannot compare %T", a)
	}
	return nil
}
