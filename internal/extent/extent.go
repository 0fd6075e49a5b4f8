// Package extent holds the overflow-safe size arithmetic of the bounds
// checks in asm and kernels. A check written as len(c) < (rows-1)*ld+cols
// wraps around for a huge ld (or rows) and lets the call through to an
// out-of-bounds access; these helpers compute in unsigned 128-bit arithmetic
// (math/bits) and never wrap.
package extent

import "math/bits"

// OK reports whether a row-major matrix of rows x cols elements with row
// stride ld fits in length elements: all arguments >= 0, ld >= cols when
// rows > 1, and (rows-1)*ld+cols <= length, computed without overflow. An
// empty matrix (rows or cols 0) always fits.
func OK(rows, cols, ld, length int) bool {
	if rows < 0 || cols < 0 || ld < 0 || length < 0 {
		return false
	}
	if rows == 0 || cols == 0 {
		return true
	}
	if rows > 1 && ld < cols {
		return false
	}
	hi, lo := bits.Mul64(uint64(rows-1), uint64(ld))
	if hi != 0 {
		return false
	}
	sum, carry := bits.Add64(lo, uint64(cols), 0)
	return carry == 0 && sum <= uint64(length)
}

// ProductOK reports whether a, b >= 0 and a*b <= length, computed without
// overflow.
func ProductOK(a, b, length int) bool {
	if a < 0 || b < 0 || length < 0 {
		return false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return hi == 0 && lo <= uint64(length)
}

// Mul returns a*b and whether it is exact (a, b >= 0 and no overflow of int).
func Mul(a, b int) (int, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > uint64(int(^uint(0)>>1)) {
		return 0, false
	}
	return int(lo), true
}

// mag is |v| as a uint64 (exact for math.MinInt64 too).
func mag(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1
	}
	return uint64(v)
}

// ConvDimOK reports whether the output-size arithmetic of one spatial dim
// of a convolution, forward (in+p0+p1-d*(k-1)-1)/s+1 or transposed
// (in-1)*s-p0-p1+d*(k-1)+op+1, is free of int64 overflow whatever the signs:
// the sum of the magnitudes of all the terms, |in| + |in-1|*|s| + |d|*|k-1|
// + |p0| + |p1| + |op| + 1, fits in an int64.
func ConvDimOK(in, k, s, d, p0, p1, op int64) bool {
	var sum uint64
	add := func(v uint64) bool {
		var c uint64
		sum, c = bits.Add64(sum, v, 0)
		return c == 0 && sum <= 1<<63-1
	}
	mul := func(a, b uint64) bool {
		hi, lo := bits.Mul64(a, b)
		return hi == 0 && add(lo)
	}
	return add(mag(in)) && mul(mag(in-1), mag(s)) && mul(mag(d), mag(k-1)) &&
		add(mag(p0)) && add(mag(p1)) && add(mag(op)) && add(1)
}
