package kernels

import (
	"fmt"
	"sync"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// The one-position path. A 1x1 convolution of a 1x1 input (a
// squeeze-and-excitation block's two convolutions, after the global pool:
// MobileNetV3, EfficientNet, RegNetY) is a matrix-vector product per image,
// out (n x o) = x (n x c) · Wᵀ. As a GEMM with the weights as A and the
// single position as B it computed a whole tile width of columns for one
// (16 at AVX2): MobileNetV3-large's 240 -> 960 took 270 µs a call in the
// model, ONNX Runtime 93. Here the images are the rows and Wᵀ, packed once
// for a constant, is B, the weights streamed once. Every output is the same
// sum in the same depth blocks as on the other paths (the micro-kernels
// accumulate a depth block in order and add it to what the blocks before
// left), so the bits do not change; the chain runs across the channels,
// step by step, as it does on one-element planes.

// vecConvUse reports whether g (float32) takes the one-position path: one
// group, a 1x1 window over a 1x1 input without padding.
func vecConvUse(g *conv2dGeom) bool {
	return !vecConvOff && g.g == 1 && g.kh == 1 && g.kw == 1 && g.h == 1 && g.w == 1 &&
		g.pt == 0 && g.pl == 0 && g.pb == 0 && g.pr == 0
}

// vecConvOff turns the path off (tests compare it with the others).
var vecConvOff bool

// constVec maps a registered constant *runtime.Tensor to its *posEntry:
// Wᵀ packed for the main tile's width.
var constVec sync.Map

// constVecWeights returns the registered constant w (o x c) as Wᵀ packed for
// SgemmPacked at the current level, or nil (not a constant, or packed at
// another level).
func constVecWeights(w *runtime.Tensor, o, c int) *PackedB {
	_, nr := asm.SgemmTile()
	if pb := constTransposed(&constVec, w, o, c, nr); pb.usable() {
		return pb
	}
	return nil
}

// convVecF32 is the one-position path: out (g.n x g.o) = x (g.n x g.c) · Wᵀ,
// then the chain (nil for none) on each image's row of channels.
func convVecF32(g *conv2dGeom, out, x []float32, w *runtime.Tensor, chain *rowChain) error {
	var err error
	if pb := constVecWeights(w, g.o, g.c); pb != nil {
		err = SgemmPacked(false, g.n, 1, x, g.c, pb, 0, out, g.o, nil)
	} else {
		err = Sgemm(false, true, g.n, g.o, g.c, 1, x, g.c, w.Float32s(), g.c, 0, out, g.o)
	}
	if err != nil {
		return fmt.Errorf("conv2d: %w", err)
	}
	if chain == nil {
		return nil
	}
	buf := getScratch(g.o)
	defer putScratch(buf)
	for i := 0; i < g.n; i++ {
		chain.applyCols(out[i*g.o:(i+1)*g.o], *buf)
	}
	return nil
}

// applyCols runs the chain on v, one element of each of its rows (a
// one-position output's channels), with the bits apply gives a row of one
// element: each step's kernel over all of v at once, its operands gathered
// into tmp (at least len(v) long). A residual is v's elements' own (one
// image's).
func (c *rowChain) applyCols(v, tmp []float32) {
	ns, rows := len(c.codes), len(v)
	col := tmp[:rows]
	var res []float32
	if c.res != nil {
		res = c.res[:rows]
	}
	c.stepwise(v, res, func(t int) []float32 {
		for i := range col {
			col[i] = c.table[i*ns+t]
		}
		return col
	})
}
