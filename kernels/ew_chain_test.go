package kernels

import (
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// TestEwChainMatchesUnfused runs random chains of float32 elementwise
// operations (operands broadcast from scalars, per-channel vectors, rows,
// full tensors; either side; relu; the unary steps) through EwChainKernel and through the
// unfused kernels one by one, on data with NaNs and infinities, at 1 and 2
// threads: the bits must be equal.
func TestEwChainMatchesUnfused(t *testing.T) {
	defer SetNumThreads(0)
	// The unfused kernels' own plan, not the chain binary takes for
	// short rows (perRowOperand).
	binRowsOn = false
	defer func() { binRowsOn = true }()
	r := rand.New(rand.NewSource(9))
	names := []string{"add", "subtract", "multiply", "divide", "maximum", "minimum"}
	unaries := []struct {
		name string
		code int64
	}{{"exp", EwChainExp}, {"tanh", EwChainTanh}, {"erf", EwChainErf}, {"sigmoid", EwChainSigmoid},
		{"nn.gelu", EwChainGelu}, {"nn.gelu_tanh", EwChainGeluTanh}, {"nn.silu", EwChainSilu},
		{"", EwChainXSigmoid}} // x * sigmoid(x): sigmoid, then multiply with x on the left
	for it := 0; it < 200; it++ {
		nd := 1 + r.Intn(4)
		shape := make([]int64, nd)
		for i := range shape {
			shape[i] = int64(1 + r.Intn(6))
		}
		switch it % 10 {
		case 0:
			shape[nd-1] = 300 // many rows: the parallel path
			shape[0] = 300
		case 5:
			shape[nd-1] = 5000 // rows longer than a chunk
		case 3, 7:
			shape[nd-1] = int64(9 + r.Intn(60)) // vector blocks and a tail
		case 1:
			// Past the transcendental threshold in fewer rows than
			// threads can share: split by the rows' chunks. One row
			// where every operand is a whole run or a value (it%20 ==
			// 1), else three (a per-row operand) or one.
			nd = 2
			shape = []int64{3, 7001}
		case 9:
			// A squeeze-and-excitation block's (1, C, 1, 1) with operands
			// of its shape: one run of C across the dims of size 1.
			nd = 4
			shape = []int64{1, int64(2 + r.Intn(1500)), 1, 1}
		}
		full := it%10 == 9 || it%20 == 1
		x := randT(t, int64(it), shape, f32, -3, 3)
		xs := x.Float32s()
		for i := range xs {
			switch r.Intn(40) {
			case 0:
				xs[i] = float32(math.NaN())
			case 1:
				xs[i] = float32(math.Inf(1))
			case 2:
				xs[i] = math.Float32frombits(0x7fc00000 | uint32(r.Intn(1<<22)) | uint32(r.Intn(2))<<31)
			case 3:
				xs[i] = float32(math.Copysign(0, -1))
			}
		}
		var codes []int64
		var ops []*runtime.Tensor
		var unfused []func(out, in *runtime.Tensor) error
		n := 1 + r.Intn(5)
		if it%7 == 3 {
			n = 15 + r.Intn(6) // more steps than one asm.ScalarChainF32 call takes
		}
		for s := 0; s < n; s++ {
			if r.Intn(6) == 0 {
				codes = append(codes, EwChainRelu)
				unfused = append(unfused, func(out, in *runtime.Tensor) error { return Relu(out, in) })
				continue
			}
			if r.Intn(5) == 0 || it%10 == 1 && s == 0 {
				u := unaries[r.Intn(len(unaries))]
				codes = append(codes, u.code)
				if u.name == "" {
					unfused = append(unfused, func(out, in *runtime.Tensor) error {
						sg := mustT(t, in.Shape(), f32)
						if err := Sigmoid(sg, in); err != nil {
							return err
						}
						f, _ := runtime.Lookup(Prefix + "multiply")
						_, err := f([]runtime.Value{in, sg, out})
						return err
					})
					continue
				}
				unfused = append(unfused, func(out, in *runtime.Tensor) error {
					f, _ := runtime.Lookup(Prefix + u.name)
					_, err := f([]runtime.Value{in, out})
					return err
				})
				continue
			}
			op := r.Intn(len(names))
			if it%6 == 5 && s == 0 {
				op = 4 // a maximum first, against the zeros below
			}
			rev := r.Intn(2) == 1
			// An operand shape that broadcasts to shape: some dims 1, maybe
			// fewer leading dims.
			lead := r.Intn(nd)
			os := make([]int64, nd-lead)
			for i := range os {
				if r.Intn(2) == 0 {
					os[i] = shape[lead+i]
				} else {
					os[i] = 1
				}
			}
			if full && r.Intn(5) > 0 {
				os = append(os[:0], shape...)
			}
			c := randT(t, int64(1000*it+s), os, f32, -2, 2)
			if it%6 == 5 && s%2 == 0 {
				zeroOperand(c, it%12 == 11)
			}
			code := int64(op * 2)
			if rev {
				code++
			}
			codes = append(codes, code)
			ops = append(ops, c)
			name := names[op]
			unfused = append(unfused, func(out, in *runtime.Tensor) error {
				f, _ := runtime.Lookup(Prefix + name)
				var err error
				if rev {
					_, err = f([]runtime.Value{c, in, out})
				} else {
					_, err = f([]runtime.Value{in, c, out})
				}
				return err
			})
		}
		for _, th := range []int{1, 2} {
			SetNumThreads(th)
			want := x
			for _, f := range unfused {
				o := mustT(t, shape, f32)
				if err := f(o, want); err != nil {
					t.Fatal(err)
				}
				want = o
			}
			got := mustT(t, shape, f32)
			f, _ := runtime.Lookup(EwChainKernel)
			call := []runtime.Value{x, runtime.Shape(codes)}
			for _, o := range ops {
				call = append(call, o)
			}
			if _, err := f(append(call, got)); err != nil {
				t.Fatal(err)
			}
			wf, gf := want.Float32s(), got.Float32s()
			for i := range wf {
				if math.Float32bits(wf[i]) != math.Float32bits(gf[i]) {
					t.Fatalf("shape %v codes %v threads %d: [%d] fused %v, unfused %v", shape, codes, th, i, gf[i], wf[i])
				}
			}
		}
	}
}

// TestEwChainErrors checks the fused kernel's argument errors.
func TestEwChainErrors(t *testing.T) {
	f, _ := runtime.Lookup(EwChainKernel)
	x := mustT(t, []int64{2, 3}, f32)
	out := mustT(t, []int64{2, 3}, f32)
	for _, c := range []struct {
		name  string
		codes runtime.Shape
		ops   runtime.Tuple
	}{
		{"unknown code", runtime.Shape{99}, runtime.Tuple{mustT(t, []int64{1}, f32)}},
		{"missing operand", runtime.Shape{0, 2}, runtime.Tuple{mustT(t, []int64{1}, f32)}},
		{"extra operand", runtime.Shape{EwChainRelu}, runtime.Tuple{mustT(t, []int64{1}, f32)}},
		{"no broadcast", runtime.Shape{0}, runtime.Tuple{mustT(t, []int64{4}, f32)}},
		{"int operand", runtime.Shape{0}, runtime.Tuple{mustT(t, []int64{3}, runtime.Int32)}},
	} {
		if _, err := f(append(append([]runtime.Value{x, c.codes}, c.ops...), out)); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
}

// TestEwChainShortRows checks the block path of short rows (runShort)
// against the row path bit for bit: a batch norm, a residual add and a
// relu on 7x7, 14x14 and 28x28 planes, a clip (the same values on every row), a
// residual first (the block read from x), the operand on the right, one
// value per row in place after a residual, a batch of two, rows that do
// not fill the last block, unary steps; with NaN payloads, infinities and -0
// in x.
func TestEwChainShortRows(t *testing.T) {
	defer func() { ewBlocksOn = true }()
	r := rand.New(rand.NewSource(41))
	pc := func(shape []int64) []int64 { return []int64{shape[1], 1, 1} }
	cases := []struct {
		shape []int64
		codes []int64
		ops   func(shape []int64) [][]int64 // operand shapes
	}{
		{[]int64{1, 512, 7, 7}, []int64{2 * ewSub, 2 * ewMul, 2 * ewAdd, 2 * ewAdd, EwChainRelu},
			func(s []int64) [][]int64 { return [][]int64{pc(s), pc(s), pc(s), s} }},
		{[]int64{1, 96, 14, 14}, []int64{2 * ewAdd, 2 * ewMax, 2 * ewMin},
			func(s []int64) [][]int64 { return [][]int64{pc(s), {}, {}} }},
		{[]int64{2, 33, 3, 5}, []int64{2*ewSub + 1, 2 * ewMul, 2 * ewDiv},
			func(s []int64) [][]int64 { return [][]int64{s, pc(s), pc(s)} }},
		{[]int64{3, 70, 16}, []int64{2 * ewAdd, 2*ewSub + 1, EwChainRelu, 2 * ewMax},
			func(s []int64) [][]int64 { return [][]int64{{70, 1}, s, {70, 1}} }},
		{[]int64{1, 40, 28, 28}, []int64{2 * ewSub, 2 * ewMul, 2 * ewAdd, EwChainRelu}, // rows past the rows kernel's
			func(s []int64) [][]int64 { return [][]int64{pc(s), pc(s), s} }},
		// Unary steps, run over the whole block: a bias and SiLU on rows
		// ending in a part vector, several unary steps between others.
		{[]int64{1, 672, 14, 14}, []int64{2 * ewAdd, EwChainXSigmoid},
			func(s []int64) [][]int64 { return [][]int64{pc(s)} }},
		{[]int64{2, 30, 7, 7}, []int64{2 * ewMul, EwChainSigmoid, 2*ewAdd + 1, EwChainGelu, EwChainRelu, EwChainExp},
			func(s []int64) [][]int64 { return [][]int64{pc(s), s} }},
	}
	for k, c := range cases {
		x := randT(t, int64(k), c.shape, f32, -3, 3)
		xs := x.Float32s()
		for i := range xs {
			switch r.Intn(30) {
			case 0:
				xs[i] = math.Float32frombits(0x7fc00000 | uint32(r.Intn(1<<22)))
			case 1:
				xs[i] = float32(math.Inf(-1))
			case 2:
				xs[i] = float32(math.Copysign(0, -1))
			}
		}
		var ops []*runtime.Tensor
		for i, os := range c.ops(c.shape) {
			ops = append(ops, randT(t, int64(100*k+i), os, f32, -2, 2))
		}
		var got [2]*runtime.Tensor
		for m, on := range []bool{true, false} {
			ewBlocksOn = on
			got[m] = mustT(t, c.shape, f32)
			if err := ewChain(got[m], x, c.codes, ops); err != nil {
				t.Fatal(err)
			}
		}
		a, b := got[0].Float32s(), got[1].Float32s()
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				t.Fatalf("case %d %v: [%d] blocks %#x, rows %#x", k, c.shape, i, math.Float32bits(a[i]), math.Float32bits(b[i]))
			}
		}
	}
}
