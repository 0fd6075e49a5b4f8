package compiler_test

import (
	"testing"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/conformance"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// TestSIMDLevelsBitIdentical runs every corpus call at each SIMD level
// this CPU and build support (pure Go, AVX2, AVX-512) and requires the
// same bits: the assembly and its Go twins perform the same float32
// operations (the SGEMM twin uses asm.FMA32, the one rounding of the FMA
// instruction), so a model's results do not depend on the machine's SIMD
// level, nor on a noasm or non-amd64 build.
func TestSIMDLevelsBitIdentical(t *testing.T) {
	levels := []asm.Level{}
	for l := asm.LevelGo; l <= asm.MaxLevel(); l++ {
		levels = append(levels, l)
	}
	if len(levels) < 2 {
		t.Skip("only the pure-Go level on this build")
	}
	defer func(l asm.Level) {
		if err := asm.SetLevel(l); err != nil {
			t.Fatal(err)
		}
	}(asm.CurrentLevel())
	forEachCall(t, func(t *testing.T, c *conformance.Case, vm *runtime.VM, i int, call conformance.Call, args []runtime.Value, _ *tensorio.Archive) {
		var first runtime.Value
		for _, l := range levels {
			if err := asm.SetLevel(l); err != nil {
				t.Fatal(err)
			}
			v, err := vm.Invoke(call.Func, args...)
			if err != nil {
				t.Fatalf("call %d at %s: %v", i, l, err)
			}
			v = clone(v)
			if first == nil {
				first = v
			} else if !runtime.ValuesEqual(first, v) {
				t.Errorf("call %d: %s and %s differ", i, levels[0], l)
			}
		}
	})
}

// clone copies tensors out of a result (the VM may reuse their storage).
func clone(v runtime.Value) runtime.Value {
	switch x := v.(type) {
	case *runtime.Tensor:
		return x.Clone()
	case runtime.Tuple:
		out := make(runtime.Tuple, len(x))
		for i, f := range x {
			out[i] = clone(f)
		}
		return out
	}
	return v
}
