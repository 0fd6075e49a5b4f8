package onnx_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/relaxgo/relaxgo/ir/onnx"
	"github.com/relaxgo/relaxgo/ir/onnx/onnxpb"
	"github.com/relaxgo/relaxgo/runtime"
)

// oneNode builds a single-node model whose inputs are graph inputs of the
// given tensors' types and shapes.
func oneNode(op string, opset int64, ins map[string]*runtime.Tensor, order []string, outs []string, attrs ...*onnxpb.AttributeProto) *onnxpb.ModelProto {
	g := &onnxpb.GraphProto{Name: proto.String("g"), Node: []*onnxpb.NodeProto{node(op, order, outs, attrs...)}}
	elem := map[runtime.DataType]int32{runtime.Float32: 1, runtime.Int64: 7, runtime.Bool: 9}
	for _, name := range order {
		if name == "" {
			continue
		}
		t := ins[name]
		var dims []*onnxpb.TensorShapeProto_Dimension
		for _, d := range t.Shape() {
			dims = append(dims, dimValue(d))
		}
		g.Input = append(g.Input, &onnxpb.ValueInfoProto{Name: proto.String(name), Type: tensorType(elem[t.DType()], dims...)})
	}
	for _, o := range outs {
		g.Output = append(g.Output, &onnxpb.ValueInfoProto{Name: proto.String(o)})
	}
	return &onnxpb.ModelProto{IrVersion: proto.Int64(8), Graph: g,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(opset)}}}
}

func f32(shape []int64, v ...float32) *runtime.Tensor {
	t := runtime.MustNewTensor(shape, runtime.Float32)
	copy(t.Float32s(), v)
	return t
}

func i64(shape []int64, v ...int64) *runtime.Tensor {
	t := runtime.MustNewTensor(shape, runtime.Int64)
	copy(t.Int64s(), v)
	return t
}

// TestEdgeInputsNoPanic imports the data-dependent and gather-built ops on
// degenerate inputs (empty tensors, all-false conditions, out-of-range
// sizes): each import must succeed or return an error, never panic.
func TestEdgeInputsNoPanic(t *testing.T) {
	cond := runtime.MustNewTensor([]int64{3}, runtime.Bool)
	cases := []struct {
		name   string
		op     string
		opset  int64
		ins    map[string]*runtime.Tensor
		order  []string
		outs   []string
		attrs  []*onnxpb.AttributeProto
		wantOK bool
	}{
		{"unique empty", "Unique", 11, map[string]*runtime.Tensor{"x": f32([]int64{0})}, []string{"x"}, []string{"y", "i", "inv", "c"}, nil, true},
		{"unique axis", "Unique", 11, map[string]*runtime.Tensor{"x": f32([]int64{2, 2}, 1, 1, 1, 1)}, []string{"x"}, []string{"y", "i", "inv", "c"}, []*onnxpb.AttributeProto{intAttr("axis", 1)}, true},
		{"nonzero empty", "NonZero", 13, map[string]*runtime.Tensor{"x": f32([]int64{0, 3})}, []string{"x"}, []string{"y"}, nil, true},
		{"compress none", "Compress", 11, map[string]*runtime.Tensor{"x": f32([]int64{3, 2}), "c": cond}, []string{"x", "c"}, []string{"y"}, []*onnxpb.AttributeProto{intAttr("axis", 0)}, true},
		{"compress long", "Compress", 11, map[string]*runtime.Tensor{"x": f32([]int64{2}), "c": cond}, []string{"x", "c"}, []string{"y"}, []*onnxpb.AttributeProto{intAttr("axis", 0)}, false},
		{"det 1x1", "Det", 11, map[string]*runtime.Tensor{"x": f32([]int64{1, 1}, 3)}, []string{"x"}, []string{"y"}, nil, true},
		{"det 6x6", "Det", 11, map[string]*runtime.Tensor{"x": f32([]int64{6, 6})}, []string{"x"}, []string{"y"}, nil, false},
		{"nms no output", "NonMaxSuppression", 11, map[string]*runtime.Tensor{"b": f32([]int64{1, 2, 4}), "s": f32([]int64{1, 1, 2})}, []string{"b", "s"}, []string{"y"}, nil, true},
		{"nms bad shapes", "NonMaxSuppression", 11, map[string]*runtime.Tensor{"b": f32([]int64{1, 2, 3}), "s": f32([]int64{1, 1, 2})}, []string{"b", "s"}, []string{"y"}, nil, false},
		{"col2im too many blocks", "Col2Im", 18, map[string]*runtime.Tensor{"x": f32([]int64{1, 4, 7}), "i": i64([]int64{2}, 3, 3), "b": i64([]int64{2}, 2, 2)}, []string{"x", "i", "b"}, []string{"y"}, nil, false},
		{"maxunpool", "MaxUnpool", 11, map[string]*runtime.Tensor{"x": f32([]int64{1, 1, 2, 2}), "i": i64([]int64{1, 1, 2, 2}, 0, 99, -5, 3)}, []string{"x", "i"}, []string{"y"}, []*onnxpb.AttributeProto{intsAttr("kernel_shape", 2, 2), intsAttr("strides", 2, 2)}, true},
		{"reversesequence", "ReverseSequence", 10, map[string]*runtime.Tensor{"x": f32([]int64{2, 3}), "l": i64([]int64{3}, 9, -1, 2)}, []string{"x", "l"}, []string{"y"}, []*onnxpb.AttributeProto{intAttr("batch_axis", 1), intAttr("time_axis", 0)}, true},
		{"mel empty band", "MelWeightMatrix", 17, map[string]*runtime.Tensor{"n": i64(nil, 4), "d": i64(nil, 8), "r": i64(nil, 8000), "lo": f32(nil, 0), "hi": f32(nil, 4000)}, []string{"n", "d", "r", "lo", "hi"}, []string{"y"}, nil, true},
		{"stft frame too long", "STFT", 17, map[string]*runtime.Tensor{"x": f32([]int64{1, 8, 1}), "s": i64(nil, 1), "l": i64(nil, 16)}, []string{"x", "s", "", "l"}, []string{"y"}, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := oneNode(tc.op, tc.opset, tc.ins, tc.order, tc.outs, tc.attrs...)
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panic: %v", r)
					}
				}()
				bind := map[string]*runtime.Tensor{}
				for k, v := range tc.ins {
					bind[k] = v
				}
				_, err = onnx.Import(m, onnx.Options{BindInputs: bind})
			}()
			if tc.wantOK && err != nil {
				t.Fatalf("import: %v", err)
			}
			if !tc.wantOK && err == nil {
				t.Fatalf("import succeeded, want an error")
			}
		})
	}
}
