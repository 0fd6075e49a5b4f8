package difffuzz

import (
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/compiler"
)

// TestModulesCompile checks that generated modules are well typed: a few
// hundred random functions all parse, type-check and compile.
func TestModulesCompile(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		b := make([]byte, 400)
		r.Read(b)
		src := Module(NewSource(b), 10, 8)
		if _, err := compiler.Compile("gen.py", []byte(src), compiler.Options{}); err != nil {
			t.Fatalf("module %d does not compile: %v\n%s", i, err, src)
		}
	}
}
