package onnx

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Neural-network operators: convolution, pooling, normalization, Gemm,
// MatMul, Softmax, Resize.

func init() {
	Register("MaxPool", 1, convPool("max"))
	Register("AveragePool", 1, convPool("avg"))
	Register("GlobalAveragePool", 1, globalPool("relax.mean"))
	Register("GlobalMaxPool", 1, globalPool("relax.max"))
	registerN("MatMul", 1, 2, func(c *Ctx, n *Node) ([]*Value, error) {
		return one(c.Bin("relax.matmul", n.In[0], n.In[1]))
	})
	Register("Softmax", 1, convSoftmax("relax.nn.softmax"))
	Register("LogSoftmax", 1, convSoftmax("relax.nn.log_softmax"))
}

// spatial reads kernel geometry attributes for an input of rank r (N, C, spatial...).
type geometry struct {
	kernel, strides, dilations, pads []int64
}

func readGeometry(n *Node, x *Value, kernel []int64) (*geometry, error) {
	sp := x.Rank() - 2
	if sp < 1 {
		return nil, n.unsupported("input rank %d", x.Rank())
	}
	if kernel == nil {
		kernel = n.Ints("kernel_shape", nil)
	}
	if len(kernel) != sp {
		return nil, n.unsupported("kernel_shape %v for %d spatial dimensions", kernel, sp)
	}
	ones := make([]int64, sp)
	for i := range ones {
		ones[i] = 1
	}
	g := &geometry{kernel: kernel, strides: n.Ints("strides", ones), dilations: n.Ints("dilations", ones),
		pads: n.Ints("pads", make([]int64, 2*sp))}
	if len(g.strides) != sp || len(g.dilations) != sp || len(g.pads) != 2*sp {
		return nil, fmt.Errorf("strides/dilations/pads lengths do not match %d spatial dimensions", sp)
	}
	if err := checkRange(n, "kernel_shape", g.kernel, 1); err != nil {
		return nil, err
	}
	if err := checkRange(n, "strides", g.strides, 1); err != nil {
		return nil, err
	}
	if err := checkRange(n, "dilations", g.dilations, 1); err != nil {
		return nil, err
	}
	if err := checkRange(n, "pads", g.pads, 0); err != nil {
		return nil, err
	}
	switch ap := n.Str("auto_pad", "NOTSET"); ap {
	case "NOTSET", "":
	case "VALID":
		g.pads = make([]int64, 2*sp)
	case "SAME_UPPER", "SAME_LOWER":
		dims, ok := spatialDims(x)
		if !ok {
			return nil, n.unsupported("auto_pad=%s needs static spatial dimensions", ap)
		}
		for i := 0; i < sp; i++ {
			in := dims[i]
			out := (in + g.strides[i] - 1) / g.strides[i]
			pad := max((out-1)*g.strides[i]+(g.kernel[i]-1)*g.dilations[i]+1-in, 0)
			lo, hi := pad/2, pad-pad/2
			if ap == "SAME_LOWER" {
				lo, hi = hi, lo
			}
			g.pads[i], g.pads[sp+i] = lo, hi
		}
	default:
		return nil, n.unsupported("auto_pad=%q", ap)
	}
	return g, nil
}

func convConv(c *Ctx, n *Node) ([]*Value, error) {
	if err := needInputs(n, 2); err != nil {
		return nil, err
	}
	x, w := n.In[0], n.In[1]
	wd, ok := w.StaticDims()
	if !ok || len(wd) < 3 || len(wd) != x.Rank() {
		return nil, n.unsupported("weight shape must be static and of the input's rank (>= 3)")
	}
	g, err := readGeometry(n, x, n.Ints("kernel_shape", wd[2:]))
	if err != nil {
		return nil, err
	}
	sp := len(g.kernel)
	if sp > 3 {
		return nil, n.unsupported("%d-D convolution", sp)
	}
	y, err := c.Emit(fmt.Sprintf("relax.nn.conv%dd", sp), []ir.Expr{x.Expr, w.Expr},
		Attr("strides", intsAny(g.strides)), Attr("padding", intsAny(g.pads)), Attr("dilation", intsAny(g.dilations)),
		Attr("groups", n.Int("group", 1)))
	if err != nil {
		return nil, err
	}
	return c.addChannelBias(n, y, n.Input(2), sp)
}

// addChannelBias adds a per-channel bias (shape [C]) to y (N, C, spatial...).
func (c *Ctx) addChannelBias(n *Node, y, b *Value, sp int) ([]*Value, error) {
	if b == nil {
		return []*Value{y}, nil
	}
	bd := b.Dims()
	if len(bd) != 1 {
		return nil, n.unsupported("bias of rank %d", len(bd))
	}
	shape := []ir.PrimExpr{ir.Int64(1), bd[0]}
	for i := 0; i < sp; i++ {
		shape = append(shape, ir.Int64(1))
	}
	rb, err := c.Emit("relax.reshape", []ir.Expr{b.Expr, shapeExpr(shape)})
	if err != nil {
		return nil, err
	}
	return one(c.Bin("relax.add", y, rb))
}

func convConvTranspose(c *Ctx, n *Node) ([]*Value, error) {
	x, w := n.In[0], n.In[1]
	wd, ok := w.StaticDims()
	if !ok || len(wd) < 3 || len(wd) != x.Rank() {
		return nil, n.unsupported("weight shape must be static and of the input's rank (>= 3)")
	}
	sd, ok := spatialDims(x)
	if !ok {
		return nil, n.unsupported("spatial dimensions must be static")
	}
	sp := len(sd)
	xd := append([]int64{0, 0}, sd...)
	kernel := n.Ints("kernel_shape", wd[2:])
	ones := make([]int64, sp)
	for i := range ones {
		ones[i] = 1
	}
	strides, dil := n.Ints("strides", ones), n.Ints("dilations", ones)
	pads := n.Ints("pads", make([]int64, 2*sp))
	outPad := n.Ints("output_padding", make([]int64, sp))
	if len(kernel) != sp || len(strides) != sp || len(dil) != sp || len(pads) != 2*sp || len(outPad) != sp {
		return nil, fmt.Errorf("attribute lengths do not match %d spatial dimensions", sp)
	}
	for _, a := range []struct {
		name string
		v    []int64
		lo   int64
	}{{"kernel_shape", kernel, 1}, {"strides", strides, 1}, {"dilations", dil, 1}, {"pads", pads, 0}, {"output_padding", outPad, 0}} {
		if err := checkRange(n, a.name, a.v, a.lo); err != nil {
			return nil, err
		}
	}
	outShape := n.Ints("output_shape", nil)
	ap := n.Str("auto_pad", "NOTSET")
	if len(outShape) > sp {
		outShape = outShape[len(outShape)-sp:]
	}
	if outShape == nil && (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
		for i := 0; i < sp; i++ {
			outShape = append(outShape, xd[2+i]*strides[i])
		}
	}
	if ap == "VALID" {
		pads = make([]int64, 2*sp)
	}
	if outShape != nil {
		if len(outShape) != sp {
			return nil, fmt.Errorf("output_shape %v", outShape)
		}
		for i := 0; i < sp; i++ {
			total := strides[i]*(xd[2+i]-1) + outPad[i] + (kernel[i]-1)*dil[i] + 1 - outShape[i]
			if total < 0 {
				outPad[i] -= total
				total = 0
			}
			lo, hi := total/2, total-total/2
			if ap != "SAME_UPPER" && ap != "NOTSET" || ap == "SAME_LOWER" {
				lo, hi = hi, lo
			}
			if ap == "NOTSET" {
				// ONNX: pads computed with the SAME_UPPER split when output_shape is given
				lo, hi = total/2, total-total/2
			}
			pads[i], pads[sp+i] = lo, hi
		}
	}
	if sp > 3 {
		return nil, n.unsupported("%d-D transposed convolution", sp)
	}
	if sp == 3 {
		// no 3-D transposed convolution kernel: gather the taps
		y, err := convTransposeTaps(c, n, x, w, strides, pads, outPad, dil, n.Int("group", 1))
		if err != nil {
			return nil, err
		}
		return c.addChannelBias(n, y, n.Input(2), sp)
	}
	y, err := c.Emit(fmt.Sprintf("relax.nn.conv%dd_transpose", sp), []ir.Expr{x.Expr, w.Expr},
		Attr("strides", intsAny(strides)), Attr("padding", intsAny(pads)), Attr("output_padding", intsAny(outPad)),
		Attr("dilation", intsAny(dil)), Attr("groups", n.Int("group", 1)))
	if err != nil {
		return nil, err
	}
	return c.addChannelBias(n, y, n.Input(2), sp)
}

func convPool(kind string) ConvFunc {
	return func(c *Ctx, n *Node) ([]*Value, error) {
		if err := needInputs(n, 1); err != nil {
			return nil, err
		}
		x := n.In[0]
		g, err := readGeometry(n, x, nil)
		if err != nil {
			return nil, err
		}
		if kind == "max" && (n.NumOut > 1 || n.Int("storage_order", 0) != 0) {
			return maxPoolWithIndices(c, n, x, g)
		}
		if n.NumOut > 1 {
			return nil, n.unsupported("the Indices output")
		}
		sp := len(g.kernel)
		ceil := n.Int("ceil_mode", 0) != 0
		if ceil {
			// ONNX drops a last window that would start in the right padding; when
			// that makes ceil mode agree with floor mode, use floor mode.
			dims, ok := spatialDims(x)
			same := ok
			for i := 0; i < sp && ok; i++ {
				in, pb, pe := dims[i], g.pads[i], g.pads[sp+i]
				span := in + pb + pe - ((g.kernel[i]-1)*g.dilations[i] + 1)
				fl := span/g.strides[i] + 1
				ce := (span+g.strides[i]-1)/g.strides[i] + 1
				if (ce-1)*g.strides[i] >= in+pb {
					ce--
				}
				same = same && ce == fl
			}
			if same {
				ceil = false
			}
		}
		if sp == 3 {
			// no 3-D pooling kernel: gather the window taps
			return one(poolTaps(c, n, x, g, kind, n.Int("ceil_mode", 0) != 0, n.Int("count_include_pad", 0) != 0))
		}
		attrs := []ir.Attr{Attr("pool_size", intsAny(g.kernel)), Attr("strides", intsAny(g.strides)),
			Attr("padding", intsAny(g.pads)), Attr("dilation", intsAny(g.dilations)), Attr("ceil_mode", ceil)}
		if kind == "avg" {
			attrs = append(attrs, Attr("count_include_pad", n.Int("count_include_pad", 0) != 0))
		}
		return one(c.Un(fmt.Sprintf("relax.nn.%s_pool%dd", kind, sp), x, attrs...))
	}
}

func globalPool(op string) ConvFunc {
	return func(c *Ctx, n *Node) ([]*Value, error) {
		if err := needInputs(n, 1); err != nil {
			return nil, err
		}
		r := n.In[0].Rank()
		if r < 3 {
			return nil, n.unsupported("input rank %d", r)
		}
		var axes []int64
		for i := 2; i < r; i++ {
			axes = append(axes, int64(i))
		}
		return one(c.Un(op, n.In[0], Attr("axis", intsAny(axes)), Attr("keepdims", true)))
	}
}

// channelShape reshapes a [C] vector to broadcast over axis 1 of a rank-r tensor.
func (c *Ctx) channelShape(v *Value, r int) (*Value, error) {
	d := v.Dims()
	if len(d) != 1 {
		return nil, fmt.Errorf("expected a vector, got rank %d", len(d))
	}
	shape := []ir.PrimExpr{d[0]}
	for i := 2; i < r; i++ {
		shape = append(shape, ir.Int64(1))
	}
	return c.Emit("relax.reshape", []ir.Expr{v.Expr, shapeExpr(shape)})
}

func convBatchNorm(c *Ctx, n *Node) ([]*Value, error) {
	if n.Opset >= 14 && n.Int("training_mode", 0) != 0 {
		return batchNormTraining(c, n)
	}
	if n.Opset < 7 && n.Int("is_test", 0) == 0 || n.Opset < 14 && n.NumOut > 1 {
		return nil, n.unsupported("training mode")
	}
	if n.NumOut > 1 {
		return nil, n.unsupported("training-mode outputs")
	}
	x := n.In[0]
	r := x.Rank()
	if r < 2 {
		return nil, n.unsupported("input rank %d", r)
	}
	var vs [4]*Value
	for i := range vs {
		v, err := c.channelShape(n.In[1+i], r)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	scale, bias, mean, variance := vs[0], vs[1], vs[2], vs[3]
	f := &formula{c: c}
	inv := f.bin("relax.divide", scale, f.un("relax.sqrt", f.bin("relax.add", variance, f.k(n.Float("epsilon", 1e-5), x))))
	y := f.bin("relax.add", f.bin("relax.multiply", f.bin("relax.subtract", x, mean), inv), bias)
	return one(y, f.err)
}

func convInstanceNorm(c *Ctx, n *Node) ([]*Value, error) {
	r := n.In[0].Rank()
	if r < 3 {
		return nil, n.unsupported("input rank %d", r)
	}
	var axes []int64
	for i := 2; i < r; i++ {
		axes = append(axes, int64(i))
	}
	return one(c.Emit("relax.nn.instance_norm", []ir.Expr{n.In[0].Expr, n.In[1].Expr, n.In[2].Expr},
		Attr("channel_axis", int64(1)), Attr("axes", intsAny(axes)), Attr("epsilon", n.Float("epsilon", 1e-5))))
}

func convLayerNorm(c *Ctx, n *Node) ([]*Value, error) {
	x, scale := n.In[0], n.In[1]
	r := x.Rank()
	axis, err := normAxis(n, n.Int("axis", -1), r)
	if err != nil {
		return nil, err
	}
	if st := n.Int("stash_type", 1); st != 1 {
		return nil, n.unsupported("stash_type=%d", st)
	}
	eps := n.Float("epsilon", 1e-5)
	var axes []int64
	for i := axis; i < r; i++ {
		axes = append(axes, int64(i))
	}
	bias := n.Input(2)
	if n.NumOut == 1 && x.DType() == runtime.Float32 && sameDims(scale.Dims(), x.Dims()[axis:]) && (bias == nil || sameDims(bias.Dims(), x.Dims()[axis:])) {
		if bias == nil {
			var err error
			if bias, err = c.Emit("relax.zeros_like", []ir.Expr{scale.Expr}); err != nil {
				return nil, err
			}
		}
		return one(c.Emit("relax.nn.layer_norm", []ir.Expr{x.Expr, scale.Expr, bias.Expr}, Attr("axes", intsAny(axes)), Attr("epsilon", eps)))
	}
	f := &formula{c: c}
	keep := []ir.Attr{Attr("axis", intsAny(axes)), Attr("keepdims", true)}
	mean := f.un("relax.mean", x, keep...)
	d := f.bin("relax.subtract", x, mean)
	variance := f.un("relax.mean", f.bin("relax.multiply", d, d), keep...)
	inv := f.bin("relax.divide", f.k(1, x), f.un("relax.sqrt", f.bin("relax.add", variance, f.k(eps, x))))
	y := f.bin("relax.multiply", f.bin("relax.multiply", d, inv), scale)
	if bias != nil {
		y = f.bin("relax.add", y, bias)
	}
	if f.err != nil {
		return nil, f.err
	}
	return []*Value{y, mean, inv}, nil
}

func sameDims(a, b []ir.PrimExpr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !ir.ProveEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

func convGemm(c *Ctx, n *Node) ([]*Value, error) {
	a, b := n.In[0], n.In[1]
	if a.Rank() != 2 || b.Rank() != 2 {
		return nil, n.unsupported("inputs of rank %d and %d", a.Rank(), b.Rank())
	}
	f := &formula{c: c}
	if n.Int("transA", 0) != 0 {
		a = f.un("relax.permute_dims", a, Attr("axes", []any{int64(1), int64(0)}))
	}
	if n.Int("transB", 0) != 0 {
		b = f.un("relax.permute_dims", b, Attr("axes", []any{int64(1), int64(0)}))
	}
	if f.err != nil {
		return nil, f.err
	}
	y := f.bin("relax.matmul", a, b)
	if alpha := n.Float("alpha", 1); alpha != 1 {
		y = f.bin("relax.multiply", y, f.k(alpha, y))
	}
	if cv := n.Input(2); cv != nil {
		if beta := n.Float("beta", 1); beta != 1 {
			cv = f.bin("relax.multiply", cv, f.k(beta, cv))
		}
		y = f.bin("relax.add", y, cv)
	}
	return one(y, f.err)
}

func convSoftmax(op string) ConvFunc {
	return func(c *Ctx, n *Node) ([]*Value, error) {
		if err := needInputs(n, 1); err != nil {
			return nil, err
		}
		x := n.In[0]
		r := x.Rank()
		if n.Opset >= 13 {
			axis, err := normAxis(n, n.Int("axis", -1), r)
			if err != nil {
				return nil, err
			}
			return one(c.Un(op, x, Attr("axis", int64(axis))))
		}
		// Before opset 13 the input is coerced to 2-D at axis.
		axis, err := normAxis(n, n.Int("axis", 1), r)
		if err != nil {
			return nil, err
		}
		dims := x.Dims()
		a, b := ir.PrimExpr(ir.Int64(1)), ir.PrimExpr(ir.Int64(1))
		for i, d := range dims {
			if i < axis {
				a = ir.Mul(a, d)
			} else {
				b = ir.Mul(b, d)
			}
		}
		flat, err := c.Emit("relax.reshape", []ir.Expr{x.Expr, shapeExpr([]ir.PrimExpr{a, b})})
		if err != nil {
			return nil, err
		}
		y, err := c.Un(op, flat, Attr("axis", int64(-1)))
		if err != nil {
			return nil, err
		}
		return one(c.Emit("relax.reshape", []ir.Expr{y.Expr, shapeExpr(dims)}))
	}
}

func convResize(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	dims, ok := x.StaticDims()
	if !ok {
		return nil, n.unsupported("input shape must be static")
	}
	general := n.Op == "Resize" && n.Opset >= 11
	if len(dims) != 4 {
		if general {
			return resizeSeparable(c, n, x, dims)
		}
		return nil, n.unsupported("only 4-D (NCHW) resize is supported, input has rank %d", len(dims))
	}
	mode := n.Str("mode", "nearest")
	method := map[string]string{"nearest": "nearest_neighbor", "linear": "linear", "cubic": "cubic"}[mode]
	if method == "" {
		return nil, n.unsupported("mode=%q", mode)
	}
	ctm := n.Str("coordinate_transformation_mode", "half_pixel")
	if n.Op == "Upsample" || n.Opset < 11 {
		ctm = "asymmetric"
	}
	if general && (ctm == "tf_crop_and_resize" || ctm == "half_pixel_symmetric" || n.Int("antialias", 0) != 0 ||
		n.Str("keep_aspect_ratio_policy", "stretch") != "stretch" ||
		mode == "nearest" && n.Str("nearest_mode", "round_prefer_floor") == "round_prefer_ceil") {
		return resizeSeparable(c, n, x, dims)
	}
	if ctm == "tf_crop_and_resize" {
		return nil, n.unsupported("coordinate_transformation_mode=tf_crop_and_resize")
	}
	if n.Has("antialias") && n.Int("antialias", 0) != 0 {
		return nil, n.unsupported("antialias=1")
	}
	axes := n.Ints("axes", nil)
	for i, a := range axes {
		if a < 0 {
			a += int64(len(dims))
		}
		if a < 0 || a >= int64(len(dims)) {
			return nil, fmt.Errorf("axes %v out of range", n.Ints("axes", nil))
		}
		axes[i] = a
	}
	if kar := n.Str("keep_aspect_ratio_policy", "stretch"); kar != "stretch" {
		return nil, n.unsupported("keep_aspect_ratio_policy=%q", kar)
	}
	var scales []float64
	var sizes []int64
	scaleIdx := 2
	if n.Op == "Upsample" || n.Opset < 11 {
		scaleIdx = 1
		if n.Op == "Upsample" && n.Opset < 9 {
			scales = n.Floats("scales", nil)
		}
	}
	if v := n.Input(scaleIdx); v != nil && scales == nil {
		s, ok := v.Floats()
		if !ok {
			return nil, n.unsupported("scales must be known at import time")
		}
		if len(s) > 0 {
			scales = s
		}
	}
	if v := n.Input(3); v != nil && n.Opset >= 11 && n.Op == "Resize" {
		s, ok := v.Ints()
		if !ok {
			return nil, n.unsupported("sizes must be known at import time")
		}
		if len(s) > 0 {
			sizes = s
		}
	}
	if axes != nil {
		// Scales and sizes name only the listed axes: complete them.
		if sizes != nil && len(sizes) == len(axes) {
			full := append([]int64{}, dims...)
			for i, a := range axes {
				full[a] = sizes[i]
			}
			sizes = full
		}
		if scales != nil && len(scales) == len(axes) {
			full := []float64{1, 1, 1, 1}
			for i, a := range axes {
				full[a] = scales[i]
			}
			scales = full
		}
	}
	switch {
	case sizes != nil:
		if len(sizes) != 4 {
			return nil, fmt.Errorf("sizes %v", sizes)
		}
	case scales != nil:
		if len(scales) != 4 {
			return nil, fmt.Errorf("scales %v", scales)
		}
		for i, d := range dims {
			sizes = append(sizes, int64(float64(d)*scales[i]))
		}
	default:
		return nil, n.unsupported("neither scales nor sizes")
	}
	if sizes[0] != dims[0] || sizes[1] != dims[1] {
		if general {
			return resizeSeparable(c, n, x, dims)
		}
		return nil, n.unsupported("resizing the batch or channel dimension")
	}
	if scales != nil && ctm != "asymmetric" && ctm != "half_pixel" && ctm != "pytorch_half_pixel" && ctm != "align_corners" {
		return nil, n.unsupported("coordinate_transformation_mode=%q", ctm)
	}
	if scales != nil && float64(sizes[2]) != float64(dims[2])*scales[2] || scales != nil && float64(sizes[3]) != float64(dims[3])*scales[3] {
		if general {
			return resizeSeparable(c, n, x, dims)
		}
		if ctm == "half_pixel" || ctm == "asymmetric" || ctm == "pytorch_half_pixel" || ctm == "align_corners" {
			return nil, n.unsupported("non-integral output size from scales with %s (the kernel derives the scale from sizes)", ctm)
		}
	}
	roi := []any{0.0, 0.0, 0.0, 0.0}
	nearest := n.Str("nearest_mode", "round_prefer_floor")
	if n.Opset < 11 {
		nearest = "floor"
	}
	if mode != "nearest" {
		nearest = ""
	}
	return one(c.Emit("relax.image.resize2d", []ir.Expr{x.Expr, shapeExpr([]ir.PrimExpr{ir.Int64(sizes[2]), ir.Int64(sizes[3])})},
		Attr("roi", roi), Attr("layout", "NCHW"), Attr("method", method), Attr("coordinate_transformation_mode", ctm),
		Attr("rounding_method", nearest), Attr("cubic_alpha", n.Float("cubic_coeff_a", -0.75)),
		Attr("cubic_exclude", n.Int("exclude_outside", 0)), Attr("extrapolation_value", n.Float("extrapolation_value", 0))))
}

// spatialDims returns the static dimensions after N and C.
func spatialDims(x *Value) ([]int64, bool) {
	d := x.Dims()
	if len(d) < 3 {
		return nil, false
	}
	out := make([]int64, len(d)-2)
	for i, e := range d[2:] {
		v, ok := ir.AsInt(e)
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// checkRange refuses attribute values below lo or absurdly large.
func checkRange(n *Node, name string, v []int64, lo int64) error {
	for _, x := range v {
		if x < lo || x > 1<<31 {
			return fmt.Errorf("%s %v: values must be in [%d, 2^31]", name, v, lo)
		}
	}
	return nil
}

// batchNormTraining normalizes with the batch statistics and returns the
// updated running mean and variance (ONNX opset 14+ training_mode=1).
func batchNormTraining(c *Ctx, n *Node) ([]*Value, error) {
	x := n.In[0]
	r := x.Rank()
	if r < 2 {
		return nil, n.unsupported("input rank %d", r)
	}
	axes := []int64{0}
	for i := 2; i < r; i++ {
		axes = append(axes, int64(i))
	}
	f := &formula{c: c}
	keep := []ir.Attr{Attr("axis", intsAny(axes)), Attr("keepdims", true)}
	mean := f.un("relax.mean", x, keep...)
	d := f.bin("relax.subtract", x, mean)
	variance := f.un("relax.mean", f.bin("relax.multiply", d, d), keep...)
	if f.err != nil {
		return nil, f.err
	}
	scale, err := c.channelShape(n.In[1], r)
	if err != nil {
		return nil, err
	}
	bias, err := c.channelShape(n.In[2], r)
	if err != nil {
		return nil, err
	}
	y := f.bin("relax.add", f.bin("relax.multiply", f.bin("relax.divide", d,
		f.un("relax.sqrt", f.bin("relax.add", variance, f.k(n.Float("epsilon", 1e-5), x)))), scale), bias)
	out := []*Value{y}
	if n.NumOut > 1 {
		m := n.Float("momentum", 0.9)
		cm := f.un("relax.squeeze", mean, Attr("axis", intsAny(axes)))
		cv := f.un("relax.squeeze", variance, Attr("axis", intsAny(axes)))
		rm := f.bin("relax.add", f.bin("relax.multiply", n.In[3], f.k(m, x)), f.bin("relax.multiply", cm, f.k(1-m, x)))
		rv := f.bin("relax.add", f.bin("relax.multiply", n.In[4], f.k(m, x)), f.bin("relax.multiply", cv, f.k(1-m, x)))
		out = append(out, rm, rv)
	}
	return out, f.err
}
