package kernels

import (
	"fmt"
	"math"

	"github.com/klauspost/cpuid/v2"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/internal/extent"
	"github.com/relaxgo/relaxgo/internal/freelist"
	"github.com/relaxgo/relaxgo/runtime"
)

func init() {
	runtime.MustRegister("kernels.nn.conv2d", packedConv("kernels.nn.conv2d", false, func(out, x, w *runtime.Tensor, a Conv2DTransposeAttrs) error {
		return Conv2D(out, x, w, a.conv2d())
	}))
	runtime.MustRegister("kernels.nn.conv1d", packedConv("kernels.nn.conv1d", false, func(out, x, w *runtime.Tensor, a Conv2DTransposeAttrs) error {
		return Conv1D(out, x, w, Conv1DAttrs(a.conv2d()))
	}))
	runtime.MustRegister("kernels.nn.conv2d_transpose", packedConv("kernels.nn.conv2d_transpose", true, Conv2DTranspose))
	runtime.MustRegister("kernels.nn.conv1d_transpose", packedConv("kernels.nn.conv1d_transpose", true, Conv1DTranspose))
}

// Conv2DAttrs are Relax's Conv2DAttrs. Nil/empty Strides and Dilation mean 1;
// Padding has 1 (all sides), 2 (top=bottom, left=right) or 4 (top, left,
// bottom, right) values, nil meaning 0; Groups <= 0 means 1. Only the NCHW
// data/output layout and the OIHW kernel layout are supported ("" = default).
// OutDType runtime.Void (or the zero DataType) means the input dtype.
type Conv2DAttrs struct {
	Strides      []int64
	Padding      []int64
	Dilation     []int64
	Groups       int64
	DataLayout   string
	KernelLayout string
	OutLayout    string
	OutDType     runtime.DataType
}

// Conv1DAttrs are Relax's Conv1DAttrs: like Conv2DAttrs with one spatial
// dimension (Padding has 1 or 2 values: left, right), layouts NCW / OIW.
type Conv1DAttrs struct {
	Strides      []int64
	Padding      []int64
	Dilation     []int64
	Groups       int64
	DataLayout   string
	KernelLayout string
	OutLayout    string
	OutDType     runtime.DataType
}

// Conv2DTransposeAttrs are Relax's Conv2DTransposeAttrs. OutputPadding has 1
// or 2 values (nil = 0), each smaller than the stride or the dilation. Layouts
// NCHW (data, output) and IOHW (kernel) are supported.
type Conv2DTransposeAttrs struct {
	Strides       []int64
	Padding       []int64
	OutputPadding []int64
	Dilation      []int64
	Groups        int64
	DataLayout    string
	KernelLayout  string
	OutLayout     string
	OutDType      runtime.DataType
}

// conv2dGeom is a fully resolved 2-D convolution (transposed or not).
type conv2dGeom struct {
	n, c, h, w     int // input
	o, kh, kw      int // output channels, kernel size
	sh, sw         int
	pt, pl, pb, pr int
	dh, dw         int
	g              int
	oh, ow         int // output spatial size
}

// pointwise reports a 1x1 convolution at stride 1 without padding: a GEMM
// on the input itself.
func (g *conv2dGeom) pointwise() bool {
	return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0 && g.pb == 0 && g.pr == 0
}

// flatWidth is the width of a stride phase's rows, at which the indirect
// convolution computes its output rows (conv_indirect.go): the padded
// width over the column stride, rounded up. At column stride 1 a row's
// right padding and the next row's left padding are the same zeros, so
// the rows are w + max(pl, pr) wide (sharedPad), where that does not take
// them below scatterMinWidth.
func (g *conv2dGeom) flatWidth() int {
	if g.alignedRows() {
		return g.w + alignRowsPad
	}
	if g.sharedPad() {
		return g.w + max(g.pl, g.pr)
	}
	return (g.w + g.pl + g.pr + g.sw - 1) / g.sw
}

// phaseRows is the rows of each of the indirect convolution's stride-phase
// planes: the padded rows, sh to a plane row.
func (g *conv2dGeom) phaseRows() int { return (g.h + g.pt + g.pb + g.sh - 1) / g.sh }

// alignRowsPad is the columns alignedRows adds to a row: a 64-byte line.
const alignRowsPad = 16

// alignRowsMaxDepth is the deepest window (c/groups x kh x kw) that
// alignedRows takes: a layer of few input channels, whose time goes to
// storing its output rather than to its products.
const alignRowsMaxDepth = 96

// alignedRows reports whether the indirect convolution's flat rows are
// w + alignRowsPad wide (flatWidth), a multiple of 16 like w, so that each
// 16-lane vector of a panel is 16 pixels of one output row starting on a
// 64-byte line (output planes of whole lines): column stride 1, w a multiple
// of 16, padding of at most alignRowsPad columns (and some), a window at
// most alignRowsMaxDepth deep, and at most a quarter more columns than the
// shared rows compute. The scattering kernel's stores then each write one
// whole line instead of parts of two. BenchmarkConv2DChainLayers-style
// layers, 1 thread, AVX-512 Intel Xeon, four alternated runs (µs): 3->32 on
// 64² 129-145 -> 117-132 and one run at 171 (another six-run set 122-126
// -> 105-111), 3->64 on 224² 3004-3085 -> 2577-3060, 8->16 on 256²
// 2225-2258 -> 1985-2074; deeper windows were slower, the extra columns
// costing more than the stores saved: 16->16 on 128² (144 deep) 877-984 ->
// 987-1024, 32->32 on 64² (288) 758-913 -> 971-1066, and 32->64 on 32² (45%
// more columns) 346-389 -> 480-562. In the model, cnn_64x64 compiled
// (`relaxgo bench -n 2000`, alternated) 281-285 -> 248-266 µs at 1 thread,
// 193 -> 174-177 at 2.
//
// On an AMD EPYC (Zen 5) at AVX-512 the extra columns cost more than the
// whole-line stores save unless the window is shallow and the extra columns
// few (alignRowsLean): BenchmarkConv2DChainLayers-style layers, 1 thread,
// three alternated runs (µs, aligned -> shared rows): 3->32 on 64² (27 deep,
// 23% more columns) 50.7-54.3 -> 44.2-55.2, 4->32 on 112² 210-250 -> 177-198,
// 4->32 on 96² 156-174 -> 127-161, 4->32 on 128² 265-269 -> 225-249, 3->16 on
// 128² 103-112 -> 101-102, 8->16 on 256² and 4->32 on 240² within noise;
// 3->64 on 224² (27 deep, 7% more columns) 1256-1365 -> 1356-1451, so it
// stays aligned. At AVX2 on the same machine (no scattering kernel) 3->32
// on 64² ran faster aligned (80-93 against 96-126), as on the Xeon: the
// rule there is unchanged.
func (g *conv2dGeom) alignedRows() bool {
	if g.sw != 1 || g.w%16 != 0 || g.pl+g.pr == 0 || g.pl+g.pr > alignRowsPad {
		return false
	}
	depth, shared := g.c/max(g.g, 1)*g.kh*g.kw, g.w+max(g.pl, g.pr)
	if depth > alignRowsMaxDepth || 4*(g.w+alignRowsPad) > 5*shared {
		return false
	}
	if alignRowsLean && asm.CurrentLevel() == asm.LevelAVX512 {
		// The extra columns' work (depth x columns) within twice a
		// shared row's columns.
		return depth*(g.w+alignRowsPad-shared) <= 2*shared
	}
	return true
}

// alignRowsLean makes alignedRows take only shallow windows with few extra
// columns at AVX-512: on AMD processors, where that was measured faster
// (alignedRows).
var alignRowsLean = cpuid.CPU.VendorID == cpuid.AMD

// sharedPad reports whether the flat rows share their padding columns
// (flatWidth): column stride 1, and w + max(pl, pr) at least
// scatterMinWidth or the padded width below it too. The last row's right padding then ends
// min(pl, pr) values past its plane, in the next plane's first row's left
// padding (or, after the last plane, in the zeros past the planes).
//
// Inception-v3's 1x7 convolutions on 17² (padding 3 each side) compute 20
// columns a row instead of 23; SqueezeNet's 3x3 ones on 27² 28 instead of
// 29.
func (g *conv2dGeom) sharedPad() bool {
	if g.sw != 1 || g.pl == 0 || g.pr == 0 {
		return false
	}
	if min(g.pl, g.pr) > g.dw*(g.kw-1) {
		// A window narrower than the padding (a 1x1 kernel padded by 1):
		// its output rows are wider than w + max(pl, pr), and shared rows
		// would put a row's last pixels on the next row's first.
		return false
	}
	return g.w+max(g.pl, g.pr) >= scatterMinWidth || g.w+g.pl+g.pr < scatterMinWidth
}

func convPair(op, name string, v []int64, def int64) (int, int, error) {
	switch len(v) {
	case 0:
		return int(def), int(def), nil
	case 1:
		return int(v[0]), int(v[0]), nil
	case 2:
		return int(v[0]), int(v[1]), nil
	}
	return 0, 0, fmt.Errorf("%s: %s must have 1 or 2 values, got %v", op, name, v)
}

func convPad4(op string, p []int64) ([4]int, error) {
	switch len(p) {
	case 0:
		return [4]int{}, nil
	case 1:
		return [4]int{int(p[0]), int(p[0]), int(p[0]), int(p[0])}, nil
	case 2:
		return [4]int{int(p[0]), int(p[1]), int(p[0]), int(p[1])}, nil
	case 4:
		return [4]int{int(p[0]), int(p[1]), int(p[2]), int(p[3])}, nil
	}
	return [4]int{}, fmt.Errorf("%s: padding must have 1, 2 or 4 values, got %v", op, p)
}

func convLayout(op, what, got, want string) error {
	if got != "" && got != want {
		return fmt.Errorf("%s: %s %q is not supported (only %s)", op, what, got, want)
	}
	return nil
}

// convDTypes validates operand dtypes and returns the output dtype.
func convDTypes(op string, x, w *runtime.Tensor, outDT runtime.DataType) (runtime.DataType, error) {
	if x.DType() != w.DType() {
		return runtime.Void, fmt.Errorf("%s: data dtype %s differs from weight dtype %s", op, x.DType(), w.DType())
	}
	if !laSupported(x.DType()) {
		return runtime.Void, fmt.Errorf("%s: unsupported dtype %s", op, x.DType())
	}
	if outDT.IsVoid() || outDT == (runtime.DataType{}) {
		outDT = x.DType()
	}
	if !laSupported(outDT) {
		return runtime.Void, fmt.Errorf("%s: unsupported out_dtype %s", op, outDT)
	}
	return outDT, nil
}

// Conv2D computes the NCHW/OIHW 2-D convolution of x (N, C, H, W) with
// w (O, C/groups, KH, KW) into out (N, O, OH, OW) with Relax semantics
// (cross-correlation, zero padding). float32 runs as implicit GEMM on the
// Sgemm driver, packing image patches straight into GEMM panels (direct
// loops for depthwise); float64/int32/int64 use plain loops.
func Conv2D(out, x, w *runtime.Tensor, attrs Conv2DAttrs) error {
	return conv2dChain(out, x, w, attrs, nil)
}

// conv2dChain is Conv2D followed by chain on the output (nil for none);
// float32 depthwise convolutions apply it to each plane as it is computed.
func conv2dChain(out, x, w *runtime.Tensor, attrs Conv2DAttrs, chain *rowChain) error {
	const op = "conv2d"
	g, outDT, err := convOperands(op, out, x, w, [3]string{attrs.DataLayout, attrs.KernelLayout, attrs.OutLayout}, "OIHW",
		attrs.OutDType, attrs.Strides, attrs.Dilation, attrs.Padding)
	if err != nil {
		return err
	}
	xs, ws := x.Shape(), w.Shape()
	g.o = int(ws[0])
	g.g = int(max(attrs.Groups, 1))
	if g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1 || g.pt < 0 || g.pl < 0 || g.pb < 0 || g.pr < 0 {
		return fmt.Errorf("%s: strides and dilation must be >= 1 and padding >= 0 (strides %v, padding %v, dilation %v)",
			op, attrs.Strides, attrs.Padding, attrs.Dilation)
	}
	if g.c%g.g != 0 || g.o%g.g != 0 || int(ws[1]) != g.c/g.g {
		return fmt.Errorf("%s: data %v, weight %v and groups=%d are inconsistent (need C %% groups == 0, O %% groups == 0, weight dim 1 == C/groups)",
			op, runtime.Shape(xs), runtime.Shape(ws), g.g)
	}
	if !extent.ConvDimOK(int64(g.h), int64(g.kh), int64(g.sh), int64(g.dh), int64(g.pt), int64(g.pb), 0) ||
		!extent.ConvDimOK(int64(g.w), int64(g.kw), int64(g.sw), int64(g.dw), int64(g.pl), int64(g.pr), 0) {
		return fmt.Errorf("%s: sizes overflow (input %v, weight %v, strides %v, padding %v, dilation %v)",
			op, runtime.Shape(xs), runtime.Shape(ws), attrs.Strides, attrs.Padding, attrs.Dilation)
	}
	eh, ew := g.dh*(g.kh-1)+1, g.dw*(g.kw-1)+1
	if g.h+g.pt+g.pb < eh || g.w+g.pl+g.pr < ew {
		return fmt.Errorf("%s: dilated kernel %dx%d larger than padded input %dx%d", op, eh, ew, g.h+g.pt+g.pb, g.w+g.pl+g.pr)
	}
	g.oh, g.ow = (g.h+g.pt+g.pb-eh)/g.sh+1, (g.w+g.pl+g.pr-ew)/g.sw+1
	if err := checkOut(op, out, []int64{int64(g.n), int64(g.o), int64(g.oh), int64(g.ow)}, outDT); err != nil {
		return err
	}
	if out.NumElements() == 0 {
		return nil
	}
	if chain != nil && chain.res != nil && asm.OverlapF32(chain.res, out.Float32s()) {
		// The residual in the output's memory: read from a copy, as the
		// output's planes are written before the chain reads it.
		rb := getScratch(len(chain.res))
		defer putScratch(rb)
		copy(*rb, chain.res)
		chain.res = *rb
	}
	if chain != nil && chain.res != nil && g.n != 1 {
		// A residual's rows are planes of one image: several images take
		// the convolution, then the chain.
		if err := conv2dChain(out, x, w, attrs, nil); err != nil {
			return err
		}
		chainAfter(chain, &g, out.Float32s())
		return nil
	}
	if x.DType() == runtime.Float32 && outDT == runtime.Float32 {
		xs := x.Float32s()
		if vecConvUse(&g) {
			return convVecF32(&g, out.Float32s(), xs, w, chain)
		}
		if g.kh == 1 && g.kw == 1 && (g.sh > 1 || g.sw > 1) && g.g == 1 && g.pt == 0 && g.pl == 0 && g.pb == 0 && g.pr == 0 {
			// A strided 1x1 convolution (ResNet's shortcuts) is a pointwise
			// one on the positions it reads: those are copied out once and
			// take the pointwise paths, whose products are the same sums
			// in the same order.
			sb := getScratch(g.n * g.c * g.oh * g.ow)
			defer putScratch(sb)
			subsample(*sb, xs, &g)
			xs = *sb
			g.h, g.w, g.sh, g.sw, g.dh, g.dw = g.oh, g.ow, 1, 1, 1, 1
		}
		if winoOK(&g) {
			if e := constWinoWeights(w, winoTile(&g), g.o, g.c); e != nil {
				convWinograd(&g, out.Float32s(), xs, e, chain)
				return nil
			}
		}
		// The position path runs the chain on T, a residual's step on
		// the residual transposed alike where that pays (posResidual);
		// otherwise it runs without the chain, and the chain runs after
		// it over the planes, as the unfused kernels would (the path is
		// that much faster than the others where it is taken: ResNet-18's
		// 256 and 512 channels on 14² and 7²).
		posChain := chain
		if chain != nil && chain.res != nil && !posResidual(&g, chain) {
			posChain = nil
		}
		if convPosUse(&g, posChain) {
			if pb := constPosWeights(w, g.o, g.c*g.kh*g.kw); pb != nil {
				convPosF32(&g, out.Float32s(), xs, pb, posChain)
				if posChain != chain {
					chainAfter(chain, &g, out.Float32s())
				}
				return nil
			}
		}
		var packs []*packedA
		var dwnc []float32
		plan := planConvIndirect(&g, g.o/g.g)
		if cg := g.c / g.g; cg == 1 && dwNCUse(&g) {
			dwnc = constDWNCWeights(w, g.o, g.kh*g.kw)
		} else if cg > 1 {
			// Weights in panels of 8 rows for the wide indirect tile, and
			// for a pointwise product on the GEMM driver's middle tile.
			eight := plan.wide || !plan.indirect && g.pointwise() && gemmUseMid(g.o/g.g, g.oh*g.ow)
			packs = constConvPacked(w, g.g, g.o/g.g, cg*g.kh*g.kw, eight)
		}
		return conv2dF32(&g, out.Float32s(), xs, w.Float32s(), packs, dwnc, chain, plan)
	}
	// The plain loops capture their geometry; a copy keeps g on the stack
	// for the float32 path.
	if chain != nil {
		return fmt.Errorf("%s: a fused chain needs float32", op)
	}
	gp := g
	if outDT.IsFloat() {
		return conv2dPlain[float64](&gp, out, x, w)
	}
	return conv2dPlain[int64](&gp, out, x, w)
}

// subsample writes the input positions a 1x1 convolution g without padding
// reads, (oy*sh, ox*sw) for each output position, plane by plane into dst
// (n x c x oh x ow). Column stride 2 (ResNet's shortcuts) takes each row's
// even positions with the deinterleaving kernel (its odd ones go to a
// scratch), an odd width's last position after it: 64 -> 128 1x1/2 on 56²
// spent a fifth of its time in the element-by-element copy.
func subsample(dst, x []float32, g *conv2dGeom) {
	planes, hw, ohw := g.n*g.c, g.h*g.w, g.oh*g.ow
	if pairs := min(g.ow, g.w/2); g.sw == 2 && pairs > 0 {
		ob := getScratch(planes * ohw)
		defer putScratch(ob)
		asm.Deinterleave2RowsBatchF32(dst, *ob, g.ow, ohw, x, g.sh*g.w, hw, g.oh, pairs, planes)
		if pairs < g.ow {
			for p := 0; p < planes; p++ {
				for oy := 0; oy < g.oh; oy++ {
					dst[p*ohw+oy*g.ow+g.ow-1] = x[p*hw+oy*g.sh*g.w+(g.ow-1)*2]
				}
			}
		}
		return
	}
	for p := 0; p < planes; p++ {
		src, d := x[p*hw:(p+1)*hw], dst[p*ohw:(p+1)*ohw]
		for oy := 0; oy < g.oh; oy++ {
			row, drow := src[oy*g.sh*g.w:], d[oy*g.ow:(oy+1)*g.ow]
			if g.sw == 1 {
				copy(drow, row)
				continue
			}
			for ox := range drow {
				drow[ox] = row[ox*g.sw]
			}
		}
	}
}

// conv2dF32 is the float32 convolution, followed by chain (nil for none)
// on each output plane (row o of chain for channel o); plan is
// planConvIndirect's choice for a group.
func conv2dF32(g *conv2dGeom, out, x, w []float32, packs []*packedA, dwnc []float32, chain *rowChain, plan convPlan) error {
	cg, og := g.c/g.g, g.o/g.g
	if cg == 1 {
		conv2dDepthwiseF32(g, out, x, w, chain, dwnc)
		return nil
	}
	kk := cg * g.kh * g.kw // GEMM depth
	pix := g.oh * g.ow
	pointwise := g.pointwise()
	for n := 0; n < g.n; n++ {
		for gi := 0; gi < g.g; gi++ {
			xg := x[(n*g.c+gi*cg)*g.h*g.w : (n*g.c+(gi+1)*cg)*g.h*g.w]
			wg := w[gi*og*kk : (gi+1)*og*kk]
			og0 := out[(n*g.o+gi*og)*pix : (n*g.o+(gi+1)*og)*pix]
			var pa *packedA
			if packs != nil {
				pa = packs[gi] // the weights packed once (a registered constant)
			}
			if plan.indirect {
				// The chain runs inside, on each block of planes just computed.
				convIndirectF32(g, xg, wg, og0, og, pa, plan.wide, chain, gi*og)
				continue
			}
			switch {
			case pointwise && pa == nil:
				if err := Sgemm(false, false, og, pix, kk, 1, wg, kk, xg, pix, 0, og0, pix); err != nil {
					return fmt.Errorf("conv2d: %w", err)
				}
				if chain != nil {
					chainPlanes(chain, og0, pix, og, gi*og)
				}
			case pointwise:
				src := gemmB{b: xg, ldb: pix}
				sgemmChain(og, pix, kk, wg, kk, &src, og0, pix, pa, chain, gi*og)
			default:
				src := gemmB{b: xg, conv: true, geom: *g}
				sgemmChain(og, pix, kk, wg, kk, &src, og0, pix, pa, chain, gi*og)
			}
		}
	}
	return nil
}

// chainAfter runs chain on every output plane of g's out, image by image
// (a residual's rows are one image's planes): for a convolution computed
// without it, on a path that cannot take it.
func chainAfter(chain *rowChain, g *conv2dGeom, out []float32) {
	res, pix := chain.res, g.oh*g.ow
	for n := 0; n < g.n; n++ {
		if res != nil {
			chain.res = res[n*g.o*pix:]
		}
		chainPlanes(chain, out[n*g.o*pix:(n+1)*g.o*pix], pix, g.o, 0)
	}
	chain.res = res
}

// chainJob runs a convolution's chain on output planes, over the workers.
type chainJob struct {
	chain     *rowChain
	out       []float32
	pix, row0 int
	fn        func(lo, hi int)
}

var chainJobPool = freelist.List[*chainJob]{New: func() *chainJob {
	j := new(chainJob)
	j.fn = j.planes
	return j
}}

// planes runs the chain on planes [lo, hi).
func (j *chainJob) planes(lo, hi int) {
	for i := lo; i < hi; i++ {
		j.chain.apply(j.out[i*j.pix:(i+1)*j.pix], j.row0+i)
	}
}

// chainParallelMin is the output size (floats) from which a convolution's
// chain after its product is split over the workers: below it a second
// thread's start costs more than the pass.
const chainParallelMin = 1 << 14

// chainPlanes runs chain on the n planes of pix values at out (chain rows
// row0...), over the workers when there are several and enough work.
func chainPlanes(chain *rowChain, out []float32, pix, n, row0 int) {
	j := chainJobPool.Get()
	j.chain, j.out, j.pix, j.row0 = chain, out, pix, row0
	if NumThreads() > 1 && n > 1 && n*pix >= chainParallelMin {
		ParallelFor(n, max(1, chainParallelMin/(4*pix)), j.fn)
	} else {
		j.planes(0, n)
	}
	j.chain, j.out = nil, nil
	chainJobPool.Put(j)
}

// convPackB is the implicit-GEMM B packer of one image group xg (cg
// channels): the virtual B has rows (c, i, j) and columns = output pixels,
// B[(c*kh+i)*kw+j][(oy, ox)] = xg[c][oy*sh-pt+i*dh][ox*sw-pl+j*dw] (0 outside).
func convPackB(g *conv2dGeom, xg []float32, p0, kc, j0, cols, nr int, dst []float32) {
	if cols < nr {
		clear(dst[:kc*nr])
	}
	var ihb, iwb [64]int
	for q := 0; q < cols; q++ {
		p := j0 + q
		ihb[q] = p/g.ow*g.sh - g.pt
		iwb[q] = p%g.ow*g.sw - g.pl
	}
	hw := g.h * g.w
	// Runs of consecutive columns in one output row (stride 1: a
	// contiguous input segment).
	var runs [64][2]int
	nrun := 0
	for q := 0; q < cols; {
		l := min(cols-q, g.ow-(j0+q)%g.ow)
		runs[nrun] = [2]int{q, l}
		nrun++
		q += l
	}
	for p := 0; p < kc; p++ {
		r := p0 + p
		c, i, j := r/(g.kh*g.kw), r/g.kw%g.kh, r%g.kw
		xc := xg[c*hw : (c+1)*hw]
		di, dj := i*g.dh, j*g.dw
		d := dst[p*nr : p*nr+cols]
		if g.sw == 1 {
			for _, run := range runs[:nrun] {
				q, l := run[0], run[1]
				seg := d[q : q+l]
				ih := ihb[q] + di
				if uint(ih) >= uint(g.h) {
					clear(seg)
					continue
				}
				xr := xc[ih*g.w : (ih+1)*g.w]
				iw := iwb[q] + dj
				lo, hi := max(0, -iw), min(l, g.w-iw)
				if hi <= lo {
					clear(seg)
					continue
				}
				clear(seg[:lo])
				copy(seg[lo:hi], xr[iw+lo:iw+hi])
				clear(seg[hi:])
			}
			continue
		}
		for q := range d {
			ih, iw := ihb[q]+di, iwb[q]+dj
			if uint(ih) < uint(g.h) && uint(iw) < uint(g.w) {
				d[q] = xc[ih*g.w+iw]
			} else {
				d[q] = 0
			}
		}
	}
}

// conv2dDepthwiseF32 handles C/groups == 1 (depthwise, any channel
// multiplier) with direct loops, parallel over output planes:
// out[n][o][y][x] = sum over (i, j) in order of x[n][o/og][y*sh-pt+i*dh][x*sw-pl+j*dw] * w[o][0][i][j].
//
// With finite weights each plane is copied into a zero-padded scratch plane,
// split by stride phase (for strides s > 1, the s*s sub-images of rows and
// columns congruent mod s), so that every tap reads the scratch at one
// constant offset from the output index and the whole plane is one
// asm.TapSumF32 call. The padding's zero products change nothing: a sum
// starting at +0 is never -0, and adding ±0 to it leaves it unchanged. A
// non-finite weight would turn padding into NaN (0*Inf), so such weights take
// the row loops, which skip the padding.
func conv2dDepthwiseF32(g *conv2dGeom, out, x, w []float32, chain *rowChain, wnc []float32) {
	j := convDWPool.Get()
	j.g, j.out, j.x, j.w, j.chain = *g, out, x, w, chain
	work := g.oh * g.ow * g.kh * g.kw
	fn, count, grain := j.fn, g.n*g.o, max(1, 4096/max(1, work))
	nc := dwNCUse(g) && chain.inKernelPass(g.oh*g.ow)
	var pl *asm.DWPlanar
	if nc {
		pl = dwPlanarPick(g)
	}
	switch {
	case pl != nil && (wnc != nil || allFinite(w)):
		j.planar = pl
		fn, grain = j.planarFn, max(1, 4096/max(1, g.oh*g.ow*9))
	case nc && (wnc != nil || allFinite(w)): // wnc: a constant's blocked weights, known finite
		count = j.planNC(wnc)
		fn, grain = j.ncFn, max(1, 4096/max(1, j.nc.band*g.ow*g.kh*g.kw*j.nc.lanes))
	case !nc && allFinite(w):
		j.plan()
		fn = j.tapFn
	}
	ParallelFor(count, grain, fn)
	j.out, j.x, j.w, j.chain, j.nc.w, j.planar = nil, nil, nil, nil, nil, nil
	convDWPool.Put(j)
}

func allFinite(w []float32) bool {
	for _, v := range w {
		if v-v != 0 { // NaN or ±Inf
			return false
		}
	}
	return true
}

// convDWJob is one depthwise convolution; pooled, with fn bound once, so a
// call allocates nothing.
type convDWJob struct {
	g         conv2dGeom
	out, x, w []float32
	chain     *rowChain // applied to each output plane when not nil
	fn        func(lo, hi int)
	tapFn     func(lo, hi int)
	ncFn      func(lo, hi int)
	planarFn  func(lo, hi int)
	planar    *asm.DWPlanar // the planar path's plan (dwPlanarPlan)
	ph        phasePlane    // the phase-split scratch geometry (plan)
	nc        dwNCPlan      // the channel-blocked path's (planNC)
}

// dwScratch is a worker's scratch: the padded plane p, last loaded with
// geometry geom and padding fill (geom is zero when p holds no padding),
// and the flat output f.
type dwScratch struct {
	p, f []float32
	geom phaseGeom
	fill uint32 // the padding's bits
	// The channel-blocked path's padded plane np (its zero border made for
	// ncKey) and output q.
	np, q []float32
	ncKey dwNCKey
}

// dwScratches keeps the depthwise convolution's and the max pooling's
// worker scratch (dwScratch) across calls and garbage collections: a
// channel block's padded plane of a 112x112 layer is a quarter megabyte to
// make and clear again (MobileNetV2 allocated 11.8 KB a call on average
// with them in a sync.Pool, 5.0 KB kept; relaxgo bench, B/op). Each keeps
// the largest planes it has held.
var dwScratches = freelist.List[*dwScratch]{New: func() *dwScratch { return new(dwScratch) }, Max: 8}

// plan computes the scratch geometry of j.g.
func (j *convDWJob) plan() {
	g := &j.g
	j.ph.plan(g.h, g.w, g.pt, g.pl, g.h+g.pt+g.pb, g.w+g.pl+g.pr, g.sh, g.sw, g.kh, g.kw, g.dh, g.dw, g.oh)
}

// tapPlanes computes output planes [lo, hi): each the sum of its taps over
// the padded plane's flat run (asm.TapSumF32), its valid columns then
// copied out through the chain (planeFrom); or, with the chain fused into
// the sums' pass (asm.TapSumChainF32), only copied out.
func (j *convDWJob) tapPlanes(lo, hi int) {
	g, out, x, w := &j.g, j.out, j.x, j.w
	sc := dwScratches.Get()
	if cap(sc.p) < j.ph.plen {
		sc.p = make([]float32, j.ph.plen)
		sc.geom = phaseGeom{} // a new plane: no padding yet
	}
	if cap(sc.f) < j.ph.n {
		sc.f = make([]float32, j.ph.n)
	}
	p, f := sc.p[:j.ph.plen], sc.f[:j.ph.n]
	og := g.o / g.g
	// The chain goes into the sums' pass unless a plane ends in a
	// one-element chunk, whose bits apply's differ from. BenchmarkConv2DChain,
	// 1 thread, MobileNetV2's depthwise layers: 576x14² 92 → 82 µs, 960x7²
	// 89 → 72. Writing the sums straight into the output rows instead was
	// slower from rows of 28 (a row's last partial vector done again, a
	// block loop per row): 192x28² 71 → 106 µs.
	fused := j.chain.inKernelPass(g.oh * g.ow)
	loaded := -1 // the (n, c) plane in p
	for plane := lo; plane < hi; plane++ {
		n, o := plane/g.o, plane%g.o
		c := o / og
		if src := n*g.c + c; src != loaded {
			j.ph.loadReuse(sc, p, x[src*g.h*g.w:(src+1)*g.h*g.w], 0)
			loaded = src
		}
		wo, dst := w[o*g.kh*g.kw:(o+1)*g.kh*g.kw], out[plane*g.oh*g.ow:(plane+1)*g.oh*g.ow]
		if !fused {
			asm.TapSumF32(f, p, j.ph.offs, wo)
			j.chain.planeFrom(dst, f, j.ph.wq, g.oh, g.ow, plane%g.o)
			continue
		}
		codes, scalars := j.chain.scalars(plane % g.o)
		asm.TapSumChainF32(f, p, j.ph.offs, wo, codes, scalars)
		copyRows(dst, g.ow, f, j.ph.wq, g.oh, g.ow)
	}
	dwScratches.Put(sc)
}

// phasePlane is the geometry of a zero- (or otherwise) padded input plane
// split by stride phase, which makes every tap of a strided window one
// constant offset from the output index: padded element (r, c) goes to
// sub-image (r%sh, c%sw) at (r/sh, c/sw). Output (y, x) is then element
// y*wq+x of a flat run of n values (oh rows of wq, rounded up to a whole
// vector), and tap (i, k) reads the plane at that index plus offs[i*kw+k].
type phasePlane struct {
	phaseGeom
	// The flat output length n.
	n    int
	offs []int
}

// phaseGeom is what decides which positions of a phase-split plane hold
// input data (loadData writes those and no others).
type phaseGeom struct {
	h, w, pt, pl, sh, sw int
	// Sub-image width wq and size sub, and the scratch plane length.
	wq, sub, plen int
}

// plan computes the geometry for an h x w input padded to hp x wp (pt rows
// above, pl columns left), strides sh, sw, a kh x kw window dilated by dh,
// dw, and oh output rows.
func (q *phasePlane) plan(h, w, pt, pl, hp, wp, sh, sw, kh, kw, dh, dw, oh int) {
	q.h, q.w, q.pt, q.pl, q.sh, q.sw = h, w, pt, pl, sh, sw
	hq, wq := (hp+sh-1)/sh, (wp+sw-1)/sw
	q.wq, q.sub = wq, hq*wq
	q.n = (oh*wq + 15) &^ 15
	q.offs = q.offs[:0]
	maxOff := 0
	for i := 0; i < kh; i++ {
		for k := 0; k < kw; k++ {
			ri, rk := i*dh, k*dw
			o := ((ri%sh)*sw+rk%sw)*q.sub + (ri/sh)*wq + rk/sw
			q.offs = append(q.offs, o)
			maxOff = max(maxOff, o)
		}
	}
	q.plen = max(sh*sw*q.sub, maxOff+q.n)
}

// load writes the input plane xc into p (q.plen values), padding with fill.
func (q *phasePlane) load(p, xc []float32, fill float32) {
	if fill == 0 {
		clear(p)
	} else {
		fillF32(p, fill)
	}
	q.loadData(p, xc)
}

// fillF32 sets every element of p to v, by doubling copies (a few memmoves
// rather than a store per element).
func fillF32(p []float32, v float32) {
	if len(p) == 0 {
		return
	}
	p[0] = v
	for k := 1; k < len(p); k *= 2 {
		copy(p[k:], p[:k])
	}
}

// loadReuse is load into sc's plane p: the padding is written only when p
// was last loaded with another geometry or fill (loads write only the data
// positions, so the padding of the last one is still in place).
func (q *phasePlane) loadReuse(sc *dwScratch, p, xc []float32, fill float32) {
	if sc.geom != q.phaseGeom || sc.fill != math.Float32bits(fill) {
		q.load(p, xc, fill)
		sc.geom, sc.fill = q.phaseGeom, math.Float32bits(fill)
		return
	}
	q.loadData(p, xc)
}

// loadData writes the input plane xc into its positions of p, and nothing
// else of p.
func (q *phasePlane) loadData(p, xc []float32) {
	if q.sw == 2 {
		phaseSplit2(p, 0, q.sub, q.wq, xc, 0, 1, q.h, q.w, q.pt, q.pl, q.sh)
		return
	}
	if q.sh == 1 && q.sw == 1 {
		// One sub-image: row r at (r+pt)*wq+pl, in one call.
		copyRows(p[q.pt*q.wq+q.pl:], q.wq, xc, q.w, q.h, q.w)
		return
	}
	for r := 0; r < q.h; r++ {
		pr := r + q.pt
		row := xc[r*q.w : (r+1)*q.w]
		if q.sw == 1 {
			o := (pr%q.sh)*q.sub + (pr/q.sh)*q.wq + q.pl
			copy(p[o:o+q.w], row)
			continue
		}
		base := (pr%q.sh)*q.sw*q.sub + (pr/q.sh)*q.wq
		w, sw, pl := q.w, q.sw, q.pl
		for ph := 0; ph < sw; ph++ {
			// Input columns c with (c+pl) % sw == ph, at (c+pl)/sw.
			c := (ph - pl%sw + sw) % sw
			if c >= w {
				continue
			}
			src := row[c:]
			d := p[base+ph*q.sub+(c+pl)/sw:]
			d = d[:(len(src)+sw-1)/sw]
			for k := range d {
				d[k] = src[k*sw]
			}
		}
	}
}

var convDWPool = freelist.List[*convDWJob]{New: func() *convDWJob {
	j := new(convDWJob)
	j.fn = j.planes
	j.tapFn = j.tapPlanes
	j.ncFn = j.ncBlocks
	j.planarFn = j.planarPlanes
	return j
}}

// planes computes output planes [lo, hi).
func (dw *convDWJob) planes(lo, hi int) {
	g, out, x, w := &dw.g, dw.out, dw.x, dw.w
	og := g.o / g.g
	for plane := lo; plane < hi; plane++ {
		n, o := plane/g.o, plane%g.o
		c := o / og
		xc := x[(n*g.c+c)*g.h*g.w : (n*g.c+c+1)*g.h*g.w]
		wo := w[o*g.kh*g.kw : (o+1)*g.kh*g.kw]
		dst := out[plane*g.oh*g.ow : (plane+1)*g.oh*g.ow]
		clear(dst)
		for y := 0; y < g.oh; y++ {
			row := dst[y*g.ow : (y+1)*g.ow]
			for i := 0; i < g.kh; i++ {
				ih := y*g.sh - g.pt + i*g.dh
				if ih < 0 || ih >= g.h {
					continue
				}
				xr := xc[ih*g.w : (ih+1)*g.w]
				for j := 0; j < g.kw; j++ {
					wv := wo[i*g.kw+j]
					off := j*g.dw - g.pl
					// valid ox: 0 <= ox*sw+off < w
					lo := 0
					if off < 0 {
						lo = (-off + g.sw - 1) / g.sw
					}
					hi := g.ow
					if lim := (g.w - 1 - off); lim < 0 {
						hi = 0
					} else {
						hi = min(hi, lim/g.sw+1)
					}
					if hi <= lo {
						continue
					}
					if g.sw == 1 {
						// The product rounded, then added, as below.
						asm.MulAddScalarF32(row[lo:hi], xr[lo+off:hi+off], wv)
					} else {
						for ox := lo; ox < hi; ox++ {
							row[ox] += float32(xr[ox*g.sw+off] * wv)
						}
					}
				}
			}
		}
		dw.chain.apply(dst, o)
	}
}

// conv2dPlain is the reference direct convolution, accumulating in T.
func conv2dPlain[T int64 | float64](g *conv2dGeom, out, x, w *runtime.Tensor) error {
	rx, err := laReader[T](x)
	if err != nil {
		return fmt.Errorf("conv2d: %w", err)
	}
	rw, err := laReader[T](w)
	if err != nil {
		return fmt.Errorf("conv2d: %w", err)
	}
	wr, err := laWriter[T](out)
	if err != nil {
		return fmt.Errorf("conv2d: %w", err)
	}
	cg, og := g.c/g.g, g.o/g.g
	ParallelFor(g.n*g.o, 1, func(lo, hi int) {
		for plane := lo; plane < hi; plane++ {
			n, o := plane/g.o, plane%g.o
			gi := o / og
			for y := 0; y < g.oh; y++ {
				for xo := 0; xo < g.ow; xo++ {
					var s T
					for c := 0; c < cg; c++ {
						for i := 0; i < g.kh; i++ {
							ih := y*g.sh - g.pt + i*g.dh
							if ih < 0 || ih >= g.h {
								continue
							}
							for j := 0; j < g.kw; j++ {
								iw := xo*g.sw - g.pl + j*g.dw
								if iw < 0 || iw >= g.w {
									continue
								}
								s += rx(((n*g.c+gi*cg+c)*g.h+ih)*g.w+iw) * rw(((o*cg+c)*g.kh+i)*g.kw+j)
							}
						}
					}
					wr((plane*g.oh+y)*g.ow+xo, s)
				}
			}
		}
	})
	return nil
}

// Conv1D computes the NCW/OIW 1-D convolution of x (N, C, W) with
// w (O, C/groups, KW) into out (N, O, OW), as Conv2D with a unit height.
func Conv1D(out, x, w *runtime.Tensor, attrs Conv1DAttrs) error {
	a := Conv2DTransposeAttrs{Strides: attrs.Strides, Padding: attrs.Padding, Dilation: attrs.Dilation, Groups: attrs.Groups,
		DataLayout: attrs.DataLayout, KernelLayout: attrs.KernelLayout, OutLayout: attrs.OutLayout, OutDType: attrs.OutDType}
	return conv1dAs2D("conv1d", "OIW", out, x, w, a, false, func(o4, x4, w4 *runtime.Tensor, a2 Conv2DTransposeAttrs) error {
		return Conv2D(o4, x4, w4, Conv2DAttrs{Strides: a2.Strides, Padding: a2.Padding, Dilation: a2.Dilation, Groups: a2.Groups, OutDType: a2.OutDType})
	})
}

// conv1dAs2D runs a 1-D (transposed) convolution as the 2-D one over
// height-1 views: it checks the NCW/kernelLayout/NCW layouts and 3-D shapes,
// turns each 1-D attribute (one stride, dilation and output padding; padding
// left[, right]) into its 2-D form with a unit height, and calls run on
// (N, C, 1, W) views of out, x and w.
func conv1dAs2D(op, kernelLayout string, out, x, w *runtime.Tensor, attrs Conv2DTransposeAttrs, transposed bool,
	run func(o4, x4, w4 *runtime.Tensor, a2 Conv2DTransposeAttrs) error) error {
	if out == nil || x == nil || w == nil {
		return fmt.Errorf("%s: nil tensor", op)
	}
	if err := convLayout(op, "data_layout", attrs.DataLayout, "NCW"); err != nil {
		return err
	}
	if err := convLayout(op, "kernel_layout", attrs.KernelLayout, kernelLayout); err != nil {
		return err
	}
	if err := convLayout(op, "out_layout", attrs.OutLayout, "NCW"); err != nil {
		return err
	}
	xs, ws, os := x.Shape(), w.Shape(), out.Shape()
	if len(xs) != 3 || len(ws) != 3 || len(os) != 3 {
		return fmt.Errorf("%s: data, weight and output must be 3-D, got %v, %v and %v", op, runtime.Shape(xs), runtime.Shape(ws), runtime.Shape(os))
	}
	if len(attrs.Strides) > 1 || len(attrs.Dilation) > 1 || len(attrs.OutputPadding) > 1 || len(attrs.Padding) > 2 {
		if transposed {
			return fmt.Errorf("%s: strides, dilation and output_padding need 1 value and padding 1 or 2 (got %v, %v, %v, %v)",
				op, attrs.Strides, attrs.Dilation, attrs.OutputPadding, attrs.Padding)
		}
		return fmt.Errorf("%s: strides/dilation need 1 value and padding 1 or 2 (got %v, %v, %v)", op, attrs.Strides, attrs.Dilation, attrs.Padding)
	}
	u := unitViews.Get()
	defer u.release()
	a2 := Conv2DTransposeAttrs{Strides: unitPair(&u.strides, 1, attrs.Strides, 1), Dilation: unitPair(&u.dilation, 1, attrs.Dilation, 1),
		Padding: u.padding(attrs.Padding), OutputPadding: unitPair(&u.outPad, 0, attrs.OutputPadding, 0), Groups: attrs.Groups, OutDType: attrs.OutDType}
	x4, err1 := view4(&u.x, x, &u.xs, xs[0], xs[1], 1, xs[2])
	w4, err2 := weightView(&u.w, w, &u.ws)
	o4, err3 := view4(&u.out, out, &u.os, os[0], os[1], 1, os[2])
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	if err := run(o4, x4, w4, a2); err != nil {
		return fmt.Errorf("%s (as 2-D): %w", op, err)
	}
	return nil
}

// Conv2DTranspose computes the NCHW/IOHW transposed 2-D convolution
// (gradient of Conv2D with respect to its input) of x (N, Cin, H, W) with
// w (Cin, O/groups, KH, KW) into out (N, O, OH, OW), where
// OH = (H-1)*sh - pt - pb + dh*(KH-1) + output_padding_h + 1 (likewise OW).
// float32 runs as Sgemm + col2im; other dtypes use plain loops.
func Conv2DTranspose(out, x, w *runtime.Tensor, attrs Conv2DTransposeAttrs) error {
	const op = "conv2d_transpose"
	g, outDT, err := convOperands(op, out, x, w, [3]string{attrs.DataLayout, attrs.KernelLayout, attrs.OutLayout}, "IOHW",
		attrs.OutDType, attrs.Strides, attrs.Dilation, attrs.Padding)
	if err != nil {
		return err
	}
	xs, ws := x.Shape(), w.Shape()
	g.g = int(max(attrs.Groups, 1))
	g.o = int(ws[1]) * g.g
	oph, opw, err := convPair(op, "output_padding", attrs.OutputPadding, 0)
	if err != nil {
		return err
	}
	if g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1 || g.pt < 0 || g.pl < 0 || g.pb < 0 || g.pr < 0 || oph < 0 || opw < 0 {
		return fmt.Errorf("%s: strides and dilation must be >= 1, padding and output_padding >= 0", op)
	}
	if oph >= max(g.sh, g.dh) || opw >= max(g.sw, g.dw) {
		return fmt.Errorf("%s: output_padding %v must be smaller than the strides or the dilation", op, attrs.OutputPadding)
	}
	if int(ws[0]) != g.c || g.c%g.g != 0 {
		return fmt.Errorf("%s: data %v, weight %v and groups=%d are inconsistent (need weight dim 0 == C, C %% groups == 0)",
			op, runtime.Shape(xs), runtime.Shape(ws), g.g)
	}
	if !extent.ConvDimOK(int64(g.h), int64(g.kh), int64(g.sh), int64(g.dh), int64(g.pt), int64(g.pb), int64(oph)) ||
		!extent.ConvDimOK(int64(g.w), int64(g.kw), int64(g.sw), int64(g.dw), int64(g.pl), int64(g.pr), int64(opw)) {
		return fmt.Errorf("%s: sizes overflow (input %v, weight %v, strides %v, padding %v, dilation %v)",
			op, runtime.Shape(xs), runtime.Shape(ws), attrs.Strides, attrs.Padding, attrs.Dilation)
	}
	g.oh = (g.h-1)*g.sh - g.pt - g.pb + g.dh*(g.kh-1) + oph + 1
	g.ow = (g.w-1)*g.sw - g.pl - g.pr + g.dw*(g.kw-1) + opw + 1
	if g.h == 0 || g.w == 0 {
		g.oh, g.ow = max(g.oh, 0), max(g.ow, 0)
	}
	if g.oh < 0 || g.ow < 0 {
		return fmt.Errorf("%s: padding exceeds the output size", op)
	}
	if err := checkOut(op, out, []int64{int64(g.n), int64(g.o), int64(g.oh), int64(g.ow)}, outDT); err != nil {
		return err
	}
	if out.NumElements() == 0 {
		return nil
	}
	if x.DType() == runtime.Float32 && outDT == runtime.Float32 {
		return conv2dTransposeF32(&g, out.Float32s(), x.Float32s(), w.Float32s())
	}
	// The plain loops capture their geometry; a copy keeps g on the stack
	// for the float32 path.
	gp := g
	if outDT.IsFloat() {
		return conv2dTransposePlain[float64](&gp, out, x, w)
	}
	return conv2dTransposePlain[int64](&gp, out, x, w)
}

func conv2dTransposeF32(g *conv2dGeom, out, x, w []float32) error {
	cg, og := g.c/g.g, g.o/g.g
	rows := og * g.kh * g.kw
	pin := g.h * g.w
	opix := g.oh * g.ow
	clear(out)
	if pin == 0 || cg == 0 {
		return nil
	}
	buf := gemmGetBBuf(rows * pin)
	defer gemmPutBBuf(buf)
	col := *buf
	j := col2imPool.Get()
	j.g = *g
	defer j.release()
	for n := 0; n < g.n; n++ {
		for gi := 0; gi < g.g; gi++ {
			xg := x[(n*g.c+gi*cg)*pin : (n*g.c+(gi+1)*cg)*pin]
			wg := w[gi*cg*rows : (gi+1)*cg*rows]
			// col[(o,i,j)][p] = sum_c w[c][o][i][j] * x[c][p]
			if err := Sgemm(true, false, rows, pin, cg, 1, wg, rows, xg, pin, 0, col, pin); err != nil {
				return fmt.Errorf("conv2d_transpose: %w", err)
			}
			j.dst, j.col = out[(n*g.o+gi*og)*opix:(n*g.o+(gi+1)*og)*opix], col
			ParallelFor(og, 1, j.fn)
		}
	}
	return nil
}

// col2imJob adds a transposed convolution's column rows into its output
// planes: item o is output channel o of the group. Pooled, fn bound once
// (a closure handed to ParallelFor allocated at every call).
type col2imJob struct {
	g        conv2dGeom
	dst, col []float32
	fn       func(lo, hi int)
}

var col2imPool = freelist.List[*col2imJob]{New: func() *col2imJob {
	j := new(col2imJob)
	j.fn = j.planes
	return j
}}

// release drops the job's slices and pools it.
func (j *col2imJob) release() {
	j.dst, j.col = nil, nil
	col2imPool.Put(j)
}

// planes adds the columns of output channels [lo, hi): col's row
// (o, i, j) holds the products for tap (i, j), scattered to the output
// positions the tap reaches.
func (j *col2imJob) planes(lo, hi int) {
	g, dst, col := &j.g, j.dst, j.col
	pin, opix := g.h*g.w, g.oh*g.ow
	for o := lo; o < hi; o++ {
		plane := dst[o*opix : (o+1)*opix]
		for i := 0; i < g.kh; i++ {
			for jj := 0; jj < g.kw; jj++ {
				src := col[((o*g.kh+i)*g.kw+jj)*pin : ((o*g.kh+i)*g.kw+jj+1)*pin]
				for ih := 0; ih < g.h; ih++ {
					y := ih*g.sh - g.pt + i*g.dh
					if y < 0 || y >= g.oh {
						continue
					}
					srow := src[ih*g.w : (ih+1)*g.w]
					orow := plane[y*g.ow : (y+1)*g.ow]
					xo := -g.pl + jj*g.dw
					for _, v := range srow {
						if xo >= 0 && xo < g.ow {
							orow[xo] += v
						}
						xo += g.sw
					}
				}
			}
		}
	}
}

// conv2dTransposePlain is the reference transposed convolution:
// out[n][g*og+o][ih*sh-pt+i*dh][iw*sw-pl+j*dw] += x[n][g*cg+c][ih][iw] * w[g*cg+c][o][i][j].
func conv2dTransposePlain[T int64 | float64](g *conv2dGeom, out, x, w *runtime.Tensor) error {
	rx, err := laReader[T](x)
	if err != nil {
		return fmt.Errorf("conv2d_transpose: %w", err)
	}
	rw, err := laReader[T](w)
	if err != nil {
		return fmt.Errorf("conv2d_transpose: %w", err)
	}
	wr, err := laWriter[T](out)
	if err != nil {
		return fmt.Errorf("conv2d_transpose: %w", err)
	}
	cg, og := g.c/g.g, g.o/g.g
	ParallelFor(g.n*g.o, 1, func(lo, hi int) {
		acc := make([]T, g.oh*g.ow)
		for plane := lo; plane < hi; plane++ {
			n, oc := plane/g.o, plane%g.o
			gi, o := oc/og, oc%og
			clear(acc)
			for c := 0; c < cg; c++ {
				ci := gi*cg + c
				for ih := 0; ih < g.h; ih++ {
					for iw := 0; iw < g.w; iw++ {
						xv := rx(((n*g.c+ci)*g.h+ih)*g.w + iw)
						for i := 0; i < g.kh; i++ {
							y := ih*g.sh - g.pt + i*g.dh
							if y < 0 || y >= g.oh {
								continue
							}
							for j := 0; j < g.kw; j++ {
								xo := iw*g.sw - g.pl + j*g.dw
								if xo < 0 || xo >= g.ow {
									continue
								}
								acc[y*g.ow+xo] += xv * rw(((ci*og+o)*g.kh+i)*g.kw+j)
							}
						}
					}
				}
			}
			for i, v := range acc {
				wr(plane*g.oh*g.ow+i, v)
			}
		}
	})
	return nil
}

// convPackedAttrs decodes strides, padding, [output_padding,] dilation,
// groups, data_layout, kernel_layout, out_layout, out_dtype starting at args[2].
func convPackedAttrs(op string, args []runtime.Value, withOutPad bool) (strides, padding, outPad, dilation []int64, groups int64, dl, kl, ol string, dt runtime.DataType, err error) {
	i := 2
	if strides, err = laInts(op, args, i); err != nil {
		return
	}
	i++
	if padding, err = laInts(op, args, i); err != nil {
		return
	}
	i++
	if withOutPad {
		if outPad, err = laInts(op, args, i); err != nil {
			return
		}
		i++
	}
	if dilation, err = laInts(op, args, i); err != nil {
		return
	}
	i++
	if groups, err = laInt(op, args, i); err != nil {
		return
	}
	i++
	if dl, err = laString(op, args, i); err != nil {
		return
	}
	i++
	if kl, err = laString(op, args, i); err != nil {
		return
	}
	i++
	if ol, err = laString(op, args, i); err != nil {
		return
	}
	i++
	dt, err = laDType(op, args, i)
	return
}

// packedConv is the packed function of a convolution named op. Arguments:
// (data, weight Tensor, strides, padding, [output_padding (transposed
// only),] dilation Shape, groups int64, data_layout, kernel_layout,
// out_layout string, out_dtype DataType|string|None, out Tensor); it
// returns (nil, nil). run gets the attributes in their transposed form
// (OutputPadding nil for the others).
func packedConv(op string, transposed bool, run func(out, x, w *runtime.Tensor, a Conv2DTransposeAttrs) error) runtime.PackedFunc {
	n := 11
	if transposed {
		n = 12
	}
	return func(args []runtime.Value) (runtime.Value, error) {
		x, w, out, err := convTensors(op, args, n)
		if err != nil {
			return nil, err
		}
		s, p, op2, d, g, dl, kl, ol, dt, err := convPackedAttrs(op, args, transposed)
		if err != nil {
			return nil, err
		}
		return nil, run(out, x, w, Conv2DTransposeAttrs{s, p, op2, d, g, dl, kl, ol, dt})
	}
}

// conv2d drops the output padding.
func (a Conv2DTransposeAttrs) conv2d() Conv2DAttrs {
	return Conv2DAttrs{a.Strides, a.Padding, a.Dilation, a.Groups, a.DataLayout, a.KernelLayout, a.OutLayout, a.OutDType}
}

func convTensors(op string, args []runtime.Value, n int) (x, w, out *runtime.Tensor, err error) {
	if err = laCount(op, args, n); err != nil {
		return
	}
	if x, err = laTensor(op, args, 0); err != nil {
		return
	}
	if w, err = laTensor(op, args, 1); err != nil {
		return
	}
	out, err = laTensor(op, args, n-1)
	return
}

// convOperands checks what 2-D convolutions and transposed convolutions
// share: the tensors present, data and out layouts NCHW and the weight's
// kernelLayout (layouts: data, kernel, out), the dtypes (convDTypes), 4-D
// data and weight; and returns the geometry's data sizes, kernel size
// (the weight's last two dimensions), strides, dilation and padding, with
// the output dtype. The caller sets the output channels and groups.
func convOperands(op string, out, x, w *runtime.Tensor, layouts [3]string, kernelLayout string, outDType runtime.DataType,
	strides, dilation, padding []int64) (conv2dGeom, runtime.DataType, error) {
	var g conv2dGeom
	if out == nil || x == nil || w == nil {
		return g, runtime.DataType{}, fmt.Errorf("%s: nil tensor", op)
	}
	for i, l := range []struct{ name, want string }{{"data_layout", "NCHW"}, {"kernel_layout", kernelLayout}, {"out_layout", "NCHW"}} {
		if err := convLayout(op, l.name, layouts[i], l.want); err != nil {
			return g, runtime.DataType{}, err
		}
	}
	outDT, err := convDTypes(op, x, w, outDType)
	if err != nil {
		return g, runtime.DataType{}, err
	}
	xs, ws := x.Shape(), w.Shape()
	if len(xs) != 4 || len(ws) != 4 {
		return g, runtime.DataType{}, fmt.Errorf("%s: data and weight must be 4-D, got %v and %v", op, runtime.Shape(xs), runtime.Shape(ws))
	}
	g.n, g.c, g.h, g.w = int(xs[0]), int(xs[1]), int(xs[2]), int(xs[3])
	g.kh, g.kw = int(ws[2]), int(ws[3])
	if g.sh, g.sw, err = convPair(op, "strides", strides, 1); err != nil {
		return g, runtime.DataType{}, err
	}
	if g.dh, g.dw, err = convPair(op, "dilation", dilation, 1); err != nil {
		return g, runtime.DataType{}, err
	}
	p, err := convPad4(op, padding)
	if err != nil {
		return g, runtime.DataType{}, err
	}
	g.pt, g.pl, g.pb, g.pr = p[0], p[1], p[2], p[3]
	return g, outDT, nil
}
