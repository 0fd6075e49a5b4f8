package asm

import (
	"fmt"
	"testing"
	"unsafe"
)

// BenchmarkSgemmIndirectL1 runs the wide (8x48) AVX-512 tile at depth 27
// and 128, its operands in L1, as the plain kernel on a packed panel, as
// the indirect kernel reading B rows at a 3x3 window's offsets over
// 66-wide rows (a 3-channel convolution on 64² with padding), and as the
// scattering chain kernel (bias and relu, every lane stored) on the same
// rows: what the indirect addressing and the scattering epilogue cost per
// tile against the plain kernel's arithmetic.
func BenchmarkSgemmIndirectL1(b *testing.B) {
	mr, nr, ok := SgemmTileWide()
	if !ok || CurrentLevel() != LevelAVX512 {
		b.Skip("the wide tile is AVX-512 only")
	}
	const ws, plane = 66, 66 * 66
	for _, kc := range []int{27, 128} {
		a := make([]float32, kc*mr)
		pb := make([]float32, kc*nr)
		x := make([]float32, 3*plane+4*ws)
		for i := range a {
			a[i] = 1
		}
		for i := range x {
			x[i] = 0.5
		}
		for i := range pb {
			pb[i] = 0.5
		}
		offs := make([]int, kc)
		for p := range offs {
			t := p % 27
			offs[p] = (t/9)*plane + ((t%9)/3)*ws + t%3 + 4*(p/27)
		}
		c := make([]float32, mr*nr)
		flops := 2 * float64(kc*mr*nr)
		codes := []uint8{0, 0}
		sc := make([]float32, len(codes)*mr)
		var st [9]int64
		for v := 0; v < 3; v++ {
			st[3*v] = int64(64 * v)
			st[3*v+2] = 0xffff
		}
		run := func(name string, f func()) {
			b.Run(fmt.Sprintf("%s/kc=%d", name, kc), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					f()
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
		ap, cp := unsafe.Pointer(&a[0]), unsafe.Pointer(&c[0])
		run("plain", func() { SgemmKernelWide(kc, a, pb, c, nr, 1, 0) })
		run("indirect", func() {
			SgemmKernelIndirectUnchecked(true, kc, ap, unsafe.Pointer(&x[0]), &offs[0], cp, nr, 1, 0)
		})
		run("scatter", func() {
			SgemmKernelIndirectChainScatterUnchecked(kc, ap, unsafe.Pointer(&x[0]), &offs[0], cp, nr, 1, &codes[0], &sc[0], len(codes), &st, ScatterPrefetchNone, ScatterResidual{}, 1)
		})
	}
}
