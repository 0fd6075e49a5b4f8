package kernels

import (
	"fmt"
	"math/rand"
	"testing"
	"unsafe"

	"github.com/relaxgo/relaxgo/asm"
)

func BenchmarkZZPos(b *testing.B) {
	SetNumThreads(1)
	defer SetNumThreads(0)
	for _, c := range []struct{ ci, co, hw int }{{960, 160, 7}, {160, 960, 7}, {320, 1280, 7}, {576, 96, 14}, {96, 576, 14}, {64, 384, 14}, {384, 64, 14}, {32, 192, 28}, {192, 32, 28}} {
		r := rand.New(rand.NewSource(1))
		n := c.hw * c.hw
		x := make([]float32, c.ci*n)
		w := make([]float32, c.co*c.ci)
		for i := range x {
			x[i] = r.Float32()
		}
		for i := range w {
			w[i] = r.Float32()
		}
		out := make([]float32, c.co*n)
		want := make([]float32, c.co*n)
		t := make([]float32, c.co*n)
		g := convGeomFor(c.ci, c.co, c.hw, c.hw, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0)
		mr, _ := asm.SgemmTile()
		if gemmUseMid(c.co, n) {
			mr, _, _ = asm.SgemmTileMid()
		}
		pa := packA(c.co, c.ci, w, c.ci, mr)
		pb := packBFor(true, c.ci, c.co, w, c.ci, 32)
		np := pb.npanels
		flop := 2 * float64(c.ci*c.co*n)
		run := func() {
			for pc := 0; pc < c.ci; pc += gemmKC {
				kc := min(gemmKC, c.ci-pc)
				var beta float32
				if pc > 0 {
					beta = 1
				}
				for jp := 0; jp < np; jp++ {
					bp := unsafe.Pointer(&pb.data[pc*np*32+jp*kc*32])
					for p0 := 0; p0 < n; p0 += 7 {
						asm.SgemmKernelStridedUnchecked(kc, unsafe.Pointer(&x[pc*n+p0]), n, bp, unsafe.Pointer(&t[p0*c.co+jp*32]), c.co, 1, beta)
					}
				}
			}
			asm.TransposeF32(out, n, t, c.co, n, c.co)
		}
		convPackedRef(&g, x, w, want, pa)
		run()
		for i := range want {
			if want[i] != out[i] {
				b.Fatalf("%v: [%d] %v want %v", c, i, out[i], want[i])
			}
		}
		b.Run(fmt.Sprintf("%dx%d_%d/now", c.ci, c.co, c.hw), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				convPackedRef(&g, x, w, want, pa)
			}
			b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("%dx%d_%d/pos7", c.ci, c.co, c.hw), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				run()
			}
			b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
