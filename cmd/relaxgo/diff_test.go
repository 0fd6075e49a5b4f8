package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/internal/difffuzz"
	"github.com/relaxgo/relaxgo/ir"
)

// TestDiffModes is the bytecode-versus-compiled half of the differential
// testing (compiler's FuzzDiffSIMDLevels is the SIMD-level half): 40 random
// well-typed functions (internal/difffuzz, fixed seeds) are generated into
// one package, which runs each in both modes on deterministic inputs and
// requires bit-identical results or identical errors. One package and one
// build serve all functions.
func TestDiffModes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated package")
	}
	const nfuncs = 40
	r := rand.New(rand.NewSource(20261124))
	seed := make([]byte, 64*nfuncs)
	r.Read(seed)
	src := difffuzz.Module(difffuzz.NewSource(seed), nfuncs, 10)
	res, err := compiler.Compile("diff.py", []byte(src), compiler.Options{})
	if err != nil {
		t.Fatalf("generated module does not compile: %v\n%s", err, src)
	}
	dir, err := os.MkdirTemp(".", "_diffmodes")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	module := filepath.Join(dir, "diff.py")
	if err := os.WriteFile(module, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := runGen([]string{"--pkg", "diffmodel", "-o", dir, module}, &stdout, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	var calls strings.Builder
	for _, fn := range res.Source.RelaxFuncs() {
		var args []string
		for i, p := range fn.Params {
			shape, ok := p.Info.(*ir.TensorSInfo).StaticShape()
			if !ok {
				t.Fatalf("%s: parameter %s has no static shape", fn.Name, p.Name)
			}
			args = append(args, fmt.Sprintf("sample(t, %#v, %d)", shape, i+1))
		}
		fmt.Fprintf(&calls, "\tcheck(%q, %s)\n", fn.Name, strings.Join(args, ", "))
	}
	harness := `package diffmodel

import (
	"fmt"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func sample(t *testing.T, shape []int64, seed int) runtime.Value {
	x, err := runtime.SampleTensor(shape, runtime.Float32, seed)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestDiff(t *testing.T) {
	m, err := New()
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, args ...runtime.Value) {
		b, c, berr, cerr := m.CompareModes(name, args...)
		if fmt.Sprint(berr) != fmt.Sprint(cerr) {
			t.Errorf("%s: bytecode error %v, compiled error %v", name, berr, cerr)
		} else if berr == nil && !runtime.ValuesEqual(b, c) {
			t.Errorf("%s: bytecode and compiled results differ", name)
		}
	}
` + calls.String() + "}\n"
	if err := os.WriteFile(filepath.Join(dir, "diff_test.go"), []byte(harness), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "test", "-count=1", "./"+filepath.ToSlash(dir)).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s\n--- module\n%s", err, out, src)
	}
}
