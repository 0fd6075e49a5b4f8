package tvmscript

import (
	"testing"

	"github.com/relaxgo/relaxgo/internal/corpus"
	"github.com/relaxgo/relaxgo/ir"
)

// roundTrip prints m in dialect d, re-parses the text and checks that the
// result is structurally equal to m.
func roundTrip(t *testing.T, m *ir.Module, d Dialect, opts *Options) string {
	t.Helper()
	text := Print(m, d)
	m2, err := Parse("printed.py", []byte(text), opts)
	if err != nil {
		t.Fatalf("re-parse of %s output: %v\n%s", d, err, text)
	}
	if err := ir.StructuralEqual(m, m2); err != nil {
		t.Fatalf("round trip through %s differs: %v\n%s", d, err, text)
	}
	// Printing is deterministic and idempotent.
	if text2 := Print(m2, d); text2 != text {
		t.Fatalf("printing the re-parsed module changed the text:\n%s\n---\n%s", text, text2)
	}
	return text
}

// TestCorpus: every corpus module parses, normalizes, is well formed,
// prints in both dialects and re-parses structurally equal.
func TestCorpus(t *testing.T) {
	corpus.EachModule(t, func(t *testing.T, f string, src []byte) {
		m, err := Parse(f, src, nil)
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		// The raw parse round-trips too (annotations only).
		for _, d := range []Dialect{Current, V023} {
			roundTrip(t, m, d, nil)
		}
		if err := ir.Normalize(m); err != nil {
			t.Fatalf("normalize: %v", err)
		}
		if err := ir.WellFormed(m); err != nil {
			t.Fatalf("well-formed: %v", err)
		}
		for _, d := range []Dialect{Current, V023} {
			text := roundTrip(t, m, d, nil)
			m2, _ := Parse("printed.py", []byte(text), nil)
			if err := ir.Normalize(m2); err != nil {
				t.Fatalf("normalize printed %s: %v\n%s", d, err, text)
			}
			if err := ir.WellFormed(m2); err != nil {
				t.Fatalf("well-formed printed %s: %v", d, err)
			}
			if err := ir.StructuralEqual(m, m2); err != nil {
				t.Fatalf("normalized round trip through %s differs: %v", d, err)
			}
		}
	})
}
