// Package kernels implements relaxgo's operator library: typed,
// destination-passing Go functions for Relax operators, each also registered
// as a packed function under Prefix ("kernels.") + the Relax op name, which
// is how both the bytecode VM and generated code reach them.
//
// The table of packed calling conventions is read with Lookup and Names
// (OPS.md renders it); Supported lists every registered kernel and Run calls
// one by op name (constant folding). Float32 work goes through the SIMD
// primitives of package asm, with pure-Go twins; large operations split over
// a goroutine pool (ParallelFor, SetNumThreads). Less common operators are
// written for correctness over speed and go through float64 element access.
// float16 tensors are widened to float32 with runtime/half, computed, and
// narrowed back.
//
// Files follow operator families: binary.go, unary.go, activations.go,
// reduce.go (including cumsum/cumprod), norm.go, gather.go, manip.go,
// create.go, pool.go, conv*.go, matmul.go and gemm*.go, attention.go,
// resize.go, sort.go.
package kernels
