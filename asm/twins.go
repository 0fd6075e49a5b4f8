package asm

import (
	"math"
	"unsafe"
)

// Pure-Go twins. Each states the loop it computes; the assembly kernels
// compute exactly the same float32 operations (bit-identical results) except
// the SGEMM micro-kernel, whose assembly fuses a*b+acc into one FMA.

// addGo computes: for i := range dst { dst[i] = x[i] + y[i] }.
func addGo(dst, x, y []float32) {
	x, y = x[:len(dst)], y[:len(dst)]
	for i := range dst {
		dst[i] = x[i] + y[i]
	}
}

// subGo computes: for i := range dst { dst[i] = x[i] - y[i] }.
func subGo(dst, x, y []float32) {
	x, y = x[:len(dst)], y[:len(dst)]
	for i := range dst {
		dst[i] = x[i] - y[i]
	}
}

// mulGo computes: for i := range dst { dst[i] = x[i] * y[i] }.
func mulGo(dst, x, y []float32) {
	x, y = x[:len(dst)], y[:len(dst)]
	for i := range dst {
		dst[i] = x[i] * y[i]
	}
}

// divGo computes: for i := range dst { dst[i] = x[i] / y[i] }.
func divGo(dst, x, y []float32) {
	x, y = x[:len(dst)], y[:len(dst)]
	for i := range dst {
		dst[i] = x[i] / y[i]
	}
}

// addScalarGo computes: for i := range dst { dst[i] = x[i] + s }.
// maxGo, minGo and their scalar forms use Go's max and min: a NaN operand
// gives a NaN, max prefers +0 and min -0; the assembly runs the instruction
// sequence the Go compiler emits for them, so the bits agree.
func maxGo(dst, x, y []float32) {
	x, y = x[:len(dst)], y[:len(dst)]
	for i := range dst {
		dst[i] = max(x[i], y[i])
	}
}

func minGo(dst, x, y []float32) {
	x, y = x[:len(dst)], y[:len(dst)]
	for i := range dst {
		dst[i] = min(x[i], y[i])
	}
}

func maxScalarGo(dst, x []float32, s float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = max(x[i], s)
	}
}

// leakyReluGo is LeakyReluF32's twin.
func leakyReluGo(dst, x []float32, s float32) {
	x = x[:len(dst)]
	for i, v := range x {
		if v > 0 {
			dst[i] = v
		} else {
			dst[i] = v * s
		}
	}
}

// maddScalarGo rounds the product before adding (the explicit conversion
// keeps compilers that fuse x*y+z, e.g. on arm64, from fusing it).
func maddScalarGo(dst, x []float32, s float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] += float32(x[i] * s)
	}
}

// tapSumGo is TapSumF32's loop: for each i, acc starts at +0 and adds
// float32(base[offs[t]+i]*w[t]) for t in order. NaNs are picked in the
// kernels' precedence (the product's is w[t]'s, then base's; the sum's is
// acc's, then the product's), which Go's commutative float arithmetic does
// not fix.
func tapSumGo(dst, base []float32, offs []int, w []float32) {
	for i := range dst {
		var acc float32
		for t, o := range offs {
			x, wt := base[o+i], w[t]
			p := x * wt
			if p != p {
				p = firstNaN(wt, x, p)
			}
			s := acc + p
			if s != s {
				s = firstNaN(acc, p, s)
			}
			acc = s
		}
		dst[i] = acc
	}
}

// tapMaxGo is TapMaxF32's loop.
func tapMaxGo(dst, base []float32, offs []int, lo float32) {
	for i := range dst {
		m := lo
		for _, o := range offs {
			m = maxNaN(m, base[o+i])
		}
		dst[i] = m
	}
}

// avgPool2Go is one output row of AvgPool2x2F32: dst[k] is the sum from +0
// of up[2k], up[2k+1], down[2k] and down[2k+1], divided by 4.
func avgPool2Go(dst, up, down []float32) {
	for k := range dst {
		var s float32
		s = addL(s, up[2*k]) // the running sum first, as the kernel adds
		s = addL(s, up[2*k+1])
		s = addL(s, down[2*k])
		s = addL(s, down[2*k+1])
		dst[k] = s / 4
	}
}

// avgPool3S1Go is one plane of AvgPool3x3S1P1F32.
func avgPool3S1Go(dst, src []float32, h, w int, includePad bool) {
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var s float32
			cnt := 0
			for yy := y - 1; yy <= y+1; yy++ {
				for xx := x - 1; xx <= x+1; xx++ {
					if yy >= 0 && yy < h && xx >= 0 && xx < w {
						s = addL(s, src[yy*w+xx]) // the running sum first, as the kernel adds
						cnt++
					}
				}
			}
			if includePad {
				cnt = 9
			}
			dst[y*w+x] = s / float32(cnt)
		}
	}
}

// maxNaN is the tap-max step: a NaN tap v replaces the maximum m bit for
// bit, else Go's max.
func maxNaN(m, v float32) float32 {
	if v != v {
		return v
	}
	return max(m, v)
}

// maxPool2Go is one output row of MaxPool2x2F32: dst[k] is tapMaxGo's
// maximum from lo over up[2k], up[2k+1], down[2k], down[2k+1].
func maxPool2Go(dst, up, down []float32, lo float32) {
	for k := range dst {
		dst[k] = maxNaN(maxNaN(maxNaN(maxNaN(lo, up[2*k]), up[2*k+1]), down[2*k]), down[2*k+1])
	}
}

// maxPool3Go is one output row of MaxPool3x3S2F32 from the three source
// rows at src, stride apart.
func maxPool3Go(dst, src []float32, stride int, lo float32) {
	for k := range dst {
		m := lo
		for i := 0; i < 3; i++ {
			for t := 0; t < 3; t++ {
				m = maxNaN(m, src[i*stride+2*k+t])
			}
		}
		dst[k] = m
	}
}

// dwPlanarGo is DepthwisePlanar3x3F32's twin: each output the sum over the
// window's taps inside the plane, in row-major order, of float32(x*w) from
// +0, then the chain.
func dwPlanarGo(dst, src, w []float32, h, wd, oh, ow, sh, sw, pt, pl int, codes []uint8, s []float32) {
	for y := 0; y < oh; y++ {
		for x := 0; x < ow; x++ {
			var acc float32
			for i := 0; i < 3; i++ {
				iy := y*sh - pt + i
				if iy < 0 || iy >= h {
					continue
				}
				for k := 0; k < 3; k++ {
					if ix := x*sw - pl + k; ix >= 0 && ix < wd {
						acc += float32(src[iy*wd+ix] * w[3*i+k])
					}
				}
			}
			for t, c := range codes {
				acc = chainStep(c, acc, s[t])
			}
			dst[y*ow+x] = acc
		}
	}
}

// deinterleave2Go is one row of Deinterleave2RowsF32: even[k] = src[2k],
// odd[k] = src[2k+1].
func deinterleave2Go(even, odd, src []float32) {
	for k := range even {
		even[k], odd[k] = src[2*k], src[2*k+1]
	}
}

// firstNaN is the result of an x86 arithmetic instruction whose result r is
// NaN: its first NaN source quieted (a, then b), else r (a NaN it made).
func firstNaN(a, b, r float32) float32 {
	switch {
	case a != a:
		return quietNaN32(a)
	case b != b:
		return quietNaN32(b)
	}
	return r
}

func minScalarGo(dst, x []float32, s float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = min(x[i], s)
	}
}

func addScalarGo(dst, x []float32, s float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = x[i] + s
	}
}

// subScalarGo computes: for i := range dst { dst[i] = x[i] - s }.
func subScalarGo(dst, x []float32, s float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = x[i] - s
	}
}

// rsubScalarGo computes: for i := range dst { dst[i] = s - x[i] }.
func rsubScalarGo(dst, x []float32, s float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = s - x[i]
	}
}

// mulScalarGo computes: for i := range dst { dst[i] = x[i] * s }.
func mulScalarGo(dst, x []float32, s float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = x[i] * s
	}
}

// divScalarGo computes: for i := range dst { dst[i] = x[i] / s }.
func divScalarGo(dst, x []float32, s float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = x[i] / s
	}
}

// rdivScalarGo computes: for i := range dst { dst[i] = s / x[i] }.
func rdivScalarGo(dst, x []float32, s float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = s / x[i]
	}
}

// reluGo computes: for i := range dst { v := x[i]; if 0 > v { v = 0 }; dst[i] = v }.
func reluGo(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		v := x[i]
		if 0 > v {
			v = 0
		}
		dst[i] = v
	}
}

// Constants of the exp kernel (Cephes expf).
const (
	expLo    = float32(-105) // below: result rounds to 0
	expHi    = float32(89)   // above: result overflows to +Inf
	expLog2e = float32(1.44269504088896341)
	expC1    = float32(0.693359375)   // ln 2, high part (exact n*C1 for |n| < 2^15)
	expC2    = float32(2.12194440e-4) // ln 2 = C1 - C2
	expP0    = float32(1.9875691500e-4)
	expP1    = float32(1.3981999507e-3)
	expP2    = float32(8.3334519073e-3)
	expP3    = float32(4.1665795894e-2)
	expP4    = float32(1.6666665459e-1)
	expP5    = float32(5.0000001201e-1)
)

// pow2 returns 2**k for -126 <= k <= 127 (bit construction).
func pow2(k int32) float32 { return math.Float32frombits(uint32(k+127) << 23) }

// expOne is exp on one float32; expGo applies it to a slice. Each line is a
// single rounded float32 operation, in the order the assembly performs them,
// a*b + c a fused multiply-add (FMA32, one rounding):
//
//	if lo > x { x = lo }; if hi < x { x = hi }
//	n := roundToEven(x * log2e)
//	r := (-n*C1 + x); r = n*C2 + r
//	y := (((((P0*r + P1)*r + P2)*r + P3)*r + P4)*r + P5)
//	y = (y*(r*r) + r) + 1
//	k := int32(n); k1 := k >> 1; k2 := k - k1
//	return (y * 2**k1) * 2**k2
func expOne(x float32) float32 {
	if expLo > x {
		x = expLo
	}
	if expHi < x {
		x = expHi
	}
	t := x * expLog2e
	n := float32(math.RoundToEven(float64(t)))
	r := FMA32(-n, expC1, x)
	r = FMA32(n, expC2, r)
	z := float32(r * r)
	y := hornerFMA(r, expP0, expP1, expP2, expP3, expP4, expP5)
	y = FMA32(y, z, r)
	y = y + 1
	k := int32(n)
	if n != n {
		k = math.MinInt32 // what CVTPS2DQ returns for NaN
	}
	k1 := k >> 1
	k2 := k - k1
	y = float32(y * pow2(k1))
	return y * pow2(k2)
}

// hornerFMA is the polynomial c[0]*x^k + ... + c[k] by Horner's rule, each
// step p = p*x + c[i] one fused multiply-add (FMA32), as the kernels'
// polynomials run.
func hornerFMA(x float32, c ...float32) float32 {
	p := c[0]
	for _, ci := range c[1:] {
		p = FMA32(p, x, ci)
	}
	return p
}

// expGo computes: for i := range dst { dst[i] = expOne(x[i]) }.
func expGo(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = expOne(x[i])
	}
}

// Constants of the tanh kernel (Cephes tanhf).
const (
	tanhSmall = float32(0.625)
	tanhT0    = float32(-5.70498872745e-3)
	tanhT1    = float32(2.06390887954e-2)
	tanhT2    = float32(-5.37397155531e-2)
	tanhT3    = float32(1.33314422036e-1)
	tanhT4    = float32(-3.33332819422e-1)
)

// tanhOne is tanh on one float32; tanhGo applies it to a slice (a*b + c
// below the exp a fused multiply-add, FMA32: one rounding):
//
//	a := |x|
//	if a > 0.625 { s := expOne(a + a); t := 1 - 2/(s+1); return t with x's sign }
//	z := x*x
//	p := ((((T0*z + T1)*z + T2)*z + T3)*z + T4)
//	return (p*z)*x + x
func tanhOne(x float32) float32 {
	bits := math.Float32bits(x)
	a := math.Float32frombits(bits &^ (1 << 31))
	if a > tanhSmall {
		s := expOne(a + a)
		t := 1 - 2/(s+1)
		return math.Float32frombits(math.Float32bits(t) | bits&(1<<31))
	}
	z := x * x
	p := hornerFMA(z, tanhT0, tanhT1, tanhT2, tanhT3, tanhT4)
	p = float32(p * z)
	return FMA32(p, x, x)
}

// tanhGo computes: for i := range dst { dst[i] = tanhOne(x[i]) }.
func tanhGo(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = tanhOne(x[i])
	}
}

// Constants of the erf kernel (Eigen/XLA float erf).
const (
	erfA13 = float32(-2.72614225801306e-10)
	erfA11 = float32(2.77068142495902e-08)
	erfA9  = float32(-2.10102402082508e-06)
	erfA7  = float32(-5.69250639462346e-05)
	erfA5  = float32(-7.34990630326855e-04)
	erfA3  = float32(-2.95459980854025e-03)
	erfA1  = float32(-1.60960333262415e-02)
	erfB8  = float32(-1.45660718464996e-05)
	erfB6  = float32(-2.13374055278905e-04)
	erfB4  = float32(-1.68282697438203e-03)
	erfB2  = float32(-7.37332916720468e-03)
	erfB0  = float32(-1.42647390514189e-02)
)

// erfOne is erf on one float32; erfGo applies it to a slice (a*b + c in
// the polynomials a fused multiply-add, FMA32: one rounding):
//
//	if -4 > x { x = -4 }; if 4 < x { x = 4 }
//	z := x*x
//	p := (((((A13*z + A11)*z + A9)*z + A7)*z + A5)*z + A3)*z + A1
//	q := (((B8*z + B6)*z + B4)*z + B2)*z + B0
//	return (x*p) / q
func erfOne(x float32) float32 {
	if -4 > x {
		x = -4
	}
	if 4 < x {
		x = 4
	}
	z := x * x
	p := hornerFMA(z, erfA13, erfA11, erfA9, erfA7, erfA5, erfA3, erfA1)
	q := hornerFMA(z, erfB8, erfB6, erfB4, erfB2, erfB0)
	return float32(x*p) / q
}

// erfGo computes: for i := range dst { dst[i] = erfOne(x[i]) }.
func erfGo(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = erfOne(x[i])
	}
}

// sigmoidOne is 1 / (1 + expOne(-x)).
func sigmoidOne(x float32) float32 {
	return 1 / (1 + expOne(-x))
}

// siluOne is sigmoidOne(x) * x, the sigmoid the product's first operand
// (as MulF32(dst, sigmoid, x)).
func siluOne(x float32) float32 { return sigmoidOne(x) * x }

// xSigmoidOne is x * sigmoidOne(x), x the product's first operand (as
// MulF32(dst, x, sigmoid)).
func xSigmoidOne(x float32) float32 { return x * sigmoidOne(x) }

// siluGo computes: for i := range dst { dst[i] = siluOne(x[i]) }.
func siluGo(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = siluOne(x[i])
	}
}

// xSigmoidGo computes: for i := range dst { dst[i] = xSigmoidOne(x[i]) }.
func xSigmoidGo(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = xSigmoidOne(x[i])
	}
}

// sigmoidGo computes: for i := range dst { dst[i] = 1 / (1 + expOne(-x[i])) }.
func sigmoidGo(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = sigmoidOne(x[i])
	}
}

// sumBlocksGo computes: for i := 0; i < 64*nblk; i++ { acc[i%64] += x[i] }.
func sumBlocksGo(x []float32, nblk int, acc *[64]float32) {
	x = x[:64*nblk]
	for i, v := range x {
		acc[i%64] += v
	}
}

// dotBlocksGo computes: for i := 0; i < 64*nblk; i++ { acc[i%64] += x[i]*y[i] }
// (the product rounded to float32 before the addition).
func dotBlocksGo(x, y []float32, nblk int, acc *[64]float32) {
	x, y = x[:64*nblk], y[:64*nblk]
	for i, v := range x {
		acc[i%64] += float32(v * y[i])
	}
}

// scaleMulAddGo is ScaleMulAddF32's loop: mulScalarGo, mulGo and addGo in
// turn.
func scaleMulAddGo(dst, x []float32, s float32, g, b []float32) {
	mulScalarGo(dst, x, s)
	mulGo(dst, dst, g)
	addGo(dst, dst, b)
}

// dot8Go computes: for i, v := range x { acc[i%8] += v * y[i] }, a NaN
// product being v's, then y[i]'s, and a NaN sum acc's, then the product's
// (firstNaN: the kernel's operand order, which Go's commutative float
// arithmetic does not fix).
func dot8Go(x, y []float32, acc *[8]float32) {
	y = y[:len(x)]
	for i, v := range x {
		p := v * y[i]
		if p != p {
			p = firstNaN(v, y[i], p)
		}
		a := acc[i%8]
		s := a + p
		if s != s {
			s = firstNaN(a, p, s)
		}
		acc[i%8] = s
	}
}

// sum8RowsGo computes: for each row r, acc[8r+i%8] = sum of x[r*stride+i]
// over i < n from +0 in index order, a NaN sum being the partial sum's NaN,
// then x's (the kernel's operand order).
func sum8RowsGo(x []float32, stride, rows, n int, acc []float32) {
	for r := 0; r < rows; r++ {
		a := acc[8*r : 8*r+8 : 8*r+8]
		clear(a)
		for i, v := range x[r*stride : r*stride+n] {
			p := a[i%8]
			s := p + v
			if s != s {
				s = firstNaN(p, v, s)
			}
			a[i%8] = s
		}
	}
}

// maxRowGo computes: m := -Inf; for _, v := range x { if v != v { nan =
// true }; if v > m { m = v } }.
func maxRowGo(x []float32) (m float32, nan bool) {
	m = float32(math.Inf(-1))
	for _, v := range x {
		if v != v {
			nan = true
		}
		if v > m {
			m = v
		}
	}
	return m, nan
}

// maxBlocksGo computes: for i := 0; i < 64*nblk; i++ { v := x[i]; if v != v
// { nan = true }; if v > acc[i%64] { acc[i%64] = v } }.
func maxBlocksGo(x []float32, nblk int, acc *[64]float32) (nan bool) {
	x = x[:64*nblk]
	for i, v := range x {
		if v != v {
			nan = true
		}
		if v > acc[i%64] {
			acc[i%64] = v
		}
	}
	return nan
}

// sgemmKernelGo is the twin of the SGEMM micro-kernel for an mr x nr tile:
//
//	for i < mr, j < nr:
//	    acc := 0; for p < kc { acc += a[p*mr+i] * b[p*nr+j] }
//	    if beta == 0 { c[i*ldc+j] = alpha*acc } else { c[i*ldc+j] = alpha*acc + beta*c[i*ldc+j] }
//
// with acc += a*b one fused multiply-add (FMA32), as the assembly does, so
// both give the same bits.
func sgemmKernelGo(mr, nr, kc int, a, b, c []float32, ldc int, alpha, beta float32) {
	sgemmTwin(mr, nr, kc, a, b, nr, nil, c, ldc, alpha, beta)
}

// sgemmTwin is the loop of the micro-kernel twins, with B row p at
// b[offs[p]:], or at b[p*ldb:] when offs is nil.
func sgemmTwin(mr, nr, kc int, a, b []float32, ldb int, offs []int, c []float32, ldc int, alpha, beta float32) {
	var acc [16 * 32]float32
	accs := acc[:mr*nr]
	for p := 0; p < kc; p++ {
		ap := a[p*mr : p*mr+mr]
		o := p * ldb
		if offs != nil {
			o = offs[p]
		}
		bp := b[o : o+nr]
		for i, av := range ap {
			row := accs[i*nr : i*nr+nr]
			for j, bv := range bp {
				row[j] = FMA32(av, bv, row[j])
			}
		}
	}
	for i := 0; i < mr; i++ {
		row := c[i*ldc : i*ldc+nr]
		arow := accs[i*nr : i*nr+nr]
		for j := range row {
			row[j] = twinStore(arow[j], row[j], alpha, beta)
		}
	}
}

// twinStore is the micro-kernels' write-back of one element: alpha*acc, or
// with beta not zero alpha*acc + beta*c, each product rounded (C is not read
// when beta is zero).
func twinStore(acc, c, alpha, beta float32) float32 {
	if beta == 0 {
		return alpha * acc
	}
	return float32(alpha*acc) + float32(beta*c)
}

// sgemmIndirectGo is the twin of the indirect micro-kernels: sgemmKernelGo
// with B row p read at b[offs[p]:] (same expressions, same bits).
func sgemmIndirectGo(mr, nr, kc int, a []float32, b *float32, offs []int, c []float32, ldc int, alpha, beta float32) {
	n := 0
	for _, o := range offs {
		n = max(n, o+nr)
	}
	sgemmTwin(mr, nr, kc, a, unsafe.Slice(b, n), 0, offs, c, ldc, alpha, beta)
}

// sgemmDirectGo is the twin of the small-M micro-kernels (r x nr tile, A
// packed as a[p*r+i], B in place as b[p*ldb+j]):
//
//	for i < r, j < nr:
//	    acc := 0; for p < kc { acc += a[p*r+i] * b[p*ldb+j] }
//	    if beta == 0 { c[i*ldc+j] = alpha*acc } else { c[i*ldc+j] = alpha*acc + beta*c[i*ldc+j] }
//
// i.e. sgemmKernelGo with B read in place (same expressions, same bits).
func sgemmDirectGo(r, nr, kc int, a, b []float32, ldb int, c []float32, ldc int, alpha, beta float32) {
	sgemmTwin(r, nr, kc, a, b, ldb, nil, c, ldc, alpha, beta)
}

// sgemmNarrowGo is the twin of the narrow kernels (every operand in
// place, see SgemmNarrow):
//
//	for i < rows, j < cols:
//	    acc := 0; for p < kc { acc += a[i*lda+p] * b[p*ldb+j] }
//	    then alpha and beta as sgemmTwin
//
// i.e. sgemmKernelGo's expressions on A and B read in place (same bits).
func sgemmNarrowGo(rows, cols, kc int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, alpha, beta float32) {
	for i := 0; i < rows; i++ {
		ar, row := a[i*lda:i*lda+kc], c[i*ldc:i*ldc+cols]
		for j := range row {
			var acc float32
			for p, av := range ar {
				acc = FMA32(av, b[p*ldb+j], acc)
			}
			row[j] = twinStore(acc, row[j], alpha, beta)
		}
	}
}

// layerNormRowGo is the twin of the short-row layer norm kernel on one row
// (see LayerNormShortF32).
func layerNormRowGo(o, x, g, b []float32, eps float64) {
	n := len(x)
	var acc [8]float32
	for i, v := range x {
		acc[i%8] = addL(acc[i%8], v)
	}
	mean := fold8(&acc) / float32(n)
	acc = [8]float32{}
	for i, v := range x {
		d := v - mean
		acc[i%8] = addL(acc[i%8], d*d)
	}
	inv := float32(1 / math.Sqrt(float64(fold8(&acc)/float32(n))+eps))
	for i, v := range x {
		o[i] = addL(mulL(mulL(v-mean, inv), g[i]), b[i])
	}
}

// fold8 adds eight partial sums as ((a0+a1)+(a2+a3))+((a4+a5)+(a6+a7)),
// each add's left operand the kernels' first (addL).
func fold8(a *[8]float32) float32 {
	return addL(addL(addL(a[0], a[1]), addL(a[2], a[3])), addL(addL(a[4], a[5]), addL(a[6], a[7])))
}

// addL is a + b as the kernels compute it with a the first source operand:
// a's NaN (quieted) when a is one, else b's, else the sum (an invalid sum's
// NaN the hardware's). Go's + may swap a commutative operation's operands,
// which picks the other NaN when both are: the twin of the short-row layer
// norm gave +NaN where its kernel gave -NaN (found by FuzzDiffSIMDLevels).
func addL(a, b float32) float32 { return firstNaN(a, b, a+b) }

// mulL is a * b in addL's operand order.
func mulL(a, b float32) float32 { return firstNaN(a, b, a*b) }

// sgemmScatterGo is the twin of the scattering indirect chain kernels (nr
// columns: 48, or a narrow form's 32 or 16): tiles
// row tiles one after another (tile t's A, rows, residual rows and chain
// scalars advanced as SgemmKernelIndirectChainScatterUnchecked says), each
// computed by sgemmScatterTileGo.
func sgemmScatterGo(nr, kc int, a, b unsafe.Pointer, offs *int, c unsafe.Pointer, ldc int, alpha float32, codes *uint8, sc *float32, nsteps int, st *[9]int64, res ScatterResidual, tiles int) {
	const mr = 8
	for t := 0; t < tiles; t++ {
		tr := res
		if tr.P != nil {
			tr.P = unsafe.Add(res.P, t*mr*ldc*4)
		}
		sgemmScatterTileGo(nr, kc, unsafe.Add(a, t*kc*mr*4), b, offs, unsafe.Add(c, t*mr*ldc*4), ldc, alpha, codes,
			(*float32)(unsafe.Add(unsafe.Pointer(sc), t*nsteps*mr*4)), nsteps, st, tr)
	}
}

// sgemmScatterTileGo is one tile of sgemmScatterGo: the tile computed as
// SgemmKernelIndirectChainUnchecked computes it (beta 0), with a residual
// (res.P not nil) the chain's first res.At steps, the residual added to
// each vector's lanes under its masks in turn (a lane in both gets both),
// the remaining steps; then each vector stored under its masks at its
// offsets.
func sgemmScatterTileGo(nr, kc int, a, b unsafe.Pointer, offs *int, c unsafe.Pointer, ldc int, alpha float32, codes *uint8, sc *float32, nsteps int, st *[9]int64, res ScatterResidual) {
	const mr, lanes = 8, 16
	var buf [mr * 48]float32
	tile := buf[:mr*nr]
	sgemmIndirectGo(mr, nr, kc, unsafe.Slice((*float32)(a), kc*mr), (*float32)(b), unsafe.Slice(offs, kc), tile[:], nr, alpha, 0)
	var cs []uint8
	var ss []float32
	if nsteps > 0 {
		cs, ss = unsafe.Slice(codes, nsteps), unsafe.Slice(sc, nsteps*mr)
	}
	at := nsteps
	if res.P != nil {
		at = res.At
	}
	if at > 0 {
		chainTileGo(mr, nr, tile[:], nr, cs[:at], ss[:at*mr])
	}
	if res.P != nil {
		for v := 0; v < nr/lanes; v++ {
			for h := 0; h < 2; h++ {
				mask := uint16(st[3*v+2] >> (16 * h))
				for i := 0; i < mr; i++ {
					// The lane's byte offset whole before the one pointer
					// step: a table offset alone may point before the
					// buffer, which the race detector's checks refuse.
					row := i*ldc*4 + int(st[3*v+h])
					for l := 0; l < lanes; l++ {
						if mask&(1<<l) == 0 {
							continue
						}
						x, r := &tile[i*nr+v*lanes+l], *(*float32)(unsafe.Add(res.P, row+4*l))
						if res.Rev {
							*x = r + *x
						} else {
							*x += r
						}
					}
				}
			}
		}
		if at < nsteps {
			chainTileGo(mr, nr, tile[:], nr, cs[at:], ss[at*mr:])
		}
	}
	for i := 0; i < mr; i++ {
		row := unsafe.Add(c, i*ldc*4)
		for v := 0; v < nr/lanes; v++ {
			for h := 0; h < 2; h++ {
				mask := uint16(st[3*v+2] >> (16 * h))
				for l := 0; l < lanes; l++ {
					if mask&(1<<l) != 0 {
						*(*float32)(unsafe.Add(row, int(st[3*v+h])+4*l)) = tile[i*nr+v*lanes+l]
					}
				}
			}
		}
	}
}

// geluGo is the twin of the GELU kernels: the scalar, erf and binary twins'
// operations in their order (see GeluF32).
func geluGo(dst, x []float32) {
	for i, v := range x[:len(dst)] {
		t := erfOne(v * float32(math.Sqrt2/2))
		t = float32(t*0.5) + 0.5 // (rounded twice, as the two kernels round it)
		dst[i] = t * v
	}
}

// FMA32 returns a*b + c computed exactly and rounded once to float32, as
// the FMA instruction (VFMADD231PS) does, on any platform: the product of
// two float32 values is exact in float64, and the float64 sum rounds to the
// correctly rounded float32 unless it lands exactly on a float32 tie; then
// (and for float32 subnormals) it is redone with round-to-odd, which makes
// the final rounding correct. The Go compiler fuses x*y+z on some architectures (arm64) and not
// on others (amd64); calling FMA32 makes the result the same everywhere.
func FMA32(a, b, c float32) float32 {
	p := float64(a) * float64(b) // exact: 24+24 significant bits
	s := p + float64(c)
	// Rounding s to float32 can differ from rounding the exact sum only
	// when s lies exactly on a float32 tie (then the exact sum may be just
	// off it); s is then redone with round-to-odd. Float32 subnormal
	// results, infinities and NaNs take that path too.
	bits := math.Float64bits(s)
	// One unsigned compare: exponent outside [1023-126, 0x7ff).
	if bits&0x1fffffff == 0x10000000 || (bits>>52&0x7ff)-(1023-126) >= 0x7ff-(1023-126) {
		return fma32Slow(a, b, c, p, s)
	}
	return float32(s)
}

// fma32Slow is FMA32's rare path. A NaN operand is returned quieted, in the
// precedence the kernels' VFMADD231PS (acc = a*b + acc, a the broadcast
// element) shows: a, then b, then the accumulator c (float64 arithmetic
// would pick one by register allocation). Otherwise p + c (p = a*b exact,
// s their float64 sum) is rounded to float32 once: s is made round-to-odd
// with TwoSum's error term, which makes its rounding to float32 correct.
func fma32Slow(a, b, c float32, p, s float64) float32 {
	switch {
	case a != a:
		return quietNaN32(a)
	case b != b:
		return quietNaN32(b)
	case c != c:
		return quietNaN32(c)
	}
	cc := float64(c)
	if math.IsInf(s, 0) || math.IsNaN(s) {
		// Invalid operations (inf*0, inf-inf) give the default NaN, as the
		// instruction does.
		return float32(s)
	}
	// TwoSum: s + e == p + cc exactly.
	bb := s - p
	e := (p - (s - bb)) + (cc - bb)
	if e != 0 {
		bits := math.Float64bits(s)
		if bits&1 == 0 {
			// Round to odd: step to the neighbour of the exact sum
			// whose last bit is 1.
			if (e > 0) == (s > 0) {
				bits++
			} else {
				bits--
			}
			s = math.Float64frombits(bits)
		}
	}
	return float32(s)
}

// quietNaN32 is x (a NaN) with its quiet bit set, as an instruction that
// propagates a NaN operand returns it.
func quietNaN32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) | 0x00400000) }

// chainStep is one step of scalarChainGo: the scalar kernels' twins (and
// reluGo's) on one element.
func chainStep(code uint8, v, s float32) float32 {
	switch code {
	case ChainAdd:
		return v + s
	case ChainSub:
		return v - s
	case ChainRSub:
		return s - v
	case ChainMul:
		return v * s
	case ChainDiv:
		return v / s
	case ChainRDiv:
		return s / v
	case ChainMax:
		return max(v, s)
	case ChainMin:
		return min(v, s)
	case ChainMaxZero:
		return max(v, 0)
	}
	if 0 > v { // ChainRelu
		v = 0
	}
	return v
}

func scalarChainGo(dst, src []float32, codes []uint8, s []float32) {
	src = src[:len(dst)]
	for i, v := range src {
		for t, c := range codes {
			v = chainStep(c, v, s[t])
		}
		dst[i] = v
	}
}

// depthwiseNCGo is DepthwiseNCF32's loop, lanes channels per position.
func depthwiseNCGo(dst []float32, dstStride int, src []float32, srcStride int, offs []int, w []float32, rows, n, sw, lanes int, codes []uint8, sc []float32) {
	for r := 0; r < rows; r++ {
		for i := 0; i < n; i++ {
			for l := 0; l < lanes; l++ {
				at := r*srcStride + i*sw*lanes + l
				var acc float32
				for t, o := range offs {
					acc += float32(src[at+o] * w[t*lanes+l])
				}
				for k, c := range codes {
					acc = chainStep(c, acc, sc[k*lanes+l])
				}
				dst[r*dstStride+i*lanes+l] = acc
			}
		}
	}
}

// chainColsGo is ChainColsF32's loop, lanes columns a block.
func chainColsGo(x []float32, ld, rows, cols, lanes int, codes []uint8, sc []float32) {
	ns := len(codes)
	for r := 0; r < rows; r++ {
		for j := 0; j < cols; j++ {
			v := x[r*ld+j]
			for k, c := range codes {
				v = chainStep(c, v, sc[((j/lanes)*ns+k)*lanes+j%lanes])
			}
			x[r*ld+j] = v
		}
	}
}

// transposeGo is TransposeF32's loop.
func transposeGo(dst []float32, ldd int, src []float32, lds, rows, cols int) {
	for r := 0; r < rows; r++ {
		for c, v := range src[r*lds : r*lds+cols] {
			dst[c*ldd+r] = v
		}
	}
}

// interleave2Go is Interleave2F32's loop.
func interleave2Go(dst, even, odd []float32) {
	odd = odd[:len(even)]
	for k, e := range even {
		dst[2*k] = e
		dst[2*k+1] = odd[k]
	}
}

// softmaxSmallGo is SoftmaxSmallF32's twin.
func softmaxSmallGo(o, x []float32, n int) int {
	var e [16]float32
	for r := 0; r < len(o); r += n {
		xr, or := x[r:r+n], o[r:r+n]
		m, ok := softmaxRowMax(xr)
		if !ok {
			return r / n
		}
		e = [16]float32{}
		for i, v := range xr {
			e[i] = expOne(v - m)
		}
		var a [8]float32
		for i := range a {
			a[i] = e[i] + e[i+8]
		}
		s := ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
		inv := 1 / s
		for i := range or {
			or[i] = e[i] * inv
		}
	}
	return len(o) / n
}

// chainTileGo is the chain step of SgemmKernelIndirectChain's twin: row i of
// the mr x nr tile at c (rows ldc apart) through the steps codes with the
// scalars sc[t*mr+i].
func chainTileGo(mr, nr int, c []float32, ldc int, codes []uint8, sc []float32) {
	row := make([]float32, len(codes))
	for i := 0; i < mr; i++ {
		for t := range codes {
			row[t] = sc[t*mr+i]
		}
		r := c[i*ldc : i*ldc+nr]
		scalarChainGo(r, r, codes, row)
	}
}

// softmaxRowsGo is SoftmaxRowsF32's twin: rows of n (a multiple of 8) a
// row at a time, stopping before a row with a NaN or an infinite maximum.
func softmaxRowsGo(o, x []float32, n int) int {
	for r := 0; r < len(o); r += n {
		xr, or := x[r:r+n], o[r:r+n]
		m, ok := softmaxRowMax(xr)
		if !ok {
			return r / n
		}
		var a [8]float32
		for i, v := range xr {
			e := expOne(v - m)
			or[i] = e
			a[i%8] += e
		}
		s := ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
		inv := 1 / s
		for i := range or {
			or[i] *= inv
		}
	}
	return len(o) / n
}

// softmaxRowMax returns a softmax row's maximum, and false for a row the
// softmax twins stop at: one holding a NaN, or whose maximum is infinite.
func softmaxRowMax(x []float32) (float32, bool) {
	m := float32(math.Inf(-1))
	for _, v := range x {
		if v != v {
			return 0, false
		}
		m = max(m, v)
	}
	return m, !math.IsInf(float64(m), 0)
}

// epilogueRowsGo is EpilogueRowsF32's twin: the separate twins (addScalarGo,
// addGo, reluGo) on each row in turn, whose expressions fix the operand order
// (and so which NaN's payload a sum keeps; a fused loop's v = r + v may be
// compiled with its operands swapped).
func epilogueRowsGo(c []float32, ldc, rows, n int, rowBias, colBias, res []float32, ldr, flags int) {
	for r := 0; r < rows; r++ {
		row := c[r*ldc : r*ldc+n]
		if flags&EpiRowBias != 0 {
			addScalarGo(row, row, rowBias[r])
		}
		if flags&EpiColBias != 0 {
			addGo(row, row, colBias[:n])
		}
		if flags&EpiRes != 0 {
			rr := res[r*ldr : r*ldr+n]
			if flags&EpiResLeft != 0 {
				addGo(row, rr, row)
			} else {
				addGo(row, row, rr)
			}
		}
		if flags&EpiRelu != 0 {
			reluGo(row, row)
		}
	}
}
