// Package half converts between float32/float64 and the two 16-bit float
// formats relaxgo tensors hold: IEEE 754 binary16 (float16) and bfloat16 (the
// upper half of a float32). It is the one implementation the kernels, the
// TVMScript parser, the TIR compiler and the Go code it generates share.
//
// Widening is exact. Narrowing rounds to nearest, ties to even, once (a
// float64 is not rounded to float32 first); values too large for the format
// become infinities and values too small become signed zeros. NaNs keep their
// sign and the top bits of their payload, as NumPy's float16 casts do: the
// payload is truncated, not quieted, and a NaN whose kept payload would be
// zero gets payload 1 so that it stays a NaN.
package half

import "math"

// format describes a binary floating-point format by its mantissa width, its
// exponent bias and the all-ones value of its exponent field.
type format struct {
	mant   uint
	bias   int
	expMax int
}

var (
	fmt64 = format{mant: 52, bias: 1023, expMax: 0x7ff}
	fmt32 = format{mant: 23, bias: 127, expMax: 0xff}
	fmt16 = format{mant: 10, bias: 15, expMax: 0x1f}
	fmtBF = format{mant: 7, bias: 127, expMax: 0xff}
)

// narrow rounds the value with the given sign (0 or 0x8000), biased exponent
// field and mantissa field in format src to format dst (16 bits wide).
func narrow(sign uint16, exp int, mant uint64, src, dst format) uint16 {
	shift := src.mant - dst.mant
	inf := sign | uint16(dst.expMax)<<dst.mant
	if exp == src.expMax {
		if mant == 0 {
			return inf
		}
		m := mant >> shift
		if m == 0 {
			m = 1
		}
		return inf | uint16(m)
	}
	// value = full * 2^(unbiased - src.mant)
	full, unbiased := mant|1<<src.mant, exp-src.bias
	if exp == 0 {
		full, unbiased = mant, 1-src.bias
	}
	if full == 0 {
		return sign
	}
	e := unbiased + dst.bias // dst's biased exponent if the result is normal
	sh, base := shift, uint64(0)
	if e >= 1 {
		// full's implicit bit lands on bit dst.mant and adds the 1 that
		// makes e-1 into e (or carries a subnormal source into a normal).
		base = uint64(e-1) << dst.mant
	} else {
		sh += uint(1 - e)
	}
	if sh >= 64 {
		return sign
	}
	r := full >> sh
	rem, halfway := full&(1<<sh-1), uint64(1)<<(sh-1)
	if rem > halfway || rem == halfway && r&1 == 1 {
		r++
	}
	r += base
	if r >= uint64(dst.expMax)<<dst.mant {
		return inf
	}
	return sign | uint16(r)
}

func narrow32(f float32, dst format) uint16 {
	b := math.Float32bits(f)
	return narrow(uint16(b>>16)&0x8000, int(b>>23)&0xff, uint64(b&0x7fffff), fmt32, dst)
}

func narrow64(f float64, dst format) uint16 {
	b := math.Float64bits(f)
	return narrow(uint16(b>>48)&0x8000, int(b>>52)&0x7ff, b&(1<<52-1), fmt64, dst)
}

// Float32ToFloat16 rounds f to the nearest float16 (ties to even).
func Float32ToFloat16(f float32) uint16 { return narrow32(f, fmt16) }

// Float64ToFloat16 rounds f to the nearest float16 (ties to even) in one step.
func Float64ToFloat16(f float64) uint16 { return narrow64(f, fmt16) }

// Float32ToBFloat16 rounds f to the nearest bfloat16 (ties to even).
func Float32ToBFloat16(f float32) uint16 { return narrow32(f, fmtBF) }

// Float64ToBFloat16 rounds f to the nearest bfloat16 (ties to even) in one step.
func Float64ToBFloat16(f float64) uint16 { return narrow64(f, fmtBF) }

// Float16ToFloat32 widens the float16 h (exactly; NaN payloads are kept).
func Float16ToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch exp {
	case 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case 0:
		f := float32(mant) * (1.0 / (1 << 24)) // mant * 2^-24, exact
		return math.Float32frombits(sign | math.Float32bits(f))
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// BFloat16ToFloat32 widens the bfloat16 h (exactly; NaN payloads are kept).
func BFloat16ToFloat32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// RoundFloat16 rounds f to the nearest float16 value, as a float32.
func RoundFloat16(f float32) float32 { return Float16ToFloat32(Float32ToFloat16(f)) }

// RoundBFloat16 rounds f to the nearest bfloat16 value, as a float32.
func RoundBFloat16(f float32) float32 { return BFloat16ToFloat32(Float32ToBFloat16(f)) }
