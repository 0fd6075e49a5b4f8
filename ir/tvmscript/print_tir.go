package tvmscript

import (
	"strconv"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

func (pr *printer) blockKw() string {
	if pr.v023() {
		return "block"
	}
	return "sblock"
}

// blockAlloc and blockAttr name the block-scoped TIR builtins:
// T.sblock_alloc_buffer and T.sblock_attr in the current dialect,
// T.alloc_buffer and T.block_attr in v0.23.
func (pr *printer) blockAlloc() string {
	if pr.v023() {
		return "T.alloc_buffer"
	}
	return "T.sblock_alloc_buffer"
}

func (pr *printer) blockAttr() string {
	if pr.v023() {
		return "T.block_attr"
	}
	return "T.sblock_attr"
}

func (pr *printer) primFunc(name string, f *ir.PrimFunc) {
	pr.usesT = true
	pr.loopDom = map[*ir.PrimVar]ir.Range{}
	var kws []string
	if f.Private {
		kws = append(kws, "private=True")
	}
	if !pr.v023() && (f.STIR || containsBlock(f.Body)) {
		kws = append(kws, "s_tir=True")
	}
	if len(kws) > 0 {
		pr.line("@T.prim_func(" + strings.Join(kws, ", ") + ")")
	} else {
		pr.line("@T.prim_func")
	}
	defined := map[*ir.PrimVar]bool{}
	var params []string
	var matched []*ir.PrimVar
	for _, p := range f.Params {
		buf := f.BufferMap[p]
		switch {
		case buf == nil && p.Type == handleType:
			params = append(params, p.Name+": T.handle")
		case buf == nil:
			params = append(params, p.Name+": T."+p.Type.String())
			defined[p] = true
		case p.Name == buf.Name && bufferVarsDefined(buf, defined):
			params = append(params, p.Name+": T.Buffer("+pr.bufferArgs(buf, true)+")")
		default:
			params = append(params, p.Name+": T.handle")
			matched = append(matched, p)
		}
	}
	pr.line("def " + name + "(" + strings.Join(params, ", ") + "):")
	pr.indent++
	if len(f.Attrs) > 0 {
		pr.line("T.func_attr(" + pr.attrDict(f.Attrs, true) + ")")
	}
	// Declare the symbolic variables that matched buffers introduce.
	root, _ := f.Body.(*ir.Block)
	if root != nil && !root.Implicit {
		root = nil
	}
	var declBufs []*ir.Buffer
	for _, p := range matched {
		declBufs = append(declBufs, f.BufferMap[p])
	}
	if root != nil {
		declBufs = append(declBufs, root.AllocBuffers...)
	}
	for _, b := range declBufs {
		for _, v := range bufferVars(b) {
			if !defined[v] {
				defined[v] = true
				pr.line(v.Name + " = T." + v.Type.String() + "()")
			}
		}
	}
	for _, p := range matched {
		b := f.BufferMap[p]
		pr.line(b.Name + " = T.match_buffer(" + p.Name + ", " + pr.bufferArgs(b, false) + ")")
	}
	if root != nil {
		pr.line("# with T." + pr.blockKw() + "(\"root\"):")
		for _, b := range root.AllocBuffers {
			pr.line(b.Name + " = " + pr.blockAlloc() + "(" + pr.bufferArgs(b, true) + ")")
		}
		pr.stmt(root.Body)
	} else {
		pr.stmt(f.Body)
	}
	pr.indent--
}

func bufferVars(b *ir.Buffer) []*ir.PrimVar {
	var out []*ir.PrimVar
	for _, d := range b.Shape {
		out = append(out, ir.FreeVars(d)...)
	}
	for _, d := range b.Strides {
		out = append(out, ir.FreeVars(d)...)
	}
	if b.ElemOffset != nil {
		out = append(out, ir.FreeVars(b.ElemOffset)...)
	}
	return out
}

func bufferVarsDefined(b *ir.Buffer, defined map[*ir.PrimVar]bool) bool {
	for _, v := range bufferVars(b) {
		if !defined[v] {
			return false
		}
	}
	return true
}

// bufferArgs renders shape, dtype and keyword options of a buffer
// declaration; the dtype is omitted when it is float32 and !withDType.
func (pr *printer) bufferArgs(b *ir.Buffer, withDType bool) string {
	parts := make([]string, len(b.Shape))
	for i, d := range b.Shape {
		parts[i] = pr.prim(d, tirMode)
	}
	s := tupleText(parts)
	if withDType || b.DType != runtime.Float32 {
		s += ", " + strconv.Quote(b.DType.String())
	}
	if b.Strides != nil {
		st := make([]string, len(b.Strides))
		for i, d := range b.Strides {
			st[i] = pr.prim(d, tirMode)
		}
		s += ", strides=" + tupleText(st)
	}
	if b.ElemOffset != nil {
		s += ", elem_offset=" + pr.prim(b.ElemOffset, tirMode)
	}
	if b.Scope != "" && b.Scope != "global" {
		s += ", scope=" + strconv.Quote(b.Scope)
	}
	return s
}

func isZero(e ir.PrimExpr) bool {
	i, ok := e.(*ir.IntImm)
	return ok && i.Value == 0
}

// rangeEnd renders min+extent simplified.
func (pr *printer) rangeEnd(min, ext ir.PrimExpr) string {
	return pr.prim(simplifyInt(&ir.Binary{Op: ir.OpAdd, A: min, B: ext}), tirMode)
}

func (pr *printer) stmt(s ir.Stmt) {
	switch x := s.(type) {
	case nil:
		pr.line("T.evaluate(0)")
	case *ir.SeqStmt:
		if len(x.Stmts) == 0 {
			pr.line("T.evaluate(0)")
		}
		for _, y := range x.Stmts {
			pr.stmt(y)
		}
	case *ir.For:
		pr.forLoop(x)
	case *ir.Block:
		pr.block(x)
	case *ir.BufferStore:
		idx := make([]string, len(x.Indices))
		for i, e := range x.Indices {
			idx[i] = pr.prim(e, tirMode)
		}
		pr.line(x.Buffer.Name + "[" + subscript(idx) + "] = " + pr.prim(x.Value, tirMode))
	case *ir.IfThenElse:
		pr.line("if " + pr.prim(x.Cond, tirMode) + ":")
		pr.indent++
		pr.stmt(x.Then)
		pr.indent--
		if x.Else != nil {
			pr.line("else:")
			pr.indent++
			pr.stmt(x.Else)
			pr.indent--
		}
	case *ir.LetStmt:
		pr.line(x.Var.Name + ": T." + x.Var.Type.String() + " = " + pr.prim(x.Value, tirMode))
		pr.stmt(x.Body)
	case *ir.AttrStmt:
		pr.line("T.attr(" + pr.prim(x.Node, tirMode) + ", " + strconv.Quote(x.Key) + ", " + pr.prim(x.Value, tirMode) + ")")
		pr.stmt(x.Body)
	case *ir.Evaluate:
		pr.line("T.evaluate(" + pr.prim(x.Value, tirMode) + ")")
	case *ir.AllocBuffer:
		pr.line(x.Buffer.Name + " = T.alloc_buffer(" + pr.bufferArgs(x.Buffer, true) + ")")
		pr.stmt(x.Body)
	default:
		pr.line("# unsupported statement")
	}
}

func simpleSerial(f *ir.For) bool {
	return f.Kind == ir.ForSerial && isZero(f.Min) && len(f.Annotations) == 0 && f.ThreadTag == ""
}

func (pr *printer) forLoop(f *ir.For) {
	if simpleSerial(f) {
		var vars, exts []string
		cur := f
		for {
			vars = append(vars, cur.Var.Name)
			exts = append(exts, pr.prim(cur.Extent, tirMode))
			pr.loopDom[cur.Var] = ir.Range{Min: cur.Min, Extent: cur.Extent}
			next, ok := cur.Body.(*ir.For)
			if !ok || !simpleSerial(next) {
				break
			}
			cur = next
		}
		if len(vars) > 1 {
			pr.line("for " + strings.Join(vars, ", ") + " in T.grid(" + strings.Join(exts, ", ") + "):")
		} else {
			pr.line("for " + vars[0] + " in range(" + exts[0] + "):")
		}
		pr.indent++
		pr.stmt(cur.Body)
		pr.indent--
		return
	}
	pr.loopDom[f.Var] = ir.Range{Min: f.Min, Extent: f.Extent}
	var fn string
	switch f.Kind {
	case ir.ForSerial:
		fn = "T.serial"
	case ir.ForParallel:
		fn = "T.parallel"
	case ir.ForVectorized:
		fn = "T.vectorized"
	case ir.ForUnrolled:
		fn = "T.unroll"
	case ir.ForThreadBinding:
		fn = "T.thread_binding"
	}
	var args []string
	if isZero(f.Min) {
		args = append(args, pr.prim(f.Extent, tirMode))
	} else {
		args = append(args, pr.prim(f.Min, tirMode), pr.rangeEnd(f.Min, f.Extent))
	}
	if f.ThreadTag != "" {
		args = append(args, "thread="+strconv.Quote(f.ThreadTag))
	}
	if len(f.Annotations) > 0 {
		args = append(args, "annotations="+pr.attrDict(f.Annotations, true))
	}
	if fn == "T.serial" && len(f.Annotations) == 0 {
		fn = "range"
	}
	pr.line("for " + f.Var.Name + " in " + fn + "(" + strings.Join(args, ", ") + "):")
	pr.indent++
	pr.stmt(f.Body)
	pr.indent--
}

func (pr *printer) region(r ir.BufferRegion) string {
	parts := make([]string, len(r.Region))
	for i, rg := range r.Region {
		if e, ok := rg.Extent.(*ir.IntImm); ok && e.Value == 1 {
			parts[i] = pr.prim(rg.Min, tirMode)
		} else {
			parts[i] = pr.prim(rg.Min, tirMode) + ":" + pr.rangeEnd(rg.Min, rg.Extent)
		}
	}
	return r.Buffer.Name + "[" + subscript(parts) + "]"
}

func (pr *printer) regions(rs []ir.BufferRegion) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = pr.region(r)
	}
	return strings.Join(parts, ", ")
}

// remappable reports whether all iteration variables bind enclosing loop
// variables over the loops' own domains (printable as T.axis.remap).
func (pr *printer) remappable(ivs []ir.IterVar) bool {
	if len(ivs) == 0 {
		return false
	}
	for _, iv := range ivs {
		if iv.Kind != ir.IterSpatial && iv.Kind != ir.IterReduce {
			return false
		}
		lv, ok := iv.Binding.(*ir.PrimVar)
		if !ok {
			return false
		}
		dom, ok := pr.loopDom[lv]
		if !ok || lv.Type != iv.Var.Type {
			return false
		}
		if pr.prim(dom.Min, tirMode) != pr.prim(iv.Dom.Min, tirMode) || pr.prim(dom.Extent, tirMode) != pr.prim(iv.Dom.Extent, tirMode) {
			return false
		}
		if iv.Dom.Min.DType() != dom.Min.DType() || iv.Dom.Extent.DType() != dom.Extent.DType() {
			return false
		}
	}
	return true
}

func (pr *printer) block(b *ir.Block) {
	pr.line("with T." + pr.blockKw() + "(" + strconv.Quote(b.Name) + "):")
	pr.indent++
	if pr.remappable(b.IterVars) {
		var names, binds []string
		kinds := ""
		for _, iv := range b.IterVars {
			names = append(names, iv.Var.Name)
			binds = append(binds, iv.Binding.(*ir.PrimVar).Name)
			if iv.Kind == ir.IterSpatial {
				kinds += "S"
			} else {
				kinds += "R"
			}
		}
		pr.line(strings.Join(names, ", ") + " = T.axis.remap(" + strconv.Quote(kinds) + ", [" + strings.Join(binds, ", ") + "])")
	} else {
		for _, iv := range b.IterVars {
			kind := [...]string{"spatial", "reduce", "scan", "opaque"}[iv.Kind]
			var dom string
			if isZero(iv.Dom.Min) && iv.Dom.Min.DType() == iv.Dom.Extent.DType() {
				dom = pr.prim(iv.Dom.Extent, tirMode)
			} else {
				dom = "(" + pr.prim(iv.Dom.Min, tirMode) + ", " + pr.rangeEnd(iv.Dom.Min, iv.Dom.Extent) + ")"
			}
			pr.line(iv.Var.Name + " = T.axis." + kind + "(" + dom + ", " + pr.prim(iv.Binding, tirMode) + ")")
		}
	}
	if b.Predicate != nil {
		pr.line("T.where(" + pr.prim(b.Predicate, tirMode) + ")")
	}
	if len(b.Reads) > 0 {
		pr.line("T.reads(" + pr.regions(b.Reads) + ")")
	}
	if len(b.Writes) > 0 {
		pr.line("T.writes(" + pr.regions(b.Writes) + ")")
	}
	if len(b.Annotations) > 0 {
		pr.line(pr.blockAttr() + "(" + pr.attrDict(b.Annotations, true) + ")")
	}
	for _, a := range b.AllocBuffers {
		pr.line(a.Name + " = " + pr.blockAlloc() + "(" + pr.bufferArgs(a, true) + ")")
	}
	if b.Init != nil {
		pr.line("with T.init():")
		pr.indent++
		pr.stmt(b.Init)
		pr.indent--
	}
	pr.stmt(b.Body)
	pr.indent--
}

// subscript joins buffer indices; a zero-dimensional buffer is subscripted
// with the empty tuple, A[()], as TVM prints it.
func subscript(parts []string) string {
	if len(parts) == 0 {
		return "()"
	}
	return strings.Join(parts, ", ")
}
