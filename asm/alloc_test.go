package asm

import (
	"testing"
	"unsafe"
)

// TestNoAllocs checks that no kernel moves its arguments to the heap: stack
// buffers passed to every entry point, at every level, stay on the stack
// (the assembly is called statically and marked //go:noescape).
func TestNoAllocs(t *testing.T) {
	for _, l := range levels() {
		withLevel(t, l, func() {
			allocs := testing.AllocsPerRun(20, func() {
				var x, y, d [200]float32
				for i := range x {
					x[i] = float32(i%7) - 3
					y[i] = 1.5
				}
				AddF32(d[:], x[:], y[:])
				DivScalarF32(d[:], d[:], 3)
				RSubScalarF32(d[:], d[:], 1)
				ExpF32(d[:], d[:])
				SigmoidF32(d[:], x[:])
				s := ReduceSumF32(d[:]) + ReduceMaxF32(x[:]) + DotF32(x[:], y[:])
				// One depth step on tiles up to 14x32 (a: kc*mr, b: kc*nr,
				// c: (mr-1)*nr+nr floats).
				_, nr := SgemmTile()
				var a, b [32]float32
				var c [14 * 32]float32
				SgemmKernelUnchecked(1, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), unsafe.Pointer(&c[0]), nr, s, 0)
			})
			if allocs != 0 {
				t.Errorf("level %s: %v allocations per run, want 0", l, allocs)
			}
		})
	}
}
