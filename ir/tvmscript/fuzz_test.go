package tvmscript

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relaxgo/relaxgo/internal/corpus"
	"github.com/relaxgo/relaxgo/ir"
)

// FuzzParse feeds arbitrary text to the parser: it must never panic, and
// whatever it accepts must print and re-parse to a structurally equal module.
// Seeds: the golden inputs, the corpus (when present) and testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.py"))
	if dir, _ := corpus.Find(); dir != "" {
		mods, _ := filepath.Glob(filepath.Join(dir, "*", "module.py"))
		seeds = append(seeds, mods...)
	}
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := ParseString("fuzz.py", src, nil)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error is %T, not *Error: %v", err, err)
			}
			return
		}
		for _, d := range []Dialect{Current, V023} {
			text := Print(m, d)
			m2, err := ParseString("printed.py", text, nil)
			if err != nil {
				t.Fatalf("printed %s text does not parse: %v\n--- input\n%s\n--- printed\n%s", d, err, src, text)
			}
			if err := ir.StructuralEqual(m, m2); err != nil {
				t.Fatalf("round trip through %s differs: %v\n--- input\n%s\n--- printed\n%s", d, err, src, text)
			}
		}
	})
}
