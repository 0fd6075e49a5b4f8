package kernels

import (
	"slices"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestSortArgsortTopK(t *testing.T) {
	// 2 x 5 with ties: stable order keeps the lower index first.
	x, _ := runtime.FromSlice([]float32{3, 1, 3, 2, 1, 0, 5, 5, -1, 2}, 2, 5)
	s := runtime.MustNewTensor([]int64{2, 5}, runtime.Float32)
	mustCall(t, "sort", x, int64(-1), false, s)
	if want := []float32{1, 1, 2, 3, 3, -1, 0, 2, 5, 5}; !slices.Equal(s.Float32s(), want) {
		t.Errorf("sort = %v, want %v", s.Float32s(), want)
	}
	a := runtime.MustNewTensor([]int64{2, 5}, runtime.Int32)
	mustCall(t, "argsort", x, int64(1), true, runtime.Int32, a)
	if want := []int32{0, 2, 3, 1, 4, 1, 2, 4, 0, 3}; !slices.Equal(a.Int32s(), want) {
		t.Errorf("argsort descending = %v, want %v", a.Int32s(), want)
	}
	// Along axis 0 of a 2 x 3 x 2 tensor.
	y, _ := runtime.FromSlice([]int64{5, 1, 2, 9, 0, 4, 3, 8, 7, 6, 1, 2}, 2, 3, 2)
	ys := runtime.MustNewTensor([]int64{2, 3, 2}, runtime.Int64)
	mustCall(t, "sort", y, int64(0), false, ys)
	if want := []int64{3, 1, 2, 6, 0, 2, 5, 8, 7, 9, 1, 4}; !slices.Equal(ys.Int64s(), want) {
		t.Errorf("sort axis 0 = %v, want %v", ys.Int64s(), want)
	}
	// topk: the 2 largest of each row, values then indices.
	v := runtime.MustNewTensor([]int64{2, 2}, runtime.Float32)
	i := runtime.MustNewTensor([]int64{2, 2}, runtime.Int64)
	mustCall(t, "topk", x, int64(2), int64(-1), "both", true, runtime.Int64, v, i)
	if !slices.Equal(v.Float32s(), []float32{3, 3, 5, 5}) || !slices.Equal(i.Int64s(), []int64{0, 2, 1, 2}) {
		t.Errorf("topk = %v %v", v.Float32s(), i.Int64s())
	}
	small := runtime.MustNewTensor([]int64{2, 1}, runtime.Int32)
	mustCall(t, "topk", x, int64(1), int64(1), "indices", false, runtime.Int32, small)
	if !slices.Equal(small.Int32s(), []int32{1, 3}) {
		t.Errorf("topk smallest indices = %v", small.Int32s())
	}
	if err := call("topk", x, int64(2), int64(-1), "keys", true, runtime.Int64, v); err == nil {
		t.Error("bad ret_type accepted")
	}
	if err := call("sort", x, int64(2), false, s); err == nil {
		t.Error("bad axis accepted")
	}
}
