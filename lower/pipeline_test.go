package lower_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/internal/corpus"
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/ir/tvmscript"
	_ "github.com/relaxgo/relaxgo/kernels"
	"github.com/relaxgo/relaxgo/lower"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/vmtir"
)

func parse(t *testing.T, path string) *ir.Module {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := tvmscript.Parse(path, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPipelineCorpusLowers(t *testing.T) {
	for _, path := range corpus.Modules(t) {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			m := parse(t, path)
			var dump strings.Builder
			out, err := lower.Run(m, lower.DefaultPasses(), lower.Options{Dump: &dump, DumpAfter: []string{"all"}, Printer: func(m *ir.Module) string { return tvmscript.Print(m, tvmscript.Current) }})
			if err != nil {
				t.Fatal(err)
			}
			p, err := vmtir.Lower(out)
			if err != nil {
				t.Log(dump.String())
				t.Fatal(err)
			}
			if _, _, err := vmtir.Bytecode(p); err != nil {
				t.Log(p.String())
				t.Fatal(err)
			}
			if testing.Verbose() {
				t.Log(dump.String())
				t.Log(p.String())
			}
		})
	}
	_ = runtime.Float32
}
