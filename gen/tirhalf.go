package gen

import "math"

// 16-bit float conversions shared by the TIR interpreter and (as source
// text) the generated code. float16 is IEEE binary16; bfloat16 is the upper
// half of a float32. Narrowing rounds to nearest, ties to even; NaNs stay
// NaNs (quieted).

// halfToF32 widens an IEEE half (exact).
func halfToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		f := float32(mant) * (1.0 / 16777216) // mant * 2^-24, exact
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

// f32ToHalf narrows a float32 to an IEEE half.
func f32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return sign | 0x7e00 | uint16(mant>>13)
		}
		return sign | 0x7c00
	}
	e := exp - 112
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if exp == 0 {
			return sign
		}
		shift := uint(14 - e)
		if shift >= 25 {
			return sign
		}
		full := mant | 0x800000
		m := full >> shift
		rem := full & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && m&1 == 1 {
			m++
		}
		return sign | uint16(m)
	}
	h := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++
	}
	return sign | uint16(h)
}

// bf16ToF32 widens a bfloat16 (exact).
func bf16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// f32ToBF16 narrows a float32 to bfloat16.
func f32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7f800000 == 0x7f800000 && b&0x7fffff != 0 {
		return uint16(b>>16) | 0x40
	}
	r := b + 0x7fff + (b>>16)&1
	return uint16(r >> 16)
}

// f64ToHalf narrows a float64 to an IEEE half with a single rounding (for
// literals, as LLVM's APFloat conversion does).
func f64ToHalf(v float64) uint16 {
	h := f32ToHalf(float32(v))
	if math.IsNaN(v) || math.IsInf(v, 0) || float64(halfToF32(h)) == v {
		return h
	}
	// Pick the nearest of h and its neighbours by exact float64 distance
	// (ties to the even encoding).
	best, bestD := h, math.Abs(float64(halfToF32(h))-v)
	for _, c := range []uint16{h - 1, h + 1} {
		if c&0x7c00 == 0x7c00 && c&0x3ff != 0 || (c^h)&0x8000 != 0 {
			continue
		}
		d := math.Abs(float64(halfToF32(c)) - v)
		if d < bestD || d == bestD && c&1 == 0 {
			best, bestD = c, d
		}
	}
	return best
}

// f64ToBF16 narrows a float64 to bfloat16 with a single rounding.
func f64ToBF16(v float64) uint16 {
	h := f32ToBF16(float32(v))
	if math.IsNaN(v) || math.IsInf(v, 0) || float64(bf16ToF32(h)) == v {
		return h
	}
	best, bestD := h, math.Abs(float64(bf16ToF32(h))-v)
	for _, c := range []uint16{h - 1, h + 1} {
		if c&0x7f80 == 0x7f80 && c&0x7f != 0 || (c^h)&0x8000 != 0 {
			continue
		}
		d := math.Abs(float64(bf16ToF32(c)) - v)
		if d < bestD || d == bestD && c&1 == 0 {
			best, bestD = c, d
		}
	}
	return best
}

// halfHelperSrc is the source of the generated code's 16-bit float helpers,
// as local closures (NAME is replaced by the chosen identifier). It must
// match the functions above.
var halfHelperSrc = map[string]string{
	"h2f": `NAME := func(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return MATH.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		f := float32(mant) * (1.0 / 16777216)
		if sign != 0 {
			f = -f
		}
		return f
	}
	return MATH.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}`,
	"f2h": `NAME := func(f float32) uint16 {
	b := MATH.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return sign | 0x7e00 | uint16(mant>>13)
		}
		return sign | 0x7c00
	}
	e := exp - 112
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if exp == 0 {
			return sign
		}
		shift := uint(14 - e)
		if shift >= 25 {
			return sign
		}
		full := mant | 0x800000
		m := full >> shift
		rem := full & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && m&1 == 1 {
			m++
		}
		return sign | uint16(m)
	}
	h := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++
	}
	return sign | uint16(h)
}`,
	"bf2f": `NAME := func(h uint16) float32 { return MATH.Float32frombits(uint32(h) << 16) }`,
	"f2bf": `NAME := func(f float32) uint16 {
	b := MATH.Float32bits(f)
	if b&0x7f800000 == 0x7f800000 && b&0x7fffff != 0 {
		return uint16(b>>16) | 0x40
	}
	r := b + 0x7fff + (b>>16)&1
	return uint16(r >> 16)
}`,
}
