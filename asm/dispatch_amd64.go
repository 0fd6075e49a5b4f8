//go:build !noasm

package asm

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// detect reads the CPU features once: AVX-512 (F, DQ, BW, VL, with BMI2)
// beats AVX2+FMA beats pure Go. TestKernelsRequireTheirLevel holds every
// kernel to its level's list.
func detect() Level {
	c := cpuid.CPU
	if c.Supports(cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512BW, cpuid.AVX512VL, cpuid.FMA3, cpuid.AVX2, cpuid.BMI2) {
		return LevelAVX512
	}
	if c.Supports(cpuid.AVX2, cpuid.FMA3) {
		return LevelAVX2
	}
	return LevelGo
}

func init() { install(startLevel()) }

// install selects level l (tests call it to exercise every level the CPU
// supports). The asm* functions below dispatch on it with static calls.
func install(l Level) {
	resetKernels()
	level = l
	switch l {
	case LevelAVX512:
		gemmMR, gemmNR = 14, 32
		gemmSmallMR, gemmSmallNR = 4, 32
	case LevelAVX2:
		gemmMR, gemmNR = 6, 16
		gemmSmallMR, gemmSmallNR = 6, 16
	}
}

// The asm* functions run the active level's kernel (level must be
// LevelAVX512 or LevelAVX2). The elementwise ones take n a multiple of
// vecWidth (8) at both levels: at AVX-512 the multiple of 16 goes to the
// AVX-512 kernel and a last 8 to the AVX2 one (the same bits), so rows of 8
// to 15 elements (a softmax over 8 classes) stay in SIMD code. The kernels
// are called statically (a switch per level, not a table of functions): a
// call through a func value would lose //go:noescape and move callers'
// stack buffers to the heap.

// avx512Part is the part of n (a multiple of 8) the AVX-512 kernels take:
// its multiple of 16 at the AVX-512 level, none at AVX2.
func avx512Part(n int) int {
	if level == LevelAVX512 {
		return n &^ 15
	}
	return 0
}

// elemAt is p advanced by i float32 elements.
func elemAt(p *float32, i int) *float32 { return (*float32)(unsafe.Add(unsafe.Pointer(p), 4*i)) }

func asmBinary(o op, dst, x, y *float32, n int) {
	m := avx512Part(n)
	if m > 0 {
		switch o {
		case opAdd:
			addF32AVX512(dst, x, y, m)
		case opSub:
			subF32AVX512(dst, x, y, m)
		case opMul:
			mulF32AVX512(dst, x, y, m)
		case opDiv:
			divF32AVX512(dst, x, y, m)
		case opMax:
			maxF32AVX512(dst, x, y, m)
		case opMin:
			minF32AVX512(dst, x, y, m)
		default:
			panic("asm: no kernel for op")
		}
	}
	if m < n {
		dst, x, y, n = elemAt(dst, m), elemAt(x, m), elemAt(y, m), n-m
		switch o {
		case opAdd:
			addF32AVX2(dst, x, y, n)
		case opSub:
			subF32AVX2(dst, x, y, n)
		case opMul:
			mulF32AVX2(dst, x, y, n)
		case opDiv:
			divF32AVX2(dst, x, y, n)
		case opMax:
			maxF32AVX2(dst, x, y, n)
		case opMin:
			minF32AVX2(dst, x, y, n)
		default:
			panic("asm: no kernel for op")
		}
	}
}

func asmScalar(o op, dst, x *float32, s float32, n int) {
	m := avx512Part(n)
	if m > 0 {
		switch o {
		case opAdd:
			addScalarF32AVX512(dst, x, s, m)
		case opSub:
			subScalarF32AVX512(dst, x, s, m)
		case opRSub:
			rsubScalarF32AVX512(dst, x, s, m)
		case opMul:
			mulScalarF32AVX512(dst, x, s, m)
		case opDiv:
			divScalarF32AVX512(dst, x, s, m)
		case opRDiv:
			rdivScalarF32AVX512(dst, x, s, m)
		case opMax:
			maxScalarF32AVX512(dst, x, s, m)
		case opMin:
			minScalarF32AVX512(dst, x, s, m)
		case opMAdd:
			maddScalarF32AVX512(dst, x, s, m)
		case opLeakyRelu:
			leakyReluF32AVX512(dst, x, s, m)
		default:
			panic("asm: no kernel for op")
		}
	}
	if m < n {
		dst, x, n = elemAt(dst, m), elemAt(x, m), n-m
		switch o {
		case opAdd:
			addScalarF32AVX2(dst, x, s, n)
		case opSub:
			subScalarF32AVX2(dst, x, s, n)
		case opRSub:
			rsubScalarF32AVX2(dst, x, s, n)
		case opMul:
			mulScalarF32AVX2(dst, x, s, n)
		case opDiv:
			divScalarF32AVX2(dst, x, s, n)
		case opRDiv:
			rdivScalarF32AVX2(dst, x, s, n)
		case opMax:
			maxScalarF32AVX2(dst, x, s, n)
		case opMin:
			minScalarF32AVX2(dst, x, s, n)
		case opMAdd:
			maddScalarF32AVX2(dst, x, s, n)
		case opLeakyRelu:
			leakyReluF32AVX2(dst, x, s, n)
		default:
			panic("asm: no kernel for op")
		}
	}
}

func asmInterleave2(dst, even, odd *float32, n int) { interleave2F32AVX2(dst, even, odd, n) }

func asmPackA(rows int, dst, src *float32, mr, lda, kc int) {
	if rows == 8 {
		packA8AVX2(dst, src, mr, lda, kc)
		return
	}
	packA4AVX2(dst, src, mr, lda, kc)
}

func asmTranspose(dst *float32, ldd int, src *float32, lds, rows, cols, batch, dstep, sstep int) {
	if level == LevelAVX512 {
		transposeAVX512(dst, ldd, src, lds, rows, cols, batch, dstep, sstep, uint16(1<<(rows%16)-1), uint16(1<<(cols%16)-1))
		return
	}
	transposeAVX2(dst, ldd, src, lds, rows, cols, batch, dstep, sstep)
}

func asmDeinterleave2Rows(even, odd, src *float32, n, rows, dstStride, srcStride int) {
	if level == LevelAVX512 && n >= 16 {
		deinterleave2RowsAVX512(even, odd, src, n, rows, 4*dstStride, 4*srcStride)
		return
	}
	deinterleave2RowsAVX2(even, odd, src, n, rows, dstStride, srcStride)
}

func asmScalarChain(dst, src *float32, codes *uint8, sc *float32, nsteps, n int) {
	m := avx512Part(n)
	if m > 0 {
		scalarChainF32AVX512(dst, src, codes, sc, nsteps, m)
	}
	if m < n {
		dst, src, n = elemAt(dst, m), elemAt(src, m), n-m
		scalarChainF32AVX2(dst, src, codes, sc, nsteps, n)
	}
}

func asmScaleMulAdd(dst, x *float32, s float32, g, b *float32, n int) {
	m := avx512Part(n)
	if m > 0 {
		scaleMulAddF32AVX512(dst, x, s, g, b, m)
	}
	if m < n {
		scaleMulAddF32AVX2(elemAt(dst, m), elemAt(x, m), s, elemAt(g, m), elemAt(b, m), n-m)
	}
}

// asmScalarChainRows runs the rows kernel of the widest level n fills
// (n >= 8); strides are in elements.
func asmScalarChainRows(dst *float32, dstStride int, src *float32, srcStride, rows, n int, codes *uint8, sc *float32, nsteps, scStride int) {
	if level == LevelAVX512 && n >= 16 {
		scalarChainRowsF32AVX512(dst, 4*dstStride, src, 4*srcStride, rows, n, codes, sc, nsteps, 4*scStride)
		return
	}
	scalarChainRowsF32AVX2(dst, 4*dstStride, src, 4*srcStride, rows, n, codes, sc, nsteps, 4*scStride)
}

// asmMaxPool2 runs the pooling kernel of the widest level n fills (n >=
// 8); strides are in elements.
func asmMaxPool2(dst *float32, dstStride int, src *float32, srcStride, rows, n int, lo float32) {
	if level == LevelAVX512 && n >= 16 {
		maxPool2F32AVX512(dst, 4*dstStride, src, 4*srcStride, rows, n, lo)
		return
	}
	maxPool2F32AVX2(dst, 4*dstStride, src, 4*srcStride, rows, n, lo)
}

// asmAvgPool2 runs the 2x2/2 average pooling kernel of the widest level n
// fills (n >= 8); strides are in elements.
func asmAvgPool2(dst *float32, dstStride int, src *float32, srcStride, rows, n int) {
	if level == LevelAVX512 && n >= 16 {
		avgPool2F32AVX512(dst, 4*dstStride, src, 4*srcStride, rows, n)
		return
	}
	avgPool2F32AVX2(dst, 4*dstStride, src, 4*srcStride, rows, n)
}

// asmMaxPool2Checked is asmMaxPool2 on the kernel of the widest level n
// fills that checks its own source (maxPool2CheckedF32: one VRANGEPS, or
// at AVX2 one VMAXPS, a tap); bad reports a value on which the taps' order
// would matter, after which the caller pools again with asmMaxPool2.
func asmMaxPool2Checked(dst *float32, dstStride int, src *float32, srcStride, rows, n int, lo float32) (bad bool) {
	return runPoolChecked(maxPool2CheckedF32AVX512, maxPool2CheckedF32AVX2, dst, dstStride, src, srcStride, rows, n, lo)
}

// poolCheckedKernel is the signature of the checking in-place pool
// kernels (strides in bytes).
type poolCheckedKernel func(dst *float32, dstStride int, src *float32, srcStride int, rows, n int, lo float32, bad *uint32)

// runPoolChecked runs the checking pool kernel of the widest level n fills
// (k512 from 16 outputs a row at AVX-512, else k2; strides in elements) and
// returns its flag.
func runPoolChecked(k512, k2 poolCheckedKernel, dst *float32, dstStride int, src *float32, srcStride, rows, n int, lo float32) bool {
	var f uint32
	if level == LevelAVX512 && n >= 16 {
		k512(dst, 4*dstStride, src, 4*srcStride, rows, n, lo, &f)
	} else {
		k2(dst, 4*dstStride, src, 4*srcStride, rows, n, lo, &f)
	}
	return f != 0
}

// asmMaxPool3 runs the 3x3/2 pooling kernel of the widest level n fills
// (n >= 8); strides are in elements.
func asmMaxPool3(dst *float32, dstStride int, src *float32, srcStride, rows, n int, lo float32) {
	if level == LevelAVX512 && n >= 16 {
		maxPool3F32AVX512(dst, 4*dstStride, src, 4*srcStride, rows, n, lo)
		return
	}
	maxPool3F32AVX2(dst, 4*dstStride, src, 4*srcStride, rows, n, lo)
}

// dwPlanarRowsFns are the blocked planar kernels by left padding and row
// width in vectors (asm/gen's dwPlanarRowsKernels).
var dwPlanarRowsFns = [2][dwPlanarRowsMaxVecs]func(dst *float32, dstRow int, src *float32, srcRow int, zrow *float32, w *float32, h, q0, blocks int, lmask, smask uint16){
	{dwPlanarRows1P0F32AVX512, dwPlanarRows2P0F32AVX512, dwPlanarRows3P0F32AVX512, dwPlanarRows4P0F32AVX512,
		dwPlanarRows5P0F32AVX512, dwPlanarRows6P0F32AVX512, dwPlanarRows7P0F32AVX512, dwPlanarRows8P0F32AVX512},
	{dwPlanarRows1P1F32AVX512, dwPlanarRows2P1F32AVX512, dwPlanarRows3P1F32AVX512, dwPlanarRows4P1F32AVX512,
		dwPlanarRows5P1F32AVX512, dwPlanarRows6P1F32AVX512, dwPlanarRows7P1F32AVX512, dwPlanarRows8P1F32AVX512},
}

// dwPlanarRows2Fns are the blocked planar kernels at stride 2 by left
// padding and output row width in vectors (asm/gen's dwPlanarRows2Kernel).
var dwPlanarRows2Fns = [2][dwPlanarRowsMaxVecs]func(dst *float32, dstRow int, src *float32, srcRow int, zrow *float32, w *float32, h, q0, blocks int, m1, m2, m3, smask uint16){
	{dwPlanarRows1S2P0F32AVX512, dwPlanarRows2S2P0F32AVX512, dwPlanarRows3S2P0F32AVX512, dwPlanarRows4S2P0F32AVX512,
		dwPlanarRows5S2P0F32AVX512, dwPlanarRows6S2P0F32AVX512, dwPlanarRows7S2P0F32AVX512, dwPlanarRows8S2P0F32AVX512},
	{dwPlanarRows1S2P1F32AVX512, dwPlanarRows2S2P1F32AVX512, dwPlanarRows3S2P1F32AVX512, dwPlanarRows4S2P1F32AVX512,
		dwPlanarRows5S2P1F32AVX512, dwPlanarRows6S2P1F32AVX512, dwPlanarRows7S2P1F32AVX512, dwPlanarRows8S2P1F32AVX512},
}

// dwPlanarRowsAVX2Fns are the AVX2 blocked planar kernels at stride 1 by
// left padding and whole last vectors (asm/gen's dwPlanarRowsAVX2Kernels).
var dwPlanarRowsAVX2Fns = [2][2]func(dst *float32, dstRow int, src *float32, srcRow int, zrow *float32, w *float32, h, q0, blocks, nv int, masks *int32){
	{dwPlanarRowsS1P0F32AVX2, dwPlanarRowsS1P0WholeF32AVX2},
	{dwPlanarRowsS1P1F32AVX2, dwPlanarRowsS1P1WholeF32AVX2},
}

// dwPlanarRows2AVX2Fns are the AVX2 blocked planar kernels at stride 2 by
// left padding (asm/gen's dwPlanarRows2AVX2Kernel).
var dwPlanarRows2AVX2Fns = [2]func(dst *float32, dstRow int, src *float32, srcRow int, zrow *float32, w *float32, h, q0, blocks, nv int, masks *int32){
	dwPlanarRowsS2P0F32AVX2, dwPlanarRowsS2P1F32AVX2,
}

// blockedRows runs p's blocked kernel on blocks blocks of output rows from
// row r0.
func (p *DWPlanar) blockedRows(d, x, z, w *float32, r0, blocks int) {
	d = (*float32)(unsafe.Add(unsafe.Pointer(d), 4*r0*p.ow))
	q0 := r0*p.sh - p.pt
	if p.lanes == 8 {
		whole := 0
		if p.rowsWhole {
			whole = 1
		}
		fn := dwPlanarRowsAVX2Fns[p.pl][whole]
		if p.sw == 2 {
			fn = dwPlanarRows2AVX2Fns[p.pl]
		}
		fn(d, 4*p.ow, x, 4*p.w, z, w, p.h, q0, blocks, p.nv, &p.m32[0])
		return
	}
	if p.sw == 1 {
		dwPlanarRowsFns[p.pl][p.rowsM-1](d, 4*p.ow, x, 4*p.w, z, w, p.h, q0, blocks, p.lm[2], p.smask)
		return
	}
	dwPlanarRows2Fns[p.pl][p.rowsM-1](d, 4*p.ow, x, 4*p.w, z, w, p.h, q0, blocks, p.lm[0], p.lm[1], p.lm[2], p.smask)
}

// asmDWPlanar runs the planar depthwise kernel of p's level and stride.
func asmDWPlanar(p *DWPlanar, d, x, w *float32) {
	r, z, col := &p.roffs[0], &p.zrow[4*p.lanes], 4*p.col
	if p.rowsM > 0 && p.oh >= p.rowsR {
		// Whole blocks on the blocked kernel; a last partial block as a
		// whole one ending at the last row, its first rows computed again
		// (the same values: the input is not the output).
		blocks := p.oh / p.rowsR
		p.blockedRows(d, x, z, w, 0, blocks)
		if done := blocks * p.rowsR; done < p.oh {
			p.blockedRows(d, x, z, w, p.oh-p.rowsR, 1)
		}
		return
	}
	if p.lanes == 16 {
		m := &p.m16[0]
		if p.sw == 1 {
			dwPlanar3S1F32AVX512(d, 4*p.ow, x, r, z, w, m, p.oh, p.nv, col)
		} else {
			dwPlanar3S2F32AVX512(d, 4*p.ow, x, r, z, w, m, p.oh, p.nv, col)
		}
		return
	}
	m := &p.m32[0]
	if p.sw == 1 {
		dwPlanar3S1F32AVX2(d, 4*p.ow, x, r, z, w, m, p.oh, p.nv, col)
	} else {
		dwPlanar3S2F32AVX2(d, 4*p.ow, x, r, z, w, m, p.oh, p.nv, col)
	}
}

// asmMaxPool3S1 runs maxPool3S1F32 at the current level with its mask
// table (s1Masks) and reports whether the source held none of the values
// that make the taps' order matter.
func asmMaxPool3S1(dst, src *float32, planes, h, w int, lo float32) bool {
	var f uint32
	if level == LevelAVX512 {
		var masks [3 * maxPoolS1MaxWidth / 16]uint16
		maxPool3S1F32AVX512(dst, src, planes, h, w, s1Masks512(&masks, w), &masks[0], lo, &f)
		return f == 0
	}
	var masks [3 * maxPoolS1MaxWidth]int32
	maxPool3S1F32AVX2(dst, src, planes, h, w, s1Masks256(&masks, w), &masks[0], lo, &f)
	return f == 0
}

// asmAvgPool3S1 runs avgPool3S1F32 at the current level with its mask
// table (s1Masks) and divisors: per column block of a vector, the lanes'
// divisors in the plane's first row, its middle rows, its last row and a
// plane of one row (9 everywhere with includePad, else the taps inside
// the plane: the row's count times the column's).
func asmAvgPool3S1(dst, src *float32, planes, h, w int, includePad bool) {
	lanes := 8
	if level == LevelAVX512 {
		lanes = 16
	}
	nv := (w + lanes - 1) / lanes
	var divs [4 * maxPoolS1MaxWidth]float32
	for v := range nv {
		for l := range lanes {
			x := v*lanes + l
			cols := min(x+1, w-1) - max(x-1, 0) + 1 // the window's columns inside the row (x < w)
			for k, rows := range [4]int{2, 3, 2, 1} {
				d := float32(9)
				if !includePad {
					d = float32(min(rows, h) * max(1, cols))
				}
				divs[(4*v+k)*lanes+l] = d
			}
		}
	}
	if level == LevelAVX512 {
		var masks [3 * maxPoolS1MaxWidth / 16]uint16
		avgPool3S1F32AVX512(dst, src, planes, h, w, s1Masks512(&masks, w), &masks[0], &divs[0])
		return
	}
	var masks [3 * maxPoolS1MaxWidth]int32
	avgPool3S1F32AVX2(dst, src, planes, h, w, s1Masks256(&masks, w), &masks[0], &divs[0])
}

// s1Masks512 fills the 3x3/1 pooling kernels' AVX-512 mask table for rows
// of w and returns its blocks (one a vector of 16 output columns): per
// block the loads' masks of columns x-1, x and x+1, the middle one also
// the store's.
func s1Masks512(masks *[3 * maxPoolS1MaxWidth / 16]uint16, w int) (nv int) {
	nv = (w + 15) / 16
	for v := range nv {
		for k := range 3 {
			masks[3*v+k] = lanesIn(16*v-1+k, w, 16)
		}
	}
	return nv
}

// s1Masks256 is s1Masks512 at AVX2: blocks of 8 columns, each mask a
// vector of 8 int32 lanes.
func s1Masks256(masks *[3 * maxPoolS1MaxWidth]int32, w int) (nv int) {
	nv = (w + 7) / 8
	for v := range nv {
		for k := range 3 {
			m := lanesIn(8*v-1+k, w, 8)
			for l := range 8 {
				masks[24*v+8*k+l] = -int32(m >> l & 1)
			}
		}
	}
	return nv
}

// lanesIn is the mask of the lanes l < lanes with 0 <= c0+l < w.
func lanesIn(c0, w, lanes int) uint16 {
	var m uint16
	for l := 0; l < lanes; l++ {
		if c := c0 + l; c >= 0 && c < w {
			m |= 1 << l
		}
	}
	return m
}

// asmMaxPool3Checked is asmMaxPool3 on a kernel that checks its own
// source (n >= 8): VRANGEPS at AVX-512 (n >= 16), whose maximum is Go's
// unless a NaN meets a number, else the AVX2 one, one VMAXPS a tap, exact
// unless a NaN or a negative zero is among the taps. bad reports such a
// value in the source columns the kernel compares (all but each row's
// last, 2n), after which the caller pools again with asmMaxPool3.
func asmMaxPool3Checked(dst *float32, dstStride int, src *float32, srcStride, rows, n int, lo float32) (bad bool) {
	return runPoolChecked(maxPool3RangeF32AVX512, maxPool3CheckedF32AVX2, dst, dstStride, src, srcStride, rows, n, lo)
}

func asmTapSumChain(dst, base *float32, offs *int, w *float32, ntaps, n int, codes *uint8, sc *float32, nsteps int) {
	m := avx512Part(n)
	if m > 0 {
		tapSumChainF32AVX512(dst, base, offs, w, ntaps, m, codes, sc, nsteps)
	}
	if m < n {
		dst, base, n = elemAt(dst, m), elemAt(base, m), n-m
		tapSumChainF32AVX2(dst, base, offs, w, ntaps, n, codes, sc, nsteps)
	}
}

// asmDepthwiseNC3x3 runs the current level's unrolled 3x3 kernel for
// column stride sw; strides (r the window's row) are in elements.
func asmDepthwiseNC3x3(dst *float32, dstStride int, src *float32, srcStride, r int, w *float32, rows, n, sw int, codes *uint8, sc *float32, nsteps int) {
	ds, ss, rs := 4*dstStride, 4*srcStride, 4*r
	sevens := n == 7 || n == 14 // AVX2 rows of 7 or 14 in blocks of 7 (dwNCSevens in asm/gen)
	switch {
	case level == LevelAVX512 && sw == 1:
		dwNC3S1F32AVX512(dst, ds, src, ss, rs, w, rows, n, codes, sc, nsteps)
	case level == LevelAVX512:
		dwNC3S2F32AVX512(dst, ds, src, ss, rs, w, rows, n, codes, sc, nsteps)
	case sw == 1 && sevens:
		dwNC3S1SevensF32AVX2(dst, ds, src, ss, rs, w, rows, n, codes, sc, nsteps)
	case sw == 1:
		dwNC3S1F32AVX2(dst, ds, src, ss, rs, w, rows, n, codes, sc, nsteps)
	case sevens:
		dwNC3S2SevensF32AVX2(dst, ds, src, ss, rs, w, rows, n, codes, sc, nsteps)
	default:
		dwNC3S2F32AVX2(dst, ds, src, ss, rs, w, rows, n, codes, sc, nsteps)
	}
}

// asmDepthwiseNC runs the current level's kernel for column stride sw;
// strides are in elements.
func asmDepthwiseNC(dst *float32, dstStride int, src *float32, srcStride int, offs *int, w *float32, ntaps, rows, n, sw int, codes *uint8, sc *float32, nsteps int) {
	ds, ss := 4*dstStride, 4*srcStride
	switch {
	case level == LevelAVX512 && sw == 1:
		dwNCS1F32AVX512(dst, ds, src, ss, offs, w, ntaps, rows, n, codes, sc, nsteps)
	case level == LevelAVX512:
		dwNCS2F32AVX512(dst, ds, src, ss, offs, w, ntaps, rows, n, codes, sc, nsteps)
	case sw == 1:
		dwNCS1F32AVX2(dst, ds, src, ss, offs, w, ntaps, rows, n, codes, sc, nsteps)
	default:
		dwNCS2F32AVX2(dst, ds, src, ss, offs, w, ntaps, rows, n, codes, sc, nsteps)
	}
}

func asmTapMax(dst, base *float32, offs *int, lo float32, ntaps, n int) {
	m := avx512Part(n)
	if m > 0 {
		tapMaxF32AVX512(dst, base, offs, lo, ntaps, m)
	}
	if m < n {
		dst, base, n = elemAt(dst, m), elemAt(base, m), n-m
		tapMaxF32AVX2(dst, base, offs, lo, ntaps, n)
	}
}

func asmWinoIn(v *float32, vstride int, p *float32, psub, wq, n int) {
	m := avx512Part(n)
	if m > 0 {
		winoInF32AVX512(v, vstride, p, psub, wq, m)
	}
	if m < n {
		winoInF32AVX2(elemAt(v, m), vstride, elemAt(p, m), psub, wq, n-m)
	}
}

func asmWino6In(v *float32, vstride int, p *float32, psub, wq, n int) {
	m := avx512Part(n)
	if m > 0 {
		wino6InF32AVX512(v, vstride, p, psub, wq, m)
	}
	if m < n {
		wino6InF32AVX2(elemAt(v, m), vstride, elemAt(p, m), psub, wq, n-m)
	}
}

func asmWino6Out(y *float32, ystride int, mp *float32, mstride, n int) {
	m := avx512Part(n)
	if m > 0 {
		wino6OutF32AVX512(y, ystride, mp, mstride, m)
	}
	if m < n {
		wino6OutF32AVX2(elemAt(y, m), ystride, elemAt(mp, m), mstride, n-m)
	}
}

func asmWinoOut(y *float32, ystride int, mp *float32, mstride, n int) {
	m := avx512Part(n)
	if m > 0 {
		winoOutF32AVX512(y, ystride, mp, mstride, m)
	}
	if m < n {
		winoOutF32AVX2(elemAt(y, m), ystride, elemAt(mp, m), mstride, n-m)
	}
}

func asmTapSum(dst, base *float32, offs *int, w *float32, ntaps, n int) {
	m := avx512Part(n)
	if m > 0 {
		tapSumF32AVX512(dst, base, offs, w, ntaps, m)
	}
	if m < n {
		dst, base, n = elemAt(dst, m), elemAt(base, m), n-m
		tapSumF32AVX2(dst, base, offs, w, ntaps, n)
	}
}

func asmUnary(o op, dst, x *float32, n int) {
	m := avx512Part(n)
	if m > 0 {
		switch o {
		case opRelu:
			reluF32AVX512(dst, x, m)
		case opExp:
			expF32AVX512(dst, x, m)
		case opTanh:
			tanhF32AVX512(dst, x, m)
		case opErf:
			erfF32AVX512(dst, x, m)
		case opSigmoid:
			sigmoidF32AVX512(dst, x, m)
		case opGelu:
			geluF32AVX512(dst, x, m)
		case opSilu:
			siluF32AVX512(dst, x, m)
		case opXSigmoid:
			xSigmoidF32AVX512(dst, x, m)
		default:
			panic("asm: no kernel for op")
		}
	}
	if m < n {
		dst, x, n = elemAt(dst, m), elemAt(x, m), n-m
		switch o {
		case opRelu:
			reluF32AVX2(dst, x, n)
		case opExp:
			expF32AVX2(dst, x, n)
		case opTanh:
			tanhF32AVX2(dst, x, n)
		case opErf:
			erfF32AVX2(dst, x, n)
		case opSigmoid:
			sigmoidF32AVX2(dst, x, n)
		case opGelu:
			geluF32AVX2(dst, x, n)
		case opSilu:
			siluF32AVX2(dst, x, n)
		case opXSigmoid:
			xSigmoidF32AVX2(dst, x, n)
		default:
			panic("asm: no kernel for op")
		}
	}
}

// asmCombine64 runs the one combine kernel at both levels (a few vector
// adds: AVX-512 would gain nothing).
func asmCombine64(acc *[64]float32) float32 { return combine64F32AVX2(acc) }

func asmSumBlocks(x *float32, nblk int, acc *[64]float32) {
	if level == LevelAVX512 {
		sumBlocksAVX512(x, nblk, acc)
		return
	}
	sumBlocksAVX2(x, nblk, acc)
}

func asmDotBlocks(x, y *float32, nblk int, acc *[64]float32) {
	if level == LevelAVX512 {
		dotBlocksAVX512(x, y, nblk, acc)
		return
	}
	dotBlocksAVX2(x, y, nblk, acc)
}

func asmDot8(x, y *float32, n int, acc *[8]float32) { dot8F32AVX2(x, y, n, acc) }

func asmSum8Rows(x *float32, stride, rows, n int, acc *float32) {
	sum8RowsF32AVX2(x, stride, rows, n, acc)
}

func asmCopyRows(dst *float32, dstStride int, src *float32, srcStride, rows, n int) {
	if level == LevelAVX512 {
		copyRowsF32AVX512(dst, dstStride, src, srcStride, rows, n)
		return
	}
	copyRowsF32AVX2(dst, dstStride, src, srcStride, rows, n)
}

func asmSoftmaxSmall(o, x *float32, n, rows int) int {
	if level == LevelAVX512 {
		if n <= 8 {
			// half-width vectors: a row's accesses stay within 32 bytes
			return softmaxSmallF32AVX512Y(o, x, n, rows)
		}
		return softmaxSmallF32AVX512(o, x, n, rows)
	}
	return softmaxSmallF32AVX2(o, x, n, rows)
}

// asmMaxRow runs maxRowF32 on x[:n], n a positive multiple of the level's
// vector (16 at AVX-512, 8 at AVX2).
func asmMaxRow(x *float32, n int, m *float32) int {
	if level == LevelAVX512 {
		return maxRowF32AVX512(x, n, m)
	}
	return maxRowF32AVX2(x, n, m)
}

func asmMaxBlocks(x *float32, nblk int, acc *[64]float32) int {
	if level == LevelAVX512 {
		return maxBlocksAVX512(x, nblk, acc)
	}
	return maxBlocksAVX2(x, nblk, acc)
}

func asmSgemmKernelSmall(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	if level == LevelAVX512 {
		sgemmKernelAVX512Small(kc, a, b, c, ldc, alpha, beta)
		return
	}
	sgemmKernelAVX2(kc, a, b, c, ldc, alpha, beta)
}

func asmSgemmKernel(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	if level == LevelAVX512 {
		sgemmKernelAVX512(kc, a, b, c, ldc, alpha, beta)
		return
	}
	sgemmKernelAVX2(kc, a, b, c, ldc, alpha, beta)
}

func asmSgemmKernelStrided(prefetch bool, kc int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32) {
	switch {
	case level == LevelAVX512 && prefetch:
		sgemmStridedAVX512(kc, a, lda, b, c, ldc, alpha, beta)
	case level == LevelAVX512:
		sgemmStridedAVX512Warm(kc, a, lda, b, c, ldc, alpha, beta)
	case prefetch:
		sgemmStridedAVX2(kc, a, lda, b, c, ldc, alpha, beta)
	default:
		sgemmStridedAVX2Warm(kc, a, lda, b, c, ldc, alpha, beta)
	}
}

// asmChainCols runs the current level's kernel; ld is in elements.
func asmChainCols(x *float32, ld, rows, blocks int, codes *uint8, sc *float32, nsteps int) {
	if level == LevelAVX512 {
		chainColsF32AVX512(x, 4*ld, rows, blocks, codes, sc, nsteps)
		return
	}
	chainColsF32AVX2(x, 4*ld, rows, blocks, codes, sc, nsteps)
}

func asmSgemmKernelGather(prefetch bool, sw, kc int, a *float32, offs *int, b, c *float32, ldc int, alpha, beta float32) {
	avx512 := level == LevelAVX512
	switch {
	case avx512 && sw == 2 && prefetch:
		sgemmGatherS2AVX512(kc, a, offs, b, c, ldc, alpha, beta)
	case avx512 && sw == 2:
		sgemmGatherS2AVX512Warm(kc, a, offs, b, c, ldc, alpha, beta)
	case avx512 && prefetch:
		sgemmGatherS1AVX512(kc, a, offs, b, c, ldc, alpha, beta)
	case avx512:
		sgemmGatherS1AVX512Warm(kc, a, offs, b, c, ldc, alpha, beta)
	case sw == 2 && prefetch:
		sgemmGatherS2AVX2(kc, a, offs, b, c, ldc, alpha, beta)
	case sw == 2:
		sgemmGatherS2AVX2Warm(kc, a, offs, b, c, ldc, alpha, beta)
	case prefetch:
		sgemmGatherS1AVX2(kc, a, offs, b, c, ldc, alpha, beta)
	default:
		sgemmGatherS1AVX2Warm(kc, a, offs, b, c, ldc, alpha, beta)
	}
}

func asmSgemmKernelMid(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	sgemmKernelAVX512Mid(kc, a, b, c, ldc, alpha, beta)
}

func asmSgemmKernelWide(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	sgemmKernelAVX512Wide(kc, a, b, c, ldc, alpha, beta)
}

func asmSgemmIndirect(wide bool, kc int, a, b *float32, offs *int, c *float32, ldc int, alpha, beta float32) {
	if wide {
		sgemmIndirectAVX512Wide(kc, a, b, offs, c, ldc, alpha, beta)
		return
	}
	if level == LevelAVX512 {
		sgemmIndirectAVX512(kc, a, b, offs, c, ldc, alpha, beta)
		return
	}
	sgemmIndirectAVX2(kc, a, b, offs, c, ldc, alpha, beta)
}

func asmSgemmIndirectNarrow(wide bool, nr, kc int, a, b *float32, offs *int, c *float32, ldc int, alpha, beta float32, chain bool, codes *uint8, sc *float32, nsteps int) {
	switch {
	case !wide:
		sgemmIndirectAVX512Half(kc, a, b, offs, c, ldc, alpha, beta)
	case nr == 32 && chain:
		sgemmIndirectAVX512WideMidChain(kc, a, b, offs, c, ldc, alpha, beta, codes, sc, nsteps)
	case nr == 32:
		sgemmIndirectAVX512WideMid(kc, a, b, offs, c, ldc, alpha, beta)
	case chain:
		sgemmIndirectAVX512WideHalfChain(kc, a, b, offs, c, ldc, alpha, beta, codes, sc, nsteps)
	default:
		sgemmIndirectAVX512WideHalf(kc, a, b, offs, c, ldc, alpha, beta)
	}
}

func asmSgemmIndirectChainScatterNarrow(nr, kc int, a, b *float32, offs *int, c *float32, ldc int, alpha float32, codes *uint8, sc *float32, nsteps int, st *int64, res *float32, rat, rrev, tiles int) {
	if nr == 32 {
		sgemmIndirectAVX512WideMidChainScatter(kc, a, b, offs, c, ldc, alpha, 0, codes, sc, nsteps, st, res, rat, rrev, tiles)
		return
	}
	sgemmIndirectAVX512WideHalfChainScatter(kc, a, b, offs, c, ldc, alpha, 0, codes, sc, nsteps, st, res, rat, rrev, tiles)
}

func asmSgemmIndirectChainScatter(kc int, a, b *float32, offs *int, c *float32, ldc int, alpha float32, codes *uint8, sc *float32, nsteps int, st *int64, prefetch ScatterPrefetch, res *float32, rat, rrev, tiles int) {
	switch prefetch {
	case ScatterPrefetchOut:
		sgemmIndirectAVX512WideChainScatterPrefetch(kc, a, b, offs, c, ldc, alpha, 0, codes, sc, nsteps, st, res, rat, rrev, tiles)
		return
	case ScatterPrefetchOutIn:
		sgemmIndirectAVX512WideChainScatterPrefetchIn(kc, a, b, offs, c, ldc, alpha, 0, codes, sc, nsteps, st, res, rat, rrev, tiles)
		return
	}
	sgemmIndirectAVX512WideChainScatter(kc, a, b, offs, c, ldc, alpha, 0, codes, sc, nsteps, st, res, rat, rrev, tiles)
}

func asmSgemmIndirectChain(kc int, a, b *float32, offs *int, c *float32, ldc int, alpha, beta float32, codes *uint8, sc *float32, nsteps int) {
	if level == LevelAVX512 {
		sgemmIndirectAVX512WideChain(kc, a, b, offs, c, ldc, alpha, beta, codes, sc, nsteps)
		return
	}
	sgemmIndirectAVX2Chain(kc, a, b, offs, c, ldc, alpha, beta, codes, sc, nsteps)
}

func asmSgemmDirect(r, kc int, a, b *float32, ldb int, c *float32, ldc int, alpha, beta float32, prefetch bool) {
	switch {
	case r == 1:
		sgemmDirect1x64AVX2(kc, a, b, ldb, c, ldc, alpha, beta)
	case r == 2 && prefetch:
		sgemmDirect2x32PrefetchAVX2(kc, a, b, ldb, c, ldc, alpha, beta)
	case r == 2:
		sgemmDirect2x32AVX2(kc, a, b, ldb, c, ldc, alpha, beta)
	case r == 4 && prefetch:
		sgemmDirect4x24PrefetchAVX2(kc, a, b, ldb, c, ldc, alpha, beta)
	case r == 4:
		sgemmDirect4x24AVX2(kc, a, b, ldb, c, ldc, alpha, beta)
	default:
		panic("asm: no direct kernel for this row count")
	}
}

func asmSgemmNarrow(r, kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc, cols int, alpha, beta float32) {
	if level == LevelAVX512 {
		sgemmNarrowAVX512(r, kc, a, lda, b, ldb, c, ldc, cols, alpha, beta)
		return
	}
	sgemmNarrowAVX2(r, kc, a, lda, b, ldb, c, ldc, cols, alpha, beta)
}

func asmLayerNormShort(o, x, g, b *float32, rows, n int, eps float64) {
	layerNormShortF32AVX2(o, x, g, b, rows, n, eps)
}

func asmSgemmKernelHalf(mr, kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	if mr == 14 {
		sgemmHalfAVX512(kc, a, b, c, ldc, alpha, beta)
		return
	}
	sgemmHalfAVX512Mid(kc, a, b, c, ldc, alpha, beta)
}

func asmSgemmChain(kc int, a, b, c *float32, ldc int, alpha, beta float32, codes *uint8, sc *float32, nsteps int) {
	sgemmKernelAVX2Chain(kc, a, b, c, ldc, alpha, beta, codes, sc, nsteps)
}

func asmSgemmChainNext(kc int, a, b, c *float32, ldc int, alpha, beta float32, codes *uint8, sc *float32, nsteps int) {
	sgemmKernelAVX2ChainNext(kc, a, b, c, ldc, alpha, beta, codes, sc, nsteps)
}

func asmSgemmKernelNext(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	if level == LevelAVX512 {
		sgemmKernelAVX512Next(kc, a, b, c, ldc, alpha, beta)
		return
	}
	sgemmKernelAVX2Next(kc, a, b, c, ldc, alpha, beta)
}

func asmSgemmKernelMidNext(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	sgemmKernelAVX512MidNext(kc, a, b, c, ldc, alpha, beta)
}

func asmSgemmKernelWideNext(kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	sgemmKernelAVX512WideNext(kc, a, b, c, ldc, alpha, beta)
}

func asmSgemmKernelRows(rows, kc int, a, b, c *float32, ldc int, alpha, beta float32) {
	switch rows {
	case 1:
		sgemmKernelAVX2R1(kc, a, b, c, ldc, alpha, beta)
	case 2:
		sgemmKernelAVX2R2(kc, a, b, c, ldc, alpha, beta)
	case 3:
		sgemmKernelAVX2R3(kc, a, b, c, ldc, alpha, beta)
	case 4:
		sgemmKernelAVX2R4(kc, a, b, c, ldc, alpha, beta)
	default:
		sgemmKernelAVX2R5(kc, a, b, c, ldc, alpha, beta)
	}
}

func asmSgemmIndirectRows(rows, kc int, a, b *float32, offs *int, c *float32, ldc int, alpha, beta float32, chain bool, codes *uint8, sc *float32, nsteps int) {
	switch rows {
	case 1:
		if chain {
			sgemmIndirectAVX2ChainR1(kc, a, b, offs, c, ldc, alpha, beta, codes, sc, nsteps)
		} else {
			sgemmIndirectAVX2R1(kc, a, b, offs, c, ldc, alpha, beta)
		}
	case 2:
		if chain {
			sgemmIndirectAVX2ChainR2(kc, a, b, offs, c, ldc, alpha, beta, codes, sc, nsteps)
		} else {
			sgemmIndirectAVX2R2(kc, a, b, offs, c, ldc, alpha, beta)
		}
	case 3:
		if chain {
			sgemmIndirectAVX2ChainR3(kc, a, b, offs, c, ldc, alpha, beta, codes, sc, nsteps)
		} else {
			sgemmIndirectAVX2R3(kc, a, b, offs, c, ldc, alpha, beta)
		}
	case 4:
		if chain {
			sgemmIndirectAVX2ChainR4(kc, a, b, offs, c, ldc, alpha, beta, codes, sc, nsteps)
		} else {
			sgemmIndirectAVX2R4(kc, a, b, offs, c, ldc, alpha, beta)
		}
	default:
		if chain {
			sgemmIndirectAVX2ChainR5(kc, a, b, offs, c, ldc, alpha, beta, codes, sc, nsteps)
		} else {
			sgemmIndirectAVX2R5(kc, a, b, offs, c, ldc, alpha, beta)
		}
	}
}

// asmSoftmaxRows runs the level's kernel (the bits are the same at both).
func asmSoftmaxRows(o, x *float32, n, rows int) int {
	if level == LevelAVX512 {
		return softmaxRowsF32AVX512(o, x, n, rows)
	}
	return softmaxRowsF32AVX2(o, x, n, rows)
}

func asmSgemmKernelStrided14(prefetch bool, kc int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32) {
	if prefetch {
		sgemmStrided14AVX512(kc, a, lda, b, c, ldc, alpha, beta)
		return
	}
	sgemmStrided14AVX512Warm(kc, a, lda, b, c, ldc, alpha, beta)
}

func asmSgemmKernelGather14(prefetch bool, sw, kc int, a *float32, delta int, offs *int, b, c *float32, ldc int, alpha, beta float32) {
	switch {
	case sw == 2 && prefetch:
		sgemmGather14S2AVX512(kc, a, delta, offs, b, c, ldc, alpha, beta)
	case sw == 2:
		sgemmGather14S2AVX512Warm(kc, a, delta, offs, b, c, ldc, alpha, beta)
	case prefetch:
		sgemmGather14S1AVX512(kc, a, delta, offs, b, c, ldc, alpha, beta)
	default:
		sgemmGather14S1AVX512Warm(kc, a, delta, offs, b, c, ldc, alpha, beta)
	}
}

func asmEpilogueRows(c *float32, ldc, rows, n int, rowBias, colBias, res *float32, ldr, flags int) {
	if level == LevelAVX512 {
		epilogueRowsF32AVX512(c, ldc, rows, n, rowBias, colBias, res, ldr, flags)
		return
	}
	epilogueRowsF32AVX2(c, ldc, rows, n, rowBias, colBias, res, ldr, flags)
}

func asmSgemmKernelRowA(next bool, kc int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32, epi bool, cb, res *float32, ldr, flags int) {
	switch {
	case epi && next:
		sgemmKernelAVX512MidNextEpiRowA(kc, a, lda, b, c, ldc, alpha, beta, cb, res, ldr, flags)
	case epi:
		sgemmKernelAVX512MidEpiRowA(kc, a, lda, b, c, ldc, alpha, beta, cb, res, ldr, flags)
	case next:
		sgemmKernelAVX512MidNextRowA(kc, a, lda, b, c, ldc, alpha, beta)
	default:
		sgemmKernelAVX512MidRowA(kc, a, lda, b, c, ldc, alpha, beta)
	}
}

func asmSgemmKernelEpi(tile SgemmTileKind, next bool, kc int, a, b, c *float32, ldc int, alpha, beta float32, cb, res *float32, ldr, flags int) {
	if level == LevelAVX2 {
		if next {
			sgemmKernelAVX2NextEpi(kc, a, b, c, ldc, alpha, beta, cb, res, ldr, flags)
			return
		}
		sgemmKernelAVX2Epi(kc, a, b, c, ldc, alpha, beta, cb, res, ldr, flags)
		return
	}
	switch {
	case tile == TileMid && next:
		sgemmKernelAVX512MidNextEpi(kc, a, b, c, ldc, alpha, beta, cb, res, ldr, flags)
	case tile == TileMid:
		sgemmKernelAVX512MidEpi(kc, a, b, c, ldc, alpha, beta, cb, res, ldr, flags)
	case tile == TileWide && next:
		sgemmKernelAVX512WideNextEpi(kc, a, b, c, ldc, alpha, beta, cb, res, ldr, flags)
	case tile == TileWide:
		sgemmKernelAVX512WideEpi(kc, a, b, c, ldc, alpha, beta, cb, res, ldr, flags)
	case next:
		sgemmKernelAVX512NextEpi(kc, a, b, c, ldc, alpha, beta, cb, res, ldr, flags)
	default:
		sgemmKernelAVX512Epi(kc, a, b, c, ldc, alpha, beta, cb, res, ldr, flags)
	}
}
