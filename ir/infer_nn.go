package ir

import (
	"strings"

	"github.com/relaxgo/relaxgo/runtime"
)

// Inference of reductions, creation ops and neural-network ops.

func inferReduce(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	v, _ := c.Attrs.Get("axis")
	keep, _ := c.Attrs.Get("keepdims")
	keepdims := keep == true
	axes := c.AttrInts("axis")
	if x.NDim < 0 {
		if v == nil && !keepdims {
			return NewTensorSInfo([]PrimExpr{}, x.DType), nil
		}
		return unknownTensor(-1, x.DType), nil
	}
	var red []int
	if v == nil {
		for i := 0; i < x.NDim; i++ {
			red = append(red, i)
		}
	} else if red, err = normAxes(c, x.NDim, axes); err != nil {
		return nil, err
	}
	isRed := map[int]bool{}
	for _, a := range red {
		isRed[a] = true
	}
	nd := x.NDim
	if !keepdims {
		nd -= len(isRed)
	}
	if x.Shape == nil {
		return unknownTensor(nd, x.DType), nil
	}
	out := []PrimExpr{}
	for i, d := range x.Shape {
		switch {
		case !isRed[i]:
			out = append(out, d)
		case keepdims:
			out = append(out, Int64(1))
		}
	}
	return NewTensorSInfo(out, x.DType), nil
}

func inferArgReduce(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	v, _ := c.Attrs.Get("axis")
	keep, _ := c.Attrs.Get("keepdims")
	keepdims := keep == true
	if x.NDim < 0 {
		if v == nil && !keepdims {
			return NewTensorSInfo([]PrimExpr{}, runtime.Int64), nil
		}
		return unknownTensor(-1, runtime.Int64), nil
	}
	axis := -1
	if v != nil {
		if axis, err = normAxis(c, x.NDim, v.(int64)); err != nil {
			return nil, err
		}
	}
	nd := x.NDim
	if !keepdims {
		if v == nil {
			nd = 0
		} else {
			nd--
		}
	}
	if x.Shape == nil {
		return unknownTensor(nd, runtime.Int64), nil
	}
	out := []PrimExpr{}
	for i, d := range x.Shape {
		switch {
		case v != nil && i != axis:
			out = append(out, d)
		case keepdims:
			out = append(out, Int64(1))
		}
	}
	return NewTensorSInfo(out, runtime.Int64), nil
}

func dtypeAttr(c *Call, key string) DataType {
	v, _ := c.Attrs.Get(key)
	dt, ok := v.(DataType)
	if !ok {
		return runtime.Void
	}
	return dt
}

func inferFillShape(argFill int) func(*Call, *InferCtx) (StructInfo, error) {
	return func(c *Call, _ *InferCtx) (StructInfo, error) {
		vals, nd, err := shapeArg(c, 0)
		if err != nil {
			return nil, err
		}
		dt := dtypeAttr(c, "dtype")
		if argFill >= 0 {
			f, err := tensorArg(c, argFill, true)
			if err != nil {
				return nil, err
			}
			if f.NDim > 0 {
				return nil, opErr(c, "fill value must be a scalar, got rank %d", f.NDim)
			}
			if dt.IsVoid() {
				dt = f.DType
			}
		}
		if vals == nil {
			return unknownTensor(nd, dt), nil
		}
		return NewTensorSInfo(append([]PrimExpr{}, vals...), dt), nil
	}
}

func inferLike(argFill int) func(*Call, *InferCtx) (StructInfo, error) {
	return func(c *Call, _ *InferCtx) (StructInfo, error) {
		x, err := tensorArg(c, 0, false)
		if err != nil {
			return nil, err
		}
		if argFill >= 0 {
			f, err := tensorArg(c, argFill, true)
			if err != nil {
				return nil, err
			}
			if f.NDim > 0 {
				return nil, opErr(c, "fill value must be a scalar, got rank %d", f.NDim)
			}
		}
		dt := dtypeAttr(c, "dtype")
		if dt.IsVoid() {
			return x, nil
		}
		return &TensorSInfo{Shape: x.Shape, NDim: x.NDim, DType: dt}, nil
	}
}

func primArg(c *Call, i int) (PrimExpr, bool) {
	if i >= len(c.Args) {
		return nil, false
	}
	if pv, ok := c.Args[i].(*PrimValue); ok {
		return pv.Value, true
	}
	if ps, ok := argSInfo(c, i).(*PrimSInfo); ok && ps.Value != nil {
		return ps.Value, true
	}
	return nil, false
}

func inferArange(c *Call, _ *InferCtx) (StructInfo, error) {
	dt := dtypeAttr(c, "dtype")
	for i := 0; i < 3 && i < len(c.Args); i++ {
		if _, ok := argSInfo(c, i).(*PrimSInfo); !ok {
			return nil, opErr(c, "%s must be a scalar, got %s", argName(c, i), SInfoString(argSInfo(c, i)))
		}
	}
	start, ok1 := primArg(c, 0)
	end, ok2 := primArg(c, 1)
	step, ok3 := primArg(c, 2)
	if !ok1 || !ok2 || !ok3 {
		return unknownTensor(1, dt), nil
	}
	num := func(e PrimExpr) (float64, bool) {
		switch x := e.(type) {
		case *IntImm:
			return float64(x.Value), true
		case *FloatImm:
			return x.Value, true
		}
		return 0, false
	}
	s, sok := num(start)
	e, eok := num(end)
	st, stok := num(step)
	if sok && eok && stok {
		if st == 0 {
			return nil, opErr(c, "step must not be zero")
		}
		n := int64(0)
		if q := (e - s) / st; q > 0 {
			n = int64(q)
			if float64(n) < q {
				n++
			}
		}
		return NewTensorSInfo([]PrimExpr{Int64(n)}, dt), nil
	}
	if stok && st == 1 && !start.DType().IsFloat() && !end.DType().IsFloat() {
		return NewTensorSInfo([]PrimExpr{Sub(end, start)}, dt), nil
	}
	if stok && st > 0 && st == float64(int64(st)) && !start.DType().IsFloat() && !end.DType().IsFloat() {
		k := int64(st)
		return NewTensorSInfo([]PrimExpr{FloorDiv(Add(Sub(end, start), Int64(k-1)), Int64(k))}, dt), nil
	}
	return unknownTensor(1, dt), nil
}

// layoutIndex maps each letter of a layout (e.g. "NCHW") to its position.
func layoutIndex(c *Call, layout, want string) (map[byte]int, error) {
	if len(layout) != len(want) {
		return nil, opErr(c, "unsupported layout %q (want a permutation of %q)", layout, want)
	}
	m := map[byte]int{}
	for i := 0; i < len(layout); i++ {
		ch := layout[i]
		if _, dup := m[ch]; dup || !strings.ContainsRune(want, rune(ch)) {
			return nil, opErr(c, "unsupported layout %q (want a permutation of %q)", layout, want)
		}
		m[ch] = i
	}
	return m, nil
}

func attrStr(c *Call, key string) string {
	v, _ := c.Attrs.Get(key)
	s, _ := v.(string)
	return s
}

// spatial letters of 1-, 2- and 3-d layouts.
func spatialLetters(n int) string { return [...]string{"", "W", "HW", "DHW"}[n] }

// convOut is floor((in + padBefore + padAfter - dil*(k-1) - 1) / stride) + 1
// (with ceil division when ceil is set, less a last window starting past
// the input and its head padding: pooling's ceil mode).
func convOut(in, k PrimExpr, pb, pa, stride, dil int64, ceil bool) PrimExpr {
	num := Sub(Add(in, Int64(pb+pa)), Add(Mul(Int64(dil), Sub(k, Int64(1))), Int64(1)))
	if ceil {
		num = Add(num, Int64(stride-1))
	}
	out := Add(FloorDiv(num, Int64(stride)), Int64(1))
	if ceil {
		// TVM's pooling (InferTypePool1D/2D/3D) drops a last window that
		// would start past the input and its head padding, as PyTorch does:
		// out - ((out-1)*stride >= in + pb), the comparison 0 or 1.
		last := Simplify(&Binary{OpGE, Mul(Sub(out, Int64(1)), Int64(stride)), Add(in, Int64(pb))})
		out = Sub(out, last)
	}
	return out
}

func inferConv(n int, transpose bool) func(*Call, *InferCtx) (StructInfo, error) {
	return func(c *Call, _ *InferCtx) (StructInfo, error) {
		data, err := tensorArg(c, 0, false)
		if err != nil {
			return nil, err
		}
		w, err := tensorArg(c, 1, false)
		if err != nil {
			return nil, err
		}
		sp := spatialLetters(n)
		dl, err := layoutIndex(c, attrStr(c, "data_layout"), "NC"+sp)
		if err != nil {
			return nil, err
		}
		kl, err := layoutIndex(c, attrStr(c, "kernel_layout"), "OI"+sp)
		if err != nil {
			return nil, err
		}
		ol, err := layoutIndex(c, attrStr(c, "out_layout"), "NC"+sp)
		if err != nil {
			return nil, err
		}
		dt := dtypeAttr(c, "out_dtype")
		if dt.IsVoid() {
			if dt, err = binaryDType(c, data.DType, w.DType); err != nil {
				return nil, err
			}
		}
		for _, t := range []*TensorSInfo{data, w} {
			if t.NDim >= 0 && t.NDim != n+2 {
				return nil, opErr(c, "expects rank-%d data and weight, got rank %d", n+2, t.NDim)
			}
		}
		if data.Shape == nil || w.Shape == nil {
			return unknownTensor(n+2, dt), nil
		}
		strides, dil, pad := c.AttrInts("strides"), c.AttrInts("dilation"), c.AttrInts("padding")
		groups, _ := c.AttrInt64("groups")
		if len(strides) != n || len(dil) != n || len(pad) != 2*n {
			return nil, opErr(c, "strides, dilation and padding must have %d, %d and %d values", n, n, 2*n)
		}
		if groups <= 0 {
			return nil, opErr(c, "groups must be positive, got %d", groups)
		}
		inC := data.Shape[dl['C']]
		var outC PrimExpr
		if !transpose {
			wI := w.Shape[kl['I']]
			if provablyDifferent(inC, Mul(wI, Int64(groups))) {
				return nil, opErr(c, "input channels %s do not match weight input channels %s * groups %d", ExprString(inC), ExprString(wI), groups)
			}
			outC = w.Shape[kl['O']]
			if oc, ok := AsInt(outC); ok && oc%groups != 0 {
				return nil, opErr(c, "output channels %d are not divisible by groups %d", oc, groups)
			}
		} else {
			// Transposed-conv weights are [in, out/groups, ...] (IOHW).
			wIn := w.Shape[kl['I']]
			if provablyDifferent(inC, wIn) {
				return nil, opErr(c, "input channels %s do not match weight channels %s", ExprString(inC), ExprString(wIn))
			}
			outC = Mul(w.Shape[kl['O']], Int64(groups))
		}
		outPad := c.AttrInts("output_padding")
		out := make([]PrimExpr, n+2)
		out[ol['N']] = data.Shape[dl['N']]
		out[ol['C']] = outC
		for i := 0; i < n; i++ {
			ch := sp[i]
			in, k := data.Shape[dl[ch]], w.Shape[kl[ch]]
			if !transpose {
				out[ol[ch]] = convOut(in, k, pad[i], pad[i+n], strides[i], dil[i], false)
			} else {
				op := int64(0)
				if i < len(outPad) {
					op = outPad[i]
				}
				// (in-1)*stride - pb - pa + dil*(k-1) + output_padding + 1
				out[ol[ch]] = Add(Sub(Mul(Sub(in, Int64(1)), Int64(strides[i])), Int64(pad[i]+pad[i+n])),
					Add(Mul(Int64(dil[i]), Sub(k, Int64(1))), Int64(op+1)))
			}
			if v, ok := AsInt(out[ol[ch]]); ok && v <= 0 {
				return nil, opErr(c, "output spatial size %d is not positive (input %s, kernel %s)", v, dimsString(data.Shape), dimsString(w.Shape))
			}
		}
		return NewTensorSInfo(out, dt), nil
	}
}

func inferPool(n int) func(*Call, *InferCtx) (StructInfo, error) {
	return func(c *Call, _ *InferCtx) (StructInfo, error) {
		data, err := tensorArg(c, 0, false)
		if err != nil {
			return nil, err
		}
		sp := spatialLetters(n)
		dl, err := layoutIndex(c, attrStr(c, "layout"), "NC"+sp)
		if err != nil {
			return nil, err
		}
		ol, err := layoutIndex(c, attrStr(c, "out_layout"), "NC"+sp)
		if err != nil {
			return nil, err
		}
		if data.NDim >= 0 && data.NDim != n+2 {
			return nil, opErr(c, "expects rank-%d data, got rank %d", n+2, data.NDim)
		}
		if data.Shape == nil {
			return unknownTensor(n+2, data.DType), nil
		}
		ps, strides, dil, pad := c.AttrInts("pool_size"), c.AttrInts("strides"), c.AttrInts("dilation"), c.AttrInts("padding")
		if len(ps) != n || len(strides) != n || len(dil) != n || len(pad) != 2*n {
			return nil, opErr(c, "pool_size, strides, dilation and padding must have %d, %d, %d and %d values", n, n, n, 2*n)
		}
		ceil, _ := c.Attrs.Get("ceil_mode")
		out := make([]PrimExpr, n+2)
		out[ol['N']] = data.Shape[dl['N']]
		out[ol['C']] = data.Shape[dl['C']]
		for i := 0; i < n; i++ {
			ch := sp[i]
			out[ol[ch]] = convOut(data.Shape[dl[ch]], Int64(ps[i]), pad[i], pad[i+n], strides[i], dil[i], ceil == true)
			if v, ok := AsInt(out[ol[ch]]); ok && v <= 0 {
				return nil, opErr(c, "output spatial size %d is not positive (input %s)", v, dimsString(data.Shape))
			}
		}
		return NewTensorSInfo(out, data.DType), nil
	}
}

func inferAdaptivePool(n int) func(*Call, *InferCtx) (StructInfo, error) {
	return func(c *Call, _ *InferCtx) (StructInfo, error) {
		data, err := tensorArg(c, 0, false)
		if err != nil {
			return nil, err
		}
		sp := spatialLetters(n)
		dl, err := layoutIndex(c, attrStr(c, "layout"), "NC"+sp)
		if err != nil {
			return nil, err
		}
		ol, err := layoutIndex(c, attrStr(c, "out_layout"), "NC"+sp)
		if err != nil {
			return nil, err
		}
		if data.NDim >= 0 && data.NDim != n+2 {
			return nil, opErr(c, "expects rank-%d data, got rank %d", n+2, data.NDim)
		}
		if data.Shape == nil {
			return unknownTensor(n+2, data.DType), nil
		}
		v, _ := c.Attrs.Get("output_size")
		os := c.AttrInts("output_size")
		if v != nil && len(os) != n {
			return nil, opErr(c, "output_size must have %d values, got %v", n, os)
		}
		out := make([]PrimExpr, n+2)
		out[ol['N']] = data.Shape[dl['N']]
		out[ol['C']] = data.Shape[dl['C']]
		for i := 0; i < n; i++ {
			ch := sp[i]
			if v == nil {
				out[ol[ch]] = data.Shape[dl[ch]]
			} else {
				out[ol[ch]] = Int64(os[i])
			}
		}
		return NewTensorSInfo(out, data.DType), nil
	}
}

func inferPad(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	pw := c.AttrInts("pad_width")
	if x.NDim >= 0 && len(pw) != 2*x.NDim {
		return nil, opErr(c, "pad_width must have %d values for a tensor of rank %d, got %d", 2*x.NDim, x.NDim, len(pw))
	}
	switch m := attrStr(c, "pad_mode"); m {
	case "constant", "edge", "reflect", "replicate", "circular":
	default:
		return nil, opErr(c, "unsupported pad_mode %q", m)
	}
	if x.Shape == nil {
		return unknownTensor(x.NDim, x.DType), nil
	}
	out := make([]PrimExpr, x.NDim)
	for i, d := range x.Shape {
		out[i] = Add(d, Int64(pw[2*i]+pw[2*i+1]))
	}
	return NewTensorSInfo(out, x.DType), nil
}

// checkNormParam checks that a scale/shift parameter matches the normalized axes of data.
func checkNormParam(c *Call, data *TensorSInfo, i int, axes []int) error {
	if i >= len(c.Args) || c.Args[i] == nil {
		return nil
	}
	p, err := tensorArg(c, i, false)
	if err != nil {
		return err
	}
	if p.NDim >= 0 && p.NDim != len(axes) {
		return opErr(c, "%s must have rank %d, got %s", argName(c, i), len(axes), SInfoString(p))
	}
	if p.Shape != nil && data.Shape != nil {
		for j, a := range axes {
			if provablyDifferent(p.Shape[j], data.Shape[a]) {
				return opErr(c, "%s shape %s does not match data shape %s on axes %v", argName(c, i), dimsString(p.Shape), dimsString(data.Shape), axes)
			}
		}
	}
	if !p.DType.IsVoid() && !data.DType.IsVoid() && p.DType != data.DType {
		return opErr(c, "%s dtype %s differs from data dtype %s", argName(c, i), p.DType, data.DType)
	}
	return nil
}

func inferNorm(nParams int) func(*Call, *InferCtx) (StructInfo, error) {
	return func(c *Call, _ *InferCtx) (StructInfo, error) {
		x, err := tensorArg(c, 0, false)
		if err != nil {
			return nil, err
		}
		if !x.DType.IsVoid() && !x.DType.IsFloat() {
			return nil, opErr(c, "requires a floating-point input, got %s", x.DType)
		}
		if x.NDim < 0 {
			return x, nil
		}
		axes, err := normAxes(c, x.NDim, c.AttrInts("axes"))
		if err != nil {
			return nil, err
		}
		for i := 1; i <= nParams; i++ {
			if err := checkNormParam(c, x, i, axes); err != nil {
				return nil, err
			}
		}
		return x, nil
	}
}

func inferBatchNorm(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	if err := needArgs(c, 5); err != nil {
		return nil, err
	}
	if x.NDim >= 0 {
		a, _ := c.AttrInt64("axis")
		axis, err := normAxis(c, x.NDim, a)
		if err != nil {
			return nil, err
		}
		for i := 1; i < 5; i++ {
			if err := checkNormParam(c, x, i, []int{axis}); err != nil {
				return nil, err
			}
		}
	}
	return &TupleSInfo{[]StructInfo{x, argSInfo(c, 3), argSInfo(c, 4)}}, nil
}

func inferDropout(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	if r, _ := c.Attrs.Get("rate"); r != nil {
		if f, ok := r.(float64); ok && (f < 0 || f >= 1) {
			return nil, opErr(c, "rate must be in [0, 1), got %v", f)
		}
	}
	return &TupleSInfo{[]StructInfo{x, x}}, nil
}
