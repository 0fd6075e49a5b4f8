package compiler_test

import (
	"testing"

	"github.com/relaxgo/relaxgo/internal/conformance"
	"github.com/relaxgo/relaxgo/runtime"
)

// outputAllocs is what returning v costs in heap allocations: a fresh tensor
// at most 2, its Storage (with its Tensor header, and up to a page its bytes
// too, else 1 more) and a shape computed during the call; a tuple its
// backing array and its boxing into a Value (2) plus its elements; a Shape
// its data and its box (2); a boxed scalar 1.
func outputAllocs(v runtime.Value) int {
	switch x := v.(type) {
	case *runtime.Tensor:
		return 2
	case runtime.Tuple:
		n := 2
		for _, e := range x {
			n += outputAllocs(e)
		}
		return n
	case runtime.Shape:
		return 2
	case nil, bool:
		return 0
	}
	return 1
}

// steadyStateBounds states, per corpus model, the most allocations one call
// may make once the VM is warm: its outputs' cost (outputAllocs) and nothing
// else, except where noted. The test checks the table against outputAllocs
// so that it stays honest when the corpus changes.
var steadyStateBounds = map[string]struct{ bound, extra int }{
	"add_self":          {2, 0}, // one tensor
	"cnn_small":         {4, 0}, // a tuple of one tensor
	"dynamic_batch":     {2, 0}, // one tensor
	"if_branch":         {2, 0}, // one tensor
	"match_cast_shape":  {2, 0}, // one Shape
	"mlp_highlevel":     {4, 0}, // a tuple of one tensor
	"packed_call":       {4, 2}, // one tensor, plus corpus.scale3's own result tensor (2)
	"recursion":         {2, 0}, // one tensor
	"transformer_block": {4, 0}, // a tuple of one tensor
	"tuples":            {8, 2}, // a tuple of two tensors, plus the intermediate tuple t = (s, d) (2)
}

// TestSteadyStateAllocs checks that, after warm-up, a call of every corpus
// model on the bytecode VM (pooled allocator) allocates no more than its
// outputs need: the kernels, the allocator and the builtins allocate nothing.
func TestSteadyStateAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under -race")
	}
	for _, c := range conformance.Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			vm := caseVM(t, c)
			for i, call := range c.Calls {
				if call.Error != "" {
					continue
				}
				args, io, err := c.Inputs(call)
				if err != nil {
					t.Fatal(err)
				}
				var v runtime.Value
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
			}
		})
	}
}
