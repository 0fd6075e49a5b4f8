package tvmscript

import (
	"strconv"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
)

// The Python subset TVMScript is written in, as a small syntax tree.

type expr interface{ pos() ir.Span }

type (
	nameExpr struct {
		p    ir.Span
		name string
	}
	attrExpr struct {
		p    ir.Span
		x    expr
		name string
	}
	// starExpr is `*x` among a call's arguments (only T.grid(*buf.shape)
	// takes one).
	starExpr struct {
		p ir.Span
		x expr
	}
	kwarg struct {
		p    ir.Span
		name string
		val  expr
	}
	callExpr struct {
		p    ir.Span
		fn   expr
		args []expr
		kw   []kwarg
	}
	indexExpr struct {
		p     ir.Span
		x     expr
		index []expr
	}
	sliceExpr struct {
		p              ir.Span
		lo, hi, stride expr
	}
	tupleExpr struct {
		p     ir.Span
		elts  []expr
		paren bool
	}
	listExpr struct {
		p    ir.Span
		elts []expr
	}
	dictExpr struct {
		p          ir.Span
		keys, vals []expr
	}
	intLit struct {
		p ir.Span
		v int64
	}
	floatLit struct {
		p ir.Span
		v float64
	}
	strLit struct {
		p ir.Span
		v string
	}
	boolLit struct {
		p ir.Span
		v bool
	}
	noneLit struct{ p ir.Span }
	binExpr struct {
		p    ir.Span
		op   string
		x, y expr
		// depth counts the binary operators on the longest path from
		// here to a leaf, so chains can be bounded as they are built.
		depth int
	}
	unaryExpr struct {
		p  ir.Span
		op string
		x  expr
	}
	cmpExpr struct {
		p   ir.Span
		ops []string
		xs  []expr
	}
	boolOpExpr struct {
		p  ir.Span
		op string
		xs []expr
	}
	condExpr struct {
		p                ir.Span
		cond, then, els_ expr
	}
	lambdaExpr struct {
		p      ir.Span
		params []string
		body   expr
	}
)

func (e *nameExpr) pos() ir.Span   { return e.p }
func (e *attrExpr) pos() ir.Span   { return e.p }
func (e *callExpr) pos() ir.Span   { return e.p }
func (e *starExpr) pos() ir.Span   { return e.p }
func (e *indexExpr) pos() ir.Span  { return e.p }
func (e *sliceExpr) pos() ir.Span  { return e.p }
func (e *tupleExpr) pos() ir.Span  { return e.p }
func (e *listExpr) pos() ir.Span   { return e.p }
func (e *dictExpr) pos() ir.Span   { return e.p }
func (e *intLit) pos() ir.Span     { return e.p }
func (e *floatLit) pos() ir.Span   { return e.p }
func (e *strLit) pos() ir.Span     { return e.p }
func (e *boolLit) pos() ir.Span    { return e.p }
func (e *noneLit) pos() ir.Span    { return e.p }
func (e *binExpr) pos() ir.Span    { return e.p }
func (e *unaryExpr) pos() ir.Span  { return e.p }
func (e *cmpExpr) pos() ir.Span    { return e.p }
func (e *boolOpExpr) pos() ir.Span { return e.p }
func (e *condExpr) pos() ir.Span   { return e.p }
func (e *lambdaExpr) pos() ir.Span { return e.p }

type stmt interface{ pos() ir.Span }

type (
	param struct {
		p    ir.Span
		name string
		ann  expr
		def  expr
	}
	funcDef struct {
		p          ir.Span
		decorators []expr
		name       string
		params     []param
		ret        expr
		body       []stmt
	}
	classDef struct {
		p          ir.Span
		decorators []expr
		name       string
		bases      []expr
		body       []stmt
	}
	assignStmt struct {
		p      ir.Span
		target expr // nameExpr, tupleExpr of names, indexExpr, attrExpr
		ann    expr // nil when unannotated
		value  expr // nil for a bare annotation "x: T"
	}
	augAssignStmt struct {
		p      ir.Span
		op     string
		target expr
		value  expr
	}
	exprStmt struct {
		p ir.Span
		x expr
	}
	returnStmt struct {
		p ir.Span
		x expr // nil for bare return
	}
	ifStmt struct {
		p    ir.Span
		cond expr
		body []stmt
		els  []stmt // nil when absent
	}
	withItem struct {
		x  expr
		as expr
	}
	withStmt struct {
		p     ir.Span
		items []withItem
		body  []stmt
	}
	forStmt struct {
		p      ir.Span
		target expr
		iter   expr
		body   []stmt
	}
	whileStmt struct {
		p    ir.Span
		cond expr
		body []stmt
	}
	passStmt   struct{ p ir.Span }
	importStmt struct {
		p       ir.Span
		aliases []importAlias
	}
	assertStmt struct {
		p         ir.Span
		cond, msg expr
	}
)

func (s *funcDef) pos() ir.Span       { return s.p }
func (s *classDef) pos() ir.Span      { return s.p }
func (s *assignStmt) pos() ir.Span    { return s.p }
func (s *augAssignStmt) pos() ir.Span { return s.p }
func (s *exprStmt) pos() ir.Span      { return s.p }
func (s *returnStmt) pos() ir.Span    { return s.p }
func (s *ifStmt) pos() ir.Span        { return s.p }
func (s *withStmt) pos() ir.Span      { return s.p }
func (s *forStmt) pos() ir.Span       { return s.p }
func (s *whileStmt) pos() ir.Span     { return s.p }
func (s *passStmt) pos() ir.Span      { return s.p }
func (s *importStmt) pos() ir.Span    { return s.p }
func (s *assertStmt) pos() ir.Span    { return s.p }

// dotted renders a chain of names and attributes ("R.nn.conv2d"); ok is
// false for anything else.
func dotted(e expr) (string, bool) {
	switch x := e.(type) {
	case *nameExpr:
		return x.name, true
	case *attrExpr:
		s, ok := dotted(x.x)
		if !ok {
			return "", false
		}
		return s + "." + x.name, true
	}
	return "", false
}

// exprText renders an expression back as Python source (used to keep
// unparsed values such as I.module_global_infos verbatim, and in messages).
func exprText(e expr) string {
	var b strings.Builder
	writeExprText(&b, e)
	return b.String()
}

func writeList(b *strings.Builder, es []expr) {
	for i, x := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExprText(b, x)
	}
}

func writeExprText(b *strings.Builder, e expr) {
	switch x := e.(type) {
	case nil:
	case *nameExpr:
		b.WriteString(x.name)
	case *attrExpr:
		writeExprText(b, x.x)
		b.WriteString("." + x.name)
	case *callExpr:
		writeExprText(b, x.fn)
		b.WriteString("(")
		writeList(b, x.args)
		for i, k := range x.kw {
			if i > 0 || len(x.args) > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k.name + "=")
			writeExprText(b, k.val)
		}
		b.WriteString(")")
	case *indexExpr:
		writeExprText(b, x.x)
		b.WriteString("[")
		writeList(b, x.index)
		b.WriteString("]")
	case *sliceExpr:
		writeExprText(b, x.lo)
		b.WriteString(":")
		writeExprText(b, x.hi)
		if x.stride != nil {
			b.WriteString(":")
			writeExprText(b, x.stride)
		}
	case *tupleExpr:
		b.WriteString("(")
		writeList(b, x.elts)
		if len(x.elts) == 1 {
			b.WriteString(",")
		}
		b.WriteString(")")
	case *listExpr:
		b.WriteString("[")
		writeList(b, x.elts)
		b.WriteString("]")
	case *dictExpr:
		b.WriteString("{")
		for i := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeExprText(b, x.keys[i])
			b.WriteString(": ")
			writeExprText(b, x.vals[i])
		}
		b.WriteString("}")
	case *intLit:
		b.WriteString(strconv.FormatInt(x.v, 10))
	case *floatLit:
		b.WriteString(ir.FormatFloat(x.v))
	case *strLit:
		b.WriteString(strconv.Quote(x.v))
	case *boolLit:
		if x.v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case *noneLit:
		b.WriteString("None")
	case *binExpr:
		b.WriteString("(")
		writeExprText(b, x.x)
		b.WriteString(" " + x.op + " ")
		writeExprText(b, x.y)
		b.WriteString(")")
	case *unaryExpr:
		b.WriteString(x.op)
		if x.op == "not" {
			b.WriteString(" ")
		}
		writeExprText(b, x.x)
	case *cmpExpr:
		b.WriteString("(")
		for i, y := range x.xs {
			if i > 0 {
				b.WriteString(" " + x.ops[i-1] + " ")
			}
			writeExprText(b, y)
		}
		b.WriteString(")")
	case *boolOpExpr:
		b.WriteString("(")
		for i, y := range x.xs {
			if i > 0 {
				b.WriteString(" " + x.op + " ")
			}
			writeExprText(b, y)
		}
		b.WriteString(")")
	case *condExpr:
		b.WriteString("(")
		writeExprText(b, x.then)
		b.WriteString(" if ")
		writeExprText(b, x.cond)
		b.WriteString(" else ")
		writeExprText(b, x.els_)
		b.WriteString(")")
	case *lambdaExpr:
		b.WriteString("(lambda " + strings.Join(x.params, ", ") + ": ")
		writeExprText(b, x.body)
		b.WriteString(")")
	}
}
