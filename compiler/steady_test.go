package compiler_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relaxgo/relaxgo/compiler"

	"github.com/relaxgo/relaxgo/internal/conformance"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// outputAllocs is the number of allocations a call spends on returning v,
// once the VM is warm: a tensor 1 (its Storage object holds the header and
// the bytes); a tuple none of its own when the VM keeps it in its first
// tensor's storage (up to four elements), else 1 up to eight elements and 2
// past that, plus its elements; a Shape none (make_shape hands back its
// site's previous value while the shape is unchanged); a boxed scalar 1.
func outputAllocs(v runtime.Value) int {
	switch x := v.(type) {
	case *runtime.Tensor:
		return 1
	case runtime.Tuple:
		n := 0
		if len(x) == 0 || len(x) > 4 {
			n = 1
		} else if _, ok := x[0].(*runtime.Tensor); !ok {
			n = 1
		}
		if len(x) > 8 {
			n = 2
		}
		for _, e := range x {
			n += outputAllocs(e)
		}
		return n
	case runtime.Shape, nil, bool:
		return 0
	}
	return 1
}

// steadyStateBounds states, per corpus model, the most allocations one call
// may make once the VM is warm: its outputs' cost (outputAllocs) and nothing
// else, except where noted. The test checks the table against outputAllocs
// so that it stays honest when the corpus changes.
var steadyStateBounds = map[string]struct{ bound, extra int }{
	"add_self":          {1, 0}, // one tensor
	"cnn_small":         {1, 0}, // a tuple of one tensor, kept in its storage
	"dynamic_batch":     {1, 0}, // one tensor (its shape heap's shape made once, its storage pooled)
	"if_branch":         {1, 0}, // one tensor
	"match_cast_shape":  {0, 0}, // one Shape, the same every call
	"mlp_highlevel":     {1, 0}, // a tuple of one tensor, kept in its storage
	"packed_call":       {3, 2}, // one tensor, plus corpus.scale3's own result tensor (2)
	"recursion":         {2, 1}, // one tensor, plus a tensor header the recursive calls make (Storage.newView)
	"transformer_block": {1, 0}, // a tuple of one tensor, kept in its storage
	"tuples":            {2, 0}, // a tuple of two tensors; it and the intermediate tuple t = (s, d) kept in storages
}

// TestSteadyStateAllocs checks that, after warm-up, a call of every corpus
// model on the bytecode VM (pooled allocator) allocates no more than its
// outputs need: the kernels, the allocator and the builtins allocate nothing.
func TestSteadyStateAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	forEachCall(t, func(t *testing.T, c *conformance.Case, vm *runtime.VM, i int, call conformance.Call, args []runtime.Value, io *tensorio.Archive) {
		var v runtime.Value
		var err error
		for range 3 {
			if v, err = vm.Invoke(call.Func, args...); err != nil {
				t.Fatal(err)
			}
		}
		bound := outputAllocs(v)
		if b, ok := steadyStateBounds[c.Name]; ok {
			if b.bound != bound+b.extra {
				t.Errorf("call %d: the table's bound %d is not the outputs' cost %d plus the stated extra %d", i, b.bound, bound, b.extra)
			}
			bound = b.bound
		} else {
			t.Logf("not in steadyStateBounds: using the outputs' cost, %d", bound)
		}
		n := testing.AllocsPerRun(100, func() {
			if _, err := vm.Invoke(call.Func, args...); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("call %d: %v allocations per call (bound %d)", i, n, bound)
		if n > float64(bound) {
			t.Errorf("call %d: %v allocations per call, want at most %d", i, n, bound)
		}
		// Results stay right with the VM's caches warm.
		if v, err = vm.Invoke(call.Func, args...); err != nil {
			t.Fatal(err)
		}
		if err := c.Check(call, io, v); err != nil {
			t.Fatalf("call %d after the allocation runs: %v", i, err)
		}
	})
}

// TestRecycledOutputsCorpus runs every corpus call twice in a row on a VM
// with recycled outputs (runtime.WithRecycledOutputs), checking each result
// before the next call (the previous result's storage and tuple are reused:
// the tuples case's intermediate tuple takes the previous call's result
// tuple), and that a warm call of the cases in recycledZero allocates
// nothing.
func TestRecycledOutputsCorpus(t *testing.T) {
	forEachCall(t, func(t *testing.T, c *conformance.Case, vm *runtime.VM, i int, call conformance.Call, args []runtime.Value, io *tensorio.Archive) {
		for range 3 {
			v, err := vm.Invoke(call.Func, args...)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Check(call, io, v); err != nil {
				t.Fatalf("call %d with recycled outputs: %v", i, err)
			}
		}
		if raceEnabled {
			return
		}
		n := testing.AllocsPerRun(50, func() {
			if _, err := vm.Invoke(call.Func, args...); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("call %d: %v allocations per call with recycled outputs", i, n)
		if recycledZero[c.Name] && n != 0 {
			t.Errorf("call %d: %v allocations per call with recycled outputs, want 0", i, n)
		}
	}, runtime.WithRecycledOutputs())
}

// recycledZero are the corpus cases whose warm calls allocate nothing with
// recycled outputs: results of static shape (a tensor, or a tuple of them
// made once per call). The others still allocate what the result needs
// anew each call: a shape computed at run time (dynamic_batch's n,
// match_cast_shape's result), a second tuple (tuples: the first reuses the
// previous result, the returned one is new), the nested calls' results
// (recursion) and a packed function's own result (packed_call).
var recycledZero = map[string]bool{
	"add_self": true, "cnn_small": true, "if_branch": true, "mlp_highlevel": true, "transformer_block": true,
}

// TestRecycledTupleTakenOnce checks that with recycled outputs only the
// first tuple of a call reuses the previous result: here the first tuple is
// still read after the second is made, so reusing the previous result for
// both would make the call return (y, y).
func TestRecycledTupleTakenOnce(t *testing.T) {
	src := `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        t1: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = (x, y)
        t2: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = (y, x)
        b: R.Tensor((4,), dtype="float32") = t2[0]
        a: R.Tensor((4,), dtype="float32") = t1[0]
        gv: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = (a, b)
        return gv
`
	path := filepath.Join(t.TempDir(), "twotuples.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := compiler.CompileFile(path, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vm, err := runtime.NewVM(res.Exec, runtime.WithRecycledOutputs())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		x, _ := runtime.FromSlice([]float32{1, 2, 3, float32(i)}, 4)
		y, _ := runtime.FromSlice([]float32{5, 6, 7, float32(-i)}, 4)
		v, err := vm.Invoke("main", x, y)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := v.(runtime.Tuple)
		if !ok || len(got) != 2 || !runtime.ValuesEqual(got[0], x) || !runtime.ValuesEqual(got[1], y) {
			t.Fatalf("call %d: %v, want (x, y)", i, v)
		}
	}
}
