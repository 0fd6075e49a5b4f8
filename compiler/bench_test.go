package compiler_test

import (
	"testing"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/conformance"
	"github.com/relaxgo/relaxgo/runtime"
)

// BenchmarkCorpusBytecode times the first call of every corpus case without
// TIR functions on the bytecode VM (pooled allocator, after warm-up).
func BenchmarkCorpusBytecode(b *testing.B) {
	dir := conformance.Dir()
	if dir == "" {
		b.Skip("no corpus")
	}
	cases, err := conformance.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	conformance.RegisterPacked()
	for _, c := range cases {
		call := c.Calls[0]
		if call.Error != "" {
			continue
		}
		b.Run(c.Name, func(b *testing.B) {
			opt := compiler.Options{}
			if p := c.ParamsPath(); p != "" {
				if opt.Params, err = compiler.LoadParams(p); err != nil {
					b.Fatal(err)
				}
			}
			res, err := compiler.CompileFile(c.ModulePath(), opt)
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Lowered.PrimFuncs()) > 0 {
				b.Skip("TIR functions run only as generated code")
			}
			vm, err := runtime.NewVM(res.Exec)
			if err != nil {
				b.Fatal(err)
			}
			args, _, err := c.Inputs(call)
			if err != nil {
				b.Fatal(err)
			}
			for range 3 {
				if _, err := vm.Invoke(call.Func, args...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := vm.Invoke(call.Func, args...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
