// Package openblas compares relaxgo's pure-Go/asm Sgemm with OpenBLAS's
// cblas_sgemm (through cgo) in one `go test -bench` run. It is a module of
// its own so that the relaxgo library stays cgo-free; `make bench-openblas`
// at the repository root installs libopenblas-dev and runs it.
package openblas

/*
#cgo pkg-config: openblas
#include <cblas.h>
*/
import "C"

import "unsafe"

// SetThreads sets OpenBLAS's thread count.
func SetThreads(n int) { C.openblas_set_num_threads(C.int(n)) }

// Sgemm computes C = A*B for row-major square n x n float32 matrices with
// OpenBLAS.
func Sgemm(n int, a, b, c []float32) { SgemmMNK(n, n, n, a, b, c) }

// SgemmMNK computes C (m x n) = A (m x k) * B (k x n) for row-major float32
// matrices with OpenBLAS.
func SgemmMNK(m, n, k int, a, b, c []float32) {
	C.cblas_sgemm(C.CblasRowMajor, C.CblasNoTrans, C.CblasNoTrans, C.blasint(m), C.blasint(n), C.blasint(k), 1,
		(*C.float)(unsafe.Pointer(&a[0])), C.blasint(k), (*C.float)(unsafe.Pointer(&b[0])), C.blasint(n), 0,
		(*C.float)(unsafe.Pointer(&c[0])), C.blasint(n))
}
