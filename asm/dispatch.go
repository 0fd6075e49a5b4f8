package asm

import (
	"fmt"
	"math"
	"unsafe"
)

type op int

const (
	opAdd op = iota
	opSub
	opMul
	opDiv
	opRSub
	opRDiv
	opRelu
	opExp
	opTanh
	opErf
	opSigmoid
	numOps
)

// Assembly kernel signatures. n is a multiple of vecWidth; the Go wrappers
// below hand the remainder to the twins.
type (
	binKernel    func(dst, x, y *float32, n int)
	scalarKernel func(dst, x *float32, s float32, n int)
	unaryKernel  func(dst, x *float32, n int)
	blocksKernel func(x *float32, nblk int, acc *[64]float32)
	dotKernel    func(x, y *float32, nblk int, acc *[64]float32)
	maxKernel    func(x *float32, nblk int, acc *[64]float32) int
	gemmKernel   func(kc int, a, b, c *float32, ldc int, alpha, beta float32)
)

// Kernel tables for the active level; nil entries (and all entries at
// LevelGo) fall back to the twins. Filled by install.
var (
	binK     [numOps]binKernel
	scalarK  [numOps]scalarKernel
	unaryK   [numOps]unaryKernel
	sumK     blocksKernel
	dotK     dotKernel
	maxK     maxKernel
	gemmK    gemmKernel
	vecWidth = 1
	gemmMR   = 4
	gemmNR   = 16
)

var binGo = [numOps]func(dst, x, y []float32){opAdd: addGo, opSub: subGo, opMul: mulGo, opDiv: divGo}

var scalarGo = [numOps]func(dst, x []float32, s float32){
	opAdd: addScalarGo, opSub: subScalarGo, opRSub: rsubScalarGo,
	opMul: mulScalarGo, opDiv: divScalarGo, opRDiv: rdivScalarGo,
}

var unaryGo = [numOps]func(dst, x []float32){
	opRelu: reluGo, opExp: expGo, opTanh: tanhGo, opErf: erfGo, opSigmoid: sigmoidGo,
}

func resetKernels() {
	binK = [numOps]binKernel{}
	scalarK = [numOps]scalarKernel{}
	unaryK = [numOps]unaryKernel{}
	sumK, dotK, maxK, gemmK = nil, nil, nil, nil
	vecWidth, gemmMR, gemmNR = 1, 4, 16
}

func binary(o op, dst, x, y []float32) {
	n := len(dst)
	x, y = x[:n], y[:n]
	if k := binK[o]; k != nil && n >= vecWidth {
		m := n - n%vecWidth
		k(&dst[0], &x[0], &y[0], m)
		dst, x, y = dst[m:], x[m:], y[m:]
	}
	binGo[o](dst, x, y)
}

func scalar(o op, dst, x []float32, s float32) {
	n := len(dst)
	x = x[:n]
	if k := scalarK[o]; k != nil && n >= vecWidth {
		m := n - n%vecWidth
		k(&dst[0], &x[0], s, m)
		dst, x = dst[m:], x[m:]
	}
	scalarGo[o](dst, x, s)
}

func unary(o op, dst, x []float32) {
	n := len(dst)
	x = x[:n]
	if k := unaryK[o]; k != nil && n >= vecWidth {
		m := n - n%vecWidth
		k(&dst[0], &x[0], m)
		dst, x = dst[m:], x[m:]
	}
	unaryGo[o](dst, x)
}

// combine64 folds the 64 partial results pairwise: for w := 32; w >= 1; w /= 2
// { acc[i] = f(acc[i], acc[i+w]) for i < w }.
func combine64(acc *[64]float32, f func(a, b float32) float32) float32 {
	for w := 32; w >= 1; w /= 2 {
		for i := 0; i < w; i++ {
			acc[i] = f(acc[i], acc[i+w])
		}
	}
	return acc[0]
}

func reduceSum(x []float32) float32 {
	var acc [64]float32
	nblk := len(x) / 64
	if nblk > 0 {
		if sumK != nil {
			sumK(&x[0], nblk, &acc)
		} else {
			sumBlocksGo(x, nblk, &acc)
		}
	}
	for i := nblk * 64; i < len(x); i++ {
		acc[i%64] += x[i]
	}
	return combine64(&acc, func(a, b float32) float32 { return a + b })
}

func dot(x, y []float32) float32 {
	var acc [64]float32
	nblk := len(x) / 64
	if nblk > 0 {
		if dotK != nil {
			dotK(&x[0], &y[0], nblk, &acc)
		} else {
			dotBlocksGo(x, y, nblk, &acc)
		}
	}
	for i := nblk * 64; i < len(x); i++ {
		acc[i%64] += float32(x[i] * y[i])
	}
	return combine64(&acc, func(a, b float32) float32 { return a + b })
}

func reduceMax(x []float32) float32 {
	var acc [64]float32
	ninf := float32(math.Inf(-1))
	for i := range acc {
		acc[i] = ninf
	}
	nblk := len(x) / 64
	nan := false
	if nblk > 0 {
		if maxK != nil {
			nan = maxK(&x[0], nblk, &acc) != 0
		} else {
			nan = maxBlocksGo(x, nblk, &acc)
		}
	}
	for i := nblk * 64; i < len(x); i++ {
		v := x[i]
		if v != v {
			nan = true
		}
		if v > acc[i%64] {
			acc[i%64] = v
		}
	}
	if nan {
		return float32(math.NaN())
	}
	return combine64(&acc, func(a, b float32) float32 {
		if b > a {
			return b
		}
		return a
	})
}

// SgemmTile reports the register tile (mr rows by nr columns) of the active
// SGEMM micro-kernel: 14x32 with AVX-512, 6x16 with AVX2+FMA, 4x16 in Go.
func SgemmTile() (mr, nr int) { return gemmMR, gemmNR }

// SgemmKernel is the SGEMM micro-kernel on one full mr x nr tile
// (mr, nr = SgemmTile()). a is a packed A panel (kc steps of mr values:
// a[p*mr+i] = A[i][p]), b a packed B panel (b[p*nr+j] = B[p][j]), c the tile's
// top-left element in a row-major matrix with row stride ldc. It computes
//
//	for i < mr, j < nr: acc = sum over p < kc of a[p*mr+i]*b[p*nr+j]
//	c[i*ldc+j] = alpha*acc + beta*c[i*ldc+j]   (c is not read when beta == 0)
//
// It returns an error when a slice is too short for the tile.
func SgemmKernel(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	mr, nr := gemmMR, gemmNR
	if kc < 0 || ldc < nr || len(a) < kc*mr || len(b) < kc*nr || len(c) < (mr-1)*ldc+nr {
		return fmt.Errorf("asm: SgemmKernel: kc=%d ldc=%d tile %dx%d: buffers too short (a %d, b %d, c %d)",
			kc, ldc, mr, nr, len(a), len(b), len(c))
	}
	SgemmKernelUnchecked(kc, unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)),
		unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta)
	return nil
}

// SgemmKernelUnchecked is SgemmKernel without bounds checks, for the GEMM
// driver's inner loop: a must hold kc*mr floats, b kc*nr, and c
// (mr-1)*ldc+nr floats from the given pointers.
func SgemmKernelUnchecked(kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32) {
	if k := gemmK; k != nil {
		k(kc, (*float32)(a), (*float32)(b), (*float32)(c), ldc, alpha, beta)
		return
	}
	mr, nr := gemmMR, gemmNR
	sgemmKernelGo(mr, nr, kc, unsafe.Slice((*float32)(a), kc*mr), unsafe.Slice((*float32)(b), kc*nr),
		unsafe.Slice((*float32)(c), (mr-1)*ldc+nr), ldc, alpha, beta)
}
