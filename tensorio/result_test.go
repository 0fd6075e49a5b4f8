package tensorio

import (
	"reflect"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestFromResult(t *testing.T) {
	x := runtime.MustNewTensor([]int64{2}, runtime.Float32)
	a, err := FromResult(runtime.Tuple{x, runtime.Tuple{runtime.Shape{3, 4}, int64(7)}, true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"out_0", "out_1", "out_2", "out_3"}
	if got := a.Names(); len(got) != len(want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	s, _ := a.Get("out_1")
	if s.DType() != runtime.Int64 || s.Int64s()[1] != 4 {
		t.Errorf("shape result written as %s %v", s, s.Int64s())
	}
	if _, err := FromResult(runtime.DataType{}); err == nil {
		t.Error("a dtype result was accepted")
	}
	if _, err := FromValues([]runtime.Value{x, int64(1)}); err == nil {
		t.Error("a non-tensor argument was accepted")
	}
}

func TestAsFloat64s(t *testing.T) {
	must := func(x *runtime.Tensor, err error) *runtime.Tensor {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	f16, err := runtime.NewTensor([]int64{2}, runtime.Float16)
	if err != nil {
		t.Fatal(err)
	}
	copy(f16.Uint16s(), []uint16{0x3c00, 0xc000}) // 1, -2
	for _, c := range []struct {
		name string
		t    *runtime.Tensor
		want []float64
	}{
		{"float32", must(runtime.FromSlice([]float32{1.5, -2}, 2)), []float64{1.5, -2}},
		{"int64", must(runtime.FromSlice([]int64{-3, 4}, 2)), []float64{-3, 4}},
		{"uint8", must(runtime.FromSlice([]uint8{255}, 1)), []float64{255}},
		{"bool", must(runtime.FromSlice([]bool{true, false}, 2)), []float64{1, 0}},
		{"float16", f16, []float64{1, -2}},
	} {
		if got := AsFloat64s(c.t); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: AsFloat64s = %v, want %v", c.name, got, c.want)
		}
	}
}
