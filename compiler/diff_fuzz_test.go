package compiler_test

import (
	"testing"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/internal/difffuzz"
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/kernels"
	"github.com/relaxgo/relaxgo/runtime"
)

// FuzzDiffSIMDLevels is a differential fuzzer in the style of wazero's
// nodiff: the input drives internal/difffuzz to write a small random, well
// typed Relax module; every function runs in bytecode mode at each SIMD level
// (the pure-Go twins, AVX2, AVX-512 where present) on deterministic inputs,
// and the results must be bit-identical (and no call may fail: the modules
// are well typed, their shapes static).
// (cmd/relaxgo's TestDiffModes compares bytecode with compiled mode.)
func FuzzDiffSIMDLevels(f *testing.F) {
	for i := 0; i < 8; i++ {
		b := make([]byte, 64)
		for j := range b {
			b[j] = byte(i*31 + j*7)
		}
		f.Add(b)
	}
	levels := []asm.Level{}
	for l := asm.LevelGo; l <= asm.MaxLevel(); l++ {
		levels = append(levels, l)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(levels) < 2 {
			t.Skip("only the pure-Go level on this build")
		}
		// Inputs with an odd first byte bind the weights to constants (the
		// pre-packed, transformed and blocked weight paths); the others
		// pass them as arguments.
		var src string
		var opt compiler.Options
		if len(data) > 0 && data[0]&1 == 1 {
			var shapes map[string][]int64
			src, shapes = difffuzz.ModuleWeights(difffuzz.NewSource(data[1:]), 2, 8)
			var err error
			if opt.Params, err = difffuzz.SampleWeights(shapes); err != nil {
				t.Fatal(err)
			}
		} else {
			src = difffuzz.Module(difffuzz.NewSource(data), 2, 8)
		}
		res, err := compiler.Compile("diff.py", []byte(src), opt)
		if err != nil {
			t.Fatalf("generated module does not compile: %v\n%s", err, src)
		}
		defer func(l asm.Level) { _ = asm.SetLevel(l) }(asm.CurrentLevel())
		defer kernels.SetNumThreads(0)
		vm, err := runtime.NewVM(res.Exec)
		if err != nil {
			t.Fatal(err)
		}
		// As a model's loader does: the bound weights' packed, transformed
		// and blocked forms are made once and used at every call.
		kernels.RegisterConstants(res.Exec)
		defer kernels.UnregisterConstants(res.Exec)
		for _, fn := range res.Source.RelaxFuncs() {
			var args []runtime.Value
			for i, p := range fn.Params {
				if _, bound := opt.Params[p.Name]; bound {
					continue // a weight, now a constant
				}
				shape, ok := staticShape(p.Info)
				if !ok {
					t.Fatalf("%s: parameter %s has no static shape", fn.Name, p.Name)
				}
				x, err := runtime.SampleTensor(shape, runtime.Float32, i+1)
				if err != nil {
					t.Fatal(err)
				}
				args = append(args, x)
			}
			var first runtime.Value
			for k, l := range levels {
				if err := asm.SetLevel(l); err != nil {
					t.Fatal(err)
				}
				kernels.SetNumThreads(1 + k%2) // thread counts must not matter either
				v, err := vm.Invoke(fn.Name, args...)
				if err != nil {
					// Well typed, static shapes, sample inputs: an error is
					// a bug (or a harness passing the wrong arguments).
					t.Fatalf("%s: %v at %s\n%s", fn.Name, err, l, src)
				}
				v = clone(v)
				if k == 0 {
					first = v
					continue
				}
				if !runtime.ValuesEqual(first, v) {
					t.Fatalf("%s: results at %s and %s differ\n%s", fn.Name, levels[0], l, src)
				}
			}
		}
	})
}

// staticShape is a tensor parameter's static shape.
func staticShape(s ir.StructInfo) ([]int64, bool) {
	t, ok := s.(*ir.TensorSInfo)
	if !ok {
		return nil, false
	}
	return t.StaticShape()
}
