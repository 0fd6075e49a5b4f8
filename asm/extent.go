package asm

import "github.com/relaxgo/relaxgo/internal/extent"

// The bounds checks of the exported kernels compute extents with the
// overflow-safe helpers of internal/extent (a naive (rows-1)*ld+cols wraps
// around for a huge ld and lets the call through to the kernels).

func extentOK(rows, cols, ld, length int) bool { return extent.OK(rows, cols, ld, length) }

func productOK(a, b, length int) bool { return extent.ProductOK(a, b, length) }

// spanOK reports whether n entries of span elements, step elements apart,
// fit in length elements: (n-1)*step+span <= length, all >= 0 and n >= 1,
// without overflow. Entries may overlap (step < span).
func spanOK(n, step, span, length int) bool {
	if n < 1 || span < 0 {
		return false
	}
	last, ok := extent.Mul(n-1, step)
	return ok && last <= length && span <= length-last
}
