package kernels

import (
	"fmt"
	"math"
	"testing"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestConvPosMatchesDirect checks the positions-as-rows pointwise path
// (convPosF32: constant weights, 7-position tiles, a pointwise plane's
// last one partial; pointwise, or a window
// read through offsets) against the same convolution with the weights not
// registered (the direct product), bit for bit, with and without a fused
// chain (per-channel operands, every step code), over plane sizes, strides,
// dilation, padding and depths around the tile and depth-block sizes,
// batches, special values, and 1 and 2 threads.
func TestConvPosMatchesDirect(t *testing.T) {
	if _, _, ok := asm.SgemmTileStrided(); !ok {
		t.Skipf("no strided GEMM tile at SIMD level %s", asm.CurrentLevel())
	}
	defer SetNumThreads(0)
	defer func(b int) { posChunkBytes = b }(posChunkBytes)
	posForced = true // at AVX2 the padding rule leaves 14x14 to the GEMM
	defer func() { posForced = false }()
	fused, _ := runtime.Lookup(Conv2DChainKernel)
	for i, c := range []struct{ n, c, o, h, w, k, s, p, d int }{
		{1, 960, 160, 7, 7, 1, 1, 0, 1}, {2, 16, 32, 7, 7, 1, 1, 0, 1}, {1, 33, 64, 14, 14, 1, 1, 0, 1}, {1, 64, 96, 7, 14, 1, 1, 0, 1},
		{1, 300, 32, 7, 7, 1, 1, 0, 1}, {1, 513, 64, 1, 7, 1, 1, 0, 1}, {2, 5, 96, 2, 7, 1, 1, 0, 1},
		// Planes of a partial last tile (from a copy, convPosJob.tail):
		// Inception-v3's 17² (41 tiles and 2 positions, three depth
		// blocks), SqueezeNet's 13² (24 and 1) for two images, 5x5 deeper
		// than a block, a plane of one partial tile.
		{1, 768, 192, 17, 17, 1, 1, 0, 1}, {2, 40, 64, 13, 13, 1, 1, 0, 1}, {1, 300, 32, 5, 5, 1, 1, 0, 1}, {1, 16, 32, 1, 3, 1, 1, 0, 1},
		// Windows (asm.SgemmKernelGather): ResNet's 3x3 on 7x7, stride 2
		// from 14x14, a dilated window, depths over one block.
		{1, 64, 64, 7, 7, 3, 1, 1, 1}, {2, 40, 32, 14, 14, 3, 2, 1, 1}, {1, 30, 64, 7, 14, 3, 1, 2, 2},
		{1, 37, 32, 7, 7, 3, 1, 1, 1}, {1, 7, 32, 9, 9, 3, 1, 0, 1}, {1, 16, 32, 28, 28, 3, 2, 1, 1},
		// Unpadded windows read the input in place: 3x3 without padding, at
		// strides 2 and 1. (A strided 1x1 convolution takes the pointwise
		// paths on its subsampled input.)
		{2, 64, 32, 29, 29, 3, 2, 0, 1}, {1, 24, 64, 16, 16, 3, 1, 0, 1},
	} {
		x := randT(t, int64(10+i), []int64{int64(c.n), int64(c.c), int64(c.h), int64(c.w)}, f32, -2, 2)
		for k, xs := 0, x.Float32s(); k < len(xs); k += 1 + k%17 {
			switch k % 5 {
			case 0:
				xs[k] = float32(math.Copysign(0, -1))
			case 1:
				xs[k] = math.Float32frombits(0x7fc00000 | uint32(k))
			case 2:
				xs[k] = float32(math.Inf(1 - 2*(k%2)))
			}
		}
		if c.k == 1 {
			// A pointwise input ends where an unreadable page begins: a
			// tile read past the last channel's plane (a partial last
			// tile read in place) faults.
			gx, err := runtime.Wrap(guardedF32(t, len(x.Float32s())), x.Shape()...)
			if err != nil {
				t.Fatal(err)
			}
			copy(gx.Float32s(), x.Float32s())
			x = gx
		}
		w := randT(t, int64(20+i), []int64{int64(c.o), int64(c.c), int64(c.k), int64(c.k)}, f32, -1, 1)
		g := convGeomFor(c.c, c.o, c.h, c.w, c.k, c.k, c.s, c.s, c.d, c.d, c.p, c.p, c.p, c.p)
		g.n = c.n
		shape := []int64{int64(c.n), int64(c.o), int64(g.oh), int64(g.ow)}
		st, pd, dl := int64(c.s), int64(c.p), int64(c.d)
		attrs := []runtime.Value{runtime.Shape{st, st}, runtime.Shape{pd, pd, pd, pd}, runtime.Shape{dl, dl}, int64(1), "NCHW", "OIHW", "NCHW", runtime.Float32}
		codes := runtime.Shape{0, 3, EwChainRelu, 6, 7, 1, 2, 4, 5}
		var ops []runtime.Value
		for s := range codes {
			if codes[s] != EwChainRelu {
				ops = append(ops, randT(t, int64(100*i+s), []int64{1, int64(c.o), 1, 1}, f32, 0.5, 2))
			}
		}
		for _, pc := range []struct{ th, chunk int }{{1, 256 << 10}, {2, 256 << 10}, {1, 1}, {2, 3 * 4 * 7 * c.o}} {
			// Chunks of T of one tile and of three, besides the default.
			th := pc.th
			posChunkBytes = pc.chunk
			SetNumThreads(th)
			for _, chained := range []bool{false, true} {
				run := func(constant bool) *runtime.Tensor {
					if constant {
						RegisterConstant(w)
						defer UnregisterConstant(w)
					}
					out := mustT(t, shape, f32)
					var err error
					if chained {
						args := append(append(append(append([]runtime.Value{x, w}, attrs...), codes), ops...), out)
						_, err = fused(args)
					} else {
						err = Conv2D(out, x, w, Conv2DAttrs{Strides: []int64{st, st}, Padding: []int64{pd, pd, pd, pd}, Dilation: []int64{dl, dl}, Groups: 1})
					}
					if err != nil {
						t.Fatal(err)
					}
					return out
				}
				want, got := run(false), run(true)
				what := fmt.Sprintf("%+v threads=%d chain=%v chunk %d B", c, th, chained, pc.chunk)
				if !convPosUse(&g, nil) {
					t.Fatalf("%s: does not take the path", what)
				}
				for k, v := range want.Float32s() {
					if gv := got.Float32s()[k]; math.Float32bits(gv) != math.Float32bits(v) {
						t.Fatalf("%s: [%d] %08x, direct %08x", what, k, math.Float32bits(gv), math.Float32bits(v))
					}
				}
			}
			// A residual step (each case its own operation and side, at
			// its own place in the chain, NaNs in it): the path runs it on
			// T, for one image; the fused call against the unfused kernels.
			at, op := i%(len(codes)+1), int64(i%8)
			resCodes := append(append(runtime.Shape{}, codes[:at]...), append(runtime.Shape{op}, codes[at:]...)...)
			res := randT(t, int64(300+i), shape, f32, -2, 2)
			for k, rs := 0, res.Float32s(); k < len(rs); k += 1 + k%13 {
				rs[k] = math.Float32frombits(0xffc00000 | uint32(k))
			}
			nops := 0 // the operands before the residual's
			for _, code := range codes[:at] {
				if code != EwChainRelu {
					nops++
				}
			}
			resOps := append(append([]runtime.Value{}, ops[:nops]...), append([]runtime.Value{res}, ops[nops:]...)...)
			if c.n == 1 {
				tops := make([]*runtime.Tensor, len(resOps))
				for k, o := range resOps {
					tops[k] = o.(*runtime.Tensor)
				}
				ch, err := newRowChain("test", resCodes, tops, shape)
				if err != nil {
					t.Fatal(err)
				}
				if !convPosUse(&g, ch) {
					t.Fatalf("%+v: the chain with a residual does not take the path", c)
				}
				ch.release()
			}
			RegisterConstant(w)
			checkFusedConvChain(t, fmt.Sprintf("%+v threads=%d residual %v chunk %d B", c, th, resCodes, pc.chunk), x, w, attrs, resCodes, resOps, shape)
			UnregisterConstant(w)
		}
	}
}

// TestPackPosTiles checks packPosTiles against its definition, the AVX2
// tile's six positions and another width, whole and partial last panels,
// depths around its 16-row blocks, with guard elements past the panels.
func TestPackPosTiles(t *testing.T) {
	for _, c := range []struct{ c, hw, mr int }{{960, 49, 6}, {17, 14, 6}, {33, 6, 6}, {5, 3, 6}, {16, 49, 7}, {31, 20, 7}} {
		x := make([]float32, c.c*c.hw)
		for i := range x {
			x[i] = math.Float32frombits(0x7fc00000 | uint32(i)) // NaN payloads move as bits
		}
		tiles := (c.hw + c.mr - 1) / c.mr
		dst := make([]float32, tiles*c.c*c.mr+8)
		for i := range dst {
			dst[i] = -1
		}
		packPosTiles(dst, x, c.c, c.hw, c.mr)
		for tl := 0; tl < tiles; tl++ {
			for k := 0; k < c.c; k++ {
				for i := 0; i < c.mr; i++ {
					var want float32
					if p := tl*c.mr + i; p < c.hw {
						want = x[k*c.hw+p]
					}
					if got := dst[(tl*c.c+k)*c.mr+i]; math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("%+v: panel %d step %d position %d: %08x, want %08x", c, tl, k, i, math.Float32bits(got), math.Float32bits(want))
					}
				}
			}
		}
		for i := tiles * c.c * c.mr; i < len(dst); i++ {
			if dst[i] != -1 {
				t.Fatalf("%+v: guard element %d written", c, i)
			}
		}
	}
}

// BenchmarkConvPosThreads times layers of the positions-as-rows path with
// their bias and ReLU6 through the fused call at 1 and 2 threads:
// MobileNetV2's pointwise layers on 14x14 and 7x7, ResNet-18's 3x3 layers
// on 14x14 and 7x7.
func BenchmarkConvPosThreads(b *testing.B) {
	defer SetNumThreads(0)
	fused, _ := runtime.Lookup(Conv2DChainKernel)
	for _, c := range []convLayer{{64, 384, 14, 1, 1, 0}, {96, 576, 14, 1, 1, 0}, {384, 64, 14, 1, 1, 0}, {160, 960, 7, 1, 1, 0}, {960, 320, 7, 1, 1, 0},
		{256, 256, 14, 3, 1, 1}, {512, 512, 7, 3, 1, 1}} {
		x := randT(b, 1, []int64{1, c.in, c.hw, c.hw}, f32, -1, 1)
		w := randT(b, 2, []int64{c.o, c.in, c.k, c.k}, f32, -1, 1)
		oh := (c.hw+2*c.p-c.k)/c.s + 1
		out := mustT(b, []int64{1, c.o, oh, oh}, f32)
		bias := randT(b, 3, []int64{1, c.o, 1, 1}, f32, -1, 1)
		lo, hi := randT(b, 4, []int64{}, f32, 0, 0), randT(b, 5, []int64{}, f32, 6, 6)
		for _, o := range []*runtime.Tensor{w, bias, lo, hi} {
			RegisterConstant(o)
			defer UnregisterConstant(o)
		}
		g := convGeomFor(int(c.in), int(c.o), int(c.hw), int(c.hw), int(c.k), int(c.k), int(c.s), int(c.s), 1, 1, int(c.p), int(c.p), int(c.p), int(c.p))
		if !convPosUse(&g, nil) {
			continue // not this path at this level
		}
		args := []runtime.Value{x, w, runtime.Shape{c.s, c.s}, runtime.Shape{c.p, c.p, c.p, c.p}, runtime.Shape{1, 1}, int64(1),
			"NCHW", "OIHW", "NCHW", nil, runtime.Shape{0, 8, 10}, bias, lo, hi, out}
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%dx%d_%dx%d_%dx%d/threads=%d", c.in, c.o, c.hw, c.hw, c.k, c.k, th), func(b *testing.B) {
				SetNumThreads(th)
				b.ReportAllocs()
				if _, err := fused(args); err != nil {
					b.Fatal(err)
				}
				for i := 0; i < b.N; i++ {
					if _, err := fused(args); err != nil {
						b.Fatal(err)
					}
				}
				flops := 2 * float64(c.o) * float64(oh*oh) * float64(c.in*c.k*c.k)
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
