package kernels

import (
	"fmt"
	"math"
	"slices"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// bop identifies a binary elementwise operator.
type bop uint8

const (
	bAdd bop = iota
	bSub
	bMul
	bDiv
	bFloorDiv
	bFloorMod
	bPow
	bMax
	bMin
	bMod
	bAtan2
	bLogAddExp
	bBitAnd
	bBitOr
	bBitXor
	bShl
	bShr
	// comparisons (bool output)
	bEq
	bNe
	bLt
	bLe
	bGt
	bGe
	// logical (bool inputs and output)
	bAnd
	bOr
	bXor
)

var bopNames = [...]string{
	bAdd: "add", bSub: "subtract", bMul: "multiply", bDiv: "divide",
	bFloorDiv: "floor_divide", bFloorMod: "floor_mod", bPow: "power",
	bMax: "maximum", bMin: "minimum", bMod: "mod", bAtan2: "atan2", bLogAddExp: "log_add_exp",
	bBitAnd: "bitwise_and", bBitOr: "bitwise_or", bBitXor: "bitwise_xor",
	bShl: "left_shift", bShr: "right_shift",
	bEq: "equal", bNe: "not_equal", bLt: "less", bLe: "less_equal",
	bGt: "greater", bGe: "greater_equal",
	bAnd: "logical_and", bOr: "logical_or", bXor: "logical_xor",
}

func (op bop) isCmp() bool   { return op >= bEq && op <= bGe }
func (op bop) isLogic() bool { return op >= bAnd }

// Add computes out = a + b with NumPy broadcasting.
func Add(out, a, b *runtime.Tensor) error { return binary(bAdd, out, a, b) }

// Subtract computes out = a - b with broadcasting.
func Subtract(out, a, b *runtime.Tensor) error { return binary(bSub, out, a, b) }

// Multiply computes out = a * b with broadcasting.
func Multiply(out, a, b *runtime.Tensor) error { return binary(bMul, out, a, b) }

// Divide computes out = a / b with broadcasting (truncating for integers;
// integer division by zero gives 0).
func Divide(out, a, b *runtime.Tensor) error { return binary(bDiv, out, a, b) }

// FloorDivide computes out = floor(a / b) with broadcasting.
func FloorDivide(out, a, b *runtime.Tensor) error { return binary(bFloorDiv, out, a, b) }

// FloorMod computes out = a - floor(a / b) * b (result has b's sign).
func FloorMod(out, a, b *runtime.Tensor) error { return binary(bFloorMod, out, a, b) }

// Mod computes the truncated remainder (C fmod), with broadcasting.
func Mod(out, a, b *runtime.Tensor) error { return binary(bMod, out, a, b) }

// Power computes out = a ** b with broadcasting.
func Power(out, a, b *runtime.Tensor) error { return binary(bPow, out, a, b) }

// Maximum computes the elementwise maximum with broadcasting.
func Maximum(out, a, b *runtime.Tensor) error { return binary(bMax, out, a, b) }

// Minimum computes the elementwise minimum with broadcasting.
func Minimum(out, a, b *runtime.Tensor) error { return binary(bMin, out, a, b) }

// Atan2 computes atan2(a, b) elementwise (floats) with broadcasting.
func Atan2(out, a, b *runtime.Tensor) error { return binary(bAtan2, out, a, b) }

// LogAddExp computes log(exp(a) + exp(b)) for floats, as max(a, b) +
// log1p(exp(-|a - b|)) so large inputs do not overflow.
func LogAddExp(out, a, b *runtime.Tensor) error { return binary(bLogAddExp, out, a, b) }

// LeftShift computes a << b for integers (0 for negative shift counts).
func LeftShift(out, a, b *runtime.Tensor) error { return binary(bShl, out, a, b) }

// RightShift computes a >> b for integers, arithmetic for signed types (0 for
// negative shift counts).
func RightShift(out, a, b *runtime.Tensor) error { return binary(bShr, out, a, b) }

// BitwiseAnd computes a & b for integer or bool tensors.
func BitwiseAnd(out, a, b *runtime.Tensor) error { return binary(bBitAnd, out, a, b) }

// BitwiseOr computes a | b for integer or bool tensors.
func BitwiseOr(out, a, b *runtime.Tensor) error { return binary(bBitOr, out, a, b) }

// BitwiseXor computes a ^ b for integer or bool tensors.
func BitwiseXor(out, a, b *runtime.Tensor) error { return binary(bBitXor, out, a, b) }

// Equal computes the bool tensor a == b with broadcasting.
func Equal(out, a, b *runtime.Tensor) error { return binary(bEq, out, a, b) }

// NotEqual computes the bool tensor a != b with broadcasting.
func NotEqual(out, a, b *runtime.Tensor) error { return binary(bNe, out, a, b) }

// Less computes the bool tensor a < b with broadcasting.
func Less(out, a, b *runtime.Tensor) error { return binary(bLt, out, a, b) }

// LessEqual computes the bool tensor a <= b with broadcasting.
func LessEqual(out, a, b *runtime.Tensor) error { return binary(bLe, out, a, b) }

// Greater computes the bool tensor a > b with broadcasting.
func Greater(out, a, b *runtime.Tensor) error { return binary(bGt, out, a, b) }

// GreaterEqual computes the bool tensor a >= b with broadcasting.
func GreaterEqual(out, a, b *runtime.Tensor) error { return binary(bGe, out, a, b) }

// LogicalAnd computes a && b for bool tensors with broadcasting.
func LogicalAnd(out, a, b *runtime.Tensor) error { return binary(bAnd, out, a, b) }

// LogicalOr computes a || b for bool tensors with broadcasting.
func LogicalOr(out, a, b *runtime.Tensor) error { return binary(bOr, out, a, b) }

// LogicalXor computes a != b for bool tensors with broadcasting.
func LogicalXor(out, a, b *runtime.Tensor) error { return binary(bXor, out, a, b) }

// binary validates and runs one broadcast binary op.
func binary(op bop, out, a, b *runtime.Tensor) error {
	name := bopNames[op]
	if err := checkRank(name, out, a, b); err != nil {
		return err
	}
	dt := a.DType()
	if b.DType() != dt {
		return fmt.Errorf("%s: operand dtypes differ: %s and %s", name, dt, b.DType())
	}
	// Float32 arithmetic on three tensors of one shape, small enough for one
	// thread: one row, the row function the plan would reach (the same
	// bits), without broadcasting shapes or building the plan (add_self
	// compiled 139 → 120 ns).
	if dt == runtime.Float32 && op <= bDiv && out.DType() == dt && slices.Equal(a.Shape(), b.Shape()) && slices.Equal(a.Shape(), out.Shape()) {
		if n := out.NumElements(); n < parThreshold {
			f32Row(op, elems[float32](out), elems[float32](a), elems[float32](b))
			return nil
		}
	}
	var buf [maxRank]int64
	oshape, err := broadcastShape(name, buf[:0], a.Shape(), b.Shape())
	if err != nil {
		return err
	}
	odt := dt
	if op.isCmp() || op.isLogic() {
		odt = runtime.Bool
	}
	if err := checkOut(name, out, oshape, odt); err != nil {
		return err
	}
	n := out.NumElements()
	if n == 0 {
		return nil
	}
	// A float32 power by a one-element exponent of 2 (x.pow(2) in a
	// decomposed layer norm or an RMS norm) is x*x: math.Pow(x, 2) squares
	// x exactly in float64 (a float32's square fits), so rounding it to
	// float32 gives the float32 product's bits, NaN payloads aside; the
	// general loop's math.Pow took ~25 ns an element (BenchmarkOpMisc/pow2).
	if op == bPow && dt == runtime.Float32 && b.NumElements() == 1 && a.NumElements() == n && elems[float32](b)[0] == 2 {
		x := elems[float32](a)
		asm.MulF32(elems[float32](out), x, x)
		return nil
	}
	// Equal sizes, one of them broadcast without changing the count (a
	// shape of ones added), or one operand a single element: the same single
	// row (f32Row repeats a one-element operand).
	if na, nb := a.NumElements(), b.NumElements(); dt == runtime.Float32 && op <= bDiv && n < parThreshold && (na == n || na == 1) && (nb == n || nb == 1) {
		f32Row(op, elems[float32](out), elems[float32](a), elems[float32](b))
		return nil
	}
	if dt == runtime.Float32 && op <= bDiv && binRowsOn {
		if x, c, rev, ok := perRowOperand(oshape, a, b); ok {
			code := 2 * int(op)
			if rev {
				code++
			}
			ops := [1]*runtime.Tensor{c}
			return ewChain(out, x, ewOneStep[code:code+1], ops[:])
		}
	}
	if op.isLogic() {
		if dt != runtime.Bool {
			return fmt.Errorf("%s: operands must be bool, got %s", name, dt)
		}
		p := makePlan(oshape, a.Shape(), b.Shape())
		runBin(op, &p, elems[bool](out), elems[bool](a), elems[bool](b), logicRow)
		return nil
	}
	if dt == runtime.Float16 {
		return viaFloat32(out, []*runtime.Tensor{a, b}, func(o *runtime.Tensor, in []*runtime.Tensor) error {
			return binary(op, o, in[0], in[1])
		})
	}
	p := makePlan(oshape, a.Shape(), b.Shape())
	if op.isCmp() {
		ob := elems[bool](out)
		switch dt {
		case runtime.Float32:
			cmpRun(op, &p, ob, elems[float32](a), elems[float32](b))
		case runtime.Float64:
			cmpRun(op, &p, ob, elems[float64](a), elems[float64](b))
		case runtime.Int8:
			cmpRun(op, &p, ob, elems[int8](a), elems[int8](b))
		case runtime.Int16:
			cmpRun(op, &p, ob, elems[int16](a), elems[int16](b))
		case runtime.Int32:
			cmpRun(op, &p, ob, elems[int32](a), elems[int32](b))
		case runtime.Int64:
			cmpRun(op, &p, ob, elems[int64](a), elems[int64](b))
		case runtime.UInt8:
			cmpRun(op, &p, ob, elems[uint8](a), elems[uint8](b))
		case runtime.UInt16:
			cmpRun(op, &p, ob, elems[uint16](a), elems[uint16](b))
		case runtime.UInt32:
			cmpRun(op, &p, ob, elems[uint32](a), elems[uint32](b))
		case runtime.UInt64:
			cmpRun(op, &p, ob, elems[uint64](a), elems[uint64](b))
		case runtime.Bool:
			cmpRun(op, &p, ob, elems[uint8](a), elems[uint8](b))
		default:
			return fmt.Errorf("%s: unsupported dtype %s", name, dt)
		}
		return nil
	}
	switch dt {
	case runtime.Float32:
		if op >= bBitAnd {
			break
		}
		o, x, y := elems[float32](out), elems[float32](a), elems[float32](b)
		runBin(op, &p, o, x, y, floatRow[float32])
		return nil
	case runtime.Float64:
		if op >= bBitAnd {
			break
		}
		o, x, y := elems[float64](out), elems[float64](a), elems[float64](b)
		runBin(op, &p, o, x, y, floatRow[float64])
		return nil
	case runtime.Int8:
		return intBinary(op, &p, elems[int8](out), elems[int8](a), elems[int8](b))
	case runtime.Int16:
		return intBinary(op, &p, elems[int16](out), elems[int16](a), elems[int16](b))
	case runtime.Int32:
		return intBinary(op, &p, elems[int32](out), elems[int32](a), elems[int32](b))
	case runtime.Int64:
		return intBinary(op, &p, elems[int64](out), elems[int64](a), elems[int64](b))
	case runtime.UInt8:
		return intBinary(op, &p, elems[uint8](out), elems[uint8](a), elems[uint8](b))
	case runtime.UInt16:
		return intBinary(op, &p, elems[uint16](out), elems[uint16](a), elems[uint16](b))
	case runtime.UInt32:
		return intBinary(op, &p, elems[uint32](out), elems[uint32](a), elems[uint32](b))
	case runtime.UInt64:
		return intBinary(op, &p, elems[uint64](out), elems[uint64](a), elems[uint64](b))
	case runtime.Bool:
		switch op {
		case bBitAnd, bMul, bMin:
			runBin(bAnd, &p, elems[bool](out), elems[bool](a), elems[bool](b), logicRow)
			return nil
		case bBitOr, bAdd, bMax:
			runBin(bOr, &p, elems[bool](out), elems[bool](a), elems[bool](b), logicRow)
			return nil
		case bBitXor:
			runBin(bXor, &p, elems[bool](out), elems[bool](a), elems[bool](b), logicRow)
			return nil
		}
	}
	return fmt.Errorf("%s: unsupported dtype %s", name, dt)
}

func intBinary[T integer](op bop, p *bplan, o, a, b []T) error {
	if op == bAtan2 || op == bLogAddExp {
		return fmt.Errorf("%s: requires a float dtype", bopNames[op])
	}
	if binSerial(p) {
		// intRow[T] is a closure over T's dictionary here; passed straight
		// to binRows it stays on the stack (via runBin it would escape).
		binRows(op, p, o, a, b, intRow[T], 0, p.rows)
		return nil
	}
	runBin(op, p, o, a, b, intRow[T])
	return nil
}

// binSerial reports whether runBin computes plan p on the calling goroutine.
func binSerial(p *bplan) bool {
	return p.rows*p.inner < parThreshold || NumThreads() <= 1
}

// runBin runs row over every output row of plan p, in parallel for large
// outputs. row receives the output row and each input's row slice (length
// inner or 1); when both inputs are scalar along the row, row computes one
// element and the rest of the row is filled with it. row must be a top-level
// function (not a capturing closure) so that serial calls do not allocate.
func runBin[T, O any](op bop, p *bplan, o []O, a, b []T, row func(bop, []O, []T, []T)) {
	total := p.rows * p.inner
	if binSerial(p) {
		binRows(op, p, o, a, b, row, 0, p.rows)
		return
	}
	pool := poolFor[binJob[T, O]]()
	j := pool.Get()
	j.op, j.p, j.o, j.a, j.b, j.row, j.span = op, *p, o, a, b, row, p.rows == 1
	if j.span {
		parFor(total, parGrain, j.fn)
	} else {
		parFor(j.p.rows, rowGrain(j.p.inner), j.fn)
	}
	j.o, j.a, j.b, j.row = nil, nil, nil, nil
	pool.Put(j)
}

// binRows computes rows [lo, hi) of a broadcast binary op.
func binRows[T, O any](op bop, p *bplan, o []O, a, b []T, row func(bop, []O, []T, []T), lo, hi int) {
	inner := p.inner
	var c bcur
	p.seek(&c, lo)
	for r := lo; r < hi; r++ {
		ra := rowSlice(p, &c, 0, a)
		rb := rowSlice(p, &c, 1, b)
		ro := o[r*inner : (r+1)*inner]
		if len(ra) == 1 && len(rb) == 1 && inner > 1 {
			row(op, ro[:1], ra, rb)
			v := ro[0]
			for i := 1; i < len(ro); i++ {
				ro[i] = v
			}
		} else {
			row(op, ro, ra, rb)
		}
		p.next(&c)
	}
}

// binSpan computes elements [lo, hi) of a single-row plan.
func binSpan[T, O any](op bop, p *bplan, o []O, a, b []T, row func(bop, []O, []T, []T), lo, hi int) {
	ra, rb := a[:1], b[:1]
	if p.innerStride(0) == 1 {
		ra = a[lo:hi]
	}
	if p.innerStride(1) == 1 {
		rb = b[lo:hi]
	}
	if len(ra) == 1 && len(rb) == 1 && hi-lo > 1 {
		row(op, o[lo:lo+1], ra, rb)
		v := o[lo]
		for i := lo + 1; i < hi; i++ {
			o[i] = v
		}
		return
	}
	row(op, o[lo:hi], ra, rb)
}

// floatRow computes one row of a float binary op. Each of a and b is either
// as long as o or a single element broadcast along the row.
func floatRow[T floating](op bop, o, a, b []T) {
	if isF32[T]() && op <= bDiv {
		f32Row(op, as32(o), as32(a), as32(b))
		return
	}
	n := len(o)
	va, vb := len(a) == n, len(b) == n
	if n == 1 {
		va, vb = true, true
	}
	switch op {
	case bAdd:
		switch {
		case va && vb:
			a, b = a[:n], b[:n]
			for i := range o {
				o[i] = a[i] + b[i]
			}
		case va:
			a = a[:n]
			s := b[0]
			for i := range o {
				o[i] = a[i] + s
			}
		default:
			b = b[:n]
			s := a[0]
			for i := range o {
				o[i] = s + b[i]
			}
		}
	case bSub:
		switch {
		case va && vb:
			a, b = a[:n], b[:n]
			for i := range o {
				o[i] = a[i] - b[i]
			}
		case va:
			a = a[:n]
			s := b[0]
			for i := range o {
				o[i] = a[i] - s
			}
		default:
			b = b[:n]
			s := a[0]
			for i := range o {
				o[i] = s - b[i]
			}
		}
	case bMul:
		switch {
		case va && vb:
			a, b = a[:n], b[:n]
			for i := range o {
				o[i] = a[i] * b[i]
			}
		case va:
			a = a[:n]
			s := b[0]
			for i := range o {
				o[i] = a[i] * s
			}
		default:
			b = b[:n]
			s := a[0]
			for i := range o {
				o[i] = s * b[i]
			}
		}
	case bDiv:
		switch {
		case va && vb:
			a, b = a[:n], b[:n]
			for i := range o {
				o[i] = a[i] / b[i]
			}
		case va:
			a = a[:n]
			s := b[0]
			for i := range o {
				o[i] = a[i] / s
			}
		default:
			b = b[:n]
			s := a[0]
			for i := range o {
				o[i] = s / b[i]
			}
		}
	case bMax:
		maxRow(o, a, b, va, vb)
	case bMin:
		minRow(o, a, b, va, vb)
	case bFloorDiv:
		apply2(o, a, b, va, vb, func(x, y T) T { return T(math.Floor(float64(x) / float64(y))) })
	case bFloorMod:
		apply2(o, a, b, va, vb, func(x, y T) T {
			r := math.Mod(float64(x), float64(y))
			if r != 0 && (r < 0) != (y < 0) {
				r += float64(y)
			}
			return T(r)
		})
	case bMod:
		apply2(o, a, b, va, vb, func(x, y T) T { return T(math.Mod(float64(x), float64(y))) })
	case bPow:
		apply2(o, a, b, va, vb, func(x, y T) T { return T(math.Pow(float64(x), float64(y))) })
	case bAtan2:
		apply2(o, a, b, va, vb, func(x, y T) T { return T(math.Atan2(float64(x), float64(y))) })
	case bLogAddExp:
		apply2(o, a, b, va, vb, func(x, y T) T {
			fx, fy := float64(x), float64(y)
			if fx == fy { // also equal infinities, where fx - fy is NaN
				return T(fx + math.Ln2)
			}
			return T(math.Max(fx, fy) + math.Log1p(math.Exp(-math.Abs(fx-fy))))
		})
	}
}

// maxRow and minRow are floatRow's maximum and minimum, written out rather
// than through apply2: a function value per element costs several times
// the comparison (ReLU6 as Clip is a maximum and a minimum per activation).
// They use Go's max and min, which compile without data-dependent branches
// (a compare-and-branch mispredicts on every other activation). A NaN in
// either operand gives NaN; max(-0, +0) is +0 and min(-0, +0) is -0.
func maxRow[T floating](o, a, b []T, va, vb bool) {
	n := len(o)
	if isF32[T]() {
		// The assembly runs Go's own max sequence: the same bits.
		o32, a32, b32 := as32(o), as32(a), as32(b)
		switch {
		case va && vb:
			asm.MaxF32(o32, a32, b32)
		case va:
			asm.MaxScalarF32(o32, a32, b32[0])
		default:
			asm.MaxScalarF32(o32, b32, a32[0])
		}
		return
	}
	switch {
	case va && vb:
		a, b = a[:n], b[:n]
		for i := range o {
			o[i] = max(a[i], b[i])
		}
	case va:
		a = a[:n]
		s := b[0]
		for i := range o {
			o[i] = max(a[i], s)
		}
	default:
		b = b[:n]
		s := a[0]
		for i := range o {
			o[i] = max(s, b[i])
		}
	}
}

func minRow[T floating](o, a, b []T, va, vb bool) {
	n := len(o)
	if isF32[T]() {
		o32, a32, b32 := as32(o), as32(a), as32(b)
		switch {
		case va && vb:
			asm.MinF32(o32, a32, b32)
		case va:
			asm.MinScalarF32(o32, a32, b32[0])
		default:
			asm.MinScalarF32(o32, b32, a32[0])
		}
		return
	}
	switch {
	case va && vb:
		a, b = a[:n], b[:n]
		for i := range o {
			o[i] = min(a[i], b[i])
		}
	case va:
		a = a[:n]
		s := b[0]
		for i := range o {
			o[i] = min(a[i], s)
		}
	default:
		b = b[:n]
		s := a[0]
		for i := range o {
			o[i] = min(s, b[i])
		}
	}
}

// apply2 applies f elementwise with the broadcast modes of floatRow.
func apply2[T, O any](o []O, a, b []T, va, vb bool, f func(x, y T) O) {
	n := len(o)
	switch {
	case va && vb:
		a, b = a[:n], b[:n]
		for i := range o {
			o[i] = f(a[i], b[i])
		}
	case va:
		a = a[:n]
		s := b[0]
		for i := range o {
			o[i] = f(a[i], s)
		}
	default:
		b = b[:n]
		s := a[0]
		for i := range o {
			o[i] = f(s, b[i])
		}
	}
}

// intRow computes one row of an integer binary op. Division and modulo by
// zero give 0 instead of trapping.
func intRow[T integer](op bop, o, a, b []T) {
	n := len(o)
	va, vb := len(a) == n, len(b) == n
	if n == 1 {
		va, vb = true, true
	}
	switch op {
	case bAdd:
		apply2(o, a, b, va, vb, func(x, y T) T { return x + y })
	case bSub:
		apply2(o, a, b, va, vb, func(x, y T) T { return x - y })
	case bMul:
		apply2(o, a, b, va, vb, func(x, y T) T { return x * y })
	case bDiv, bMod:
		div := op == bDiv
		apply2(o, a, b, va, vb, func(x, y T) T {
			if y == 0 {
				return 0
			}
			if div {
				return x / y
			}
			return x % y
		})
	case bFloorDiv:
		apply2(o, a, b, va, vb, func(x, y T) T {
			if y == 0 {
				return 0
			}
			q := x / y
			if (x%y != 0) && ((x < 0) != (y < 0)) {
				q--
			}
			return q
		})
	case bFloorMod:
		apply2(o, a, b, va, vb, func(x, y T) T {
			if y == 0 {
				return 0
			}
			r := x % y
			if r != 0 && ((r < 0) != (y < 0)) {
				r += y
			}
			return r
		})
	case bPow:
		apply2(o, a, b, va, vb, ipow[T])
	case bMax:
		apply2(o, a, b, va, vb, func(x, y T) T { return max(x, y) })
	case bMin:
		apply2(o, a, b, va, vb, func(x, y T) T { return min(x, y) })
	case bBitAnd:
		apply2(o, a, b, va, vb, func(x, y T) T { return x & y })
	case bBitOr:
		apply2(o, a, b, va, vb, func(x, y T) T { return x | y })
	case bBitXor:
		apply2(o, a, b, va, vb, func(x, y T) T { return x ^ y })
	case bShl:
		apply2(o, a, b, va, vb, func(x, y T) T {
			if y < 0 {
				return 0
			}
			return x << uint64(y)
		})
	case bShr:
		apply2(o, a, b, va, vb, func(x, y T) T {
			if y < 0 {
				return 0
			}
			return x >> uint64(y)
		})
	}
}

// ipow is integer exponentiation by squaring; negative exponents give 0
// except for bases 1 and -1.
func ipow[T integer](x, y T) T {
	var zero T
	if y < zero {
		switch {
		case x == 1:
			return 1
		case x == zero-1:
			if y%2 == 0 {
				return 1
			}
			return x
		}
		return 0
	}
	r := T(1)
	for y > 0 {
		if y&1 == 1 {
			r *= x
		}
		x *= x
		y >>= 1
	}
	return r
}

func cmpRun[T number](op bop, p *bplan, o []bool, a, b []T) {
	if binSerial(p) {
		binRows(op, p, o, a, b, cmpRow[T], 0, p.rows) // see intBinary
		return
	}
	runBin(op, p, o, a, b, cmpRow[T])
}

// cmpRow computes one row of a comparison.
func cmpRow[T number](op bop, o []bool, a, b []T) {
	n := len(o)
	va, vb := len(a) == n, len(b) == n
	if n == 1 {
		va, vb = true, true
	}
	switch op {
	case bEq:
		apply2(o, a, b, va, vb, func(x, y T) bool { return x == y })
	case bNe:
		apply2(o, a, b, va, vb, func(x, y T) bool { return x != y })
	case bLt:
		apply2(o, a, b, va, vb, func(x, y T) bool { return x < y })
	case bLe:
		apply2(o, a, b, va, vb, func(x, y T) bool { return x <= y })
	case bGt:
		apply2(o, a, b, va, vb, func(x, y T) bool { return x > y })
	case bGe:
		apply2(o, a, b, va, vb, func(x, y T) bool { return x >= y })
	}
}

// logicRow computes one row of a logical op on bools.
func logicRow(op bop, o, a, b []bool) {
	n := len(o)
	va, vb := len(a) == n, len(b) == n
	if n == 1 {
		va, vb = true, true
	}
	switch op {
	case bAnd:
		apply2(o, a, b, va, vb, func(x, y bool) bool { return x && y })
	case bOr:
		apply2(o, a, b, va, vb, func(x, y bool) bool { return x || y })
	case bXor:
		apply2(o, a, b, va, vb, func(x, y bool) bool { return x != y })
	}
}

// Where computes out = cond ? x : y elementwise with broadcasting over all
// three operands; cond must be bool, x and y share out's dtype.
func Where(out, cond, x, y *runtime.Tensor) error {
	const name = "where"
	if err := checkRank(name, out, cond, x, y); err != nil {
		return err
	}
	if cond.DType() != runtime.Bool {
		return fmt.Errorf("%s: condition must be bool, got %s", name, cond.DType())
	}
	if x.DType() != y.DType() {
		return fmt.Errorf("%s: operand dtypes differ: %s and %s", name, x.DType(), y.DType())
	}
	var buf [maxRank]int64
	oshape, err := broadcastShape(name, buf[:0], cond.Shape(), x.Shape(), y.Shape())
	if err != nil {
		return err
	}
	if err := checkOut(name, out, oshape, x.DType()); err != nil {
		return err
	}
	if out.NumElements() == 0 {
		return nil
	}
	p := makePlan(oshape, cond.Shape(), x.Shape(), y.Shape())
	c := elems[bool](cond)
	switch x.DType().ElemBytes() {
	case 1:
		whereRun(&p, c, elems[uint8](out), elems[uint8](x), elems[uint8](y))
	case 2:
		whereRun(&p, c, elems[uint16](out), elems[uint16](x), elems[uint16](y))
	case 4:
		whereRun(&p, c, elems[uint32](out), elems[uint32](x), elems[uint32](y))
	case 8:
		whereRun(&p, c, elems[uint64](out), elems[uint64](x), elems[uint64](y))
	default:
		return fmt.Errorf("%s: unsupported dtype %s", name, x.DType())
	}
	return nil
}

func whereRun[T any](p *bplan, c []bool, o, x, y []T) {
	if p.rows*p.inner < parThreshold || p.rows == 1 || NumThreads() <= 1 {
		whereRows(p, c, o, x, y, 0, p.rows)
		return
	}
	pool := poolFor[whereJob[T]]()
	j := pool.Get()
	j.p, j.c, j.o, j.x, j.y = *p, c, o, x, y
	parFor(j.p.rows, rowGrain(j.p.inner), j.fn)
	j.c, j.o, j.x, j.y = nil, nil, nil, nil
	pool.Put(j)
}

func whereRows[T any](p *bplan, c []bool, o, x, y []T, lo, hi int) {
	inner := p.inner
	sc, sx, sy := p.innerStride(0), p.innerStride(1), p.innerStride(2)
	var cur bcur
	p.seek(&cur, lo)
	for r := lo; r < hi; r++ {
		ro := o[r*inner : (r+1)*inner]
		oc, ox, oy := cur.off[0], cur.off[1], cur.off[2]
		for i := range ro {
			if c[oc+i*sc] {
				ro[i] = x[ox+i*sx]
			} else {
				ro[i] = y[oy+i*sy]
			}
		}
		p.next(&cur)
	}
}

func init() {
	for op := bAdd; op <= bXor; op++ {
		op := op
		name := bopNames[op]
		full := Prefix + name
		register(name, "a, b, out", func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(full, args)
			p.count(3)
			a, b, out := p.tensor(0), p.tensor(1), p.tensor(2)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(binary(op, out, a, b))
		})
	}
	register("where", "condition, x1, x2, out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs("kernels.where", args)
		p.count(4)
		c, x, y, out := p.tensor(0), p.tensor(1), p.tensor(2), p.tensor(3)
		if p.err != nil {
			return nil, p.err
		}
		if err := Where(out, c, x, y); err != nil {
			return nil, fmt.Errorf("kernels.%w", err)
		}
		return nil, nil
	})
}

// binRowsOn lets float32 arithmetic with one value per short row take the
// elementwise chain's blocks of rows (perRowOperand); tests turn it off to
// compare with the broadcast plan.
var binRowsOn = true

// ewOneStep holds the chain codes of add, subtract, multiply and divide
// with the chain value left and right: a one-step chain's codes are a
// slice of it (a slice literal would be allocated each call).
var ewOneStep = []int64{0, 1, 2, 3, 4, 5, 6, 7}

// perRowOperand reports whether out = a op b (out of shape oshape) has one
// operand laid out as the output (x) and the other (c) one value per row of
// short rows: c broadcasts along trailing dims of ewBlockMinRow to ewShortRow
// elements and runs with the output over the dims before them, or is
// broadcast there. A squeeze-and-excitation block's scale, (1, C, 1, 1)
// against (1, C, H, W), or a batch norm left unfused on 7x7 or 14x14 planes:
// the broadcast plan calls a row kernel a row, where the chain's blocks of
// rows (runShort) make one call of a kernel taking each row's scalar
// (BenchmarkBinaryPerRow). rev is true when x is the right operand. The
// chain's step computes each element as the row kernel does (the chain tests
// compare the two), so the bits are the plan's.
func perRowOperand(oshape []int64, a, b *runtime.Tensor) (x, c *runtime.Tensor, rev, ok bool) {
	switch {
	case slices.Equal(a.Shape(), oshape):
		x, c = a, b
	case slices.Equal(b.Shape(), oshape):
		x, c, rev = b, a, true
	default:
		return nil, nil, false, false
	}
	cs, nd := c.Shape(), len(oshape)
	inner, d := 1, nd-1
	for ; d >= 0; d-- {
		if od := d - (nd - len(cs)); od >= 0 && cs[od] != 1 {
			break
		}
		inner *= int(oshape[d])
	}
	if d < 0 || inner < ewBlockMinRow || inner > ewShortRow {
		return nil, nil, false, false // one value for all, or rows too short or long
	}
	// Over the outer dims c runs with the output or is broadcast (size 1).
	for ; d >= 0; d-- {
		if od := d - (nd - len(cs)); od >= 0 && cs[od] != 1 && cs[od] != oshape[d] {
			return nil, nil, false, false
		}
	}
	return x, c, rev, true
}
