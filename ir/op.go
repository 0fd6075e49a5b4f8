package ir

import (
	"fmt"
	"sort"
	"strings"

	"github.com/relaxgo/relaxgo/runtime"
)

// ArgKind says how CanonicalizeCall coerces an expression argument of an op.
type ArgKind int

// Expression argument kinds.
const (
	// ArgExpr is any expression; a bare literal becomes a PrimValue
	// (numbers), a StringImm (strings) or a Tuple (lists).
	ArgExpr ArgKind = iota
	// ArgPrim is a scalar: a literal or a PrimExpr becomes a *PrimValue.
	ArgPrim
	// ArgShape is a shape: a list or Tuple of integers/PrimValues becomes a *ShapeExpr.
	ArgShape
	// ArgPrimTuple is a tuple of scalars: a list becomes a *Tuple of *PrimValue.
	ArgPrimTuple
	// ArgTuple is a tuple-valued expression: a list becomes a *Tuple; any
	// other expression (e.g. a Var of tuple type) is kept.
	ArgTuple
	// ArgWrapTuple is like ArgTuple, but a non-Tuple expression is wrapped
	// into a one-element Tuple (call_tir's args, as TVM's Python does).
	ArgWrapTuple
	// ArgString is a *StringImm.
	ArgString
	// ArgDType is a *DataTypeImm; a string becomes one.
	ArgDType
	// ArgExtern is a callee: a string becomes an *ExternFunc.
	ArgExtern
)

// ArgDef describes one expression argument of an op.
type ArgDef struct {
	Name string
	Kind ArgKind
	// Optional arguments may be absent; absent trailing optional arguments
	// are omitted from Call.Args (as in TVM), absent ones before a present
	// argument are nil entries.
	Optional bool
	// Default, when non-nil, is used (coerced by Kind) when the argument is absent.
	Default any
	// Variadic collects all remaining positional arguments (last ArgDef only).
	Variadic bool
}

// AttrKind is the type of an attribute value.
type AttrKind int

// Attribute kinds and the Go types of their canonical values.
const (
	AttrInt       AttrKind = iota // int64
	AttrFloat                     // float64
	AttrBool                      // bool
	AttrString                    // string
	AttrDType                     // runtime.DataType (runtime.Void when unset/"void"/None)
	AttrIntList                   // []any of int64; a scalar is repeated Len times (once when Len is 0)
	AttrIntOrList                 // int64 or []any of int64 (split's indices_or_sections)
	AttrFloatList                 // []any of float64
	AttrAny                       // kept as given (plain values; Exprs are converted to plain values when possible)
)

var attrKindNames = [...]string{"int", "float", "bool", "string", "dtype", "int list", "int or int list", "float list", "any"}

// String names the kind.
func (k AttrKind) String() string { return attrKindNames[k] }

// AttrDef describes one attribute of an op.
type AttrDef struct {
	Name string
	Kind AttrKind
	// Optional attributes accept None (nil).
	Optional bool
	// Required attributes have no default and must be given.
	Required bool
	// Default is the canonical value used when the attribute is absent.
	Default any
	// Len is the length a scalar is expanded to for list kinds (0: one element).
	Len int
}

// OpDef is the registry entry of a Relax operator.
type OpDef struct {
	// Name is the full op name, e.g. "relax.add".
	Name string
	// Args are the expression arguments, in order.
	Args []ArgDef
	// Attrs are the attributes, in schema (printing) order.
	Attrs []AttrDef
	// PyOrder is the order of positional parameters in TVM's Python
	// signature, mixing Args and Attrs names; nil means Args then Attrs.
	PyOrder []string
	// Aliases maps older keyword spellings to current parameter names.
	Aliases map[string]string
	// Infer computes the struct info of a canonical call whose arguments
	// have struct info.
	Infer func(c *Call, ctx *InferCtx) (StructInfo, error)
	// Pure is false for ops with side effects (print, assert_op, kill_object, ...).
	Pure bool
	// Prep rearranges an op's unusual call forms (e.g. relax.print's
	// format keyword) before the generic conversion.
	Prep func(c *Call) error
	// Fixup finishes op-specific canonicalisation (e.g. completing conv
	// padding to 2*ndim values); it runs after the generic conversion.
	Fixup func(c *Call) error
}

// Arg returns the index of the expression argument name, or -1.
func (d *OpDef) Arg(name string) int {
	for i, a := range d.Args {
		if a.Name == name {
			return i
		}
	}
	return -1
}

// Attr returns the index of attribute name, or -1.
func (d *OpDef) Attr(name string) int {
	for i, a := range d.Attrs {
		if a.Name == name {
			return i
		}
	}
	return -1
}

var opRegistry = map[string]*OpDef{}

// RegisterOp adds (or replaces) an op definition.
func RegisterOp(d *OpDef) { opRegistry[d.Name] = d }

// LookupOp returns the definition of the op called name ("relax.add").
func LookupOp(name string) (*OpDef, bool) {
	d, ok := opRegistry[name]
	return d, ok
}

// RegisteredOps lists all registered op names, sorted.
func RegisteredOps() []string {
	out := make([]string, 0, len(opRegistry))
	for n := range opRegistry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// sinfoKeywords are keywords carrying explicit result struct info, in both dialects.
var sinfoKeywords = map[string]bool{"out_sinfo": true, "out_ty": true, "sinfo_args": true, "ty_args": true}

// CanonicalizeCall puts an op call into canonical form: Args hold exactly
// the op's expression arguments (keyword expression arguments moved in,
// literals coerced to the argument's kind), and Attrs hold every attribute in
// schema order with defaults filled and values normalised (int64, float64,
// bool, string, runtime.DataType, []any of int64/float64, nil). Keywords
// naming explicit result types (out_sinfo, out_ty, sinfo_args, ty_args) are
// moved to SInfoArgs. Calls whose callee is not an *Op only get that last
// treatment. Canonicalising a canonical call is a no-op.
func CanonicalizeCall(c *Call) error {
	if c == nil {
		return fmt.Errorf("canonicalize: nil call")
	}
	rest, err := takeSInfoKeywords(c, c.Attrs)
	if err != nil {
		return err
	}
	op, ok := c.Callee.(*Op)
	if !ok {
		c.Attrs = rest
		return nil
	}
	def, ok := LookupOp(op.Name)
	if !ok {
		return fmt.Errorf("unknown op %q", op.Name)
	}
	c.Attrs = rest
	if def.Prep != nil {
		if err := def.Prep(c); err != nil {
			return fmt.Errorf("%s: %w", def.Name, err)
		}
		rest = c.Attrs
	}
	params := def.PyOrder
	if params == nil {
		for _, a := range def.Args {
			params = append(params, a.Name)
		}
		for _, a := range def.Attrs {
			params = append(params, a.Name)
		}
	}
	vals := map[string]any{}
	var variadic []Expr
	hasVariadic := len(def.Args) > 0 && def.Args[len(def.Args)-1].Variadic
	varName := ""
	if hasVariadic {
		varName = def.Args[len(def.Args)-1].Name
	}
	pi := 0
	for i, a := range c.Args {
		if pi < len(params) && params[pi] == varName && hasVariadic {
			variadic = append(variadic, c.Args[i:]...)
			break
		}
		if pi >= len(params) {
			return fmt.Errorf("%s: too many arguments (got %d, at most %d)", def.Name, len(c.Args), len(params))
		}
		vals[params[pi]] = exprValue{a}
		pi++
	}
	for _, kv := range rest {
		name := kv.Key
		if def.Arg(name) < 0 && def.Attr(name) < 0 {
			if alias, ok := def.Aliases[name]; ok {
				name = alias
			} else {
				return fmt.Errorf("%s: unexpected keyword argument %q", def.Name, kv.Key)
			}
		}
		if _, dup := vals[name]; dup || (name == varName && hasVariadic) {
			return fmt.Errorf("%s: argument %q given twice", def.Name, name)
		}
		vals[name] = kv.Value
	}
	// Expression arguments.
	var args []Expr
	for _, ad := range def.Args {
		if ad.Variadic {
			for _, v := range variadic {
				e, err := coerceArg(def, ad, exprValue{v}, c.Loc)
				if err != nil {
					return err
				}
				args = append(args, e)
			}
			continue
		}
		v, ok := vals[ad.Name]
		if !ok || isNone(v) {
			if ad.Default != nil {
				v, ok = ad.Default, true
			} else if ad.Optional {
				args = append(args, nil)
				continue
			} else {
				return fmt.Errorf("%s: missing argument %q", def.Name, ad.Name)
			}
		}
		e, err := coerceArg(def, ad, v, c.Loc)
		if err != nil {
			return err
		}
		args = append(args, e)
	}
	if !hasVariadic {
		for len(args) > 0 && args[len(args)-1] == nil {
			args = args[:len(args)-1]
		}
	}
	// Attributes.
	attrs := make(Attrs, 0, len(def.Attrs))
	for _, ad := range def.Attrs {
		v, ok := vals[ad.Name]
		if !ok {
			if ad.Required {
				return fmt.Errorf("%s: missing attribute %q", def.Name, ad.Name)
			}
			v = ad.Default
		}
		nv, err := normAttr(ad, v)
		if err != nil {
			return fmt.Errorf("%s: attribute %q: %w", def.Name, ad.Name, err)
		}
		attrs = append(attrs, Attr{ad.Name, nv})
	}
	c.Args = args
	c.Attrs = attrs
	if def.Fixup != nil {
		if err := def.Fixup(c); err != nil {
			return fmt.Errorf("%s: %w", def.Name, err)
		}
	}
	return nil
}

// exprValue marks a positional argument (an Expr, possibly nil for None).
type exprValue struct{ e Expr }

func isNone(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case exprValue:
		return x.e == nil
	}
	return false
}

// takeSInfoKeywords moves explicit result-type keywords into c.SInfoArgs and
// returns the other attributes.
func takeSInfoKeywords(c *Call, attrs Attrs) (Attrs, error) {
	var rest Attrs
	for _, kv := range attrs {
		if !sinfoKeywords[kv.Key] {
			rest = append(rest, kv)
			continue
		}
		infos, err := sinfoList(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: keyword %s: %w", callName(c), kv.Key, err)
		}
		c.SInfoArgs = append(c.SInfoArgs, infos...)
	}
	return rest, nil
}

func sinfoList(v any) ([]StructInfo, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case StructInfo:
		return []StructInfo{x}, nil
	case []StructInfo:
		return x, nil
	case []any:
		var out []StructInfo
		for _, e := range x {
			s, ok := e.(StructInfo)
			if !ok {
				return nil, fmt.Errorf("expected struct info, got %T", e)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("expected struct info, got %T", v)
}

func callName(c *Call) string {
	switch f := c.Callee.(type) {
	case *Op:
		return f.Name
	case *GlobalVar:
		return f.Name
	case *ExternFunc:
		return f.Symbol
	case *Var:
		return f.Name
	}
	return "call"
}

// plainValue converts an expression literal to a plain Go value: PrimValue
// int -> int64 (bool -> bool), float -> float64, other PrimExprs kept;
// Tuple -> []any; ShapeExpr -> []any; StringImm -> string; DataTypeImm ->
// DataType. ok is false for other expressions.
func plainValue(e Expr) (any, bool) {
	switch x := e.(type) {
	case nil:
		return nil, true
	case *PrimValue:
		switch v := x.Value.(type) {
		case *IntImm:
			if v.Type.IsBool() {
				return v.Value != 0, true
			}
			return v.Value, true
		case *FloatImm:
			return v.Value, true
		}
		return x.Value, true
	case *StringImm:
		return x.Value, true
	case *DataTypeImm:
		return x.Value, true
	case *Tuple:
		out := make([]any, len(x.Fields))
		for i, f := range x.Fields {
			v, ok := plainValue(f)
			if !ok {
				return nil, false
			}
			out[i] = v
		}
		return out, true
	case *ShapeExpr:
		out := make([]any, len(x.Values))
		for i, d := range x.Values {
			if n, ok := AsInt(d); ok {
				out[i] = n
			} else {
				out[i] = d
			}
		}
		return out, true
	}
	return nil, false
}

// toPlain unwraps positional expression values into plain Go values where possible.
func toPlain(v any) (any, error) {
	ev, ok := v.(exprValue)
	if !ok {
		if e, isExpr := v.(Expr); isExpr {
			ev = exprValue{e}
		} else {
			return v, nil
		}
	}
	p, ok := plainValue(ev.e)
	if !ok {
		return nil, fmt.Errorf("expected a literal, got %s", exprKind(ev.e))
	}
	return p, nil
}

func exprKind(e Expr) string {
	switch x := e.(type) {
	case *Var:
		return "variable " + x.Name
	case nil:
		return "None"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", e), "*ir.")
}

// normAttr converts a value to the canonical Go value for ad's kind.
func normAttr(ad AttrDef, v any) (any, error) {
	v, err := toPlain(v)
	if err != nil {
		return nil, err
	}
	if v == nil {
		if ad.Kind == AttrDType {
			return runtime.Void, nil
		}
		if ad.Optional || ad.Kind == AttrAny {
			return nil, nil
		}
		return nil, fmt.Errorf("None is not allowed (want %s)", ad.Kind)
	}
	switch ad.Kind {
	case AttrInt:
		return asInt64(v)
	case AttrFloat:
		return asFloat64(v)
	case AttrBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case int64:
			if x == 0 || x == 1 {
				return x == 1, nil
			}
		}
		return nil, fmt.Errorf("want bool, got %s", valueDesc(v))
	case AttrString:
		if s, ok := v.(string); ok {
			return s, nil
		}
		return nil, fmt.Errorf("want string, got %s", valueDesc(v))
	case AttrDType:
		switch x := v.(type) {
		case DataType:
			return x, nil
		case string:
			dt, err := runtime.ParseDataType(x)
			if err != nil {
				return nil, err
			}
			return dt, nil
		}
		return nil, fmt.Errorf("want dtype, got %s", valueDesc(v))
	case AttrIntList, AttrFloatList:
		conv := asInt64
		if ad.Kind == AttrFloatList {
			conv = asFloat64
		}
		list, ok := v.([]any)
		if !ok {
			s, err := conv(v)
			if err != nil {
				return nil, fmt.Errorf("want %s, got %s", ad.Kind, valueDesc(v))
			}
			n := max(ad.Len, 1)
			out := make([]any, n)
			for i := range out {
				out[i] = s
			}
			return out, nil
		}
		out := make([]any, len(list))
		for i, x := range list {
			s, err := conv(x)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out[i] = s
		}
		return out, nil
	case AttrIntOrList:
		if list, ok := v.([]any); ok {
			out := make([]any, len(list))
			for i, x := range list {
				if pe, ok := x.(PrimExpr); ok {
					if n, ok := AsInt(pe); ok {
						out[i] = n
						continue
					}
					out[i] = pe
					continue
				}
				s, err := asInt64(x)
				if err != nil {
					return nil, fmt.Errorf("element %d: %w", i, err)
				}
				out[i] = s
			}
			return out, nil
		}
		return asInt64(v)
	case AttrAny:
		return v, nil
	}
	return nil, fmt.Errorf("unknown attribute kind %d", ad.Kind)
}

func asInt64(v any) (any, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case *IntImm:
		return x.Value, nil
	}
	return nil, fmt.Errorf("want int, got %s", valueDesc(v))
}

func asFloat64(v any) (any, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int64:
		return float64(x), nil
	case int:
		return float64(x), nil
	case *FloatImm:
		return x.Value, nil
	case *IntImm:
		return float64(x.Value), nil
	}
	return nil, fmt.Errorf("want float, got %s", valueDesc(v))
}

func valueDesc(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("string %q", x)
	case []any:
		return "list"
	case PrimExpr:
		return "expression " + ExprString(x)
	}
	return fmt.Sprintf("%T %v", v, v)
}

// literalExpr makes an expression from a plain Go value.
func literalExpr(v any, loc Span) (Expr, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case Expr:
		return x, nil
	case int64:
		return &PrimValue{ExprBase{Loc: loc}, Int64(x)}, nil
	case int:
		return &PrimValue{ExprBase{Loc: loc}, Int64(int64(x))}, nil
	case float64:
		return &PrimValue{ExprBase{Loc: loc}, &FloatImm{x, runtime.Float64}}, nil
	case bool:
		return &PrimValue{ExprBase{Loc: loc}, &IntImm{b2i(x), runtime.Bool}}, nil
	case PrimExpr:
		return &PrimValue{ExprBase{Loc: loc}, x}, nil
	case string:
		return &StringImm{ExprBase{Loc: loc}, x}, nil
	case DataType:
		return &DataTypeImm{ExprBase{Loc: loc}, x}, nil
	case []any:
		t := &Tuple{ExprBase: ExprBase{Loc: loc}}
		for _, f := range x {
			e, err := literalExpr(f, loc)
			if err != nil {
				return nil, err
			}
			t.Fields = append(t.Fields, e)
		}
		return t, nil
	}
	return nil, fmt.Errorf("cannot use %s as an expression", valueDesc(v))
}

// primOf returns the PrimExpr of a scalar literal expression or value.
func primOf(v any) (PrimExpr, bool) {
	switch x := v.(type) {
	case *PrimValue:
		return x.Value, true
	case int64:
		return Int64(x), true
	case int:
		return Int64(int64(x)), true
	case PrimExpr:
		return x, true
	}
	return nil, false
}

// coerceArg converts a positional or keyword value into the expression
// argument described by ad.
func coerceArg(def *OpDef, ad ArgDef, v any, loc Span) (Expr, error) {
	if ev, ok := v.(exprValue); ok {
		v = ev.e
	}
	fail := func(want string) (Expr, error) {
		return nil, fmt.Errorf("%s: argument %q: want %s, got %s", def.Name, ad.Name, want, argDesc(v))
	}
	switch ad.Kind {
	case ArgExpr:
		if e, ok := v.(Expr); ok {
			return e, nil
		}
		e, err := literalExpr(v, loc)
		if err != nil {
			return nil, fmt.Errorf("%s: argument %q: %w", def.Name, ad.Name, err)
		}
		return e, nil
	case ArgPrim:
		switch x := v.(type) {
		case Expr:
			return x, nil
		case int64, int, float64, bool, PrimExpr:
			return literalExpr(x, loc)
		}
		return fail("a scalar")
	case ArgShape:
		var items []any
		switch x := v.(type) {
		case *Tuple:
			for _, f := range x.Fields {
				items = append(items, f)
			}
		case Expr:
			return x, nil
		case []any:
			items = x
		case int64, int, PrimExpr:
			items = []any{x}
		default:
			return fail("a shape")
		}
		dims := make([]PrimExpr, len(items))
		for i, it := range items {
			p, ok := primOf(it)
			if !ok {
				return fail("a shape")
			}
			dims[i] = p
		}
		return &ShapeExpr{ExprBase{Loc: loc}, dims}, nil
	case ArgPrimTuple:
		switch x := v.(type) {
		case *ShapeExpr:
			t := &Tuple{ExprBase: ExprBase{Loc: loc}}
			for _, d := range x.Values {
				t.Fields = append(t.Fields, &PrimValue{ExprBase{Loc: loc}, d})
			}
			return t, nil
		case Expr:
			return x, nil
		case []any:
			t := &Tuple{ExprBase: ExprBase{Loc: loc}}
			for _, it := range x {
				if e, ok := it.(Expr); ok {
					t.Fields = append(t.Fields, e)
					continue
				}
				p, ok := primOf(it)
				if !ok {
					return fail("a tuple of integers")
				}
				t.Fields = append(t.Fields, &PrimValue{ExprBase{Loc: loc}, p})
			}
			return t, nil
		case int64, int, PrimExpr:
			p, _ := primOf(x)
			return &Tuple{ExprBase{Loc: loc}, []Expr{&PrimValue{ExprBase{Loc: loc}, p}}}, nil
		}
		return fail("a tuple of integers")
	case ArgTuple, ArgWrapTuple:
		switch x := v.(type) {
		case *Tuple:
			return x, nil
		case Expr:
			if ad.Kind == ArgWrapTuple {
				return &Tuple{ExprBase{Loc: loc}, []Expr{x}}, nil
			}
			return x, nil
		case []any:
			return literalExpr(x, loc)
		}
		return fail("a tuple")
	case ArgString:
		switch x := v.(type) {
		case string:
			return &StringImm{ExprBase{Loc: loc}, x}, nil
		case Expr:
			return x, nil
		}
		return fail("a string")
	case ArgDType:
		switch x := v.(type) {
		case *StringImm:
			dt, err := runtime.ParseDataType(x.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: argument %q: %w", def.Name, ad.Name, err)
			}
			return &DataTypeImm{ExprBase{Loc: x.Loc}, dt}, nil
		case string:
			dt, err := runtime.ParseDataType(x)
			if err != nil {
				return nil, fmt.Errorf("%s: argument %q: %w", def.Name, ad.Name, err)
			}
			return &DataTypeImm{ExprBase{Loc: loc}, dt}, nil
		case DataType:
			return &DataTypeImm{ExprBase{Loc: loc}, x}, nil
		case Expr:
			return x, nil
		}
		return fail("a dtype")
	case ArgExtern:
		switch x := v.(type) {
		case *StringImm:
			return &ExternFunc{ExprBase{Loc: x.Loc}, x.Value}, nil
		case string:
			return &ExternFunc{ExprBase{Loc: loc}, x}, nil
		case Expr:
			return x, nil
		}
		return fail("a function")
	}
	return nil, fmt.Errorf("%s: argument %q: unknown kind", def.Name, ad.Name)
}

func argDesc(v any) string {
	if e, ok := v.(Expr); ok {
		return exprKind(e)
	}
	return valueDesc(v)
}

// AttrInt64 returns an int64 attribute of a canonical call.
func (c *Call) AttrInt64(key string) (int64, bool) {
	v, ok := c.Attrs.Get(key)
	if !ok {
		return 0, false
	}
	n, ok := v.(int64)
	return n, ok
}

// AttrInts returns an int-list attribute of a canonical call as []int64
// (nil when absent or None).
func (c *Call) AttrInts(key string) []int64 {
	v, _ := c.Attrs.Get(key)
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]int64, 0, len(list))
	for _, x := range list {
		if n, ok := x.(int64); ok {
			out = append(out, n)
		}
	}
	return out
}
