package compiler_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/gen"
	"github.com/relaxgo/relaxgo/internal/corpus"
)

// FuzzCompile feeds mutated modules through the whole compiler: parsing,
// type inference, every pass, the register program, the executable and Go
// code generation. Anything may be refused with an error; nothing may panic.
func FuzzCompile(f *testing.F) {
	// Seeds: the corpus subset committed under testdata/corpus, so that a
	// bare clone fuzzes real modules, plus the whole corpus when present.
	mods, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*", "module.py"))
	if len(mods) == 0 {
		f.Fatal("no seed modules under testdata/corpus")
	}
	if dir, _ := corpus.Find(); dir != "" {
		more, _ := filepath.Glob(filepath.Join(dir, "*", "module.py"))
		mods = append(mods, more...)
	}
	for _, m := range mods {
		b, err := os.ReadFile(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := compiler.Compile("fuzz.py", src, compiler.Options{})
		if err != nil {
			return
		}
		if _, err := gen.Package(gen.Input{Lowered: res.Lowered, Program: res.Program, Exec: res.Exec, Consts: res.Consts, Package: "model", Source: "fuzz.py"}); err != nil {
			return
		}
	})
}
