//go:build noasm || !amd64

package asm

// install selects the pure-Go twins: there is no assembly in this build.
func install(l Level) { level = LevelGo; resetKernels() }

func detect() Level { return LevelGo }

func init() { install(startLevel()) }

// The asm* functions are never called in this build (level is always
// LevelGo).

func asmDepthwiseNC3x3(dst *float32, dstStride int, src *float32, srcStride, r int, w *float32, rows, n, sw int, codes *uint8, sc *float32, nsteps int) {
	panic("asm: no assembly in this build")
}
func asmBinary(o op, dst, x, y *float32, n int)         { panic("asm: no assembly in this build") }
func asmScalar(o op, dst, x *float32, s float32, n int) { panic("asm: no assembly in this build") }
func asmUnary(o op, dst, x *float32, n int)             { panic("asm: no assembly in this build") }
func asmInterleave2(dst, even, odd *float32, n int)     { panic("asm: no assembly in this build") }
func asmScalarChain(dst, src *float32, codes *uint8, sc *float32, nsteps, n int) {
	panic("asm: no assembly in this build")
}
func asmScalarChainRows(dst *float32, dstStride int, src *float32, srcStride, rows, n int, codes *uint8, sc *float32, nsteps, scStride int) {
	panic("asm: no assembly in this build")
}
func asmMaxPool2(dst *float32, dstStride int, src *float32, srcStride, rows, n int, lo float32) {
	panic("asm: no assembly in this build")
}
func asmAvgPool2(dst *float32, dstStride int, src *float32, srcStride, rows, n int) {
	panic("asm: no assembly in this build")
}
func asmMaxPool2Checked(dst *float32, dstStride int, src *float32, srcStride, rows, n int, lo float32) (bad bool) {
	panic("asm: no assembly in this build")
}
func asmMaxPool3(dst *float32, dstStride int, src *float32, srcStride, rows, n int, lo float32) {
	panic("asm: no assembly in this build")
}
func asmDWPlanar(p *DWPlanar, d, x, w *float32) {
	panic("asm: no assembly in this build")
}
func asmTapSumChain(dst, base *float32, offs *int, w *float32, ntaps, n int, codes *uint8, sc *float32, nsteps int) {
	panic("asm: no assembly in this build")
}
func asmDepthwiseNC(dst *float32, dstStride int, src *float32, srcStride int, offs *int, w *float32, ntaps, rows, n, sw int, codes *uint8, sc *float32, nsteps int) {
	panic("asm: no assembly in this build")
}
func asmTapMax(dst, base *float32, offs *int, lo float32, ntaps, n int) {
	panic("asm: no assembly in this build")
}
func asmWinoIn(v *float32, vstride int, p *float32, psub, wq, n int) {
	panic("asm: no assembly in this build")
}
func asmWinoOut(y *float32, ystride int, mp *float32, mstride, n int) {
	panic("asm: no assembly in this build")
}
func asmWino6In(v *float32, vstride int, p *float32, psub, wq, n int) {
	panic("asm: no assembly in this build")
}
func asmWino6Out(y *float32, ystride int, mp *float32, mstride, n int) {
	panic("asm: no assembly in this build")
}
func asmTapSum(dst, base *float32, offs *int, w *float32, ntaps, n int) {
	panic("asm: no assembly in this build")
}
func asmCombine64(acc *[64]float32) float32 { panic("asm: no assembly in this build") }
func asmSumBlocks(x *float32, nblk int, acc *[64]float32) {
	panic("asm: no assembly in this build")
}
func asmDotBlocks(x, y *float32, nblk int, acc *[64]float32) {
	panic("asm: no assembly in this build")
}
func asmScaleMulAdd(dst, x *float32, s float32, g, b *float32, n int) {
	panic("asm: no assembly in this build")
}
func asmDot8(x, y *float32, n int, acc *[8]float32) {
	panic("asm: no assembly in this build")
}
func asmSum8Rows(x *float32, stride, rows, n int, acc *float32) {
	panic("asm: no assembly in this build")
}
func asmMaxRow(x *float32, n int, m *float32) int {
	panic("asm: no assembly in this build")
}
func asmMaxBlocks(x *float32, nblk int, acc *[64]float32) int {
	panic("asm: no assembly in this build")
}
func asmSgemmKernelSmall(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}
func asmSgemmKernel(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}
func asmSgemmDirect(r, kc int, a, b *float32, ldb int, c *float32, ldc int, alpha, beta float32, prefetch bool) {
	panic("asm: no assembly in this build")
}
func asmSgemmNarrow(r, kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc, cols int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}
func asmSgemmIndirect(wide bool, kc int, a, b *float32, offs *int, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}
func asmSgemmKernelStrided(prefetch bool, kc int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}
func asmChainCols(x *float32, ld, rows, blocks int, codes *uint8, sc *float32, nsteps int) {
	panic("asm: no assembly in this build")
}
func asmSgemmKernelGather(prefetch bool, sw, kc int, a *float32, offs *int, b, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}
func asmSgemmKernelMid(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}
func asmSgemmKernelWide(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}
func asmDeinterleave2Rows(even, odd, src *float32, n, rows, dstStride, srcStride int) {
	panic("asm: no assembly in this build")
}
func asmTranspose(dst *float32, ldd int, src *float32, lds, rows, cols, batch, dstep, sstep int) {
	panic("asm: no assembly in this build")
}
func asmPackA(rows int, dst, src *float32, mr, lda, kc int) {
	panic("asm: no assembly in this build")
}

func asmSoftmaxSmall(o, x *float32, n, rows int) int { panic("asm: no assembly in this build") }

func asmCopyRows(dst *float32, dstStride int, src *float32, srcStride, rows, n int) {
	panic("asm: no assembly in this build")
}

func asmSgemmIndirectNarrow(wide bool, nr, kc int, a, b *float32, offs *int, c *float32, ldc int, alpha, beta float32, chain bool, codes *uint8, sc *float32, nsteps int) {
	panic("asm: no assembly in this build")
}

func asmSgemmIndirectChainScatterNarrow(nr, kc int, a, b *float32, offs *int, c *float32, ldc int, alpha float32, codes *uint8, sc *float32, nsteps int, st *int64, res *float32, rat, rrev, tiles int) {
	panic("asm: no assembly in this build")
}

func asmSgemmKernelRowA(next bool, kc int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32, epi bool, cb, res *float32, ldr, flags int) {
	panic("asm: no assembly in this build")
}

func asmSgemmIndirectChain(kc int, a, b *float32, offs *int, c *float32, ldc int, alpha, beta float32, codes *uint8, sc *float32, nsteps int) {
	panic("asm: no assembly in this build")
}
func asmLayerNormShort(o, x, g, b *float32, rows, n int, eps float64) {
	panic("asm: no assembly in this build")
}

func asmSgemmIndirectChainScatter(kc int, a, b *float32, offs *int, c *float32, ldc int, alpha float32, codes *uint8, sc *float32, nsteps int, st *int64, prefetch ScatterPrefetch, res *float32, rat, rrev, tiles int) {
	panic("asm: no assembly in this build")
}
func asmSgemmKernelHalf(mr, kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}
func asmMaxPool3Checked(dst *float32, dstStride int, src *float32, srcStride, rows, n int, lo float32) (bad bool) {
	panic("asm: no assembly in this build")
}
func asmAvgPool3S1(dst, src *float32, planes, h, w int, includePad bool) {
	panic("asm: no assembly in this build")
}
func asmMaxPool3S1(dst, src *float32, planes, h, w int, lo float32) bool {
	panic("asm: no assembly in this build")
}

func asmSgemmChain(kc int, a, b, c *float32, ldc int, alpha, beta float32, codes *uint8, sc *float32, nsteps int) {
	panic("asm: no assembly in this build")
}

func asmSgemmChainNext(kc int, a, b, c *float32, ldc int, alpha, beta float32, codes *uint8, sc *float32, nsteps int) {
	panic("asm: no assembly in this build")
}

func asmSgemmKernelNext(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}

func asmSgemmKernelMidNext(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}

func asmSgemmKernelWideNext(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}

func asmSgemmKernelRows(rows, kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}

func asmSgemmIndirectRows(rows, kc int, a, b *float32, offs *int, c *float32, ldc int, alpha, beta float32, chain bool, codes *uint8, sc *float32, nsteps int) {
	panic("asm: no assembly in this build")
}

func asmSoftmaxRows(o, x *float32, n, rows int) int {
	panic("asm: no assembly in this build")
}
func asmSgemmKernelStrided14(prefetch bool, kc int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}
func asmSgemmKernelGather14(prefetch bool, sw, kc int, a *float32, delta int, offs *int, b, c *float32, ldc int, alpha, beta float32) {
	panic("asm: no assembly in this build")
}

func asmEpilogueRows(c *float32, ldc, rows, n int, rowBias, colBias, res *float32, ldr, flags int) {
	panic("asm: no assembly in this build")
}

func asmSgemmKernelEpi(tile SgemmTileKind, next bool, kc int, a, b, c *float32, ldc int, alpha, beta float32, cb, res *float32, ldr, flags int) {
	panic("asm: no assembly in this build")
}
