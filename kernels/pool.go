package kernels

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// Pool2DAttrs are Relax's nn.max_pool2d / nn.avg_pool2d attributes. Padding
// has 1, 2 or 4 values: (all), (top/bottom, left/right) or (top, left,
// bottom, right). Layout is "NCHW" or "NHWC" (empty means NCHW); OutLayout
// must be empty or equal Layout.
type Pool2DAttrs struct {
	PoolSize, Strides, Dilation, Padding []int64
	CeilMode, CountIncludePad            bool
	Layout, OutLayout                    string
}

// pool2dGeom is the resolved geometry of a 2-D pooling.
type pool2dGeom struct {
	n, c, h, w, oh, ow     int
	kh, kw, sh, sw, dh, dw int
	pt, pl, pb, pr         int
	xsN, xsC, xsH, xsW     int // input strides
	osN, osC, osH, osW     int // output strides
	countIncludePad        bool
	outShape               [4]int64
}

func pair(name, what string, v []int64, def int64) (int64, int64, error) {
	switch len(v) {
	case 0:
		return def, def, nil
	case 1:
		return v[0], v[0], nil
	case 2:
		return v[0], v[1], nil
	}
	return 0, 0, fmt.Errorf("%s: %s must have 1 or 2 values, got %d", name, what, len(v))
}

// layoutIdx returns the positions of N, C, H, W in a 4-D layout.
func layoutIdx(name, layout string) (n, c, h, w int, err error) {
	switch layout {
	case "", "NCHW":
		return 0, 1, 2, 3, nil
	case "NHWC":
		return 0, 3, 1, 2, nil
	}
	return 0, 0, 0, 0, fmt.Errorf("%s: unsupported layout %q (want NCHW or NHWC)", name, layout)
}

// poolOutDim is TVM's pooled extent for input n, kernel k, stride s,
// dilation d and paddings p0 (head) and p1 (tail).
func poolOutDim(n, k, s, d, p0, p1 int, ceil bool) int {
	num := n + p0 + p1 - d*(k-1) - 1
	if ceil {
		num += s - 1
	}
	out := floorDiv(num, s) + 1
	if ceil && (out-1)*s >= n+p0 {
		out--
	}
	return out
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func resolvePool2D(name string, x *runtime.Tensor, a *Pool2DAttrs) (pool2dGeom, error) {
	var g pool2dGeom
	if x.NDim() != 4 {
		return g, fmt.Errorf("%s: input must be 4-D, got %s", name, shapeStr(x.Shape()))
	}
	if a.OutLayout != "" && a.OutLayout != a.Layout && !(a.Layout == "" && a.OutLayout == "NCHW") {
		return g, fmt.Errorf("%s: out_layout %q differs from layout %q", name, a.OutLayout, a.Layout)
	}
	ni, ci, hi, wi, err := layoutIdx(name, a.Layout)
	if err != nil {
		return g, err
	}
	s := x.Shape()
	g.n, g.c, g.h, g.w = int(s[ni]), int(s[ci]), int(s[hi]), int(s[wi])
	kh, kw, err := pair(name, "pool_size", a.PoolSize, 1)
	if err != nil {
		return g, err
	}
	sh, sw, err := pair(name, "strides", a.Strides, 1)
	if err != nil {
		return g, err
	}
	dh, dw, err := pair(name, "dilation", a.Dilation, 1)
	if err != nil {
		return g, err
	}
	var pt, pl, pb, pr int64
	switch len(a.Padding) {
	case 0:
	case 1:
		pt, pl, pb, pr = a.Padding[0], a.Padding[0], a.Padding[0], a.Padding[0]
	case 2:
		pt, pl, pb, pr = a.Padding[0], a.Padding[1], a.Padding[0], a.Padding[1]
	case 4:
		pt, pl, pb, pr = a.Padding[0], a.Padding[1], a.Padding[2], a.Padding[3]
	default:
		return g, fmt.Errorf("%s: padding must have 1, 2 or 4 values, got %d", name, len(a.Padding))
	}
	if kh < 1 || kw < 1 || sh < 1 || sw < 1 || dh < 1 || dw < 1 || pt < 0 || pl < 0 || pb < 0 || pr < 0 {
		return g, fmt.Errorf("%s: invalid pool_size %v, strides %v, dilation %v or padding %v",
			name, a.PoolSize, a.Strides, a.Dilation, a.Padding)
	}
	g.kh, g.kw, g.sh, g.sw, g.dh, g.dw = int(kh), int(kw), int(sh), int(sw), int(dh), int(dw)
	g.pt, g.pl, g.pb, g.pr = int(pt), int(pl), int(pb), int(pr)
	g.oh = poolOutDim(g.h, g.kh, g.sh, g.dh, g.pt, g.pb, a.CeilMode)
	g.ow = poolOutDim(g.w, g.kw, g.sw, g.dw, g.pl, g.pr, a.CeilMode)
	if g.oh < 0 {
		g.oh = 0
	}
	if g.ow < 0 {
		g.ow = 0
	}
	g.countIncludePad = a.CountIncludePad
	g.outShape[ni], g.outShape[ci], g.outShape[hi], g.outShape[wi] = int64(g.n), int64(g.c), int64(g.oh), int64(g.ow)
	g.xsN, g.xsC, g.xsH, g.xsW = layoutStrides(ci, g.c, g.h, g.w)
	g.osN, g.osC, g.osH, g.osW = layoutStrides(ci, g.c, g.oh, g.ow)
	return g, nil
}

// layoutStrides gives (N, C, H, W) element strides for NCHW (cIdx 1) or NHWC.
func layoutStrides(cIdx, c, h, w int) (sn, sc, sh, sw int) {
	if cIdx == 1 {
		return c * h * w, h * w, w, 1
	}
	return h * w * c, 1, w * c, c
}

// MaxPool2D computes 2-D max pooling (padding never wins: padded taps are
// the dtype's lowest value, as in TVM).
func MaxPool2D(out, x *runtime.Tensor, attrs Pool2DAttrs) error {
	return pool2d("nn.max_pool2d", out, x, &attrs, true)
}

// AvgPool2D computes 2-D average pooling; the divisor counts padded taps
// (within the declared padding) when CountIncludePad, else only valid taps.
func AvgPool2D(out, x *runtime.Tensor, attrs Pool2DAttrs) error {
	return pool2d("nn.avg_pool2d", out, x, &attrs, false)
}

func pool2d(name string, out, x *runtime.Tensor, a *Pool2DAttrs, isMax bool) error {
	if x == nil || out == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	g, err := resolvePool2D(name, x, a)
	if err != nil {
		return err
	}
	if err := checkOut(name, out, g.outShape[:], x.DType()); err != nil {
		return err
	}
	if out.NumElements() == 0 {
		return nil
	}
	switch x.DType() {
	case runtime.Float32:
		poolRun(&g, elems[float32](out), elems[float32](x), isMax, float32(-math.MaxFloat32))
	case runtime.Float64:
		poolRun(&g, elems[float64](out), elems[float64](x), isMax, -math.MaxFloat64)
	case runtime.Float16:
		return viaFloat32(out, []*runtime.Tensor{x}, func(o *runtime.Tensor, in []*runtime.Tensor) error {
			return pool2d(name, o, in[0], a, isMax)
		})
	case runtime.Int8:
		poolRun(&g, elems[int8](out), elems[int8](x), isMax, math.MinInt8)
	case runtime.Int16:
		poolRun(&g, elems[int16](out), elems[int16](x), isMax, math.MinInt16)
	case runtime.Int32:
		poolRun(&g, elems[int32](out), elems[int32](x), isMax, math.MinInt32)
	case runtime.Int64:
		poolRun(&g, elems[int64](out), elems[int64](x), isMax, math.MinInt64)
	case runtime.UInt8:
		poolRun(&g, elems[uint8](out), elems[uint8](x), isMax, 0)
	default:
		return fmt.Errorf("%s: unsupported dtype %s", name, x.DType())
	}
	return nil
}

// poolRun runs pooling over (n, c) planes, in parallel when large.
func poolRun[T number](g *pool2dGeom, o, x []T, isMax bool, lowest T) {
	if of, ok := any(o).([]float32); ok && isMax && poolMaxVector && g.xsW == 1 && g.osW == 1 && g.xsH == g.w && g.osH == g.ow {
		maxPoolTap(g, of, any(x).([]float32), any(lowest).(float32))
		return
	}
	planes := g.n * g.c
	work := planes * g.oh * g.ow * g.kh * g.kw
	if work < parThreshold || planes == 1 || NumThreads() <= 1 {
		poolPlanes(g, o, x, isMax, lowest, 0, planes)
		return
	}
	pool := poolFor[poolJob[T]]()
	j := pool.Get()
	j.g, j.o, j.x, j.isMax, j.lowest = *g, o, x, isMax, lowest
	parFor(planes, max(1, parGrain/(g.oh*g.ow*g.kh*g.kw+1)), j.fn)
	j.o, j.x = nil, nil
	pool.Put(j)
}

// poolPlanes pools planes [lo, hi) (plane = n*C + c).
func poolPlanes[T number](g *pool2dGeom, o, x []T, isMax bool, lowest T, lo, hi int) {
	if isMax && g.xsW == 1 && g.osW == 1 {
		maxPlanesNCHW(g, o, x, lowest, lo, hi)
		return
	}
	if !isMax && g.xsW == 1 && g.osW == 1 {
		avgPlanesNCHW(g, o, x, lo, hi)
		return
	}
	poolPlanesGeneral(g, o, x, isMax, lowest, lo, hi)
}

// avgPlanesNCHW is average pooling of planes [lo, hi) with contiguous rows
// (NCHW), as maxPlanesNCHW does max pooling: the outputs whose window lies
// inside the row take one pass per tap over all of them (float32: an
// asm.AddF32 a tap, then one asm.DivScalarF32), each output's sum getting
// its taps in the general loop's order (rows, then columns), so the results
// are poolPlanesGeneral's; the outputs at the row's ends take the general
// loop's arithmetic one by one. (Inception's 3x3/1 average pools spent 40
// ns an output in the general loop.)
func avgPlanesNCHW[T number](g *pool2dGeom, o, x []T, lo, hi int) {
	o32, f32 := any(o).([]float32)
	x32, _ := any(x).([]float32)
	if f32 && avgPool2x2OK(g) {
		avgPlanes2x2(g, o32, x32, lo, hi)
		return
	}
	if f32 && avgS1OK(g) {
		avgPlanesS1(g, o32, x32, lo, hi)
		return
	}
	if f32 && avgFlatOK(g) {
		avgPlanesFlat(g, o32, x32, lo, hi)
		return
	}
	oxLo, oxHi := poolInterior(g)
	var acc [256]float64
	var acc32 [512]float32
	for pl := lo; pl < hi; pl++ {
		n, c := pl/g.c, pl%g.c
		xb := n*g.xsN + c*g.xsC
		ob := n*g.osN + c*g.osC
		for oy := 0; oy < g.oh; oy++ {
			y0 := oy*g.sh - g.pt
			kyLo, kyHi := poolRows(g, y0)
			rowsPad := 0 // kernel rows inside the padded input
			for ky := 0; ky < g.kh; ky++ {
				if y0+ky*g.dh < g.h+g.pb {
					rowsPad++
				}
			}
			orow := ob + oy*g.osH
			for ox := 0; ox < oxLo; ox++ {
				o[orow+ox] = avgWindow(g, x, xb, y0, ox*g.sw-g.pl)
			}
			div := poolDivisor(g, (kyHi-kyLo)*g.kw, rowsPad*g.kw)
			if f32 {
				avgRun(g, acc32[:], o[orow:], x, xb, y0, kyLo, kyHi, oxLo, oxHi, div)
			} else {
				avgRun(g, acc[:], o[orow:], x, xb, y0, kyLo, kyHi, oxLo, oxHi, div)
			}
			for ox := max(oxHi, oxLo); ox < g.ow; ox++ {
				o[orow+ox] = avgWindow(g, x, xb, y0, ox*g.sw-g.pl)
			}
		}
	}
}

// avgRun computes the interior outputs [oxLo, oxHi) of the row orow whose
// windows start at input row y0, in chunks of len(acc): each tap's inputs
// added to the chunk's sums in a pass (avgWindow's order: rows, then
// columns), then the sums divided into the row. Float32 sums in float32
// (acc float32: topi's arithmetic), with asm.AddF32 at stride 1 and
// asm.DivScalarF32; others in float64, as avgWindow.
func avgRun[T number, A float32 | float64](g *pool2dGeom, acc []A, orow, x []T, xb, y0, kyLo, kyHi, oxLo, oxHi, div int) {
	acc32, f32 := any(acc).([]float32)
	x32, _ := any(x).([]float32)
	o32, _ := any(orow).([]float32)
	for c0 := oxLo; c0 < oxHi; c0 += len(acc) {
		run := acc[:min(len(acc), oxHi-c0)]
		clear(run)
		for ky := kyLo; ky < kyHi; ky++ {
			rowAt := xb + (y0+ky*g.dh)*g.xsH
			for kx := 0; kx < g.kw; kx++ {
				start := rowAt + c0*g.sw - g.pl + kx*g.dw
				if f32 && g.sw == 1 {
					asm.AddF32(acc32[:len(run)], acc32[:len(run)], x32[start:start+len(run)])
					continue
				}
				for i := range run {
					run[i] += A(x[start+i*g.sw])
				}
			}
		}
		if f32 {
			asm.DivScalarF32(o32[c0:c0+len(run)], acc32[:len(run)], float32(div))
			continue
		}
		for i, s := range run {
			orow[c0+i] = avgOf[T](float64(s), div)
		}
	}
}

// avgPool2x2OK reports whether avgPlanes2x2 computes g: the max pool's
// pool2x2Pairs geometry (a 2x2 window at stride 2 without padding or
// dilation, every window inside the plane) on output rows of at least a
// vector's worth (8; shorter ones go by the flat path's blocks of planes).
func avgPool2x2OK(g *pool2dGeom) bool {
	return pool2x2Pairs(g) && g.ow >= 8
}

// avgPlanes2x2 pools planes [lo, hi) of an avgPool2x2OK geometry with
// asm.AvgPool2x2F32, which reads each window's two rows in place: the sum
// from +0 of the taps in avgRun's order, divided by 4, so the bits are the
// row path's. Planes that follow one another in x and o with no row left
// over are one call. DenseNet-121's transitions took the flat path's sums
// at every position of the plane (four times the outputs at stride 2) and
// a Go loop picking every other one: 128x56² 171 µs
// (BenchmarkOpAvgPool2D, 1 thread).
func avgPlanes2x2(g *pool2dGeom, o, x []float32, lo, hi int) {
	if pairsStacked(g) {
		ohw := g.oh * g.ow
		asm.AvgPool2x2F32(o[lo*ohw:hi*ohw], g.ow, x[lo*g.xsC:hi*g.xsC], g.xsH, (hi-lo)*g.oh, g.ow)
		return
	}
	for pl := lo; pl < hi; pl++ {
		n, c := pl/g.c, pl%g.c
		xb, ob := n*g.xsN+c*g.xsC, n*g.osN+c*g.osC
		asm.AvgPool2x2F32(o[ob:ob+(g.oh-1)*g.osH+g.ow], g.osH, x[xb:xb+(2*g.oh-1)*g.xsH+2*g.ow], g.xsH, g.oh, g.ow)
	}
}

// avgS1OK reports whether avgPlanesS1 computes g: a 3x3 window at stride 1
// with one row and column of padding on every side and no dilation (so oh
// = h and ow = w), on planes that follow one another in x and o (NCHW).
func avgS1OK(g *pool2dGeom) bool {
	hw := g.h * g.w
	return g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
		g.pt == 1 && g.pl == 1 && g.pb == 1 && g.pr == 1 &&
		g.xsH == g.w && g.xsC == hw && g.xsN == g.c*hw && g.osH == g.ow && g.osC == hw && g.osN == g.c*hw
}

// avgPlanesS1 pools planes [lo, hi) of an avgS1OK geometry with one
// asm.AvgPool3x3S1P1F32 call, which reads the planes in place: each sum
// from +0 over the window's taps inside the plane in avgWindow's order,
// divided as avgWindow does (by 9 with count_include_pad, else by those
// taps), so the bits are the row path's and the flat path's (whose zero
// padding adds +0, which changes no such sum). Inception-v3's branch pools
// (count_include_pad) went by the flat path: a copy into zero-padded
// planes, TapSumChainF32 and a copy out, 358 µs a call on 768 planes of
// 17x17 (relaxgo profile, 1 thread); without count_include_pad (ONNX's
// default) they went by the row path.
func avgPlanesS1(g *pool2dGeom, o, x []float32, lo, hi int) {
	hw := g.h * g.w
	asm.AvgPool3x3S1P1F32(o[lo*hw:hi*hw], x[lo*hw:hi*hw], hi-lo, g.h, g.w, g.countIncludePad)
}

// padded reports whether g has any padding.
func (g *pool2dGeom) padded() bool { return g.pt != 0 || g.pl != 0 || g.pb != 0 || g.pr != 0 }

// avgFlatOK reports whether avgPlanesFlat computes g: strides of at most
// 2 and at most 64 taps. (Past stride 2 it would compute more than 4x the
// sums it keeps.)
func avgFlatOK(g *pool2dGeom) bool {
	return g.sh <= 2 && g.sw <= 2 && g.kh*g.kw <= 64
}

// avgDivisors reports whether every window of g has the window's size for
// its divisor (avgWindow's: the taps inside the input, or with
// count_include_pad those inside the padded input; at least 1), and when
// not, writes each output's divisor into d (oh x ow). A window is a
// rectangle of taps: its count is its rows' count times its columns'.
func avgDivisors(g *pool2dGeom, d []float32) (uniform bool) {
	count := func(o, s, p, k, dil, n, pad int) int {
		c := 0
		for t := 0; t < k; t++ {
			if v := o*s - p + t*dil; g.countIncludePad && v < n+pad || v >= 0 && v < n {
				c++
			}
		}
		return c
	}
	uniform = true
	for ox := 0; ox < g.ow; ox++ { // the columns' counts, in d's first row
		c := count(ox, g.sw, g.pl, g.kw, g.dw, g.w, g.pr)
		d[ox] = float32(c)
		uniform = uniform && c == g.kw
	}
	for oy := 0; oy < g.oh && uniform; oy++ {
		uniform = count(oy, g.sh, g.pt, g.kh, g.dh, g.h, g.pb) == g.kh
	}
	if uniform {
		return true
	}
	for oy := g.oh - 1; oy >= 0; oy-- { // the first row last, over the columns' counts
		r := float32(count(oy, g.sh, g.pt, g.kh, g.dh, g.h, g.pb))
		for ox := 0; ox < g.ow; ox++ {
			d[oy*g.ow+ox] = max(1, r*d[ox])
		}
	}
	return false
}

// avgPlanesFlat is avgPlanesNCHW for float32 where avgFlatOK: each plane's
// window sums are computed at every position of the plane, extended by
// zeros (its padding and, in ceil mode, the rows and columns the last
// windows reach past it), up to the last window's, by asm.TapSumChainF32
// (the taps summed in order from +0: a zero tap adds +0, which changes no
// such sum, so the sums are avgWindow's over the taps inside the input),
// and the windows at the strides are kept and divided: in the chain when
// every window has the same divisor (the window's size), else by
// avgDivisors' map (asm.DivF32) once copied out (without
// count_include_pad, and in ceil mode, the windows at the edges).
// Inception's 17x17 pools made a dozen calls a 17-element row on the row
// path, and with their padding in the pool took 5.6 ms against 0.3 over
// the explicitly padded input; DenseNet's 2x2/2 transitions summed a tap
// a scalar add at 2.7 ns (BenchmarkOpAvgPool2D).
// The row path took a 3x3/2 pool with padding 1 without count_include_pad
// on 64x56² in 658 µs, 126 with it (BenchmarkOpAvgPool2D, 1 thread).
//
// Planes that follow one another in x and o at column stride 1 are pooled
// in blocks (avgPoolBlockFloats of extended planes; the others in place):
// one copy into the block, one TapSumChainF32 over all of its planes (the
// taps' offsets are the same from each plane's start; the sums between one
// plane's last window and the next plane's first are computed and
// dropped), one copy out. Plane by plane, Inception's 3x3/1 pools on 768
// planes of 17x17, padded, took three calls a plane (BenchmarkOpAvgPool2D,
// 1 thread, AVX-512 Intel Xeon: 340-357 µs, ONNX Runtime 131-148 in the
// model).
func avgPlanesFlat(g *pool2dGeom, o, x []float32, lo, hi int) {
	hp := max(g.h+g.pt+g.pb, (g.oh-1)*g.sh+(g.kh-1)*g.dh+1)
	wp := max(g.w+g.pl+g.pr, (g.ow-1)*g.sw+(g.kw-1)*g.dw+1)
	padded := hp != g.h || wp != g.w
	ld, plen := g.xsH, g.h*g.w // the row stride and size of the planes the taps read
	if padded {
		ld, plen = wp, hp*wp
	}
	var offs [64]int
	var ones [64]float32
	k := 0
	for ky := 0; ky < g.kh; ky++ {
		for kx := 0; kx < g.kw; kx++ {
			offs[k], ones[k] = ky*g.dh*ld+kx*g.dw, 1
			k++
		}
	}
	hw, ohw := g.h*g.w, g.oh*g.ow
	db := getScratch(ohw)
	defer putScratch(db)
	divs := (*db)[:ohw]
	codes := []uint8{asm.ChainDiv}
	div := [1]float32{float32(g.kh * g.kw)}
	if !avgDivisors(g, divs) {
		codes = nil // divided by the map once copied out
	}
	// divide divides planes of outputs copied out (NCHW: a plane's outputs
	// are contiguous) by the map, where the chain did not.
	divide := func(o []float32) {
		if len(codes) != 0 {
			return
		}
		for p := 0; p < len(o); p += ohw {
			asm.DivF32(o[p:p+ohw], o[p:p+ohw], divs)
		}
	}
	n := (g.oh-1)*g.sh*ld + (g.ow-1)*g.sw + 1 // sums a plane
	if g.sw == 1 && g.xsH == g.w && g.xsC == hw && g.xsN == g.c*hw && g.osH == g.ow && g.osC == ohw && g.osN == g.c*ohw {
		bmax := max(1, avgPoolBlockFloats/plen)
		bmax = min(bmax, hi-lo)
		tb := getScratch((bmax-1)*plen + n)
		defer putScratch(tb)
		var pb *[]float32
		if padded {
			pb = getScratch(bmax * plen)
			defer putScratch(pb)
			clear(*pb) // the padding, written once: the loads write only the data
		}
		for p0 := lo; p0 < hi; p0 += bmax {
			b := min(bmax, hi-p0)
			src := x[p0*hw : (p0+b)*hw]
			if padded {
				copyBlocks((*pb)[g.pt*wp+g.pl:], plen, wp, src, hw, g.w, b, g.h, g.w)
				src = *pb
			}
			f := (*tb)[:(b-1)*plen+n]
			asm.TapSumChainF32(f, src[:(b-1)*plen+n+offs[k-1]], offs[:k], ones[:k], codes, div[:])
			copyBlocks(o[p0*ohw:(p0+b)*ohw], ohw, g.ow, f, plen, g.sh*ld, b, g.oh, g.ow)
			divide(o[p0*ohw : (p0+b)*ohw])
		}
		return
	}
	var pb *[]float32
	if padded {
		pb = getScratch(hp * wp)
		defer putScratch(pb)
		clear(*pb)
	}
	tb := getScratch(n)
	defer putScratch(tb)
	tmp := (*tb)[:n]
	for pl := lo; pl < hi; pl++ {
		nn, c := pl/g.c, pl%g.c
		xb := nn*g.xsN + c*g.xsC
		ob := nn*g.osN + c*g.osC
		plane := x[xb : xb+(g.h-1)*g.xsH+g.w]
		if padded {
			copyRows((*pb)[g.pt*wp+g.pl:], wp, plane, g.xsH, g.h, g.w)
			plane = *pb
		}
		asm.TapSumChainF32(tmp, plane, offs[:k], ones[:k], codes, div[:])
		if g.sw == 1 {
			copyRows(o[ob:], g.osH, tmp, g.sh*ld, g.oh, g.ow) // one asm call, not a memmove a row
		} else {
			for oy := 0; oy < g.oh; oy++ {
				orow, trow := o[ob+oy*g.osH:ob+oy*g.osH+g.ow], tmp[oy*g.sh*ld:]
				for ox := range orow {
					orow[ox] = trow[ox*g.sw]
				}
			}
		}
		divide(o[ob : ob+ohw])
	}
}

// avgPoolBlockFloats bounds the padded planes avgPlanesFlat pools at a
// time (64 KB).
const avgPoolBlockFloats = 1 << 14

// poolInterior returns the outputs [oxLo, oxHi) of a row whose every
// horizontal tap lies inside the input row.
func poolInterior(g *pool2dGeom) (oxLo, oxHi int) {
	oxLo = min(g.ow, (g.pl+g.sw-1)/g.sw)
	oxHi = oxLo
	for oxHi < g.ow && oxHi*g.sw-g.pl+(g.kw-1)*g.dw < g.w {
		oxHi++
	}
	return oxLo, oxHi
}

// poolRows returns the kernel rows [kyLo, kyHi) inside the input for the
// output row whose window starts at input row y0.
func poolRows(g *pool2dGeom, y0 int) (kyLo, kyHi int) {
	kyLo, kyHi = 0, g.kh
	for kyLo < kyHi && y0+kyLo*g.dh < 0 {
		kyLo++
	}
	for kyHi > kyLo && y0+(kyHi-1)*g.dh >= g.h {
		kyHi--
	}
	return kyLo, kyHi
}

// avgWindow is the average of the window at (y0, x0) of the plane at xb,
// one tap at a time: its taps inside the input summed in order (rows, then
// columns), divided by their count or, with count_include_pad, by the taps
// inside the padded input.
func avgWindow[T number](g *pool2dGeom, x []T, xb, y0, x0 int) T {
	f32 := isF32[T]()
	var s float64 // float32 sums in float32 (topi's arithmetic: the input's type)
	var s32 float32
	cnt, cntPad := 0, 0
	for ky := 0; ky < g.kh; ky++ {
		yy := y0 + ky*g.dh
		inPadY := yy < g.h+g.pb
		validY := yy >= 0 && yy < g.h
		for kx := 0; kx < g.kw; kx++ {
			xx := x0 + kx*g.dw
			if inPadY && xx < g.w+g.pr {
				cntPad++
			}
			if validY && xx >= 0 && xx < g.w {
				if v := x[xb+yy*g.xsH+xx*g.xsW]; f32 {
					s32 += float32(v)
				} else {
					s += float64(v)
				}
				cnt++
			}
		}
	}
	div := poolDivisor(g, cnt, cntPad)
	if f32 {
		return T(s32 / float32(div))
	}
	return avgOf[T](s, div)
}

// poolDivisor is an average's divisor: the taps inside the input, or with
// count_include_pad those inside the padded input; at least 1.
func poolDivisor(g *pool2dGeom, cnt, cntPad int) int {
	div := cnt
	if g.countIncludePad {
		div = cntPad
	}
	return max(div, 1)
}

// poolPlanesGeneral is poolPlanes for any layout, one output at a time.
func poolPlanesGeneral[T number](g *pool2dGeom, o, x []T, isMax bool, lowest T, lo, hi int) {
	for pl := lo; pl < hi; pl++ {
		n, c := pl/g.c, pl%g.c
		xb := n*g.xsN + c*g.xsC
		ob := n*g.osN + c*g.osC
		for oy := 0; oy < g.oh; oy++ {
			y0 := oy*g.sh - g.pt
			for ox := 0; ox < g.ow; ox++ {
				x0 := ox*g.sw - g.pl
				oi := ob + oy*g.osH + ox*g.osW
				if isMax {
					m := lowest
					for ky := 0; ky < g.kh; ky++ {
						yy := y0 + ky*g.dh
						if yy < 0 || yy >= g.h {
							continue
						}
						row := xb + yy*g.xsH
						for kx := 0; kx < g.kw; kx++ {
							xx := x0 + kx*g.dw
							if xx < 0 || xx >= g.w {
								continue
							}
							if v := x[row+xx*g.xsW]; v > m || v != v {
								m = v
							}
						}
					}
					o[oi] = m
					continue
				}
				o[oi] = avgWindow(g, x, xb, y0, x0)
			}
		}
	}
}

// maxPlanesNCHW is max pooling of planes [lo, hi) with contiguous rows
// (NCHW): per output row the valid kernel rows are found once, and the
// outputs whose window lies inside the row take one branch-free pass per
// tap over all of them (the general loop's data-dependent branch per tap
// mispredicted on every other element and each output's taps formed one
// dependency chain: 6.5 ns per tap before). The maximum does not depend on
// the order taps are visited in; a NaN anywhere in a window makes the
// output NaN.
func maxPlanesNCHW[T number](g *pool2dGeom, o, x []T, lowest T, lo, hi int) {
	kw, dw, w := g.kw, g.dw, g.w
	oxLo, oxHi := poolInterior(g)
	for pl := lo; pl < hi; pl++ {
		n, c := pl/g.c, pl%g.c
		xb := n*g.xsN + c*g.xsC
		ob := n*g.osN + c*g.osC
		for oy := 0; oy < g.oh; oy++ {
			y0 := oy*g.sh - g.pt
			kyLo, kyHi := poolRows(g, y0)
			orow := o[ob+oy*g.osH : ob+oy*g.osH+g.ow]
			edge := func(ox int) {
				x0 := ox*g.sw - g.pl
				m := lowest
				for ky := kyLo; ky < kyHi; ky++ {
					row := x[xb+(y0+ky*g.dh)*g.xsH : xb+(y0+ky*g.dh)*g.xsH+w]
					for kx := 0; kx < kw; kx++ {
						if xx := x0 + kx*dw; xx >= 0 && xx < w {
							m = maxNaN(m, row[xx])
						}
					}
				}
				orow[ox] = m
			}
			for ox := 0; ox < oxLo; ox++ {
				edge(ox)
			}
			// Interior outputs: one pass per tap over the whole run of
			// outputs, so consecutive outputs do not wait on each other.
			inner := orow[oxLo:oxHi]
			for i := range inner {
				inner[i] = lowest
			}
			if len(inner) > 0 {
				sw := g.sw
				for ky := kyLo; ky < kyHi; ky++ {
					row := x[xb+(y0+ky*g.dh)*g.xsH : xb+(y0+ky*g.dh)*g.xsH+w]
					for kx := 0; kx < kw; kx++ {
						start := oxLo*sw - g.pl + kx*dw
						src := row[start : start+(len(inner)-1)*sw+1]
						if sw == 1 {
							src = src[:len(inner)]
							for i, v := range src {
								inner[i] = maxNaN(inner[i], v)
							}
							continue
						}
						for i := range inner {
							inner[i] = maxNaN(inner[i], src[i*sw])
						}
					}
				}
			}
			for ox := max(oxHi, oxLo); ox < g.ow; ox++ {
				edge(ox)
			}
		}
	}
}

// poolMaxVector enables float32 max pooling's plane-at-a-time path
// (maxPoolTap); tests turn it off to compare with the scalar loops.
var poolMaxVector = true

// maxNaN is max(m, v) where a NaN v wins, as the general loop's
// `v > m || v != v`: once m is NaN nothing replaces it.
func maxNaN[T number](m, v T) T {
	if v != v {
		return v
	}
	return max(m, v)
}

// avgOf converts sum/div to T (truncating for integers).
func avgOf[T number](s float64, div int) T {
	var z T
	switch any(z).(type) {
	case float32, float64:
		return T(s / float64(div))
	}
	return T(math.Trunc(s / float64(div)))
}

// AdaptiveAvgPool2D averages x over adaptive windows: output cell i along an
// axis of input extent n and output extent m covers [floor(i*n/m),
// ceil((i+1)*n/m)). outputSize nil keeps the input's spatial size; one value
// applies to both dims.
func AdaptiveAvgPool2D(out, x *runtime.Tensor, outputSize []int64, layout, outLayout string) error {
	const name = "nn.adaptive_avg_pool2d"
	if x == nil || out == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	if x.NDim() != 4 {
		return fmt.Errorf("%s: input must be 4-D, got %s", name, shapeStr(x.Shape()))
	}
	if outLayout != "" && outLayout != layout && !(layout == "" && outLayout == "NCHW") {
		return fmt.Errorf("%s: out_layout %q differs from layout %q", name, outLayout, layout)
	}
	ni, ci, hi, wi, err := layoutIdx(name, layout)
	if err != nil {
		return err
	}
	s := x.Shape()
	n, c, h, w := int(s[ni]), int(s[ci]), int(s[hi]), int(s[wi])
	oh, ow := h, w
	switch len(outputSize) {
	case 0:
		if outputSize != nil {
			return fmt.Errorf("%s: empty output_size", name)
		}
	case 1:
		oh, ow = int(outputSize[0]), int(outputSize[0])
	case 2:
		oh, ow = int(outputSize[0]), int(outputSize[1])
	default:
		return fmt.Errorf("%s: output_size must have 1 or 2 values, got %d", name, len(outputSize))
	}
	if oh < 0 || ow < 0 || (oh == 0 && h != 0) || (ow == 0 && w != 0) {
		return fmt.Errorf("%s: invalid output_size %v", name, outputSize)
	}
	var os [4]int64
	os[ni], os[ci], os[hi], os[wi] = int64(n), int64(c), int64(oh), int64(ow)
	if err := checkOut(name, out, os[:], x.DType()); err != nil {
		return err
	}
	if out.NumElements() == 0 {
		return nil
	}
	g := pool2dGeom{n: n, c: c, h: h, w: w, oh: oh, ow: ow}
	g.xsN, g.xsC, g.xsH, g.xsW = layoutStrides(ci, c, h, w)
	g.osN, g.osC, g.osH, g.osW = layoutStrides(ci, c, oh, ow)
	switch x.DType() {
	case runtime.Float32:
		adaptivePool(&g, elems[float32](out), elems[float32](x))
	case runtime.Float64:
		adaptivePool(&g, elems[float64](out), elems[float64](x))
	case runtime.Float16:
		return viaFloat32(out, []*runtime.Tensor{x}, func(o *runtime.Tensor, in []*runtime.Tensor) error {
			return AdaptiveAvgPool2D(o, in[0], outputSize, layout, outLayout)
		})
	default:
		return fmt.Errorf("%s: requires a float dtype, got %s", name, x.DType())
	}
	return nil
}

func adaptivePool[T floating](g *pool2dGeom, o, x []T) {
	if x32, ok := any(x).([]float32); ok && g.oh == 1 && g.ow == 1 && g.xsW == 1 && g.xsH == g.w {
		// A global pool over contiguous float32 planes: each plane's sum in
		// sum32's fixed order (SIMD partial sums), divided in float64.
		o32 := any(o).([]float32)
		cnt := float64(max(g.h*g.w, 1))
		if planes, hw := g.n*g.c, g.h*g.w; g.xsC == hw && g.xsN == g.c*hw && g.osC == 1 && g.osN == g.c {
			// Planes and means both contiguous: all the sums at once.
			sum32Rows(o32[:planes], x32, hw, hw)
			for i, s := range o32[:planes] {
				o32[i] = float32(float64(s) / cnt)
			}
			return
		}
		for pl := 0; pl < g.n*g.c; pl++ {
			n, c := pl/g.c, pl%g.c
			xb := n*g.xsN + c*g.xsC
			o32[n*g.osN+c*g.osC] = float32(float64(sum32(x32[xb:xb+g.h*g.w])) / cnt)
		}
		return
	}
	for pl := 0; pl < g.n*g.c; pl++ {
		n, c := pl/g.c, pl%g.c
		xb := n*g.xsN + c*g.xsC
		ob := n*g.osN + c*g.osC
		for oy := 0; oy < g.oh; oy++ {
			y0 := oy * g.h / g.oh
			y1 := ((oy+1)*g.h + g.oh - 1) / g.oh
			for ox := 0; ox < g.ow; ox++ {
				x0 := ox * g.w / g.ow
				x1 := ((ox+1)*g.w + g.ow - 1) / g.ow
				// Four float64 partial sums (elements i mod 4 of each row)
				// instead of one dependent chain of adds (a call of cnn_64x64
				// 153 -> 148 us). The float64 total differs from
				// the sequential one by a few float64 ulps at most, which
				// changes the float32 mean only when that lies so close
				// to a float32 rounding boundary.
				var s0, s1, s2, s3 float64
				for yy := y0; yy < y1; yy++ {
					row := xb + yy*g.xsH
					if g.xsW != 1 {
						for xx := x0; xx < x1; xx++ {
							s0 += float64(x[row+xx*g.xsW])
						}
						continue
					}
					r := x[row+x0 : row+x1]
					i := 0
					for ; i+4 <= len(r); i += 4 {
						s0 += float64(r[i])
						s1 += float64(r[i+1])
						s2 += float64(r[i+2])
						s3 += float64(r[i+3])
					}
					for ; i < len(r); i++ {
						s0 += float64(r[i])
					}
				}
				s := (s0 + s1) + (s2 + s3)
				cnt := (y1 - y0) * (x1 - x0)
				if cnt < 1 {
					cnt = 1
				}
				o[ob+oy*g.osH+ox*g.osW] = T(s / float64(cnt))
			}
		}
	}
}

// PadAttrs are Relax's nn.pad attributes. PadWidth holds (before, after) per
// axis, interleaved; PadMode is "constant", "edge"/"replicate", "reflect" or
// "circular".
type PadAttrs struct {
	PadWidth []int64
	PadValue float64
	PadMode  string
}

// Pad pads x per attrs (negative widths crop).
func Pad(out, x *runtime.Tensor, attrs PadAttrs) error {
	const name = "nn.pad"
	if err := checkRank(name, x); err != nil {
		return err
	}
	nd := x.NDim()
	if len(attrs.PadWidth) != 2*nd {
		return fmt.Errorf("%s: pad_width has %d values, want %d for rank %d", name, len(attrs.PadWidth), 2*nd, nd)
	}
	mode := attrs.PadMode
	switch mode {
	case "", "constant":
		mode = "constant"
	case "edge", "replicate":
		mode = "edge"
	case "reflect", "circular":
	default:
		return fmt.Errorf("%s: unsupported pad_mode %q", name, attrs.PadMode)
	}
	xs := x.Shape()
	var ob [maxRank]int64
	os := ob[:nd]
	for i := range os {
		os[i] = xs[i] + attrs.PadWidth[2*i] + attrs.PadWidth[2*i+1]
		if os[i] < 0 {
			return fmt.Errorf("%s: padding %v makes axis %d negative", name, attrs.PadWidth, i)
		}
		if mode != "constant" && xs[i] == 0 && os[i] > 0 {
			return fmt.Errorf("%s: cannot %s-pad an empty axis %d", name, mode, i)
		}
		if mode == "reflect" && (attrs.PadWidth[2*i] >= xs[i] || attrs.PadWidth[2*i+1] >= xs[i]) &&
			(attrs.PadWidth[2*i] > 0 || attrs.PadWidth[2*i+1] > 0) {
			return fmt.Errorf("%s: reflect padding %d/%d needs axis %d longer than it (size %d)",
				name, attrs.PadWidth[2*i], attrs.PadWidth[2*i+1], i, xs[i])
		}
	}
	if err := checkOut(name, out, os, x.DType()); err != nil {
		return err
	}
	if out.NumElements() == 0 {
		return nil
	}
	if nd == 0 {
		copy(out.Bytes(), x.Bytes())
		return nil
	}
	// The pad value as the dtype's element (its bits in a word).
	var pv uint64
	if mode == "constant" {
		if err := scalarBits(x.DType(), attrs.PadValue, &pv); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	g := padGeom{nd: nd, mode: mode}
	for i := 0; i < nd; i++ {
		g.xs[i], g.os[i], g.before[i] = int(xs[i]), int(os[i]), int(attrs.PadWidth[2*i])
	}
	switch x.DType().ElemBytes() {
	case 1:
		padRun(&g, elems[uint8](out), elems[uint8](x), uint8(pv))
	case 2:
		padRun(&g, elems[uint16](out), elems[uint16](x), uint16(pv))
	case 4:
		padRun(&g, elems[uint32](out), elems[uint32](x), uint32(pv))
	case 8:
		padRun(&g, elems[uint64](out), elems[uint64](x), pv)
	default:
		return fmt.Errorf("%s: unsupported dtype %s", name, x.DType())
	}
	return nil
}

// padRun runs padRows over the output's rows, split over the threads when
// the output is large (each row is written by one of them).
func padRun[T uint8 | uint16 | uint32 | uint64](g *padGeom, out, x []T, pv T) {
	inner := max(g.os[g.nd-1], 1)
	rows := len(out) / inner
	if len(out) < parThreshold || rows == 1 || NumThreads() <= 1 {
		padRows(g, out, x, pv, 0, rows)
		return
	}
	pool := poolFor[padJob[T]]()
	j := pool.Get()
	j.g, j.o, j.x, j.pv = *g, out, x, pv
	parFor(rows, rowGrain(inner), j.fn)
	j.o, j.x = nil, nil
	pool.Put(j)
}

// padGeom is a pad's geometry: rank, input and output shapes, the padding
// before each axis (negative crops) and the mode ("constant", "edge",
// "reflect" or "circular").
type padGeom struct {
	nd             int
	xs, os, before [maxRank]int
	mode           string
}

// padRows writes rows [r0, r1) of out (g.os) from x (g.xs) along the last axis,
// the element types' bits moved as words: a row outside the input along an
// outer axis is the pad value (constant mode), else its part inside the
// input is one copy and its padding goes element by element. The outer
// index advances as an odometer. Inception-v3's zero pads before its
// average pools took ~70 ns a row element by element with a division per
// axis (BenchmarkOpPad).
func padRows[T uint8 | uint16 | uint32 | uint64](g *padGeom, out, x []T, pv T, r0, r1 int) {
	nd := g.nd
	inner, n, before := g.os[nd-1], g.xs[nd-1], g.before[nd-1]
	// The row's part inside the input, [lo, hi).
	lo := max(0, min(inner, before))
	hi := max(lo, min(inner, before+n))
	var xst [maxRank]int
	xst[nd-1] = 1
	for d := nd - 2; d >= 0; d-- {
		xst[d] = xst[d+1] * g.xs[d+1]
	}
	var idx [maxRank]int
	for d, r := nd-2, r0; d >= 0; d-- {
		idx[d] = r % g.os[d]
		r /= g.os[d]
	}
	constant := g.mode == "constant"
	for r := r0; r < r1; r++ {
		if r > r0 {
			for d := nd - 2; d >= 0; d-- {
				if idx[d]++; idx[d] < g.os[d] {
					break
				}
				idx[d] = 0
			}
		}
		dst := out[r*inner : (r+1)*inner]
		src, inside := 0, true
		for d := 0; d < nd-1; d++ {
			si := idx[d] - g.before[d]
			if uint(si) >= uint(g.xs[d]) {
				if si, inside = padMap(si, g.xs[d], g.mode); !inside {
					break
				}
			}
			src += si * xst[d]
		}
		if !inside {
			if pv == 0 {
				clear(dst)
			} else {
				for i := range dst {
					dst[i] = pv
				}
			}
			continue
		}
		copy(dst[lo:hi], x[src+lo-before:src+hi-before])
		for _, span := range [2][2]int{{0, lo}, {hi, inner}} {
			for i := span[0]; i < span[1]; i++ {
				if constant {
					dst[i] = pv
					continue
				}
				si, _ := padMap(i-before, n, g.mode) // inside for every mode but constant
				dst[i] = x[src+si]
			}
		}
	}
}

// scalarBits sets *w to v converted to dt as fillValue converts it, the
// element's bits in the word's first bytes (native order).
func scalarBits(dt runtime.DataType, v float64, w *uint64) error {
	p := unsafe.Pointer(w)
	switch dt {
	case runtime.Float32:
		*(*float32)(p) = float32(v)
	case runtime.Float64:
		*(*float64)(p) = v
	case runtime.Float16:
		*(*uint16)(p) = half.Float64ToFloat16(v)
	case runtime.Int8:
		*(*int8)(p) = int8(v)
	case runtime.Int16:
		*(*int16)(p) = int16(v)
	case runtime.Int32:
		*(*int32)(p) = int32(v)
	case runtime.Int64:
		*(*int64)(p) = int64(v)
	case runtime.UInt8:
		*(*uint8)(p) = uint8(v)
	case runtime.UInt16:
		*(*uint16)(p) = uint16(v)
	case runtime.UInt32:
		*(*uint32)(p) = uint32(v)
	case runtime.UInt64:
		*(*uint64)(p) = uint64(v)
	case runtime.Bool:
		*(*bool)(p) = v != 0
	default:
		return fmt.Errorf("unsupported dtype %s", dt)
	}
	return nil
}

// padMap maps a (possibly out-of-range) source index i of an axis of size n
// to the index it reads, per mode; false means the pad value.
func padMap(i, n int, mode string) (int, bool) {
	if i >= 0 && i < n {
		return i, true
	}
	switch mode {
	case "edge":
		if i < 0 {
			return 0, true
		}
		return n - 1, true
	case "reflect":
		if n == 1 {
			return 0, true
		}
		p := 2 * (n - 1)
		i %= p
		if i < 0 {
			i += p
		}
		if i >= n {
			i = p - i
		}
		return i, true
	case "circular":
		i %= n
		if i < 0 {
			i += n
		}
		return i, true
	}
	return 0, false
}

// readPoolArgs reads the packed arguments of the 1-D and 2-D poolings: data,
// pool_size, strides, padding, dilation, ceil_mode, count_include_pad,
// layout, out_layout (string or nil), out. full is the packed name (built
// once by the caller: concatenating it per call would allocate).
func readPoolArgs(full string, args []runtime.Value) (x, out *runtime.Tensor, a Pool2DAttrs, err error) {
	p := newArgs(full, args)
	p.count(10)
	x = p.tensor(0)
	a = Pool2DAttrs{PoolSize: p.ints(1), Strides: p.ints(2), Padding: p.ints(3), Dilation: p.ints(4),
		CeilMode: p.bool(5), CountIncludePad: p.bool(6), Layout: p.string(7)}
	a.OutLayout = p.optString(8)
	out = p.tensor(9)
	return x, out, a, p.err
}

func poolPacked(op string, isMax bool) runtime.PackedFunc {
	full := Prefix + op
	return func(args []runtime.Value) (runtime.Value, error) {
		x, out, a, err := readPoolArgs(full, args)
		if err != nil {
			return nil, err
		}
		return nil, wrapErr(pool2d(op, out, x, &a, isMax))
	}
}

func init() {
	const poolArgs = "data, pool_size (Shape), strides (Shape), padding (Shape, 4 values: top, left, bottom, right), dilation (Shape), ceil_mode (bool), count_include_pad (bool), layout (string), out_layout (string or nil), out"
	register("nn.max_pool2d", poolArgs, poolPacked("nn.max_pool2d", true))
	register("nn.avg_pool2d", poolArgs, poolPacked("nn.avg_pool2d", false))
	register("nn.adaptive_avg_pool2d", "data, output_size (Shape or nil = input size), layout (string), out_layout (string or nil), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.nn.adaptive_avg_pool2d", args)
			p.count(5)
			x, osz, layout := p.tensor(0), p.ints(1), p.string(2)
			outLayout := p.optString(3)
			out := p.tensor(4)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(AdaptiveAvgPool2D(out, x, osz, layout, outLayout))
		})
	register("nn.pad", "data, pad_width (Shape: before/after interleaved per axis), pad_value (float64), pad_mode (string), out (pad_value and pad_mode are told apart by type, so either order is accepted)",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs("kernels.nn.pad", args)
			p.count(5)
			x, pw := p.tensor(0), p.ints(1)
			a := PadAttrs{PadWidth: pw, PadMode: "constant"}
			for _, i := range []int{2, 3} {
				if p.err != nil {
					break
				}
				switch v := args[i].(type) {
				case string:
					a.PadMode = v
				case nil:
				default:
					a.PadValue = p.float(i)
				}
			}
			out := p.tensor(4)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(Pad(out, x, a))
		})
}

// Pool1DAttrs are Relax's nn.max_pool1d / nn.avg_pool1d attributes (Padding
// has 1 or 2 values: left, right; Layout "NCW" or "NWC").
type Pool1DAttrs struct {
	PoolSize, Strides, Dilation, Padding []int64
	CeilMode, CountIncludePad            bool
	Layout, OutLayout                    string
}

// pool1dAs2d runs a 1-D pooling as 2-D pooling over a height-1 view.
func pool1dAs2d(name string, out, x *runtime.Tensor, a Pool1DAttrs, isMax bool) error {
	if x == nil || out == nil || x.NDim() != 3 || out.NDim() != 3 {
		return fmt.Errorf("%s: want 3-D input and output", name)
	}
	layout := "NCHW"
	switch a.Layout {
	case "", "NCW":
	case "NWC":
		layout = "NHWC"
	default:
		return fmt.Errorf("%s: unsupported layout %q", name, a.Layout)
	}
	if a.OutLayout != "" && a.OutLayout != a.Layout && !(a.Layout == "" && a.OutLayout == "NCW") {
		return fmt.Errorf("%s: out_layout %q differs from layout %q", name, a.OutLayout, a.Layout)
	}
	if len(a.Padding) > 2 {
		return fmt.Errorf("%s: padding must have 1 or 2 values", name)
	}
	if len(a.PoolSize) > 1 || len(a.Strides) > 1 || len(a.Dilation) > 1 {
		return fmt.Errorf("%s: pool_size, strides and dilation must have 1 value", name)
	}
	u := unitViews.Get()
	defer u.release()
	view := func(dst *runtime.Tensor, buf *[4]int64, t *runtime.Tensor) (*runtime.Tensor, error) {
		s := t.Shape()
		if layout == "NCHW" {
			return view4(dst, t, buf, s[0], s[1], 1, s[2])
		}
		return view4(dst, t, buf, s[0], 1, s[1], s[2])
	}
	x4, err := view(&u.x, &u.xs, x)
	if err != nil {
		return err
	}
	o4, err := view(&u.out, &u.os, out)
	if err != nil {
		return err
	}
	u.pool = Pool2DAttrs{PoolSize: unitPair(&u.size, 1, a.PoolSize, 1), Strides: unitPair(&u.strides, 1, a.Strides, 1), Dilation: unitPair(&u.dilation, 1, a.Dilation, 1),
		Padding: u.padding(a.Padding), CeilMode: a.CeilMode, CountIncludePad: a.CountIncludePad, Layout: layout, OutLayout: layout}
	return pool2d(name, o4, x4, &u.pool, isMax)
}

// MaxPool1D computes 1-D max pooling.
func MaxPool1D(out, x *runtime.Tensor, a Pool1DAttrs) error {
	return pool1dAs2d("nn.max_pool1d", out, x, a, true)
}

// AvgPool1D computes 1-D average pooling.
func AvgPool1D(out, x *runtime.Tensor, a Pool1DAttrs) error {
	return pool1dAs2d("nn.avg_pool1d", out, x, a, false)
}

func pool1dPacked(op string, isMax bool) runtime.PackedFunc {
	full := Prefix + op
	return func(args []runtime.Value) (runtime.Value, error) {
		x, out, a, err := readPoolArgs(full, args)
		if err != nil {
			return nil, err
		}
		return nil, wrapErr(pool1dAs2d(op, out, x, Pool1DAttrs(a), isMax))
	}
}

func init() {
	const pool1dArgs = "data, pool_size (Shape), strides (Shape), padding (Shape: left, right), dilation (Shape), ceil_mode (bool), count_include_pad (bool), layout (string), out_layout (string or nil), out"
	register("nn.max_pool1d", pool1dArgs, pool1dPacked("nn.max_pool1d", true))
	register("nn.avg_pool1d", pool1dArgs, pool1dPacked("nn.avg_pool1d", false))
}
