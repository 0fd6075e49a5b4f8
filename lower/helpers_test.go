package lower_test

import (
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/ir/tvmscript"
	"github.com/relaxgo/relaxgo/lower"
)

// lowerThrough parses the TVMScript src (named file) and runs the default
// pipeline up to and including the pass last, returning the module and its
// printed text.
func lowerThrough(t *testing.T, file, src, last string) (*ir.Module, string) {
	t.Helper()
	m, err := tvmscript.Parse(file, []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	var passes []lower.Pass
	for _, p := range lower.DefaultPasses() {
		passes = append(passes, p)
		if p.Name == last {
			break
		}
	}
	out, err := lower.Run(m, passes, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out, tvmscript.Print(out, tvmscript.Current)
}

// funcText is the printed function name of the module text all: from its
// def to the next function's decorator.
func funcText(t *testing.T, all, name string) string {
	t.Helper()
	i := strings.Index(all, "def "+name+"(")
	if i < 0 {
		t.Fatalf("%s: function lost:\n%s", name, all)
	}
	text := all[i:]
	if j := strings.Index(text, "@R.function"); j >= 0 {
		text = text[:j]
	}
	return text
}

// externCalls returns the calls of the extern function symbol in m's Relax
// functions (a fused kernel's call_dps_packed), in visiting order.
func externCalls(m *ir.Module, symbol string) []*ir.Call {
	var calls []*ir.Call
	for _, f := range m.RelaxFuncs() {
		ir.VisitExpr(f.Body, func(e ir.Expr) bool {
			if c, ok := e.(*ir.Call); ok && len(c.Args) == 2 {
				if ext, ok := c.Args[0].(*ir.ExternFunc); ok && ext.Symbol == symbol {
					calls = append(calls, c)
				}
			}
			return true
		})
	}
	return calls
}
