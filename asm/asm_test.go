package asm

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"unsafe"
)

// levels lists every level this CPU and build can run.
func levels() []Level {
	var ls []Level
	for l := LevelGo; l <= detect(); l++ {
		ls = append(ls, l)
	}
	return ls
}

// withLevel runs f at level l, then restores the level before it (the one
// RELAXGO_ISA chose, say; restoring the CPU's highest instead left the rest
// of a RELAXGO_ISA=avx2 run at AVX-512).
func withLevel(t testing.TB, l Level, f func()) {
	prev := level
	install(l)
	defer install(prev)
	f()
}

var testSizes = []int{0, 1, 7, 8, 15, 16, 17, 24, 31, 33, 40, 63, 64, 65, 257, 1000}

const guard = 37

var sentinel = math.Float32frombits(0x7fc0dead)

// guarded returns a slice of n floats inside a buffer with guard floats of
// sentinel on each side, starting at element offset off (to vary alignment).
func guarded(n, off int) (buf, s []float32) {
	buf = make([]float32, n+2*guard+off)
	for i := range buf {
		buf[i] = sentinel
	}
	return buf, buf[guard+off : guard+off+n]
}

// guardedIO is guarded's output with the input to run on it: x, or with
// inPlace a copy of x in the output itself.
func guardedIO(n, off int, x []float32, inPlace bool) (buf, dst, src []float32) {
	buf, dst = guarded(n, off)
	src = x
	if inPlace {
		copy(dst, x)
		src = dst
	}
	return buf, dst, src
}

// seededC returns a guarded C tile of rows rows of nr values, ldc apart
// (n elements in all, off past the guard), holding i-j at (i, j), its copy
// for the twin (want), and a NaN at c[0] when beta is 0 (a kernel must not
// read C then).
func seededC(rows, nr, ldc, off int, beta float32) (buf, c, want []float32, n int) {
	n = (rows-1)*ldc + nr
	buf, c = guarded(n, off)
	want = make([]float32, n)
	for i := 0; i < rows; i++ {
		for j := 0; j < nr; j++ {
			c[i*ldc+j] = float32(i - j)
			want[i*ldc+j] = float32(i - j)
		}
	}
	if beta == 0 {
		c[0] = float32(math.NaN())
	}
	return buf, c, want, n
}

func checkGuards(t *testing.T, what string, buf []float32, n, off int) {
	t.Helper()
	for i := range buf {
		if i >= guard+off && i < guard+off+n {
			continue
		}
		if math.Float32bits(buf[i]) != 0x7fc0dead {
			t.Fatalf("%s: wrote outside the output at buffer index %d (output [%d,%d))", what, i, guard+off, guard+off+n)
		}
	}
}

func specials() []float32 {
	return []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1e-40, -1e-40, 88.7, 88.8, -87.3, -104, -110, 0.625, -0.625, 4, -4, 9, -9, 20}
}

func randInput(r *rand.Rand, n int, scale float32) []float32 {
	x := make([]float32, n)
	sp := specials()
	for i := range x {
		if r.Intn(8) == 0 {
			x[i] = sp[r.Intn(len(sp))]
		} else {
			x[i] = (r.Float32()*2 - 1) * scale
		}
	}
	return x
}

func sameBits(a, b float32) bool {
	if a != a && b != b {
		return true
	}
	return math.Float32bits(a) == math.Float32bits(b)
}

func TestElementwiseMatchesTwin(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	type tc struct {
		name string
		run  func(dst, x, y []float32)
		twin func(dst, x, y []float32)
	}
	var cases []tc
	for _, o := range []struct {
		name string
		f    func(dst, x, y []float32)
		o    op
	}{{"add", AddF32, opAdd}, {"sub", SubF32, opSub}, {"mul", MulF32, opMul}, {"div", DivF32, opDiv},
		{"max", MaxF32, opMax}, {"min", MinF32, opMin}} {
		cases = append(cases, tc{o.name, o.f, func(dst, x, y []float32) { binaryGo(o.o, dst, x, y) }})
	}
	for _, o := range []struct {
		name string
		f    func(dst, x []float32, s float32)
		o    op
	}{{"addScalar", AddScalarF32, opAdd}, {"subScalar", SubScalarF32, opSub}, {"rsubScalar", RSubScalarF32, opRSub},
		{"mulScalar", MulScalarF32, opMul}, {"divScalar", DivScalarF32, opDiv}, {"rdivScalar", RDivScalarF32, opRDiv},
		{"maxScalar", MaxScalarF32, opMax}, {"minScalar", MinScalarF32, opMin}, {"leakyRelu", LeakyReluF32, opLeakyRelu}} {
		o := o
		cases = append(cases, tc{o.name,
			func(dst, x, y []float32) { o.f(dst, x, 1.75) },
			func(dst, x, y []float32) { scalarOpGo(o.o, dst, x, 1.75) }})
	}
	for _, o := range []struct {
		name string
		f    func(dst, x []float32)
		o    op
	}{{"relu", ReluF32, opRelu}, {"exp", ExpF32, opExp}, {"tanh", TanhF32, opTanh}, {"erf", ErfF32, opErf}, {"sigmoid", SigmoidF32, opSigmoid}, {"gelu", GeluF32, opGelu},
		{"silu", SiluF32, opSilu}, {"xSigmoid", XSigmoidF32, opXSigmoid}} {
		o := o
		cases = append(cases, tc{o.name,
			func(dst, x, y []float32) { o.f(dst, x) },
			func(dst, x, y []float32) { unaryOpGo(o.o, dst, x) }})
	}
	for _, l := range levels() {
		for _, c := range cases {
			for _, n := range testSizes {
				for _, off := range []int{0, 3} {
					x := randInput(r, n, 30)
					y := randInput(r, n, 30)
					want := make([]float32, n)
					c.twin(want, x, y)
					buf, dst := guarded(n, off)
					withLevel(t, l, func() { c.run(dst, x, y) })
					what := fmt.Sprintf("%s/%s/n=%d/off=%d", l, c.name, n, off)
					checkGuards(t, what, buf, n, off)
					for i := range want {
						if !sameBits(dst[i], want[i]) {
							t.Fatalf("%s: [%d] x=%v y=%v got %v want %v", what, i, x[i], y[i], dst[i], want[i])
						}
					}
				}
			}
		}
	}
}

func TestInPlace(t *testing.T) {
	x := []float32{-1, 2, -3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}
	ReluF32(x, x)
	if x[0] != 0 || x[16] != 17 {
		t.Fatalf("in-place relu: %v", x)
	}
	AddF32(x, x, x)
	if x[1] != 4 || x[16] != 34 {
		t.Fatalf("in-place add: %v", x)
	}
}

func TestReductionsMatchTwin(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, n := range append(testSizes, 4096+5) {
		x := randInput(r, n, 10)
		y := randInput(r, n, 10)
		// twins: LevelGo result
		var ws, wd, wm float32
		withLevel(t, LevelGo, func() { ws, wd, wm = ReduceSumF32(x), DotF32(x, y), ReduceMaxF32(x) })
		for _, l := range levels() {
			withLevel(t, l, func() {
				if s := ReduceSumF32(x); !sameBits(s, ws) {
					t.Errorf("%s sum n=%d: %v want %v", l, n, s, ws)
				}
				if d := DotF32(x, y); !sameBits(d, wd) {
					t.Errorf("%s dot n=%d: %v want %v", l, n, d, wd)
				}
				if m := ReduceMaxF32(x); !sameBits(m, wm) {
					t.Errorf("%s max n=%d: %v want %v", l, n, m, wm)
				}
			})
		}
		// Finite inputs against float64 references.
		f := randIn(r, n, -1, 1)
		var s64, m64 float64 = 0, math.Inf(-1)
		for _, v := range f {
			s64 += float64(v)
			m64 = math.Max(m64, float64(v))
		}
		if got := ReduceSumF32(f); math.Abs(float64(got)-s64) > 1e-5*float64(n+1) {
			t.Errorf("sum n=%d: %v want %v", n, got, s64)
		}
		if got := ReduceMaxF32(f); float64(got) != m64 {
			t.Errorf("max n=%d: %v want %v", n, got, m64)
		}
	}
	nan := []float32{1, 2, float32(math.NaN())}
	for i := 0; i < 100; i++ {
		nan = append(nan, 1)
	}
	nan[70] = float32(math.NaN())
	if m := ReduceMaxF32(nan); m == m {
		t.Errorf("max with NaN = %v", m)
	}
	if m := ReduceMaxF32(nil); !math.IsInf(float64(m), -1) {
		t.Errorf("max of empty = %v", m)
	}
}

// ulpDiff is |got - want| in units of the float32 ulp at want.
func ulpDiff(got float32, want float64) float64 {
	w := float32(want)
	if got == w {
		return 0
	}
	if math.IsInf(want, 0) || math.IsNaN(float64(got)) {
		return math.Inf(1)
	}
	u := math.Nextafter32(float32(math.Abs(want)), math.MaxFloat32) - float32(math.Abs(want))
	if u == 0 || math.IsInf(float64(u), 0) {
		u = math.Float32frombits(1)
	}
	return math.Abs(float64(got)-want) / float64(u)
}

// TestTranscendentalULP measures each polynomial's max error in ulp on a
// dense sweep against float64 math and checks the documented bound.
func TestTranscendentalULP(t *testing.T) {
	cases := []struct {
		name   string
		f      func(dst, x []float32)
		ref    func(float64) float64
		lo, hi float32
		bound  float64
	}{
		{"exp", ExpF32, math.Exp, -87, 88, 1},
		{"tanh", TanhF32, math.Tanh, -10, 10, 2},
		{"erf", ErfF32, math.Erf, -5, 5, 7},
		{"sigmoid", SigmoidF32, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, -87, 30, 3},
	}
	const n = 1 << 20
	for _, c := range cases {
		x := make([]float32, n)
		for i := range x {
			x[i] = c.lo + (c.hi-c.lo)*float32(i)/n
		}
		// add small magnitudes densely
		for i := 0; i < n/8; i++ {
			x[i] = float32(math.Ldexp(1+float64(i)/float64(n/8), -20+i%20)) * float32(1-2*(i%2))
		}
		dst := make([]float32, n)
		c.f(dst, x)
		worst, at := 0.0, float32(0)
		for i, v := range x {
			if d := ulpDiff(dst[i], c.ref(float64(v))); d > worst {
				worst, at = d, v
			}
		}
		t.Logf("%s: max error %.2f ulp at x=%v over [%v, %v]", c.name, worst, at, c.lo, c.hi)
		if worst > c.bound {
			t.Errorf("%s: max error %.2f ulp at x=%v exceeds the documented %v ulp", c.name, worst, at, c.bound)
		}
	}
	// Specials.
	e := make([]float32, 4)
	ExpF32(e, []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0})
	if !math.IsInf(float64(e[0]), 1) || e[1] != 0 || e[2] == e[2] || e[3] != 1 {
		t.Errorf("exp specials: %v", e)
	}
	TanhF32(e, []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0})
	if e[0] != 1 || e[1] != -1 || e[2] == e[2] || e[3] != 0 {
		t.Errorf("tanh specials: %v", e)
	}
	ErfF32(e, []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0})
	if e[0] != 1 || e[1] != -1 || e[2] == e[2] || e[3] != 0 {
		t.Errorf("erf specials: %v", e)
	}
	SigmoidF32(e, []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0})
	if e[0] != 1 || e[1] != 0 || e[2] == e[2] || e[3] != 0.5 {
		t.Errorf("sigmoid specials: %v", e)
	}
}

// halfTile is the half-width tile for the rows rows() reports (0, 0 where
// the level has none).
func halfTile(rows func() int) func() (int, int) {
	return func() (int, int) {
		mr := rows()
		nr, ok := SgemmHalfWidth(mr)
		if !ok {
			return 0, 0
		}
		return mr, nr
	}
}

// halfKernel is SgemmKernelHalf on the rows rows() reports.
func halfKernel(rows func() int) func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	return func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
		return SgemmKernelHalf(rows(), kc, a, b, c, ldc, alpha, beta)
	}
}

// stridedTile is SgemmTileStrided's tile (0, 0 where the level has none).
func stridedTile() (int, int) { mr, nr, _ := SgemmTileStrided(); return mr, nr }

// stridedEntry runs call, SgemmKernelStrided or its warm form, as a packed
// kernel: the packed panel laid out with row stride 10, three floats of
// padding after each step's 7 values.
func stridedEntry(call func(kc int, a []float32, lda int, b, c []float32, ldc int, alpha, beta float32) error) func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	return stridedEntryOn(SgemmTileStrided, 10, call)
}

// stridedEntryOn runs call, a kernel reading A in place on the tile tile
// reports, as a packed kernel: the panel laid out with row stride lda,
// NaN (which the kernel must not read) after each step's values.
func stridedEntryOn(tile func() (int, int, bool), lda int, call func(kc int, a []float32, lda int, b, c []float32, ldc int, alpha, beta float32) error) func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	return func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
		mr, _, ok := tile()
		if !ok || len(a) < kc*mr {
			return call(kc, a, lda, b, c, ldc, alpha, beta)
		}
		as := make([]float32, max(kc*lda, 1))
		for i := range as {
			as[i] = float32(math.NaN()) // padding the kernel must not read
		}
		for p := 0; p < kc; p++ {
			copy(as[p*lda:p*lda+mr], a[p*mr:(p+1)*mr])
		}
		return call(kc, as[:max(0, (kc-1)*lda+mr)], lda, b, c, ldc, alpha, beta)
	}
}

// gatherEntry runs call, SgemmKernelGather or its warm form, as a packed
// kernel (gatherPanel).
func gatherEntry(call func(sw, kc int, a []float32, offs []int, b, c []float32, ldc int, alpha, beta float32) error) func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	return func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
		const sw = 2
		mr, _, ok := SgemmTileStrided()
		if !ok || len(a) < kc*mr {
			return call(sw, kc, a, make([]int, kc), b, c, ldc, alpha, beta)
		}
		ag, offs, _ := gatherPanel(kc, mr, sw, a)
		return call(sw, kc, ag, offs, b, c, ldc, alpha, beta)
	}
}

// gatherPanel lays the packed panel a (kc steps of mr values, mr a multiple
// of 7) out for a gathering kernel of column stride sw: step p's values in
// groups of seven, sw apart, group g at delta*g + offs[p], the offsets
// shuffled and some shifted by 2, NaN (not to be read) between.
func gatherPanel(kc, mr, sw int, a []float32) (ag []float32, offs []int, delta int) {
	span := 6*sw + 1
	delta = kc*(span+2) + 3
	ag = make([]float32, delta*(mr/7))
	for i := range ag {
		ag[i] = float32(math.NaN())
	}
	offs = make([]int, kc)
	for p, q := range rand.New(rand.NewSource(int64(kc))).Perm(kc) {
		offs[p] = q*(span+2) + 2*(q%2)
	}
	for p := 0; p < kc; p++ {
		for i := 0; i < mr; i++ {
			ag[delta*(i/7)+offs[p]+(i%7)*sw] = a[p*mr+i]
		}
	}
	return ag, offs, delta
}

// stridedWarm is SgemmKernelStrided without the B prefetches: the checked
// call's checks, then the unchecked kernel with prefetch false.
func stridedWarm(kc int, a []float32, lda int, b, c []float32, ldc int, alpha, beta float32) error {
	mr, nr, ok := SgemmTileStrided()
	if !tileOK(ok, mr, nr, kc, ldc, len(c)) || !extentOK(kc, mr, lda, len(a)) || !productOK(kc, nr, len(b)) {
		return SgemmKernelStrided(kc, a, lda, b, c, ldc, alpha, beta)
	}
	SgemmKernelStridedUnchecked(kc, unsafe.Pointer(unsafe.SliceData(a)), lda, unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta, false)
	return nil
}

// gatherWarm is SgemmKernelGather without the B prefetches.
func gatherWarm(sw, kc int, a []float32, offs []int, b, c []float32, ldc int, alpha, beta float32) error {
	mr, nr, ok := SgemmTileStrided()
	if !tileOK(ok, mr, nr, kc, ldc, len(c)) || (sw != 1 && sw != 2) || len(offs) < kc || !productOK(kc, nr, len(b)) {
		return SgemmKernelGather(sw, kc, a, offs, b, c, ldc, alpha, beta)
	}
	op, err := offsetsIn("gatherWarm", offs[:kc], len(a)-((mr-1)*sw+1))
	if err != nil {
		return err
	}
	SgemmKernelGatherUnchecked(sw, kc, unsafe.Pointer(unsafe.SliceData(a)), op, unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta, false)
	return nil
}

// strided14Tile is SgemmTileStrided14's tile (0, 0 where the level has none).
func strided14Tile() (int, int) { mr, nr, _ := SgemmTileStrided14(); return mr, nr }

// strided14Entry runs call, SgemmKernelStrided14 or its warm form, as a
// packed kernel (stridedEntryOn, row stride 17).
func strided14Entry(call func(kc int, a []float32, lda int, b, c []float32, ldc int, alpha, beta float32) error) func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	return stridedEntryOn(SgemmTileStrided14, 17, call)
}

// gather14Entry runs call, SgemmKernelGather14 or its warm form, as a
// packed kernel (gatherPanel: its two groups of seven at two bases).
func gather14Entry(call func(sw, kc int, a []float32, delta int, offs []int, b, c []float32, ldc int, alpha, beta float32) error) func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
	return func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
		const sw = 2
		mr, _, ok := SgemmTileStrided14()
		if !ok || len(a) < kc*mr {
			return call(sw, kc, a, 0, make([]int, kc), b, c, ldc, alpha, beta)
		}
		ag, offs, delta := gatherPanel(kc, mr, sw, a)
		return call(sw, kc, ag, delta, offs, b, c, ldc, alpha, beta)
	}
}

// strided14Warm is SgemmKernelStrided14 without the B prefetches.
func strided14Warm(kc int, a []float32, lda int, b, c []float32, ldc int, alpha, beta float32) error {
	mr, nr, ok := SgemmTileStrided14()
	if !tileOK(ok, mr, nr, kc, ldc, len(c)) || !extentOK(kc, mr, lda, len(a)) || !productOK(kc, nr, len(b)) {
		return SgemmKernelStrided14(kc, a, lda, b, c, ldc, alpha, beta)
	}
	SgemmKernelStrided14Unchecked(kc, unsafe.Pointer(unsafe.SliceData(a)), lda, unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta, false)
	return nil
}

// gather14Warm is SgemmKernelGather14 without the B prefetches.
func gather14Warm(sw, kc int, a []float32, delta int, offs []int, b, c []float32, ldc int, alpha, beta float32) error {
	mr, nr, ok := SgemmTileStrided14()
	if !tileOK(ok, mr, nr, kc, ldc, len(c)) || (sw != 1 && sw != 2) || delta < 0 || len(offs) < kc || !productOK(kc, nr, len(b)) {
		return SgemmKernelGather14(sw, kc, a, delta, offs, b, c, ldc, alpha, beta)
	}
	op, err := offsetsIn("gather14Warm", offs[:kc], len(a)-delta-(6*sw+1))
	if err != nil {
		return err
	}
	SgemmKernelGather14Unchecked(sw, kc, unsafe.Pointer(unsafe.SliceData(a)), delta, op, unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c)), ldc, alpha, beta, false)
	return nil
}

func TestSgemmKernelMatchesTwin(t *testing.T) {
	kernels := []struct {
		name   string
		tile   func() (int, int)
		kernel func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error
	}{
		{"SgemmKernel", SgemmTile, SgemmKernel},
		{"SgemmKernelNext", SgemmTile, SgemmKernelNext},
		{"SgemmKernelSmall", SgemmTileSmall, SgemmKernelSmall},
		{"SgemmKernelWide", func() (int, int) { mr, nr, _ := SgemmTileWide(); return mr, nr }, SgemmKernelWide},
		{"SgemmKernelMid", func() (int, int) { mr, nr, _ := SgemmTileMid(); return mr, nr }, SgemmKernelMid},
		{"SgemmKernelWideNext", func() (int, int) { mr, nr, _ := SgemmTileWide(); return mr, nr }, func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
			return tileCall("SgemmKernelWideNext", "wide", SgemmTileWide, SgemmKernelWideNextUnchecked, kc, a, b, c, ldc, alpha, beta)
		}},
		{"SgemmKernelMidNext", func() (int, int) { mr, nr, _ := SgemmTileMid(); return mr, nr }, func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
			return tileCall("SgemmKernelMidNext", "middle", SgemmTileMid, SgemmKernelMidNextUnchecked, kc, a, b, c, ldc, alpha, beta)
		}},
		{"SgemmKernelHalf/main", halfTile(func() int { mr, _ := SgemmTile(); return mr }), halfKernel(func() int { mr, _ := SgemmTile(); return mr })},
		{"SgemmKernelHalf/mid", halfTile(func() int { mr, _, _ := SgemmTileMid(); return mr }), halfKernel(func() int { mr, _, _ := SgemmTileMid(); return mr })},
		{"SgemmKernelHalf/small", halfTile(func() int { mr, _ := SgemmTileSmall(); return mr }), halfKernel(func() int { mr, _ := SgemmTileSmall(); return mr })},
		// A read in place (stridedEntry), with and without the B prefetches.
		{"SgemmKernelStrided", stridedTile, stridedEntry(SgemmKernelStrided)},
		{"SgemmKernelStrided/warm", stridedTile, stridedEntry(stridedWarm)},
		// A gathered (gatherEntry), with and without the B prefetches.
		{"SgemmKernelGather", stridedTile, gatherEntry(SgemmKernelGather)},
		{"SgemmKernelGather/warm", stridedTile, gatherEntry(gatherWarm)},
		// The 14-row forms: A read in place 14 rows a step, and gathered
		// at two bases (stride14Entry, gather14Entry).
		{"SgemmKernelStrided14", strided14Tile, strided14Entry(SgemmKernelStrided14)},
		{"SgemmKernelStrided14/warm", strided14Tile, strided14Entry(strided14Warm)},
		{"SgemmKernelGather14", strided14Tile, gather14Entry(SgemmKernelGather14)},
		{"SgemmKernelGather14/warm", strided14Tile, gather14Entry(gather14Warm)},
	}
	r := rand.New(rand.NewSource(3))
	for _, l := range levels() {
		for _, k := range kernels {
			withLevel(t, l, func() {
				mr, nr := k.tile()
				if mr == 0 {
					if err := k.kernel(1, make([]float32, 64), make([]float32, 64), make([]float32, 1024), 64, 1, 0); err == nil {
						t.Errorf("%s at %s: accepted without a tile", k.name, l)
					}
					return
				}
				for _, kc := range []int{0, 1, 3, 4, 5, 17, 256} {
					for _, beta := range []float32{0, 1, -0.5} {
						a := randInput(r, kc*mr, 1)
						b := randInput(r, kc*nr, 1)
						for i := range a {
							if a[i] != a[i] || math.IsInf(float64(a[i]), 0) || math.Abs(float64(a[i])) > 2 {
								a[i] = 0.5
							}
						}
						for i := range b {
							if b[i] != b[i] || math.IsInf(float64(b[i]), 0) || math.Abs(float64(b[i])) > 2 {
								b[i] = -0.25
							}
						}
						ldc := nr + 5
						buf, c, want, n := seededC(mr, nr, ldc, 1, beta)
						alpha := alphaFor(kc) // the epilogue's alpha = 1 branch too
						if err := k.kernel(kc, a, b, c, ldc, alpha, beta); err != nil {
							t.Fatal(err)
						}
						sgemmKernelGo(mr, nr, kc, a, b, want, ldc, alpha, beta)
						what := fmt.Sprintf("%s %s %dx%d kc=%d alpha=%v beta=%v", k.name, l, mr, nr, kc, alpha, beta)
						for i := 0; i < mr; i++ {
							for j := ldc * i; j < ldc*i+nr; j++ {
								if !sameBits(c[j], want[j]) {
									t.Fatalf("%s: c[%d] = %v want %v", what, j, c[j], want[j])
								}
							}
							if i < mr-1 {
								for j := ldc*i + nr; j < ldc*(i+1); j++ {
									if !sameBits(c[j], sentinel) && c[j] != 0 {
										t.Fatalf("%s: padding c[%d] written", what, j)
									}
								}
							}
						}
						checkGuards(t, what, buf, n, 1)
					}
				}
				if err := k.kernel(4, make([]float32, 3), nil, nil, nr, 1, 0); err == nil {
					t.Error("short buffers accepted")
				}
			})
		}
	}
}

func BenchmarkAddF32(b *testing.B) {
	const n = 1 << 20
	x, y, d := make([]float32, n), make([]float32, n), make([]float32, n)
	b.SetBytes(3 * 4 * n)
	for i := 0; i < b.N; i++ {
		AddF32(d, x, y)
	}
	b.ReportMetric(float64(3*4*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

// BenchmarkTranscendentalL1 is the transcendental kernels on 16K floats
// (64 KB, in L2 with their output; a softmax's scores, a GELU's rows) at
// the active level: elements per nanosecond. SoftmaxRows is rows of 128.
func BenchmarkTranscendentalL1(b *testing.B) {
	const n = 1 << 14
	x, d := make([]float32, n), make([]float32, n)
	r := rand.New(rand.NewSource(1))
	for i := range x {
		x[i] = (r.Float32()*2 - 1) * 3
	}
	for _, k := range []struct {
		name string
		f    func(dst, x []float32)
	}{
		{"Exp", ExpF32}, {"Erf", ErfF32}, {"Gelu", GeluF32}, {"Sigmoid", SigmoidF32}, {"Silu", SiluF32}, {"Tanh", TanhF32},
		{"SoftmaxRows", func(dst, x []float32) { SoftmaxRowsF32(dst, x, 128) }},
	} {
		b.Run(k.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				k.f(d, x)
			}
			b.ReportMetric(float64(n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gelem/s")
		})
	}
}

func BenchmarkExpF32(b *testing.B) {
	const n = 1 << 20
	x, d := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = float32(i%200) - 100
	}
	for i := 0; i < b.N; i++ {
		ExpF32(d, x)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
}

// TestSgemmDirectMatchesTwin runs the small-M kernels that read B in place
// against their twin on every level that has them, with odd strides, and
// checks the guard bands around C.
func TestSgemmDirectMatchesTwin(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, rows := range []int{1, 2, 4} {
				nr, ok := SgemmDirectTile(rows)
				if !ok {
					continue
				}
				for _, kc := range []int{0, 1, 2, 3, 5, 17, 256} {
					for _, beta := range []float32{0, 1, -0.5} {
						a := randIn(r, kc*rows, -1, 1)
						ldb := nr + 7
						b := randIn(r, max(0, (kc-1)*ldb+nr), -1, 1)
						ldc := nr + 3
						buf, c, want, n := seededC(rows, nr, ldc, 2, beta)
						if err := SgemmDirect(rows, kc, a, b, ldb, c, ldc, 1.5, beta); err != nil {
							t.Fatal(err)
						}
						sgemmDirectGo(rows, nr, kc, a, b, ldb, want, ldc, 1.5, beta)
						what := fmt.Sprintf("SgemmDirect %s %dx%d kc=%d beta=%v", l, rows, nr, kc, beta)
						checkTile(t, what, c, want, rows, nr, ldc)
						checkGuards(t, what, buf, n, 2)
						// The prefetching form (past the end of b too:
						// prefetches do not fault), from the same C.
						buf, c, want, n = seededC(rows, nr, ldc, 2, beta)
						if kc > 0 {
							SgemmDirectUnchecked(rows, kc, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), ldb, unsafe.Pointer(&c[0]), ldc, 1.5, beta, true)
						} else {
							SgemmDirectUnchecked(rows, kc, nil, nil, ldb, unsafe.Pointer(&c[0]), ldc, 1.5, beta, true)
						}
						sgemmDirectGo(rows, nr, kc, a, b, ldb, want, ldc, 1.5, beta)
						checkTile(t, what+" prefetching", c, want, rows, nr, ldc)
						checkGuards(t, what+" prefetching", buf, n, 2)
					}
				}
			}
		})
	}
	if err := SgemmDirect(3, 1, make([]float32, 3), make([]float32, 64), 64, make([]float32, 200), 64, 1, 0); err == nil {
		t.Error("r=3 accepted")
	}
}

// TestScalarChain runs random chains (every step code, scalars and inputs
// with NaN payloads, infinities, signed zeros and subnormals) at every level
// on odd sizes with guard bands, and requires exactly the bits of running
// the steps' own kernels one after another; in place too.
func TestScalarChain(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	step := func(code uint8, dst, x []float32, s float32) {
		switch code {
		case ChainAdd:
			AddScalarF32(dst, x, s)
		case ChainSub:
			SubScalarF32(dst, x, s)
		case ChainRSub:
			RSubScalarF32(dst, x, s)
		case ChainMul:
			MulScalarF32(dst, x, s)
		case ChainDiv:
			DivScalarF32(dst, x, s)
		case ChainRDiv:
			RDivScalarF32(dst, x, s)
		case ChainMax:
			MaxScalarF32(dst, x, s)
		case ChainMin:
			MinScalarF32(dst, x, s)
		case ChainRelu:
			ReluF32(dst, x)
		case ChainMaxZero:
			MaxScalarF32(dst, x, 0)
		}
	}
	sp := specials()
	for _, l := range levels() {
		for it := 0; it < 60; it++ {
			codes, sc := randChain(r, r.Intn(11), sp)
			for _, n := range testSizes {
				x := randInput(r, n, 30)
				want := make([]float32, n)
				withLevel(t, l, func() {
					copy(want, x)
					for i, c := range codes {
						step(c, want, want, sc[i])
					}
				})
				for _, inPlace := range []bool{false, true} {
					off := 3
					buf, dst, src := guardedIO(n, off, x, inPlace)
					withLevel(t, l, func() { ScalarChainF32(dst, src, codes, sc) })
					what := fmt.Sprintf("%s/codes=%v/n=%d/inPlace=%v", l, codes, n, inPlace)
					checkGuards(t, what, buf, n, off)
					for i := range want {
						if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s: [%d] x=%v got %08x want %08x", what, i, x[i], math.Float32bits(dst[i]), math.Float32bits(want[i]))
						}
					}
				}
			}
		}
	}
	mustPanic(t, "ScalarChainF32",
		func() { ScalarChainF32(make([]float32, 4), make([]float32, 4), []uint8{numChainOps}, []float32{1}) },
		func() { ScalarChainF32(make([]float32, 4), make([]float32, 3), []uint8{ChainAdd}, []float32{1}) },
		func() {
			ScalarChainF32(make([]float32, 4), make([]float32, 4), []uint8{ChainAdd, ChainMul}, []float32{1})
		})
}

// TestChainMaxZero checks ChainMaxZero against Go's max(x, +0) at every
// level on every special value, NaNs of either sign (quiet and signaling,
// with payloads) and subnormals, in vectors and in the tail.
func TestChainMaxZero(t *testing.T) {
	x := append(specials(), math.Float32frombits(0x7f812345), math.Float32frombits(0xff812345),
		math.Float32frombits(0xffc00000), math.Float32frombits(0x7fc01234), math.Float32frombits(0x80000001))
	x = append(x, x...)
	for _, l := range levels() {
		got := make([]float32, len(x))
		withLevel(t, l, func() { ScalarChainF32(got, x, []uint8{ChainMaxZero}, []float32{7}) })
		for i, v := range x {
			if want := max(v, 0); math.Float32bits(got[i]) != math.Float32bits(want) {
				t.Errorf("%s: max(%08x, +0) = %08x, want %08x", l, math.Float32bits(v), math.Float32bits(got[i]), math.Float32bits(want))
			}
		}
	}
}

// randChain draws n chain steps and their scalars, some of them special
// values from sp.
func randChain(r *rand.Rand, n int, sp []float32) ([]uint8, []float32) {
	codes, sc := make([]uint8, n), make([]float32, n)
	for i := range codes {
		codes[i] = uint8(r.Intn(int(numChainOps)))
		sc[i] = (r.Float32()*2 - 1) * 4
		if r.Intn(6) == 0 {
			sc[i] = sp[r.Intn(len(sp))]
		}
	}
	return codes, sc
}

// mustPanic fails t for each of calls that returns instead of panicking.
func mustPanic(t *testing.T, what string, calls ...func()) {
	t.Helper()
	for i, call := range calls {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("bad %s call %d did not panic", what, i)
				}
			}()
			call()
		}()
	}
}

// TestSgemmIndirectMatchesPacked runs the indirect micro-kernel at every
// level against the twin of the packed one on the panel its offsets
// describe (rows overlapping, repeated and out of order, as a
// convolution's patches are), and checks the guard bands around C and the
// refusal of bad offsets.
func TestSgemmIndirectMatchesPacked(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, l := range levels() {
		for _, wide := range []bool{false, true} {
			withLevel(t, l, func() {
				mr, nr, ok := SgemmIndirectTile(wide)
				if !ok {
					if err := SgemmKernelIndirect(wide, 1, make([]float32, 64), make([]float32, 64), []int{0}, make([]float32, 1024), 64, 1, 0); err == nil {
						t.Errorf("%s: wide tile accepted where there is none", l)
					}
					return
				}
				for _, kc := range []int{0, 1, 3, 4, 5, 17, 256} {
					for _, beta := range []float32{0, 1, -0.5} {
						a := randIn(r, kc*mr, -1, 1)
						b := randIn(r, 3*nr+11, -1, 1)
						offs := make([]int, kc)
						panel := make([]float32, kc*nr)
						for p := range offs {
							offs[p] = r.Intn(len(b) - nr + 1)
							copy(panel[p*nr:(p+1)*nr], b[offs[p]:])
						}
						ldc := nr + 3
						buf, c, want, n := seededC(mr, nr, ldc, 2, beta)
						alpha := alphaFor(kc)
						if err := SgemmKernelIndirect(wide, kc, a, b, offs, c, ldc, alpha, beta); err != nil {
							t.Fatal(err)
						}
						sgemmKernelGo(mr, nr, kc, a, panel, want, ldc, alpha, beta)
						what := fmt.Sprintf("SgemmKernelIndirect %s %dx%d kc=%d alpha=%v beta=%v", l, mr, nr, kc, alpha, beta)
						checkTile(t, what, c, want, mr, nr, ldc)
						checkGuards(t, what, buf, n, 2)
					}
				}
				a, b, c := make([]float32, 2*mr), make([]float32, 2*nr), make([]float32, mr*nr)
				for _, offs := range [][]int{{0, nr + 1}, {-1, 0}, {0}} {
					if err := SgemmKernelIndirect(wide, 2, a, b, offs, c, nr, 1, 0); err == nil {
						t.Errorf("%s: offsets %v into %d floats accepted", l, offs, len(b))
					}
				}
			})
		}
	}
}

// TestSgemmChainKernels runs the micro-kernels with a chain (the indirect
// ones, the plain AVX2 one) at every level that has their tile
// against the twin: the product's twin on the same operands, then each row
// through ScalarChainF32's twin with its column of the step-major scalar
// table; every chain code, NaN-making steps among them, both betas; and
// their refusals.
func TestSgemmChainKernels(t *testing.T) {
	type run func(kc int, a, b []float32, offs []int, c []float32, ldc int, alpha, beta float32, codes []uint8, sc []float32) error
	kernels := []struct {
		name     string
		tile     func() (int, int, bool)
		indirect bool
		run      run
	}{
		{"SgemmKernelIndirectChain", func() (int, int, bool) { mr, nr, _, ok := SgemmIndirectChainTile(); return mr, nr, ok }, true, SgemmKernelIndirectChain},
		{"SgemmKernelChain", SgemmTileChain, false, func(kc int, a, b []float32, _ []int, c []float32, ldc int, alpha, beta float32, codes []uint8, sc []float32) error {
			return SgemmKernelChain(kc, a, b, c, ldc, alpha, beta, codes, sc)
		}},
		{"SgemmKernelChainNext", SgemmTileChain, false, func(kc int, a, b []float32, _ []int, c []float32, ldc int, alpha, beta float32, codes []uint8, sc []float32) error {
			return SgemmKernelChainNext(kc, a, b, c, ldc, alpha, beta, codes, sc)
		}},
	}
	r := rand.New(rand.NewSource(24))
	for _, l := range levels() {
		for _, k := range kernels {
			withLevel(t, l, func() {
				mr, nr, ok := k.tile()
				if !ok {
					if err := k.run(1, make([]float32, 64), make([]float32, 64), []int{0}, make([]float32, 1024), 64, 1, 0, nil, nil); err == nil {
						t.Errorf("%s %s: accepted where the level has no tile", k.name, l)
					}
					return
				}
				for _, kc := range []int{0, 1, 5, 27, 256} {
					for _, beta := range []float32{0, 1} {
						for it := 0; it < 6; it++ {
							a := randIn(r, kc*mr, -1, 1)
							b := randIn(r, kc*nr, -1, 1)
							var offs []int
							if k.indirect {
								b = randIn(r, 3*nr+11, -1, 1)
								offs = make([]int, kc)
								for p := range offs {
									offs[p] = r.Intn(len(b) - nr + 1)
								}
							}
							codes := make([]uint8, r.Intn(6))
							for i := range codes {
								codes[i] = uint8(r.Intn(int(numChainOps)))
							}
							sc := make([]float32, len(codes)*mr)
							for i := range sc {
								sc[i] = r.Float32()*4 - 2
								if r.Intn(20) == 0 {
									sc[i] = 0 // divisions by zero: infinities and NaNs
								}
							}
							ldc := nr + 3
							buf, c, want, n := seededC(mr, nr, ldc, 2, beta)
							alpha := alphaFor(it)
							if err := k.run(kc, a, b, offs, c, ldc, alpha, beta, codes, sc); err != nil {
								t.Fatal(err)
							}
							if k.indirect {
								sgemmIndirectGo(mr, nr, kc, a, &b[0], offs, want, ldc, alpha, beta)
							} else {
								sgemmKernelGo(mr, nr, kc, a, b, want, ldc, alpha, beta)
							}
							chainTileGo(mr, nr, want, ldc, codes, sc)
							what := fmt.Sprintf("%s %s kc=%d alpha=%v beta=%v codes=%v", k.name, l, kc, alpha, beta, codes)
							checkTile(t, what, c, want, mr, nr, ldc)
							checkGuards(t, what, buf, n, 2)
						}
					}
				}
				a, b, c := make([]float32, 2*mr), make([]float32, 2*nr), make([]float32, mr*nr)
				if err := k.run(2, a, b, []int{0, 0}, c, nr, 1, 0, []uint8{numChainOps}, make([]float32, mr)); err == nil {
					t.Errorf("%s %s: unknown code accepted", k.name, l)
				}
				if err := k.run(2, a, b, []int{0, 0}, c, nr, 1, 0, []uint8{0, 1}, make([]float32, 2*mr-1)); err == nil {
					t.Errorf("%s %s: short scalar table accepted", k.name, l)
				}
			})
		}
	}
}

// TestDeinterleave2Rows runs the row-wise deinterleave at every level
// against the one-row function on odd pair counts (vector blocks and
// scalar tails) and strides, and checks that nothing outside the rows'
// n values is written and that short slices are refused.
func TestDeinterleave2Rows(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, n := range []int{1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 56, 57} {
				for _, rows := range []int{1, 2, 5} {
					ds, ss := n+3, 2*n+5
					src := randIn(r, (rows-1)*ss+2*n, 0, 1)
					m := (rows-1)*ds + n
					bufE, even := guarded(m, 1)
					bufO, odd := guarded(m, 3)
					Deinterleave2RowsF32(even, odd, ds, src, ss, rows, n)
					what := fmt.Sprintf("%s n=%d rows=%d", l, n, rows)
					for row := 0; row < rows; row++ {
						we, wo := make([]float32, n), make([]float32, n)
						deinterleave2Go(we, wo, src[row*ss:row*ss+2*n])
						for k := 0; k < n; k++ {
							if even[row*ds+k] != we[k] || odd[row*ds+k] != wo[k] {
								t.Fatalf("%s: row %d pair %d = (%v, %v), want (%v, %v)", what, row, k, even[row*ds+k], odd[row*ds+k], we[k], wo[k])
							}
						}
						for k := n; row < rows-1 && k < ds; k++ {
							if !sameBits(even[row*ds+k], sentinel) || !sameBits(odd[row*ds+k], sentinel) {
								t.Fatalf("%s: row %d gap %d written", what, row, k)
							}
						}
					}
					checkGuards(t, what, bufE, m, 1)
					checkGuards(t, what, bufO, m, 3)
				}
			}
		})
	}
	s := make([]float32, 64)
	mustPanic(t, "Deinterleave2RowsF32",
		func() {
			Deinterleave2RowsF32(make([]float32, 20), make([]float32, 20), 10, make([]float32, 20), 12, 2, 5)
		}, // short src
		func() { Deinterleave2RowsF32(s[20:36], make([]float32, 16), 16, s[:32], 32, 1, 16) }, // even overlaps src
	)
}

// TestDeinterleave2RowsBatch runs the batched form at every level: each
// set of rows against the one-row function, the gaps between sets and the
// guard bands untouched, and sets that do not fit refused.
func TestDeinterleave2RowsBatch(t *testing.T) {
	r := rand.New(rand.NewSource(22))
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, n := range []int{1, 4, 7, 9, 16, 17} {
				for _, batch := range []int{1, 3, 8} {
					rows, ds, ss := 3, n+1, 2*n+3
					db, sb := 3*ds+5, 3*ss+2 // sets apart, with gaps
					src := randIn(r, (batch-1)*sb+(rows-1)*ss+2*n, 0, 1)
					m := (batch-1)*db + (rows-1)*ds + n
					bufE, even := guarded(m, 2)
					bufO, odd := guarded(m, 0)
					Deinterleave2RowsBatchF32(even, odd, ds, db, src, ss, sb, rows, n, batch)
					what := fmt.Sprintf("%s n=%d batch=%d", l, n, batch)
					written := make([]bool, m)
					for b := 0; b < batch; b++ {
						for row := 0; row < rows; row++ {
							we, wo := make([]float32, n), make([]float32, n)
							o := b*sb + row*ss
							deinterleave2Go(we, wo, src[o:o+2*n])
							for k := 0; k < n; k++ {
								i := b*db + row*ds + k
								written[i] = true
								if even[i] != we[k] || odd[i] != wo[k] {
									t.Fatalf("%s: set %d row %d pair %d = (%v, %v), want (%v, %v)", what, b, row, k, even[i], odd[i], we[k], wo[k])
								}
							}
						}
					}
					for i, w := range written {
						if !w && (!sameBits(even[i], sentinel) || !sameBits(odd[i], sentinel)) {
							t.Fatalf("%s: gap at %d written", what, i)
						}
					}
					checkGuards(t, what, bufE, m, 2)
					checkGuards(t, what, bufO, m, 0)
				}
			}
		})
	}
	mustPanic(t, "Deinterleave2RowsBatchF32",
		// the third set's last row ends past even
		func() {
			Deinterleave2RowsBatchF32(make([]float32, 40), make([]float32, 60), 5, 20, make([]float32, 200), 10, 50, 2, 4, 3)
		},
		// the third set's last row ends past src
		func() {
			Deinterleave2RowsBatchF32(make([]float32, 60), make([]float32, 60), 5, 20, make([]float32, 117), 10, 50, 2, 4, 3)
		},
		// a later set overlaps src
		func() {
			s := make([]float32, 200)
			Deinterleave2RowsBatchF32(s[100:160], make([]float32, 60), 5, 20, s[:130], 10, 50, 2, 4, 3)
		},
	)
}

// TestSoftmaxSmallRefuses checks SoftmaxSmallF32's argument checks.
func TestSoftmaxSmallRefuses(t *testing.T) {
	mustPanic(t, "SoftmaxSmallF32",
		func() { SoftmaxSmallF32(make([]float32, 8), make([]float32, 8), 0) },
		func() { SoftmaxSmallF32(make([]float32, 34), make([]float32, 34), 17) },
		func() { SoftmaxSmallF32(make([]float32, 9), make([]float32, 9), 2) },
		func() { SoftmaxSmallF32(make([]float32, 8), make([]float32, 7), 4) },
	)
}

// TestPackA runs the transposing A-panel copy at every level on odd depths
// (whole 8-step blocks and tails), both row counts and panel heights, and
// checks every value, the untouched slots between rows and the guard bands.
func TestPackA(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, rows := range []int{4, 8} {
				for _, mr := range []int{rows, 14, 16} {
					for _, kc := range []int{1, 7, 8, 9, 16, 23, 256} {
						lda := kc + 5
						src := randIn(r, (rows-1)*lda+kc, 0, 1)
						n := (kc-1)*mr + rows
						buf, dst := guarded(n, 1)
						PackAF32(rows, dst, mr, src, lda, kc)
						what := fmt.Sprintf("%s rows=%d mr=%d kc=%d", l, rows, mr, kc)
						for p := 0; p < kc; p++ {
							for i := 0; i < mr && p*mr+i < n; i++ {
								got := dst[p*mr+i]
								if i < rows && got != src[i*lda+p] {
									t.Fatalf("%s: dst[%d*mr+%d] = %v, want %v", what, p, i, got, src[i*lda+p])
								}
								if i >= rows && !sameBits(got, sentinel) {
									t.Fatalf("%s: slot %d of step %d written", what, i, p)
								}
							}
						}
						checkGuards(t, what, buf, n, 1)
					}
				}
			}
		})
	}
	defer func() {
		if recover() == nil {
			t.Error("6 rows accepted")
		}
	}()
	PackAF32(6, make([]float32, 100), 6, make([]float32, 100), 10, 8)
}

// TestScalarChainRows checks ScalarChainRowsF32 and ScalarChainRowsEachF32
// (its scalars per row) against ScalarChainF32 row
// by row, bit for bit, at every level: row lengths around the vector widths
// (the last partial vector is recomputed from src), row gaps in dst left
// untouched, guard bands, and the panics.
func TestScalarChainRows(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	sp := specials()
	for _, l := range levels() {
		for it := 0; it < 160; it++ {
			codes, sc := randChain(r, r.Intn(6), sp)
			n := 1 + r.Intn(70)
			rows := 1 + r.Intn(5)
			ds, ss := n+r.Intn(5), n+r.Intn(5)
			// Odd iterations: ScalarChainRowsEachF32, each row its own
			// scalars (sStride apart).
			each, sst := it%2 == 1, 0
			if each {
				sst = len(codes) + r.Intn(3)
				sc = make([]float32, (rows-1)*sst+len(codes))
				for i := range sc {
					sc[i] = float32(r.NormFloat64())
				}
			}
			src := randInput(r, (rows-1)*ss+n, 30)
			size := (rows-1)*ds + n
			want := make([]float32, size)
			for i := range want {
				want[i] = math.Float32frombits(0x7fc0dead)
			}
			for i := 0; i < rows; i++ {
				withLevel(t, l, func() { ScalarChainF32(want[i*ds:i*ds+n], src[i*ss:], codes, sc[i*sst:]) })
			}
			off := r.Intn(4)
			buf, dst := guarded(size, off)
			withLevel(t, l, func() {
				if each {
					ScalarChainRowsEachF32(dst, ds, src, ss, rows, n, codes, sc, sst)
				} else {
					ScalarChainRowsF32(dst, ds, src, ss, rows, n, codes, sc)
				}
			})
			what := fmt.Sprintf("%s/codes=%v/n=%d/rows=%d/strides=%d,%d/each=%v", l, codes, n, rows, ds, ss, each)
			checkGuards(t, what, buf, size, off)
			for i := range want {
				if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s: [%d] got %08x want %08x", what, i, math.Float32bits(dst[i]), math.Float32bits(want[i]))
				}
			}
		}
	}
	buf := make([]float32, 64)
	mustPanic(t, "ScalarChainRowsF32",
		func() {
			ScalarChainRowsF32(make([]float32, 20), 10, make([]float32, 20), 10, 2, 10, []uint8{numChainOps}, []float32{1})
		},
		func() {
			ScalarChainRowsF32(make([]float32, 19), 10, make([]float32, 20), 10, 2, 10, []uint8{ChainAdd}, []float32{1})
		},
		func() {
			ScalarChainRowsF32(make([]float32, 20), 10, make([]float32, 19), 10, 2, 10, []uint8{ChainAdd}, []float32{1})
		},
		func() {
			ScalarChainRowsF32(make([]float32, 20), 10, make([]float32, 20), 10, 2, 10, []uint8{ChainAdd}, nil)
		},
		func() { ScalarChainRowsF32(buf[8:], 10, buf, 10, 2, 10, []uint8{ChainAdd}, []float32{1}) },
		func() { // row 1's scalar past s
			ScalarChainRowsEachF32(make([]float32, 20), 10, make([]float32, 20), 10, 2, 10, []uint8{ChainAdd}, []float32{1}, 1)
		})
}

// TestMaxRow checks MaxRowF32 against its twin at every level on rows
// around the vector widths with NaNs, infinities and signed zeros: the same
// NaN report and the same maximum (as a value: a maximum of zeros may come
// out as either zero).
func TestMaxRow(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	for _, l := range levels() {
		for it := 0; it < 400; it++ {
			n := r.Intn(100)
			x := make([]float32, n)
			for i := range x {
				switch r.Intn(12) {
				case 0:
					x[i] = float32(math.NaN())
				case 1:
					x[i] = float32(math.Inf(-1))
				case 2:
					x[i] = float32(math.Copysign(0, -1))
				case 3:
					x[i] = 0
				default:
					x[i] = (r.Float32()*2 - 1) * 10
				}
			}
			if it%3 == 0 {
				// All at most zero, so the maximum is often a zero.
				for i := range x {
					if x[i] > 0 {
						x[i] = -x[i]
					}
				}
			}
			wm, wn := maxRowGo(x)
			var gm float32
			var gn bool
			withLevel(t, l, func() { gm, gn = MaxRowF32(x) })
			if gm != wm || gn != wn {
				t.Fatalf("%s n=%d: got (%v, %v), want (%v, %v); x=%v", l, n, gm, gn, wm, wn, x)
			}
		}
	}
}

// TestDot8 checks Dot8F32 against its twin bit for bit at every level,
// from a nonzero accumulator, on inputs with NaN payloads of both signs,
// infinities and signed zeros (so the operand order shows).
func TestDot8(t *testing.T) {
	r := rand.New(rand.NewSource(14))
	sp := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00123), math.Float32frombits(0x7fa00000)}
	draw := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
			if r.Intn(5) == 0 {
				x[i] = sp[r.Intn(len(sp))]
			}
		}
		return x
	}
	for _, l := range levels() {
		for it := 0; it < 200; it++ {
			n := 8 * r.Intn(30)
			x, y, init := draw(n), draw(n+r.Intn(3)), draw(8)
			var want, got [8]float32
			copy(want[:], init)
			copy(got[:], init)
			dot8Go(x, y, &want)
			withLevel(t, l, func() { Dot8F32(x, y, &got) })
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s n=%d lane %d: %08x want %08x", l, n, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
		}
	}
	var acc [8]float32
	mustPanic(t, "Dot8F32",
		func() { Dot8F32(make([]float32, 9), make([]float32, 9), &acc) },
		func() { Dot8F32(make([]float32, 8), make([]float32, 7), &acc) })
}

// TestSum8Rows checks Sum8RowsF32 against its twin bit for bit at every
// level (NaN payloads, infinities and signed zeros among the values), row
// counts around the kernel's groups of four, strides past n, and a guard
// band past the last row's n values and the rows' partial sums.
func TestSum8Rows(t *testing.T) {
	r := rand.New(rand.NewSource(16))
	sp := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00123), math.Float32frombits(0x7fa00000)}
	for _, l := range levels() {
		for it := 0; it < 300; it++ {
			n, rows := 8*r.Intn(40), r.Intn(11)
			stride := n + r.Intn(3)*8 + r.Intn(2)
			x := make([]float32, max(0, (rows-1)*stride+n)+5)
			for i := range x {
				x[i] = float32(r.NormFloat64())
				if r.Intn(6) == 0 {
					x[i] = sp[r.Intn(len(sp))]
				}
			}
			want, got := make([]float32, 8*rows+3), make([]float32, 8*rows+3)
			for i := range got {
				got[i], want[i] = 7, 7
			}
			sum8RowsGo(x, stride, rows, n, want)
			withLevel(t, l, func() { Sum8RowsF32(x, stride, rows, n, got) })
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s n=%d rows=%d stride=%d acc[%d]: %08x want %08x", l, n, rows, stride, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
		}
	}
	acc := make([]float32, 16)
	mustPanic(t, "Sum8RowsF32",
		func() { Sum8RowsF32(make([]float32, 9), 9, 1, 9, acc) },
		func() { Sum8RowsF32(make([]float32, 15), 8, 2, 8, acc) },
		func() { Sum8RowsF32(make([]float32, 16), 8, 2, 8, acc[:15]) },
		func() { Sum8RowsF32(make([]float32, 16), 4, 2, 8, acc) })
}

// TestScaleMulAdd checks ScaleMulAddF32 against MulScalarF32, MulF32 and
// AddF32 run in turn at every level, bit for bit (NaN payloads included),
// in place and not, with guard bands.
func TestScaleMulAdd(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	sp := specials()
	for _, l := range levels() {
		for _, n := range testSizes {
			x, g, b := randInput(r, n, 30), randInput(r, n, 30), randInput(r, n, 30)
			s := (r.Float32()*2 - 1) * 3
			switch r.Intn(4) {
			case 0:
				s = sp[r.Intn(len(sp))]
			case 1:
				// NaN meeting NaN: which payload survives is the operand
				// order of each step.
				s = math.Float32frombits(0x7fc00042)
				for i := 0; i < n; i += 3 {
					x[i] = math.Float32frombits(0xffc00077)
				}
			}
			want := make([]float32, n)
			withLevel(t, l, func() {
				MulScalarF32(want, x, s)
				MulF32(want, want, g)
				AddF32(want, want, b)
			})
			for _, inPlace := range []bool{false, true} {
				off := 2
				buf, dst, src := guardedIO(n, off, x, inPlace)
				withLevel(t, l, func() { ScaleMulAddF32(dst, src, s, g, b) })
				what := fmt.Sprintf("%s n=%d s=%v inPlace=%v", l, n, s, inPlace)
				checkGuards(t, what, buf, n, off)
				for i := range want {
					if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s: [%d] %08x want %08x", what, i, math.Float32bits(dst[i]), math.Float32bits(want[i]))
					}
				}
			}
		}
	}
	mustPanic(t, "ScaleMulAddF32",
		func() {
			ScaleMulAddF32(make([]float32, 4), make([]float32, 3), 1, make([]float32, 4), make([]float32, 4))
		},
		func() {
			ScaleMulAddF32(make([]float32, 4), make([]float32, 4), 1, make([]float32, 3), make([]float32, 4))
		},
		func() {
			ScaleMulAddF32(make([]float32, 4), make([]float32, 4), 1, make([]float32, 4), make([]float32, 3))
		})
}

// TestSoftmaxSmall checks SoftmaxSmallF32 against its twin bit for bit at
// every level, on every row length it takes, with rows holding NaNs and
// infinities (where it must stop), large spreads (exps that underflow) and
// signed zeros; o's rows past the stop and a guard band past o stay
// untouched.
func TestSoftmaxSmall(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	for _, l := range levels() {
		withLevel(t, l, func() {
			for n := 1; n <= SoftmaxSmallMax(); n++ {
				for _, rows := range []int{1, 2, 5, 9} {
					for it := 0; it < 20; it++ {
						x := make([]float32, rows*n+guard) // readable past the rows: masked lanes must not matter
						for i := range x {
							switch r.Intn(40) {
							case 0:
								x[i] = float32(math.NaN())
							case 1:
								x[i] = float32(math.Inf(1 - 2*r.Intn(2)))
							case 2:
								x[i] = float32(math.Copysign(0, -1))
							default:
								x[i] = (r.Float32()*2 - 1) * float32(1+r.Intn(4)*30)
							}
						}
						got := make([]float32, rows*n+guard)
						want := make([]float32, rows*n)
						for i := range got {
							got[i] = sentinel
						}
						for i := range want {
							want[i] = sentinel
						}
						gd := SoftmaxSmallF32(got[:rows*n], x, n)
						wd := softmaxSmallGo(want, x, n)
						if gd != wd {
							t.Fatalf("%s n=%d rows=%d: %d rows done, twin %d; x=%v", l, n, rows, gd, wd, x[:rows*n])
						}
						for i := range got {
							w := sentinel
							if i < len(want) {
								w = want[i]
							}
							if math.Float32bits(got[i]) != math.Float32bits(w) {
								t.Fatalf("%s n=%d rows=%d: o[%d] = %v (%#x), twin %v (%#x); x=%v", l, n, rows, i, got[i], math.Float32bits(got[i]), w, math.Float32bits(w), x[:rows*n])
							}
						}
					}
				}
			}
		})
	}
}

// TestCopyRows runs CopyRowsF32 at every level on row lengths around both
// vector widths (whole vectors and masked tails), strides wider than the
// rows, and checks every element, the gaps between rows and the guard
// bands, and that short slices and overlaps are refused.
func TestCopyRows(t *testing.T) {
	r := rand.New(rand.NewSource(23))
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, n := range []int{1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 47, 64, 100} {
				for _, rows := range []int{1, 2, 5} {
					for _, blocks := range []int{1, 3} {
						ds, ss := n+2, n+5
						db, sb := rows*ds+3, rows*ss+1 // block strides (CopyBlocksF32)
						src := randIn(r, (blocks-1)*sb+(rows-1)*ss+n, 0, 1)
						m := (blocks-1)*db + (rows-1)*ds + n
						buf, dst := guarded(m, 1)
						if blocks == 1 {
							CopyRowsF32(dst, ds, src, ss, rows, n)
						} else {
							CopyBlocksF32(dst, db, ds, src, sb, ss, blocks, rows, n)
						}
						what := fmt.Sprintf("%s n=%d rows=%d blocks=%d", l, n, rows, blocks)
						for i := range dst {
							b, row, k := i/db, i%db/ds, i%db%ds
							got, want := dst[i], sentinel
							if row < rows && k < n {
								want = src[b*sb+row*ss+k]
							}
							if !sameBits(got, want) {
								t.Fatalf("%s: block %d row %d [%d] = %v, want %v", what, b, row, k, got, want)
							}
						}
						checkGuards(t, what, buf, m, 1)
					}
				}
			}
		})
	}
	s := make([]float32, 64)
	mustPanic(t, "CopyRowsF32",
		func() { CopyRowsF32(make([]float32, 19), 10, make([]float32, 20), 10, 2, 10) },
		func() { CopyRowsF32(make([]float32, 20), 10, make([]float32, 19), 10, 2, 10) },
		func() { CopyRowsF32(s[10:30], 10, s[:20], 10, 2, 10) },
		func() { CopyBlocksF32(make([]float32, 39), 20, 10, make([]float32, 40), 20, 10, 2, 2, 10) },
		func() { CopyBlocksF32(make([]float32, 40), 20, 10, make([]float32, 39), 20, 10, 2, 2, 10) },
		func() { CopyBlocksF32(s[20:60], 20, 10, s[:40], 20, 10, 2, 2, 10) },
		func() { CopyBlocksF32(make([]float32, 40), -20, 10, make([]float32, 40), 20, 10, 2, 2, 10) },
	)
}

// checkTile fails t unless the rows x nr tile of c (rows ldc apart) has
// want's bits.
func checkTile(t *testing.T, what string, c, want []float32, rows, nr, ldc int) {
	t.Helper()
	for i := 0; i < rows; i++ {
		for j := ldc * i; j < ldc*i+nr; j++ {
			if !sameBits(c[j], want[j]) {
				t.Fatalf("%s: c[%d] = %v want %v", what, j, c[j], want[j])
			}
		}
	}
}

// randIn returns n values drawn uniformly from [lo, hi).
func randIn(r *rand.Rand, n int, lo, hi float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = r.Float32()*(hi-lo) + lo
	}
	return x
}

// alphaFor alternates the micro-kernel tests' alpha between 1.5 and 1 (the
// epilogues skip the scaling for 1) by the parity of i.
func alphaFor(i int) float32 {
	if i%2 == 1 {
		return 1
	}
	return 1.5
}

// BenchmarkSgemmKernelL1 runs each SGEMM micro-kernel on panels that stay
// in L1 (depth 128) and reports its GFLOP/s: the arithmetic rate the
// blocked drivers approach, and so the machine's practical single-thread
// float32 peak at this level.
func BenchmarkSgemmKernelL1(b *testing.B) {
	const kc = 128
	tiles := []struct {
		name string
		tile func() (int, int)
		run  func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error
	}{
		{"main", SgemmTile, SgemmKernel},
		{"mid", func() (int, int) { mr, nr, _ := SgemmTileMid(); return mr, nr }, SgemmKernelMid},
		{"wide", func() (int, int) { mr, nr, _ := SgemmTileWide(); return mr, nr }, SgemmKernelWide},
		{"half", halfTile(func() int { mr, _ := SgemmTile(); return mr }), halfKernel(func() int { mr, _ := SgemmTile(); return mr })},
		{"halfmid", halfTile(func() int { mr, _, _ := SgemmTileMid(); return mr }), halfKernel(func() int { mr, _, _ := SgemmTileMid(); return mr })},
		{"small", SgemmTileSmall, SgemmKernelSmall},
		{"strided", func() (int, int) { mr, nr, _ := SgemmTileStrided(); return mr, nr }, func(kc int, a, b, c []float32, ldc int, alpha, beta float32) error {
			mr, _, _ := SgemmTileStrided()
			return SgemmKernelStrided(kc, a, mr, b, c, ldc, alpha, beta)
		}},
		{"halfsmall", halfTile(func() int { mr, _ := SgemmTileSmall(); return mr }), halfKernel(func() int { mr, _ := SgemmTileSmall(); return mr })},
	}
	for _, k := range tiles {
		mr, nr := k.tile()
		if mr == 0 {
			continue
		}
		b.Run(fmt.Sprintf("%s_%dx%d", k.name, mr, nr), func(b *testing.B) {
			a, bb, c := make([]float32, kc*mr), make([]float32, kc*nr), make([]float32, mr*nr)
			for i := range a {
				a[i] = 1
			}
			for i := range bb {
				bb[i] = 0.5
			}
			for i := 0; i < b.N; i++ {
				if err := k.run(kc, a, bb, c, nr, 1, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*kc*float64(mr*nr)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkCopyRows times CopyRowsF32 on rows short enough for a memmove
// per row to dominate: 64 rows of n floats, 64 floats apart, in L1; n a
// multiple of the vector (no tail) and not.
func BenchmarkCopyRows(b *testing.B) {
	const rows, stride = 64, 64
	src, dst := make([]float32, rows*stride), make([]float32, rows*stride)
	for _, n := range []int{13, 16, 56} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(4 * rows * n))
			for i := 0; i < b.N; i++ {
				CopyRowsF32(dst, stride, src, stride, rows, n)
			}
		})
	}
}

// TestSgemmKernelRows holds SgemmKernelRows to SgemmKernel: for every row
// count below the tile's, odd depths, alpha and beta with and without C
// read, the rows' bits are the whole tile's, and nothing past them (the
// rest of C's rows and a guard band) is written.
func TestSgemmKernelRows(t *testing.T) {
	for _, l := range levels() {
		withLevel(t, l, func() {
			mr, nr := SgemmTile()
			if !SgemmKernelRowsOK(1) {
				if err := SgemmKernelRows(1, 1, make([]float32, mr), make([]float32, nr), make([]float32, nr), nr, 1, 0); err == nil {
					t.Fatalf("%s: SgemmKernelRows without the kernels gave no error", l)
				}
				return
			}
			r := rand.New(rand.NewSource(5))
			for rows := 1; rows < mr; rows++ {
				for _, kc := range []int{0, 1, 3, 4, 7, 33} {
					for _, ab := range [][2]float32{{1, 0}, {1, 1}, {-0.5, 2}} {
						a, b := make([]float32, kc*mr), make([]float32, kc*nr)
						for i := range a {
							a[i] = r.Float32()*2 - 1
						}
						for i := range b {
							b[i] = r.Float32()*2 - 1
						}
						ldc := nr + 3
						c0 := make([]float32, mr*ldc+5)
						for i := range c0 {
							c0[i] = r.Float32()*2 - 1
						}
						want := append([]float32(nil), c0...)
						if err := SgemmKernel(kc, a, b, want, ldc, ab[0], ab[1]); err != nil {
							t.Fatal(err)
						}
						got := append([]float32(nil), c0...)
						if err := SgemmKernelRows(rows, kc, a, b, got, ldc, ab[0], ab[1]); err != nil {
							t.Fatal(err)
						}
						checkRowBits(t, fmt.Sprintf("%s rows=%d kc=%d alpha,beta=%v", l, rows, kc, ab), got, c0, want, rows, ldc, nr)
					}
				}
			}
			if err := SgemmKernelRows(mr, 1, make([]float32, mr), make([]float32, nr), make([]float32, mr*nr), nr, 1, 0); err == nil {
				t.Fatalf("%s: SgemmKernelRows on a whole tile gave no error", l)
			}
			if err := SgemmKernelRows(2, 2, make([]float32, mr), make([]float32, 2*nr), make([]float32, 2*nr), nr, 1, 0); err == nil {
				t.Fatalf("%s: SgemmKernelRows with a short A gave no error", l)
			}
		})
	}
}

// checkRowBits fails unless got (a tile's C, rows ldc apart, from c0)
// holds want's bits in its first rows rows' nr columns and c0's elsewhere.
func checkRowBits(t *testing.T, what string, got, c0, want []float32, rows, ldc, nr int) {
	t.Helper()
	for i := range got {
		w := c0[i]
		if i/ldc < rows && i%ldc < nr {
			w = want[i]
		}
		if math.Float32bits(got[i]) != math.Float32bits(w) {
			t.Fatalf("%s: c[%d] = %v, want %v", what, i, got[i], w)
		}
	}
}

// TestSgemmKernelIndirectRows holds SgemmKernelIndirectRows to the whole
// main indirect tile (SgemmKernelIndirect, then chainTileGo for the chain
// form): for every row count below the tile's, depths around the
// unrolling, with and without C read and with chains whose scalars include
// zeros (divisions by zero), the rows' bits are the tile's and nothing past
// them is written; and it refuses what it cannot run.
func TestSgemmKernelIndirectRows(t *testing.T) {
	for _, l := range levels() {
		withLevel(t, l, func() {
			mr, nr, _ := SgemmIndirectTile(false)
			if !SgemmKernelRowsOK(1) {
				if err := SgemmKernelIndirectRows(1, 1, make([]float32, mr), make([]float32, nr), []int{0}, make([]float32, nr), nr, 1, 0, nil, nil); err == nil {
					t.Fatalf("%s: SgemmKernelIndirectRows without the kernels gave no error", l)
				}
				return
			}
			r := rand.New(rand.NewSource(6))
			for rows := 1; rows < mr; rows++ {
				for _, kc := range []int{0, 1, 3, 4, 9, 27} {
					for _, chain := range []bool{false, true} {
						for _, beta := range []float32{0, 1} {
							a := randIn(r, kc*mr, -1, 1)
							b := randIn(r, 3*nr+11, -1, 1)
							offs := make([]int, kc)
							for p := range offs {
								offs[p] = r.Intn(len(b) - nr + 1)
							}
							var codes []uint8
							var sc []float32
							if chain {
								codes = make([]uint8, 1+r.Intn(5))
								for i := range codes {
									codes[i] = uint8(r.Intn(int(numChainOps)))
								}
								sc = make([]float32, len(codes)*mr)
								for i := range sc {
									sc[i] = r.Float32()*4 - 2
									if r.Intn(15) == 0 {
										sc[i] = 0
									}
								}
							}
							ldc := nr + 5
							c0 := randIn(r, mr*ldc+3, -1, 1)
							want := append([]float32(nil), c0...)
							if err := SgemmKernelIndirect(false, kc, a, b, offs, want, ldc, 1.5, beta); err != nil {
								t.Fatal(err)
							}
							if chain {
								chainTileGo(mr, nr, want, ldc, codes, sc)
							}
							got := append([]float32(nil), c0...)
							if err := SgemmKernelIndirectRows(rows, kc, a, b, offs, got, ldc, 1.5, beta, codes, sc); err != nil {
								t.Fatal(err)
							}
							checkRowBits(t, fmt.Sprintf("%s rows=%d kc=%d chain=%v %v beta=%v", l, rows, kc, chain, codes, beta), got, c0, want, rows, ldc, nr)
						}
					}
				}
			}
			for _, bad := range []func() error{
				func() error { // a whole tile
					return SgemmKernelIndirectRows(mr, 1, make([]float32, mr), make([]float32, nr), []int{0}, make([]float32, mr*nr), nr, 1, 0, nil, nil)
				},
				func() error { // an offset past b
					return SgemmKernelIndirectRows(2, 1, make([]float32, mr), make([]float32, nr), []int{1}, make([]float32, 2*nr), nr, 1, 0, nil, nil)
				},
				func() error { // an unknown code
					return SgemmKernelIndirectRows(2, 1, make([]float32, mr), make([]float32, nr), []int{0}, make([]float32, 2*nr), nr, 1, 0, []uint8{numChainOps}, make([]float32, mr))
				},
				func() error { // a short table
					return SgemmKernelIndirectRows(2, 1, make([]float32, mr), make([]float32, nr), []int{0}, make([]float32, 2*nr), nr, 1, 0, []uint8{0}, make([]float32, mr-1))
				},
			} {
				if bad() == nil {
					t.Fatalf("%s: SgemmKernelIndirectRows accepted bad arguments", l)
				}
			}
		})
	}
}

// TestSoftmaxRows holds SoftmaxRowsF32 to its twin at every level: rows of
// every length it takes, values spread wide (exp underflowing to 0 and
// denormals), causal-mask rows of -Inf, and rows with a NaN or an infinite
// maximum, before which it must stop; guard bands stay untouched, in place
// too; and it refuses lengths it does not take.
func TestSoftmaxRows(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	for _, l := range levels() {
		withLevel(t, l, func() {
			for _, n := range []int{16, 17, 23, 24, 32, 40, 48, 49, 56, 63, 64, 65, 128, 136, 197, 384, 504, 505, 511} {
				for it := 0; it < 8; it++ {
					rows := 1 + r.Intn(9)
					x := make([]float32, rows*n)
					for i := range x {
						x[i] = float32(r.NormFloat64() * float64(1+20*(it%3)))
						if it%4 == 3 && i%n > (i/n)%n {
							x[i] = float32(math.Inf(-1))
						}
						if it == 5 && i%n == 0 {
							x[i] = 0
						} else if it == 5 {
							// Below the row's maximum (0) by 80 to 110, about
							// the -104 where exp's results become +0.
							x[i] = -80 - 30*r.Float32()
							if i%7 == 0 {
								x[i] = []float32{-104, math.Nextafter32(-104, 0), math.Nextafter32(-104, -200), -103.97208}[i/7%4]
							}
						}
					}
					if it >= 6 { // a row that stops the kernel
						bad := []float32{float32(math.NaN()), float32(math.Inf(1))}[it-6]
						x[r.Intn(rows)*n+r.Intn(n)] = bad
					}
					want := make([]float32, len(x))
					wrows := softmaxRowsGo(want, x, n)
					buf, got := guarded(len(x), 1)
					grows := SoftmaxRowsF32(got, x, n)
					checkGuards(t, l.String(), buf, len(x), 1)
					in := append([]float32(nil), x...)
					irows := SoftmaxRowsF32(in, in, n)
					if grows != wrows || irows != wrows {
						t.Fatalf("%s n=%d: %d rows done (in place %d), twin %d", l, n, grows, irows, wrows)
					}
					for i := 0; i < wrows*n; i++ {
						if !sameBits(got[i], want[i]) || !sameBits(in[i], want[i]) {
							t.Fatalf("%s n=%d [%d]: %v (in place %v), twin %v", l, n, i, got[i], in[i], want[i])
						}
					}
				}
			}
		})
	}
	for _, n := range []int{8, 12, 15, 512, 600} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SoftmaxRowsF32 took n=%d", n)
				}
			}()
			SoftmaxRowsF32(make([]float32, n), make([]float32, n), n)
		}()
	}
}

// TestCombine64MatchesTwin requires the reductions' combine kernel to give
// sumCombine64's bits, a NaN's payload included (an add of two NaNs keeps
// the lower partial's), on partial sums with NaNs, infinities, signed zeros
// and values that round differently in another order.
func TestCombine64MatchesTwin(t *testing.T) {
	if level == LevelGo {
		t.Skip("no assembly in this build")
	}
	r := rand.New(rand.NewSource(45))
	for it := 0; it < 2000; it++ {
		var acc [64]float32
		for i := range acc {
			switch r.Intn(12) {
			case 0:
				acc[i] = math.Float32frombits(0x7fc00000 | uint32(r.Intn(1<<22)) | uint32(r.Intn(2))<<31)
			case 1:
				acc[i] = float32(math.Inf(2*r.Intn(2) - 1))
			case 2:
				acc[i] = float32(math.Copysign(0, float64(2*r.Intn(2)-1)))
			default:
				acc[i] = (r.Float32()*2 - 1) * float32(math.Pow(2, float64(r.Intn(40)-20)))
			}
		}
		want := acc
		w := sumCombine64(&want)
		got := acc
		if g := asmCombine64(&got); math.Float32bits(g) != math.Float32bits(w) {
			t.Fatalf("partials %v: %#x, twin %#x", acc, math.Float32bits(g), math.Float32bits(w))
		}
	}
}
