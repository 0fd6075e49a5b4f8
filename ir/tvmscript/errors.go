package tvmscript

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/relaxgo/relaxgo/ir"
)

// Error is a parse error at a source position. Its message is
// "file:line:col: msg", then the source line and a caret under the column.
type Error struct {
	Pos ir.Span
	Msg string
	// Line is the text of the source line (without newline), "" when unknown.
	Line string
	// Err is the underlying error, if any (e.g. from ir.CanonicalizeCall).
	Err error
}

// Error formats the error with its source line and caret.
func (e *Error) Error() string {
	var b strings.Builder
	file := e.Pos.File
	if file == "" {
		file = "<input>"
	}
	fmt.Fprintf(&b, "%s:%d:%d: %s", file, e.Pos.Line, e.Pos.Col, e.Msg)
	if e.Line != "" || e.Pos.Line > 0 {
		line, col := excerpt(e.Line, e.Pos.Col-1)
		b.WriteString("\n")
		b.WriteString(line)
		b.WriteString("\n")
		// Keep tabs so the caret lines up in terminals.
		for i := 0; i < col && i < len(line); i++ {
			if line[i] == '\t' {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
		}
		for i := len(line); i < col; i++ {
			b.WriteByte(' ')
		}
		b.WriteByte('^')
	}
	return b.String()
}

// excerptWidth is how many bytes of a source line an error shows on each
// side of the column; longer lines are cut and marked with "...".
const excerptWidth = 80

// excerpt returns the part of line an error message shows around the
// zero-based byte column col, and col's position within it. Lines of
// generated code can be megabytes long; the message stays short.
func excerpt(line string, col int) (string, int) {
	col = max(col, 0)
	if len(line) <= 2*excerptWidth {
		return line, col
	}
	lo, hi := max(min(col, len(line))-excerptWidth, 0), min(col+excerptWidth, len(line))
	for lo > 0 && !utf8.RuneStart(line[lo]) {
		lo--
	}
	for hi < len(line) && !utf8.RuneStart(line[hi]) {
		hi++
	}
	out := line[lo:hi]
	if lo > 0 {
		out = "..." + out
		col = col - lo + 3
	}
	if hi < len(line) {
		out += "..."
	}
	return out, col
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// source holds the text being parsed, for error messages.
type source struct {
	file  string
	lines []string
}

func newSource(file string, src []byte) *source {
	s := strings.ReplaceAll(string(src), "\r\n", "\n")
	return &source{file: file, lines: strings.Split(s, "\n")}
}

func (s *source) errorf(pos ir.Span, format string, args ...any) *Error {
	return s.wrap(pos, nil, format, args...)
}

func (s *source) wrap(pos ir.Span, err error, format string, args ...any) *Error {
	e := &Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Err: err}
	if e.Pos.File == "" {
		e.Pos.File = s.file
	}
	if pos.Line >= 1 && pos.Line <= len(s.lines) {
		e.Line = s.lines[pos.Line-1]
	}
	return e
}
