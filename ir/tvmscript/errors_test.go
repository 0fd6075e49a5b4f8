package tvmscript

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/relaxgo/relaxgo/runtime"
)

// TestErrors checks that malformed input yields "file:line:col: message",
// the source line and a caret under the column.
func TestErrors(t *testing.T) {
	fn := func(body string) string {
		return relaxMod("@R.function\ndef main(x: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n" + indent(body, "    "))
	}
	prim := func(body string) string {
		return hdr + "@I.ir_module\nclass Module:\n    @T.prim_func\n    def f(A: T.Buffer((4,), \"float32\")):\n" + indent(body, "        ")
	}
	// Line numbers: relaxMod/prim put the first body line at line 9.
	tests := []struct {
		name      string
		src       string
		line, col int
		msg       string
	}{
		{"undefined variable", fn("y = R.add(x, z)\nreturn y"), 9, 22, `undefined variable "z"`},
		{"unknown op", fn("y = R.frobnicate(x)\nreturn y"), 9, 13, `unknown op "relax.frobnicate"`},
		{"bad op keyword", fn("y = R.nn.softmax(x, axiz=1)\nreturn y"), 9, 13, `unexpected keyword argument "axiz"`},
		{"missing metadata", fn("y = R.add(x, metadata[\"relax.expr.Constant\"][3])\nreturn y"), 9, 22, `missing metadata: metadata["relax.expr.Constant"][3]`},
		{"unclosed bracket", fn("y = R.add(x, x\nreturn y"), 9, 18, `"(" is never closed`},
		{"mismatched bracket", fn("y = R.add(x, [x)\nreturn y"), 9, 24, `")" does not match "[" opened at line 9, column 22`},
		{"bad indentation", fn("y = R.add(x, x)") + "      return y\n", 10, 7, "unindent does not match"},
		{"no return", fn("y = R.add(x, x)"), 8, 5, "has no return statement"},
		{"statement after return", fn("return x\ny = x"), 10, 9, "statement after return"},
		{"bad dtype", fn("y: R.Tensor((2,), \"floaty\") = x\nreturn y"), 9, 27, `invalid dtype "floaty"`},
		{"unknown struct info", fn("y: R.Tenser((2,)) = x\nreturn y"), 9, 12, "unknown struct info R.Tenser"},
		{"branches bind different names", fn("if x:\n    a = x\nelse:\n    b = x\nreturn a"), 12, 13, `both branches must end by binding the same variable`},
		{"if inside dataflow", fn("with R.dataflow():\n    if x:\n        a = x\n    else:\n        a = x\n    R.output(a)\nreturn a"), 10, 13, "not allowed inside a dataflow block"},
		{"output of unknown var", fn("with R.dataflow():\n    a = x\n    R.output(b)\nreturn a"), 11, 22, `R.output: "b" is not bound`},
		{"unknown module function", fn("cls = Module\ny = cls.nothere(x)\nreturn y"), 10, 13, `module has no function "nothere"`},
		{"call_tir without output type", hdr + "@I.ir_module\nclass Module:\n    @T.prim_func\n    def k(A: T.Buffer((2,), \"float32\")):\n        T.evaluate(0)\n\n    @R.function\n    def main(x: R.Tensor((2,), \"float32\")):\n        cls = Module\n        y = R.call_tir(cls.k, (x,))\n        return y\n", 14, 13, "needs the output type"},
		{"unterminated string", fn("y = R.call_packed(\"abc, x)\nreturn y"), 9, 27, "unterminated string literal"},
		{"bad decorator", relaxMod("@R.func\ndef main(x: R.Tensor((2,), \"float32\")):\n    return x"), 7, 6, "unsupported decorator @R.func"},
		{"missing annotation", relaxMod("@R.function\ndef main(x):\n    return x"), 8, 14, `parameter "x" needs a struct info annotation`},
		{"prim_func return value", hdr + "@I.ir_module\nclass Module:\n    @T.prim_func\n    def f(A: T.Buffer((4,), \"float32\")) -> T.bool:\n        return T.bool(True)\n", 8, 0, "PrimFunc return values (-> T.bool) are not supported"},
		{"tir undefined name", prim("for i in range(4):\n    A[j] = T.float32(0)"), 10, 15, `undefined name "j"`},
		{"tir wrong index count", prim("for i in range(4):\n    A[i, i] = T.float32(0)"), 10, 13, `buffer "A" has 1 dimensions but is indexed with 2`},
		{"tir remap non-loop", prim("with T.block(\"b\"):\n    vi = T.axis.remap(\"S\", [q])\n    A[vi] = T.float32(0)"), 10, 37, `undefined loop variable "q"`},
		{"tir init outside block", prim("with T.init():\n    A[0] = T.float32(0)"), 9, 9, "T.init is only allowed inside a block"},
		{"tir unknown intrinsic", prim("A[0] = T.frob(A[1])"), 9, 16, "unsupported TIR function T.frob"},
		{"tir grid arity", prim("for i, j in T.grid(4):\n    A[i] = T.float32(0)"), 9, 9, "T.grid has 1 extents but 2 loop variables"},
		{"no module", "x = 1\n", 1, 1, "unexpected statement at top level"},
		{"unexpected character", fn("y = x $ x\nreturn y"), 9, 15, "unexpected character '$'"},
		{"deep nesting", fn("y = " + strings.Repeat("(", 300) + "x" + strings.Repeat(")", 300) + "\nreturn y"), 9, 0, "nesting too deep"},
		{"cuda vdevice annotation", fn("y = R.to_vdevice(x, \"cuda:0\")\nreturn y"), 9, 29, `virtual device "cuda:0": relaxgo runs on the CPU only`},
		{"distributed tensor", fn("y: R.DTensor((2,), \"float32\", \"mesh[0]\", \"R\") = x\nreturn y"), 9, 12, "R.DTensor (a tensor distributed over a device mesh) is not supported"},
		{"sugar on a number", fn("y = x + 1\nreturn y"), 9, 17, "convert the number with R.const first"},
		{"chained comparison", fn("y = x < x < x\nreturn y"), 9, 0, "chained comparisons"},
		{"long binary chain", fn("y = " + strings.Repeat("x+", 5000) + "x\nreturn y"), 9, 0, "expression too long: more than 4096 nested binary operators"},
	}
	if len(tests) < 15 {
		t.Fatalf("only %d error cases", len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseString("bad.py", tc.src, &Options{Constants: []*runtime.Tensor{nil}})
			if err == nil {
				t.Fatalf("no error for\n%s", tc.src)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			msg := err.Error()
			lines := strings.Split(msg, "\n")
			if len(lines) != 3 {
				t.Fatalf("want 3 lines (message, source, caret), got:\n%s", msg)
			}
			prefix := fmt.Sprintf("bad.py:%d:", tc.line)
			if tc.col > 0 {
				prefix = fmt.Sprintf("bad.py:%d:%d: ", tc.line, tc.col)
			}
			if !strings.HasPrefix(lines[0], prefix) {
				t.Errorf("want prefix %q, got %q", prefix, lines[0])
			}
			if !strings.Contains(lines[0], tc.msg) {
				t.Errorf("want message containing %q, got %q", tc.msg, lines[0])
			}
			srcLines := strings.Split(tc.src, "\n")
			if pe.Pos.Line < 1 || pe.Pos.Line > len(srcLines) {
				t.Fatalf("error line %d is outside the input", pe.Pos.Line)
			}
			// Long lines are shown as a window around the column.
			want, wantCol := excerpt(srcLines[pe.Pos.Line-1], pe.Pos.Col-1)
			if lines[1] != want {
				t.Errorf("source line %q does not match line %d of the input", lines[1], pe.Pos.Line)
			}
			caret := strings.TrimRight(lines[2], " \t")
			if !strings.HasSuffix(caret, "^") || len(caret) != wantCol+1 {
				t.Errorf("caret line %q does not point at column %d", lines[2], pe.Pos.Col)
			}
		})
	}
}

// TestErrorExcerpt checks that an error on a very long line shows a bounded
// window of it, with the caret still under the offending column.
func TestErrorExcerpt(t *testing.T) {
	tests := []struct {
		line      string
		col       int // zero-based
		wantLine  string
		wantCaret int
	}{
		{"short line", 3, "short line", 3},
		{strings.Repeat("a", 1000) + "$" + strings.Repeat("b", 1000), 1000, "..." + strings.Repeat("a", 80) + "$" + strings.Repeat("b", 79) + "...", 83},
		{"$" + strings.Repeat("b", 1000), 0, "$" + strings.Repeat("b", 79) + "...", 0},
		{strings.Repeat("a", 1000) + "$", 1000, "..." + strings.Repeat("a", 80) + "$", 83},
		{strings.Repeat("é", 500), 501, "...", -1}, // cut on rune boundaries: checked below
	}
	for i, tc := range tests {
		got, col := excerpt(tc.line, tc.col)
		if len(got) > 2*excerptWidth+12 {
			t.Errorf("case %d: excerpt of %d bytes", i, len(got))
		}
		if !utf8.ValidString(got) {
			t.Errorf("case %d: excerpt %q is not valid UTF-8", i, got)
		}
		if tc.wantCaret < 0 {
			continue
		}
		if got != tc.wantLine || col != tc.wantCaret {
			t.Errorf("case %d: excerpt = %q, caret %d; want %q, caret %d", i, got, col, tc.wantLine, tc.wantCaret)
		}
	}
}

// TestTokenLimit checks that a module over the token bound is refused with
// a positioned error instead of being parsed in full.
func TestTokenLimit(t *testing.T) {
	defer func(n int) { maxTokens = n }(maxTokens)
	maxTokens = 1000
	src := "# from tvm.script import relax as R\n@R.function\ndef main(x: R.Tensor((2,), \"float32\")) -> R.Shape:\n    return R.shape([" +
		strings.Repeat("1,", 2000) + "1])\n"
	_, err := ParseString("big.py", src, nil)
	if err == nil || !strings.Contains(err.Error(), "module too large: more than 1000 tokens") {
		t.Fatalf("error = %v", err)
	}
	if !strings.HasPrefix(err.Error(), "big.py:4:") {
		t.Errorf("error not positioned on line 4: %.80s", err)
	}
}
