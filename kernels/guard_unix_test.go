//go:build unix

package kernels

import (
	"syscall"
	"testing"
	"unsafe"
)

// guardedF32 returns n (> 0) floats whose last ends where a page the
// process may not touch begins (PROT_NONE): a kernel reading past the
// slice faults instead of reading whatever lies there.
func guardedF32(t testing.TB, n int) []float32 {
	t.Helper()
	page := syscall.Getpagesize()
	size := (n*4+page-1)/page*page + page
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[size-page:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	b := mem[size-page-4*n : size-page]
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
}
