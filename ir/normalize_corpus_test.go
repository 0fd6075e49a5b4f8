package ir_test

import (
	"testing"

	"github.com/relaxgo/relaxgo/internal/corpus"
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/ir/tvmscript"
)

// TestCorpusNormalizeWellFormed parses every corpus module, normalizes it
// (twice, to check idempotence) and checks it is well formed.
func TestCorpusNormalizeWellFormed(t *testing.T) {
	corpus.EachModule(t, func(t *testing.T, f string, src []byte) {
		m, err := tvmscript.Parse(f, src, nil)
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		if err := ir.Normalize(m); err != nil {
			t.Fatalf("normalize: %v", err)
		}
		if err := ir.WellFormed(m); err != nil {
			t.Fatalf("well-formed: %v", err)
		}
		before := snapshot(m)
		if err := ir.Normalize(m); err != nil {
			t.Fatalf("second normalize: %v", err)
		}
		if after := snapshot(m); after != before {
			t.Fatalf("Normalize is not idempotent:\n%s\n---\n%s", before, after)
		}
		for _, fn := range m.RelaxFuncs() {
			if fn.SInfo() == nil {
				t.Errorf("function %s has no struct info", fn.Name)
			}
			for _, b := range ir.FunctionBindings(fn) {
				if b.BoundVar().SInfo() == nil {
					t.Errorf("%s: variable %s has no struct info", fn.Name, b.BoundVar().Name)
				}
			}
		}
	})
}

// snapshot renders the struct info of every function and bound variable.
func snapshot(m *ir.Module) string {
	s := ""
	for _, fn := range m.RelaxFuncs() {
		s += fn.Name + ": " + ir.SInfoString(fn.SInfo()) + "\n"
		for _, b := range ir.FunctionBindings(fn) {
			s += "  " + b.BoundVar().Name + ": " + ir.SInfoString(b.BoundVar().SInfo()) + "\n"
			ir.VisitExpr(b.BoundValue(), func(e ir.Expr) bool {
				s += "    " + ir.SInfoString(e.SInfo()) + "\n"
				return true
			})
		}
	}
	return s
}
