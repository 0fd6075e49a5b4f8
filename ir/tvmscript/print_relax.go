package tvmscript

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

func (pr *printer) relaxFunc(name string, f *ir.Function) {
	var kws []string
	if !f.Pure {
		kws = append(kws, "pure=False")
	}
	if f.Private {
		kws = append(kws, "private=True")
	}
	if len(kws) > 0 {
		pr.line("@R.function(" + strings.Join(kws, ", ") + ")")
	} else {
		pr.line("@R.function")
	}
	params := make([]string, len(f.Params))
	for i, p := range f.Params {
		params[i] = p.Name + ": " + pr.sinfo(p.Info, true)
	}
	sig := "def " + name + "(" + strings.Join(params, ", ") + ")"
	if f.Ret != nil {
		sig += " -> " + pr.sinfo(f.Ret, true)
	}
	pr.line(sig + ":")
	pr.indent++
	for _, v := range symVars(f) {
		pr.usesT = true
		pr.line(v.Name + " = T." + v.Type.String() + "()")
	}
	if len(f.Attrs) > 0 {
		pr.line("R.func_attr(" + pr.attrDict(f.Attrs, false) + ")")
	}
	if usesGlobalVar(f.Body) {
		pr.line("cls = Module")
	}
	if f.Body == nil {
		pr.line("return R.tuple()")
	} else {
		pr.seqBlocks(f.Body)
		pr.line("return " + pr.rexpr(f.Body.Body))
	}
	pr.indent--
}

// symVars lists the symbolic variables a function mentions, in first-appearance order.
func symVars(f *ir.Function) []*ir.PrimVar {
	var out []*ir.PrimVar
	seen := map[*ir.PrimVar]bool{}
	prim := func(e ir.PrimExpr) {
		for _, v := range ir.FreeVars(e) {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	sinfo := func(s ir.StructInfo) { ir.VisitSInfoPrims(s, prim) }
	var attr func(v any)
	var expr func(e ir.Expr)
	attr = func(v any) {
		switch x := v.(type) {
		case ir.PrimExpr:
			prim(x)
		case []any:
			for _, y := range x {
				attr(y)
			}
		case ir.StructInfo:
			sinfo(x)
		case ir.Expr:
			expr(x)
		}
	}
	var seq func(s *ir.SeqExpr)
	expr = func(e ir.Expr) {
		switch x := e.(type) {
		case *ir.ShapeExpr:
			for _, d := range x.Values {
				prim(d)
			}
		case *ir.PrimValue:
			prim(x.Value)
		case *ir.Tuple:
			for _, y := range x.Fields {
				expr(y)
			}
		case *ir.TupleGetItem:
			expr(x.Tuple)
		case *ir.Call:
			expr(x.Callee)
			for _, y := range x.Args {
				expr(y)
			}
			for _, a := range x.Attrs {
				attr(a.Value)
			}
			for _, s := range x.SInfoArgs {
				sinfo(s)
			}
		case *ir.If:
			expr(x.Cond)
			seq(x.Then)
			seq(x.Else)
		case *ir.SeqExpr:
			seq(x)
		}
	}
	seq = func(s *ir.SeqExpr) {
		if s == nil {
			return
		}
		for _, b := range s.Blocks {
			for _, bd := range b.Bindings {
				sinfo(bd.BoundVar().Info)
				if mc, ok := bd.(*ir.MatchCast); ok {
					sinfo(mc.Info)
				}
				expr(bd.BoundValue())
			}
		}
		expr(s.Body)
	}
	for _, p := range f.Params {
		sinfo(p.Info)
	}
	sinfo(f.Ret)
	seq(f.Body)
	return out
}

// usesGlobalVar reports whether s refers to a module function (needs `cls = Module`).
func usesGlobalVar(s *ir.SeqExpr) bool {
	if s == nil {
		return false
	}
	found := false
	var visit func(e ir.Expr) bool
	visit = func(e ir.Expr) bool {
		switch x := e.(type) {
		case *ir.GlobalVar:
			found = true
		case *ir.Call:
			for _, a := range x.Attrs {
				if y, ok := a.Value.(ir.Expr); ok {
					ir.VisitExpr(y, visit)
				}
			}
		}
		return !found
	}
	ir.VisitExpr(s, visit)
	return found
}

func (pr *printer) seqBlocks(s *ir.SeqExpr) {
	for _, blk := range s.Blocks {
		if !blk.Dataflow {
			for _, b := range blk.Bindings {
				pr.binding(b)
			}
			continue
		}
		pr.line("with R.dataflow():")
		pr.indent++
		var outs []string
		for _, b := range blk.Bindings {
			pr.binding(b)
			if v := b.BoundVar(); !v.Dataflow && v.Name != "_" {
				outs = append(outs, v.Name)
			}
		}
		pr.line("R.output(" + strings.Join(outs, ", ") + ")")
		pr.indent--
	}
}

// annotation renders ": ann" for a bound variable, or "" when TVM would
// leave it implicit (no struct info, or the call states its own result type).
func (pr *printer) annotation(v *ir.Var, value ir.Expr) string {
	if v.Info == nil {
		return ""
	}
	ann := pr.sinfo(v.Info, false)
	if c, ok := value.(*ir.Call); ok && len(c.SInfoArgs) > 0 {
		var derived ir.StructInfo
		if len(c.SInfoArgs) == 1 {
			derived = c.SInfoArgs[0]
		} else {
			derived = &ir.TupleSInfo{Fields: c.SInfoArgs}
		}
		if pr.sinfo(derived, false) == ann {
			return ""
		}
	}
	return ": " + ann
}

func (pr *printer) binding(b ir.Binding) {
	switch x := b.(type) {
	case *ir.MatchCast:
		ann := ""
		if x.Var.Info != nil {
			ann = ": " + pr.sinfo(x.Var.Info, false)
		}
		pr.line(x.Var.Name + ann + " = R.match_cast(" + pr.rexpr(x.Value) + ", " + pr.sinfo(x.Info, false) + ")")
	case *ir.VarBinding:
		switch v := x.Value.(type) {
		case *ir.If:
			pr.ifStmt(x.Var, v)
			return
		case *ir.Function:
			pr.relaxFunc(x.Var.Name, v)
			return
		}
		if x.Var.Name == "_" {
			pr.line(pr.rexpr(x.Value))
			return
		}
		pr.line(x.Var.Name + pr.annotation(x.Var, x.Value) + " = " + pr.rexpr(x.Value))
	}
}

func (pr *printer) ifStmt(v *ir.Var, e *ir.If) {
	ann := ""
	if v.Info != nil {
		ann = ": " + pr.sinfo(v.Info, false)
	}
	pr.line("if " + pr.rexpr(e.Cond) + ":")
	for i, br := range []*ir.SeqExpr{e.Then, e.Else} {
		if i == 1 {
			pr.line("else:")
		}
		pr.indent++
		if br != nil {
			pr.seqBlocks(br)
			pr.line(v.Name + ann + " = " + pr.rexpr(br.Body))
		} else {
			pr.line(v.Name + ann + " = R.tuple()")
		}
		pr.indent--
	}
}

// rexpr renders a Relax expression.
func (pr *printer) rexpr(e ir.Expr) string {
	switch x := e.(type) {
	case nil:
		return "None"
	case *ir.Var:
		return x.Name
	case *ir.GlobalVar:
		return "cls." + x.Name
	case *ir.ExternFunc:
		if fs, ok := x.SInfo().(*ir.FuncSInfo); ok && (!fs.Opaque || fs.DeriveFunc != "") {
			return "R.ExternFunc(" + strconv.Quote(x.Symbol) + ", " + pr.sinfo(fs, false) + ")"
		}
		return "R.ExternFunc(" + strconv.Quote(x.Symbol) + ")"
	case *ir.Op:
		return "R." + strings.TrimPrefix(x.Name, "relax.")
	case *ir.Constant:
		return pr.constant(x)
	case *ir.ShapeExpr:
		parts := make([]string, len(x.Values))
		for i, d := range x.Values {
			parts[i] = pr.prim(d, relaxMode)
		}
		return "R.shape([" + strings.Join(parts, ", ") + "])"
	case *ir.PrimValue:
		if !pr.v023() {
			switch v := x.Value.(type) {
			case *ir.IntImm:
				if v.Type == runtime.Int64 {
					return strconv.FormatInt(v.Value, 10)
				}
				if v.Type.IsBool() {
					return pyBool(v.Value != 0)
				}
			case *ir.FloatImm:
				if v.Type == runtime.Float64 {
					if s := ir.FormatFloat(v.Value); s != "inf" && s != "-inf" && s != "nan" {
						return s
					}
				}
			}
		}
		return "R.prim_value(" + pr.prim(x.Value, relaxMode) + ")"
	case *ir.StringImm:
		return "R.str(" + strconv.Quote(x.Value) + ")"
	case *ir.DataTypeImm:
		return "R.dtype(" + strconv.Quote(x.Value.String()) + ")"
	case *ir.Tuple:
		if len(x.Fields) == 0 {
			return "R.tuple()"
		}
		parts := make([]string, len(x.Fields))
		for i, f := range x.Fields {
			parts[i] = pr.rexpr(f)
		}
		return tupleText(parts)
	case *ir.TupleGetItem:
		return pr.rexpr(x.Tuple) + "[" + strconv.Itoa(x.Index) + "]"
	case *ir.Call:
		return pr.call(x)
	}
	return fmt.Sprintf("<unsupported %T>", e)
}

func (pr *printer) constant(c *ir.Constant) string {
	if c.MetaIndex >= 0 {
		pr.usesMeta = true
		return fmt.Sprintf("metadata[\"relax.expr.Constant\"][%d]", c.MetaIndex)
	}
	t := c.Value
	if t == nil {
		return "R.const(0)"
	}
	if pr.elide > 0 && t.NumElements() > int64(pr.elide) {
		i, ok := pr.metaIndex[c]
		if !ok {
			i = len(pr.metaIndex)
			pr.metaIndex[c] = i
		}
		pr.usesMeta = true
		return fmt.Sprintf("metadata[\"relax.expr.Constant\"][%d]", i)
	}
	elem := func(i int) string {
		switch v := getElem(t, i).(type) {
		case bool:
			return pyBool(v)
		case int64:
			return strconv.FormatInt(v, 10)
		case float64:
			s := ir.FormatFloat(v)
			if s == "inf" || s == "-inf" || s == "nan" {
				return "float(" + strconv.Quote(s) + ")"
			}
			return s
		}
		return "0"
	}
	shape := t.Shape()
	var b strings.Builder
	idx := 0
	var walk func(d int)
	walk = func(d int) {
		if d == len(shape) {
			b.WriteString(elem(idx))
			idx++
			return
		}
		b.WriteByte('[')
		for i := int64(0); i < shape[d]; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			walk(d + 1)
		}
		b.WriteByte(']')
	}
	walk(0)
	return "R.const(" + b.String() + ", " + strconv.Quote(t.DType().String()) + ")"
}

func (pr *printer) sinfoArgsKw() string {
	if pr.v023() {
		return "sinfo_args"
	}
	return "ty_args"
}

// calleeArg renders the first argument of call_pure_packed-like ops: an
// ExternFunc prints as its name.
func (pr *printer) calleeArg(e ir.Expr) string {
	if f, ok := e.(*ir.ExternFunc); ok {
		return strconv.Quote(f.Symbol)
	}
	return pr.rexpr(e)
}

func (pr *printer) call(c *ir.Call) string {
	var args []string
	var kws []string
	sinfoArgs := func() {
		if len(c.SInfoArgs) > 0 {
			parts := make([]string, len(c.SInfoArgs))
			for i, s := range c.SInfoArgs {
				parts[i] = pr.sinfo(s, false)
			}
			kws = append(kws, pr.sinfoArgsKw()+"="+tupleText(parts))
		}
	}
	attrs := func() {
		for _, a := range c.Attrs {
			kws = append(kws, a.Key+"="+pr.attrVal(a.Value, false))
		}
	}
	var fn string
	switch callee := c.Callee.(type) {
	case *ir.Op:
		name := strings.TrimPrefix(callee.Name, "relax.")
		fn = "R." + name
		switch callee.Name {
		case "relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed":
			for i, a := range c.Args {
				if i == 0 {
					args = append(args, pr.calleeArg(a))
				} else if i == 1 {
					args = append(args, pr.rexpr(a))
				}
			}
			outKw := "out_ty"
			if pr.v023() {
				outKw = "out_sinfo"
			}
			switch len(c.SInfoArgs) {
			case 0:
			case 1:
				kws = append(kws, outKw+"="+pr.sinfo(c.SInfoArgs[0], false))
			default:
				parts := make([]string, len(c.SInfoArgs))
				for i, s := range c.SInfoArgs {
					parts[i] = pr.sinfo(s, false)
				}
				kws = append(kws, outKw+"=["+strings.Join(parts, ", ")+"]")
			}
			attrs()
			if len(c.Args) > 2 {
				kws = append(kws, "tir_vars="+pr.rexpr(c.Args[2]))
			}
			return fn + "(" + strings.Join(append(args, kws...), ", ") + ")"
		}
		for i, a := range c.Args {
			if i == 0 {
				args = append(args, pr.calleeArg(a))
			} else {
				args = append(args, pr.rexpr(a))
			}
		}
	case *ir.ExternFunc:
		fn = "R.call_packed"
		args = append(args, strconv.Quote(callee.Symbol))
		for _, a := range c.Args {
			args = append(args, pr.rexpr(a))
		}
	default:
		fn = pr.rexpr(c.Callee)
		for _, a := range c.Args {
			args = append(args, pr.rexpr(a))
		}
	}
	attrs()
	sinfoArgs()
	return fn + "(" + strings.Join(append(args, kws...), ", ") + ")"
}
