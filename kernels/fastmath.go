package kernels

import "math"

// Scalar float32 elementary functions used by the float32 kernels. They work
// in float32 arithmetic with Cephes-style range reduction and minimax
// polynomials; the tests bound their error against the float64 math package.

const (
	expHi   = 88.72283905206835   // above: +Inf
	expLo   = -103.97207708       // below: 0
	log2e   = 1.44269504088896341 // 1/ln 2
	ln2Hi   = 0.693359375         // ln 2 split for exact reduction
	ln2Lo   = -2.12194440e-4
	sqrt2pi = 0.7978845608028654 // sqrt(2/pi)
)

// expf returns e**x for float32 x with at most 2 ulp error (normal range).
func expf(x float32) float32 {
	switch {
	case x != x:
		return x
	case x > expHi:
		return float32(math.Inf(1))
	case x < expLo:
		return 0
	}
	// n = round(x / ln2)
	fn := x*log2e + 0.5
	n := int32(fn) // truncates toward zero; make it floor
	if fn < 0 && float32(n) != fn {
		n--
	}
	nf := float32(n)
	r := x - nf*ln2Hi - nf*ln2Lo
	z := r * r
	p := ((((1.9875691500e-4*r+1.3981999507e-3)*r+8.3334519073e-3)*r+4.1665795894e-2)*r+1.6666665459e-1)*r + 5.0000001201e-1
	y := p*z + r + 1
	if n < -126 {
		// subnormal result: scale in two steps
		y *= math.Float32frombits(uint32(n+126+127) << 23)
		return y * math.Float32frombits(1<<23) // 2^-126
	}
	if n > 127 {
		return y * 2 * math.Float32frombits(uint32(n-1+127)<<23)
	}
	return y * math.Float32frombits(uint32(n+127)<<23)
}
