package kernels

import (
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestSteadyStateAllocs checks that common ops do not allocate per call,
// through both the typed functions and the packed registry.
func TestSteadyStateAllocs(t *testing.T) {
	x := randT(t, 1, []int64{8, 64}, f32, -2, 2)
	y := randT(t, 2, []int64{64}, f32, -2, 2)
	g := randT(t, 3, []int64{64}, f32, 0.5, 1.5)
	out := mustT(t, []int64{8, 64}, f32)
	flat := mustT(t, []int64{512}, f32)
	axes := runtime.Shape{-1}
	shape := runtime.Shape{512}
	add, _ := runtime.Lookup("kernels.add")
	relu, _ := runtime.Lookup("kernels.nn.relu")
	sm, _ := runtime.Lookup("kernels.nn.softmax")
	ln, _ := runtime.Lookup("kernels.nn.layer_norm")
	rs, _ := runtime.Lookup("kernels.reshape")
	argsAdd := []runtime.Value{x, y, out}
	argsRelu := []runtime.Value{x, out}
	argsSm := []runtime.Value{x, int64(-1), out}
	argsLn := []runtime.Value{x, g, y, axes, 1e-5, true, true, out}
	argsRs := []runtime.Value{x, shape, flat}
	stack, _ := runtime.Lookup("kernels.stack")
	concat, _ := runtime.Lookup("kernels.concat")
	stacked := mustT(t, []int64{8, 1, 64}, f32)
	joined := mustT(t, []int64{16, 64}, f32)
	argsStack1 := []runtime.Value{x, int64(1), stacked}                   // a one-tensor list, flattened
	argsStackT := []runtime.Value{runtime.Tuple{x}, int64(1), stacked}    // the same as a tuple
	argsConcat := []runtime.Value{x, x, int64(0), joined}                 // flattened
	argsConcatT := []runtime.Value{runtime.Tuple{x, x}, int64(0), joined} // a tuple
	split, _ := runtime.Lookup("kernels.split")
	halves := [2]*runtime.Tensor{mustT(t, []int64{8, 32}, f32), mustT(t, []int64{8, 32}, f32)}
	argsSplit := []runtime.Value{x, int64(2), int64(1), halves[0], halves[1]}                                                   // outputs flattened
	argsSplitT := []runtime.Value{x, int64(2), int64(1), runtime.Tuple{halves[0], halves[1]}}                                   // a tuple of outputs
	argsSplitI := []runtime.Value{x, runtime.Shape{16}, int64(1), mustT(t, []int64{8, 16}, f32), mustT(t, []int64{8, 48}, f32)} // by indices
	ew, _ := runtime.Lookup(EwChainKernel)
	argsEw := []runtime.Value{x, runtime.Shape{0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0, EwChainRelu}, g, y, g, y, g, y, g, y, g, y, g, out}
	rz, _ := runtime.Lookup("kernels.image.resize2d")
	planes := randT(t, 4, []int64{1, 2, 8, 8}, f32, -2, 2)
	argsRz := []runtime.Value{planes, runtime.Shape{16, 16}, runtime.Tuple{0.0, 0.0, 0.0, 0.0}, "NCHW", "linear", "half_pixel", "", -0.75,
		int64(0), 0.0, nil, mustT(t, []int64{1, 2, 16, 16}, f32)}
	cases := []struct {
		name string
		fn   func()
	}{
		{"Add", func() { _ = Add(out, x, y) }},
		{"Add same shape", func() { _ = Add(out, x, x) }},
		{"Multiply scalar", func() { _ = Multiply(out, x, g) }},
		{"Relu", func() { _ = Relu(out, x) }},
		{"Gelu", func() { _ = Gelu(out, x) }},
		{"Exp", func() { _ = Exp(out, x) }},
		{"Softmax", func() { _ = Softmax(out, x, -1) }},
		{"LayerNorm", func() { _ = LayerNorm(out, x, g, y, LayerNormAttrs{Axes: axes, Epsilon: 1e-5}) }},
		{"Reshape", func() { _ = Reshape(flat, x, shape) }},
		{"PermuteDims", func() { _ = PermuteDims(outT, x, nil) }},
		{"Sum", func() { _ = Sum(mustSum, x, axes, false) }},
		{"packed add", func() { _, _ = add(argsAdd) }},
		{"packed relu", func() { _, _ = relu(argsRelu) }},
		{"packed softmax", func() { _, _ = sm(argsSm) }},
		{"packed layer_norm", func() { _, _ = ln(argsLn) }},
		{"packed reshape", func() { _, _ = rs(argsRs) }},
		{"packed stack of one tensor", func() { _, _ = stack(argsStack1) }},
		{"packed stack of a tuple", func() { _, _ = stack(argsStackT) }},
		{"packed concat", func() { _, _ = concat(argsConcat) }},
		{"packed concat of a tuple", func() { _, _ = concat(argsConcatT) }},
		{"packed split", func() { _, _ = split(argsSplit) }},
		{"packed split into a tuple", func() { _, _ = split(argsSplitT) }},
		{"packed split at indices", func() { _, _ = split(argsSplitI) }},
		{"packed resize2d with a roi", func() { _, _ = rz(argsRz) }},
		{"packed chain of 12 steps", func() { _, _ = ew(argsEw) }},
	}
	mustSum = mustT(t, []int64{8}, f32)
	outT = mustT(t, []int64{64, 8}, f32)
	for _, c := range cases {
		if n := testing.AllocsPerRun(50, c.fn); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", c.name, n)
		}
	}
}

var mustSum *runtime.Tensor
var outT *runtime.Tensor

// TestSteadyStateAllocsLinalg checks that the GEMM driver, matmul and conv2d
// do not allocate per call once their pools are warm, on one thread and on
// several (the parallel path hands pooled jobs to the worker pool).
func TestSteadyStateAllocsLinalg(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	defer SetNumThreads(0)
	a := randT(t, 1, []int64{4, 40, 72}, f32, -1, 1)
	b := randT(t, 2, []int64{72, 56}, f32, -1, 1)
	bb := randT(t, 3, []int64{1, 72, 56}, f32, -1, 1)
	c := mustT(t, []int64{4, 40, 56}, f32)
	a2 := randT(t, 4, []int64{40, 72}, f32, -1, 1)
	c2 := mustT(t, []int64{40, 56}, f32)
	bt := randT(t, 5, []int64{4, 56, 72}, f32, -1, 1)
	x := randT(t, 6, []int64{1, 8, 12, 12}, f32, -1, 1)
	w := randT(t, 7, []int64{16, 8, 3, 3}, f32, -1, 1)
	y := mustT(t, []int64{1, 16, 12, 12}, f32)
	wd := randT(t, 8, []int64{8, 1, 3, 3}, f32, -1, 1)
	yd := mustT(t, []int64{1, 8, 12, 12}, f32)
	pad := []int64{1, 1, 1, 1}
	conv := Conv2DAttrs{Padding: pad, Groups: 1}
	dw := Conv2DAttrs{Padding: pad, Groups: 8}
	mm, _ := runtime.Lookup("kernels.matmul")
	argsMM := []runtime.Value{a2, b, nil, c2}
	rb, cb := make([]float32, 40), make([]float32, 56)
	ep := &GemmEpilogue{RowBias: rb, ColBias: cb, Relu: true}
	ep2 := &GemmEpilogue{ColBias: make([]float32, 401), Relu: true}
	af, bf, cf := a2.Float32s(), b.Float32s(), c2.Float32s()
	ct := make([]float32, 72*56)
	// Large enough for the parallel paths (above gemmParallelMinMNK): the
	// packed driver with column split, the small-M path, pre-packed B.
	bigA, bigB, bigC := make([]float32, 200*1400), make([]float32, 1400*401), make([]float32, 200*401)
	pbig, err := PackB(false, 160, 400, bigB, 400)
	if err != nil {
		t.Fatal(err)
	}
	xb := randT(t, 9, []int64{1, 16, 40, 40}, f32, -1, 1)
	wb := randT(t, 10, []int64{32, 16, 3, 3}, f32, -1, 1)
	yb := mustT(t, []int64{1, 32, 40, 40}, f32)
	wc := randT(t, 11, []int64{72, 56}, f32, -1, 1)
	RegisterConstant(wc)
	defer UnregisterConstant(wc)
	wbc := randT(t, 14, []int64{32, 16, 3, 3}, f32, -1, 1)
	RegisterConstant(wbc)
	defer UnregisterConstant(wbc)
	// The large cases are slow in pure Go: fewer runs there.
	linalgRuns := 50
	if asm.CurrentLevel() == asm.LevelGo {
		linalgRuns = 10
	}
	cases := []struct {
		name string
		fn   func()
	}{
		{"Sgemm", func() { _ = Sgemm(false, false, 40, 56, 72, 1, af, 72, bf, 56, 0, cf, 56) }},
		{"Sgemm transA beta", func() { _ = Sgemm(true, false, 72, 56, 40, 1, af, 72, bf, 56, 0.5, ct, 56) }},
		{"SgemmEx epilogue", func() { _ = SgemmEx(false, false, 40, 56, 72, 1, af, 72, bf, 56, 0, cf, 56, ep) }},
		{"Sgemm k=0", func() { _ = SgemmEx(false, false, 40, 56, 0, 1, af, 72, bf, 56, 2, cf, 56, ep) }},
		{"Matmul 2-D", func() { _ = Matmul(c2, a2, b) }},
		{"Matmul batched, shared B", func() { _ = Matmul(c, a, b) }},
		{"Matmul batched, broadcast B", func() { _ = Matmul(c, a, bb) }},
		{"MatmulTransposed batched", func() { _ = MatmulTransposed(c, a, bt, false, true) }},
		{"Conv2D", func() { _ = Conv2D(y, x, w, conv) }},
		{"Conv2D depthwise", func() { _ = Conv2D(yd, x, wd, dw) }},
		{"packed matmul", func() { _, _ = mm(argsMM) }},
		{"Sgemm large", func() { _ = Sgemm(false, false, 100, 400, 160, 1, bigA, 160, bigB, 400, 0, bigC, 400) }},
		{"Sgemm tall", func() { _ = Sgemm(false, false, 200, 400, 60, 1, bigA, 60, bigB, 400, 0, bigC, 400) }},
		{"Sgemm small M", func() { _ = Sgemm(false, false, 3, 400, 1400, 1, bigA, 1400, bigB, 400, 0.5, bigC, 400) }},
		{"SgemmEx small M parallel", func() { _ = SgemmEx(false, false, 8, 401, 1400, 1, bigA, 1400, bigB, 401, 0, bigC, 401, ep2) }},
		{"SgemmPacked", func() { _ = SgemmPacked(false, 100, 1, bigA, 160, pbig, 0, bigC, 400, nil) }},
		{"Matmul registered constant", func() { _ = Matmul(c2, a2, wc) }},
		{"Conv2D parallel", func() { _ = Conv2D(yb, xb, wb, conv) }},
		{"Conv2D registered constant weights", func() { _ = Conv2D(yb, xb, wbc, conv) }},
	}
	// The kernels' jobs and scratch buffers live in free lists that
	// garbage collections leave alone (a sync.Pool is emptied by them, and
	// a model allocating its results collects every few dozen calls): a
	// collection between warming and measuring must not cost allocations.
	for _, threads := range []int{1, 2, 4} {
		SetNumThreads(threads)
		for _, c := range cases {
			for i := 0; i < 3; i++ {
				c.fn() // warm the pools
			}
			goruntime.GC()
			goruntime.GC()
			if n := allocsSettled(linalgRuns, c.fn); n != 0 {
				t.Errorf("threads=%d, level %s: %s: %v allocations per call in each of %d measurements, want 0",
					threads, asm.CurrentLevel(), c.name, n, allocAttempts)
			}
		}
	}
}

// allocAttempts is how many times allocsSettled measures before it reports
// an allocation.
const allocAttempts = 3

// allocsSettled is testing.AllocsPerRun(runs, fn), measured up to
// allocAttempts times: the least count, 0 as soon as one measurement finds
// none. On several threads a worker can find a free list empty for a
// while, until the lists hold as many objects as run at once. An
// allocation the code makes on every call shows in every measurement.
func allocsSettled(runs int, fn func()) float64 {
	least := testing.AllocsPerRun(runs, fn)
	for i := 1; i < allocAttempts && least != 0; i++ {
		least = min(least, testing.AllocsPerRun(runs, fn))
	}
	return least
}

// TestSteadyStateAllocsParallel checks that elementwise, broadcast and row
// kernels large enough to split over two threads allocate nothing per call
// either: their parallel jobs are pooled (parjob.go), not closures.
func TestSteadyStateAllocsParallel(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	defer SetNumThreads(0)
	SetNumThreads(2)
	x := randT(t, 1, []int64{256, 512}, f32, -2, 2)
	y := randT(t, 2, []int64{512}, f32, -2, 2)
	col := randT(t, 3, []int64{256, 1}, f32, -2, 2)
	long := randT(t, 4, []int64{1 << 17}, f32, -2, 2)
	one := randT(t, 5, []int64{1}, f32, -2, 2)
	out := mustT(t, []int64{256, 512}, f32)
	longOut := mustT(t, []int64{1 << 17}, f32)
	rowSums := mustT(t, []int64{256}, f32)
	planes := randT(t, 6, []int64{1, 128, 56, 56}, f32, -2, 2)
	pooled := mustT(t, []int64{1, 128, 28, 28}, f32)
	padded := mustT(t, []int64{1, 128, 58, 58}, f32)
	avg := Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}}
	pad := PadAttrs{PadWidth: []int64{0, 0, 0, 0, 1, 1, 1, 1}}
	mask := randT(t, 7, []int64{256, 512}, runtime.Bool, 0, 1)
	upIn := randT(t, 8, []int64{1, 32, 28, 28}, f32, -1, 1)
	upW := randT(t, 9, []int64{32, 16, 2, 2}, f32, -1, 1)
	upOut := mustT(t, []int64{1, 16, 56, 56}, f32)
	up := Conv2DTransposeAttrs{Strides: []int64{2, 2}, Padding: []int64{0, 0, 0, 0}, Dilation: []int64{1, 1}, Groups: 1,
		DataLayout: "NCHW", KernelLayout: "IOHW", OutLayout: "NCHW"}
	perm := mustT(t, []int64{1, 56, 128, 56}, f32)
	cases := []struct {
		name string
		fn   func() error
	}{
		{"Add rows", func() error { return Add(out, x, y) }},
		{"Subtract column", func() error { return Subtract(out, x, col) }},
		{"Multiply one row", func() error { return Multiply(longOut, long, one) }},
		{"Sqrt", func() error { return Sqrt(out, x) }},
		{"Sigmoid", func() error { return Sigmoid(out, x) }},
		{"Softmax", func() error { return Softmax(out, x, -1) }},
		{"LogSoftmax", func() error { return LogSoftmax(out, x, -1) }},
		{"LayerNorm", func() error {
			return LayerNorm(out, x, y, y, LayerNormAttrs{Axes: []int64{-1}, Epsilon: 1e-5})
		}},
		{"Sum", func() error { return Sum(rowSums, x, []int64{-1}, false) }},
		{"AvgPool2D", func() error { return AvgPool2D(pooled, planes, avg) }},
		{"Pad", func() error { return Pad(padded, planes, pad) }},
		{"Where", func() error { return Where(out, mask, x, y) }},
		{"Conv2DTranspose", func() error { return Conv2DTranspose(upOut, upIn, upW, up) }},
		{"PermuteDims", func() error { return PermuteDims(perm, planes, []int64{0, 2, 1, 3}) }},
	}
	for _, c := range cases {
		if err := c.fn(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n := allocsSettled(20, func() { _ = c.fn() }); n != 0 {
			t.Errorf("%s at 2 threads: %v allocations per call, want 0", c.name, n)
		}
	}
}

// TestTensorListErrors checks that a tensor list read without allocating
// (a tuple or one tensor: concat's and stack's inputs, split's outputs)
// still refuses what is not a tensor, naming the argument and element.
func TestTensorListErrors(t *testing.T) {
	x := mustT(t, []int64{2, 4}, f32)
	o := mustT(t, []int64{2, 4}, f32)
	h := mustT(t, []int64{2, 2}, f32)
	cases := []struct {
		op   string
		args []runtime.Value
		want string
	}{
		{"concat", []runtime.Value{runtime.Tuple{x, int64(1)}, int64(0), o}, "argument 0: element 1 must be a Tensor"},
		{"stack", []runtime.Value{runtime.Tuple{nil}, int64(0), o}, "argument 0: element 0 must be a Tensor"},
		{"concat", []runtime.Value{"x", int64(0), o}, "argument 0"},
		{"split", []runtime.Value{x, int64(2), int64(1), runtime.Tuple{h, "y"}}, "argument 3: element 1 must be a Tensor"},
	}
	for _, c := range cases {
		err := call(c.op, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s%v: got %v, want an error containing %q", c.op, c.args, err, c.want)
		}
	}
}

// TestSteadyStateAllocs1D checks that the 1-D operators that run as their
// 2-D forms over height-1 views (conv1d, conv1d_transpose, the 1-D
// poolings) allocate nothing per call, with a registered constant weight
// and without, and that a constant's view is itself a registered constant,
// made once (so its packed forms are cached) and forgotten with it.
func TestSteadyStateAllocs1D(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	x := randT(t, 1, []int64{2, 8, 50}, f32, -1, 1)
	w := randT(t, 2, []int64{16, 8, 5}, f32, -1, 1)
	wc := randT(t, 3, []int64{16, 8, 5}, f32, -1, 1)
	RegisterConstant(wc)
	defer UnregisterConstant(wc)
	wt := randT(t, 4, []int64{8, 4, 3}, f32, -1, 1)
	y := mustT(t, []int64{2, 16, 24}, f32)
	yt := mustT(t, []int64{2, 4, 99}, f32)
	p := mustT(t, []int64{2, 8, 25}, f32)
	ap := mustT(t, []int64{2, 8, 7}, f32)
	conv := Conv1DAttrs{Strides: []int64{2}, Padding: []int64{1, 0}}
	tr := Conv2DTransposeAttrs{Strides: []int64{2}, Padding: []int64{1}}
	pool := Pool1DAttrs{PoolSize: []int64{3}, Strides: []int64{2}, Padding: []int64{1}}
	seven := []int64{7}
	cases := []struct {
		name string
		fn   func() error
	}{
		{"Conv1D", func() error { return Conv1D(y, x, w, conv) }},
		{"Conv1D constant weight", func() error { return Conv1D(y, x, wc, conv) }},
		{"Conv1DTranspose", func() error { return Conv1DTranspose(yt, x, wt, tr) }},
		{"MaxPool1D", func() error { return MaxPool1D(p, x, pool) }},
		{"AvgPool1D", func() error { return AvgPool1D(p, x, pool) }},
		{"AdaptiveAvgPool1D", func() error { return AdaptiveAvgPool1D(ap, x, seven, "NCW", "") }},
	}
	for _, c := range cases {
		if err := c.fn(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n := testing.AllocsPerRun(20, func() { _ = c.fn() }); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", c.name, n)
		}
	}
	var u unitView
	v1, err := weightView(&u.w, wc, &u.ws)
	if err != nil {
		t.Fatal(err)
	}
	if v2, _ := weightView(&u.w, wc, &u.ws); v2 != v1 || v1 == &u.w || !IsConstant(v1) {
		t.Errorf("a constant's view: made again (%v) or not registered (%v)", v2 != v1, !IsConstant(v1))
	}
	if got := runtime.Shape(v1.Shape()); !got.Equal(runtime.Shape{16, 8, 1, 5}) {
		t.Errorf("view shape %v, want (16, 8, 1, 5)", got)
	}
	UnregisterConstant(wc)
	if IsConstant(v1) {
		t.Error("the view is still registered after its constant was unregistered")
	}
	if v, _ := weightView(&u.w, w, &u.ws); v != &u.w {
		t.Error("a weight that is not a constant got a cached view")
	}
}
