package kernels

import (
	"fmt"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// Unit checks of the fidelity ops' kernels: hand-computed values and the
// errors they report (end-to-end values are in cmd/relaxgo's TestFidelityOps).

func wantErr(t *testing.T, err error, sub string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), sub) {
		t.Fatalf("error %v, want one containing %q", err, sub)
	}
}

func TestQuantizeKernel(t *testing.T) {
	x := fromF(t, f32, []float64{0.25, 0.75, -0.25, 100, -100, 1.5}, 2, 3)
	s := fromF(t, f32, []float64{0.5}, 1)
	z := fromF(t, runtime.Int8, []float64{1}, 1)
	q := mustT(t, []int64{2, 3}, runtime.Int8)
	mustCall(t, "quantize", x, s, z, int64(-1), runtime.Int8, q)
	// round half to even: 0.5 -> 0, 1.5 -> 2, -0.5 -> -0; then + 1 and clip.
	if got := fmt.Sprint(vals(q)); got != "[1 3 1 127 -128 4]" {
		t.Errorf("quantize = %s", got)
	}
	d := mustT(t, []int64{2, 3}, f32)
	mustCall(t, "dequantize", q, s, z, int64(-1), f32, d)
	if got := fmt.Sprint(vals(d)); got != "[0 1 0 63 -64.5 1.5]" {
		t.Errorf("dequantize = %s", got)
	}
	// Per-channel parameters must match the axis.
	wantErr(t, call("quantize", x, fromF(t, f32, []float64{1, 2}, 2), z, int64(1), runtime.Int8, q), "does not match")
	wantErr(t, call("quantize", x, s, z, int64(-1), runtime.UInt8, q), "does not match the output")
}

func TestScatterKernels(t *testing.T) {
	data := fromF(t, f32, []float64{1, 2, 3, 4}, 4)
	out := mustT(t, []int64{4}, f32)
	idx := fromF(t, i64, []float64{-1, 0, -1}, 3)
	upd := fromF(t, f32, []float64{10, 20, 30}, 3)
	mustCall(t, "scatter_elements", data, idx, upd, int64(0), "add", out)
	if got := fmt.Sprint(vals(out)); got != "[21 2 3 44]" {
		t.Errorf("scatter_elements add = %s", got)
	}
	mustCall(t, "scatter_elements", data, idx, upd, int64(0), "mean", out)
	if got := fmt.Sprint(vals(out)); got != "[10.5 2 3 18.5]" { // (1+20)/2, ((4+10)/2+30)/2
		t.Errorf("scatter_elements mean = %s", got)
	}
	wantErr(t, call("scatter_elements", data, fromF(t, i64, []float64{4, 0, 0}, 3), upd, int64(0), "update", out), "out of range")
	wantErr(t, call("scatter_elements", data, idx, upd, int64(0), "sum", out), "reduction")

	// index_put with broadcast 2-D index tensors and one value.
	d2 := mustT(t, []int64{3, 3}, f32)
	o2 := mustT(t, []int64{3, 3}, f32)
	rows := fromF(t, i64, []float64{0, 2}, 2, 1)
	cols := fromF(t, i64, []float64{0, 1, 2}, 1, 3)
	mustCall(t, "index_put", d2, runtime.Tuple{rows, cols}, fromF(t, f32, []float64{5}, 1), int64(1), o2)
	if got := fmt.Sprint(vals(o2)); got != "[5 5 5 0 0 0 5 5 5]" {
		t.Errorf("index_put = %s", got)
	}
	wantErr(t, call("index_put", d2, runtime.Tuple{rows, cols}, fromF(t, f32, []float64{1, 2}, 2), int64(0), o2), "values has 2 elements")

	// scatter_nd with whole-row updates.
	nd := mustT(t, []int64{3, 2}, i32)
	mustCall(t, "scatter_nd", fromF(t, i32, []float64{1, 1, 1, 1, 1, 1}, 3, 2), fromF(t, i64, []float64{2, 0}, 2, 1),
		fromF(t, i32, []float64{7, 8, 9, 10}, 2, 2), "mul", nd)
	if got := fmt.Sprint(vals(nd)); got != "[9 10 1 1 7 8]" {
		t.Errorf("scatter_nd = %s", got)
	}

	ss := mustT(t, []int64{4}, f32)
	wantErr(t, call("slice_scatter", data, fromF(t, f32, []float64{1, 2}, 2), int64(0), int64(5), int64(2), int64(0), ss), "invalid")
	mustCall(t, "slice_scatter", data, fromF(t, f32, []float64{-1, -2}, 2), int64(0), int64(4), int64(2), int64(0), ss)
	if got := fmt.Sprint(vals(ss)); got != "[-1 2 -2 4]" {
		t.Errorf("slice_scatter = %s", got)
	}
}

func TestMiscKernels(t *testing.T) {
	w := mustT(t, []int64{1}, f32)
	mustCall(t, "hamming_window", int64(1), int64(1), 0.54, 0.46, f32, w)
	if w.Float32s()[0] != 1 {
		t.Errorf("hamming_window(1) = %v", w.Float32s())
	}
	b := mustT(t, []int64{4}, i32)
	mustCall(t, "bucketize", fromF(t, i64, []float64{0, 1, 5, 9}, 4), fromF(t, i64, []float64{1, 5}, 2), int64(1), int64(0), b)
	if got := fmt.Sprint(vals(b)); got != "[0 0 1 2]" {
		t.Errorf("bucketize = %s", got)
	}
	m := mustT(t, nil, f32)
	mustCall(t, "median", fromF(t, f32, []float64{4, 1, 3, 2}, 4), nil, int64(0), m)
	if m.Float32s()[0] != 2 { // lower median
		t.Errorf("median = %v", m.Float32s())
	}
	e := mustT(t, []int64{2, 2}, f32)
	wantErr(t, call("einsum", runtime.Tuple{fromF(t, f32, []float64{1, 2, 3, 4}, 2, 2)}, "ij,jk->ik", e), "name 2 operands")
	v := mustT(t, []int64{3}, f32)
	wantErr(t, call("memory.view", fromF(t, f32, []float64{1, 2, 3}, 3), nil, nil, int64(4), v), "exceeds")
	l := mustT(t, nil, f32)
	mustCall(t, "nn.nll_loss", fromF(t, f32, []float64{1, 2, 3, 4}, 2, 2), fromF(t, i64, []float64{1, -100}, 2), "sum", int64(-100), l)
	if l.Float32s()[0] != -2 {
		t.Errorf("nll_loss = %v", l.Float32s())
	}
}

func TestValueShapedKernels(t *testing.T) {
	nz, err := Nonzero(fromF(t, f32, []float64{0, 1, 0, 2, 3, 0}, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(nz.Shape(), vals(nz)); got != "[2 3] [0 1 1 1 0 1]" {
		t.Errorf("nonzero = %s", got)
	}
	x := fromF(t, f32, []float64{0, 1, 2, 3, 4, 5}, 6)
	s, err := DynamicStridedSlice(x, fromF(t, i64, []float64{-1}, 1), fromF(t, i64, []float64{0}, 1), fromF(t, i64, []float64{-2}, 1))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(vals(s)); got != "[5 3 1]" {
		t.Errorf("dynamic_strided_slice = %s", got)
	}
	if _, err := DynamicStridedSlice(x, fromF(t, i64, []float64{0}, 1), fromF(t, i64, []float64{6}, 1), fromF(t, i64, []float64{0}, 1)); err == nil {
		t.Error("stride 0 accepted")
	}
}
