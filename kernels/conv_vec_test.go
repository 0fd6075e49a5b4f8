package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// TestConvVecMatchesOtherPaths compares the one-position path (1x1
// convolutions of 1x1 inputs) with the paths it replaced, bit for bit: the
// plain convolution and the fused chain (per-channel and scalar operands,
// relus, a residual at a random step), weights registered as constants or
// not, one and several images, depths of one, below, at and across the
// GEMM's depth blocks, inputs and weights with NaNs, infinities and signed
// zeros, at 1 and 2 threads.
func TestConvVecMatchesOtherPaths(t *testing.T) {
	defer SetNumThreads(0)
	defer func() { vecConvOff = false }()
	conv, _ := runtime.Lookup("kernels.nn.conv2d")
	fused, _ := runtime.Lookup(Conv2DChainKernel)
	r := rand.New(rand.NewSource(5))
	special := func(xs []float32) {
		for i := 0; i < len(xs); i += 1 + r.Intn(29) {
			xs[i] = []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1))}[r.Intn(4)]
		}
	}
	for it, c := range []struct{ n, c, o int }{
		{1, 1, 1}, {1, 3, 20}, {1, 240, 960}, {1, 960, 240}, {2, 257, 17}, {3, 600, 120}, {1, 513, 16}, {1, 72, 24}, {2, 16, 1000}, {1, 1280, 7},
	} {
		n, ci, o := int64(c.n), int64(c.c), int64(c.o)
		x := randT(t, int64(it), []int64{n, ci, 1, 1}, f32, -2, 2)
		wt := randT(t, int64(it+100), []int64{o, ci, 1, 1}, f32, -1, 1)
		if it%2 == 1 {
			special(x.Float32s())
			special(wt.Float32s())
		}
		shape := []int64{n, o, 1, 1}
		var codes runtime.Shape
		var ops []runtime.Value
		for s := 0; s < 1+r.Intn(6); s++ {
			if r.Intn(5) == 0 {
				codes = append(codes, EwChainRelu)
				continue
			}
			codes = append(codes, int64(r.Intn(12)))
			os := []int64{1, o, 1, 1}
			if r.Intn(3) == 0 {
				os = []int64{}
			}
			op := randT(t, int64(1000*it+s), os, f32, -2, 2)
			special(op.Float32s())
			ops = append(ops, op)
		}
		if it%3 == 1 {
			res := randT(t, int64(7000+it), shape, f32, -3, 3)
			special(res.Float32s())
			at, k := r.Intn(len(codes)+1), 0
			for _, c := range codes[:at] {
				if c != EwChainRelu {
					k++
				}
			}
			codes = append(codes[:at:at], append(runtime.Shape{int64(r.Intn(8))}, codes[at:]...)...)
			ops = append(ops[:k:k], append([]runtime.Value{res}, ops[k:]...)...)
		}
		attrs := []runtime.Value{runtime.Shape{1, 1}, runtime.Shape{0, 0, 0, 0}, runtime.Shape{1, 1}, int64(1), "NCHW", "OIHW", "NCHW", runtime.Float32}
		for _, constant := range []bool{false, true} {
			if constant {
				RegisterConstant(wt)
			}
			for _, th := range []int{1, 2} {
				SetNumThreads(th)
				what := fmt.Sprintf("n=%d c=%d o=%d codes %v constant %v threads %d", n, ci, o, codes, constant, th)
				var res [2][2]*runtime.Tensor // [off][plain, fused]
				for off := 0; off < 2; off++ {
					vecConvOff = off == 1
					plain, chained := mustT(t, shape, f32), mustT(t, shape, f32)
					if _, err := conv(append(append([]runtime.Value{x, wt}, attrs...), plain)); err != nil {
						t.Fatal(err)
					}
					call := append(append(append([]runtime.Value{x, wt}, attrs...), codes), ops...)
					if _, err := fused(append(call, chained)); err != nil {
						t.Fatal(err)
					}
					res[off] = [2]*runtime.Tensor{plain, chained}
				}
				vecConvOff = false
				for k, name := range []string{"conv2d", "conv2d_chain"} {
					for i, v := range res[1][k].Float32s() {
						if g := res[0][k].Float32s()[i]; math.Float32bits(g) != math.Float32bits(v) {
							t.Fatalf("%s %s: [%d] one-position path %08x (%g), other paths %08x (%g)", what, name, i, math.Float32bits(g), g, math.Float32bits(v), v)
						}
					}
				}
			}
			if constant {
				UnregisterConstant(wt)
			}
		}
	}
}
