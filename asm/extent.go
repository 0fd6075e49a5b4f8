package asm

import "github.com/relaxgo/relaxgo/internal/extent"

// The bounds checks of the exported kernels compute extents with the
// overflow-safe helpers of internal/extent (a naive (rows-1)*ld+cols wraps
// around for a huge ld and lets the call through to the kernels).

func extentOK(rows, cols, ld, length int) bool { return extent.OK(rows, cols, ld, length) }

func productOK(a, b, length int) bool { return extent.ProductOK(a, b, length) }
