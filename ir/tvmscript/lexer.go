package tvmscript

import (
	"strconv"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
)

// tokKind is the kind of a lexical token.
type tokKind int

const (
	tEOF tokKind = iota
	tNewline
	tIndent
	tDedent
	tName
	tInt
	tFloat
	tString
	tOp
)

var tokKindNames = [...]string{"end of input", "newline", "indent", "dedent", "name", "integer", "float", "string", "operator"}

// token is one lexical token. For tString, text is the decoded value.
type token struct {
	kind tokKind
	text string
	pos  ir.Span
}

func (t token) describe() string {
	switch t.kind {
	case tName, tInt, tFloat:
		return strconv.Quote(t.text)
	case tString:
		return "string " + strconv.Quote(t.text)
	case tOp:
		return strconv.Quote(t.text)
	}
	return tokKindNames[t.kind]
}

// importAlias is a header line "# from tvm.script import <module> as <alias>"
// (or the same line uncommented).
type importAlias struct {
	module, alias string
}

// lexer splits Python source into tokens with INDENT/DEDENT/NEWLINE, joining
// lines inside brackets and after a backslash.
type lexer struct {
	src     *source
	text    string
	i       int
	line    int
	lineOff int // offset of the current line's first byte
	depth   int // bracket nesting: len(opens)
	opens   []token
	indents []int
	toks    []token
	// atLineStart is true when the next token starts a logical line.
	atLineStart bool
	headers     []importAlias
	// metaOmitted records the "# Metadata omitted" trailer comment.
	metaOmitted bool
}

// lex tokenizes src.
func lex(src *source, text string) ([]token, []importAlias, bool, error) {
	lx := &lexer{src: src, text: strings.ReplaceAll(text, "\r\n", "\n"), line: 1, indents: []int{0}, atLineStart: true}
	if err := lx.run(); err != nil {
		return nil, nil, false, err
	}
	return lx.toks, lx.headers, lx.metaOmitted, nil
}

func (lx *lexer) pos() ir.Span {
	return ir.Span{File: lx.src.file, Line: lx.line, Col: lx.i - lx.lineOff + 1}
}

func (lx *lexer) emit(k tokKind, text string, p ir.Span) {
	lx.toks = append(lx.toks, token{kind: k, text: text, pos: p})
}

func (lx *lexer) newline() {
	lx.i++
	lx.line++
	lx.lineOff = lx.i
}

func (lx *lexer) comment() {
	start := lx.i
	for lx.i < len(lx.text) && lx.text[lx.i] != '\n' {
		lx.i++
	}
	c := strings.TrimSpace(strings.TrimPrefix(lx.text[start:lx.i], "#"))
	if strings.HasPrefix(c, "Metadata omitted") {
		lx.metaOmitted = true
	}
	if a, ok := parseImportLine(c); ok {
		lx.headers = append(lx.headers, a)
	}
}

// parseImportLine recognises "from tvm.script import relax as R" and
// "from tvm.script import relax" (alias = module).
func parseImportLine(c string) (importAlias, bool) {
	f := strings.Fields(c)
	if len(f) >= 4 && f[0] == "from" && f[1] == "tvm.script" && f[2] == "import" {
		if len(f) == 4 {
			return importAlias{f[3], f[3]}, true
		}
		if len(f) == 6 && f[4] == "as" {
			return importAlias{f[3], f[5]}, true
		}
	}
	return importAlias{}, false
}

// maxTokens bounds how many tokens one module may have. Every token costs
// a few hundred bytes through parsing and conversion; a 4M-token module is
// already larger than any printed model (weights are printed as metadata
// references, not inline), and the bound keeps a hostile file's memory use
// to about a gigabyte.
var maxTokens = 1 << 22 // a variable so tests can lower it

// closing maps an opening bracket to the one that closes it.
var closing = map[string]string{"(": ")", "[": "]", "{": "}"}

func (lx *lexer) run() error {
	for {
		if len(lx.toks) > maxTokens {
			return lx.src.errorf(lx.pos(), "module too large: more than %d tokens", maxTokens)
		}
		if lx.atLineStart && lx.depth == 0 {
			// Measure indentation; skip blank and comment-only lines.
			col := 0
			for lx.i < len(lx.text) {
				c := lx.text[lx.i]
				if c == ' ' {
					col++
				} else if c == '\t' {
					col = (col/8 + 1) * 8
				} else if c == '\f' {
					col = 0
				} else {
					break
				}
				lx.i++
			}
			if lx.i >= len(lx.text) {
				break
			}
			c := lx.text[lx.i]
			if c == '#' {
				lx.comment()
				continue
			}
			if c == '\n' {
				lx.newline()
				continue
			}
			if c == '\\' && lx.i+1 < len(lx.text) && lx.text[lx.i+1] == '\n' {
				lx.i++
				lx.newline()
				continue
			}
			p := lx.pos()
			top := lx.indents[len(lx.indents)-1]
			switch {
			case col > top:
				lx.indents = append(lx.indents, col)
				lx.emit(tIndent, "", p)
			case col < top:
				for col < lx.indents[len(lx.indents)-1] {
					lx.indents = lx.indents[:len(lx.indents)-1]
					lx.emit(tDedent, "", p)
				}
				if col != lx.indents[len(lx.indents)-1] {
					return lx.src.errorf(p, "unindent does not match any outer indentation level")
				}
			}
			lx.atLineStart = false
		}
		if lx.i >= len(lx.text) {
			break
		}
		c := lx.text[lx.i]
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			lx.i++
		case c == '#':
			lx.comment()
		case c == '\n':
			if lx.depth == 0 {
				lx.emit(tNewline, "", lx.pos())
				lx.atLineStart = true
			}
			lx.newline()
		case c == '\\':
			if lx.i+1 < len(lx.text) && lx.text[lx.i+1] == '\n' {
				lx.i++
				lx.newline()
			} else {
				return lx.src.errorf(lx.pos(), "unexpected character '\\'")
			}
		case isIdentStart(c):
			p := lx.pos()
			start := lx.i
			for lx.i < len(lx.text) && isIdentChar(lx.text[lx.i]) {
				lx.i++
			}
			word := lx.text[start:lx.i]
			// String prefixes r"..", b"..", u"..".
			if lx.i < len(lx.text) && (lx.text[lx.i] == '"' || lx.text[lx.i] == '\'') && len(word) <= 2 && strings.Trim(strings.ToLower(word), "rbu") == "" {
				s, err := lx.str(p, strings.ContainsAny(word, "rR"))
				if err != nil {
					return err
				}
				lx.emit(tString, s, p)
				continue
			}
			lx.emit(tName, word, p)
		case c >= '0' && c <= '9' || c == '.' && lx.i+1 < len(lx.text) && lx.text[lx.i+1] >= '0' && lx.text[lx.i+1] <= '9':
			if err := lx.number(); err != nil {
				return err
			}
		case c == '"' || c == '\'':
			p := lx.pos()
			s, err := lx.str(p, false)
			if err != nil {
				return err
			}
			lx.emit(tString, s, p)
		default:
			p := lx.pos()
			op := lx.operator()
			if op == "" {
				r := lx.text[lx.i:]
				if len(r) > 4 {
					r = r[:4]
				}
				return lx.src.errorf(p, "unexpected character %q", []rune(r)[0])
			}
			switch op {
			case "(", "[", "{":
				lx.opens = append(lx.opens, token{kind: tOp, text: op, pos: p})
				lx.depth++
			case ")", "]", "}":
				if lx.depth == 0 {
					return lx.src.errorf(p, "unmatched %q", op)
				}
				open := lx.opens[len(lx.opens)-1]
				if want := closing[open.text]; op != want {
					return lx.src.errorf(p, "%q does not match %q opened at line %d, column %d", op, open.text, open.pos.Line, open.pos.Col)
				}
				lx.opens = lx.opens[:len(lx.opens)-1]
				lx.depth--
			}
			lx.emit(tOp, op, p)
		}
	}
	if lx.depth > 0 {
		// Report where the bracket opened: the end of the file says nothing.
		open := lx.opens[len(lx.opens)-1]
		return lx.src.errorf(open.pos, "%q is never closed (the input ends first)", open.text)
	}
	p := lx.pos()
	if len(lx.toks) > 0 && lx.toks[len(lx.toks)-1].kind != tNewline && lx.toks[len(lx.toks)-1].kind != tDedent {
		lx.emit(tNewline, "", p)
	}
	for len(lx.indents) > 1 {
		lx.indents = lx.indents[:len(lx.indents)-1]
		lx.emit(tDedent, "", p)
	}
	lx.emit(tEOF, "", p)
	return nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

var operators = []string{
	"**=", "//=", ">>=", "<<=", "...",
	"->", "**", "//", "<=", ">=", "==", "!=", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ":=",
	"(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "@", "=", "+", "-", "*", "/", "%", "<", ">", "&", "|", "^", "~",
}

func (lx *lexer) operator() string {
	rest := lx.text[lx.i:]
	for _, op := range operators {
		if strings.HasPrefix(rest, op) {
			lx.i += len(op)
			return op
		}
	}
	return ""
}

func (lx *lexer) number() error {
	p := lx.pos()
	start := lx.i
	t := lx.text
	isFloat := false
	if t[lx.i] == '0' && lx.i+1 < len(t) && (t[lx.i+1] == 'x' || t[lx.i+1] == 'X' || t[lx.i+1] == 'o' || t[lx.i+1] == 'O' || t[lx.i+1] == 'b' || t[lx.i+1] == 'B') {
		lx.i += 2
		for lx.i < len(t) && (isIdentChar(t[lx.i])) {
			lx.i++
		}
	} else {
		for lx.i < len(t) && (t[lx.i] >= '0' && t[lx.i] <= '9' || t[lx.i] == '_') {
			lx.i++
		}
		if lx.i < len(t) && t[lx.i] == '.' {
			isFloat = true
			lx.i++
			for lx.i < len(t) && (t[lx.i] >= '0' && t[lx.i] <= '9' || t[lx.i] == '_') {
				lx.i++
			}
		}
		if lx.i < len(t) && (t[lx.i] == 'e' || t[lx.i] == 'E') {
			j := lx.i + 1
			if j < len(t) && (t[j] == '+' || t[j] == '-') {
				j++
			}
			if j < len(t) && t[j] >= '0' && t[j] <= '9' {
				isFloat = true
				lx.i = j
				for lx.i < len(t) && t[lx.i] >= '0' && t[lx.i] <= '9' {
					lx.i++
				}
			}
		}
		if lx.i < len(t) && isIdentStart(t[lx.i]) {
			return lx.src.errorf(p, "invalid number literal %q", t[start:lx.i+1])
		}
	}
	text := strings.ReplaceAll(t[start:lx.i], "_", "")
	if isFloat {
		if _, err := strconv.ParseFloat(text, 64); err != nil {
			return lx.src.errorf(p, "invalid float literal %q", text)
		}
		lx.emit(tFloat, text, p)
		return nil
	}
	lx.emit(tInt, text, p)
	return nil
}

// str reads a (possibly triple-quoted) string literal starting at lx.i.
func (lx *lexer) str(p ir.Span, raw bool) (string, error) {
	t := lx.text
	q := t[lx.i]
	triple := strings.HasPrefix(t[lx.i:], strings.Repeat(string(q), 3))
	if triple {
		lx.i += 3
	} else {
		lx.i++
	}
	var b strings.Builder
	for {
		if lx.i >= len(t) {
			return "", lx.src.errorf(p, "unterminated string literal")
		}
		c := t[lx.i]
		if triple && strings.HasPrefix(t[lx.i:], strings.Repeat(string(q), 3)) {
			lx.i += 3
			return b.String(), nil
		}
		if !triple && c == q {
			lx.i++
			return b.String(), nil
		}
		if c == '\n' {
			if !triple {
				return "", lx.src.errorf(p, "unterminated string literal")
			}
			b.WriteByte('\n')
			lx.newline()
			continue
		}
		if c == '\\' && !raw {
			if lx.i+1 >= len(t) {
				return "", lx.src.errorf(p, "unterminated string literal")
			}
			e := t[lx.i+1]
			lx.i += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case '\\', '\'', '"':
				b.WriteByte(e)
			case '\n':
				lx.line++
				lx.lineOff = lx.i
			case 'x', 'u':
				// \xHH is a byte, \uHHHH a code point.
				n := 2
				if e == 'u' {
					n = 4
				}
				if lx.i+n > len(t) {
					return "", lx.src.errorf(p, "invalid \\%c escape", e)
				}
				v, err := strconv.ParseUint(t[lx.i:lx.i+n], 16, 4*n)
				if err != nil {
					return "", lx.src.errorf(p, "invalid \\%c escape", e)
				}
				if e == 'x' {
					b.WriteByte(byte(v))
				} else {
					b.WriteRune(rune(v))
				}
				lx.i += n
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
			continue
		}
		if c == '\\' && raw && lx.i+1 < len(t) {
			b.WriteByte(c)
			b.WriteByte(t[lx.i+1])
			lx.i += 2
			continue
		}
		b.WriteByte(c)
		lx.i++
	}
}
