package compiler_test

import (
	"testing"

	"github.com/relaxgo/relaxgo/internal/conformance"
)

// BenchmarkCorpusBytecode times the first call of every corpus case without
// TIR functions on the bytecode VM (pooled allocator, after warm-up).
func BenchmarkCorpusBytecode(b *testing.B) {
	for _, c := range conformance.Cases(b) {
		call := c.Calls[0]
		if call.Error != "" {
			continue
		}
		b.Run(c.Name, func(b *testing.B) {
			vm := caseVM(b, c)
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
