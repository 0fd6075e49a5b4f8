package main

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/internal/difffuzz"
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/tensorio"
)

// TestDiffModes is the bytecode-versus-compiled half of the differential
// testing (compiler's FuzzDiffSIMDLevels is the SIMD-level half): 40 random
// well-typed functions (internal/difffuzz, fixed seeds) are generated into
// one package, which runs each in both modes on deterministic inputs and
// requires bit-identical results (and no error: the functions are well
// typed, their shapes static). One package and one
// build serve all functions. In "weights" the functions' matmul and
// convolution weights and channel biases are constants from a params file
// (difffuzz.ModuleWeights, `relaxgo gen --params`), as a model's are; in
// "arguments" they are run-time arguments.
func TestDiffModes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated package")
	}
	for _, consts := range []bool{false, true} {
		name := "arguments"
		if consts {
			name = "weights"
		}
		t.Run(name, func(t *testing.T) { diffModes(t, consts) })
	}
}

// diffModes is TestDiffModes with the weights constant or not.
func diffModes(t *testing.T, consts bool) {
	const nfuncs = 40
	r := rand.New(rand.NewSource(20261124))
	seed := make([]byte, 64*nfuncs)
	r.Read(seed)
	src := difffuzz.Module(difffuzz.NewSource(seed), nfuncs, 10)
	var opt compiler.Options
	var shapes map[string][]int64
	if consts {
		src, shapes = difffuzz.ModuleWeights(difffuzz.NewSource(seed), nfuncs, 10)
		var err error
		if opt.Params, err = difffuzz.SampleWeights(shapes); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := os.MkdirTemp(".", "_diffmodes")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	genArgs := []string{"--pkg", "diffmodel", "-o", dir}
	if consts {
		var a tensorio.Archive
		for _, name := range slices.Sorted(maps.Keys(opt.Params)) {
			if err := a.Add(name, opt.Params[name]); err != nil {
				t.Fatal(err)
			}
		}
		params := filepath.Join(dir, "weights.npz")
		if err := tensorio.WriteNPZFile(params, &a); err != nil {
			t.Fatal(err)
		}
		genArgs = append(genArgs, "--params", params)
	}
	res, err := compiler.Compile("diff.py", []byte(src), opt)
	if err != nil {
		t.Fatalf("generated module does not compile: %v\n%s", err, src)
	}
	module := filepath.Join(dir, "diff.py")
	if err := os.WriteFile(module, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := runGen(append(genArgs, module), &stdout, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	var calls strings.Builder
	for _, fn := range res.Source.RelaxFuncs() {
		var args []string
		for i, p := range fn.Params {
			if _, bound := opt.Params[p.Name]; bound {
				continue // a weight, now a constant
			}
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
		} else if berr != nil {
			t.Errorf("%s: %v (a well-typed function of static shapes)", name, berr)
		} else if !runtime.ValuesEqual(b, c) {
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
