package onnx_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/ir/onnx"
	"github.com/relaxgo/relaxgo/ir/onnx/onnxpb"
	"github.com/relaxgo/relaxgo/ir/tvmscript"
	"github.com/relaxgo/relaxgo/runtime"
)

func dimValue(v int64) *onnxpb.TensorShapeProto_Dimension {
	return &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: v}}
}

func dimParam(p string) *onnxpb.TensorShapeProto_Dimension {
	return &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: p}}
}

func tensorType(elem int32, dims ...*onnxpb.TensorShapeProto_Dimension) *onnxpb.TypeProto {
	return &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{
		ElemType: proto.Int32(elem), Shape: &onnxpb.TensorShapeProto{Dim: dims}}}}
}

func floatInit(name string, dims []int64, f func(i int) float32) *onnxpb.TensorProto {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	raw := make([]byte, 4*n)
	for i := 0; i < int(n); i++ {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f(i)))
	}
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(1), RawData: raw}
}

func node(op string, in, out []string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{OpType: proto.String(op), Input: in, Output: out, Attribute: attrs, Name: proto.String(op + "_" + out[0])}
}

func intsAttr(name string, v ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

func intAttr(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

// tinyCNN is a PyTorch-export-like model: Conv + Relu + GlobalAveragePool,
// then the Shape -> Gather -> Unsqueeze -> Concat -> Reshape flatten idiom,
// then Gemm, with a symbolic batch dimension and weights as initializers.
func tinyCNN() *onnxpb.ModelProto {
	g := &onnxpb.GraphProto{Name: proto.String("tiny_cnn")}
	g.Input = []*onnxpb.ValueInfoProto{{Name: proto.String("input.1"), Type: tensorType(1, dimParam("batch"), dimValue(3), dimValue(8), dimValue(8))}}
	g.Output = []*onnxpb.ValueInfoProto{{Name: proto.String("logits"), Type: tensorType(1, dimParam("batch"), dimValue(5))}}
	g.Initializer = []*onnxpb.TensorProto{
		floatInit("conv.weight", []int64{4, 3, 3, 3}, func(i int) float32 { return float32(i%7-3) / 10 }),
		floatInit("conv.bias", []int64{4}, func(i int) float32 { return float32(i) / 4 }),
		floatInit("fc.weight", []int64{5, 4}, func(i int) float32 { return float32(i%5-2) / 3 }),
		floatInit("fc.bias", []int64{5}, func(i int) float32 { return float32(i) }),
		{Name: proto.String("minus1"), Dims: []int64{1}, DataType: proto.Int32(7), Int64Data: []int64{-1}},
		{Name: proto.String("zero"), DataType: proto.Int32(7), Int64Data: []int64{0}},
	}
	g.Node = []*onnxpb.NodeProto{
		node("Conv", []string{"input.1", "conv.weight", "conv.bias"}, []string{"c"}, intsAttr("pads", 1, 1, 1, 1), intsAttr("kernel_shape", 3, 3)),
		node("Relu", []string{"c"}, []string{"r"}),
		node("GlobalAveragePool", []string{"r"}, []string{"p"}),
		node("Shape", []string{"p"}, []string{"s"}),
		node("Gather", []string{"s", "zero"}, []string{"b"}, intAttr("axis", 0)),
		node("Unsqueeze", []string{"b", "zero"}, []string{"bu"}),
		node("Concat", []string{"bu", "minus1"}, []string{"shape"}, intAttr("axis", 0)),
		node("Reshape", []string{"p", "shape"}, []string{"flat"}),
		node("Gemm", []string{"flat", "fc.weight", "fc.bias"}, []string{"logits"}, intAttr("transB", 1)),
	}
	return &onnxpb.ModelProto{IrVersion: proto.Int64(8), ProducerName: proto.String("relaxgo-test"),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}}, Graph: g}
}

// TestTinyCNN checks symbolic batch dimensions, initializers as parameters
// after num_input, and folding of the shape subgraph, then runs the model.
func TestTinyCNN(t *testing.T) {
	m := tinyCNN()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "tiny_cnn.onnx")
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := onnx.ImportBytes(b, onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := tvmscript.Print(res.Module, tvmscript.Current)
	for _, want := range []string{`R.Tensor(("batch", 3, 8, 8), dtype="float32")`, `R.func_attr({"num_input": 1})`,
		`R.reshape(`, `R.Tensor(("batch", 5), dtype="float32")`} {
		if !strings.Contains(src, want) {
			t.Errorf("printed module lacks %s:\n%s", want, src)
		}
	}
	if strings.Contains(src, "shape_value") || strings.Contains(src, "R.take") {
		t.Errorf("the shape subgraph was not folded:\n%s", src)
	}
	if strings.Join(res.ParamNames, ",") != "conv_weight,conv_bias,fc_weight,fc_bias" {
		t.Errorf("params %v", res.ParamNames)
	}
	// The printed module re-parses.
	if _, err := compiler.Parse("model.py", []byte(src)); err != nil {
		t.Fatalf("re-parsing: %v\n%s", err, src)
	}
	cr, err := compiler.CompileModule(res.Module, compiler.Options{Params: res.Params})
	if err != nil {
		t.Fatal(err)
	}
	vm, err := runtime.NewVM(cr.Exec)
	if err != nil {
		t.Fatal(err)
	}
	for _, batch := range []int64{1, 3} {
		x := runtime.MustNewTensor([]int64{batch, 3, 8, 8}, runtime.Float32)
		for i := range x.Float32s() {
			x.Float32s()[i] = float32(i%11) / 11
		}
		out, err := vm.Invoke("main", x)
		if err != nil {
			t.Fatal(err)
		}
		y := out.(*runtime.Tensor)
		if got := y.Shape(); len(got) != 2 || got[0] != batch || got[1] != 5 {
			t.Fatalf("batch %d: output shape %v", batch, got)
		}
	}
}

// TestImportErrors checks that bad inputs give one clear error, not a panic.
func TestImportErrors(t *testing.T) {
	good, _ := proto.Marshal(tinyCNN())
	cases := map[string]struct {
		data []byte
		want string
	}{
		"truncated": {good[:len(good)/2], "decoding the model"},
		"garbage":   {[]byte("not a model at all"), "onnx"},
		"empty":     {nil, "no graph"},
	}
	bad := tinyCNN()
	bad.Graph.Node[1].OpType = proto.String("FancyOp")
	cases["unsupported op"] = struct {
		data []byte
		want string
	}{mustMarshal(bad), `FancyOp (node "Relu_r"), domain ai.onnx opset 17: operator is not supported`}
	bad = tinyCNN()
	bad.Graph.Node[0].Attribute = append(bad.Graph.Node[0].Attribute, &onnxpb.AttributeProto{Name: proto.String("auto_pad"),
		Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte("SIDEWAYS")})
	cases["bad attribute"] = struct {
		data []byte
		want string
	}{mustMarshal(bad), `auto_pad="SIDEWAYS"`}
	bad = tinyCNN()
	bad.Graph.Initializer[0].DataType = proto.Int32(14)
	cases["dtype"] = struct {
		data []byte
		want string
	}{mustMarshal(bad), "COMPLEX64"}
	bad = tinyCNN()
	bad.Graph.Node[0].Domain = proto.String("com.example")
	cases["domain"] = struct {
		data []byte
		want string
	}{mustMarshal(bad), `domain "com.example"`}
	bad = tinyCNN()
	bad.OpsetImport[0].Version = proto.Int64(99)
	cases["opset"] = struct {
		data []byte
		want string
	}{mustMarshal(bad), "opset 99"}
	bad = tinyCNN()
	bad.Graph.Initializer[0].DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
	bad.Graph.Initializer[0].ExternalData = []*onnxpb.StringStringEntryProto{{Key: proto.String("location"), Value: proto.String("../../etc/passwd")}}
	cases["external escape"] = struct {
		data []byte
		want string
	}{mustMarshal(bad), "escapes the model's directory"}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := onnx.ImportBytes(c.data, onnx.Options{Dir: t.TempDir()})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func mustMarshal(m *onnxpb.ModelProto) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// TestExternalData moves the weights to an external file (as models over
// 2 GB must) and checks they load, at an offset.
func TestExternalData(t *testing.T) {
	dir := t.TempDir()
	m := tinyCNN()
	var blob []byte
	blob = append(blob, make([]byte, 16)...) // leading bytes: data starts at an offset
	for _, init := range m.Graph.Initializer[:4] {
		off := len(blob)
		blob = append(blob, init.RawData...)
		init.ExternalData = []*onnxpb.StringStringEntryProto{
			{Key: proto.String("location"), Value: proto.String("weights.bin")},
			{Key: proto.String("offset"), Value: proto.String(itoa(off))},
			{Key: proto.String("length"), Value: proto.String(itoa(len(init.RawData)))},
		}
		init.DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
		init.RawData = nil
	}
	if err := os.WriteFile(filepath.Join(dir, "weights.bin"), blob, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.onnx"), mustMarshal(m), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := onnx.ImportFile(filepath.Join(dir, "model.onnx"), onnx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := res.Params["fc_bias"].Float32s()
	if len(w) != 5 || w[4] != 4 {
		t.Fatalf("fc_bias = %v", w)
	}
	// A truncated external file is an error.
	if err := os.WriteFile(filepath.Join(dir, "weights.bin"), blob[:40], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := onnx.ImportFile(filepath.Join(dir, "model.onnx"), onnx.Options{}); err == nil || !strings.Contains(err.Error(), "exceeds the file size") {
		t.Fatalf("truncated external data: %v", err)
	}
}

func itoa(v int) string {
	return strings.TrimSpace(strings.Replace(string(rune('0'+0)), "0", "", 1) + formatInt(v))
}

func formatInt(v int) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for v > 0 {
		b = append([]byte{byte('0' + v%10)}, b...)
		v /= 10
	}
	return string(b)
}
