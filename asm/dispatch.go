package asm

import (
	"fmt"
	"math"
	"unsafe"
)

type op int

const (
	opAdd op = iota
	opSub
	opMul
	opDiv
	opRSub
	opRDiv
	opRelu
	opExp
	opTanh
	opErf
	opSigmoid
	opMax
	opMin
	opMAdd
	opGelu
	opLeakyRelu
	opSilu
	opXSigmoid
	numOps
)

var opNames = [numOps]string{"Add", "Sub", "Mul", "Div", "RSub", "RDiv", "Relu", "Exp", "Tanh", "Erf", "Sigmoid", "Max", "Min", "MulAdd", "Gelu", "LeakyRelu", "Silu", "XSigmoid"}

// String names the operation as in the exported wrappers (AddF32: "Add").
func (o op) String() string {
	if o >= 0 && o < numOps {
		return opNames[o]
	}
	return "op?"
}

// Dispatch. The assembly kernels are called directly from a switch on the
// active level (asmBinary and friends in dispatch_amd64.go), never through
// function values: the kernels are marked //go:noescape, so with static calls
// the compiler can prove that no pointer argument escapes, and callers may
// pass stack buffers (reduction accumulators, GEMM edge tiles, scratch
// chunks) without a heap allocation per call. The twins are likewise called
// through switches. An asm* function is only called when level != LevelGo;
// it processes n elements, a multiple of vecWidth, and the Go wrappers below
// hand the remainder to the twins.
var (
	gemmMR = 4
	gemmNR = 16
	// gemmSmallMR x gemmSmallNR is the tile for products with few rows.
	gemmSmallMR = 4
	gemmSmallNR = 16
)

// vecWidth is the element step of the elementwise asm* functions at both
// SIMD levels: at AVX-512 they run the 16-wide kernels on the multiple of 16
// and the AVX2 kernel on a last 8 (see avx512Part).
const vecWidth = 8

func resetKernels() {
	gemmMR, gemmNR = 4, 16
	gemmSmallMR, gemmSmallNR = 4, 16
}

func binaryGo(o op, dst, x, y []float32) {
	switch o {
	case opAdd:
		addGo(dst, x, y)
	case opSub:
		subGo(dst, x, y)
	case opMul:
		mulGo(dst, x, y)
	case opDiv:
		divGo(dst, x, y)
	case opMax:
		maxGo(dst, x, y)
	case opMin:
		minGo(dst, x, y)
	default:
		panic("asm: bad binary op")
	}
}

func scalarOpGo(o op, dst, x []float32, s float32) {
	switch o {
	case opAdd:
		addScalarGo(dst, x, s)
	case opSub:
		subScalarGo(dst, x, s)
	case opRSub:
		rsubScalarGo(dst, x, s)
	case opMul:
		mulScalarGo(dst, x, s)
	case opDiv:
		divScalarGo(dst, x, s)
	case opRDiv:
		rdivScalarGo(dst, x, s)
	case opMax:
		maxScalarGo(dst, x, s)
	case opMin:
		minScalarGo(dst, x, s)
	case opMAdd:
		maddScalarGo(dst, x, s)
	case opLeakyRelu:
		leakyReluGo(dst, x, s)
	default:
		panic("asm: bad scalar op")
	}
}

func unaryOpGo(o op, dst, x []float32) {
	switch o {
	case opRelu:
		reluGo(dst, x)
	case opExp:
		expGo(dst, x)
	case opTanh:
		tanhGo(dst, x)
	case opErf:
		erfGo(dst, x)
	case opSigmoid:
		sigmoidGo(dst, x)
	case opGelu:
		geluGo(dst, x)
	case opSilu:
		siluGo(dst, x)
	case opXSigmoid:
		xSigmoidGo(dst, x)
	default:
		panic("asm: bad unary op")
	}
}

// shortInput panics for an input shorter than dst. The wrappers check len
// explicitly: a slice expression x[:n] checks cap(x), not len(x), and would
// let the kernels read elements past len(x).
func shortInput(fn, name string, have, need int) {
	panic(fmt.Sprintf("asm: %sF32: %s has %d elements, need at least %d", fn, name, have, need))
}

func binary(o op, dst, x, y []float32) {
	n := len(dst)
	if len(x) < n {
		shortInput(o.String(), "x", len(x), n)
	}
	if len(y) < n {
		shortInput(o.String(), "y", len(y), n)
	}
	x, y = x[:n], y[:n]
	if level != LevelGo && n >= vecWidth {
		m := n - n%vecWidth
		asmBinary(o, &dst[0], &x[0], &y[0], m)
		dst, x, y = dst[m:], x[m:], y[m:]
	}
	binaryGo(o, dst, x, y)
}

func scalar(o op, dst, x []float32, s float32) {
	n := len(dst)
	if len(x) < n {
		shortInput(o.String()+"Scalar", "x", len(x), n)
	}
	x = x[:n]
	if level != LevelGo && n >= vecWidth {
		m := n - n%vecWidth
		asmScalar(o, &dst[0], &x[0], s, m)
		dst, x = dst[m:], x[m:]
	}
	scalarOpGo(o, dst, x, s)
}

// unary runs the unary op o (relu, or a transcendental one: exp, tanh,
// erf, sigmoid, GELU, SiLU) on x into dst.
func unary(o op, dst, x []float32) {
	n := len(dst)
	if len(x) < n {
		shortInput(o.String(), "x", len(x), n)
	}
	x = x[:n]
	if level != LevelGo && n >= vecWidth {
		m := n - n%vecWidth
		asmUnary(o, &dst[0], &x[0], m)
		dst, x = dst[m:], x[m:]
	}
	if level != LevelGo && len(dst) > 1 && o != opRelu {
		// A transcendental's last few elements go through one vector of
		// the kernel, padded, instead of the twin, whose FMA32s make it
		// about 29 ns an element: SigmoidF32 of 7 elements 202 ns by the
		// twin, 31 padded (one element: 25 and 31). The lanes compute the
		// twin's bits.
		var buf [vecWidth]float32
		copy(buf[:], x)
		asmUnary(o, &buf[0], &buf[0], vecWidth)
		copy(dst, buf[:len(dst)])
		return
	}
	unaryOpGo(o, dst, x)
}

// sumCombine64 folds the 64 partial sums pairwise: for w := 32; w >= 1;
// w /= 2 { acc[i] += acc[i+w] for i < w }.
func sumCombine64(acc *[64]float32) float32 {
	for w := 32; w >= 1; w /= 2 {
		lo, hi := acc[:w:w], acc[w:2*w:2*w]
		for i := range lo {
			lo[i] += hi[i]
		}
	}
	return acc[0]
}

// combine64 is sumCombine64, in registers where there is assembly
// (asmCombine64: the same pairs in the same order).
func combine64(acc *[64]float32) float32 {
	if level != LevelGo {
		return asmCombine64(acc)
	}
	return sumCombine64(acc)
}

// maxCombine64 folds the 64 partial maxima in sumCombine64's order with
// acc[i] = acc[i+w] if acc[i+w] > acc[i].
func maxCombine64(acc *[64]float32) float32 {
	for w := 32; w >= 1; w /= 2 {
		lo, hi := acc[:w:w], acc[w:2*w:2*w]
		for i := range lo {
			if hi[i] > lo[i] {
				lo[i] = hi[i]
			}
		}
	}
	return acc[0]
}

func reduceSum(x []float32) float32 {
	var acc [64]float32
	nblk := len(x) / 64
	if nblk > 0 {
		if level != LevelGo {
			asmSumBlocks(&x[0], nblk, &acc)
		} else {
			sumBlocksGo(x, nblk, &acc)
		}
	}
	for i := nblk * 64; i < len(x); i++ {
		acc[i%64] += x[i]
	}
	return combine64(&acc)
}

func dot(x, y []float32) float32 {
	var acc [64]float32
	nblk := len(x) / 64
	if nblk > 0 {
		if level != LevelGo {
			asmDotBlocks(&x[0], &y[0], nblk, &acc)
		} else {
			dotBlocksGo(x, y, nblk, &acc)
		}
	}
	for i := nblk * 64; i < len(x); i++ {
		acc[i%64] += float32(x[i] * y[i])
	}
	return combine64(&acc)
}

func reduceMax(x []float32) float32 {
	var acc [64]float32
	ninf := float32(math.Inf(-1))
	for i := range acc {
		acc[i] = ninf
	}
	nblk := len(x) / 64
	nan := false
	if nblk > 0 {
		if level != LevelGo {
			nan = asmMaxBlocks(&x[0], nblk, &acc) != 0
		} else {
			nan = maxBlocksGo(x, nblk, &acc)
		}
	}
	for i := nblk * 64; i < len(x); i++ {
		v := x[i]
		if v != v {
			nan = true
		}
		if v > acc[i%64] {
			acc[i%64] = v
		}
	}
	if nan {
		return float32(math.NaN())
	}
	return maxCombine64(&acc)
}

// SgemmTile reports the register tile (mr rows by nr columns) of the active
// SGEMM micro-kernel: 14x32 with AVX-512, 6x16 with AVX2+FMA, 4x16 in Go.
func SgemmTile() (mr, nr int) { return gemmMR, gemmNR }

// SgemmTileSmall reports the register tile of the micro-kernel for products
// with few rows (small batches), where SgemmTile's tall tile would mostly
// compute padding: 4x32 with AVX-512; elsewhere the same as SgemmTile.
func SgemmTileSmall() (mr, nr int) { return gemmSmallMR, gemmSmallNR }

// SgemmKernelSmall is SgemmKernel for the SgemmTileSmall tile.
func SgemmKernelSmall(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	mr, nr := gemmSmallMR, gemmSmallNR
	if kc < 0 || ldc < nr || !productOK(kc, mr, len(a)) || !productOK(kc, nr, len(b)) || !extentOK(mr, nr, ldc, len(c)) {
		return fmt.Errorf("asm: SgemmKernelSmall: kc=%d ldc=%d tile %dx%d: buffers too short (a %d, b %d, c %d)",
			kc, ldc, mr, nr, len(a), len(b), len(c))
	}
	SgemmKernelSmallUnchecked(kc, unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)),
		unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta)
	return nil
}

// SgemmKernelSmallUnchecked is SgemmKernelUnchecked for the SgemmTileSmall tile.
func SgemmKernelSmallUnchecked(kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32) {
	if level != LevelGo {
		asmSgemmKernelSmall(kc, (*float32)(a), (*float32)(b), (*float32)(c), ldc, alpha, beta)
		return
	}
	mr, nr := gemmSmallMR, gemmSmallNR
	sgemmKernelGo(mr, nr, kc, unsafe.Slice((*float32)(a), kc*mr), unsafe.Slice((*float32)(b), kc*nr),
		unsafe.Slice((*float32)(c), (mr-1)*ldc+nr), ldc, alpha, beta)
}

// SgemmKernel is the SGEMM micro-kernel on one full mr x nr tile
// (mr, nr = SgemmTile()). a is a packed A panel (kc steps of mr values:
// a[p*mr+i] = A[i][p]), b a packed B panel (b[p*nr+j] = B[p][j]), c the tile's
// top-left element in a row-major matrix with row stride ldc. It computes
//
//	for i < mr, j < nr: acc = sum over p < kc of a[p*mr+i]*b[p*nr+j]
//	c[i*ldc+j] = alpha*acc + beta*c[i*ldc+j]   (c is not read when beta == 0)
//
// It returns an error when a slice is too short for the tile, including
// when kc or ldc is so large that the extent kc*mr or (mr-1)*ldc+nr
// overflows int (the checks never wrap around).
func SgemmKernel(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	if err := sgemmKernelCheck("SgemmKernel", kc, a, b, c, ldc); err != nil {
		return err
	}
	SgemmKernelUnchecked(kc, unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)),
		unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta)
	return nil
}

// SgemmKernelNext is SgemmKernel that also prefetches the packed B panel
// after b's (SgemmKernelNextUnchecked); that panel need not exist
// (prefetches do not fault).
func SgemmKernelNext(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	if err := sgemmKernelCheck("SgemmKernelNext", kc, a, b, c, ldc); err != nil {
		return err
	}
	SgemmKernelNextUnchecked(kc, unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)),
		unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta)
	return nil
}

// sgemmKernelCheck is SgemmKernel's bounds check, for the kernel name.
func sgemmKernelCheck(name string, kc int, a, b, c []float32, ldc int) error {
	mr, nr := gemmMR, gemmNR
	if kc < 0 || ldc < nr || !productOK(kc, mr, len(a)) || !productOK(kc, nr, len(b)) || !extentOK(mr, nr, ldc, len(c)) {
		return fmt.Errorf("asm: %s: kc=%d ldc=%d tile %dx%d: buffers too short (a %d, b %d, c %d)",
			name, kc, ldc, mr, nr, len(a), len(b), len(c))
	}
	return nil
}

// SgemmKernelUnchecked is SgemmKernel without bounds checks, for the GEMM
// driver's inner loop: a must hold kc*mr floats, b kc*nr, and c
// (mr-1)*ldc+nr floats from the given pointers.
func SgemmKernelUnchecked(kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32) {
	if level != LevelGo {
		asmSgemmKernel(kc, (*float32)(a), (*float32)(b), (*float32)(c), ldc, alpha, beta)
		return
	}
	mr, nr := gemmMR, gemmNR
	sgemmKernelGo(mr, nr, kc, unsafe.Slice((*float32)(a), kc*mr), unsafe.Slice((*float32)(b), kc*nr),
		unsafe.Slice((*float32)(c), (mr-1)*ldc+nr), ldc, alpha, beta)
}

// SgemmKernelNextUnchecked is SgemmKernelUnchecked that, at AVX2 and
// AVX-512, also prefetches the packed B panel after b's (kc*nr floats on),
// the B bytes of a depth step a step; the product's driver runs it on each
// panel's first row tile, so that the next panel of a weight not in cache
// arrives while this one's other row tiles compute. The arithmetic, and so
// every bit, is SgemmKernelUnchecked's; at the Go level it is that kernel.
func SgemmKernelNextUnchecked(kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32) {
	if level == LevelAVX2 || level == LevelAVX512 {
		asmSgemmKernelNext(kc, (*float32)(a), (*float32)(b), (*float32)(c), ldc, alpha, beta)
		return
	}
	SgemmKernelUnchecked(kc, a, b, c, ldc, alpha, beta)
}

// SgemmKernelMidNextUnchecked is SgemmKernelMidUnchecked prefetching the
// next B panel as SgemmKernelNextUnchecked does (the same bits).
func SgemmKernelMidNextUnchecked(kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32) {
	asmSgemmKernelMidNext(kc, (*float32)(a), (*float32)(b), (*float32)(c), ldc, alpha, beta)
}

// SgemmKernelWideNextUnchecked is SgemmKernelWideUnchecked prefetching the
// next B panel as SgemmKernelNextUnchecked does (the same bits).
func SgemmKernelWideNextUnchecked(kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32) {
	asmSgemmKernelWideNext(kc, (*float32)(a), (*float32)(b), (*float32)(c), ldc, alpha, beta)
}

// SgemmHalfWidth reports the width of the half-width tile for mr rows:
// 16 columns with AVX-512 for the 14-row tile and the 8-row (middle and
// wide) ones, 8 in Go for its 4-row tile; ok false for other mr and at
// AVX2. A product whose last column panel holds at most that many columns
// computes it on the half tile instead of padding a full one: SqueezeNet's
// classifier, 169 columns, computes 176 instead of 192. In L1, depth 128
// (BenchmarkSgemmKernelL1, AVX-512 EPYC): 14x16 303 ns a call against
// 14x32's 436, 8x16 203 against 8x32's 249; a 4x16 tile (170 against
// 4x32's 143) and AVX2's 6x8 (182 against 6x16's 182) would gain nothing,
// their few accumulators waiting on the FMA latency, and are not built.
func SgemmHalfWidth(mr int) (nr int, ok bool) {
	switch {
	case level == LevelAVX512 && (mr == 14 || mr == 8):
		return 16, true
	case level == LevelGo && mr == gemmMR:
		return 8, true
	}
	return 0, false
}

// SgemmKernelHalf is SgemmKernel on the mr x SgemmHalfWidth(mr) tile: a
// holds kc steps of mr values, b kc steps of the half width. It returns an
// error when the level has no such tile or a slice is too short.
func SgemmKernelHalf(mr, kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	return tileCall("SgemmKernelHalf", fmt.Sprintf("%d-row half-width", mr), func() (int, int, bool) {
		nr, ok := SgemmHalfWidth(mr)
		return mr, nr, ok
	}, func(kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32) {
		SgemmKernelHalfUnchecked(mr, kc, a, b, c, ldc, alpha, beta)
	}, kc, a, b, c, ldc, alpha, beta)
}

// SgemmKernelHalfUnchecked is SgemmKernelHalf without checks: the level
// must have the tile (SgemmHalfWidth(mr)), a must hold kc*mr floats, b
// kc*nr and c (mr-1)*ldc+nr.
func SgemmKernelHalfUnchecked(mr, kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32) {
	if level != LevelGo {
		asmSgemmKernelHalf(mr, kc, (*float32)(a), (*float32)(b), (*float32)(c), ldc, alpha, beta)
		return
	}
	const nr = 8
	sgemmKernelGo(mr, nr, kc, unsafe.Slice((*float32)(a), kc*mr), unsafe.Slice((*float32)(b), kc*nr),
		unsafe.Slice((*float32)(c), (mr-1)*ldc+nr), ldc, alpha, beta)
}

// SgemmTileWide reports the wide register tile, 8 rows by 48 columns,
// which only the AVX-512 level has (ok false elsewhere). Its 8 rows divide
// the row counts of most networks' products and channel counts (64, 128,
// ...), which SgemmTile's 14-row tile covers 91% of.
func SgemmTileWide() (mr, nr int, ok bool) {
	if level == LevelAVX512 {
		return 8, 48, true
	}
	return 0, 0, false
}

// SgemmKernelWide is SgemmKernel on the SgemmTileWide tile. It returns an
// error when the level has no wide tile or a slice is too short.
func SgemmKernelWide(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	return tileCall("SgemmKernelWide", "wide", SgemmTileWide, SgemmKernelWideUnchecked, kc, a, b, c, ldc, alpha, beta)
}

// tileCall checks a micro-kernel call on the tile that tileOf reports (ok
// false: the level lacks it), kc, ldc and the lengths of a, b and c, then
// runs it through run, the kernel's unchecked entry.
func tileCall(fn, tile string, tileOf func() (int, int, bool), run func(int, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer, int, float32, float32),
	kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	mr, nr, ok := tileOf()
	if !tileOK(ok, mr, nr, kc, ldc, len(c)) || !productOK(kc, mr, len(a)) || !productOK(kc, nr, len(b)) {
		return fmt.Errorf("asm: %s: kc=%d ldc=%d at level %s: no %s tile or buffers too short (a %d, b %d, c %d)",
			fn, kc, ldc, level, tile, len(a), len(b), len(c))
	}
	run(kc, unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta)
	return nil
}

// tileOK reports whether a micro-kernel call on an mr x nr tile that the
// level has (ok) is sound in its depth and its C operand: kc >= 0, ldc >=
// nr, and nc elements holding mr rows of nr, ldc apart. Each kernel checks
// its A and B operands, whose layouts differ, itself.
func tileOK(ok bool, mr, nr, kc, ldc, nc int) bool {
	return ok && kc >= 0 && ldc >= nr && extentOK(mr, nr, ldc, nc)
}

// SgemmKernelRowsOK reports whether the level has SgemmKernelRows for rows
// rows (1 to SgemmTile's rows less one; AVX2 only).
func SgemmKernelRowsOK(rows int) bool {
	return level == LevelAVX2 && rows >= 1 && rows < gemmMR
}

// SgemmKernelRows is SgemmKernel on the first rows rows of its tile: a is
// the tile's A panel (kc*mr floats, SgemmTile's mr rows a step), and only
// C's first rows rows are read and written, each element with the bits
// SgemmKernel gives it. A product's last row tile, when its rows are not a
// multiple of the tile's, runs it straight on C instead of the whole tile
// on a scratch one. It returns an error where SgemmKernelRowsOK is false or
// a slice is too short.
func SgemmKernelRows(rows, kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	mr, nr := gemmMR, gemmNR
	if !SgemmKernelRowsOK(rows) || !tileOK(true, rows, nr, kc, ldc, len(c)) || !productOK(kc, mr, len(a)) || !productOK(kc, nr, len(b)) {
		return fmt.Errorf("asm: SgemmKernelRows: %d rows, kc=%d ldc=%d at level %s: no such kernel or buffers too short (a %d, b %d, c %d)",
			rows, kc, ldc, level, len(a), len(b), len(c))
	}
	SgemmKernelRowsUnchecked(rows, kc, unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)),
		unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta)
	return nil
}

// SgemmKernelRowsUnchecked is SgemmKernelRows without checks:
// SgemmKernelRowsOK(rows) must hold, a must hold kc*mr floats, b kc*nr and
// c (rows-1)*ldc+nr.
func SgemmKernelRowsUnchecked(rows, kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32) {
	asmSgemmKernelRows(rows, kc, (*float32)(a), (*float32)(b), (*float32)(c), ldc, alpha, beta)
}

// SgemmKernelWideUnchecked is SgemmKernelWide without checks: the level
// must have the wide tile, a must hold kc*8 floats, b kc*48 and c 7*ldc+48.
func SgemmKernelWideUnchecked(kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32) {
	asmSgemmKernelWide(kc, (*float32)(a), (*float32)(b), (*float32)(c), ldc, alpha, beta)
}

// SgemmTileMid reports the middle register tile, 8 rows by 32 columns,
// which only the AVX-512 level has (ok false elsewhere): SgemmTile's panel
// width with the wide tile's 8 rows, for products whose rows are a multiple
// of 8 and columns of 32 but not of 48 (a transformer's 128 x 256: no
// padding, where the 14-row tile computes 9% and the wide one 12%). Its B
// panels are SgemmTile's, so B packed for one serves the other.
func SgemmTileMid() (mr, nr int, ok bool) {
	if level == LevelAVX512 {
		return 8, 32, true
	}
	return 0, 0, false
}

// SgemmKernelMid is SgemmKernel on the SgemmTileMid tile. It returns an
// error when the level has no middle tile or a slice is too short.
func SgemmKernelMid(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	return tileCall("SgemmKernelMid", "middle", SgemmTileMid, SgemmKernelMidUnchecked, kc, a, b, c, ldc, alpha, beta)
}

// SgemmKernelMidUnchecked is SgemmKernelMid without checks: the level must
// have the middle tile, a must hold kc*8 floats, b kc*32 and c 7*ldc+32.
func SgemmKernelMidUnchecked(kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32) {
	asmSgemmKernelMid(kc, (*float32)(a), (*float32)(b), (*float32)(c), ldc, alpha, beta)
}

// SgemmTileStrided reports the register tile of SgemmKernelStrided and
// SgemmKernelGather: 7 rows by 32 columns at AVX-512, by 16 at AVX2 (ok
// false at the Go level). 7 divides the 7x7 to 112x112 planes of
// convolution layers, which a 32-wide tile over their 49 or 196 positions
// pads to 64 or 224.
func SgemmTileStrided() (mr, nr int, ok bool) {
	switch level {
	case LevelAVX512:
		return 7, 32, true
	case LevelAVX2:
		return 7, 16, true
	}
	return 0, 0, false
}

// SgemmKernelStrided is SgemmKernel on the SgemmTileStrided tile with A
// read in place: A[i][p] = a[p*lda+i] for i < 7 and p < kc (a pointwise
// convolution's input, channels as the depth and 7 consecutive positions
// as the rows), B a packed panel as SgemmKernel's. Every bit of c is
// SgemmKernel's on the panel A would pack into. It returns an error when
// the level has no such tile or a slice is too short.
func SgemmKernelStrided(kc int, a []float32, lda int, b, c []float32, ldc int, alpha, beta float32) error {
	mr, nr, ok := SgemmTileStrided()
	if !tileOK(ok, mr, nr, kc, ldc, len(c)) || !extentOK(kc, mr, lda, len(a)) || !productOK(kc, nr, len(b)) {
		return fmt.Errorf("asm: SgemmKernelStrided: kc=%d lda=%d ldc=%d at level %s: no such tile or buffers too short (a %d, b %d, c %d)",
			kc, lda, ldc, level, len(a), len(b), len(c))
	}
	SgemmKernelStridedUnchecked(kc, unsafe.Pointer(unsafe.SliceData(a)), lda, unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta, true)
	return nil
}

// SgemmKernelStridedUnchecked is SgemmKernelStrided without checks: the
// level must have the tile, a must hold (kc-1)*lda+7 floats, b kc*nr and c
// 6*ldc+nr. With prefetch the kernel prefetches B 8 KiB ahead of the rows
// it reads (past the panel's end: the next panel's), for a panel's first
// tile, whose weight may come from memory; the tiles after it, which find
// the panel in L1, go without (the prefetches brought the next panel into
// L1 at every tile, evicting the input's lines: MobileNetV2's 96->576 on
// 14² ran 1.4x faster without).
func SgemmKernelStridedUnchecked(kc int, a unsafe.Pointer, lda int, b, c unsafe.Pointer, ldc int, alpha, beta float32, prefetch bool) {
	asmSgemmKernelStrided(prefetch, kc, (*float32)(a), lda, (*float32)(b), (*float32)(c), ldc, alpha, beta)
}

// SgemmKernelGather is SgemmKernel on the SgemmTileStrided tile with A
// gathered through a table of offsets: A[i][p] = a[offs[p]+i*sw] for i < 7,
// p < kc and sw 1 or 2 (an implicit-GEMM convolution with 7 output
// positions of a row as A's rows, read from the padded input at the
// patch's offsets); B a packed panel as SgemmKernel's. Every bit of c is
// SgemmKernel's on the panel A would pack into. It returns an error when
// the level has no such tile, sw is not 1 or 2, an offset is out of range
// or a slice is too short.
func SgemmKernelGather(sw, kc int, a []float32, offs []int, b, c []float32, ldc int, alpha, beta float32) error {
	mr, nr, ok := SgemmTileStrided()
	if !tileOK(ok, mr, nr, kc, ldc, len(c)) || (sw != 1 && sw != 2) || len(offs) < kc || !productOK(kc, nr, len(b)) {
		return fmt.Errorf("asm: SgemmKernelGather: sw=%d kc=%d ldc=%d at level %s: no such tile or buffers too short (a %d, offs %d, b %d, c %d)",
			sw, kc, ldc, level, len(a), len(offs), len(b), len(c))
	}
	op, err := offsetsIn("SgemmKernelGather", offs[:kc], len(a)-((mr-1)*sw+1))
	if err != nil {
		return err
	}
	SgemmKernelGatherUnchecked(sw, kc, unsafe.Pointer(unsafe.SliceData(a)), op, unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta, true)
	return nil
}

// SgemmKernelGatherUnchecked is SgemmKernelGather without checks: the
// level must have the tile, sw must be 1 or 2, offs must hold kc offsets
// each reading 7 values sw apart inside a, b kc*nr floats and c 6*ldc+nr
// (nr SgemmTileStrided's). prefetch is SgemmKernelStridedUnchecked's.
func SgemmKernelGatherUnchecked(sw, kc int, a unsafe.Pointer, offs *int, b, c unsafe.Pointer, ldc int, alpha, beta float32, prefetch bool) {
	asmSgemmKernelGather(prefetch, sw, kc, (*float32)(a), offs, (*float32)(b), (*float32)(c), ldc, alpha, beta)
}

// SgemmTileStrided14 reports the tile of SgemmKernelStrided14 and
// SgemmKernelGather14: two SgemmTileStrided tiles at once, 14 rows by 32
// columns, at AVX-512 (ok false at the other levels). Each B vector loaded
// serves 14 rows instead of 7, halving the panel's reads: a deep layer's
// 256-step block of a 32-column panel is 32 KB, more than stays in L1
// beside the input's lines.
func SgemmTileStrided14() (mr, nr int, ok bool) {
	if level == LevelAVX512 {
		return 14, 32, true
	}
	return 0, 0, false
}

// SgemmKernelStrided14 is SgemmKernelStrided on the SgemmTileStrided14
// tile: A[i][p] = a[p*lda+i] for i < 14. Every bit of c is SgemmKernel's on
// the panel A would pack into. It returns an error when the level has no
// such tile or a slice is too short.
func SgemmKernelStrided14(kc int, a []float32, lda int, b, c []float32, ldc int, alpha, beta float32) error {
	mr, nr, ok := SgemmTileStrided14()
	if !tileOK(ok, mr, nr, kc, ldc, len(c)) || !extentOK(kc, mr, lda, len(a)) || !productOK(kc, nr, len(b)) {
		return fmt.Errorf("asm: SgemmKernelStrided14: kc=%d lda=%d ldc=%d at level %s: no such tile or buffers too short (a %d, b %d, c %d)",
			kc, lda, ldc, level, len(a), len(b), len(c))
	}
	SgemmKernelStrided14Unchecked(kc, unsafe.Pointer(unsafe.SliceData(a)), lda, unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta, true)
	return nil
}

// SgemmKernelStrided14Unchecked is SgemmKernelStrided14 without checks:
// the level must have the tile, a must hold (kc-1)*lda+14 floats, b kc*32
// and c 13*ldc+32. prefetch is SgemmKernelStridedUnchecked's.
func SgemmKernelStrided14Unchecked(kc int, a unsafe.Pointer, lda int, b, c unsafe.Pointer, ldc int, alpha, beta float32, prefetch bool) {
	asmSgemmKernelStrided14(prefetch, kc, (*float32)(a), lda, (*float32)(b), (*float32)(c), ldc, alpha, beta)
}

// SgemmKernelGather14 is SgemmKernelGather on the SgemmTileStrided14 tile,
// its rows two 7-row tiles at two bases: A[i][p] = a[offs[p]+i*sw] for i <
// 7 and a[delta+offs[p]+(i-7)*sw] for 7 <= i < 14 (the next seven output
// positions, delta floats on: further along the row or on another row).
// Every bit of c is SgemmKernel's on the panel A would pack into. It
// returns an error when the level has no such tile, sw is not 1 or 2,
// delta is negative, an offset is out of range or a slice is too short.
func SgemmKernelGather14(sw, kc int, a []float32, delta int, offs []int, b, c []float32, ldc int, alpha, beta float32) error {
	mr, nr, ok := SgemmTileStrided14()
	if !tileOK(ok, mr, nr, kc, ldc, len(c)) || (sw != 1 && sw != 2) || delta < 0 || len(offs) < kc || !productOK(kc, nr, len(b)) {
		return fmt.Errorf("asm: SgemmKernelGather14: sw=%d kc=%d delta=%d ldc=%d at level %s: no such tile or buffers too short (a %d, offs %d, b %d, c %d)",
			sw, kc, delta, ldc, level, len(a), len(offs), len(b), len(c))
	}
	op, err := offsetsIn("SgemmKernelGather14", offs[:kc], len(a)-delta-(6*sw+1))
	if err != nil {
		return err
	}
	SgemmKernelGather14Unchecked(sw, kc, unsafe.Pointer(unsafe.SliceData(a)), delta, op, unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta, true)
	return nil
}

// SgemmKernelGather14Unchecked is SgemmKernelGather14 without checks: the
// level must have the tile, sw must be 1 or 2, offs must hold kc offsets
// each reading 7 values sw apart inside a at both bases, b kc*32 floats
// and c 13*ldc+32. prefetch is SgemmKernelStridedUnchecked's.
func SgemmKernelGather14Unchecked(sw, kc int, a unsafe.Pointer, delta int, offs *int, b, c unsafe.Pointer, ldc int, alpha, beta float32, prefetch bool) {
	asmSgemmKernelGather14(prefetch, sw, kc, (*float32)(a), delta, offs, (*float32)(b), (*float32)(c), ldc, alpha, beta)
}

// codesIn returns an error naming fn when a chain code is unknown.
func codesIn(fn string, codes []uint8) error {
	for t, code := range codes {
		if code >= numChainOps {
			return fmt.Errorf("asm: %s: step %d: unknown code %d", fn, t, code)
		}
	}
	return nil
}

// offsetsIn checks that every offset lies in [0, hi] (the last offset at
// which a kernel's read of one step stays in its operand) and returns the
// pointer the kernels take: &offs[0], or a dummy when offs is empty (kc 0,
// where they read none).
func offsetsIn(fn string, offs []int, hi int) (*int, error) {
	for p, o := range offs {
		if o < 0 || o > hi {
			return nil, fmt.Errorf("asm: %s: offs[%d]=%d: out of range [0, %d]", fn, p, o, hi)
		}
	}
	if len(offs) == 0 {
		return new(int), nil
	}
	return &offs[0], nil
}

// SgemmIndirectTile reports the register tile of SgemmKernelIndirect: the
// SgemmTile tile, or with wide the SgemmTileWide tile.
func SgemmIndirectTile(wide bool) (mr, nr int, ok bool) {
	if !wide {
		return gemmMR, gemmNR, true
	}
	return SgemmTileWide()
}

// SgemmKernelIndirect is SgemmKernel on the SgemmIndirectTile(wide) tile
// with B read in place through a table of row offsets: B[p][j] =
// b[offs[p]+j] for p < kc, j < nr. It is the micro-kernel of an
// implicit-GEMM convolution, whose patch rows are runs of the (padded)
// input at computable offsets, so they need no packing. The arithmetic, and
// so every bit of c, is SgemmKernel's on the panel those rows would pack
// into. At AVX2 each step also prefetches its B row 256 bytes on, where the
// tile four panels later reads it (a prefetch changes no value and, past the
// end of b, reads nothing). It returns an error when the level has no such
// tile, a slice is too short or an offset is out of range.
func SgemmKernelIndirect(wide bool, kc int, a, b []float32, offs []int, c []float32, ldc int, alpha, beta float32) error {
	mr, nr, ok := SgemmIndirectTile(wide)
	if !tileOK(ok, mr, nr, kc, ldc, len(c)) || len(offs) < kc || !productOK(kc, mr, len(a)) {
		return fmt.Errorf("asm: SgemmKernelIndirect: wide=%v kc=%d ldc=%d at level %s: no such tile or buffers too short (a %d, offs %d, c %d)",
			wide, kc, ldc, level, len(a), len(offs), len(c))
	}
	op, err := offsetsIn("SgemmKernelIndirect", offs[:kc], len(b)-nr)
	if err != nil {
		return err
	}
	SgemmKernelIndirectUnchecked(wide, kc, unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)),
		op, unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta)
	return nil
}

// SgemmTileChain reports the register tile of SgemmKernelChain: SgemmTile's
// 6x16 at AVX2 (ok false elsewhere: the AVX-512 convolutions run their
// chains in the indirect and position kernels).
func SgemmTileChain() (mr, nr int, ok bool) {
	if level == LevelAVX2 {
		return gemmMR, gemmNR, true
	}
	return 0, 0, false
}

// SgemmKernelChain is SgemmKernel on the SgemmTileChain tile with a chain
// run on the tile before it is stored, as SgemmKernelIndirectChain runs
// it: after alpha and beta, step t of len(codes) with row i's scalar
// sc[t*mr+i] on every element of row i, each element getting the bits
// ScalarChainF32 would give it on the stored tile. It returns an error when
// the level has no such tile, a slice is too short or a code is unknown.
func SgemmKernelChain(kc int, a, b, c []float32, ldc int, alpha, beta float32, codes []uint8, sc []float32) error {
	if err := sgemmChainCheck("SgemmKernelChain", kc, a, b, c, ldc, codes, sc); err != nil {
		return err
	}
	cp, sp := chainPtrs(codes, sc)
	SgemmKernelChainUnchecked(kc, unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)),
		unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta, cp, sp, len(codes))
	return nil
}

// SgemmKernelChainNext is SgemmKernelChain that also prefetches the packed
// B panel after b's, as SgemmKernelNext does.
func SgemmKernelChainNext(kc int, a, b, c []float32, ldc int, alpha, beta float32, codes []uint8, sc []float32) error {
	if err := sgemmChainCheck("SgemmKernelChainNext", kc, a, b, c, ldc, codes, sc); err != nil {
		return err
	}
	cp, sp := chainPtrs(codes, sc)
	SgemmKernelChainNextUnchecked(kc, unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)),
		unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta, cp, sp, len(codes))
	return nil
}

// sgemmChainCheck is SgemmKernelChain's checks, for the kernel name.
func sgemmChainCheck(name string, kc int, a, b, c []float32, ldc int, codes []uint8, sc []float32) error {
	mr, nr, ok := SgemmTileChain()
	if !tileOK(ok, mr, nr, kc, ldc, len(c)) || !productOK(kc, mr, len(a)) || !productOK(kc, nr, len(b)) || !productOK(len(codes), mr, len(sc)) {
		return fmt.Errorf("asm: %s: kc=%d ldc=%d, %d steps at level %s: no such tile or buffers too short (a %d, b %d, c %d, sc %d)",
			name, kc, ldc, len(codes), level, len(a), len(b), len(c), len(sc))
	}
	return codesIn(name, codes)
}

// SgemmKernelChainUnchecked is SgemmKernelChain without the checks: the
// level must have the tile (codes and sc may be nil when nsteps is 0).
func SgemmKernelChainUnchecked(kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32, codes *uint8, sc *float32, nsteps int) {
	asmSgemmChain(kc, (*float32)(a), (*float32)(b), (*float32)(c), ldc, alpha, beta, codes, sc, nsteps)
}

// SgemmKernelChainNextUnchecked is SgemmKernelChainUnchecked prefetching
// the next B panel as SgemmKernelNextUnchecked does.
func SgemmKernelChainNextUnchecked(kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32, codes *uint8, sc *float32, nsteps int) {
	asmSgemmChainNext(kc, (*float32)(a), (*float32)(b), (*float32)(c), ldc, alpha, beta, codes, sc, nsteps)
}

// SgemmIndirectChainTile reports the tile of SgemmKernelIndirectChain and
// whether it is SgemmIndirectTile(true)'s: the wide tile at AVX-512, the
// main 6x16 one at AVX2 (ok false at the Go level).
func SgemmIndirectChainTile() (mr, nr int, wide, ok bool) {
	switch level {
	case LevelAVX512:
		mr, nr, _ = SgemmTileWide()
		return mr, nr, true, true
	case LevelAVX2:
		return gemmMR, gemmNR, false, true
	}
	return 0, 0, false, false
}

// SgemmKernelIndirectChain is SgemmKernelIndirect on the
// SgemmIndirectChainTile tile with a chain run on the tile before it is
// stored: after alpha and beta, step t of len(codes) (the codes of
// ScalarChainF32) with row i's scalar sc[t*mr+i] on every element of row
// i, so that each element gets the bits ScalarChainF32 would give it on the
// stored tile (a convolution's bias and activation while the tile is in
// registers). It returns an error when the level has no such tile, a slice
// is too short, an offset is out of range or a code is unknown.
func SgemmKernelIndirectChain(kc int, a, b []float32, offs []int, c []float32, ldc int, alpha, beta float32, codes []uint8, sc []float32) error {
	mr, nr, _, ok := SgemmIndirectChainTile()
	if !tileOK(ok, mr, nr, kc, ldc, len(c)) || len(offs) < kc || !productOK(kc, mr, len(a)) || !productOK(len(codes), mr, len(sc)) {
		return fmt.Errorf("asm: SgemmKernelIndirectChain: kc=%d ldc=%d, %d steps at level %s: no such tile or buffers too short (a %d, offs %d, c %d, sc %d)",
			kc, ldc, len(codes), level, len(a), len(offs), len(c), len(sc))
	}
	op, err := offsetsIn("SgemmKernelIndirectChain", offs[:kc], len(b)-nr)
	if err != nil {
		return err
	}
	if err := codesIn("SgemmKernelIndirectChain", codes); err != nil {
		return err
	}
	cp, sp := chainPtrs(codes, sc)
	SgemmKernelIndirectChainUnchecked(kc, unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)),
		op, unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta, cp, sp, len(codes))
	return nil
}

// SgemmKernelIndirectRows is SgemmKernelIndirect on the main tile
// (SgemmIndirectTile(false)) for its first rows rows only, as
// SgemmKernelRows is SgemmKernel's, and with codes not nil
// SgemmKernelIndirectChain's chain on them (sc the whole tile's table, mr
// scalars a step): only C's first rows rows are read and written, each
// element with the bits the whole tile gives it. A convolution's last row
// tile, when its output channels are not a multiple of the tile's rows,
// runs it. It returns an error where SgemmKernelRowsOK(rows) is false, a
// slice is too short, an offset is out of range or a code is unknown.
func SgemmKernelIndirectRows(rows, kc int, a, b []float32, offs []int, c []float32, ldc int, alpha, beta float32, codes []uint8, sc []float32) error {
	mr, nr, _ := SgemmIndirectTile(false)
	if !SgemmKernelRowsOK(rows) || !tileOK(true, rows, nr, kc, ldc, len(c)) || len(offs) < kc || !productOK(kc, mr, len(a)) || !productOK(len(codes), mr, len(sc)) {
		return fmt.Errorf("asm: SgemmKernelIndirectRows: %d rows, kc=%d ldc=%d, %d steps at level %s: no such kernel or buffers too short (a %d, offs %d, c %d, sc %d)",
			rows, kc, ldc, len(codes), level, len(a), len(offs), len(c), len(sc))
	}
	op, err := offsetsIn("SgemmKernelIndirectRows", offs[:kc], len(b)-nr)
	if err != nil {
		return err
	}
	if err := codesIn("SgemmKernelIndirectRows", codes); err != nil {
		return err
	}
	cp, sp := chainPtrs(codes, sc)
	SgemmKernelIndirectRowsUnchecked(rows, kc, unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), op,
		unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta, codes != nil, cp, sp, len(codes))
	return nil
}

// SgemmKernelIndirectRowsUnchecked is SgemmKernelIndirectRows without the
// checks; chain selects the chain kernel (codes and sc may be nil when
// nsteps is 0).
func SgemmKernelIndirectRowsUnchecked(rows, kc int, a, b unsafe.Pointer, offs *int, c unsafe.Pointer, ldc int, alpha, beta float32, chain bool, codes *uint8, sc *float32, nsteps int) {
	asmSgemmIndirectRows(rows, kc, (*float32)(a), (*float32)(b), offs, (*float32)(c), ldc, alpha, beta, chain, codes, sc, nsteps)
}

// SgemmKernelIndirectChainUnchecked is SgemmKernelIndirectChain without the
// checks (codes and sc may be nil when nsteps is 0).
func SgemmKernelIndirectChainUnchecked(kc int, a, b unsafe.Pointer, offs *int, c unsafe.Pointer, ldc int, alpha, beta float32, codes *uint8, sc *float32, nsteps int) {
	if level == LevelAVX512 || level == LevelAVX2 {
		asmSgemmIndirectChain(kc, (*float32)(a), (*float32)(b), offs, (*float32)(c), ldc, alpha, beta, codes, sc, nsteps)
		return
	}
	mr, nr, _ := SgemmIndirectTile(true)
	cs := unsafe.Slice((*float32)(c), (mr-1)*ldc+nr)
	sgemmIndirectGo(mr, nr, kc, unsafe.Slice((*float32)(a), kc*mr), (*float32)(b), unsafe.Slice(offs, kc), cs, ldc, alpha, beta)
	if nsteps > 0 {
		chainTileGo(mr, nr, cs, ldc, unsafe.Slice(codes, nsteps), unsafe.Slice(sc, nsteps*mr))
	}
}

// SgemmIndirectNarrow reports the narrow form of SgemmIndirectTile(wide)'s
// tile for a panel of which only the first cols columns are wanted: its
// width nr (16 or 32, the least that holds cols) and ok, or ok false where
// the level has none narrower than the tile that does (the AVX-512 tiles
// have them; the AVX2 and Go levels none).
func SgemmIndirectNarrow(wide bool, cols int) (nr int, ok bool) {
	if level != LevelAVX512 || cols < 1 {
		return 0, false
	}
	_, full, _ := SgemmIndirectTile(wide)
	for _, w := range [...]int{16, 32} {
		if cols <= w && w < full {
			return w, true
		}
	}
	return 0, false
}

// SgemmKernelIndirectNarrowUnchecked is SgemmKernelIndirectUnchecked, and
// with chain SgemmKernelIndirectChainUnchecked's chain (wide only), on the
// tile's first nr columns: nr must be SgemmIndirectNarrow(wide, cols)'s
// width for some cols, a the tile's kc*mr floats of packed A, every
// b+offs[p] nr floats, and c (mr-1)*ldc+nr. c's columns from nr on are
// neither read nor written; each column computed gets the bits the whole
// tile gives it. A convolution's panel of flat columns that holds no more
// than nr runs it (a last one, or a row's last).
func SgemmKernelIndirectNarrowUnchecked(wide bool, nr, kc int, a, b unsafe.Pointer, offs *int, c unsafe.Pointer, ldc int, alpha, beta float32, chain bool, codes *uint8, sc *float32, nsteps int) {
	if level == LevelAVX512 {
		asmSgemmIndirectNarrow(wide, nr, kc, (*float32)(a), (*float32)(b), offs, (*float32)(c), ldc, alpha, beta, chain, codes, sc, nsteps)
		return
	}
	mr, _, _ := SgemmIndirectTile(wide)
	cs := unsafe.Slice((*float32)(c), (mr-1)*ldc+nr)
	sgemmIndirectGo(mr, nr, kc, unsafe.Slice((*float32)(a), kc*mr), (*float32)(b), unsafe.Slice(offs, kc), cs, ldc, alpha, beta)
	if chain && nsteps > 0 {
		chainTileGo(mr, nr, cs, ldc, unsafe.Slice(codes, nsteps), unsafe.Slice(sc, nsteps*mr))
	}
}

// ScatterPrefetch is the prefetching of SgemmKernelIndirectChainScatterUnchecked.
type ScatterPrefetch uint8

// The scatter kernel's prefetches.
const (
	// ScatterPrefetchNone prefetches nothing.
	ScatterPrefetchNone ScatterPrefetch = iota
	// ScatterPrefetchOut prefetches each row's next panels (768 bytes on)
	// after its stores, and the residual's rows at the same offsets when
	// there is one (ScatterResidual): for an output too large to stay in
	// cache, where its many planes are more store streams than the
	// hardware prefetchers follow.
	ScatterPrefetchOut
	// ScatterPrefetchOutIn is ScatterPrefetchOut and, each depth step,
	// every line of the step's B row four panels (768 bytes) on: for a
	// pointwise convolution's input too large to stay in cache, its
	// planes as many read streams.
	ScatterPrefetchOutIn
)

// ScatterResidual is the residual step of
// SgemmKernelIndirectChainScatterUnchecked: with P not nil, after the
// chain's first At steps (At <= nsteps) every lane the kernel stores gets
// the float32 at the same byte offset from P as its store's from c added
// (a residual connection laid out as the output), the chain value the
// first operand of the add, the residual's when Rev (the operand order
// of the elementwise add, which decides a NaN's bits); then the chain's
// remaining steps run. The zero value is no residual.
type ScatterResidual struct {
	P   unsafe.Pointer
	At  int
	Rev bool
}

// kernelArgs is the residual step as the scattering kernels take it: the
// step it runs after (-1: none) and 1 where the residual is the add's
// first operand.
func (r ScatterResidual) kernelArgs() (at, rev int) {
	if r.P == nil {
		return -1, 0
	}
	if r.Rev {
		return r.At, 1
	}
	return r.At, 0
}

// SgemmKernelIndirectChainScatterUnchecked is
// SgemmKernelIndirectChainUnchecked with beta 0 and the tile stored through
// the table st instead of as rows of 48 at c: for each of a row's three
// 16-lane vectors v, the vector goes to c + st[3v] bytes (row i: plus
// i*ldc elements) under the mask in the low 16 bits of st[3v+2], and to c +
// st[3v+1] bytes under the mask in the next 16 bits; lanes in neither mask
// are not stored. An indirect convolution's tile of flat columns (each
// output row followed by its padding columns) so lands in the output
// directly. Every address a mask selects must lie in c's buffer. prefetch
// picks the prefetches (ScatterPrefetch); the result is the same. res is
// the residual step (ScatterResidual); every address its lanes read must
// lie in its buffer. It runs tiles (at least 1) row tiles with the same B
// rows and table, one after another: tile t's A panel at a + t*kc*mr
// floats, its rows at c (and res.P) + t*mr*ldc floats, its chain scalars
// at sc + t*nsteps*mr (a convolution's row tiles against one panel of
// flat columns, in one call). AVX-512 only (SgemmIndirectTile(true) must
// exist).
func SgemmKernelIndirectChainScatterUnchecked(kc int, a, b unsafe.Pointer, offs *int, c unsafe.Pointer, ldc int, alpha float32, codes *uint8, sc *float32, nsteps int, st *[9]int64, prefetch ScatterPrefetch, res ScatterResidual, tiles int) {
	if level == LevelAVX512 {
		rat, rrev := res.kernelArgs()
		asmSgemmIndirectChainScatter(kc, (*float32)(a), (*float32)(b), offs, (*float32)(c), ldc, alpha, codes, sc, nsteps, &st[0], prefetch, (*float32)(res.P), rat, rrev, tiles)
		return
	}
	sgemmScatterGo(48, kc, a, b, offs, c, ldc, alpha, codes, sc, nsteps, st, res, tiles)
}

// SgemmKernelIndirectChainScatterNarrowUnchecked is
// SgemmKernelIndirectChainScatterUnchecked without prefetches on the wide
// tile's first nr columns, nr SgemmIndirectNarrow(true, cols)'s width:
// st's first nr/16 vectors are read and stored, each lane with the bits
// the whole tile gives it. A convolution's last panel of flat columns,
// when it holds no more, runs it (a prefetch past it has nothing to
// fetch). AVX-512 only, as the whole tile's kernel.
func SgemmKernelIndirectChainScatterNarrowUnchecked(nr, kc int, a, b unsafe.Pointer, offs *int, c unsafe.Pointer, ldc int, alpha float32, codes *uint8, sc *float32, nsteps int, st *[9]int64, res ScatterResidual, tiles int) {
	if level == LevelAVX512 {
		rat, rrev := res.kernelArgs()
		asmSgemmIndirectChainScatterNarrow(nr, kc, (*float32)(a), (*float32)(b), offs, (*float32)(c), ldc, alpha, codes, sc, nsteps, &st[0], (*float32)(res.P), rat, rrev, tiles)
		return
	}
	sgemmScatterGo(nr, kc, a, b, offs, c, ldc, alpha, codes, sc, nsteps, st, res, tiles)
}

// SgemmKernelIndirectUnchecked is SgemmKernelIndirect without checks: the
// tile must exist, a must hold kc*mr floats, offs kc offsets, every
// b+offs[p] nr floats, and c (mr-1)*ldc+nr floats.
func SgemmKernelIndirectUnchecked(wide bool, kc int, a, b unsafe.Pointer, offs *int, c unsafe.Pointer, ldc int, alpha, beta float32) {
	if level != LevelGo {
		asmSgemmIndirect(wide, kc, (*float32)(a), (*float32)(b), offs, (*float32)(c), ldc, alpha, beta)
		return
	}
	mr, nr, _ := SgemmIndirectTile(wide)
	sgemmIndirectGo(mr, nr, kc, unsafe.Slice((*float32)(a), kc*mr), (*float32)(b), unsafe.Slice(offs, kc),
		unsafe.Slice((*float32)(c), (mr-1)*ldc+nr), ldc, alpha, beta)
}

// Small-M kernels reading B in place. SgemmDirectTile reports whether the
// active level has them and the tile width (columns) of the r-row kernel
// (r = 1, 2 or 4): 1x64, 2x32 and 4x24, in Go and as AVX2+FMA kernels, which
// the AVX-512 level uses too (every CPU it runs on has AVX2): streaming B
// they beat packing it for the AVX-512 small tile (an AVX-512 AMD EPYC, 768x768 B, GFLOP/s:
// m=1 26-40 vs 8-10, m=8 85-122 vs 63-67), with the same bits.
func SgemmDirectTile(r int) (nr int, ok bool) {
	switch r {
	case 1:
		return 64, true
	case 2:
		return 32, true
	case 4:
		return 24, true
	}
	return 0, false
}

// SgemmDirect is the small-M micro-kernel on one r x nr tile (nr =
// SgemmDirectTile(r)): a is a packed A panel (a[p*r+i] = A[i][p]), b points
// at B[0][0] of a row-major B with row stride ldb (B[p][j] = b[p*ldb+j]), c at
// the tile's top-left element. It computes what SgemmKernel computes for the
// tile, with the same arithmetic (so the same bits), without packing B.
func SgemmDirect(r, kc int, a, b []float32, ldb int, c []float32, ldc int, alpha, beta float32) error {
	nr, ok := SgemmDirectTile(r)
	if !ok || kc < 0 || ldb < nr || ldc < nr || !productOK(kc, r, len(a)) || !extentOK(kc, nr, ldb, len(b)) || !extentOK(r, nr, ldc, len(c)) {
		return fmt.Errorf("asm: SgemmDirect: r=%d kc=%d ldb=%d ldc=%d at level %s: bad tile or buffers too short (a %d, b %d, c %d)",
			r, kc, ldb, ldc, level, len(a), len(b), len(c))
	}
	SgemmDirectUnchecked(r, kc, unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), ldb,
		unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta, false)
	return nil
}

// SgemmDirectUnchecked is SgemmDirect without checks: r must have a direct
// tile at the active level and the buffers must be long enough. With
// prefetch, a kernel of more than one row also prefetches into L2, each
// depth step, the B row's part for the next tile to its right (its nr
// columns after this tile's), for a B from beyond the L2 read a strip of
// tiles at a time; the results are the same.
func SgemmDirectUnchecked(r, kc int, a, b unsafe.Pointer, ldb int, c unsafe.Pointer, ldc int, alpha, beta float32, prefetch bool) {
	if level != LevelGo {
		asmSgemmDirect(r, kc, (*float32)(a), (*float32)(b), ldb, (*float32)(c), ldc, alpha, beta, prefetch)
		return
	}
	nr, _ := SgemmDirectTile(r)
	var bl int
	if kc > 0 {
		bl = (kc-1)*ldb + nr
	}
	sgemmDirectGo(r, nr, kc, unsafe.Slice((*float32)(a), kc*r), unsafe.Slice((*float32)(b), bl), ldb,
		unsafe.Slice((*float32)(c), (r-1)*ldc+nr), ldc, alpha, beta)
}

// SgemmNarrowWidth is the most columns one SgemmNarrow call computes: a
// vector, 16 with AVX-512 and 8 elsewhere.
func SgemmNarrowWidth() int {
	if level == LevelAVX512 {
		return 16
	}
	return 8
}

// SgemmNarrow computes rows x cols of C = alpha*A*B + beta*C (cols <=
// SgemmNarrowWidth()) with every operand in place: A[i][p] = a[i*lda+p],
// B[p][j] = b[p*ldb+j], C[i][j] = c[i*ldc+j], p < kc. Nothing is packed, so
// for a small product it does none of the work around the arithmetic that
// the blocked kernels need; per element the arithmetic is theirs (FMA
// accumulation from zero in p order, then alpha and beta), so the bits are
// SgemmKernel's. Elements of C past cols are neither read nor written.
func SgemmNarrow(rows, cols, kc int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, alpha, beta float32) error {
	if rows < 0 || kc < 0 || cols < 0 || cols > SgemmNarrowWidth() || !extentOK(rows, kc, lda, len(a)) ||
		!extentOK(kc, cols, ldb, len(b)) || !extentOK(rows, cols, ldc, len(c)) {
		return fmt.Errorf("asm: SgemmNarrow: %dx%d, kc=%d, lda=%d ldb=%d ldc=%d at level %s: bad size or buffers too short (a %d, b %d, c %d)",
			rows, cols, kc, lda, ldb, ldc, level, len(a), len(b), len(c))
	}
	if rows == 0 || cols == 0 {
		return nil
	}
	SgemmNarrowUnchecked(rows, cols, kc, unsafe.Pointer(unsafe.SliceData(a)), lda, unsafe.Pointer(unsafe.SliceData(b)), ldb,
		unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta)
	return nil
}

// SgemmNarrowUnchecked is SgemmNarrow without checks: rows and cols must
// be at least 1, and the buffers long enough.
func SgemmNarrowUnchecked(rows, cols, kc int, a unsafe.Pointer, lda int, b unsafe.Pointer, ldb int, c unsafe.Pointer, ldc int, alpha, beta float32) {
	if level == LevelGo {
		sgemmNarrowGo(rows, cols, kc, unsafe.Slice((*float32)(a), (rows-1)*lda+kc), lda,
			unsafe.Slice((*float32)(b), max(0, (kc-1)*ldb+cols)), ldb, unsafe.Slice((*float32)(c), (rows-1)*ldc+cols), ldc, alpha, beta)
		return
	}
	for {
		r := 8
		for r > rows {
			r /= 2
		}
		asmSgemmNarrow(r, kc, (*float32)(a), lda, (*float32)(b), ldb, (*float32)(c), ldc, cols, alpha, beta)
		if rows -= r; rows == 0 {
			return
		}
		// (Advanced only while rows remain, and A only where it is read
		// (kc > 0; its last row holds kc values): a pointer past the end
		// is invalid to the race detector's pointer checks.)
		if kc > 0 {
			a = unsafe.Add(a, r*lda*4)
		}
		c = unsafe.Add(c, r*ldc*4)
	}
}

// SgemmTileKind names the packed micro-kernels' tiles for
// SgemmKernelEpiUnchecked.
type SgemmTileKind uint8

// The packed tiles: SgemmTile's, SgemmTileMid's and SgemmTileWide's.
const (
	TileMain SgemmTileKind = iota
	TileMid
	TileWide
)

// SgemmEpiOK reports whether SgemmKernelEpiUnchecked runs the epilogue in
// the kernel for tile at the current level (else it runs the kernel and
// then EpilogueRowsF32 on the stored tile: the same bits, more passes).
func SgemmEpiOK(tile SgemmTileKind) bool {
	return level == LevelAVX512 || level == LevelAVX2 && tile == TileMain
}

// SgemmRowAOK reports whether the level has SgemmKernelRowAUnchecked's
// kernels for tile: the 8x32 AVX-512 tile (TileMid) only.
func SgemmRowAOK(tile SgemmTileKind) bool { return level == LevelAVX512 && tile == TileMid }

// SgemmKernelRowAUnchecked is the TileMid micro-kernel (with next its
// next-panel form, with epi SgemmKernelEpiUnchecked's epilogue per flags)
// reading A in place, row-major: A[i][p] = a[i*lda+p] for i < 8, p < kc,
// where the packed kernels read a packed panel (PackAF32's). The
// arithmetic is the packed kernel's, so every element gets its bits; a
// product against a pre-packed B so needs no pass packing A. Nothing is
// checked: SgemmRowAOK(TileMid) must hold, A's 8 rows must hold kc values
// each, and b, c, cb and res must cover the tile.
func SgemmKernelRowAUnchecked(next bool, kc int, a unsafe.Pointer, lda int, b, c unsafe.Pointer, ldc int, alpha, beta float32, epi bool, cb, res unsafe.Pointer, ldr, flags int) {
	if SgemmRowAOK(TileMid) {
		asmSgemmKernelRowA(next, kc, (*float32)(a), lda, (*float32)(b), (*float32)(c), ldc, alpha, beta, epi, (*float32)(cb), (*float32)(res), ldr, flags)
		return
	}
	mr, _, _ := SgemmTileMid()
	pa := make([]float32, max(1, kc*mr))
	if kc > 0 {
		for i := 0; i < mr; i++ {
			row := unsafe.Slice((*float32)(unsafe.Add(a, i*lda*4)), kc)
			for p, v := range row {
				pa[p*mr+i] = v
			}
		}
	}
	if epi {
		SgemmKernelEpiUnchecked(TileMid, next, kc, unsafe.Pointer(&pa[0]), b, c, ldc, alpha, beta, cb, res, ldr, flags)
		return
	}
	SgemmKernelMidUnchecked(kc, unsafe.Pointer(&pa[0]), b, c, ldc, alpha, beta)
}

// SgemmKernelEpiUnchecked is the packed micro-kernel of tile (with next,
// its form that prefetches the next B panel, as SgemmKernelNextUnchecked)
// followed by a product's epilogue on the tile before it is stored: per
// flags (EpilogueRowsF32's, without EpiRowBias), the column bias cb[j]
// (j < the tile's width), the residual res[i*ldr+j] on either side, relu.
// Each step is EpilogueRowsF32's operation, so the bits are those of the
// kernel and then EpilogueRowsF32 on the tile. Nothing is checked: the
// level must have the tile (TileMid and TileWide: AVX-512), and a, b, c, cb
// and res must cover it.
func SgemmKernelEpiUnchecked(tile SgemmTileKind, next bool, kc int, a, b, c unsafe.Pointer, ldc int, alpha, beta float32, cb, res unsafe.Pointer, ldr, flags int) {
	if SgemmEpiOK(tile) {
		asmSgemmKernelEpi(tile, next, kc, (*float32)(a), (*float32)(b), (*float32)(c), ldc, alpha, beta, (*float32)(cb), (*float32)(res), ldr, flags)
		return
	}
	var mr, nr int
	switch tile {
	case TileMid:
		mr, nr, _ = SgemmTileMid()
		SgemmKernelMidUnchecked(kc, a, b, c, ldc, alpha, beta)
	case TileWide:
		mr, nr, _ = SgemmTileWide()
		SgemmKernelWideUnchecked(kc, a, b, c, ldc, alpha, beta)
	default:
		mr, nr = SgemmTile()
		SgemmKernelUnchecked(kc, a, b, c, ldc, alpha, beta)
	}
	var bias, rs []float32
	if flags&EpiColBias != 0 {
		bias = unsafe.Slice((*float32)(cb), nr)
	}
	if flags&EpiRes != 0 {
		rs = unsafe.Slice((*float32)(res), (mr-1)*ldr+nr)
	}
	EpilogueRowsF32(unsafe.Slice((*float32)(c), (mr-1)*ldc+nr), ldc, mr, nr, nil, bias, rs, ldr, flags&^EpiRowBias)
}
