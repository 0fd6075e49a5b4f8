//go:build !unix

package kernels

import "testing"

// guardedF32 returns n floats (without a guard page on this system).
func guardedF32(t testing.TB, n int) []float32 { return make([]float32, n) }
