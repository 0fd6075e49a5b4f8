package compiler_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/conformance"
	"github.com/relaxgo/relaxgo/gen"
)

// FuzzCompile feeds mutated modules through the whole compiler: parsing,
// type inference, every pass, the register program, the executable and Go
// code generation. Anything may be refused with an error; nothing may panic.
func FuzzCompile(f *testing.F) {
	if dir := conformance.Dir(); dir != "" {
		mods, _ := filepath.Glob(filepath.Join(dir, "*", "module.py"))
		for _, m := range mods {
			if b, err := os.ReadFile(m); err == nil {
				f.Add(b)
			}
		}
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
