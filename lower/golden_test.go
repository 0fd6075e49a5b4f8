package lower_test

import (
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/relaxgo/relaxgo/internal/golden"
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/ir/tvmscript"
	"github.com/relaxgo/relaxgo/lower"
	"github.com/relaxgo/relaxgo/vmtir"
)

// golden compares got with testdata/golden/name (go test -update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), []byte(got))
}

// TestPipelineGolden pins the module after every pass for a few modules
// (three of the corpus modules the compiler package keeps for its fuzzing
// seeds), and the bytecode of each as the executable's AsText.
func TestPipelineGolden(t *testing.T) {
	for _, name := range []string{"dynamic_batch", "if_branch", "tuples"} {
		path := filepath.Join("..", "compiler", "testdata", "corpus", name, "module.py")
		t.Run(name, func(t *testing.T) {
			m := parse(t, path)
			var dump strings.Builder
			out, err := lower.Run(m, lower.DefaultPasses(), lower.Options{Dump: &dump, DumpAfter: []string{"all"},
				Printer: func(m *ir.Module) string { return tvmscript.Print(m, tvmscript.Current) }})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".passes.txt", dump.String())
			p, err := vmtir.Lower(out)
			if err != nil {
				t.Fatal(err)
			}
			exec, _, err := vmtir.Bytecode(p)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".astext.txt", exec.AsText())
		})
	}
}
