package onnx_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/relaxgo/relaxgo/ir/onnx"
	"github.com/relaxgo/relaxgo/ir/onnx/onnxpb"
)

// TestPerturbedNodeModels imports every node-test model with each integer
// attribute replaced by awkward values, and each input's shape dropped or
// scrambled: the importer must return a model or an error, never panic.
func TestPerturbedNodeModels(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	dir := nodeDir(t)
	models, _ := filepath.Glob(filepath.Join(dir, "*", "model.onnx"))
	vals := []int64{-7, -1, 0, 1, 3, 1 << 40}
	for _, path := range models {
		if f := os.Getenv("PERTURB_ONLY"); f != "" && !strings.Contains(path, f) {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		base, err := onnx.Decode(b)
		if err != nil {
			continue
		}
		try := func(m *onnxpb.ModelProto) {
			_, _ = onnx.Import(m, onnx.Options{Dir: filepath.Dir(path)})
		}
		for ni, n := range base.Graph.Node {
			for ai, a := range n.Attribute {
				for _, v := range vals {
					m := proto.Clone(base).(*onnxpb.ModelProto)
					at := m.Graph.Node[ni].Attribute[ai]
					switch a.GetType() {
					case onnxpb.AttributeProto_INT:
						at.I = proto.Int64(v)
					case onnxpb.AttributeProto_INTS:
						for k := range at.Ints {
							at.Ints[k] = v
						}
						if v == 3 {
							at.Ints = at.Ints[:len(at.Ints)/2]
						}
					case onnxpb.AttributeProto_FLOAT:
						at.F = proto.Float32(float32(v))
					default:
						continue
					}
					try(m)
				}
			}
		}
		for ii := range base.Graph.Input {
			for _, mode := range []int{0, 1, 2} {
				m := proto.Clone(base).(*onnxpb.ModelProto)
				tt := m.Graph.Input[ii].GetType().GetTensorType()
				if tt == nil || tt.Shape == nil {
					continue
				}
				switch mode {
				case 0:
					tt.Shape = nil
				case 1:
					for _, d := range tt.Shape.Dim {
						d.Value = &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: "n"}
					}
				case 2:
					tt.Shape.Dim = tt.Shape.Dim[:len(tt.Shape.Dim)/2]
				}
				try(m)
			}
		}
	}
}
