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
}
