package compiler_test

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/internal/conformance"
	"github.com/relaxgo/relaxgo/ir/tvmscript"
	"github.com/relaxgo/relaxgo/lower"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// caseVM compiles a corpus case (with its params) and returns a bytecode VM
// for it. Cases with TIR functions are skipped: those run only as generated
// code (cmd/relaxgo's corpus test covers them).
func caseVM(tb testing.TB, c *conformance.Case, opts ...runtime.VMOption) *runtime.VM {
	tb.Helper()
	opt := compiler.Options{}
	if p := c.ParamsPath(); p != "" {
		var err error
		if opt.Params, err = compiler.LoadParams(p); err != nil {
			tb.Fatal(err)
		}
	}
	res, err := compiler.CompileFile(c.ModulePath(), opt)
	if err != nil {
		tb.Fatal(err)
	}
	if len(res.Lowered.PrimFuncs()) > 0 {
		tb.Skip("TIR functions run only as generated code")
	}
	vm, err := runtime.NewVM(res.Exec, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return vm
}

// fileVM compiles a test module (no params) and returns a bytecode VM for it.
func fileVM(t *testing.T, path string) *runtime.VM {
	t.Helper()
	res, err := compiler.CompileFile(path, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vm, err := runtime.NewVM(res.Exec)
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

// checkFloat32Outputs compares the float32 tensors of a tuple result with
// want, exactly.
func checkFloat32Outputs(t *testing.T, out runtime.Value, want [][]float32) {
	t.Helper()
	r := out.(runtime.Tuple)
	for k, w := range want {
		got := r[k].(*runtime.Tensor).Float32s()
		for i := range w {
			if got[i] != w[i] {
				t.Fatalf("output %d = %v, want %v", k, got, w)
			}
		}
	}
}

// forEachCall runs f on each corpus call that should succeed, in a subtest
// per case, with the case's VM (made with opts), the call's index and its
// arguments and expected outputs.
func forEachCall(t *testing.T, f func(t *testing.T, c *conformance.Case, vm *runtime.VM, i int, call conformance.Call, args []runtime.Value, io *tensorio.Archive), opts ...runtime.VMOption) {
	for _, c := range conformance.Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			vm := caseVM(t, c, opts...)
			for i, call := range c.Calls {
				if call.Error != "" {
					continue
				}
				args, io, err := c.Inputs(call)
				if err != nil {
					t.Fatal(err)
				}
				f(t, c, vm, i, call, args, io)
			}
		})
	}
}

// passesWithout is the default pass list without the pass named name: the
// unfused program a fusion's test compares with.
func passesWithout(names ...string) []lower.Pass {
	var out []lower.Pass
	for _, p := range lower.DefaultPasses() {
		if !slices.Contains(names, p.Name) {
			out = append(out, p)
		}
	}
	return out
}

// compileRun compiles the TVMScript src (named file) with passes (nil for
// the default ones), calls main with args on a bytecode VM, and returns
// the lowered module's text and main's float32 result.
func compileRun(t *testing.T, file, src string, passes []lower.Pass, args []runtime.Value) (string, []float32) {
	t.Helper()
	res, err := compiler.Compile(file, []byte(src), compiler.Options{Passes: passes})
	if err != nil {
		t.Fatal(err)
	}
	vm, err := runtime.NewVM(res.Exec)
	if err != nil {
		t.Fatal(err)
	}
	v, err := vm.Invoke("main", args...)
	if err != nil {
		t.Fatal(err)
	}
	return tvmscript.Print(res.Lowered, tvmscript.Current), v.(*runtime.Tensor).Float32s()
}

// sameBits fails t at the first element of got whose bits differ from
// want's.
func sameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for k := range want {
		if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
			t.Fatalf("%s: [%d] %08x, want %08x", what, k, math.Float32bits(got[k]), math.Float32bits(want[k]))
		}
	}
}

// randArg is a float32 tensor of normal values, about one element in every
// replaced by special(r) when special is not nil (r.Intn(every) decides).
func randArg(r *rand.Rand, every int, special func(r *rand.Rand) float32, shape ...int64) *runtime.Tensor {
	x := runtime.MustNewTensor(shape, runtime.Float32)
	xs := x.Float32s()
	for i := range xs {
		xs[i] = float32(r.NormFloat64())
		if special != nil && r.Intn(every) == 0 {
			xs[i] = special(r)
		}
	}
	return x
}
