package tensorio

import (
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
