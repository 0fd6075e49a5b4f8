package ir

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
)

// Registration of the Relax operators. Attribute orders follow TVM's C++
// attrs structs (the printing order); PyOrder follows the Python signature.

func arg(name string) ArgDef                { return ArgDef{Name: name} }
func argK(name string, k ArgKind) ArgDef    { return ArgDef{Name: name, Kind: k} }
func optArg(name string, k ArgKind) ArgDef  { return ArgDef{Name: name, Kind: k, Optional: true} }
func varArgs(name string, k ArgKind) ArgDef { return ArgDef{Name: name, Kind: k, Variadic: true} }
func defArg(name string, k ArgKind, d any) ArgDef {
	return ArgDef{Name: name, Kind: k, Default: d}
}

func attrI(name string, d int64) AttrDef      { return AttrDef{Name: name, Kind: AttrInt, Default: d} }
func attrF(name string, d float64) AttrDef    { return AttrDef{Name: name, Kind: AttrFloat, Default: d} }
func attrB(name string, d bool) AttrDef       { return AttrDef{Name: name, Kind: AttrBool, Default: d} }
func attrS(name string, d string) AttrDef     { return AttrDef{Name: name, Kind: AttrString, Default: d} }
func attrDT(name string) AttrDef              { return AttrDef{Name: name, Kind: AttrDType} }
func attrReq(name string, k AttrKind) AttrDef { return AttrDef{Name: name, Kind: k, Required: true} }
func attrOptI(name string) AttrDef            { return AttrDef{Name: name, Kind: AttrInt, Optional: true} }
func attrOptInts(name string) AttrDef         { return AttrDef{Name: name, Kind: AttrIntList, Optional: true} }
func attrInts(name string, n int, d ...int64) AttrDef {
	v := make([]any, len(d))
	for i, x := range d {
		v[i] = x
	}
	return AttrDef{Name: name, Kind: AttrIntList, Len: n, Default: v}
}

func reg(name string, pure bool, infer func(*Call, *InferCtx) (StructInfo, error), args []ArgDef, attrs ...AttrDef) *OpDef {
	d := &OpDef{Name: name, Args: args, Attrs: attrs, Infer: infer, Pure: pure}
	RegisterOp(d)
	return d
}

func args(a ...ArgDef) []ArgDef { return a }

func init() {
	float := inferUnary(true, runtime.Void)
	anyDT := inferUnary(false, runtime.Void)
	x := args(arg("x"))
	// Unary ops: TVM requires float inputs for transcendental functions.
	for _, n := range []string{"acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp",
		"log", "rsqrt", "sigmoid", "sin", "sinh", "sqrt", "tan", "tanh", "erf"} {
		reg("relax."+n, true, float, x)
	}
	for _, n := range []string{"abs", "ceil", "floor", "negative", "round", "sign", "square", "trunc",
		"logical_not", "bitwise_not"} {
		reg("relax."+n, true, anyDT, x)
	}
	boolOut := inferUnary(false, boolDType)
	for _, n := range []string{"isfinite", "isinf", "isnan"} {
		reg("relax."+n, true, boolOut, x)
	}
	reg("relax.clip", true, inferClip, args(arg("x"), argK("min", ArgPrim), argK("max", ArgPrim)))

	// Binary broadcasting ops.
	xy := args(arg("x1"), arg("x2"))
	for _, n := range []string{"add", "subtract", "multiply", "divide", "floor_divide", "floor_mod", "mod",
		"power", "maximum", "minimum", "logical_and", "logical_or", "logical_xor", "bitwise_and",
		"bitwise_or", "bitwise_xor", "left_shift", "right_shift", "log_add_exp", "atan2"} {
		reg("relax."+n, true, inferBinary(false), xy)
	}
	for _, n := range []string{"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"} {
		reg("relax."+n, true, inferBinary(true), xy)
	}
	reg("relax.where", true, inferWhere, args(arg("condition"), arg("x1"), arg("x2")))

	// Activations and normalization.
	data := args(arg("data"))
	for _, n := range []string{"relu", "relu6"} {
		reg("relax.nn."+n, true, anyDT, data)
	}
	for _, n := range []string{"gelu", "gelu_tanh", "silu", "selu"} {
		reg("relax.nn."+n, true, float, data)
	}
	reg("relax.nn.leakyrelu", true, float, data, attrF("alpha", 0.01))
	reg("relax.nn.softplus", true, float, data, attrF("beta", 1), attrF("threshold", 20))
	reg("relax.nn.prelu", true, inferFirstArg, args(arg("data"), arg("alpha")), attrI("axis", 1))
	reg("relax.nn.softmax", true, inferSoftmax, data, attrI("axis", -1))
	reg("relax.nn.log_softmax", true, inferSoftmax, data, attrI("axis", -1))
	reg("relax.nn.layer_norm", true, inferNorm(2), args(arg("data"), arg("gamma"), arg("beta")),
		AttrDef{Name: "axes", Kind: AttrIntList, Required: true}, attrF("epsilon", 1e-5), attrB("center", true), attrB("scale", true))
	reg("relax.nn.rms_norm", true, inferNorm(1), args(arg("data"), arg("weight")),
		attrInts("axes", 0, -1), attrF("epsilon", 1e-5))
	reg("relax.nn.group_norm", true, inferFirstArg, args(arg("data"), arg("gamma"), arg("beta")),
		attrReq("num_groups", AttrInt), attrReq("channel_axis", AttrInt), attrReq("axes", AttrIntList),
		attrF("epsilon", 1e-5), attrB("center", true), attrB("scale", true))
	reg("relax.nn.instance_norm", true, inferFirstArg, args(arg("data"), arg("gamma"), arg("beta")),
		attrReq("channel_axis", AttrInt), attrReq("axes", AttrIntList),
		attrF("epsilon", 1e-5), attrB("center", true), attrB("scale", true))
	reg("relax.nn.batch_norm", true, inferBatchNorm,
		args(arg("data"), arg("gamma"), arg("beta"), arg("moving_mean"), arg("moving_var")),
		attrReq("axis", AttrInt), attrF("epsilon", 1e-5), attrB("center", true), attrB("scale", true),
		attrF("momentum", 0.1), attrB("training", true))
	reg("relax.nn.dropout", true, inferDropout, data, attrF("rate", 0.5))
	reg("relax.nn.pad", true, inferPad, data,
		attrReq("pad_width", AttrIntList), attrF("pad_value", 0), attrS("pad_mode", "constant")).
		PyOrder = []string{"data", "pad_width", "pad_mode", "pad_value"}

	// Convolution and pooling.
	dw := args(arg("data"), arg("weight"))
	for n, sp := range map[int]string{1: "W", 2: "HW", 3: "DHW"} {
		suffix := fmt.Sprintf("%dd", n)
		d := reg("relax.nn.conv"+suffix, true, inferConv(n, false), dw,
			attrOnes("strides", n), attrZeros("padding", n), attrOnes("dilation", n), attrI("groups", 1),
			attrS("data_layout", "NC"+sp), attrS("kernel_layout", "OI"+sp), optOutLayout, attrDT("out_dtype"))
		d.Fixup = convFixup(n, "data_layout")
		d = reg("relax.nn.conv"+suffix+"_transpose", true, inferConv(n, true), dw,
			attrOnes("strides", n), attrZeros("padding", n), attrZeros("output_padding", n), attrOnes("dilation", n),
			attrI("groups", 1), attrS("data_layout", "NC"+sp), attrS("kernel_layout", "IO"+sp), optOutLayout,
			attrDT("out_dtype"))
		d.Fixup = convFixup(n, "data_layout")
		for _, kind := range []string{"max", "avg"} {
			d = reg("relax.nn."+kind+"_pool"+suffix, true, inferPool(n), data,
				attrOnes("pool_size", n), attrOnes("strides", n), attrZeros("padding", n), attrOnes("dilation", n),
				attrB("ceil_mode", false), attrB("count_include_pad", kind == "avg" && n != 2),
				attrS("layout", "NC"+sp), optOutLayout)
			d.Fixup = convFixup(n, "layout")
		}
		d = reg("relax.nn.adaptive_avg_pool"+suffix, true, inferAdaptivePool(n), data,
			AttrDef{Name: "output_size", Kind: AttrIntList, Optional: true, Len: n},
			attrS("layout", "NC"+sp), optOutLayout)
		d.Fixup = convFixup(n, "layout")
	}

	// Linear algebra.
	reg("relax.matmul", true, inferMatmul, xy, attrDT("out_dtype"))

	// Reductions.
	for _, n := range []string{"sum", "mean", "max", "min", "prod", "variance", "std"} {
		reg("relax."+n, true, inferReduce, x, attrOptInts("axis"), attrB("keepdims", false))
	}
	for _, n := range []string{"argmax", "argmin"} {
		reg("relax."+n, true, inferArgReduce, x, attrOptI("axis"), attrB("keepdims", false))
	}

	// Manipulation.
	reg("relax.reshape", true, inferReshape, args(arg("x"), argK("shape", ArgShape)))
	reg("relax.permute_dims", true, inferPermuteDims, x, attrOptInts("axes"))
	reg("relax.concat", true, inferConcat, args(argK("tensors", ArgTuple)),
		AttrDef{Name: "axis", Kind: AttrInt, Optional: true, Default: int64(0)})
	reg("relax.stack", true, inferStack, args(argK("tensors", ArgTuple)),
		AttrDef{Name: "axis", Kind: AttrInt, Optional: true, Default: int64(0)})
	reg("relax.split", true, inferSplit, x, attrReq("indices_or_sections", AttrIntOrList), attrI("axis", 0))
	reg("relax.squeeze", true, inferSqueeze, x, attrOptInts("axis"))
	reg("relax.expand_dims", true, inferExpandDims, x, attrReq("axis", AttrIntList))
	reg("relax.flatten", true, inferFlatten, x)
	reg("relax.broadcast_to", true, inferBroadcastTo, args(arg("x"), argK("shape", ArgShape)))
	reg("relax.strided_slice", true, inferStridedSlice,
		args(arg("x"), argK("axes", ArgPrimTuple), argK("begin", ArgPrimTuple), argK("end", ArgPrimTuple),
			optArg("strides", ArgPrimTuple)), attrB("assume_inbound", false))
	reg("relax.take", true, inferTake, args(arg("x"), arg("indices")), attrOptI("axis"), attrS("mode", "fast"))
	reg("relax.tile", true, inferTile, args(arg("data")), attrReq("repeats", AttrIntList))
	reg("relax.repeat", true, inferRepeat, args(arg("data")), attrReq("repeats", AttrInt), attrOptI("axis"))
	reg("relax.flip", true, inferFlip, args(arg("data")), attrReq("axis", AttrInt))
	reg("relax.astype", true, inferAstype, x, AttrDef{Name: "dtype", Kind: AttrDType, Required: true})
	reg("relax.wrap_param", true, inferAstype, args(arg("data")), AttrDef{Name: "dtype", Kind: AttrDType, Default: "float32"})

	// Creation.
	shape := argK("shape", ArgShape)
	reg("relax.zeros", true, inferFillShape(-1), args(shape), AttrDef{Name: "dtype", Kind: AttrDType, Required: true})
	reg("relax.ones", true, inferFillShape(-1), args(shape), AttrDef{Name: "dtype", Kind: AttrDType, Required: true})
	reg("relax.full", true, inferFillShape(1), args(shape, arg("fill_value")), attrDT("dtype"))
	reg("relax.zeros_like", true, inferLike(-1), x, attrDT("dtype"))
	reg("relax.ones_like", true, inferLike(-1), x, attrDT("dtype"))
	reg("relax.full_like", true, inferLike(1), args(arg("x"), arg("fill_value")), attrDT("dtype"))
	d := reg("relax.arange", true, inferArange,
		args(argK("start", ArgPrim), optArg("end", ArgPrim), defArg("step", ArgPrim, int64(1))), attrDT("dtype"))
	d.Prep, d.Fixup = arangePrep, arangeFixup
	reg("relax.tril", true, inferTriangular, args(arg("x"), defArg("k", ArgPrim, int64(0))))
	reg("relax.triu", true, inferTriangular, args(arg("x"), defArg("k", ArgPrim, int64(0))))

	// Infrastructure.
	callTIR := args(argK("func", ArgExpr), argK("args", ArgWrapTuple), optArg("tir_vars", ArgShape))
	reg("relax.call_tir", true, inferCallTIR, callTIR)
	reg("relax.call_tir_with_grad", true, inferCallTIR, callTIR, attrS("te_grad_name", ""),
		AttrDef{Name: "te_grad_kwargs", Kind: AttrAny})
	reg("relax.call_tir_inplace", true, inferCallTIR, callTIR, attrReq("inplace_indices", AttrIntList))
	reg("relax.call_dps_packed", true, inferCallTIR, args(argK("func", ArgExtern), argK("args", ArgWrapTuple)))
	reg("relax.call_pure_packed", true, inferSInfoArgs, args(argK("func", ArgExtern), varArgs("args", ArgExpr)))
	reg("relax.call_inplace_packed", true, inferSInfoArgs, args(argK("func", ArgExtern), varArgs("args", ArgExpr)),
		attrReq("inplace_indices", AttrIntList))
	reg("relax.call_builtin_with_ctx", false, inferSInfoArgs, args(argK("func", ArgExtern), argK("args", ArgWrapTuple)))
	reg("relax.make_closure", true, inferMakeClosure, args(arg("func"), argK("args", ArgWrapTuple)))
	reg("relax.invoke_closure", false, inferInvokeClosure, args(arg("closure"), argK("args", ArgWrapTuple)))
	reg("relax.invoke_pure_closure", true, inferInvokeClosure, args(arg("closure"), argK("args", ArgWrapTuple)))
	reg("relax.null_value", true, inferObject, nil)
	reg("relax.shape_of", true, inferShapeOf, args(arg("expr")))
	reg("relax.builtin.stop_lift_params", true, inferFirstArg, x)
	reg("relax.memory.alloc_storage", true, inferObject,
		args(argK("size", ArgShape), argK("virtual_device_index", ArgPrim), argK("storage_scope", ArgString),
			argK("dtype", ArgDType)))
	reg("relax.memory.alloc_tensor", true, inferAllocTensor(2, 3),
		args(arg("storage"), argK("offset", ArgPrim), argK("shape", ArgShape), argK("dtype", ArgDType),
			optArg("runtime_device_index", ArgPrim)))
	reg("relax.memory.kill_storage", false, inferVoid, args(arg("storage")))
	reg("relax.memory.kill_tensor", false, inferVoid, args(arg("tensor")))
	reg("relax.vm.alloc_storage", true, inferObject,
		args(argK("size", ArgShape), argK("runtime_device_index", ArgPrim), argK("dtype", ArgDType),
			defArg("storage_scope", ArgString, "global")))
	reg("relax.vm.alloc_tensor", true, inferAllocTensor(2, 3),
		args(arg("storage"), argK("offset", ArgPrim), argK("shape", ArgShape), argK("dtype", ArgDType),
			optArg("runtime_device_index", ArgPrim)))
	reg("relax.vm.kill_object", false, inferVoid, args(arg("obj")))
	reg("relax.vm.call_tir_dyn", false, inferVoid, args(arg("func"), argK("args", ArgWrapTuple)))
	reg("relax.builtin.alloc_tensor", true, inferAllocTensor(0, 1),
		args(argK("shape", ArgShape), argK("dtype", ArgDType), argK("runtime_device_index", ArgPrim),
			defArg("storage_scope", ArgString, "global")))
	d = reg("relax.print", false, inferVoid, args(argK("format", ArgString), varArgs("vals", ArgExpr)))
	d.Prep = printPrep
	d = reg("relax.assert_op", false, inferAssert,
		args(arg("condition"), argK("format", ArgString), varArgs("format_args", ArgExpr)))
	d.Prep = assertPrep
}

var boolDType = runtime.Bool

// optOutLayout is out_layout: None or "" means the input layout.
var optOutLayout = AttrDef{Name: "out_layout", Kind: AttrString, Optional: true, Default: ""}

func attrOnes(name string, n int) AttrDef {
	d := make([]int64, n)
	for i := range d {
		d[i] = 1
	}
	return attrInts(name, n, d...)
}

func attrZeros(name string, n int) AttrDef { return attrInts(name, n, make([]int64, n)...) }

// convFixup completes conv/pool attributes as TVM's constructors do:
// padding of 1 or n values becomes 2n values (before..., after...), and an
// empty out_layout takes the input layout.
func convFixup(n int, layoutKey string) func(*Call) error {
	return func(c *Call) error {
		if v, ok := c.Attrs.Get("padding"); ok {
			p, _ := v.([]any)
			switch len(p) {
			case 1:
				q := make([]any, 2*n)
				for i := range q {
					q[i] = p[0]
				}
				p = q
			case n:
				p = append(append([]any{}, p...), p...)
			case 2 * n:
			default:
				return fmt.Errorf("padding must have 1, %d or %d values, got %d", n, 2*n, len(p))
			}
			c.Attrs = c.Attrs.Set("padding", p)
		}
		for _, k := range []string{"strides", "dilation", "pool_size", "output_padding"} {
			if v, ok := c.Attrs.Get(k); ok {
				l, _ := v.([]any)
				if len(l) == 1 && n > 1 {
					// One value stands for every spatial axis, as TVM's
					// constructors expand it.
					q := make([]any, n)
					for i := range q {
						q[i] = l[0]
					}
					c.Attrs = c.Attrs.Set(k, q)
					continue
				}
				if len(l) != n {
					return fmt.Errorf("%s must have 1 or %d values, got %d", k, n, len(l))
				}
			}
		}
		if v, _ := c.Attrs.Get("out_layout"); v == "" || v == nil {
			in, _ := c.Attrs.Get(layoutKey)
			c.Attrs = c.Attrs.Set("out_layout", in)
		}
		return nil
	}
}

// arangePrep applies arange(end) == arange(0, end).
func arangePrep(c *Call) error {
	_, hasEnd := c.Attrs.Get("end")
	_, hasStart := c.Attrs.Get("start")
	if len(c.Args) == 1 && !hasEnd && !hasStart {
		c.Args = []Expr{&PrimValue{ExprBase{Loc: c.Loc}, Int64(0)}, c.Args[0]}
	}
	return nil
}

// arangeFixup picks the default dtype: int64 when start, end and step are
// integers, else float32.
func arangeFixup(c *Call) error {
	if dt := dtypeAttr(c, "dtype"); !dt.IsVoid() {
		return nil
	}
	dt := runtime.Int64
	for _, a := range c.Args {
		pv, ok := a.(*PrimValue)
		if !ok || pv.Value.DType().IsFloat() {
			dt = runtime.Float32
		}
	}
	c.Attrs = c.Attrs.Set("dtype", dt)
	return nil
}

// printPrep moves print's format keyword to the front of the arguments
// (TVM's argument order: format, values...).
func printPrep(c *Call) error {
	f, ok := c.Attrs.Get("format")
	if ok {
		c.Attrs = removeAttr(c.Attrs, "format")
		e, err := literalExpr(f, c.Loc)
		if err != nil {
			return err
		}
		c.Args = append([]Expr{e}, c.Args...)
		return nil
	}
	if len(c.Args) == 0 {
		c.Args = []Expr{&StringImm{ExprBase{Loc: c.Loc}, ""}}
		return nil
	}
	if _, isStr := c.Args[0].(*StringImm); !isStr {
		c.Args = append([]Expr{&StringImm{ExprBase{Loc: c.Loc}, ""}}, c.Args...)
	}
	return nil
}

// assertPrep puts assert_op's arguments in TVM's order: condition, format, format_args...
func assertPrep(c *Call) error {
	var fargs []Expr
	if v, ok := c.Attrs.Get("format_args"); ok {
		c.Attrs = removeAttr(c.Attrs, "format_args")
		switch x := v.(type) {
		case *Tuple:
			fargs = x.Fields
		case Expr:
			fargs = []Expr{x}
		case []any:
			for _, it := range x {
				e, err := literalExpr(it, c.Loc)
				if err != nil {
					return err
				}
				fargs = append(fargs, e)
			}
		}
	}
	f, hasFormat := c.Attrs.Get("format")
	if hasFormat {
		c.Attrs = removeAttr(c.Attrs, "format")
	}
	if len(c.Args) == 0 {
		return fmt.Errorf("missing argument %q", "condition")
	}
	rest := c.Args[1:]
	if hasFormat {
		e, err := literalExpr(f, c.Loc)
		if err != nil {
			return err
		}
		// Positional format arguments may be one tuple (Python's format_args).
		if len(rest) == 1 {
			if t, ok := rest[0].(*Tuple); ok {
				rest = t.Fields
			}
		}
		c.Args = append(append([]Expr{c.Args[0], e}, rest...), fargs...)
		return nil
	}
	if len(rest) > 0 {
		if _, isStr := rest[0].(*StringImm); isStr {
			c.Args = append(append([]Expr{}, c.Args...), fargs...)
			return nil
		}
		if len(rest) == 1 {
			if t, ok := rest[0].(*Tuple); ok {
				rest = t.Fields
			}
		}
	}
	c.Args = append(append([]Expr{c.Args[0], &StringImm{ExprBase{Loc: c.Loc}, ""}}, rest...), fargs...)
	return nil
}

func removeAttr(a Attrs, key string) Attrs {
	var out Attrs
	for _, x := range a {
		if x.Key != key {
			out = append(out, x)
		}
	}
	return out
}
