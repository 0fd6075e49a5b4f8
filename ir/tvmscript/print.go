package tvmscript

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Dialect selects the TVMScript spelling that Print writes.
type Dialect int

const (
	// Current is today's TVM (v0.24+): "tirx", T.sblock, s_tir=True,
	// out_ty=, ty_args=, R.Any, bare PrimValue literals.
	Current Dialect = iota
	// V023 is TVM v0.23 and earlier: "tir", T.block, out_sinfo=,
	// sinfo_args=, R.Object, R.prim_value(...).
	V023
)

// String names the dialect as the CLI spells it.
func (d Dialect) String() string {
	if d == V023 {
		return "v0.23"
	}
	return "current"
}

// ParseDialect reads "current" or "v0.23".
func ParseDialect(s string) (Dialect, error) {
	switch s {
	case "current", "":
		return Current, nil
	case "v0.23", "v023", "0.23":
		return V023, nil
	}
	return Current, fmt.Errorf("unknown dialect %q (want current or v0.23)", s)
}

// Print writes m as TVMScript in dialect d. Functions come in TVM's order:
// PrimFuncs, then Relax functions, each alphabetical, with "main" last.
func Print(m *ir.Module, d Dialect) string {
	return PrintWith(m, d, PrintOptions{})
}

// PrintOptions adjust printing for reading rather than round-tripping.
type PrintOptions struct {
	// ElideConstantsOver, when positive, prints constants with more elements
	// than this as metadata["relax.expr.Constant"][i] references (numbered in
	// order of appearance), as TVM does without show_meta. Such output does
	// not re-parse without the constants.
	ElideConstantsOver int
}

// PrintWith is Print with options.
func PrintWith(m *ir.Module, d Dialect, opt PrintOptions) string {
	pr := &printer{d: d, elide: opt.ElideConstantsOver, metaIndex: map[*ir.Constant]int{}}
	pr.module(m)
	var out strings.Builder
	out.WriteString("# from tvm.script import ir as I\n")
	if pr.usesT {
		if d == V023 {
			out.WriteString("# from tvm.script import tir as T\n")
		} else {
			out.WriteString("# from tvm.script import tirx as T\n")
		}
	}
	if pr.usesR {
		out.WriteString("# from tvm.script import relax as R\n")
	}
	out.WriteString("\n")
	out.WriteString(pr.b.String())
	if pr.usesMeta {
		out.WriteString("\n# Metadata omitted. Use show_meta=True in script() method to show it.\n")
	}
	return out.String()
}

type printer struct {
	b      strings.Builder
	d      Dialect
	indent int
	usesT  bool
	usesR  bool
	// usesMeta records metadata[...] constant references.
	usesMeta bool
	// elide and metaIndex implement PrintOptions.ElideConstantsOver.
	elide     int
	metaIndex map[*ir.Constant]int
	// loopDom is the domain of each enclosing TIR loop variable.
	loopDom map[*ir.PrimVar]ir.Range
}

func (pr *printer) line(s string) {
	for i := 0; i < pr.indent; i++ {
		pr.b.WriteString("    ")
	}
	pr.b.WriteString(s)
	pr.b.WriteByte('\n')
}

func (pr *printer) v023() bool { return pr.d == V023 }

func (pr *printer) module(m *ir.Module) {
	var prims, relax []string
	for _, n := range m.Order {
		switch m.Funcs[n].(type) {
		case *ir.PrimFunc:
			prims = append(prims, n)
		case *ir.Function:
			relax = append(relax, n)
		}
	}
	sort.Strings(prims)
	sort.Slice(relax, func(i, j int) bool {
		a, b := relax[i], relax[j]
		if (a == "main") != (b == "main") {
			return b == "main"
		}
		return a < b
	})
	stir := m.STIR
	for _, n := range prims {
		f := m.Funcs[n].(*ir.PrimFunc)
		stir = stir || f.STIR || containsBlock(f.Body)
	}
	if stir && !pr.v023() {
		pr.line("@I.ir_module(s_tir=True)")
	} else {
		pr.line("@I.ir_module")
	}
	pr.line("class Module:")
	pr.indent++
	first := true
	if len(m.Attrs) > 0 {
		pr.line("I.module_attrs(" + pr.attrDict(m.Attrs, false) + ")")
		first = false
	}
	if len(m.GlobalInfos) > 0 {
		var parts []string
		for _, a := range m.GlobalInfos {
			s, ok := a.Value.(string)
			if !ok {
				s = fmt.Sprint(a.Value)
			}
			parts = append(parts, strconv.Quote(a.Key)+": "+s)
		}
		pr.line("I.module_global_infos({" + strings.Join(parts, ", ") + "})")
		first = false
	}
	for _, n := range prims {
		if !first {
			pr.b.WriteString("\n")
		}
		first = false
		pr.primFunc(n, m.Funcs[n].(*ir.PrimFunc))
	}
	for _, n := range relax {
		if !first {
			pr.b.WriteString("\n")
		}
		first = false
		pr.usesR = true
		pr.relaxFunc(n, m.Funcs[n].(*ir.Function))
	}
	if first {
		pr.line("pass")
	}
	pr.indent--
}

// ---- attribute values ----

func (pr *printer) attrDict(a ir.Attrs, tir bool) string {
	var parts []string
	for _, kv := range a {
		key := kv.Key
		if tir && !pr.v023() && strings.HasPrefix(key, "tir.") {
			key = "tirx." + strings.TrimPrefix(key, "tir.")
		}
		parts = append(parts, strconv.Quote(key)+": "+pr.attrVal(kv.Value, tir))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (pr *printer) attrVal(v any, tir bool) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if tir && pr.v023() {
			return "T.bool(" + pyBool(x) + ")"
		}
		return pyBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case float64:
		return ir.FormatFloat(x)
	case float32:
		return ir.FormatFloat(float64(x))
	case string:
		return strconv.Quote(x)
	case runtime.DataType:
		return strconv.Quote(x.String())
	case []any:
		parts := make([]string, len(x))
		for i, y := range x {
			parts[i] = pr.attrVal(y, tir)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []int64:
		parts := make([]string, len(x))
		for i, y := range x {
			parts[i] = strconv.FormatInt(y, 10)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []int:
		parts := make([]string, len(x))
		for i, y := range x {
			parts[i] = strconv.Itoa(y)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []float64:
		parts := make([]string, len(x))
		for i, y := range x {
			parts[i] = ir.FormatFloat(y)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []string:
		parts := make([]string, len(x))
		for i, y := range x {
			parts[i] = strconv.Quote(y)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case ir.Attrs:
		return pr.attrDict(x, tir)
	case *ir.IndexMap:
		return pr.indexMap(x)
	case ir.PrimExpr:
		pr.usesT = true
		if tir {
			return pr.prim(x, tirMode)
		}
		return pr.prim(x, relaxMode)
	case ir.StructInfo:
		return pr.sinfo(x, false)
	case ir.Expr:
		return pr.rexpr(x)
	}
	return fmt.Sprintf("%v", v)
}

// indexMap prints T.index_map(lambda i, j: (...)), with index_dtype when the
// parameters are not int64 (TVM's default for Relax).
func (pr *printer) indexMap(m *ir.IndexMap) string {
	pr.usesT = true
	mode, dt := relaxMode, runtime.Int64
	if len(m.Params) > 0 && m.Params[0].Type != runtime.Int64 {
		mode, dt = tirMode, m.Params[0].Type
	}
	ps := make([]string, len(m.Params))
	for i, p := range m.Params {
		ps[i] = p.Name
	}
	rs := make([]string, len(m.Results))
	for i, r := range m.Results {
		rs[i] = pr.prim(r, mode)
	}
	if len(rs) == 1 {
		rs[0] += ","
	}
	s := "T.index_map(lambda " + strings.Join(ps, ", ") + ": (" + strings.Join(rs, ", ") + ")"
	if dt != runtime.Int64 {
		s += ", index_dtype=" + strconv.Quote(dt.String())
	}
	return s + ")"
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// ---- PrimExprs ----

// primMode says how literals print: in Relax contexts int64 (and float64)
// literals are bare; in TIR int32 literals are.
type primMode int

const (
	tirMode primMode = iota
	relaxMode
)

func (pr *printer) prim(e ir.PrimExpr, m primMode) string {
	var b strings.Builder
	pr.writePrim(&b, e, 0, m)
	return b.String()
}

func binPrec(op ir.BinOp) int {
	switch op {
	case ir.OpOr:
		return 1
	case ir.OpAnd:
		return 2
	case ir.OpEQ, ir.OpNE, ir.OpLT, ir.OpLE, ir.OpGT, ir.OpGE:
		return 4
	case ir.OpAdd, ir.OpSub:
		return 5
	}
	return 6
}

func (pr *printer) floatLit(v float64, dt runtime.DataType) string {
	s := ir.FormatFloat(v)
	switch s {
	case "inf", "-inf", "nan":
		return fmt.Sprintf("T.%s(%q)", dt, s)
	}
	if pr.v023() {
		s = strings.TrimSuffix(s, ".0")
	}
	return fmt.Sprintf("T.%s(%s)", dt, s)
}

func (pr *printer) writePrim(b *strings.Builder, e ir.PrimExpr, prec int, m primMode) {
	defInt := runtime.Int32
	if m == relaxMode {
		defInt = runtime.Int64
	}
	call := func(name string, args ...ir.PrimExpr) {
		pr.usesT = true
		b.WriteString("T." + name + "(")
		for i, a := range args {
			if i > 0 {
				b.WriteString(", ")
			}
			pr.writePrim(b, a, 0, m)
		}
		b.WriteString(")")
	}
	switch x := e.(type) {
	case nil:
		b.WriteString("None")
	case *ir.IntImm:
		switch {
		case x.Type.IsBool():
			pr.usesT = true
			b.WriteString("T.bool(" + pyBool(x.Value != 0) + ")")
		case x.Type == defInt:
			if x.Value < 0 && prec > 0 {
				fmt.Fprintf(b, "(%d)", x.Value)
			} else {
				fmt.Fprintf(b, "%d", x.Value)
			}
		default:
			pr.usesT = true
			fmt.Fprintf(b, "T.%s(%d)", x.Type, x.Value)
		}
	case *ir.FloatImm:
		if m == relaxMode && x.Type == runtime.Float64 {
			s := ir.FormatFloat(x.Value)
			if s == "inf" || s == "-inf" || s == "nan" {
				b.WriteString(pr.floatLit(x.Value, x.Type))
			} else if x.Value < 0 && prec > 0 {
				b.WriteString("(" + s + ")")
			} else {
				b.WriteString(s)
			}
			return
		}
		pr.usesT = true
		b.WriteString(pr.floatLit(x.Value, x.Type))
	case *ir.PrimStr:
		b.WriteString(strconv.Quote(x.Value))
	case *ir.PrimVar:
		b.WriteString(x.Name)
	case *ir.Binary:
		switch x.Op {
		case ir.OpMin, ir.OpMax:
			call(x.Op.String(), x.A, x.B)
			return
		case ir.OpDiv:
			if !x.A.DType().IsFloat() {
				call("truncdiv", x.A, x.B)
				return
			}
		case ir.OpMod:
			call("truncmod", x.A, x.B)
			return
		}
		p := binPrec(x.Op)
		open := p < prec || p == 4 && prec == 4
		if open {
			b.WriteByte('(')
		}
		pr.writePrim(b, x.A, p, m)
		b.WriteString(" " + x.Op.String() + " ")
		pr.writePrim(b, x.B, p+1, m)
		if open {
			b.WriteByte(')')
		}
	case *ir.Not:
		if prec > 0 {
			b.WriteByte('(')
		}
		b.WriteString("not ")
		pr.writePrim(b, x.A, 7, m)
		if prec > 0 {
			b.WriteByte(')')
		}
	case *ir.Cast:
		pr.usesT = true
		fmt.Fprintf(b, "T.Cast(%q, ", x.Type.String())
		pr.writePrim(b, x.Value, 0, m)
		b.WriteString(")")
	case *ir.Select:
		call("Select", x.Cond, x.True, x.False)
	case *ir.PrimCall:
		switch x.Op {
		case "call_extern", "call_pure_extern", "call_llvm_intrin", "call_llvm_pure_intrin":
			pr.usesT = true
			fmt.Fprintf(b, "T.%s(%q", x.Op, x.Type.String())
			for _, a := range x.Args {
				b.WriteString(", ")
				pr.writePrim(b, a, 0, m)
			}
			b.WriteString(")")
			return
		}
		call(x.Op, x.Args...)
	case *ir.BufferLoad:
		b.WriteString(x.Buffer.Name + "[")
		for i, a := range x.Indices {
			if i > 0 {
				b.WriteString(", ")
			}
			pr.writePrim(b, a, 0, m)
		}
		if len(x.Indices) == 0 {
			b.WriteString("()") // a zero-dimensional buffer, as TVM prints it
		}
		b.WriteString("]")
	case *ir.Let:
		call("let", x.Var, x.Value, x.Body)
	default:
		fmt.Fprintf(b, "<unsupported %T>", e)
	}
}

// ---- struct info ----

// sinfo renders struct info; in a signature (sig) dimensions that mention
// symbolic variables print as strings, since the variables are declared in
// the body.
func (pr *printer) sinfo(s ir.StructInfo, sig bool) string {
	dim := func(d ir.PrimExpr) string {
		str := pr.prim(d, relaxMode)
		if sig && len(ir.FreeVars(d)) > 0 {
			return strconv.Quote(str)
		}
		return str
	}
	switch x := s.(type) {
	case nil:
		return "None"
	case *ir.ObjectSInfo:
		if pr.v023() {
			return "R.Object"
		}
		return "R.Any"
	case *ir.PrimSInfo:
		if x.Value != nil {
			return "R.Prim(value=" + dim(x.Value) + ")"
		}
		if !pr.v023() {
			pr.usesT = true
			return "T." + x.DType.String()
		}
		return "R.Prim(" + strconv.Quote(x.DType.String()) + ")"
	case *ir.ShapeSInfo:
		switch {
		case x.Values != nil:
			parts := make([]string, len(x.Values))
			for i, d := range x.Values {
				parts[i] = dim(d)
			}
			return "R.Shape([" + strings.Join(parts, ", ") + "])"
		case x.NDim >= 0:
			return "R.Shape(ndim=" + strconv.Itoa(x.NDim) + ")"
		}
		return "R.Shape"
	case *ir.TensorSInfo:
		var parts []string
		switch {
		case x.Shape != nil:
			ds := make([]string, len(x.Shape))
			for i, d := range x.Shape {
				ds[i] = dim(d)
			}
			parts = append(parts, tupleText(ds))
		case x.NDim >= 0:
			parts = append(parts, "ndim="+strconv.Itoa(x.NDim))
		}
		if !x.DType.IsVoid() {
			parts = append(parts, "dtype="+strconv.Quote(x.DType.String()))
		}
		if len(parts) == 0 {
			return "R.Tensor"
		}
		return "R.Tensor(" + strings.Join(parts, ", ") + ")"
	case *ir.TupleSInfo:
		if len(x.Fields) == 0 {
			return "R.Tuple"
		}
		parts := make([]string, len(x.Fields))
		for i, f := range x.Fields {
			parts[i] = pr.sinfo(f, sig)
		}
		return "R.Tuple(" + strings.Join(parts, ", ") + ")"
	case *ir.FuncSInfo:
		if x.Opaque {
			return "R.Callable"
		}
		parts := make([]string, len(x.Params))
		for i, p := range x.Params {
			parts[i] = pr.sinfo(p, sig)
		}
		s := "R.Callable(" + tupleText(parts) + ", " + pr.sinfo(x.Ret, sig)
		if !x.Pure {
			s += ", purity=False"
		}
		return s + ")"
	}
	return fmt.Sprintf("<unsupported %T>", s)
}

func tupleText(parts []string) string {
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
