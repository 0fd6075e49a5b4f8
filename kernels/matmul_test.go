package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func laRandTensor(r *rand.Rand, shape []int64, dt runtime.DataType) *runtime.Tensor {
	t := runtime.MustNewTensor(shape, dt)
	switch dt {
	case runtime.Float32:
		s := t.Float32s()
		for i := range s {
			s[i] = r.Float32()*2 - 1
		}
	case runtime.Float64:
		s := t.Float64s()
		for i := range s {
			s[i] = r.Float64()*2 - 1
		}
	case runtime.Int32:
		s := t.Int32s()
		for i := range s {
			s[i] = int32(r.Intn(21) - 10)
		}
	case runtime.Int64:
		s := t.Int64s()
		for i := range s {
			s[i] = int64(r.Intn(21) - 10)
		}
	}
	return t
}

func laAt(t *runtime.Tensor, i int) float64 {
	switch t.DType() {
	case runtime.Float32:
		return float64(t.Float32s()[i])
	case runtime.Float64:
		return t.Float64s()[i]
	case runtime.Int32:
		return float64(t.Int32s()[i])
	case runtime.Int64:
		return float64(t.Int64s()[i])
	}
	panic("dtype")
}

// laRefMatmul implements NumPy matmul by promoting 1-D operands and indexing
// with explicit broadcasting.
func laRefMatmul(a, b *runtime.Tensor) ([]int64, []float64) {
	as, bs := append([]int64(nil), a.Shape()...), append([]int64(nil), b.Shape()...)
	dropM, dropN := len(as) == 1, len(bs) == 1
	if dropM {
		as = []int64{1, as[0]}
	}
	if dropN {
		bs = []int64{bs[0], 1}
	}
	nb := max(len(as), len(bs)) - 2
	pad := func(s []int64) []int64 {
		for len(s) < nb+2 {
			s = append([]int64{1}, s...)
		}
		return s
	}
	as, bs = pad(as), pad(bs)
	m, k, n := as[nb], as[nb+1], bs[nb+1]
	batch := make([]int64, nb)
	for i := range batch {
		batch[i] = as[i]
		if as[i] == 1 {
			batch[i] = bs[i]
		}
	}
	total := int64(1)
	for _, d := range batch {
		total *= d
	}
	res := make([]float64, 0)
	idx := make([]int64, nb)
	for t := int64(0); t < total; t++ {
		rem := t
		for i := nb - 1; i >= 0; i-- {
			idx[i] = rem % batch[i]
			rem /= batch[i]
		}
		var ao, bo int64
		for i := 0; i < nb; i++ {
			ai, bi := idx[i], idx[i]
			if as[i] == 1 {
				ai = 0
			}
			if bs[i] == 1 {
				bi = 0
			}
			ao = ao*as[i] + ai
			bo = bo*bs[i] + bi
		}
		for i := int64(0); i < m; i++ {
			for j := int64(0); j < n; j++ {
				var s float64
				for p := int64(0); p < k; p++ {
					s += laAt(a, int(ao*m*k+i*k+p)) * laAt(b, int(bo*k*n+p*n+j))
				}
				res = append(res, s)
			}
		}
	}
	shape := append([]int64(nil), batch...)
	if !dropM {
		shape = append(shape, m)
	}
	if !dropN {
		shape = append(shape, n)
	}
	return shape, res
}

func TestMatmul(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	cases := [][2][]int64{
		{{7}, {7}}, {{0}, {0}}, {{17}, {17, 33}}, {{33, 17}, {17}}, {{1, 1}, {1, 1}},
		{{7, 17}, {17, 33}}, {{257, 33}, {33, 7}}, {{0, 5}, {5, 3}}, {{5, 0}, {0, 3}}, {{3, 5}, {5, 0}},
		{{2, 1, 3, 4}, {5, 4, 6}}, {{1, 7, 17}, {3, 17, 33}}, {{3, 7, 17}, {17, 9}}, {{4, 7, 17}, {17}},
		{{17}, {2, 17, 5}}, {{0, 3, 4}, {4, 2}}, {{2, 1, 33, 17}, {1, 3, 17, 257}}, {{6, 33, 17}, {6, 17, 1}},
	}
	for _, dt := range []runtime.DataType{runtime.Float32, runtime.Float64, runtime.Int32, runtime.Int64} {
		for _, c := range cases {
			a, b := laRandTensor(r, c[0], dt), laRandTensor(r, c[1], dt)
			shape, want := laRefMatmul(a, b)
			out := runtime.MustNewTensor(shape, dt)
			if err := Matmul(out, a, b); err != nil {
				t.Fatalf("%s %v x %v: %v", dt, c[0], c[1], err)
			}
			tol := 1e-5 * float64(c[0][len(c[0])-1]+1)
			for i, w := range want {
				if g := laAt(out, i); math.Abs(g-w) > tol {
					t.Fatalf("%s %v x %v: out[%d] = %v want %v", dt, c[0], c[1], i, g, w)
				}
			}
		}
	}
}

func TestMatmulOutDTypeAndTransposed(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	a, b := laRandTensor(r, []int64{3, 5}, runtime.Int32), laRandTensor(r, []int64{5, 4}, runtime.Int32)
	_, want := laRefMatmul(a, b)
	out := runtime.MustNewTensor([]int64{3, 4}, runtime.Float64)
	if err := MatmulOut(out, a, b, runtime.Float64); err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if out.Float64s()[i] != w {
			t.Fatalf("out_dtype: [%d] = %v want %v", i, out.Float64s()[i], w)
		}
	}
	// transposed operands: a is [2, k, m], b is [n, k]
	x, w := laRandTensor(r, []int64{2, 17, 7}, runtime.Float32), laRandTensor(r, []int64{33, 17}, runtime.Float32)
	o := runtime.MustNewTensor([]int64{2, 7, 33}, runtime.Float32)
	if err := MatmulTransposed(o, x, w, true, true); err != nil {
		t.Fatal(err)
	}
	for bi := 0; bi < 2; bi++ {
		for i := 0; i < 7; i++ {
			for j := 0; j < 33; j++ {
				var s float64
				for p := 0; p < 17; p++ {
					s += float64(x.Float32s()[bi*17*7+p*7+i]) * float64(w.Float32s()[j*17+p])
				}
				if g := o.Float32s()[bi*7*33+i*33+j]; math.Abs(float64(g)-s) > 1e-4 {
					t.Fatalf("transposed [%d,%d,%d] = %v want %v", bi, i, j, g, s)
				}
			}
		}
	}
}

func TestMatmulPackedAndErrors(t *testing.T) {
	f, ok := runtime.Lookup("kernels.matmul")
	if !ok {
		t.Fatal("kernels.matmul not registered")
	}
	r := rand.New(rand.NewSource(3))
	a, b := laRandTensor(r, []int64{4, 3}, runtime.Float32), laRandTensor(r, []int64{3, 2}, runtime.Float32)
	out := runtime.MustNewTensor([]int64{4, 2}, runtime.Float32)
	for _, dt := range []runtime.Value{nil, runtime.Float32, "float32"} {
		if _, err := f([]runtime.Value{a, b, dt, out}); err != nil {
			t.Fatalf("out_dtype %v: %v", dt, err)
		}
	}
	bad := [][]runtime.Value{
		{a, b, nil},
		{a, b, nil, runtime.MustNewTensor([]int64{4, 3}, runtime.Float32)},
		{a, b, nil, runtime.MustNewTensor([]int64{4, 2}, runtime.Float64)},
		{a, a, nil, out},
		{a, int64(3), nil, out},
		{a, b, int64(1), out},
		{a, laRandTensor(r, []int64{3, 2}, runtime.Float64), nil, out},
		{runtime.MustNewTensor([]int64{2, 4, 3}, runtime.Float32), runtime.MustNewTensor([]int64{3, 3, 2}, runtime.Float32), nil,
			runtime.MustNewTensor([]int64{3, 4, 2}, runtime.Float32)},
	}
	for i, args := range bad {
		if _, err := f(args); err == nil {
			t.Errorf("bad call %d accepted", i)
		}
	}
	if err := Matmul(out, runtime.MustNewTensor([]int64{}, runtime.Float32), b); err == nil {
		t.Error("0-d operand accepted")
	}
	_ = fmt.Sprint()
}
