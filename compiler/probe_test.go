package compiler_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// TestTupleParamsNestedCalls runs a module with a tuple parameter, a prim
// parameter, a callee returning a tuple, a nested op call (lifted to A-normal
// form), shape_of, and a nested tuple result, against values computed here.
func TestTupleParamsNestedCalls(t *testing.T) {
	vm := fileVM(t, "testdata/tuple_params.py")
	xs := []float32{-1, 2, -3, 4, -5, 6}
	bs := []float32{0.5, -1, 2}
	x, _ := runtime.FromSlice(xs, 2, 3)
	b, _ := runtime.FromSlice(bs, 3)
	out, err := vm.Invoke("main", runtime.Tuple{x, b}, int64(7))
	if err != nil {
		t.Fatal(err)
	}
	top, ok := out.(runtime.Tuple)
	if !ok || len(top) != 3 {
		t.Fatalf("result %v", out)
	}
	p := top[0].(runtime.Tuple)
	relu := p[0].(*runtime.Tensor).Float32s()
	tr := p[1].(*runtime.Tensor)
	e := top[1].(*runtime.Tensor).Float32s()
	var y [6]float32
	for i := range y {
		y[i] = xs[i] + bs[i%3]
	}
	for i := 0; i < 2; i++ {
		var s [3]float32
		mx := float32(math.Inf(-1))
		for j := 0; j < 3; j++ {
			s[j] = 2 * max(y[i*3+j], 0)
			mx = max(mx, s[j])
		}
		for j := 0; j < 3; j++ {
			if relu[i*3+j] != max(y[i*3+j], 0) {
				t.Errorf("relu[%d,%d] = %v", i, j, relu[i*3+j])
			}
			if got := tr.Float32s()[j*2+i]; got != y[i*3+j] {
				t.Errorf("transpose[%d,%d] = %v, want %v", j, i, got, y[i*3+j])
			}
			if e[i*3+j] != s[j]-mx {
				t.Errorf("e[%d,%d] = %v, want %v", i, j, e[i*3+j], s[j]-mx)
			}
		}
	}
	if sh, ok := top[2].(runtime.Shape); !ok || !sh.Equal(runtime.Shape{2, 3}) {
		t.Errorf("shape result %v", top[2])
	}
	// Wrong tuple arity and a wrong prim type are refused with errors.
	if _, err := vm.Invoke("main", runtime.Tuple{x}, int64(7)); err == nil {
		t.Error("1-tuple accepted")
	}
	if _, err := vm.Invoke("main", runtime.Tuple{x, b}, 1.5); err == nil {
		t.Error("float for an int64 prim accepted")
	}
}

// TestClosures runs a closure in TVM's lifted form (make_closure of a global
// function, invoke_closure) and as a nested function capturing a variable
// (lifted by the LambdaLift pass).
func TestClosures(t *testing.T) {
	for _, tc := range []struct {
		file string
		want func(x float32) float32
	}{
		{"testdata/closure_lifted.py", func(x float32) float32 { return (x + x) * x }},
		{"testdata/closure_nested.py", func(x float32) float32 { return x + x }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			vm := fileVM(t, tc.file)
			x, _ := runtime.FromSlice([]float32{1.5, -2}, 2)
			out, err := vm.Invoke("main", x)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range out.(*runtime.Tensor).Float32s() {
				if want := tc.want(x.Float32s()[i]); v != want {
					t.Errorf("element %d = %v, want %v", i, v, want)
				}
			}
		})
	}
}

// TestScanGatherOneHot checks cumsum, cumprod (flattened), gather_elements
// and one_hot against hand-computed values.
func TestScanGatherOneHot(t *testing.T) {
	vm := fileVM(t, "testdata/scan_ops.py")
	x, _ := runtime.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	i, _ := runtime.FromSlice([]int64{2, 0, 4, 1, 1, 0}, 2, 3)
	c, _ := runtime.FromSlice([]int32{0, 4, 2, 1}, 4)
	out, err := vm.Invoke("main", x, i, c)
	if err != nil {
		t.Fatal(err)
	}
	checkFloat32Outputs(t, out, [][]float32{
		{1, 3, 6, 4, 9, 15},
		{1, 2, 6, 24, 120, 720},
		{3, 1, 2, 5, 5, 4},
		{1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0},
	})
}

// TestResize2D runs image.resize2d (bilinear NCHW, nearest NHWC) end to end.
func TestResize2D(t *testing.T) {
	vm := fileVM(t, "testdata/resize.py")
	x, _ := runtime.FromSlice([]float32{1, 2, 3, 4}, 1, 1, 2, 2)
	out, err := vm.Invoke("main", x)
	if err != nil {
		t.Fatal(err)
	}
	// PyTorch interpolate(bilinear, align_corners=False), and nearest upsampling.
	checkFloat32Outputs(t, out, [][]float32{
		{1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4},
		{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4},
	})
}

// TestAttentionCausal runs nn.attention with a TopLeft causal mask: query
// position 0 sees only key 0, so its output is value row 0 exactly.
func TestAttentionCausal(t *testing.T) {
	vm := fileVM(t, "testdata/attention.py")
	mk := func(seed float64) *runtime.Tensor {
		x := runtime.MustNewTensor([]int64{1, 4, 2, 8}, runtime.Float32)
		for i := range x.Float32s() {
			x.Float32s()[i] = float32(math.Sin(seed + float64(i)))
		}
		return x
	}
	q, k, v := mk(1), mk(2), mk(3)
	out, err := vm.Invoke("main", q, k, v)
	if err != nil {
		t.Fatal(err)
	}
	o := out.(*runtime.Tensor).Float32s()
	for n := 0; n < 2; n++ {
		for d := 0; d < 8; d++ {
			if got, want := o[n*8+d], v.Float32s()[n*8+d]; got != want {
				t.Fatalf("head %d: out[0][%d] = %v, want value[0][%d] = %v", n, d, got, d, want)
			}
		}
	}
}

// TestSortOps runs sort, argsort (descending) and topk with ties: TVM sorts
// stably, so equal values keep their index order.
func TestSortOps(t *testing.T) {
	vm := fileVM(t, "testdata/sort_ops.py")
	x, _ := runtime.FromSlice([]float32{3, 1, 3, 2, 1, 0, 5, 5, -1, 2}, 2, 5)
	out, err := vm.Invoke("main", x)
	if err != nil {
		t.Fatal(err)
	}
	r := out.(runtime.Tuple)
	if got := r[0].(*runtime.Tensor).Float32s(); fmt.Sprint(got) != "[1 1 2 3 3 -1 0 2 5 5]" {
		t.Errorf("sort = %v", got)
	}
	if got := r[1].(*runtime.Tensor).Int32s(); fmt.Sprint(got) != "[0 2 3 1 4 1 2 4 0 3]" {
		t.Errorf("argsort = %v", got)
	}
	if got := r[2].(*runtime.Tensor).Float32s(); fmt.Sprint(got) != "[3 3 5 5]" {
		t.Errorf("topk values = %v", got)
	}
	if got := r[3].(*runtime.Tensor).Int64s(); fmt.Sprint(got) != "[0 2 1 2]" {
		t.Errorf("topk indices = %v", got)
	}
}
