package kernels

import (
	"math"

	"github.com/relaxgo/relaxgo/asm"
)

// float32 fast paths on the asm package's SIMD primitives. Every function
// here tolerates dst aliasing its inputs: multi-step formulas go through a
// stack chunk buffer.

// chunk32 is the length of the scratch chunks used by multi-step
// elementwise formulas (GELU: five kernel calls per chunk; 4 KiB stays in
// L1, and 1024 rather than 256 elements cut GELU on 256x1024 65 -> 54 µs,
// BenchmarkOpMisc/gelu). Elementwise, so the chunk does not change bits.
const chunk32 = 1024

// logSoftmaxChunk is the chunk over which log-softmax sums a row's
// exponentials: it fixes the summation order, so it stays as it was.
const logSoftmaxChunk = 256

// Row reductions switch to the asm package's (64 partial results, see
// asm.ReduceSumF32) from these lengths on, where they are faster (measured
// by BenchmarkReduceRow32: the asm versions cost a fixed ~25 ns, ~50 before
// their 64 partials were combined in registers; the sum's switch moved
// from 512 to 256 then, where the asm sum took 29 ns against 43). The
// order of operations depends only on len(x), so results are still
// independent of threads and CPU.
const (
	asmSumMin = 256
	asmDotMin = 256
	asmMaxMin = 256
)

// dot8Min is the length from which dot32 adds its eight partial sums with
// asm.Dot8F32 (BenchmarkReduceRow32/dot/go: n=64 19 → 15 ns, n=128 35 → 19;
// n=16 is faster in Go, 6 against 12, the call costing more than the row).
// The path depends only on the length, so results stay the same at every
// SIMD level (Dot8F32's pure-Go twin fixes the same NaN precedence). sum32
// keeps its Go loop: the same one-accumulator chain in asm was no faster
// below 256 elements.
const dot8Min = 64

// sum32 returns the sum of x with eight interleaved float32 partial sums
// (element i goes to partial i%8; partials are combined pairwise), or from
// asmSumMin elements on asm.ReduceSumF32's order: a fixed order independent
// of threads and CPU. It does not allocate.
func sum32(x []float32) float32 {
	if len(x) >= asmSumMin {
		return asm.ReduceSumF32(x)
	}
	var a0, a1, a2, a3, a4, a5, a6, a7 float32
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		a0 += v[0]
		a1 += v[1]
		a2 += v[2]
		a3 += v[3]
		a4 += v[4]
		a5 += v[5]
		a6 += v[6]
		a7 += v[7]
	}
	return sum8Finish(a0, a1, a2, a3, a4, a5, a6, a7, x[i:])
}

// sum8Finish is sum32's end: the tail t (fewer than 8 values) added to the
// first partial sums, then the eight combined pairwise.
func sum8Finish(a0, a1, a2, a3, a4, a5, a6, a7 float32, t []float32) float32 {
	if len(t) > 0 {
		a0 += t[0]
	}
	if len(t) > 1 {
		a1 += t[1]
	}
	if len(t) > 2 {
		a2 += t[2]
	}
	if len(t) > 3 {
		a3 += t[3]
	}
	if len(t) > 4 {
		a4 += t[4]
	}
	if len(t) > 5 {
		a5 += t[5]
	}
	if len(t) > 6 {
		a6 += t[6]
	}
	return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
}

// sum32RowsChunk is how many rows sum32Rows sums a call of
// asm.Sum8RowsF32 (their partial sums on the stack).
const sum32RowsChunk = 32

// sum32Rows sets dst[r] to sum32(x[r*stride : r*stride+n]) for each r, bit
// for bit: below asmSumMin, the rows' eight partial sums come from
// asm.Sum8RowsF32 (four rows' chains at once, where sum32's Go loop runs
// one row's eight at the adder's latency), then sum32's tail and pairwise
// combination. A global average pool of 64 planes of 16x16 (cnn_64x64's):
// BenchmarkSum32Rows.
func sum32Rows(dst, x []float32, stride, n int) {
	if n >= asmSumMin || n < 8 {
		for r := range dst {
			dst[r] = sum32(x[r*stride : r*stride+n])
		}
		return
	}
	n8 := n &^ 7
	var acc [8 * sum32RowsChunk]float32
	for r0 := 0; r0 < len(dst); r0 += sum32RowsChunk {
		k := min(sum32RowsChunk, len(dst)-r0)
		asm.Sum8RowsF32(x[r0*stride:], stride, k, n8, acc[:8*k])
		for i := 0; i < k; i++ {
			a := acc[8*i : 8*i+8 : 8*i+8]
			row := x[(r0+i)*stride : (r0+i)*stride+n]
			dst[r0+i] = sum8Finish(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], row[n8:])
		}
	}
}

// dot32 returns sum x[i]*y[i] in sum32's order for short rows, and from
// asmDotMin elements on in asm.DotF32's.
func dot32(x, y []float32) float32 {
	if len(x) >= asmDotMin {
		return asm.DotF32(x, y)
	}
	y = y[:len(x)]
	var a0, a1, a2, a3, a4, a5, a6, a7 float32
	i := 0
	if len(x) >= dot8Min {
		var acc [8]float32
		i = len(x) &^ 7
		asm.Dot8F32(x[:i], y[:i], &acc)
		a0, a1, a2, a3, a4, a5, a6, a7 = acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7]
	}
	for ; i+8 <= len(x); i += 8 {
		v, w := x[i:i+8:i+8], y[i:i+8:i+8]
		a0 += v[0] * w[0]
		a1 += v[1] * w[1]
		a2 += v[2] * w[2]
		a3 += v[3] * w[3]
		a4 += v[4] * w[4]
		a5 += v[5] * w[5]
		a6 += v[6] * w[6]
		a7 += v[7] * w[7]
	}
	for j := i; j < len(x); j++ {
		p := x[j] * y[j]
		switch j - i {
		case 0:
			a0 += p
		case 1:
			a1 += p
		case 2:
			a2 += p
		case 3:
			a3 += p
		case 4:
			a4 += p
		case 5:
			a5 += p
		default:
			a6 += p
		}
	}
	return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
}

// max32 returns the maximum of x (NaN if any element is NaN, -Inf if empty).
// The NaN check rides on sum32: a NaN anywhere makes the sum NaN, and only
// then (or on inf-inf) are the elements scanned.
func max32(x []float32) float32 {
	if len(x) >= asmMaxMin {
		return asm.ReduceMaxF32(x)
	}
	m := maxFast32(x)
	if s := sum32(x); s != s {
		for _, v := range x {
			if v != v {
				return v
			}
		}
	}
	return m
}

// maxFast32 returns the maximum of x (-Inf if empty), or a NaN when x holds
// one (which NaN is unspecified; max32 and softmax look for it themselves).
// It uses Go's max, which compiles without data-dependent branches: the
// compare-and-branch loop it replaces mispredicted on every other element
// and took half of softmax's time on random rows.
func maxFast32(x []float32) float32 {
	if len(x) >= asmMaxMin {
		return asm.ReduceMaxF32(x)
	}
	ninf := float32(math.Inf(-1))
	m0, m1, m2, m3 := ninf, ninf, ninf, ninf
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		m0 = max(m0, v[0])
		m1 = max(m1, v[1])
		m2 = max(m2, v[2])
		m3 = max(m3, v[3])
	}
	for ; i < len(x); i++ {
		m0 = max(m0, x[i])
	}
	return max(max(m0, m1), max(m2, m3))
}

// f32Row is floatRow's float32 path for add, subtract, multiply and divide.
func f32Row(op bop, o, a, b []float32) {
	n := len(o)
	va, vb := len(a) == n, len(b) == n
	if n == 1 {
		va, vb = true, true
	}
	switch {
	case va && vb:
		switch op {
		case bAdd:
			asm.AddF32(o, a, b)
		case bSub:
			asm.SubF32(o, a, b)
		case bMul:
			asm.MulF32(o, a, b)
		case bDiv:
			asm.DivF32(o, a, b)
		}
	case va:
		s := b[0]
		switch op {
		case bAdd:
			asm.AddScalarF32(o, a, s)
		case bSub:
			asm.SubScalarF32(o, a, s)
		case bMul:
			asm.MulScalarF32(o, a, s)
		case bDiv:
			asm.DivScalarF32(o, a, s)
		}
	default:
		s := a[0]
		switch op {
		case bAdd:
			asm.AddScalarF32(o, b, s)
		case bSub:
			asm.RSubScalarF32(o, b, s)
		case bMul:
			asm.MulScalarF32(o, b, s)
		case bDiv:
			asm.RDivScalarF32(o, b, s)
		}
	}
}

// f32Unary is floatUnary's float32 path; it reports false for ops it does
// not accelerate.
func f32Unary(op uop, o, x []float32) bool {
	x = x[:len(o)]
	switch op {
	case uRelu:
		asm.ReluF32(o, x)
	case uSquare:
		asm.MulF32(o, x, x)
	case uExp:
		asm.ExpF32(o, x)
	case uTanh:
		asm.TanhF32(o, x)
	case uErf:
		asm.ErfF32(o, x)
	case uSigmoid:
		asm.SigmoidF32(o, x)
	case uGelu: // x * (0.5 + 0.5 erf(x / sqrt 2)), one pass
		asm.GeluF32(o, x)
	case uSilu: // sigmoid(x) * x
		asm.SiluF32(o, x)
	case uXSigmoid: // x * sigmoid(x)
		asm.XSigmoidF32(o, x)
	case uGeluTanh:
		var buf [chunk32]float32
		for lo := 0; lo < len(o); lo += chunk32 {
			hi := min(lo+chunk32, len(o))
			t, xs := buf[:hi-lo], x[lo:hi]
			// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
			asm.MulF32(t, xs, xs)
			asm.MulScalarF32(t, t, 0.044715)
			asm.AddScalarF32(t, t, 1)
			asm.MulF32(t, t, xs)
			asm.MulScalarF32(t, t, sqrt2pi)
			asm.TanhF32(t, t)
			asm.MulScalarF32(t, t, 0.5)
			asm.AddScalarF32(t, t, 0.5)
			asm.MulF32(o[lo:hi], t, xs)
		}
	default:
		return false
	}
	return true
}

// softmaxRowF32 computes softmax or log-softmax of one contiguous row.
func softmaxRowF32(log bool, o, x []float32) {
	x = x[:len(o)]
	// The maximum's zero sign is not fixed, which changes no bit here: m
	// is only subtracted (x-m and m+log s are the same values either way,
	// and exp(+0) = exp(-0)).
	m, odd := softmaxMax(x)
	if odd {
		softmaxRowScalar(log, o, x)
		return
	}
	if !log {
		asm.SubScalarF32(o, x, m)
		asm.ExpF32(o, o)
		s := sum32(o)
		asm.MulScalarF32(o, o, 1/s)
		return
	}
	var buf [logSoftmaxChunk]float32
	var s float32
	for lo := 0; lo < len(x); lo += logSoftmaxChunk {
		hi := min(lo+logSoftmaxChunk, len(x))
		t := buf[:hi-lo]
		asm.SubScalarF32(t, x[lo:hi], m)
		asm.ExpF32(t, t)
		s += sum32(t)
	}
	asm.SubScalarF32(o, x, m+float32(math.Log(float64(s))))
}

// softmaxShortRow is the row length below which softmaxBlock takes
// softmaxRowsF32 (as it does from there on for the lengths
// asm.SoftmaxRowsF32 takes): four asm calls per row cost more than the
// row's work (dynamic_batch's 8-class softmax).
const softmaxShortRow = 64

// softmaxRowsF32 is softmaxRowF32 (not log) on consecutive rows of n
// values, with one asm.ExpF32 call for all of them: per row the maximum,
// x-m and the scaling by 1/sum are the same float32 operations as
// softmaxRowF32's SubScalarF32 and MulScalarF32 (written as Go loops), the
// exponentials are elementwise and the sums per row, so every bit is
// softmaxRowF32's. Rows whose maximum is NaN or infinite take
// softmaxRowScalar, as there.
func softmaxRowsF32(o, x []float32, n int) {
	if n == 0 {
		return
	}
	x = x[:len(o)]
	// A row a vector in one pass (asm.SoftmaxSmallF32), or rows of 16 to
	// 504, a multiple of 8, in one call (asm.SoftmaxRowsF32): these steps,
	// rounded alike; rows they stop at take softmaxRowScalar. The second,
	// on an attention's score rows, AVX2 AMD EPYC, minimum of eight
	// alternated runs: 128 rows of 32 9.9 -> 5.4 µs; with the kernel's
	// masked-lane loop, under a causal mask's -Inf (whose exp takes a
	// microcode assist) 10.1 -> 5.4; BenchmarkSoftmaxAttention, 4 heads of
	// 128 tokens (rows that took softmaxRowF32 before), 395 -> 364 µs.
	var rowsCall func(o, x []float32, n int) int
	switch {
	case n <= asm.SoftmaxSmallMax():
		rowsCall = asm.SoftmaxSmallF32
	case asm.SoftmaxRowsOK(n):
		rowsCall = asm.SoftmaxRowsF32
	}
	if rowsCall != nil {
		for r := 0; r < len(o); {
			r += n * rowsCall(o[r:], x[r:], n)
			if r < len(o) {
				softmaxRowScalar(false, o[r:r+n], x[r:r+n])
				r += n
			}
		}
		return
	}
	special := false
	for r := 0; r < len(o); r += n {
		xr, or := x[r:r+n], o[r:r+n]
		m, odd := softmaxMax(xr)
		if odd {
			special = true
			continue
		}
		for i, v := range xr {
			or[i] = v - m
		}
	}
	asm.ExpF32(o, o)
	for r := 0; r < len(o); r += n {
		xr, or := x[r:r+n], o[r:r+n]
		if special {
			if _, odd := softmaxMax(xr); odd {
				softmaxRowScalar(false, or, xr)
				continue
			}
		}
		inv := 1 / sum32(or)
		for i := range or {
			or[i] *= inv
		}
	}
}

// softmaxMax returns a softmax row's maximum, up to the sign of a zero
// maximum (which changes no result: it is only subtracted, and exp(+0) =
// exp(-0)), and whether the row takes softmaxRowScalar (a NaN, or an
// infinite maximum). Rows of a vector or more take asm.MaxRowF32.
func softmaxMax(x []float32) (m float32, odd bool) {
	if len(x) >= 16 {
		m, nan := asm.MaxRowF32(x)
		return m, nan || math.IsInf(float64(m), 0)
	}
	m = maxFast32(x)
	return m, m != m || math.IsInf(float64(m), 0)
}

// maxExpSum returns the plain softmax loops' maximum of x (NaN wins) and
// the float64 sum of exp(x-m).
func maxExpSum[T floating](x []T) (m T, s float64) {
	m = x[0]
	for _, v := range x[1:] {
		if v > m || v != v {
			m = v
		}
	}
	for _, v := range x {
		s += math.Exp(float64(v - m))
	}
	return m, s
}

// softmaxRowScalar is the plain loop used for rows holding NaN or infinities.
func softmaxRowScalar(log bool, o, x []float32) {
	m, s := maxExpSum(x)
	for i, v := range x {
		if log {
			o[i] = float32(float64(v-m) - math.Log(s))
		} else {
			o[i] = float32(math.Exp(float64(v-m)) / s)
		}
	}
}

// normRowF32 computes one layer_norm (b != nil) or rms_norm row.
func normRowF32(o, x, g, b []float32, eps float64, rms bool) {
	m := float32(len(x))
	if rms {
		ss := dot32(x, x)
		inv := float32(1 / math.Sqrt(float64(ss/m)+eps))
		asm.MulScalarF32(o, x, inv)
		asm.MulF32(o, o, g)
		return
	}
	mean := sum32(x) / m
	asm.SubScalarF32(o, x, mean)
	v := dot32(o, o) / m
	inv := float32(1 / math.Sqrt(float64(v)+eps))
	asm.ScaleMulAddF32(o, o, inv, g, b)
}
