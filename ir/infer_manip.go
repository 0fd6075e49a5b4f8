package ir

import (
	"github.com/relaxgo/relaxgo/runtime"
)

// Inference of shape-manipulation ops.

func prod(dims []PrimExpr) PrimExpr {
	var p PrimExpr = Int64(1)
	for _, d := range dims {
		p = Mul(p, d)
	}
	return p
}

func inferMatmul(c *Call, _ *InferCtx) (StructInfo, error) {
	a, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	b, err := tensorArg(c, 1, false)
	if err != nil {
		return nil, err
	}
	outDT, _ := c.Attrs.Get("out_dtype")
	dt, _ := outDT.(DataType)
	if dt.IsVoid() {
		if dt, err = binaryDType(c, a.DType, b.DType); err != nil {
			return nil, err
		}
	}
	if a.NDim == 0 || b.NDim == 0 {
		return nil, opErr(c, "does not support scalar (0-d) operands")
	}
	if a.NDim < 0 || b.NDim < 0 {
		return unknownTensor(-1, dt), nil
	}
	prepend, appendDim := a.NDim == 1, b.NDim == 1
	na, nb := a.NDim, b.NDim
	if prepend {
		na = 2
	}
	if appendDim {
		nb = 2
	}
	outNDim := max(na, nb)
	if prepend {
		outNDim--
	}
	if appendDim {
		outNDim--
	}
	if a.Shape == nil || b.Shape == nil {
		return unknownTensor(outNDim, dt), nil
	}
	as, bs := a.Shape, b.Shape
	if prepend {
		as = []PrimExpr{Int64(1), as[0]}
	}
	if appendDim {
		bs = []PrimExpr{bs[0], Int64(1)}
	}
	ka, kb := as[len(as)-1], bs[len(bs)-2]
	if provablyDifferent(ka, kb) {
		return nil, opErr(c, "inner dimensions do not match: %s @ %s (%s vs %s)", dimsString(a.Shape), dimsString(b.Shape), ExprString(ka), ExprString(kb))
	}
	batch, ok, err := broadcastShapes(c, as[:len(as)-2], bs[:len(bs)-2])
	if err != nil {
		return nil, err
	}
	if !ok {
		return unknownTensor(outNDim, dt), nil
	}
	out := append([]PrimExpr{}, batch...)
	if !prepend {
		out = append(out, as[len(as)-2])
	}
	if !appendDim {
		out = append(out, bs[len(bs)-1])
	}
	return NewTensorSInfo(out, dt), nil
}

func inferPermuteDims(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	v, _ := c.Attrs.Get("axes")
	axes := c.AttrInts("axes")
	if v != nil && x.NDim >= 0 && len(axes) != x.NDim {
		return nil, opErr(c, "axes %v do not match a tensor of rank %d", axes, x.NDim)
	}
	ndim := x.NDim
	if v != nil {
		ndim = len(axes)
	}
	if ndim < 0 {
		return unknownTensor(-1, x.DType), nil
	}
	perm := make([]int, ndim)
	if v == nil {
		for i := range perm {
			perm[i] = ndim - 1 - i
		}
	} else {
		p, err := normAxes(c, ndim, axes)
		if err != nil {
			return nil, err
		}
		perm = p
	}
	if x.Shape == nil {
		return unknownTensor(ndim, x.DType), nil
	}
	out := make([]PrimExpr, ndim)
	for i, p := range perm {
		out[i] = x.Shape[p]
	}
	return NewTensorSInfo(out, x.DType), nil
}

func inferReshape(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	vals, ndim, err := shapeArg(c, 1)
	if err != nil {
		return nil, err
	}
	if vals == nil {
		return unknownTensor(ndim, x.DType), nil
	}
	out := append([]PrimExpr{}, vals...)
	infer := -1
	for i, d := range out {
		if n, ok := AsInt(d); ok && n == -1 {
			if infer >= 0 {
				return nil, opErr(c, "more than one -1 in new shape %s", dimsString(vals))
			}
			infer = i
		} else if ok && n < 0 {
			return nil, opErr(c, "invalid dimension %d in new shape %s", n, dimsString(vals))
		}
	}
	if infer >= 0 {
		if x.Shape == nil {
			return unknownTensor(len(out), x.DType), nil
		}
		rest := prod(append(append([]PrimExpr{}, out[:infer]...), out[infer+1:]...))
		total := prod(x.Shape)
		if tn, ok := AsInt(total); ok {
			if rn, ok := AsInt(rest); ok && (rn == 0 || tn%rn != 0) {
				return nil, opErr(c, "cannot reshape %s (%d elements) to %s", dimsString(x.Shape), tn, dimsString(vals))
			}
		}
		out[infer] = FloorDiv(total, rest)
	}
	if x.Shape != nil {
		pin, pout := prod(x.Shape), prod(out)
		if provablyDifferent(pin, pout) {
			return nil, opErr(c, "cannot reshape %s (%s elements) to %s (%s elements)", dimsString(x.Shape), ExprString(pin), dimsString(vals), ExprString(pout))
		}
	}
	return NewTensorSInfo(out, x.DType), nil
}

func tupleTensors(c *Call, i int) ([]*TensorSInfo, error) {
	s := argSInfo(c, i)
	t, ok := s.(*TupleSInfo)
	if !ok {
		return nil, opErr(c, "argument %q must be a tuple of tensors, got %s", argName(c, i), SInfoString(s))
	}
	out := make([]*TensorSInfo, len(t.Fields))
	for j, f := range t.Fields {
		ts, ok := f.(*TensorSInfo)
		if !ok {
			return nil, opErr(c, "field %d of %q must be a tensor, got %s", j, argName(c, i), SInfoString(f))
		}
		out[j] = ts
	}
	if len(out) == 0 {
		return nil, opErr(c, "needs at least one tensor")
	}
	return out, nil
}

func commonDType(c *Call, ts []*TensorSInfo) (DataType, error) {
	dt := runtime.Void
	for _, t := range ts {
		if t.DType.IsVoid() {
			return runtime.Void, nil
		}
		if dt.IsVoid() {
			dt = t.DType
		} else if dt != t.DType {
			return runtime.Void, opErr(c, "all tensors must have the same dtype, got %s and %s", dt, t.DType)
		}
	}
	return dt, nil
}

func commonNDim(c *Call, ts []*TensorSInfo) (int, error) {
	nd := -1
	for _, t := range ts {
		if t.NDim < 0 {
			continue
		}
		if nd < 0 {
			nd = t.NDim
		} else if nd != t.NDim {
			return 0, opErr(c, "all tensors must have the same rank, got %d and %d", nd, t.NDim)
		}
	}
	return nd, nil
}

func inferConcat(c *Call, _ *InferCtx) (StructInfo, error) {
	ts, err := tupleTensors(c, 0)
	if err != nil {
		return nil, err
	}
	dt, err := commonDType(c, ts)
	if err != nil {
		return nil, err
	}
	v, _ := c.Attrs.Get("axis")
	if v == nil { // flatten then concatenate
		var total PrimExpr = Int64(0)
		for _, t := range ts {
			if t.Shape == nil {
				return unknownTensor(1, dt), nil
			}
			total = Add(total, prod(t.Shape))
		}
		return NewTensorSInfo([]PrimExpr{total}, dt), nil
	}
	nd, err := commonNDim(c, ts)
	if err != nil {
		return nil, err
	}
	if nd < 0 {
		return unknownTensor(-1, dt), nil
	}
	if nd == 0 {
		return nil, opErr(c, "cannot concatenate scalars")
	}
	axis, err := normAxis(c, nd, v.(int64))
	if err != nil {
		return nil, err
	}
	var out []PrimExpr
	for _, t := range ts {
		if t.Shape == nil {
			return unknownTensor(nd, dt), nil
		}
		if out == nil {
			out = append([]PrimExpr{}, t.Shape...)
			continue
		}
		for d := range out {
			if d == axis {
				out[d] = Add(out[d], t.Shape[d])
			} else if provablyDifferent(out[d], t.Shape[d]) {
				return nil, opErr(c, "shapes %s and %s differ at dimension %d", dimsString(ts[0].Shape), dimsString(t.Shape), d)
			}
		}
	}
	return NewTensorSInfo(out, dt), nil
}

func inferStack(c *Call, _ *InferCtx) (StructInfo, error) {
	ts, err := tupleTensors(c, 0)
	if err != nil {
		return nil, err
	}
	dt, err := commonDType(c, ts)
	if err != nil {
		return nil, err
	}
	nd, err := commonNDim(c, ts)
	if err != nil {
		return nil, err
	}
	if nd < 0 {
		return unknownTensor(-1, dt), nil
	}
	a, _ := c.AttrInt64("axis")
	axis, err := normAxis(c, nd+1, a)
	if err != nil {
		return nil, err
	}
	base := ts[0].Shape
	for _, t := range ts {
		if t.Shape == nil {
			return unknownTensor(nd+1, dt), nil
		}
		for d := range t.Shape {
			if provablyDifferent(base[d], t.Shape[d]) {
				return nil, opErr(c, "all tensors must have the same shape, got %s and %s", dimsString(base), dimsString(t.Shape))
			}
		}
	}
	out := append(append(append([]PrimExpr{}, base[:axis]...), Int64(int64(len(ts)))), base[axis:]...)
	return NewTensorSInfo(out, dt), nil
}

func inferSplit(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	ios, _ := c.Attrs.Get("indices_or_sections")
	var n int
	switch v := ios.(type) {
	case int64:
		if v <= 0 {
			return nil, opErr(c, "number of sections must be positive, got %d", v)
		}
		n = int(v)
	case []any:
		n = len(v) + 1
	default:
		return nil, opErr(c, "bad indices_or_sections %v", ios)
	}
	fields := make([]StructInfo, n)
	if x.NDim < 0 {
		for i := range fields {
			fields[i] = unknownTensor(-1, x.DType)
		}
		return &TupleSInfo{fields}, nil
	}
	a, _ := c.AttrInt64("axis")
	axis, err := normAxis(c, x.NDim, a)
	if err != nil {
		return nil, err
	}
	if x.Shape == nil {
		for i := range fields {
			fields[i] = unknownTensor(x.NDim, x.DType)
		}
		return &TupleSInfo{fields}, nil
	}
	dim := x.Shape[axis]
	with := func(d PrimExpr) *TensorSInfo {
		s := append([]PrimExpr{}, x.Shape...)
		s[axis] = d
		return NewTensorSInfo(s, x.DType)
	}
	switch v := ios.(type) {
	case int64:
		// As TVM: sections of ceil(extent / n), the last one what is left;
		// an extent that does not divide evenly is allowed.
		if dn, ok := AsInt(dim); ok {
			size := (dn + v - 1) / v
			for i := range fields {
				lo, hi := min(int64(i)*size, dn), min(int64(i+1)*size, dn)
				fields[i] = with(Int64(hi - lo))
			}
			break
		}
		part := FloorDiv(Add(dim, Int64(v-1)), Int64(v))
		for i := range fields {
			if i == len(fields)-1 {
				fields[i] = with(Sub(dim, Mul(part, Int64(v-1))))
			} else {
				fields[i] = with(part)
			}
		}
	case []any:
		var prev PrimExpr = Int64(0)
		for i := 0; i < n; i++ {
			var end PrimExpr = dim
			if i < len(v) {
				p, ok := primOf(v[i])
				if !ok {
					return nil, opErr(c, "bad split index %v", v[i])
				}
				end = p
			}
			size := Sub(end, prev)
			if dn, ok := AsInt(dim); ok {
				e, eok := AsInt(end)
				p, pok := AsInt(prev)
				if eok && pok {
					e, p = min(max(e, 0), dn), min(max(p, 0), dn)
					size = Int64(max(e-p, 0))
				}
			}
			fields[i] = with(size)
			prev = end
		}
	}
	return &TupleSInfo{fields}, nil
}

func inferSqueeze(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	v, _ := c.Attrs.Get("axis")
	axes := c.AttrInts("axis")
	if x.NDim < 0 {
		return unknownTensor(-1, x.DType), nil
	}
	drop := map[int]bool{}
	if v != nil {
		ax, err := normAxes(c, x.NDim, axes)
		if err != nil {
			return nil, err
		}
		for _, a := range ax {
			if x.Shape != nil {
				// As TVM (and PyTorch): a listed axis of static extent
				// other than 1 is kept, silently.
				if n, ok := AsInt(x.Shape[a]); ok && n != 1 {
					continue
				}
			}
			drop[a] = true
		}
		if x.Shape == nil {
			return unknownTensor(x.NDim-len(drop), x.DType), nil
		}
	} else {
		if x.Shape == nil {
			return unknownTensor(-1, x.DType), nil
		}
		for i, d := range x.Shape {
			n, ok := AsInt(d)
			if !ok {
				return unknownTensor(-1, x.DType), nil
			}
			if n == 1 {
				drop[i] = true
			}
		}
	}
	out := []PrimExpr{}
	for i, d := range x.Shape {
		if !drop[i] {
			out = append(out, d)
		}
	}
	return NewTensorSInfo(out, x.DType), nil
}

func inferExpandDims(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	axes := c.AttrInts("axis")
	if x.NDim < 0 {
		return unknownTensor(-1, x.DType), nil
	}
	nd := x.NDim + len(axes)
	ax, err := normAxes(c, nd, axes)
	if err != nil {
		return nil, err
	}
	if x.Shape == nil {
		return unknownTensor(nd, x.DType), nil
	}
	ins := map[int]bool{}
	for _, a := range ax {
		ins[a] = true
	}
	out := make([]PrimExpr, nd)
	j := 0
	for i := range out {
		if ins[i] {
			out[i] = Int64(1)
		} else {
			out[i] = x.Shape[j]
			j++
		}
	}
	return NewTensorSInfo(out, x.DType), nil
}

func inferFlatten(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	if x.Shape == nil {
		return unknownTensor(1, x.DType), nil
	}
	return NewTensorSInfo([]PrimExpr{prod(x.Shape)}, x.DType), nil
}

func inferBroadcastTo(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	vals, nd, err := shapeArg(c, 1)
	if err != nil {
		return nil, err
	}
	if x.NDim >= 0 && nd >= 0 && x.NDim > nd {
		return nil, opErr(c, "cannot broadcast a tensor of rank %d to rank %d", x.NDim, nd)
	}
	if vals == nil {
		return unknownTensor(nd, x.DType), nil
	}
	if x.Shape != nil {
		for i := 1; i <= len(x.Shape); i++ {
			d, t := x.Shape[len(x.Shape)-i], vals[len(vals)-i]
			if n, ok := AsInt(d); ok && n == 1 {
				continue
			}
			if provablyDifferent(d, t) {
				return nil, opErr(c, "cannot broadcast %s to %s", dimsString(x.Shape), dimsString(vals))
			}
		}
	}
	return NewTensorSInfo(append([]PrimExpr{}, vals...), x.DType), nil
}

// primTupleArg reads a tuple-of-scalars argument (strided_slice's axes,
// begin, end, strides). ok is false when a value is not known.
func primTupleArg(c *Call, i int) ([]PrimExpr, bool) {
	if i >= len(c.Args) || c.Args[i] == nil {
		return nil, false
	}
	switch x := c.Args[i].(type) {
	case *Tuple:
		out := make([]PrimExpr, len(x.Fields))
		for j, f := range x.Fields {
			pv, ok := f.(*PrimValue)
			if !ok {
				if ps, ok := f.SInfo().(*PrimSInfo); ok && ps.Value != nil {
					out[j] = ps.Value
					continue
				}
				return nil, false
			}
			out[j] = pv.Value
		}
		return out, true
	case *ShapeExpr:
		return x.Values, true
	}
	switch s := argSInfo(c, i).(type) {
	case *TupleSInfo:
		out := make([]PrimExpr, len(s.Fields))
		for j, f := range s.Fields {
			ps, ok := f.(*PrimSInfo)
			if !ok || ps.Value == nil {
				return nil, false
			}
			out[j] = ps.Value
		}
		return out, true
	case *ShapeSInfo:
		return s.Values, s.Values != nil
	}
	return nil, false
}

func inferStridedSlice(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	if err := needArgs(c, 4); err != nil {
		return nil, err
	}
	axes, aok := primTupleArg(c, 1)
	begin, bok := primTupleArg(c, 2)
	end, eok := primTupleArg(c, 3)
	var strides []PrimExpr
	sok := true
	if len(c.Args) > 4 && c.Args[4] != nil {
		strides, sok = primTupleArg(c, 4)
	}
	if x.NDim < 0 {
		return unknownTensor(-1, x.DType), nil
	}
	if !aok || !bok || !eok || !sok || x.Shape == nil {
		return unknownTensor(x.NDim, x.DType), nil
	}
	if len(begin) != len(axes) || len(end) != len(axes) || (strides != nil && len(strides) != len(axes)) {
		return nil, opErr(c, "axes, begin, end and strides must have the same length (%d, %d, %d, %d)", len(axes), len(begin), len(end), len(strides))
	}
	out := append([]PrimExpr{}, x.Shape...)
	inbound, _ := c.Attrs.Get("assume_inbound")
	for k, ae := range axes {
		an, ok := AsInt(ae)
		if !ok {
			return unknownTensor(x.NDim, x.DType), nil
		}
		a, err := normAxis(c, x.NDim, an)
		if err != nil {
			return nil, err
		}
		var st int64 = 1
		if strides != nil {
			s, ok := AsInt(strides[k])
			if !ok {
				out[a] = nil
				continue
			}
			st = s
		}
		if st == 0 {
			return nil, opErr(c, "stride must not be zero")
		}
		out[a] = sliceLen(x.Shape[a], begin[k], end[k], st, inbound == true)
	}
	for _, d := range out {
		if d == nil {
			return unknownTensor(x.NDim, x.DType), nil
		}
	}
	return NewTensorSInfo(out, x.DType), nil
}

// sliceLen is the length of dim[begin:end:stride] (Python semantics with
// clamping). It returns nil when it cannot be determined.
func sliceLen(dim, b, e PrimExpr, st int64, inbound bool) PrimExpr {
	d, dok := AsInt(dim)
	bi, bok := AsInt(b)
	ei, eok := AsInt(e)
	const big = int64(1) << 31
	if dok && bok && eok {
		clamp := func(v int64, lo, hi int64) int64 { return min(max(v, lo), hi) }
		if bi < 0 {
			bi += d
		}
		if ei < 0 {
			ei += d
		}
		var n int64
		if st > 0 {
			bi, ei = clamp(bi, 0, d), clamp(ei, 0, d)
			if ei > bi {
				n = (ei - bi + st - 1) / st
			}
		} else {
			bi, ei = clamp(bi, -1, d-1), clamp(ei, -1, d-1)
			if bi > ei {
				n = (bi - ei + (-st) - 1) / (-st)
			}
		}
		return Int64(n)
	}
	if st != 1 || !bok || bi < 0 {
		if inbound && st > 0 {
			return FloorDiv(Add(Sub(e, b), Int64(st-1)), Int64(st))
		}
		return nil
	}
	switch {
	case eok && ei >= big:
		return Sub(dim, b)
	case eok && ei < 0:
		return Sub(Add(dim, Int64(ei)), b)
	case inbound:
		return Sub(e, b)
	}
	return Sub(Simplify(&Binary{OpMin, e, dim}), b)
}

func inferTake(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	idx, err := tensorArg(c, 1, true)
	if err != nil {
		return nil, err
	}
	if !idx.DType.IsVoid() && !idx.DType.IsInt() && !idx.DType.IsUInt() {
		return nil, opErr(c, "indices must be integers, got %s", idx.DType)
	}
	v, _ := c.Attrs.Get("axis")
	if v == nil {
		if x.NDim >= 0 && x.NDim != 1 {
			// TVM flattens the data first.
		}
		if idx.Shape == nil {
			return unknownTensor(idx.NDim, x.DType), nil
		}
		return NewTensorSInfo(append([]PrimExpr{}, idx.Shape...), x.DType), nil
	}
	if x.NDim < 0 || idx.NDim < 0 {
		return unknownTensor(-1, x.DType), nil
	}
	axis, err := normAxis(c, x.NDim, v.(int64))
	if err != nil {
		return nil, err
	}
	nd := x.NDim - 1 + idx.NDim
	if x.Shape == nil || idx.Shape == nil {
		return unknownTensor(nd, x.DType), nil
	}
	out := append(append(append([]PrimExpr{}, x.Shape[:axis]...), idx.Shape...), x.Shape[axis+1:]...)
	return NewTensorSInfo(out, x.DType), nil
}

func inferTile(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	reps := c.AttrInts("repeats")
	for _, r := range reps {
		if r < 0 {
			return nil, opErr(c, "repeats must be non-negative, got %v", reps)
		}
	}
	if x.NDim < 0 {
		return unknownTensor(-1, x.DType), nil
	}
	nd := max(x.NDim, len(reps))
	if x.Shape == nil {
		return unknownTensor(nd, x.DType), nil
	}
	out := make([]PrimExpr, nd)
	for i := range out {
		var d PrimExpr = Int64(1)
		if j := i - (nd - x.NDim); j >= 0 {
			d = x.Shape[j]
		}
		var r int64 = 1
		if j := i - (nd - len(reps)); j >= 0 {
			r = reps[j]
		}
		out[i] = Mul(d, Int64(r))
	}
	return NewTensorSInfo(out, x.DType), nil
}

func inferRepeat(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	r, _ := c.AttrInt64("repeats")
	if r < 0 {
		return nil, opErr(c, "repeats must be non-negative, got %d", r)
	}
	v, _ := c.Attrs.Get("axis")
	if v == nil {
		if x.Shape == nil {
			return unknownTensor(1, x.DType), nil
		}
		return NewTensorSInfo([]PrimExpr{Mul(prod(x.Shape), Int64(r))}, x.DType), nil
	}
	if x.NDim < 0 {
		return unknownTensor(-1, x.DType), nil
	}
	axis, err := normAxis(c, x.NDim, v.(int64))
	if err != nil {
		return nil, err
	}
	if x.Shape == nil {
		return unknownTensor(x.NDim, x.DType), nil
	}
	out := append([]PrimExpr{}, x.Shape...)
	out[axis] = Mul(out[axis], Int64(r))
	return NewTensorSInfo(out, x.DType), nil
}

func inferFlip(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	if x.NDim >= 0 {
		a, _ := c.AttrInt64("axis")
		if _, err := normAxis(c, x.NDim, a); err != nil {
			return nil, err
		}
	}
	return x, nil
}

func inferAstype(c *Call, _ *InferCtx) (StructInfo, error) {
	s := argSInfo(c, 0)
	v, _ := c.Attrs.Get("dtype")
	dt, _ := v.(DataType)
	switch x := s.(type) {
	case *TensorSInfo:
		return &TensorSInfo{Shape: x.Shape, NDim: x.NDim, DType: dt}, nil
	case *PrimSInfo:
		return &PrimSInfo{DType: dt}, nil
	}
	return nil, opErr(c, "argument %q must be a tensor, got %s", argName(c, 0), SInfoString(s))
}

func inferTriangular(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	if x.NDim >= 0 && x.NDim < 2 {
		return nil, opErr(c, "requires a tensor of rank >= 2, got rank %d", x.NDim)
	}
	if len(c.Args) > 1 {
		if _, ok := argSInfo(c, 1).(*PrimSInfo); !ok {
			return nil, opErr(c, "k must be a scalar, got %s", SInfoString(argSInfo(c, 1)))
		}
	}
	return x, nil
}
