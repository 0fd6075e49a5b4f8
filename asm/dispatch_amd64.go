//go:build !noasm

package asm

import "github.com/klauspost/cpuid/v2"

// detect reads the CPU features once: AVX-512 (F, DQ, BW, VL) beats
// AVX2+FMA beats pure Go.
func detect() Level {
	c := cpuid.CPU
	if c.Supports(cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512BW, cpuid.AVX512VL, cpuid.FMA3, cpuid.AVX2) {
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
		vecWidth, gemmMR, gemmNR = 16, 14, 32
		gemmSmallMR, gemmSmallNR = 4, 32
	case LevelAVX2:
		vecWidth, gemmMR, gemmNR = 8, 6, 16
		gemmSmallMR, gemmSmallNR = 6, 16
	}
}

// The asm* functions run the active level's kernel (level must be
// LevelAVX512 or LevelAVX2).

func asmBinary(o op, dst, x, y *float32, n int) {
	if level == LevelAVX512 {
		switch o {
		case opAdd:
			addF32AVX512(dst, x, y, n)
		case opSub:
			subF32AVX512(dst, x, y, n)
		case opMul:
			mulF32AVX512(dst, x, y, n)
		case opDiv:
			divF32AVX512(dst, x, y, n)
		case opMax:
			maxF32AVX512(dst, x, y, n)
		case opMin:
			minF32AVX512(dst, x, y, n)
		default:
			panic("asm: no kernel for op")
		}
		return
	}
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

func asmScalar(o op, dst, x *float32, s float32, n int) {
	if level == LevelAVX512 {
		switch o {
		case opAdd:
			addScalarF32AVX512(dst, x, s, n)
		case opSub:
			subScalarF32AVX512(dst, x, s, n)
		case opRSub:
			rsubScalarF32AVX512(dst, x, s, n)
		case opMul:
			mulScalarF32AVX512(dst, x, s, n)
		case opDiv:
			divScalarF32AVX512(dst, x, s, n)
		case opRDiv:
			rdivScalarF32AVX512(dst, x, s, n)
		case opMax:
			maxScalarF32AVX512(dst, x, s, n)
		case opMin:
			minScalarF32AVX512(dst, x, s, n)
		case opMAdd:
			maddScalarF32AVX512(dst, x, s, n)
		default:
			panic("asm: no kernel for op")
		}
		return
	}
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
	default:
		panic("asm: no kernel for op")
	}
}

func asmDeinterleave2(even, odd, src *float32, n int) { deinterleave2F32AVX2(even, odd, src, n) }

func asmScalarChain(dst, src *float32, codes *uint8, sc *float32, nsteps, n int) {
	if level == LevelAVX512 {
		scalarChainF32AVX512(dst, src, codes, sc, nsteps, n)
		return
	}
	scalarChainF32AVX2(dst, src, codes, sc, nsteps, n)
}

func asmTapMax(dst, base *float32, offs *int, lo float32, ntaps, n int) {
	if level == LevelAVX512 {
		tapMaxF32AVX512(dst, base, offs, lo, ntaps, n)
		return
	}
	tapMaxF32AVX2(dst, base, offs, lo, ntaps, n)
}

func asmTapSum(dst, base *float32, offs *int, w *float32, ntaps, n int) {
	if level == LevelAVX512 {
		tapSumF32AVX512(dst, base, offs, w, ntaps, n)
		return
	}
	tapSumF32AVX2(dst, base, offs, w, ntaps, n)
}

func asmUnary(o op, dst, x *float32, n int) {
	if level == LevelAVX512 {
		switch o {
		case opRelu:
			reluF32AVX512(dst, x, n)
		case opExp:
			expF32AVX512(dst, x, n)
		case opTanh:
			tanhF32AVX512(dst, x, n)
		case opErf:
			erfF32AVX512(dst, x, n)
		case opSigmoid:
			sigmoidF32AVX512(dst, x, n)
		default:
			panic("asm: no kernel for op")
		}
		return
	}
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
	default:
		panic("asm: no kernel for op")
	}
}

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

func asmSgemmDirect(r, kc int, a, b *float32, ldb int, c *float32, ldc int, alpha, beta float32) {
	switch r {
	case 1:
		sgemmDirect1x64AVX2(kc, a, b, ldb, c, ldc, alpha, beta)
	case 2:
		sgemmDirect2x32AVX2(kc, a, b, ldb, c, ldc, alpha, beta)
	case 4:
		sgemmDirect4x24AVX2(kc, a, b, ldb, c, ldc, alpha, beta)
	default:
		panic("asm: no direct kernel for this row count")
	}
}
