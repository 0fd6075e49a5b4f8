package lower_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/ir/tvmscript"
	"github.com/relaxgo/relaxgo/lower"
	"github.com/relaxgo/relaxgo/vmtir"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./lower -run Golden -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run with -update after checking the change):\n%s", path, diffLines(string(want), got))
	}
}

// diffLines shows the first differing line.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, a, b)
		}
	}
	return ""
}

// TestPipelineGolden pins the module after every pass for a few modules
// (testdata/*.py), and the bytecode of each as the executable's AsText.
func TestPipelineGolden(t *testing.T) {
	mods, _ := filepath.Glob(filepath.Join("testdata", "*.py"))
	if len(mods) == 0 {
		t.Fatal("no test modules")
	}
	for _, path := range mods {
		name := strings.TrimSuffix(filepath.Base(path), ".py")
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
