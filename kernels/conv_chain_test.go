package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestConv2DChainMatchesUnfused compares Conv2DChainKernel with
// kernels.nn.conv2d followed by EwChainKernel, bit for bit, over random
// convolutions (depthwise with channel multipliers and strides; grouped
// and ordinary ones, on the indirect path with the chain per block and on
// the packed path with the chain after each group) and random
// chains of per-channel and scalar operands on either side and relus (all
// scalar operands too), on inputs with NaN payloads, infinities and signed
// zeros, planes of one element and of a multiple of the chain kernel's
// chunk plus one, non-finite depthwise weights, residual chains on the
// packed path over one and two depth blocks, unary steps (exp, tanh, erf,
// sigmoid, the gelus, silu), at 1 and 2 threads.
func TestConv2DChainMatchesUnfused(t *testing.T) {
	defer func(lean bool) { alignRowsLean = lean }(alignRowsLean)
	alignRowsLean = false // the aligned rows' cases on every processor
	defer SetNumThreads(0)
	r := rand.New(rand.NewSource(21))
	for it := 0; it < 200; it++ {
		groups, cg, og := 1+r.Intn(12), 1, 1+r.Intn(2) // depthwise
		if it%7 == 3 {
			groups, og = 13+r.Intn(28), 1 // the channel-blocked path, partial blocks
		}
		if it%5 == 4 {
			groups, cg, og = 1+r.Intn(2), 2+r.Intn(3), 1+r.Intn(6)
			if r.Intn(2) == 0 {
				og = 9 + r.Intn(60) // the indirect path, both tiles
			}
		}
		if it%20 == 18 || it%20 == 17 {
			groups, cg, og = 1, 3, 20 // indirect, below: a plane of one element, or a one-element last chunk
		}
		packedRes := it%20 == 19
		if packedRes {
			groups, cg, og = 1, 2+r.Intn(40), 65+r.Intn(80) // the packed path with a residual (its chain in a pass after the product)
			if r.Intn(2) == 0 {
				cg = 257 + r.Intn(100) // two depth blocks
			}
		}
		scatter := it%20 == 11 || it%20 == 13
		if scatter {
			groups, cg, og = 1, 1+r.Intn(4), 8*(1+r.Intn(4)) // whole 8-row tiles: the indirect kernel stores into the output
		}
		k := 1 + r.Intn(3)
		stride := int64(1 + r.Intn(2))
		pad := int64(r.Intn(2))
		n := 1 + r.Intn(2)
		h, w := 1+r.Intn(18), 1+r.Intn(40)
		switch it % 10 {
		case 6:
			h, w = 1+r.Intn(5), 64+r.Intn(130) // rows long enough to chain while copied (chainRows)
		case 7:
			h, w, k, pad, stride = 1, 1, 1, 0, 1 // one-element planes
		case 8:
			h, w, k, pad, stride = 1, 2049, 1, 0, 1 // a one-element last chunk
		}
		if scatter {
			h, w = 2+r.Intn(20), 14+r.Intn(60) // flat rows of at least 16
			if it%40 == 13 {
				w, pad, stride = 64*(1+r.Intn(2)), 1, 1 // rows padded to whole lines (alignedRows)
			}
		}
		if packedRes {
			h, w, k, pad, stride = 4+r.Intn(60), 16*(1+r.Intn(3)), 1, 0, 1 // whole panels (not the positions path); rows within a chunk or across
		}
		if h+2*int(pad) < k || w+2*int(pad) < k {
			continue
		}
		x := randT(t, int64(it), []int64{int64(n), int64(groups * cg), int64(h), int64(w)}, f32, -3, 3)
		step := 13
		if packedRes {
			step = 5000 // deep products: a special in most inputs' windows would make every output NaN
		}
		for i, xs := 0, x.Float32s(); i < len(xs); i += 1 + r.Intn(step) {
			switch r.Intn(3) {
			case 0:
				xs[i] = math.Float32frombits(0x7fc00000 | uint32(r.Intn(1<<22)) | uint32(r.Intn(2))<<31)
			case 1:
				xs[i] = float32(math.Inf(1 - 2*r.Intn(2)))
			default:
				xs[i] = float32(math.Copysign(0, -1))
			}
		}
		if it%10 == 7 || it%10 == 8 {
			// NaNs meeting NaNs: which payload survives depends on the
			// operand order of each step's kernel.
			for i, xs := 0, x.Float32s(); i < len(xs); i++ {
				xs[i] = math.Float32frombits(0x7fc00000 | uint32(r.Intn(1<<22)))
			}
		}
		wt := randT(t, int64(it+500), []int64{int64(groups * og), int64(cg), int64(k), int64(k)}, f32, -1, 1)
		if cg == 1 && it%8 == 5 {
			wt.Float32s()[0] = float32(math.Inf(1)) // the depthwise row loops
		}
		oh := (h+2*int(pad)-k)/int(stride) + 1
		ow := (w+2*int(pad)-k)/int(stride) + 1
		oc := int64(groups * og)
		shape := []int64{int64(n), oc, int64(oh), int64(ow)}
		var codes runtime.Shape
		var ops []runtime.Value
		scalarsOnly := it%6 == 2
		for s := 0; s < 1+r.Intn(7); s++ {
			if r.Intn(5) == 0 {
				codes = append(codes, EwChainRelu)
				continue
			}
			if it%4 == 3 && r.Intn(3) == 0 {
				// A unary step (EfficientNet's silu after its batch norm).
				codes = append(codes, []int64{EwChainExp, EwChainTanh, EwChainErf, EwChainSigmoid, EwChainGelu, EwChainGeluTanh, EwChainSilu}[r.Intn(7)])
				continue
			}
			codes = append(codes, int64(r.Intn(12)))
			var os []int64
			switch r.Intn(4) {
			case 0:
				os = []int64{} // a scalar
			case 1:
				os = []int64{oc, 1, 1}
			default:
				os = []int64{1, oc, 1, 1}
			}
			if scalarsOnly {
				os = []int64{1, 1}
			}
			c := randT(t, int64(1000*it+s), os, f32, -2, 2)
			if it%6 == 5 && s%2 == 0 {
				zeroOperand(c, it%12 == 11)
			}
			if cs := c.Float32s(); len(cs) > 1 && r.Intn(3) == 0 {
				cs[r.Intn(len(cs))] = math.Float32frombits(0x7fc00000 | uint32(r.Intn(1<<22)))
			}
			if it%10 == 7 || it%10 == 8 {
				for i, cs := 0, c.Float32s(); i < len(cs); i++ {
					cs[i] = math.Float32frombits(0xffc00000 | uint32(r.Intn(1<<22)))
				}
			}
			ops = append(ops, c)
		}
		if it%3 == 1 || packedRes {
			// A residual (an operand of the output's shape) at a random
			// place in the chain: add, subtract, multiply or divide,
			// either side, with NaNs, infinities and signed zeros.
			res := randT(t, int64(7000+it), shape, f32, -3, 3)
			for i, rs := 0, res.Float32s(); i < len(rs); i += 1 + r.Intn(17) {
				rs[i] = []float32{float32(math.NaN()), float32(math.Inf(-1)), float32(math.Copysign(0, -1))}[r.Intn(3)]
			}
			at, k := r.Intn(len(codes)+1), 0 // step index, and the operands before it
			for _, c := range codes[:at] {
				if c != EwChainRelu && (c < EwChainExp || c > EwChainSilu) {
					k++
				}
			}
			code := int64(r.Intn(8))
			if scatter && r.Intn(3) > 0 {
				code = int64(r.Intn(2)) // an add, either side: the scattering kernel runs it
			}
			codes = append(codes[:at:at], append(runtime.Shape{code}, codes[at:]...)...)
			ops = append(ops[:k:k], append([]runtime.Value{res}, ops[k:]...)...)
		}
		attrs := []runtime.Value{runtime.Shape{stride, stride}, runtime.Shape{pad, pad, pad, pad}, runtime.Shape{1, 1}, int64(groups), "NCHW", "OIHW", "NCHW", runtime.Float32}
		constant := it%4 == 0 || packedRes // a model's weights: the chain's table is made once and shared
		if constant {
			RegisterConstant(wt)
			for _, o := range ops {
				RegisterConstant(o.(*runtime.Tensor))
			}
		}
		for _, th := range []int{1, 2} {
			SetNumThreads(th)
			checkFusedConvChain(t, fmt.Sprintf("it %d x %v w %v stride %d pad %d codes %v threads %d constant %v", it, x.Shape(), wt.Shape(), stride, pad, codes, th, constant),
				x, wt, attrs, codes, ops, shape)
		}
		if constant {
			UnregisterConstant(wt)
			for _, o := range ops {
				UnregisterConstant(o.(*runtime.Tensor))
			}
		}
	}
	constChains.Range(func(k, _ any) bool {
		t.Errorf("a chain table of %p outlived its unregistered operands", k)
		return true
	})
}

// TestMaxZeroCode checks which chain steps run as asm.ChainMaxZero: a max
// whose operand is +0 in every element, not -0, not a NaN, not a tensor
// with one other value, and no other operation.
func TestMaxZeroCode(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for _, c := range []struct {
		code uint8
		vals []float32
		want uint8
	}{
		{asm.ChainMax, []float32{0}, asm.ChainMaxZero},
		{asm.ChainMax, []float32{0, 0, 0}, asm.ChainMaxZero},
		{asm.ChainMax, []float32{negZero}, asm.ChainMax},
		{asm.ChainMax, []float32{0, negZero, 0}, asm.ChainMax},
		{asm.ChainMax, []float32{0, 0, 1e-45}, asm.ChainMax},
		{asm.ChainMax, []float32{float32(math.NaN())}, asm.ChainMax},
		{asm.ChainMin, []float32{0}, asm.ChainMin},
		{asm.ChainAdd, []float32{0}, asm.ChainAdd},
	} {
		o, err := runtime.FromSlice(c.vals, int64(len(c.vals)))
		if err != nil {
			t.Fatal(err)
		}
		if got := maxZeroCode(c.code, o); got != c.want {
			t.Errorf("maxZeroCode(%d, %v) = %d, want %d", c.code, c.vals, got, c.want)
		}
	}
	if got := maxZeroCode(asm.ChainRelu, nil); got != asm.ChainRelu {
		t.Errorf("relu (no operand) became %d", got)
	}
}

// TestConstChainTable checks the cache of constant chains' tables: a chain
// whose operands are all registered constants is read from its table made
// once, on every path that reads it in lane blocks too; unregistering an
// operand drops the table, so the operand's new values count once it is
// registered again; a chain with an operand that is not constant never
// uses the cache.
func TestConstChainTable(t *testing.T) {
	defer SetNumThreads(1)
	SetNumThreads(1)
	// Depthwise (the planar and channel-blocked paths), grouped, 3x3 and
	// pointwise (the indirect path).
	for _, c := range []struct{ c, o, hw, k, groups int64 }{{40, 40, 9, 3, 40}, {40, 40, 120, 3, 40}, {20, 40, 9, 3, 20}, {8, 32, 9, 3, 1}, {16, 48, 14, 1, 1}} {
		x := randT(t, 1, []int64{1, c.c, c.hw, c.hw}, f32, -2, 2)
		wt := randT(t, 2, []int64{c.o, c.c / c.groups, c.k, c.k}, f32, -1, 1)
		p := (c.k - 1) / 2
		attrs := []runtime.Value{runtime.Shape{1, 1}, runtime.Shape{p, p, p, p}, runtime.Shape{1, 1}, c.groups, "NCHW", "OIHW", "NCHW", runtime.Float32}
		bias := randT(t, 3, []int64{1, c.o, 1, 1}, f32, -1, 1)
		lo, hi := randT(t, 4, []int64{}, f32, 0, 0), randT(t, 5, []int64{}, f32, 0.5, 0.5)
		codes := runtime.Shape{0, 8, 10} // + bias, max lo, min hi
		ops := []runtime.Value{bias, lo, hi}
		shape := []int64{1, c.o, c.hw, c.hw}
		name := fmt.Sprintf("%+v", c)
		for _, o := range []*runtime.Tensor{wt, bias, lo, hi} {
			RegisterConstant(o)
		}
		checkFusedConvChain(t, name, x, wt, attrs, codes, ops, shape)
		if v, ok := constChains.Load(bias); !ok || v.(*chainList).entries.Load() == nil {
			t.Fatalf("%s: no table cached for a chain of constants", name)
		}
		checkFusedConvChain(t, name+" (cached)", x, wt, attrs, codes, ops, shape)
		UnregisterConstant(hi)
		if _, ok := constChains.Load(bias); ok {
			t.Fatalf("%s: the table outlived an unregistered operand", name)
		}
		hi.Float32s()[0] = 0.25
		checkFusedConvChain(t, name+" (hi not constant)", x, wt, attrs, codes, ops, shape)
		RegisterConstant(hi)
		checkFusedConvChain(t, name+" (hi constant again)", x, wt, attrs, codes, ops, shape)
		for _, o := range []*runtime.Tensor{wt, bias, lo, hi} {
			UnregisterConstant(o)
		}
	}
}

// TestConv2DChainPackedWeights runs convolutions with registered
// (packed-once) weights down the packed GEMM path with the chain after the
// product (pointwise with more outputs than the indirect path takes, a
// column count with a half-width last panel, and a 3x3 one), the position
// path and the Winograd one, with a residual in the chain, at every level
// and at 1 and 2 threads, and requires the bits of the convolution
// followed by the chain kernel.
func TestConv2DChainPackedWeights(t *testing.T) {
	defer SetNumThreads(0)
	r := rand.New(rand.NewSource(23))
	for ci, c := range []struct{ in, o, h, w, k, pad int64 }{{24, 300, 13, 13, 1, 0}, {40, 270, 5, 9, 1, 0}, {20, 300, 11, 17, 3, 1}, {33, 1000, 4, 4, 1, 0},
		{64, 64, 7, 7, 3, 1}, {64, 64, 7, 7, 1, 0}, {48, 64, 14, 14, 3, 1}} { // the position path (AVX-512), Winograd
		x := randT(t, int64(ci), []int64{1, c.in, c.h, c.w}, f32, -3, 3)
		wt := randT(t, int64(ci+50), []int64{c.o, c.in, c.k, c.k}, f32, -1, 1)
		RegisterConstant(wt)
		oh, ow := c.h+2*c.pad-c.k+1, c.w+2*c.pad-c.k+1
		shape := []int64{1, c.o, oh, ow}
		codes := runtime.Shape{0, 4, EwChainRelu, int64(r.Intn(12)), 0}
		ops := []runtime.Value{randT(t, 90, []int64{1, c.o, 1, 1}, f32, -1, 1), randT(t, 91, []int64{c.o, 1, 1}, f32, 0.5, 2),
			randT(t, 92, []int64{}, f32, -1, 1), randT(t, 93, shape, f32, -1, 1)} // and a residual
		attrs := []runtime.Value{runtime.Shape{1, 1}, runtime.Shape{c.pad, c.pad, c.pad, c.pad}, runtime.Shape{1, 1}, int64(1), "NCHW", "OIHW", "NCHW", runtime.Float32}
		forEachLevel(t, func(l asm.Level) {
			for _, th := range []int{1, 2} {
				SetNumThreads(th)
				checkFusedConvChain(t, fmt.Sprintf("%s %v threads %d", l, c, th), x, wt, attrs, codes, ops, shape)
			}
		})
		UnregisterConstant(wt)
	}
}

// checkFusedConvChain requires the fused kernel's output for x, weight wt,
// the convolution attributes attrs and the chain codes/ops to be, bit for
// bit, kernels.nn.conv2d's followed by the chain kernel's (what names the
// case in a failure).
func checkFusedConvChain(t *testing.T, what string, x, wt *runtime.Tensor, attrs []runtime.Value, codes runtime.Shape, ops []runtime.Value, shape []int64) {
	t.Helper()
	conv, _ := runtime.Lookup("kernels.nn.conv2d")
	chainK, _ := runtime.Lookup(EwChainKernel)
	fused, ok := runtime.Lookup(Conv2DChainKernel)
	if !ok {
		t.Fatal("conv2d_chain not registered")
	}
	mid, want, got := mustT(t, shape, f32), mustT(t, shape, f32), mustT(t, shape, f32)
	if _, err := conv(append(append([]runtime.Value{x, wt}, attrs...), mid)); err != nil {
		t.Fatal(err)
	}
	if _, err := chainK(append(append([]runtime.Value{mid, codes}, ops...), want)); err != nil {
		t.Fatal(err)
	}
	call := append(append([]runtime.Value{x, wt}, attrs...), codes)
	if _, err := fused(append(append(call, ops...), got)); err != nil {
		t.Fatal(err)
	}
	for i, v := range want.Float32s() {
		if g := got.Float32s()[i]; math.Float32bits(g) != math.Float32bits(v) {
			t.Fatalf("%s: [%d] fused %08x, unfused %08x", what, i, math.Float32bits(g), math.Float32bits(v))
		}
	}
}

// TestConv2DChainErrors checks the fused kernel's argument errors.
func TestConv2DChainErrors(t *testing.T) {
	f, _ := runtime.Lookup(Conv2DChainKernel)
	x := randT(t, 1, []int64{1, 3, 5, 5}, f32, -1, 1)
	w := randT(t, 2, []int64{3, 1, 3, 3}, f32, -1, 1)
	out := mustT(t, []int64{1, 3, 3, 3}, f32)
	per := randT(t, 3, []int64{1, 3, 1, 1}, f32, -1, 1)
	attrs := []runtime.Value{runtime.Shape{1, 1}, runtime.Shape{0, 0, 0, 0}, runtime.Shape{1, 1}, int64(3), "NCHW", "OIHW", "NCHW", runtime.Float32}
	call := func(codes runtime.Value, ops ...runtime.Value) []runtime.Value {
		a := append(append([]runtime.Value{x, w}, attrs...), codes)
		return append(append(a, ops...), out)
	}
	if _, err := f(call(runtime.Shape{0, EwChainRelu}, per)); err != nil {
		t.Fatal(err)
	}
	long := make(runtime.Shape, ewMaxRun+1)
	for i, args := range [][]runtime.Value{
		call(runtime.Shape{0, 2}, per),                                       // too few operands
		call(runtime.Shape{0}, per, per),                                     // too many
		call(runtime.Shape{77}, per),                                         // unknown code
		call(runtime.Shape{0}, randT(t, 4, []int64{1, 3, 3, 1}, f32, -1, 1)), // neither per channel nor the output's shape
		call(runtime.Shape{8}, randT(t, 4, []int64{1, 3, 3, 3}, f32, -1, 1)), // the output's shape, but a maximum
		call(runtime.Shape{0, 0}, randT(t, 4, []int64{1, 3, 3, 3}, f32, -1, 1), randT(t, 6, []int64{1, 3, 3, 3}, f32, -1, 1)), // two residuals
		call(runtime.Shape{0}, randT(t, 5, []int64{1, 3, 1, 1}, f64, -1, 1)),                                                  // not float32
		call("codes", per),
		call(runtime.Shape{0}, int64(1)),
		call(long),
		call(runtime.Shape{0}, per)[:11],
	} {
		if _, err := f(args); err == nil {
			t.Errorf("bad conv2d_chain call %d accepted", i)
		}
	}
}

// BenchmarkConv2DChain times a depthwise convolution followed by a
// per-channel batch norm and ReLU6 ((x - mean) * scale + shift, max 0, min
// 6), fused (conv2d_chain) and as two kernels (conv2d, then ew_chain), 1
// thread, on MobileNetV2's depthwise layer sizes.
func BenchmarkConv2DChain(b *testing.B) {
	defer SetNumThreads(0)
	conv, _ := runtime.Lookup("kernels.nn.conv2d")
	chainK, _ := runtime.Lookup(EwChainKernel)
	fused, _ := runtime.Lookup(Conv2DChainKernel)
	codes := runtime.Shape{2, 4, 0, 8, 10}
	// Depthwise 3x3 (in == 0: ch channels in and out), then MobileNetV2's
	// pointwise layers (in -> ch): the indirect path with 24 and 32
	// outputs, the packed one with 96.
	for _, c := range []struct{ in, ch, hw, stride int64 }{{0, 32, 112, 1}, {0, 144, 56, 1}, {0, 96, 112, 2}, {0, 144, 56, 2}, {0, 192, 28, 1}, {0, 384, 14, 1}, {0, 576, 14, 1}, {0, 960, 7, 1},
		{144, 24, 56, 1}, {192, 32, 28, 1}, {16, 96, 112, 1}} {
		in, k, groups, pad, name := c.ch, int64(3), c.ch, int64(1), "dw"
		if c.in > 0 {
			in, k, groups, pad, name = c.in, 1, 1, 0, fmt.Sprintf("1x1_%dx", c.in)
		}
		x := randT(b, 1, []int64{1, in, c.hw, c.hw}, f32, -1, 1)
		w := randT(b, 2, []int64{c.ch, in / groups, k, k}, f32, -1, 1)
		RegisterConstant(w) // a model's weight: the kernels cache their forms of it
		defer UnregisterConstant(w)
		attrs := []runtime.Value{runtime.Shape{c.stride, c.stride}, runtime.Shape{pad, pad, pad, pad}, runtime.Shape{1, 1}, groups, "NCHW", "OIHW", "NCHW", runtime.Float32}
		oh := (c.hw+2*pad-k)/c.stride + 1
		shape := []int64{1, c.ch, oh, oh}
		mid, out := mustT(b, shape, f32), mustT(b, shape, f32)
		ops := []runtime.Value{randT(b, 3, []int64{1, c.ch, 1, 1}, f32, -1, 1), randT(b, 4, []int64{1, c.ch, 1, 1}, f32, 0.5, 2),
			randT(b, 5, []int64{1, c.ch, 1, 1}, f32, -1, 1), randT(b, 6, []int64{}, f32, 0, 0), randT(b, 7, []int64{}, f32, 6, 6)}
		for _, o := range ops { // a model's constants, as RegisterConstants registers them
			RegisterConstant(o.(*runtime.Tensor))
			defer UnregisterConstant(o.(*runtime.Tensor))
		}
		convArgs := append(append([]runtime.Value{x, w}, attrs...), mid)
		chainArgs := append(append([]runtime.Value{mid, codes}, ops...), out)
		fusedArgs := append(append(append(append([]runtime.Value{x, w}, attrs...), codes), ops...), out)
		for _, bc := range []struct {
			mode string
			th   int
		}{{"unfused", 1}, {"fused", 1}, {"unfused", 2}, {"fused", 2}} {
			mode := bc.mode
			b.Run(fmt.Sprintf("%s%dx%dx%d_s%d/%s/threads=%d", name, c.ch, c.hw, c.hw, c.stride, mode, bc.th), func(b *testing.B) {
				SetNumThreads(bc.th)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					var err error
					if mode == "fused" {
						_, err = fused(fusedArgs)
					} else if _, err = conv(convArgs); err == nil {
						_, err = chainK(chainArgs)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// convLayer is one convolution layer of the layer benchmarks: in -> o
// channels on hw x hw, a k x k window, stride s, padding p.
type convLayer struct{ in, o, hw, k, s, p int64 }

// cacheFlusher evicts the caches between a benchmark's calls by writing
// a line of every 64 bytes of a buffer larger than the L3.
type cacheFlusher []byte

func newCacheFlusher() cacheFlusher { return make(cacheFlusher, 96<<20) }

// flush evicts the caches with b's timer stopped.
func (f cacheFlusher) flush(b *testing.B) {
	b.StopTimer()
	for j := 0; j < len(f); j += 64 {
		f[j]++
	}
	b.StartTimer()
}

// benchConvLayers times each layer with its bias and ReLU through the fused
// call, 1 thread. With cold, the caches are flushed (outside the timer)
// before each call, so the weight comes from memory, as in a model whose
// weights outgrow the L3.
func benchConvLayers(b *testing.B, layers []convLayer, cold bool) {
	benchConvLayersThreads(b, layers, cold, nil)
}

// benchConvLayersThreads is benchConvLayers at each of threads (nil: 1,
// and no threads= level in the names).
func benchConvLayersThreads(b *testing.B, layers []convLayer, cold bool, threads []int) {
	defer SetNumThreads(0)
	fused, _ := runtime.Lookup(Conv2DChainKernel)
	var flush cacheFlusher
	if cold {
		flush = newCacheFlusher()
	}
	for _, c := range layers {
		x := randT(b, 1, []int64{1, c.in, c.hw, c.hw}, f32, -1, 1)
		w := randT(b, 2, []int64{c.o, c.in, c.k, c.k}, f32, -1, 1)
		RegisterConstant(w)
		defer UnregisterConstant(w)
		oh := (c.hw+2*c.p-c.k)/c.s + 1
		out := mustT(b, []int64{1, c.o, oh, oh}, f32)
		bias := randT(b, 3, []int64{1, c.o, 1, 1}, f32, -1, 1)
		RegisterConstant(bias)
		defer UnregisterConstant(bias)
		args := []runtime.Value{x, w, runtime.Shape{c.s, c.s}, runtime.Shape{c.p, c.p, c.p, c.p}, runtime.Shape{1, 1}, int64(1),
			"NCHW", "OIHW", "NCHW", nil, runtime.Shape{0, EwChainRelu}, bias, out}
		name := fmt.Sprintf("%dx%d_%dx%d_%dx%ds%d", c.in, c.o, c.hw, c.hw, c.k, c.k, c.s)
		for _, th := range threads {
			b.Run(fmt.Sprintf("%s/threads=%d", name, th), func(b *testing.B) { runConvLayer(b, fused, args, th, cold, flush) })
		}
		if threads == nil {
			b.Run(name, func(b *testing.B) { runConvLayer(b, fused, args, 1, cold, flush) })
		}
	}
}

// runConvLayer times the fused call args on threads threads, the caches
// flushed before each call when cold.
func runConvLayer(b *testing.B, fused runtime.PackedFunc, args []runtime.Value, threads int, cold bool, flush cacheFlusher) {
	SetNumThreads(threads)
	b.ReportAllocs()
	if _, err := fused(args); err != nil { // packs the weight
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if cold {
			flush.flush(b)
		}
		if _, err := fused(args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConv2DChainRect times convolutions with rectangular windows and
// odd planes through the fused call (bias and ReLU), 1 thread:
// Inception-v3's 1x7, 7x1 and 1x3 layers and SqueezeNet's 3x3 ones on 27²
// (the indirect path, whose flat rows share their padding columns where
// padded: sharedPad) and on 13² (Winograd).
func BenchmarkConv2DChainRect(b *testing.B) {
	defer SetNumThreads(0)
	fused, _ := runtime.Lookup(Conv2DChainKernel)
	for _, c := range []struct{ in, o, hw, kh, kw int64 }{
		{192, 192, 17, 1, 7}, {192, 192, 17, 7, 1}, {160, 160, 17, 1, 7}, {128, 128, 17, 1, 7}, {384, 384, 8, 1, 3},
		{64, 256, 13, 3, 3}, {48, 192, 13, 3, 3}, {32, 128, 27, 3, 3},
	} {
		ph, pw := (c.kh-1)/2, (c.kw-1)/2
		x := randT(b, 1, []int64{1, c.in, c.hw, c.hw}, f32, -1, 1)
		w := randT(b, 2, []int64{c.o, c.in, c.kh, c.kw}, f32, -1, 1)
		RegisterConstant(w)
		defer UnregisterConstant(w)
		out := mustT(b, []int64{1, c.o, c.hw, c.hw}, f32)
		bias := randT(b, 3, []int64{1, c.o, 1, 1}, f32, -1, 1)
		RegisterConstant(bias)
		defer UnregisterConstant(bias)
		args := []runtime.Value{x, w, runtime.Shape{1, 1}, runtime.Shape{ph, pw, ph, pw}, runtime.Shape{1, 1}, int64(1),
			"NCHW", "OIHW", "NCHW", nil, runtime.Shape{0, EwChainRelu}, bias, out}
		b.Run(fmt.Sprintf("%dx%d_%dx%d_%dx%d", c.in, c.o, c.hw, c.hw, c.kh, c.kw), func(b *testing.B) {
			runConvLayer(b, fused, args, 1, false, nil)
			b.ReportMetric(2*float64(c.in*c.o*c.kh*c.kw*c.hw*c.hw)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkConv2DChainThreads is layers through the fused call at 1 and 2
// threads: cnn_64x64's two convolutions, SqueezeNet's and MobileNetV2's
// first, ResNet-18's 3x3 on 56x56, its strided ones and its 512-channel
// 3x3 on 7x7 (the last three split by channel panels, posColSplit).
func BenchmarkConv2DChainThreads(b *testing.B) {
	benchConvLayersThreads(b, []convLayer{{3, 32, 64, 3, 1, 1}, {32, 64, 32, 3, 2, 1}, {3, 64, 224, 3, 2, 0}, {3, 32, 224, 3, 2, 1},
		{64, 64, 56, 3, 1, 1}, {64, 128, 56, 3, 2, 1}, {128, 256, 28, 3, 2, 1}, {256, 512, 14, 3, 2, 1}, {512, 512, 7, 3, 1, 1}}, false, []int{1, 2})
}

// BenchmarkConvColdThreads is BenchmarkConv2DChainThreads's ResNet-18
// layers whose weight outweighs the input (posColSplit: 1.2 to 9.4 MB)
// with the caches flushed before each call, as the weights stream in the
// model (46 MB of them).
func BenchmarkConvColdThreads(b *testing.B) {
	benchConvLayersThreads(b, []convLayer{{128, 256, 28, 3, 2, 1}, {256, 512, 14, 3, 2, 1}, {512, 512, 7, 3, 1, 1}}, true, []int{1, 2})
}

// BenchmarkConv2DChainLayers is whole layers with their bias and ReLU
// through the fused call, 1 thread: cnn_64x64's, SqueezeNet's and
// ResNet-18's first convolutions, ResNet-18's strided ones (its 1x1/2
// shortcuts too) and its 3x3 layers on 56x56 and 7x7, SqueezeNet's 3x3 expansion on 55x55 and its
// classifier, MobileNetV2's first and pointwise layers, and squeeze-and-excitation
// convolutions on one position (MobileNetV3's, EfficientNet's).
func BenchmarkConv2DChainLayers(b *testing.B) {
	benchConvLayers(b, []convLayer{{3, 32, 64, 3, 1, 1}, {3, 64, 224, 3, 2, 0}, {3, 64, 224, 7, 2, 3}, {64, 128, 56, 3, 2, 1},
		{16, 64, 55, 3, 1, 1}, {32, 128, 27, 3, 1, 1}, {64, 256, 13, 3, 1, 1}, {512, 1000, 13, 1, 1, 0}, {16, 64, 55, 1, 1, 0},
		{16, 96, 112, 1, 1, 0}, {3, 32, 224, 3, 2, 1}, {320, 1280, 7, 1, 1, 0}, {96, 576, 14, 1, 1, 0}, {24, 144, 56, 1, 1, 0},
		{32, 192, 28, 1, 1, 0}, {512, 512, 7, 3, 1, 1}, {256, 512, 14, 3, 2, 1}, {64, 64, 56, 3, 1, 1}, {512, 1000, 14, 1, 1, 0}, {960, 320, 7, 1, 1, 0}, {960, 160, 7, 1, 1, 0},
		{64, 256, 13, 1, 1, 0}, {32, 128, 27, 1, 1, 0}, {48, 192, 13, 1, 1, 0}, {32, 64, 32, 3, 2, 1}, {576, 96, 14, 1, 1, 0}, {384, 64, 14, 1, 1, 0},
		{192, 32, 28, 1, 1, 0}, {512, 64, 13, 1, 1, 0}, {384, 48, 13, 1, 1, 0}, {32, 16, 112, 1, 1, 0},
		{64, 128, 56, 1, 2, 0}, {128, 256, 28, 1, 2, 0}, {256, 512, 14, 1, 2, 0},
		{240, 960, 1, 1, 1, 0}, {960, 240, 1, 1, 1, 0}, {120, 480, 1, 1, 1, 0}, {16, 72, 1, 1, 1, 0}}, false)
}

// BenchmarkConvColdOutput is BenchmarkConv2DChainLayers on layers with
// large outputs (SqueezeNet's and MobileNetV2's first layers, MobileNetV2's
// 16->96 expansion, SqueezeNet's 3x3 expansion on 55x55) with the caches
// flushed before each call, as a network's activations are when its
// working set outgrows the L3: the output's lines are not in cache when
// the kernels store to them.
func BenchmarkConvColdOutput(b *testing.B) {
	benchConvLayers(b, []convLayer{{3, 64, 224, 3, 2, 0}, {3, 32, 224, 3, 2, 1}, {16, 96, 112, 1, 1, 0}, {16, 64, 55, 3, 1, 1}, {32, 16, 112, 1, 1, 0}}, true)
}

// BenchmarkConvColdWeights is BenchmarkConv2DChainLayers on layers with
// large weights (ResNet-18's 3x3 on 7x7 and 14x14, MobileNetV2's last
// pointwise one, SqueezeNet's classifier and deep squeezes) with the caches
// flushed before each call: the weight streams from memory, as it does in
// ResNet-18 (46 MB of weights).
func BenchmarkConvColdWeights(b *testing.B) {
	benchConvLayers(b, []convLayer{{512, 512, 7, 3, 1, 1}, {256, 512, 14, 3, 2, 1}, {256, 256, 14, 3, 1, 1}, {320, 1280, 7, 1, 1, 0}, {960, 320, 7, 1, 1, 0}, {960, 160, 7, 1, 1, 0}, {16, 96, 112, 1, 1, 0}, {512, 1000, 13, 1, 1, 0}, {512, 64, 13, 1, 1, 0}, {384, 64, 13, 1, 1, 0}}, true)
}

// BenchmarkConv2DChainResidual is pointwise layers whose chain adds a
// residual, through the fused call, 1 thread: ResNet-50's expansions ending
// its bottlenecks (bias, residual, relu) and MobileNetV2's projections
// (bias, residual).
func BenchmarkConv2DChainResidual(b *testing.B) {
	defer SetNumThreads(0)
	fused, _ := runtime.Lookup(Conv2DChainKernel)
	for _, c := range []struct {
		in, o, hw int64
		relu      bool
	}{{64, 256, 56, true}, {128, 512, 28, true}, {256, 1024, 14, true}, {512, 2048, 7, true},
		{144, 24, 56, false}, {192, 32, 28, false}, {384, 64, 14, false}, {576, 96, 14, false}, {960, 160, 7, false}} {
		x := randT(b, 1, []int64{1, c.in, c.hw, c.hw}, f32, -1, 1)
		w := randT(b, 2, []int64{c.o, c.in, 1, 1}, f32, -1, 1)
		RegisterConstant(w)
		defer UnregisterConstant(w)
		bias := randT(b, 3, []int64{1, c.o, 1, 1}, f32, -1, 1)
		RegisterConstant(bias)
		defer UnregisterConstant(bias)
		res := randT(b, 4, []int64{1, c.o, c.hw, c.hw}, f32, -1, 1)
		out := mustT(b, []int64{1, c.o, c.hw, c.hw}, f32)
		codes := runtime.Shape{0, 0}
		if c.relu {
			codes = append(codes, EwChainRelu)
		}
		args := []runtime.Value{x, w, runtime.Shape{1, 1}, runtime.Shape{0, 0, 0, 0}, runtime.Shape{1, 1}, int64(1),
			"NCHW", "OIHW", "NCHW", nil, codes, bias, res, out}
		b.Run(fmt.Sprintf("%dx%d_%dx%d", c.in, c.o, c.hw, c.hw), func(b *testing.B) {
			SetNumThreads(1)
			b.ReportAllocs()
			if _, err := fused(args); err != nil { // packs the weight
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				if _, err := fused(args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
