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

func init() { install(detect()) }

// install fills the kernel tables for level l (tests call it to exercise
// every level the CPU supports).
func install(l Level) {
	resetKernels()
	level = l
	switch l {
	case LevelAVX512:
		vecWidth, gemmMR, gemmNR = 16, 14, 32
		binK = [numOps]binKernel{opAdd: addF32AVX512, opSub: subF32AVX512, opMul: mulF32AVX512, opDiv: divF32AVX512}
		scalarK = [numOps]scalarKernel{
			opAdd: addScalarF32AVX512, opSub: subScalarF32AVX512, opRSub: rsubScalarF32AVX512,
			opMul: mulScalarF32AVX512, opDiv: divScalarF32AVX512, opRDiv: rdivScalarF32AVX512,
		}
		unaryK = [numOps]unaryKernel{
			opRelu: reluF32AVX512, opExp: expF32AVX512, opTanh: tanhF32AVX512,
			opErf: erfF32AVX512, opSigmoid: sigmoidF32AVX512,
		}
		sumK, dotK, maxK, gemmK = sumBlocksAVX512, dotBlocksAVX512, maxBlocksAVX512, sgemmKernelAVX512
	case LevelAVX2:
		vecWidth, gemmMR, gemmNR = 8, 6, 16
		binK = [numOps]binKernel{opAdd: addF32AVX2, opSub: subF32AVX2, opMul: mulF32AVX2, opDiv: divF32AVX2}
		scalarK = [numOps]scalarKernel{
			opAdd: addScalarF32AVX2, opSub: subScalarF32AVX2, opRSub: rsubScalarF32AVX2,
			opMul: mulScalarF32AVX2, opDiv: divScalarF32AVX2, opRDiv: rdivScalarF32AVX2,
		}
		unaryK = [numOps]unaryKernel{
			opRelu: reluF32AVX2, opExp: expF32AVX2, opTanh: tanhF32AVX2,
			opErf: erfF32AVX2, opSigmoid: sigmoidF32AVX2,
		}
		sumK, dotK, maxK, gemmK = sumBlocksAVX2, dotBlocksAVX2, maxBlocksAVX2, sgemmKernelAVX2
	}
}
