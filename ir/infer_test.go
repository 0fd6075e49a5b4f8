package ir

import (
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// dims builds a shape from ints and PrimExprs.
func dims(ds ...any) []PrimExpr {
	out := make([]PrimExpr, len(ds))
	for i, d := range ds {
		switch x := d.(type) {
		case int:
			out[i] = Int64(int64(x))
		case PrimExpr:
			out[i] = x
		}
	}
	return out
}

// tsi is a tensor struct info of dtype dt ("" = unknown) and dims.
func tsi(dt string, ds ...any) *TensorSInfo {
	t := runtime.Void
	if dt != "" {
		t = runtime.MustParseDataType(dt)
	}
	return NewTensorSInfo(dims(ds...), t)
}

// tv is a variable with struct info s.
// f32 and i64 make float32 and int64 tensor variables of the given dims,
// the vocabulary of the inference tables.
func f32(ds ...any) *Var { return tv("x", tsi("float32", ds...)) }

func i64(ds ...any) *Var { return tv("i", tsi("int64", ds...)) }

func tv(name string, s StructInfo) *Var {
	v := &Var{Name: name}
	v.SetSInfo(s)
	return v
}

func shapeE(ds ...any) *ShapeExpr {
	s := &ShapeExpr{Values: dims(ds...)}
	s.SetSInfo(&ShapeSInfo{Values: s.Values, NDim: len(s.Values)})
	return s
}

func primE(v int64) *PrimValue {
	p := &PrimValue{Value: Int64(v)}
	p.SetSInfo(&PrimSInfo{DType: runtime.Int64, Value: p.Value})
	return p
}

func tupleE(fs ...Expr) *Tuple {
	t := &Tuple{Fields: fs}
	var ss []StructInfo
	for _, f := range fs {
		ss = append(ss, f.SInfo())
	}
	t.SetSInfo(&TupleSInfo{ss})
	return t
}

// inferOp canonicalizes and infers a call of op.
func inferOp(op string, args []Expr, attrs Attrs) (StructInfo, error) {
	c := &Call{Callee: &Op{Name: op}, Args: args, Attrs: attrs}
	if err := CanonicalizeCall(c); err != nil {
		return nil, err
	}
	for _, a := range c.Args {
		if a != nil && a.SInfo() == nil {
			n := &normalizer{m: NewModule(), sym: map[*PrimVar]bool{}}
			if _, err := n.expr(a, nil); err != nil {
				return nil, err
			}
		}
	}
	return InferCall(c, &InferCtx{})
}

type inferCase struct {
	name  string
	op    string
	args  []Expr
	attrs Attrs
	want  string // SInfoString of the result, or "error: <substring>"
}

func runInferCases(t *testing.T, cases []inferCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := inferOp(tc.op, tc.args, tc.attrs)
			if strings.HasPrefix(tc.want, "error: ") {
				if err == nil {
					t.Fatalf("want error %q, got %s", tc.want, SInfoString(got))
				}
				if !strings.Contains(err.Error(), strings.TrimPrefix(tc.want, "error: ")) {
					t.Fatalf("error %q does not contain %q", err, strings.TrimPrefix(tc.want, "error: "))
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if s := SInfoString(got); s != tc.want {
				t.Fatalf("got %s\nwant %s", s, tc.want)
			}
		})
	}
}

func TestInferElementwise(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	m := NewPrimVar("m", runtime.Int64)
	runInferCases(t, []inferCase{
		{"add same", "relax.add", []Expr{f32(2, 3), f32(2, 3)}, nil, `R.Tensor((2, 3), dtype="float32")`},
		{"add broadcast", "relax.add", []Expr{f32(4, 1, 3), f32(5, 1)}, nil, `R.Tensor((4, 5, 3), dtype="float32")`},
		{"add sym", "relax.add", []Expr{f32(n, 16), f32(16)}, nil, `R.Tensor((n, 16), dtype="float32")`},
		{"add sym one", "relax.multiply", []Expr{f32(n, 1), f32(1, m)}, nil, `R.Tensor((n, m), dtype="float32")`},
		{"add sym unknown", "relax.add", []Expr{f32(n), f32(m)}, nil, `R.Tensor(ndim=1, dtype="float32")`},
		{"add sym equal", "relax.add", []Expr{f32(Mul(n, Int64(2))), f32(Mul(Int64(2), n))}, nil, `R.Tensor((n * 2,), dtype="float32")`},
		{"add scalar prim", "relax.add", []Expr{f32(2), primE(1)}, nil, "error: same dtype"},
		{"add mismatch", "relax.add", []Expr{f32(n, 16), f32(15)}, nil, "error: relax.add: cannot broadcast (n, 16) with (15,)"},
		{"add dtype", "relax.add", []Expr{f32(2), tv("y", tsi("int32", 2))}, nil, "error: same dtype"},
		{"add unknown dtype", "relax.add", []Expr{f32(2), tv("y", &TensorSInfo{NDim: -1, DType: runtime.Void})}, nil, `R.Tensor()`},
		{"add not tensor", "relax.add", []Expr{f32(2), shapeE(2)}, nil, "error: must be a tensor or a scalar"},
		{"less bool", "relax.less", []Expr{f32(3), f32(1)}, nil, `R.Tensor((3,), dtype="bool")`},
		{"equal 0d", "relax.less_equal", []Expr{tv("a", tsi("int64")), tv("b", tsi("int64"))}, nil, `R.Tensor((), dtype="bool")`},
		{"exp", "relax.exp", []Expr{f32(n, 2)}, nil, `R.Tensor((n, 2), dtype="float32")`},
		{"exp int", "relax.exp", []Expr{tv("i", tsi("int32", 2))}, nil, "error: floating-point"},
		{"negative int", "relax.negative", []Expr{tv("i", tsi("int32", 2))}, nil, `R.Tensor((2,), dtype="int32")`},
		{"isnan", "relax.isnan", []Expr{f32(2)}, nil, `R.Tensor((2,), dtype="bool")`},
		{"clip", "relax.clip", []Expr{f32(2), &PrimValue{Value: &FloatImm{0, runtime.Float64}}, &PrimValue{Value: &FloatImm{6, runtime.Float64}}}, nil, `R.Tensor((2,), dtype="float32")`},
		{"clip kw", "relax.clip", []Expr{f32(2)}, Attrs{{"min", 0.0}, {"max", 6.0}}, `R.Tensor((2,), dtype="float32")`},
		{"where", "relax.where", []Expr{tv("c", tsi("bool", 3, 1)), f32(4), f32(1)}, nil, `R.Tensor((3, 4), dtype="float32")`},
		{"where cond", "relax.where", []Expr{f32(3), f32(3), f32(3)}, nil, "error: condition must be bool"},
		{"relu", "relax.nn.relu", []Expr{f32(2, n)}, nil, `R.Tensor((2, n), dtype="float32")`},
		{"gelu", "relax.nn.gelu", []Expr{f32(2)}, nil, `R.Tensor((2,), dtype="float32")`},
		{"softmax", "relax.nn.softmax", []Expr{f32(2, 3)}, Attrs{{"axis", int64(-1)}}, `R.Tensor((2, 3), dtype="float32")`},
		{"softmax axis", "relax.nn.softmax", []Expr{f32(2, 3)}, Attrs{{"axis", int64(2)}}, "error: axis 2 is out of range"},
		{"leakyrelu", "relax.nn.leakyrelu", []Expr{f32(2)}, Attrs{{"alpha", 0.2}}, `R.Tensor((2,), dtype="float32")`},
		{"unary unknown ndim", "relax.sqrt", []Expr{tv("u", &TensorSInfo{NDim: -1, DType: runtime.Float32})}, nil, `R.Tensor(dtype="float32")`},
	})
}

func TestInferLinalgAndManip(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	m := NewPrimVar("m", runtime.Int64)
	runInferCases(t, []inferCase{
		{"matmul 2d", "relax.matmul", []Expr{f32(4, 64), f32(64, 32)}, Attrs{{"out_dtype", "void"}}, `R.Tensor((4, 32), dtype="float32")`},
		{"matmul sym", "relax.matmul", []Expr{f32(n, 16), f32(16, 8)}, nil, `R.Tensor((n, 8), dtype="float32")`},
		{"matmul batched", "relax.matmul", []Expr{f32(2, 1, 4, 5), f32(3, 5, 6)}, nil, `R.Tensor((2, 3, 4, 6), dtype="float32")`},
		{"matmul 1d left", "relax.matmul", []Expr{f32(5), f32(3, 5, 6)}, nil, `R.Tensor((3, 6), dtype="float32")`},
		{"matmul 1d right", "relax.matmul", []Expr{f32(2, 5), f32(5)}, nil, `R.Tensor((2,), dtype="float32")`},
		{"matmul 1d both", "relax.matmul", []Expr{f32(5), f32(5)}, nil, `R.Tensor((), dtype="float32")`},
		{"matmul out dtype", "relax.matmul", []Expr{f32(2, 5), f32(5, 1)}, Attrs{{"out_dtype", "float16"}}, `R.Tensor((2, 1), dtype="float16")`},
		{"matmul inner", "relax.matmul", []Expr{f32(2, 5), f32(4, 1)}, nil, "error: inner dimensions do not match"},
		{"matmul inner sym", "relax.matmul", []Expr{f32(2, Add(n, Int64(1))), f32(n, 3)}, nil, "error: inner dimensions"},
		{"matmul scalar", "relax.matmul", []Expr{f32(), f32(2)}, nil, "error: scalar"},
		{"permute default", "relax.permute_dims", []Expr{f32(2, 3, 4)}, Attrs{{"axes", nil}}, `R.Tensor((4, 3, 2), dtype="float32")`},
		{"permute axes", "relax.permute_dims", []Expr{f32(2, n, 4)}, Attrs{{"axes", []any{int64(0), int64(-1), int64(1)}}}, `R.Tensor((2, 4, n), dtype="float32")`},
		{"permute bad", "relax.permute_dims", []Expr{f32(2, 3)}, Attrs{{"axes", []any{int64(0), int64(0)}}}, "error: more than once"},
		{"reshape", "relax.reshape", []Expr{f32(8, 4), shapeE(2, 16)}, nil, `R.Tensor((2, 16), dtype="float32")`},
		{"reshape -1", "relax.reshape", []Expr{f32(8, 4), shapeE(-1, 16)}, nil, `R.Tensor((2, 16), dtype="float32")`},
		{"reshape sym -1", "relax.reshape", []Expr{f32(n, 4), shapeE(-1)}, nil, `R.Tensor((n * 4,), dtype="float32")`},
		{"reshape sym", "relax.reshape", []Expr{f32(n, 4), shapeE(2, Mul(n, Int64(2)))}, nil, `R.Tensor((2, n * 2), dtype="float32")`},
		{"reshape count", "relax.reshape", []Expr{f32(8, 4), shapeE(3, 10)}, nil, "error: cannot reshape (8, 4) (32 elements) to (3, 10)"},
		{"reshape tuple form", "relax.reshape", []Expr{f32(6), &Tuple{Fields: []Expr{pv(2), pv(3)}}}, nil, `R.Tensor((2, 3), dtype="float32")`},
		{"concat", "relax.concat", []Expr{tupleE(f32(n, 3), f32(m, 3))}, Attrs{{"axis", int64(0)}}, `R.Tensor((m + n, 3), dtype="float32")`},
		{"concat neg", "relax.concat", []Expr{tupleE(f32(2, 3), f32(2, 5))}, Attrs{{"axis", int64(-1)}}, `R.Tensor((2, 8), dtype="float32")`},
		{"concat mismatch", "relax.concat", []Expr{tupleE(f32(2, 3), f32(4, 5))}, Attrs{{"axis", int64(1)}}, "error: differ at dimension 0"},
		{"split sections", "relax.split", []Expr{f32(6, 4)}, Attrs{{"indices_or_sections", int64(3)}}, `R.Tuple(R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 4), dtype="float32"))`},
		{"split indices", "relax.split", []Expr{f32(4, 10)}, Attrs{{"indices_or_sections", []any{int64(3), int64(7)}}, {"axis", int64(-1)}}, `R.Tuple(R.Tensor((4, 3), dtype="float32"), R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 3), dtype="float32"))`},
		{"split uneven", "relax.split", []Expr{f32(5)}, Attrs{{"indices_or_sections", int64(3)}}, `R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((1,), dtype="float32"))`},
		{"split symbolic", "relax.split", []Expr{f32(n)}, Attrs{{"indices_or_sections", int64(2)}}, `R.Tuple(R.Tensor(((n + 1) // 2,), dtype="float32"), R.Tensor((n - (n + 1) // 2,), dtype="float32"))`},
		{"split uneven short", "relax.split", []Expr{f32(4)}, Attrs{{"indices_or_sections", int64(3)}}, `R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((0,), dtype="float32"))`},
		{"squeeze all", "relax.squeeze", []Expr{f32(1, 3, 1)}, nil, `R.Tensor((3,), dtype="float32")`},
		{"squeeze axis", "relax.squeeze", []Expr{f32(1, 3, 1)}, Attrs{{"axis", int64(-1)}}, `R.Tensor((1, 3), dtype="float32")`},
		{"squeeze non-unit axis is kept", "relax.squeeze", []Expr{f32(1, 3)}, Attrs{{"axis", []any{int64(0), int64(1)}}}, `R.Tensor((3,), dtype="float32")`},
		{"expand_dims", "relax.expand_dims", []Expr{f32(2, 3)}, Attrs{{"axis", []any{int64(0), int64(-1)}}}, `R.Tensor((1, 2, 3, 1), dtype="float32")`},
		{"flatten", "relax.flatten", []Expr{f32(n, 3, 2)}, nil, `R.Tensor((n * 6,), dtype="float32")`},
		{"broadcast_to", "relax.broadcast_to", []Expr{f32(3, 1), shapeE(2, 3, 4)}, nil, `R.Tensor((2, 3, 4), dtype="float32")`},
		{"broadcast_to bad", "relax.broadcast_to", []Expr{f32(3, 2), shapeE(3, 4)}, nil, "error: cannot broadcast"},
		{"strided_slice new", "relax.strided_slice", []Expr{f32(10, 8), tupleE(primE(1)), tupleE(primE(2)), tupleE(primE(7))}, nil, `R.Tensor((10, 5), dtype="float32")`},
		{"strided_slice old attrs", "relax.strided_slice", []Expr{f32(10, 8)}, Attrs{{"axes", []any{int64(0)}}, {"begin", []any{int64(1)}}, {"end", []any{int64(9)}}, {"strides", []any{int64(3)}}}, `R.Tensor((3, 8), dtype="float32")`},
		{"strided_slice neg", "relax.strided_slice", []Expr{f32(10)}, Attrs{{"axes", []any{int64(-1)}}, {"begin", []any{int64(-3)}}, {"end", []any{int64(100)}}}, `R.Tensor((3,), dtype="float32")`},
		{"strided_slice sym", "relax.strided_slice", []Expr{f32(n)}, Attrs{{"axes", []any{int64(0)}}, {"begin", []any{int64(1)}}, {"end", []any{int64(1) << 40}}}, `R.Tensor((n - 1,), dtype="float32")`},
		{"take", "relax.take", []Expr{f32(10, 4), tv("i", tsi("int64", n))}, Attrs{{"axis", int64(0)}}, `R.Tensor((n, 4), dtype="float32")`},
		{"take float idx", "relax.take", []Expr{f32(10, 4), f32(3)}, Attrs{{"axis", int64(0)}}, "error: indices must be integers"},
		{"tile", "relax.tile", []Expr{f32(2, 3)}, Attrs{{"repeats", []any{int64(2), int64(1), int64(2)}}}, `R.Tensor((2, 2, 6), dtype="float32")`},
		{"repeat", "relax.repeat", []Expr{f32(2, 3)}, Attrs{{"repeats", int64(2)}, {"axis", int64(1)}}, `R.Tensor((2, 6), dtype="float32")`},
		{"flip", "relax.flip", []Expr{f32(2, 3)}, Attrs{{"axis", int64(-1)}}, `R.Tensor((2, 3), dtype="float32")`},
		{"flip bad", "relax.flip", []Expr{f32(2, 3)}, Attrs{{"axis", int64(3)}}, "error: out of range"},
		{"astype", "relax.astype", []Expr{f32(2)}, Attrs{{"dtype", "int32"}}, `R.Tensor((2,), dtype="int32")`},
		{"stack", "relax.stack", []Expr{tupleE(f32(2, 3), f32(2, 3))}, Attrs{{"axis", int64(-1)}}, `R.Tensor((2, 3, 2), dtype="float32")`},
		{"stack mismatch", "relax.stack", []Expr{tupleE(f32(2, 3), f32(3, 3))}, nil, "error: same shape"},
	})
}

func TestInferReduceCreateNN(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	ints := func(v ...int64) []any {
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = x
		}
		return out
	}
	runInferCases(t, []inferCase{
		{"sum all", "relax.sum", []Expr{f32(2, 3)}, nil, `R.Tensor((), dtype="float32")`},
		{"sum axis", "relax.sum", []Expr{f32(2, n, 4)}, Attrs{{"axis", int64(-1)}}, `R.Tensor((2, n), dtype="float32")`},
		{"mean keepdims", "relax.mean", []Expr{f32(2, 3, 4)}, Attrs{{"axis", ints(0, 2)}, {"keepdims", true}}, `R.Tensor((1, 3, 1), dtype="float32")`},
		{"max dup", "relax.max", []Expr{f32(2, 3)}, Attrs{{"axis", ints(1, -1)}}, "error: more than once"},
		{"variance", "relax.variance", []Expr{f32(2, 3)}, Attrs{{"axis", ints(1)}}, `R.Tensor((2,), dtype="float32")`},
		{"argmax", "relax.argmax", []Expr{f32(2, 3)}, Attrs{{"axis", int64(1)}}, `R.Tensor((2,), dtype="int64")`},
		{"argmin keep", "relax.argmin", []Expr{f32(2, 3)}, Attrs{{"keepdims", true}}, `R.Tensor((1, 1), dtype="int64")`},
		{"zeros", "relax.zeros", []Expr{shapeE(2, n)}, Attrs{{"dtype", "float32"}}, `R.Tensor((2, n), dtype="float32")`},
		{"ones tuple", "relax.ones", []Expr{&Tuple{Fields: []Expr{pv(3)}}}, Attrs{{"dtype", "int32"}}, `R.Tensor((3,), dtype="int32")`},
		{"zeros no dtype", "relax.zeros", []Expr{shapeE(2)}, nil, "error: missing attribute \"dtype\""},
		{"full", "relax.full", []Expr{shapeE(2), tv("v", tsi("float16"))}, nil, `R.Tensor((2,), dtype="float16")`},
		{"full nonscalar", "relax.full", []Expr{shapeE(2), f32(2)}, nil, "error: fill value must be a scalar"},
		{"zeros_like", "relax.zeros_like", []Expr{f32(2, n)}, nil, `R.Tensor((2, n), dtype="float32")`},
		{"ones_like dtype", "relax.ones_like", []Expr{f32(2)}, Attrs{{"dtype", "int8"}}, `R.Tensor((2,), dtype="int8")`},
		{"arange", "relax.arange", []Expr{pv(5)}, nil, `R.Tensor((5,), dtype="int64")`},
		{"arange step", "relax.arange", []Expr{pv(1), pv(10), pv(3)}, nil, `R.Tensor((3,), dtype="int64")`},
		{"arange float", "relax.arange", []Expr{&PrimValue{Value: &FloatImm{0, runtime.Float64}}, &PrimValue{Value: &FloatImm{1, runtime.Float64}}, &PrimValue{Value: &FloatImm{0.25, runtime.Float64}}}, nil, `R.Tensor((4,), dtype="float32")`},
		{"tril", "relax.tril", []Expr{f32(3, 3)}, Attrs{{"k", int64(1)}}, `R.Tensor((3, 3), dtype="float32")`},
		{"triu 1d", "relax.triu", []Expr{f32(3)}, nil, "error: rank >= 2"},
		{"conv2d corpus", "relax.nn.conv2d", []Expr{f32(1, 3, 16, 16), f32(8, 3, 3, 3)}, Attrs{{"strides", ints(1, 1)}, {"padding", ints(1, 1, 1, 1)}, {"dilation", ints(1, 1)}, {"groups", int64(1)}, {"data_layout", "NCHW"}, {"kernel_layout", "OIHW"}, {"out_layout", "NCHW"}, {"out_dtype", "void"}}, `R.Tensor((1, 8, 16, 16), dtype="float32")`},
		{"conv2d stride", "relax.nn.conv2d", []Expr{f32(1, 8, 8, 8), f32(16, 8, 3, 3)}, Attrs{{"strides", int64(2)}, {"padding", int64(1)}}, `R.Tensor((1, 16, 4, 4), dtype="float32")`},
		{"conv2d pad2 dil", "relax.nn.conv2d", []Expr{f32(n, 4, 10, 12), f32(6, 2, 3, 3)}, Attrs{{"padding", ints(1, 0)}, {"dilation", ints(2, 1)}, {"groups", int64(2)}}, `R.Tensor((n, 6, 8, 10), dtype="float32")`},
		{"conv2d channels", "relax.nn.conv2d", []Expr{f32(1, 3, 8, 8), f32(8, 4, 3, 3)}, nil, "error: input channels 3 do not match"},
		{"conv2d NHWC", "relax.nn.conv2d", []Expr{f32(1, 8, 8, 3), f32(4, 3, 3, 3)}, Attrs{{"data_layout", "NHWC"}}, `R.Tensor((1, 6, 6, 4), dtype="float32")`},
		{"conv1d", "relax.nn.conv1d", []Expr{f32(2, 3, 10), f32(4, 3, 3)}, Attrs{{"padding", int64(1)}}, `R.Tensor((2, 4, 10), dtype="float32")`},
		{"conv2d_transpose", "relax.nn.conv2d_transpose", []Expr{f32(1, 4, 5, 5), f32(4, 2, 3, 3)}, Attrs{{"strides", ints(2, 2)}, {"padding", ints(1, 1)}, {"output_padding", ints(1, 1)}}, `R.Tensor((1, 2, 10, 10), dtype="float32")`},
		{"max_pool2d corpus", "relax.nn.max_pool2d", []Expr{f32(1, 8, 16, 16)}, Attrs{{"pool_size", ints(2, 2)}, {"strides", ints(2, 2)}, {"dilation", ints(1, 1)}, {"padding", ints(0, 0, 0, 0)}, {"ceil_mode", false}, {"count_include_pad", false}, {"layout", "NCHW"}, {"out_layout", "NCHW"}}, `R.Tensor((1, 8, 8, 8), dtype="float32")`},
		{"avg_pool2d ceil", "relax.nn.avg_pool2d", []Expr{f32(1, 1, 5, 5)}, Attrs{{"pool_size", int64(2)}, {"strides", int64(2)}, {"ceil_mode", true}}, `R.Tensor((1, 1, 3, 3), dtype="float32")`},
		// TVM drops a last window starting in the tail padding: h 17 + 1 + 1, window 2, stride 3 gives
		// 7 windows by ceil division, the last starting at 18 >= 17 + 1.
		{"avg_pool2d ceil last window in padding", "relax.nn.avg_pool2d", []Expr{f32(1, 5, 17, 7)}, Attrs{{"pool_size", ints(2, 5)}, {"strides", ints(3, 1)}, {"dilation", ints(1, 1)}, {"padding", ints(1, 0, 1, 2)}, {"ceil_mode", true}}, `R.Tensor((1, 5, 6, 5), dtype="float32")`},
		{"max_pool2d ceil last window in padding", "relax.nn.max_pool2d", []Expr{f32(1, 1, 4, 4)}, Attrs{{"pool_size", ints(1, 1)}, {"strides", ints(2, 2)}, {"dilation", ints(1, 1)}, {"padding", ints(0, 0, 1, 1)}, {"ceil_mode", true}}, `R.Tensor((1, 1, 2, 2), dtype="float32")`},
		{"max_pool2d sym", "relax.nn.max_pool2d", []Expr{f32(1, 1, n, 4)}, Attrs{{"pool_size", int64(2)}, {"strides", int64(2)}}, `R.Tensor((1, 1, (n - 2) // 2 + 1, 2), dtype="float32")`},
		{"pool rank", "relax.nn.max_pool2d", []Expr{f32(1, 8)}, nil, "error: rank-4"},
		{"adaptive", "relax.nn.adaptive_avg_pool2d", []Expr{f32(1, 16, 4, 4)}, Attrs{{"output_size", ints(1, 1)}}, `R.Tensor((1, 16, 1, 1), dtype="float32")`},
		{"adaptive none", "relax.nn.adaptive_avg_pool2d", []Expr{f32(1, 16, 4, 4)}, nil, `R.Tensor((1, 16, 4, 4), dtype="float32")`},
		{"pad", "relax.nn.pad", []Expr{f32(2, 3)}, Attrs{{"pad_width", ints(0, 1, 2, 3)}}, `R.Tensor((3, 8), dtype="float32")`},
		{"pad bad", "relax.nn.pad", []Expr{f32(2, 3)}, Attrs{{"pad_width", ints(0, 1)}}, "error: pad_width must have 4 values"},
		{"layer_norm", "relax.nn.layer_norm", []Expr{f32(1, 8, 32), f32(32), f32(32)}, Attrs{{"axes", ints(-1)}, {"epsilon", 1e-5}, {"center", true}, {"scale", true}}, `R.Tensor((1, 8, 32), dtype="float32")`},
		{"layer_norm gamma", "relax.nn.layer_norm", []Expr{f32(1, 8, 32), f32(16), f32(32)}, Attrs{{"axes", int64(-1)}}, "error: gamma shape (16,) does not match"},
		{"rms_norm", "relax.nn.rms_norm", []Expr{f32(n, 32), f32(32)}, nil, `R.Tensor((n, 32), dtype="float32")`},
		{"batch_norm", "relax.nn.batch_norm", []Expr{f32(2, 4, 5, 5), f32(4), f32(4), f32(4), f32(4)}, Attrs{{"axis", int64(1)}}, `R.Tuple(R.Tensor((2, 4, 5, 5), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"))`},
		{"dropout", "relax.nn.dropout", []Expr{f32(2)}, Attrs{{"rate", 0.1}}, `R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32"))`},
		{"log_softmax", "relax.nn.log_softmax", []Expr{f32(2, 3)}, nil, `R.Tensor((2, 3), dtype="float32")`},
	})
}

func TestInferInfra(t *testing.T) {
	x := tv("x", tsi("float32", 4))
	out := tsi("float32", 4)
	gv := &GlobalVar{Name: "f"}
	gv.SetSInfo(&FuncSInfo{Opaque: true, Pure: true})
	st := tv("st", &ObjectSInfo{})
	cases := []struct {
		name string
		c    *Call
		want string
	}{
		{"call_tir", &Call{Callee: &Op{Name: "relax.call_tir"}, Args: []Expr{gv, tupleE(x)}, Attrs: Attrs{{"out_sinfo", out}}}, `R.Tensor((4,), dtype="float32")`},
		{"call_tir wrap", &Call{Callee: &Op{Name: "relax.call_tir"}, Args: []Expr{gv, x}, Attrs: Attrs{{"out_ty", []any{out, out}}}}, `R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"))`},
		{"call_tir no out", &Call{Callee: &Op{Name: "relax.call_tir"}, Args: []Expr{gv, x}}, "error: needs the output struct info"},
		{"call_pure_packed", &Call{Callee: &Op{Name: "relax.call_pure_packed"}, Args: []Expr{&StringImm{Value: "corpus.scale3"}, x}, Attrs: Attrs{{"sinfo_args", []StructInfo{out}}}}, `R.Tensor((4,), dtype="float32")`},
		{"null_value", &Call{Callee: &Op{Name: "relax.null_value"}}, `R.Any`},
		{"shape_of", &Call{Callee: &Op{Name: "relax.shape_of"}, Args: []Expr{x}}, `R.Shape([4])`},
		{"alloc_storage", &Call{Callee: &Op{Name: "relax.memory.alloc_storage"}, Args: []Expr{shapeE(16), pv(0), &StringImm{Value: "global"}, &StringImm{Value: "float32"}}}, `R.Any`},
		{"alloc_tensor", &Call{Callee: &Op{Name: "relax.memory.alloc_tensor"}, Args: []Expr{st, pv(0), shapeE(2, 2)}, Attrs: Attrs{{"dtype", "float32"}}}, `R.Tensor((2, 2), dtype="float32")`},
		{"vm alloc_tensor", &Call{Callee: &Op{Name: "relax.vm.alloc_tensor"}, Args: []Expr{st, pv(0), shapeE(3), &DataTypeImm{Value: runtime.Int32}}}, `R.Tensor((3,), dtype="int32")`},
		{"builtin alloc", &Call{Callee: &Op{Name: "relax.builtin.alloc_tensor"}, Args: []Expr{shapeE(3), &StringImm{Value: "float32"}, pv(0)}}, `R.Tensor((3,), dtype="float32")`},
		{"kill_object", &Call{Callee: &Op{Name: "relax.vm.kill_object"}, Args: []Expr{st}}, `R.Tuple()`},
		{"print", &Call{Callee: &Op{Name: "relax.print"}, Args: []Expr{x}, Attrs: Attrs{{"format", "x={}"}}}, `R.Tuple()`},
		{"assert", &Call{Callee: &Op{Name: "relax.assert_op"}, Args: []Expr{tv("c", tsi("bool"))}, Attrs: Attrs{{"format", "bad"}}}, `R.Tuple()`},
		{"assert not bool", &Call{Callee: &Op{Name: "relax.assert_op"}, Args: []Expr{x}}, "error: boolean scalar"},
		{"make_closure", &Call{Callee: &Op{Name: "relax.make_closure"}, Args: []Expr{gv, tupleE(x)}}, `R.Callable`},
		{"invoke_closure", &Call{Callee: &Op{Name: "relax.invoke_closure"}, Args: []Expr{tv("clo", &FuncSInfo{Opaque: true}), tupleE(x)}, Attrs: Attrs{{"sinfo_args", out}}}, `R.Tensor((4,), dtype="float32")`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := CanonicalizeCall(tc.c); err != nil {
				if strings.HasPrefix(tc.want, "error: ") && strings.Contains(err.Error(), tc.want[7:]) {
					return
				}
				t.Fatal(err)
			}
			n := &normalizer{m: NewModule(), sym: map[*PrimVar]bool{}}
			for _, a := range tc.c.Args {
				if a != nil && a.SInfo() == nil {
					if _, err := n.expr(a, nil); err != nil {
						t.Fatal(err)
					}
				}
			}
			got, err := InferCall(tc.c, &InferCtx{})
			if strings.HasPrefix(tc.want, "error: ") {
				if err == nil || !strings.Contains(err.Error(), tc.want[7:]) {
					t.Fatalf("want error %q, got %v", tc.want, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := SInfoString(got); s != tc.want {
				t.Fatalf("got %s want %s", s, tc.want)
			}
		})
	}
}
