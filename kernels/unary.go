package kernels

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// uop identifies a unary elementwise operator.
type uop uint8

const (
	uAbs uop = iota
	uNeg
	uSign
	uSquare
	uFloor
	uCeil
	uRound
	uTrunc
	uRelu
	uClip      // params: lo, hi
	uLeakyRelu // param: alpha
	uBitNot
	// float-only from here
	uExp
	uLog
	uSqrt
	uRsqrt
	uSin
	uCos
	uTan
	uSinh
	uCosh
	uAsin
	uAcos
	uAtan
	uAsinh
	uAcosh
	uAtanh
	uTanh
	uSigmoid
	uErf
	uGelu
	uGeluTanh
	uSilu
	// uXSigmoid is x * sigmoid(x) with x the product's first operand (an
	// exported SiLU's Mul(x, Sigmoid(x)); uSilu's product has the
	// sigmoid first): only a chain step (EwChainXSigmoid).
	uXSigmoid
	uSoftplus // params: beta, threshold
	// bool output
	uIsNaN
	uIsInf
	uIsFinite
	// bool input and output
	uNot
	numUops
)

var uopNames = [numUops]string{
	uAbs: "abs", uNeg: "negative", uSign: "sign", uSquare: "square",
	uFloor: "floor", uCeil: "ceil", uRound: "round", uTrunc: "trunc",
	uRelu: "nn.relu", uClip: "clip", uLeakyRelu: "nn.leakyrelu", uBitNot: "bitwise_not",
	uExp: "exp", uLog: "log", uSqrt: "sqrt", uRsqrt: "rsqrt",
	uSin: "sin", uCos: "cos", uTan: "tan", uSinh: "sinh", uCosh: "cosh",
	uAsin: "asin", uAcos: "acos", uAtan: "atan", uAsinh: "asinh", uAcosh: "acosh", uAtanh: "atanh",
	uTanh: "tanh", uSigmoid: "sigmoid", uErf: "erf",
	uGelu: "nn.gelu", uGeluTanh: "nn.gelu_tanh", uSilu: "nn.silu", uXSigmoid: "x*sigmoid(x)", uSoftplus: "nn.softplus",
	uIsNaN: "isnan", uIsInf: "isinf", uIsFinite: "isfinite", uNot: "logical_not",
}

func (op uop) floatOnly() bool { return op >= uExp && op <= uSoftplus }
func (op uop) boolOut() bool   { return op >= uIsNaN }

// Abs computes |x|.
func Abs(out, x *runtime.Tensor) error { return unary(uAbs, out, x, 0, 0) }

// Negative computes -x.
func Negative(out, x *runtime.Tensor) error { return unary(uNeg, out, x, 0, 0) }

// Sign computes -1, 0 or 1 by the sign of x (NaN stays NaN).
func Sign(out, x *runtime.Tensor) error { return unary(uSign, out, x, 0, 0) }

// Square computes x * x.
func Square(out, x *runtime.Tensor) error { return unary(uSquare, out, x, 0, 0) }

// Floor rounds toward -inf (identity on integers).
func Floor(out, x *runtime.Tensor) error { return unary(uFloor, out, x, 0, 0) }

// Ceil rounds toward +inf (identity on integers).
func Ceil(out, x *runtime.Tensor) error { return unary(uCeil, out, x, 0, 0) }

// Round rounds half to even, as NumPy and LLVM's nearbyint do.
func Round(out, x *runtime.Tensor) error { return unary(uRound, out, x, 0, 0) }

// Trunc rounds toward zero.
func Trunc(out, x *runtime.Tensor) error { return unary(uTrunc, out, x, 0, 0) }

// Relu computes max(x, 0).
func Relu(out, x *runtime.Tensor) error { return unary(uRelu, out, x, 0, 0) }

// Clip computes min(max(x, lo), hi).
func Clip(out, x *runtime.Tensor, lo, hi float64) error { return unary(uClip, out, x, lo, hi) }

// LeakyRelu computes x > 0 ? x : alpha * x.
func LeakyRelu(out, x *runtime.Tensor, alpha float64) error {
	return unary(uLeakyRelu, out, x, alpha, 0)
}

// BitwiseNot computes ^x for integers (logical not for bool).
func BitwiseNot(out, x *runtime.Tensor) error { return unary(uBitNot, out, x, 0, 0) }

// Exp computes e**x.
func Exp(out, x *runtime.Tensor) error { return unary(uExp, out, x, 0, 0) }

// Log computes the natural logarithm.
func Log(out, x *runtime.Tensor) error { return unary(uLog, out, x, 0, 0) }

// Sqrt computes the square root.
func Sqrt(out, x *runtime.Tensor) error { return unary(uSqrt, out, x, 0, 0) }

// Rsqrt computes 1 / sqrt(x).
func Rsqrt(out, x *runtime.Tensor) error { return unary(uRsqrt, out, x, 0, 0) }

// Sin computes sin(x).
func Sin(out, x *runtime.Tensor) error { return unary(uSin, out, x, 0, 0) }

// Cos computes cos(x).
func Cos(out, x *runtime.Tensor) error { return unary(uCos, out, x, 0, 0) }

// Tan computes tan(x).
func Tan(out, x *runtime.Tensor) error { return unary(uTan, out, x, 0, 0) }

// Tanh computes tanh(x).
func Tanh(out, x *runtime.Tensor) error { return unary(uTanh, out, x, 0, 0) }

// Sigmoid computes 1 / (1 + exp(-x)).
func Sigmoid(out, x *runtime.Tensor) error { return unary(uSigmoid, out, x, 0, 0) }

// Erf computes the error function.
func Erf(out, x *runtime.Tensor) error { return unary(uErf, out, x, 0, 0) }

// Gelu computes x * (0.5 + 0.5 * erf(x / sqrt(2))) (Relax's nn.gelu).
func Gelu(out, x *runtime.Tensor) error { return unary(uGelu, out, x, 0, 0) }

// GeluTanh computes 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
func GeluTanh(out, x *runtime.Tensor) error { return unary(uGeluTanh, out, x, 0, 0) }

// Silu computes x * sigmoid(x).
func Silu(out, x *runtime.Tensor) error { return unary(uSilu, out, x, 0, 0) }

// Softplus computes log(1 + exp(beta x)) / beta, or x where beta x > threshold.
func Softplus(out, x *runtime.Tensor, beta, threshold float64) error {
	return unary(uSoftplus, out, x, beta, threshold)
}

// IsNaN reports NaN elements (false for integers).
func IsNaN(out, x *runtime.Tensor) error { return unary(uIsNaN, out, x, 0, 0) }

// IsInf reports infinite elements (false for integers).
func IsInf(out, x *runtime.Tensor) error { return unary(uIsInf, out, x, 0, 0) }

// IsFinite reports finite elements (true for integers).
func IsFinite(out, x *runtime.Tensor) error { return unary(uIsFinite, out, x, 0, 0) }

// LogicalNot computes !x for bool tensors.
func LogicalNot(out, x *runtime.Tensor) error { return unary(uNot, out, x, 0, 0) }

// unary validates and runs one elementwise op; pa and pb are its float params.
func unary(op uop, out, x *runtime.Tensor, pa, pb float64) error {
	name := uopNames[op]
	if out == nil || x == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	dt := x.DType()
	odt := dt
	if op.boolOut() {
		odt = runtime.Bool
	}
	if err := checkOut(name, out, x.Shape(), odt); err != nil {
		return err
	}
	n := int(x.NumElements())
	if n == 0 {
		return nil
	}
	if op == uNot || (op == uBitNot && dt == runtime.Bool) {
		if dt != runtime.Bool {
			return fmt.Errorf("%s: input must be bool, got %s", name, dt)
		}
		o, v := elems[bool](out), elems[bool](x)
		for i := range o {
			o[i] = !v[i]
		}
		return nil
	}
	if op.boolOut() {
		o := elems[bool](out)
		switch dt {
		case runtime.Float32:
			floatPred(op, o, elems[float32](x))
		case runtime.Float64:
			floatPred(op, o, elems[float64](x))
		case runtime.Float16:
			h := elems[uint16](x)
			for i, v := range h {
				e, m := v&0x7c00, v&0x3ff
				switch op {
				case uIsNaN:
					o[i] = e == 0x7c00 && m != 0
				case uIsInf:
					o[i] = e == 0x7c00 && m == 0
				default:
					o[i] = e != 0x7c00
				}
			}
		default:
			for i := range o {
				o[i] = op == uIsFinite
			}
		}
		return nil
	}
	switch dt {
	case runtime.Float32:
		if op == uBitNot {
			break
		}
		runUnary(op, elems[float32](out), elems[float32](x), pa, pb, floatUnary[float32])
		return nil
	case runtime.Float64:
		if op == uBitNot {
			break
		}
		runUnary(op, elems[float64](out), elems[float64](x), pa, pb, floatUnary[float64])
		return nil
	case runtime.Float16:
		if op == uBitNot {
			break
		}
		// widen in bounded chunks so large tensors use bounded scratch
		const chunk = 4096
		var a, b [chunk]float32
		h, o := elems[uint16](x), elems[uint16](out)
		for lo := 0; lo < n; lo += chunk {
			hi := min(lo+chunk, n)
			halfToF32(a[:hi-lo], h[lo:hi])
			floatUnary(op, b[:hi-lo], a[:hi-lo], pa, pb)
			f32ToHalf(o[lo:hi], b[:hi-lo])
		}
		return nil
	}
	if op.floatOnly() {
		return fmt.Errorf("%s: requires a float dtype, got %s", name, dt)
	}
	switch dt {
	case runtime.Int8:
		runUnary(op, elems[int8](out), elems[int8](x), pa, pb, intUnary[int8])
	case runtime.Int16:
		runUnary(op, elems[int16](out), elems[int16](x), pa, pb, intUnary[int16])
	case runtime.Int32:
		runUnary(op, elems[int32](out), elems[int32](x), pa, pb, intUnary[int32])
	case runtime.Int64:
		runUnary(op, elems[int64](out), elems[int64](x), pa, pb, intUnary[int64])
	case runtime.UInt8:
		runUnary(op, elems[uint8](out), elems[uint8](x), pa, pb, intUnary[uint8])
	case runtime.UInt16:
		runUnary(op, elems[uint16](out), elems[uint16](x), pa, pb, intUnary[uint16])
	case runtime.UInt32:
		runUnary(op, elems[uint32](out), elems[uint32](x), pa, pb, intUnary[uint32])
	case runtime.UInt64:
		runUnary(op, elems[uint64](out), elems[uint64](x), pa, pb, intUnary[uint64])
	default:
		return fmt.Errorf("%s: unsupported dtype %s", name, dt)
	}
	return nil
}

// runUnary applies f over the elements, in parallel chunks for large inputs.
// f must be a top-level function so that serial calls do not allocate.
func runUnary[T any](op uop, o, x []T, pa, pb float64, f func(uop, []T, []T, float64, float64)) {
	n := len(o)
	threshold, grain := parLimits(op.floatOnly())
	if n < threshold || NumThreads() <= 1 {
		f(op, o, x, pa, pb)
		return
	}
	pool := poolFor[unaryJob[T]]()
	j := pool.Get()
	j.op, j.o, j.x, j.pa, j.pb, j.f = op, o, x, pa, pb, f
	parFor(n, grain, j.fn)
	j.o, j.x, j.f = nil, nil, nil
	pool.Put(j)
}

func floatPred[T floating](op uop, o []bool, x []T) {
	x = x[:len(o)]
	for i, v := range x {
		f := float64(v)
		switch op {
		case uIsNaN:
			o[i] = v != v
		case uIsInf:
			o[i] = math.IsInf(f, 0)
		default:
			o[i] = !math.IsNaN(f) && !math.IsInf(f, 0)
		}
	}
}

// floatUnary computes op over x into o for float32 or float64.
func floatUnary[T floating](op uop, o, x []T, pa, pb float64) {
	x = x[:len(o)]
	if isF32[T]() && f32Unary(op, as32(o), as32(x)) {
		return
	}
	switch op {
	case uAbs:
		for i, v := range x {
			o[i] = T(math.Abs(float64(v)))
		}
	case uNeg:
		for i, v := range x {
			o[i] = -v
		}
	case uSign:
		for i, v := range x {
			switch {
			case v > 0:
				o[i] = 1
			case v < 0:
				o[i] = -1
			default:
				o[i] = v // 0, -0 and NaN
			}
		}
	case uSquare:
		for i, v := range x {
			o[i] = v * v
		}
	case uFloor:
		for i, v := range x {
			o[i] = T(math.Floor(float64(v)))
		}
	case uCeil:
		for i, v := range x {
			o[i] = T(math.Ceil(float64(v)))
		}
	case uRound:
		for i, v := range x {
			o[i] = T(math.RoundToEven(float64(v)))
		}
	case uTrunc:
		for i, v := range x {
			o[i] = T(math.Trunc(float64(v)))
		}
	case uRelu:
		for i, v := range x {
			if v > 0 {
				o[i] = v
			} else if v == v {
				o[i] = 0
			} else {
				o[i] = v
			}
		}
	case uClip:
		lo, hi := T(pa), T(pb)
		for i, v := range x {
			if v < lo {
				v = lo
			}
			if v > hi {
				v = hi
			}
			o[i] = v
		}
	case uLeakyRelu:
		a := T(pa)
		if isF32[T]() {
			// The same branch and multiply, without the branch's
			// misprediction on mixed signs (7 ns an element).
			asm.LeakyReluF32(as32(o), as32(x), float32(a))
			return
		}
		for i, v := range x {
			if v > 0 {
				o[i] = v
			} else {
				o[i] = v * a
			}
		}
	case uExp:
		for i, v := range x {
			o[i] = T(math.Exp(float64(v)))
		}
	case uLog:
		for i, v := range x {
			o[i] = T(math.Log(float64(v)))
		}
	case uSqrt:
		for i, v := range x {
			o[i] = T(math.Sqrt(float64(v)))
		}
	case uRsqrt:
		for i, v := range x {
			o[i] = T(1 / math.Sqrt(float64(v)))
		}
	case uSin:
		mapF(o, x, math.Sin)
	case uCos:
		mapF(o, x, math.Cos)
	case uTan:
		mapF(o, x, math.Tan)
	case uSinh:
		mapF(o, x, math.Sinh)
	case uCosh:
		mapF(o, x, math.Cosh)
	case uAsin:
		mapF(o, x, math.Asin)
	case uAcos:
		mapF(o, x, math.Acos)
	case uAtan:
		mapF(o, x, math.Atan)
	case uAsinh:
		mapF(o, x, math.Asinh)
	case uAcosh:
		mapF(o, x, math.Acosh)
	case uAtanh:
		mapF(o, x, math.Atanh)
	case uTanh:
		mapF(o, x, math.Tanh)
	case uSigmoid:
		for i, v := range x {
			o[i] = T(1 / (1 + math.Exp(-float64(v))))
		}
	case uErf:
		mapF(o, x, math.Erf)
	case uGelu:
		for i, v := range x {
			f := float64(v)
			o[i] = T(f * (0.5 + 0.5*math.Erf(f*math.Sqrt2/2)))
		}
	case uGeluTanh:
		const c = 0.7978845608028654 // sqrt(2/pi)
		for i, v := range x {
			f := float64(v)
			o[i] = T(0.5 * f * (1 + math.Tanh(c*(f+0.044715*f*f*f))))
		}
	case uSilu, uXSigmoid:
		for i, v := range x {
			f := float64(v)
			o[i] = T(f / (1 + math.Exp(-f)))
		}
	case uSoftplus:
		beta, thr := pa, pb
		for i, v := range x {
			f := float64(v)
			if f*beta > thr {
				o[i] = v
			} else {
				o[i] = T(math.Log1p(math.Exp(beta*f)) / beta)
			}
		}
	}
}

// mapF applies a float64 function elementwise.
func mapF[T floating](o, x []T, f func(float64) float64) {
	x = x[:len(o)]
	for i, v := range x {
		o[i] = T(f(float64(v)))
	}
}

// intUnary computes op over integer x into o.
func intUnary[T integer](op uop, o, x []T, pa, pb float64) {
	x = x[:len(o)]
	var zero T
	switch op {
	case uAbs:
		for i, v := range x {
			if v < zero {
				v = -v
			}
			o[i] = v
		}
	case uNeg:
		for i, v := range x {
			o[i] = -v
		}
	case uSign:
		for i, v := range x {
			switch {
			case v > zero:
				o[i] = 1
			case v < zero:
				o[i] = zero - 1
			default:
				o[i] = 0
			}
		}
	case uSquare:
		for i, v := range x {
			o[i] = v * v
		}
	case uFloor, uCeil, uRound, uTrunc:
		copy(o, x)
	case uRelu:
		for i, v := range x {
			o[i] = max(v, zero)
		}
	case uClip:
		for i, v := range x {
			f := float64(v)
			switch {
			case f < pa:
				o[i] = T(math.Ceil(pa))
			case f > pb:
				o[i] = T(math.Floor(pb))
			default:
				o[i] = v
			}
		}
	case uLeakyRelu:
		for i, v := range x {
			if v > zero {
				o[i] = v
			} else {
				o[i] = T(float64(v) * pa)
			}
		}
	case uBitNot:
		for i, v := range x {
			o[i] = ^v
		}
	}
}

func init() {
	for op := uop(0); op < numUops; op++ {
		if op == uXSigmoid {
			continue // a chain step, not a Relax operator
		}
		op := op
		name := uopNames[op]
		full := Prefix + name
		switch op {
		case uClip:
			register(name, "x, min (float64 or int64), max, out", func(args []runtime.Value) (runtime.Value, error) {
				p := newArgs("kernels.clip", args)
				p.count(4)
				x, lo, hi, out := p.tensor(0), p.float(1), p.float(2), p.tensor(3)
				if p.err != nil {
					return nil, p.err
				}
				return nil, wrapErr(unary(uClip, out, x, lo, hi))
			})
		case uLeakyRelu:
			register(name, "x, alpha (float64), out", func(args []runtime.Value) (runtime.Value, error) {
				p := newArgs("kernels.nn.leakyrelu", args)
				p.count(3)
				x, alpha, out := p.tensor(0), p.float(1), p.tensor(2)
				if p.err != nil {
					return nil, p.err
				}
				return nil, wrapErr(unary(uLeakyRelu, out, x, alpha, 0))
			})
		case uSoftplus:
			register(name, "x, beta (float64), threshold (float64), out", func(args []runtime.Value) (runtime.Value, error) {
				p := newArgs("kernels.nn.softplus", args)
				p.count(4)
				x, beta, thr, out := p.tensor(0), p.float(1), p.float(2), p.tensor(3)
				if p.err != nil {
					return nil, p.err
				}
				return nil, wrapErr(unary(uSoftplus, out, x, beta, thr))
			})
		default:
			register(name, "x, out", func(args []runtime.Value) (runtime.Value, error) {
				p := newArgs(full, args)
				p.count(2)
				x, out := p.tensor(0), p.tensor(1)
				if p.err != nil {
					return nil, p.err
				}
				return nil, wrapErr(unary(op, out, x, 0, 0))
			})
		}
	}
}

// wrapErr prefixes a kernel error with the package name ("kernels.add: ...").
// It returns nil for nil so that hot paths do not allocate.
func wrapErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("kernels.%w", err)
}
