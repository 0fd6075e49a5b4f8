package tvmscript

import (
	"math"
	"strconv"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
)

// maxNesting bounds expression and block nesting so that hostile input
// cannot exhaust the stack.
const maxNesting = 200

// maxBinaryDepth bounds how deep a tree of binary operators may grow (a
// chain like n + n + ... is a tree as deep as it is long). Everything that
// later walks such a tree (type queries, simplification) is linear in its
// depth per step, so an unbounded chain costs quadratic time. TVM's own
// parser, recursing in Python, stops far earlier.
const maxBinaryDepth = 4096

// pyParser builds the syntax tree of the Python subset from tokens.
type pyParser struct {
	src   *source
	toks  []token
	i     int
	depth int
}

func (p *pyParser) peek() token { return p.toks[p.i] }

func (p *pyParser) next() token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

func (p *pyParser) isOp(s string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == s
}

func (p *pyParser) isName(s string) bool {
	t := p.peek()
	return t.kind == tName && t.text == s
}

func (p *pyParser) accept(s string) bool {
	if p.isOp(s) {
		p.next()
		return true
	}
	return false
}

func (p *pyParser) expect(s string) (token, error) {
	t := p.peek()
	if t.kind == tOp && t.text == s {
		return p.next(), nil
	}
	return t, p.src.errorf(t.pos, "expected %q, found %s", s, t.describe())
}

func (p *pyParser) expectName() (token, error) {
	t := p.peek()
	if t.kind == tName && !keywords[t.text] {
		return p.next(), nil
	}
	return t, p.src.errorf(t.pos, "expected a name, found %s", t.describe())
}

var keywords = map[string]bool{
	"def": true, "class": true, "return": true, "if": true, "elif": true, "else": true, "for": true, "in": true,
	"while": true, "with": true, "as": true, "pass": true, "not": true, "and": true, "or": true, "is": true,
	"True": true, "False": true, "None": true, "lambda": true, "import": true, "from": true, "assert": true,
	"break": true, "continue": true, "global": true, "nonlocal": true, "yield": true, "del": true, "raise": true,
	"try": true, "except": true, "finally": true,
}

func (p *pyParser) enter(pos ir.Span) error {
	p.depth++
	if p.depth > maxNesting {
		return p.src.errorf(pos, "nesting too deep")
	}
	return nil
}

func (p *pyParser) leave() { p.depth-- }

// parseFile parses a whole file into statements.
func (p *pyParser) parseFile() ([]stmt, error) {
	var out []stmt
	for p.peek().kind != tEOF {
		if p.peek().kind == tNewline {
			p.next()
			continue
		}
		if p.peek().kind == tIndent {
			return nil, p.src.errorf(p.peek().pos, "unexpected indent")
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

// block parses ":" NEWLINE INDENT stmts DEDENT, or a one-line body.
func (p *pyParser) block() ([]stmt, error) {
	if _, err := p.expect(":"); err != nil {
		return nil, err
	}
	if err := p.enter(p.peek().pos); err != nil {
		return nil, err
	}
	defer p.leave()
	if p.peek().kind != tNewline {
		return p.simpleStatements()
	}
	p.next()
	if p.peek().kind != tIndent {
		return nil, p.src.errorf(p.peek().pos, "expected an indented block")
	}
	p.next()
	var out []stmt
	for p.peek().kind != tDedent && p.peek().kind != tEOF {
		if p.peek().kind == tNewline {
			p.next()
			continue
		}
		if p.peek().kind == tIndent {
			return nil, p.src.errorf(p.peek().pos, "unexpected indent")
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	if p.peek().kind == tDedent {
		p.next()
	}
	return out, nil
}

func (p *pyParser) statement() ([]stmt, error) {
	t := p.peek()
	if t.kind == tOp && t.text == "@" {
		var decos []expr
		for p.accept("@") {
			d, err := p.expr()
			if err != nil {
				return nil, err
			}
			decos = append(decos, d)
			if p.peek().kind != tNewline {
				return nil, p.src.errorf(p.peek().pos, "expected a newline after the decorator, found %s", p.peek().describe())
			}
			p.next()
		}
		switch {
		case p.isName("def"):
			f, err := p.funcDef(decos, p.peek().pos)
			return []stmt{f}, err
		case p.isName("class"):
			c, err := p.classDef(decos, p.peek().pos)
			return []stmt{c}, err
		}
		return nil, p.src.errorf(p.peek().pos, "expected def or class after decorator, found %s", p.peek().describe())
	}
	if t.kind == tName {
		switch t.text {
		case "def":
			f, err := p.funcDef(nil, t.pos)
			return []stmt{f}, err
		case "class":
			c, err := p.classDef(nil, t.pos)
			return []stmt{c}, err
		case "if":
			s, err := p.ifStmt()
			return []stmt{s}, err
		case "for":
			p.next()
			target, err := p.targetList()
			if err != nil {
				return nil, err
			}
			if !p.isName("in") {
				return nil, p.src.errorf(p.peek().pos, "expected \"in\", found %s", p.peek().describe())
			}
			p.next()
			iter, err := p.exprList()
			if err != nil {
				return nil, err
			}
			body, err := p.block()
			if err != nil {
				return nil, err
			}
			return []stmt{&forStmt{p: t.pos, target: target, iter: iter, body: body}}, nil
		case "while":
			p.next()
			cond, err := p.expr()
			if err != nil {
				return nil, err
			}
			body, err := p.block()
			if err != nil {
				return nil, err
			}
			return []stmt{&whileStmt{p: t.pos, cond: cond, body: body}}, nil
		case "with":
			p.next()
			var items []withItem
			for {
				x, err := p.expr()
				if err != nil {
					return nil, err
				}
				it := withItem{x: x}
				if p.isName("as") {
					p.next()
					it.as, err = p.targetList()
					if err != nil {
						return nil, err
					}
				}
				items = append(items, it)
				if !p.accept(",") {
					break
				}
			}
			body, err := p.block()
			if err != nil {
				return nil, err
			}
			return []stmt{&withStmt{p: t.pos, items: items, body: body}}, nil
		}
	}
	return p.simpleStatements()
}

// simpleStatements parses "a; b; c" NEWLINE.
func (p *pyParser) simpleStatements() ([]stmt, error) {
	var out []stmt
	for {
		s, err := p.simpleStatement()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		if !p.accept(";") {
			break
		}
		if p.peek().kind == tNewline {
			break
		}
	}
	t := p.peek()
	if t.kind != tNewline && t.kind != tEOF {
		return nil, p.src.errorf(t.pos, "unexpected %s", t.describe())
	}
	if t.kind == tNewline {
		p.next()
	}
	return out, nil
}

func (p *pyParser) simpleStatement() (stmt, error) {
	t := p.peek()
	if t.kind == tName {
		switch t.text {
		case "return":
			p.next()
			if p.peek().kind == tNewline || p.isOp(";") {
				return &returnStmt{p: t.pos}, nil
			}
			x, err := p.exprList()
			if err != nil {
				return nil, err
			}
			return &returnStmt{p: t.pos, x: x}, nil
		case "pass":
			p.next()
			return &passStmt{p: t.pos}, nil
		case "from", "import":
			return p.importStmt()
		case "assert":
			p.next()
			c, err := p.expr()
			if err != nil {
				return nil, err
			}
			var msg expr
			if p.accept(",") {
				if msg, err = p.expr(); err != nil {
					return nil, err
				}
			}
			return &assertStmt{p: t.pos, cond: c, msg: msg}, nil
		case "elif", "else", "def", "class", "break", "continue", "raise", "try", "except", "finally",
			"global", "nonlocal", "yield", "del", "lambda":
			return nil, p.src.errorf(t.pos, "unexpected %q", t.text)
		}
	}
	lhs, err := p.exprList()
	if err != nil {
		return nil, err
	}
	switch {
	case p.isOp(":"):
		p.next()
		ann, err := p.expr()
		if err != nil {
			return nil, err
		}
		s := &assignStmt{p: lhs.pos(), target: lhs, ann: ann}
		if p.accept("=") {
			if s.value, err = p.exprList(); err != nil {
				return nil, err
			}
		}
		return s, nil
	case p.isOp("="):
		p.next()
		v, err := p.exprList()
		if err != nil {
			return nil, err
		}
		if p.isOp("=") {
			return nil, p.src.errorf(p.peek().pos, "chained assignment is not supported")
		}
		return &assignStmt{p: lhs.pos(), target: lhs, value: v}, nil
	}
	if t := p.peek(); t.kind == tOp && len(t.text) >= 2 && strings.HasSuffix(t.text, "=") && t.text != "==" && t.text != "<=" && t.text != ">=" && t.text != "!=" {
		p.next()
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		return &augAssignStmt{p: lhs.pos(), op: strings.TrimSuffix(t.text, "="), target: lhs, value: v}, nil
	}
	return &exprStmt{p: lhs.pos(), x: lhs}, nil
}

func (p *pyParser) importStmt() (stmt, error) {
	t := p.next()
	var mod []string
	readDotted := func() (string, error) {
		n, err := p.expectName()
		if err != nil {
			return "", err
		}
		s := n.text
		for p.accept(".") {
			n, err := p.expectName()
			if err != nil {
				return "", err
			}
			s += "." + n.text
		}
		return s, nil
	}
	st := &importStmt{p: t.pos}
	if t.text == "import" {
		for {
			m, err := readDotted()
			if err != nil {
				return nil, err
			}
			alias := m
			if p.isName("as") {
				p.next()
				a, err := p.expectName()
				if err != nil {
					return nil, err
				}
				alias = a.text
			}
			st.aliases = append(st.aliases, importAlias{m, alias})
			if !p.accept(",") {
				return st, nil
			}
		}
	}
	from, err := readDotted()
	if err != nil {
		return nil, err
	}
	if !p.isName("import") {
		return nil, p.src.errorf(p.peek().pos, "expected \"import\", found %s", p.peek().describe())
	}
	p.next()
	_ = mod
	for {
		n, err := p.expectName()
		if err != nil {
			return nil, err
		}
		alias := n.text
		if p.isName("as") {
			p.next()
			a, err := p.expectName()
			if err != nil {
				return nil, err
			}
			alias = a.text
		}
		if from == "tvm.script" {
			st.aliases = append(st.aliases, importAlias{n.text, alias})
		} else {
			st.aliases = append(st.aliases, importAlias{from + "." + n.text, alias})
		}
		if !p.accept(",") {
			return st, nil
		}
	}
}

func (p *pyParser) ifStmt() (stmt, error) {
	t := p.next() // if / elif
	cond, err := p.expr()
	if err != nil {
		return nil, err
	}
	body, err := p.block()
	if err != nil {
		return nil, err
	}
	s := &ifStmt{p: t.pos, cond: cond, body: body}
	switch {
	case p.isName("elif"):
		e, err := p.ifStmt()
		if err != nil {
			return nil, err
		}
		s.els = []stmt{e}
	case p.isName("else"):
		p.next()
		if s.els, err = p.block(); err != nil {
			return nil, err
		}
		if s.els == nil {
			s.els = []stmt{}
		}
	}
	return s, nil
}

func (p *pyParser) funcDef(decos []expr, pos ir.Span) (stmt, error) {
	p.next() // def
	name, err := p.expectName()
	if err != nil {
		return nil, err
	}
	f := &funcDef{p: pos, decorators: decos, name: name.text}
	if _, err := p.expect("("); err != nil {
		return nil, err
	}
	for !p.isOp(")") {
		n, err := p.expectName()
		if err != nil {
			return nil, err
		}
		pr := param{p: n.pos, name: n.text}
		if p.accept(":") {
			if pr.ann, err = p.expr(); err != nil {
				return nil, err
			}
		}
		if p.accept("=") {
			if pr.def, err = p.expr(); err != nil {
				return nil, err
			}
		}
		f.params = append(f.params, pr)
		if !p.accept(",") {
			break
		}
	}
	if _, err := p.expect(")"); err != nil {
		return nil, err
	}
	if p.accept("->") {
		if f.ret, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if f.body, err = p.block(); err != nil {
		return nil, err
	}
	return f, nil
}

func (p *pyParser) classDef(decos []expr, pos ir.Span) (stmt, error) {
	p.next() // class
	name, err := p.expectName()
	if err != nil {
		return nil, err
	}
	c := &classDef{p: pos, decorators: decos, name: name.text}
	if p.accept("(") {
		for !p.isOp(")") {
			b, err := p.expr()
			if err != nil {
				return nil, err
			}
			c.bases = append(c.bases, b)
			if !p.accept(",") {
				break
			}
		}
		if _, err := p.expect(")"); err != nil {
			return nil, err
		}
	}
	if c.body, err = p.block(); err != nil {
		return nil, err
	}
	return c, nil
}

// targetList parses "a" or "a, b" (for loop and with targets).
func (p *pyParser) targetList() (expr, error) {
	first, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	if !p.isOp(",") {
		return first, nil
	}
	tup := &tupleExpr{p: first.pos(), elts: []expr{first}}
	for p.accept(",") {
		if p.isName("in") || p.isOp(":") {
			break
		}
		e, err := p.binary(0)
		if err != nil {
			return nil, err
		}
		tup.elts = append(tup.elts, e)
	}
	return tup, nil
}

// exprList parses "a" or "a, b, ..." (an unparenthesized tuple).
func (p *pyParser) exprList() (expr, error) {
	first, err := p.expr()
	if err != nil {
		return nil, err
	}
	if !p.isOp(",") {
		return first, nil
	}
	tup := &tupleExpr{p: first.pos(), elts: []expr{first}}
	for p.accept(",") {
		t := p.peek()
		if t.kind == tNewline || t.kind == tEOF || t.kind == tOp && (t.text == "=" || t.text == ":" || t.text == ")" || t.text == ";") {
			break
		}
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		tup.elts = append(tup.elts, e)
	}
	return tup, nil
}

func (p *pyParser) expr() (expr, error) {
	if err := p.enter(p.peek().pos); err != nil {
		return nil, err
	}
	defer p.leave()
	if p.isName("lambda") {
		return p.lambda()
	}
	x, err := p.orExpr()
	if err != nil {
		return nil, err
	}
	if p.isName("if") {
		t := p.next()
		c, err := p.orExpr()
		if err != nil {
			return nil, err
		}
		if !p.isName("else") {
			return nil, p.src.errorf(p.peek().pos, "expected \"else\", found %s", p.peek().describe())
		}
		p.next()
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		return &condExpr{p: t.pos, cond: c, then: x, els_: e}, nil
	}
	return x, nil
}

// lambda parses `lambda a, b: body` (plain parameters only: index maps).
func (p *pyParser) lambda() (expr, error) {
	t := p.next()
	l := &lambdaExpr{p: t.pos}
	for !p.isOp(":") {
		if len(l.params) > 0 {
			if _, err := p.expect(","); err != nil {
				return nil, err
			}
		}
		n, err := p.expectName()
		if err != nil {
			return nil, err
		}
		l.params = append(l.params, n.text)
	}
	p.next()
	body, err := p.expr()
	if err != nil {
		return nil, err
	}
	l.body = body
	return l, nil
}

func (p *pyParser) orExpr() (expr, error) {
	return p.boolOp("or", p.andExpr)
}

func (p *pyParser) andExpr() (expr, error) {
	return p.boolOp("and", p.notExpr)
}

func (p *pyParser) boolOp(op string, sub func() (expr, error)) (expr, error) {
	x, err := sub()
	if err != nil {
		return nil, err
	}
	if !p.isName(op) {
		return x, nil
	}
	b := &boolOpExpr{p: x.pos(), op: op, xs: []expr{x}}
	for p.isName(op) {
		p.next()
		y, err := sub()
		if err != nil {
			return nil, err
		}
		b.xs = append(b.xs, y)
	}
	return b, nil
}

func (p *pyParser) notExpr() (expr, error) {
	if p.isName("not") {
		t := p.next()
		if err := p.enter(t.pos); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.notExpr()
		if err != nil {
			return nil, err
		}
		return &unaryExpr{p: t.pos, op: "not", x: x}, nil
	}
	return p.comparison()
}

var cmpOps = map[string]bool{"<": true, "<=": true, ">": true, ">=": true, "==": true, "!=": true}

func (p *pyParser) comparison() (expr, error) {
	x, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	var c *cmpExpr
	for {
		t := p.peek()
		op := ""
		switch {
		case t.kind == tOp && cmpOps[t.text]:
			op = t.text
			p.next()
		case t.kind == tName && t.text == "in":
			return nil, p.src.errorf(t.pos, "the \"in\" operator is not supported")
		case t.kind == tName && t.text == "is":
			return nil, p.src.errorf(t.pos, "the \"is\" operator is not supported")
		}
		if op == "" {
			break
		}
		y, err := p.binary(0)
		if err != nil {
			return nil, err
		}
		if c == nil {
			c = &cmpExpr{p: t.pos, xs: []expr{x}}
		}
		c.ops = append(c.ops, op)
		c.xs = append(c.xs, y)
	}
	if c == nil {
		return x, nil
	}
	return c, nil
}

// binary operator levels, loosest first.
var binLevels = [][]string{{"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "//", "%", "@"}}

func (p *pyParser) binary(level int) (expr, error) {
	if level == len(binLevels) {
		return p.unary()
	}
	x, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tOp || !contains(binLevels[level], t.text) {
			return x, nil
		}
		p.next()
		y, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		d := max(binDepth(x), binDepth(y)) + 1
		if d > maxBinaryDepth {
			return nil, p.src.errorf(t.pos, "expression too long: more than %d nested binary operators", maxBinaryDepth)
		}
		x = &binExpr{p: t.pos, op: t.text, x: x, y: y, depth: d}
	}
}

// binDepth is the binary-operator depth of e (0 for anything else).
func binDepth(e expr) int {
	if b, ok := e.(*binExpr); ok {
		return b.depth
	}
	return 0
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func (p *pyParser) unary() (expr, error) {
	t := p.peek()
	if t.kind == tOp && (t.text == "-" || t.text == "+" || t.text == "~") {
		p.next()
		if err := p.enter(t.pos); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		// Fold negative literals so that -1 is a literal.
		if t.text == "-" {
			switch l := x.(type) {
			case *intLit:
				return &intLit{p: t.pos, v: -l.v}, nil
			case *floatLit:
				return &floatLit{p: t.pos, v: -l.v}, nil
			}
		}
		if t.text == "+" {
			return x, nil
		}
		return &unaryExpr{p: t.pos, op: t.text, x: x}, nil
	}
	return p.power()
}

func (p *pyParser) power() (expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	if p.isOp("**") {
		t := p.next()
		y, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &binExpr{p: t.pos, op: "**", x: x, y: y}, nil
	}
	return x, nil
}

func (p *pyParser) primary() (expr, error) {
	x, err := p.atom()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tOp {
			return x, nil
		}
		switch t.text {
		case ".":
			p.next()
			n, err := p.expectName()
			if err != nil {
				return nil, err
			}
			x = &attrExpr{p: x.pos(), x: x, name: n.text}
		case "(":
			p.next()
			c := &callExpr{p: x.pos(), fn: x}
			if err := p.callArgs(c); err != nil {
				return nil, err
			}
			x = c
		case "[":
			p.next()
			ix := &indexExpr{p: x.pos(), x: x}
			for !p.isOp("]") {
				e, err := p.subscript()
				if err != nil {
					return nil, err
				}
				ix.index = append(ix.index, e)
				if !p.accept(",") {
					break
				}
			}
			if _, err := p.expect("]"); err != nil {
				return nil, err
			}
			if len(ix.index) == 0 {
				return nil, p.src.errorf(t.pos, "empty subscript")
			}
			if tup, ok := ix.index[0].(*tupleExpr); ok && len(ix.index) == 1 && len(tup.elts) == 0 {
				// a[()] subscripts with the empty tuple: no indices, as
				// for a zero-dimensional buffer.
				ix.index = nil
			}
			x = ix
		default:
			return x, nil
		}
	}
}

func (p *pyParser) subscript() (expr, error) {
	t := p.peek()
	var lo expr
	var err error
	if !p.isOp(":") {
		if lo, err = p.expr(); err != nil {
			return nil, err
		}
		if !p.isOp(":") {
			return lo, nil
		}
	}
	p.next()
	s := &sliceExpr{p: t.pos, lo: lo}
	if !p.isOp("]") && !p.isOp(",") && !p.isOp(":") {
		if s.hi, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if p.accept(":") && !p.isOp("]") && !p.isOp(",") {
		if s.stride, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (p *pyParser) callArgs(c *callExpr) error {
	for !p.isOp(")") {
		t := p.peek()
		if t.kind == tOp && (t.text == "*" || t.text == "**") {
			// T.grid(*buf.shape) is the one star argument TVMScript's
			// printers and tests write.
			if fn, _ := dotted(c.fn); t.text == "**" || !strings.HasSuffix(fn, ".grid") {
				return p.src.errorf(t.pos, "star arguments are not supported (except T.grid(*buffer.shape))")
			}
			p.next()
			v, err := p.expr()
			if err != nil {
				return err
			}
			c.args = append(c.args, &starExpr{p: t.pos, x: v})
			if !p.accept(",") {
				break
			}
			continue
		}
		if t.kind == tName && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == tOp && p.toks[p.i+1].text == "=" {
			p.next()
			p.next()
			v, err := p.expr()
			if err != nil {
				return err
			}
			for _, k := range c.kw {
				if k.name == t.text {
					return p.src.errorf(t.pos, "keyword argument %q repeated", t.text)
				}
			}
			c.kw = append(c.kw, kwarg{p: t.pos, name: t.text, val: v})
		} else {
			if len(c.kw) > 0 {
				return p.src.errorf(t.pos, "positional argument follows keyword argument")
			}
			v, err := p.expr()
			if err != nil {
				return err
			}
			c.args = append(c.args, v)
		}
		if !p.accept(",") {
			break
		}
	}
	_, err := p.expect(")")
	return err
}

func (p *pyParser) atom() (expr, error) {
	t := p.peek()
	switch t.kind {
	case tName:
		switch t.text {
		case "True", "False":
			p.next()
			return &boolLit{p: t.pos, v: t.text == "True"}, nil
		case "None":
			p.next()
			return &noneLit{p: t.pos}, nil
		}
		if keywords[t.text] {
			return nil, p.src.errorf(t.pos, "unexpected %q", t.text)
		}
		p.next()
		return &nameExpr{p: t.pos, name: t.text}, nil
	case tInt:
		p.next()
		v, err := strconv.ParseInt(t.text, 0, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(t.text, 0, 64)
			if uerr != nil {
				return nil, p.src.errorf(t.pos, "integer literal %s out of range", t.text)
			}
			v = int64(u)
		}
		return &intLit{p: t.pos, v: v}, nil
	case tFloat:
		p.next()
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil && !math.IsInf(v, 0) {
			return nil, p.src.errorf(t.pos, "invalid float literal %s", t.text)
		}
		return &floatLit{p: t.pos, v: v}, nil
	case tString:
		p.next()
		s := t.text
		for p.peek().kind == tString { // implicit concatenation
			s += p.next().text
		}
		return &strLit{p: t.pos, v: s}, nil
	case tOp:
		switch t.text {
		case "(":
			p.next()
			if err := p.enter(t.pos); err != nil {
				return nil, err
			}
			defer p.leave()
			if p.accept(")") {
				return &tupleExpr{p: t.pos, paren: true}, nil
			}
			first, err := p.expr()
			if err != nil {
				return nil, err
			}
			if p.accept(")") {
				return first, nil
			}
			tup := &tupleExpr{p: t.pos, elts: []expr{first}, paren: true}
			for p.accept(",") {
				if p.isOp(")") {
					break
				}
				e, err := p.expr()
				if err != nil {
					return nil, err
				}
				tup.elts = append(tup.elts, e)
			}
			if _, err := p.expect(")"); err != nil {
				return nil, err
			}
			return tup, nil
		case "[":
			p.next()
			if err := p.enter(t.pos); err != nil {
				return nil, err
			}
			defer p.leave()
			l := &listExpr{p: t.pos}
			for !p.isOp("]") {
				e, err := p.expr()
				if err != nil {
					return nil, err
				}
				l.elts = append(l.elts, e)
				if !p.accept(",") {
					break
				}
			}
			if _, err := p.expect("]"); err != nil {
				return nil, err
			}
			return l, nil
		case "{":
			p.next()
			if err := p.enter(t.pos); err != nil {
				return nil, err
			}
			defer p.leave()
			d := &dictExpr{p: t.pos}
			for !p.isOp("}") {
				k, err := p.expr()
				if err != nil {
					return nil, err
				}
				if _, err := p.expect(":"); err != nil {
					return nil, err
				}
				v, err := p.expr()
				if err != nil {
					return nil, err
				}
				d.keys = append(d.keys, k)
				d.vals = append(d.vals, v)
				if !p.accept(",") {
					break
				}
			}
			if _, err := p.expect("}"); err != nil {
				return nil, err
			}
			return d, nil
		}
	}
	if t.kind == tIndent || t.kind == tDedent || t.kind == tNewline || t.kind == tEOF {
		return nil, p.src.errorf(t.pos, "unexpected %s, expected an expression", t.describe())
	}
	return nil, p.src.errorf(t.pos, "unexpected %s, expected an expression", t.describe())
}
