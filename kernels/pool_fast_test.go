package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// TestMaxPoolNCHWFastPath compares the NCHW max-pooling path with the
// general one-output-at-a-time loop over random geometries (strides,
// dilations, asymmetric padding, ceil mode) and data with NaNs, -Inf and
// signed zeros, in float32 and int32. Outputs are written inside a guard
// band that must stay untouched.
func TestMaxPoolNCHWFastPath(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for it := 0; it < 300; it++ {
		h, w := 1+r.Intn(13), 1+r.Intn(40)
		a := randPool2DAttrs(r)
		x := randT(t, int64(it), []int64{2, 3, int64(h), int64(w)}, f32, -4, 4)
		xs := x.Float32s()
		for i := range xs {
			switch r.Intn(20) {
			case 0:
				xs[i] = float32(math.NaN())
			case 1:
				xs[i] = float32(math.Inf(-1))
			case 2:
				xs[i] = float32(math.Copysign(0, -1))
			case 3:
				xs[i] = math.Float32frombits(0x7fc00000 | uint32(r.Intn(1<<20)))
			case 4:
				xs[i] = 0
			}
		}
		g, err := resolvePool2D("test", x, &a)
		if err != nil || g.oh <= 0 || g.ow <= 0 {
			continue
		}
		n := g.n * g.c * g.oh * g.ow
		const guard = 16
		lowest := float32(-math.MaxFloat32)
		fast := make([]float32, n+2*guard)
		for i := range fast {
			fast[i] = 12345
		}
		want := make([]float32, n)
		maxPlanesNCHW(&g, fast[guard:guard+n], xs, lowest, 0, g.n*g.c)
		poolPlanesGeneral(&g, want, xs, true, lowest, 0, g.n*g.c)
		what := fmt.Sprintf("%dx%d %+v", h, w, a)
		for i := range want {
			got := fast[guard+i]
			if (got != got) != (want[i] != want[i]) || (want[i] == want[i] && got != want[i]) {
				t.Fatalf("%s: [%d] fast %v, general %v", what, i, got, want[i])
			}
		}
		for i := 0; i < guard; i++ {
			if fast[i] != 12345 || fast[len(fast)-1-i] != 12345 {
				t.Fatalf("%s: wrote outside the output", what)
			}
		}
		// Integers take the same path.
		xi := make([]int32, len(xs))
		for i, v := range xs {
			if v == v && !math.IsInf(float64(v), 0) {
				xi[i] = int32(v * 100)
			}
		}
		fi, wi := make([]int32, n), make([]int32, n)
		maxPlanesNCHW(&g, fi, xi, math.MinInt32, 0, g.n*g.c)
		poolPlanesGeneral(&g, wi, xi, true, math.MinInt32, 0, g.n*g.c)
		for i := range wi {
			if fi[i] != wi[i] {
				t.Fatalf("%s int32: [%d] fast %d, general %d", what, i, fi[i], wi[i])
			}
		}
	}
}

// TestMaxPoolTapMatchesScalar compares float32 max pooling's
// plane-at-a-time path (maxPoolTap: -Inf padded, phase-split planes,
// asm.TapMaxF32) with the scalar loops, bit for bit (NaN payloads, signed
// zeros, -Inf), over random geometries: kernel sizes, strides 1-3,
// dilations, asymmetric padding, ceil mode, batches, at 1 and 2 threads;
// every fourth is the common 2x2 window at stride 2 (planesPairs), and
// another fourth the 3x3 window at stride 2 (pool3x3S2), padded or not.
func TestMaxPoolTapMatchesScalar(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	tried := 0
	for it := 0; it < 300; it++ {
		h, w := 1+r.Intn(20), 1+r.Intn(40)
		a := randPool2DAttrs(r)
		if it%4 == 3 {
			// The 2x2, stride-2 window (planesPairs).
			a = Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}, Dilation: []int64{1, 1}, Padding: []int64{0, 0, 0, 0}}
			h, w = 2+r.Intn(20), 2+r.Intn(40)
		}
		if it%4 == 1 {
			// The 3x3, stride-2 window (pool3x3S2): read in place without
			// padding; from a padded plane with it, or in ceil mode when
			// the last windows leave the plane.
			a = Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{2, 2}, Dilation: []int64{1, 1}, Padding: []int64{0, 0, 0, 0}, CeilMode: r.Intn(2) == 0}
			if r.Intn(2) == 0 {
				a.Padding = []int64{int64(r.Intn(2)), int64(r.Intn(2)), int64(r.Intn(2)), int64(r.Intn(2))}
			}
			h, w = 3+r.Intn(20), 3+r.Intn(40)
		}
		x := randT(t, int64(it), []int64{int64(1 + r.Intn(2)), int64(1 + r.Intn(5)), int64(h), int64(w)}, f32, -4, 4)
		sprinkleSpecials(r, 16, x.Float32s())
		g, err := resolvePool2D("test", x, &a)
		if err != nil || g.oh <= 0 || g.ow <= 0 {
			continue
		}
		tried++
		maxPoolVsScalar(t, x, a, 1+it%2, fmt.Sprintf("%v %+v", x.Shape(), a))
	}
	if tried < 100 {
		t.Fatalf("only %d geometries tried", tried)
	}
}

// TestMaxPoolRowsMatchesScalar holds layers large enough to split over 2
// threads to the scalar loops bit for bit: one image's 2x2/2 and in-place
// 3x3/2 pools by output rows (maxPoolTapJob.rows), padded 3x3/2 pools
// (from whole padded planes and by bands of large ones) and a batch of two
// images by planes.
func TestMaxPoolRowsMatchesScalar(t *testing.T) {
	two := Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}, Dilation: []int64{1, 1}, Padding: []int64{0, 0, 0, 0}}
	three := Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{2, 2}, Dilation: []int64{1, 1}, Padding: []int64{0, 0, 0, 0}}
	threePad := Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{2, 2}, Dilation: []int64{1, 1}, Padding: []int64{1, 1, 1, 1}}
	threeCeil := Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{2, 2}, Dilation: []int64{1, 1}, Padding: []int64{0, 0, 0, 0}, CeilMode: true}
	r := rand.New(rand.NewSource(8))
	for i, c := range []struct {
		shape []int64
		a     Pool2DAttrs
	}{
		{[]int64{1, 32, 64, 64}, two}, {[]int64{1, 17, 90, 67}, two}, {[]int64{1, 64, 111, 111}, three}, {[]int64{1, 20, 75, 60}, three},
		{[]int64{1, 24, 56, 56}, threePad}, {[]int64{2, 32, 64, 64}, two},
		// Padded planes past maxPoolBandMinFloats, pooled by bands
		// (planesThreeBands): ResNet's, ceil mode's last row and column
		// past the plane, asymmetric padding.
		{[]int64{1, 5, 112, 112}, threePad}, {[]int64{2, 3, 130, 96}, threeCeil},
		{[]int64{1, 4, 117, 101}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{2, 2}, Dilation: []int64{1, 1}, Padding: []int64{1, 0, 0, 1}}},
	} {
		x := randT(t, int64(i), c.shape, f32, -4, 4)
		sprinkleSpecials(r, 64, x.Float32s())
		maxPoolVsScalar(t, x, c.a, 2, fmt.Sprintf("%v %+v", c.shape, c.a))
	}
}

// TestMaxPoolBlocksMatchesScalar runs planesBlocks over enough small planes
// for several blocks (the later ones reuse the first's padding) and
// compares it with the scalar loops bit for bit at 1 and 2 threads:
// GoogLeNet's 3x3/1 padded pools on 7x7 and 14x14 (batches of images
// too), its 3x3/2 on 13x13 in ceil mode (rows shorter than the row
// kernels'), and a 3x3 at strides 3x2 (row phases) on 9x11; and the 2x2/2
// pools of whole windows on rows that short, whose rows are split by
// parity instead (planesSplitRows): GoogLeNet's on 14x14, and two images
// of 97 planes of 10x6 (blocks that end inside an image).
func TestMaxPoolBlocksMatchesScalar(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i, c := range []struct {
		shape []int64
		a     Pool2DAttrs
	}{
		{[]int64{1, 700, 7, 7}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1, 1, 1}, CeilMode: true}},
		{[]int64{2, 130, 14, 14}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1, 1, 1}, CeilMode: true}},
		{[]int64{1, 300, 14, 14}, Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}, CeilMode: true}},
		{[]int64{2, 97, 10, 6}, Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}}},
		{[]int64{1, 260, 13, 13}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{2, 2}, CeilMode: true}},
		{[]int64{2, 150, 9, 11}, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{3, 2}, Padding: []int64{1, 0, 2, 1}}},
	} {
		x := randT(t, int64(40+i), c.shape, f32, -4, 4)
		sprinkleSpecials(r, 16, x.Float32s())
		a := c.a
		g, err := resolvePool2D("test", x, &a)
		if err != nil {
			t.Fatal(err)
		}
		if !maxPoolBlocksOK(&g) {
			t.Fatalf("%v %+v: not planesBlocks' geometry", c.shape, c.a)
		}
		for _, th := range []int{1, 2} {
			maxPoolVsScalar(t, x, c.a, th, fmt.Sprintf("%v %+v threads=%d", c.shape, c.a, th))
		}
	}
}

// maxPoolVsScalar pools x with a at threads threads on the vector paths and
// on the scalar loops (poolMaxVector off) and fails t, naming what, at the
// first output whose bits differ.
func maxPoolVsScalar(t *testing.T, x *runtime.Tensor, a Pool2DAttrs, threads int, what string) {
	t.Helper()
	defer SetNumThreads(0)
	defer func() { poolMaxVector = true }()
	SetNumThreads(threads)
	g, err := resolvePool2D("test", x, &a)
	if err != nil {
		t.Fatal(err)
	}
	want, got := mustT(t, g.outShape[:], f32), mustT(t, g.outShape[:], f32)
	poolMaxVector = false
	if err := MaxPool2D(want, x, a); err != nil {
		t.Fatal(err)
	}
	poolMaxVector = true
	if err := MaxPool2D(got, x, a); err != nil {
		t.Fatal(err)
	}
	for k, v := range want.Float32s() {
		if gv := got.Float32s()[k]; math.Float32bits(gv) != math.Float32bits(v) {
			t.Fatalf("%s: [%d] %08x, scalar %08x", what, k, math.Float32bits(gv), math.Float32bits(v))
		}
	}
}

// randPool2DAttrs draws a pooling geometry: window 1-4, strides 1-3,
// dilations 1-2, asymmetric padding 0-2, ceil mode or not.
func randPool2DAttrs(r *rand.Rand) Pool2DAttrs {
	return Pool2DAttrs{
		PoolSize: []int64{int64(1 + r.Intn(4)), int64(1 + r.Intn(4))},
		Strides:  []int64{int64(1 + r.Intn(3)), int64(1 + r.Intn(3))},
		Dilation: []int64{int64(1 + r.Intn(2)), int64(1 + r.Intn(2))},
		Padding:  []int64{int64(r.Intn(3)), int64(r.Intn(3)), int64(r.Intn(3)), int64(r.Intn(3))},
		CeilMode: r.Intn(2) == 0,
	}
}

// TestAvgPoolNCHWFastPath compares float32 average pooling's NCHW paths
// (the row path, and the flat path where avgFlatOK: strides up to 2, and
// count_include_pad padding copied into zeros) with the general
// one-output-at-a-time loop, bit for bit (NaN-ness for NaNs), over random
// geometries with signed zeros, infinities and NaNs in the data; every
// fourth is DenseNet's 2x2 window at stride 2 and every fourth Inception's
// 3x3/1 with padding 1 and count_include_pad, both on the flat path.
func TestAvgPoolNCHWFastPath(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	flat := 0
	for it := 0; it < 400; it++ {
		h, w := 1+r.Intn(13), 1+r.Intn(40)
		a := randPool2DAttrs(r)
		a.CountIncludePad = r.Intn(2) == 0
		switch it % 4 {
		case 0:
			a = Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}}
		case 1:
			a = Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1, 1, 1}, CountIncludePad: true}
		}
		x := randT(t, int64(it), []int64{2, 3, int64(h), int64(w)}, f32, -4, 4)
		xs := x.Float32s()
		for i := range xs {
			switch r.Intn(24) {
			case 0:
				xs[i] = float32(math.NaN())
			case 1:
				xs[i] = float32(math.Inf(-1))
			case 2, 3:
				xs[i] = float32(math.Copysign(0, -1))
			case 4:
				xs[i] = 0
			}
		}
		g, err := resolvePool2D("test", x, &a)
		if err != nil || g.oh <= 0 || g.ow <= 0 {
			continue
		}
		if avgFlatOK(&g) {
			flat++
		} else if it%4 < 2 && g.oh > 0 && h >= 2 && w >= 2 {
			t.Fatalf("%dx%d %+v: not on the flat path", h, w, a)
		}
		checkAvgPlanes(t, fmt.Sprintf("%dx%d %+v", h, w, a), &g, xs, func(o []float32) {
			avgPlanesNCHW(&g, o, xs, 0, g.n*g.c)
		})
	}
	if flat < 150 {
		t.Errorf("only %d geometries on the flat path", flat)
	}
}

// TestAvgPoolFlatBlocks runs the flat average pool's blocks of planes
// (several blocks a call; padded with and without count_include_pad, the
// latter's divisors by avgDivisors' map, unpadded, and ceil mode's windows
// past the plane; the planes split into ranges as the threads split them)
// against the general
// loop, bit for bit, with signed zeros, infinities and NaNs in the data.
func TestAvgPoolFlatBlocks(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, c := range []struct {
		c, h, w int64
		a       Pool2DAttrs
	}{
		{100, 17, 17, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1, 1, 1}, CountIncludePad: true}},
		{70, 35, 35, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1, 1, 1}, CountIncludePad: true}},
		{90, 19, 21, Pool2DAttrs{PoolSize: []int64{3, 2}, Strides: []int64{2, 1}, Padding: []int64{0, 2, 1, 0}, CountIncludePad: true}},
		{120, 19, 19, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}}},
		{100, 9, 40, Pool2DAttrs{PoolSize: []int64{2, 3}, Strides: []int64{1, 1}, Dilation: []int64{2, 1}}},
		{80, 19, 19, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1, 1, 1}}},                 // divisors by the map
		{60, 27, 27, Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}, CeilMode: true}},                               // ceil mode's last windows
		{50, 23, 25, Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{0, 1, 2, 2}, CeilMode: true}}, // asymmetric, no count_include_pad
	} {
		x := randT(t, c.c, []int64{1, c.c, c.h, c.w}, f32, -4, 4)
		xs := x.Float32s()
		sprinkleSpecials(r, 24, xs)
		g, err := resolvePool2D("test", x, &c.a)
		if err != nil {
			t.Fatal(err)
		}
		if !avgFlatOK(&g) {
			t.Fatalf("%+v: not on the flat path", c)
		}
		if (g.h+g.pt+g.pb)*(g.w+g.pl+g.pr)*g.c < 2*avgPoolBlockFloats {
			t.Fatalf("%+v: fewer than two blocks", c)
		}
		checkAvgPlanes(t, fmt.Sprintf("%+v", c), &g, xs, func(o []float32) {
			for lo := 0; lo < g.c; {
				hi := min(g.c, lo+1+r.Intn(g.c/2))
				avgPlanesFlat(&g, o, xs, lo, hi) // (3x3/1 padding 1 take avgPlanesS1 in avgPlanesNCHW)
				lo = hi
			}
		})
	}
}

// checkAvgPlanes requires run, writing g's average pool of xs into its
// argument (guard bands of 16 floats either side), to give the general
// loop's bits (NaN-ness for NaNs) and to write nothing outside it.
func checkAvgPlanes(t *testing.T, what string, g *pool2dGeom, xs []float32, run func(o []float32)) {
	t.Helper()
	n := g.n * g.c * g.oh * g.ow
	const guard = 16
	fast := make([]float32, n+2*guard)
	for i := range fast {
		fast[i] = 12345
	}
	want := make([]float32, n)
	poolPlanesGeneral(g, want, xs, false, 0, 0, g.n*g.c)
	run(fast[guard : guard+n])
	for i := range want {
		got := fast[guard+i]
		if (got != got) != (want[i] != want[i]) || want[i] == want[i] && math.Float32bits(got) != math.Float32bits(want[i]) {
			t.Fatalf("%s: [%d] fast %v, general %v", what, i, got, want[i])
		}
	}
	for i := 0; i < guard; i++ {
		if fast[i] != 12345 || fast[len(fast)-1-i] != 12345 {
			t.Fatalf("%s: wrote outside the output", what)
		}
	}
}

// TestMaxPoolS1MatchesScalar holds the 3x3, stride-1 pools with padding 1
// (GoogLeNet's and Inception's branch pools) to the scalar loops bit for
// bit at 1 and 2 threads: with zeros and infinities on
// asm.MaxPool3x3S1P1F32 where the level has it, with negative zeros too
// (AVX2's kernel hands those planes back), and with one NaN, whose planes
// go by the exact paths (the taps' order then decides the bits).
func TestMaxPoolS1MatchesScalar(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	a := Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1, 1, 1}, CeilMode: true}
	zeroInf := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1))}
	for i, shape := range [][]int64{{1, 700, 7, 7}, {2, 130, 14, 14}, {1, 40, 28, 28}, {1, 3, 1, 37}, {2, 5, 9, 70}} {
		for c, nan := range []bool{false, false, true} {
			specials := zeroInf
			if c == 0 {
				specials = []float32{0, float32(math.Inf(1)), float32(math.Inf(-1))}
			}
			x := randT(t, int64(60+i), shape, f32, -4, 4)
			xs := x.Float32s()
			for k := range xs {
				if r.Intn(8) == 0 {
					xs[k] = specials[r.Intn(len(specials))]
				}
			}
			if nan {
				xs[r.Intn(len(xs))] = math.Float32frombits(0x7fc01234)
			}
			for _, th := range []int{1, 2} {
				maxPoolVsScalar(t, x, a, th, fmt.Sprintf("%v nan=%v threads=%d", shape, nan, th))
			}
		}
	}
}

// TestAvgPoolS1Path holds the 3x3, stride-1 average pools with padding 1
// (Inception's branch pools; with and without count_include_pad) to the
// general loop at 1 and 2 threads, through AvgPool2D, with signed zeros,
// infinities and NaNs in the data: asm.AvgPool3x3S1P1F32 on planes read in
// place, one row or column, rows of partial and several vectors.
func TestAvgPoolS1Path(t *testing.T) {
	r := rand.New(rand.NewSource(14))
	for i, shape := range [][]int64{{1, 100, 17, 17}, {2, 9, 35, 35}, {1, 40, 8, 8}, {1, 5, 1, 37}, {2, 3, 21, 1}, {1, 4, 2, 70}, {1, 3, 9, 130}} {
		for _, incl := range []bool{true, false} {
			a := Pool2DAttrs{PoolSize: []int64{3, 3}, Strides: []int64{1, 1}, Padding: []int64{1, 1, 1, 1}, CountIncludePad: incl, CeilMode: i%2 == 0}
			avgPoolPathVsGeneral(t, r, int64(80+i), shape, a, avgS1OK, fmt.Sprintf("%v include_pad=%v", shape, incl))
		}
	}
}

// TestAvgPool2x2Path runs 2x2/2 average pools on asm.AvgPool2x2F32
// (avgPlanes2x2: DenseNet's transitions, stacked planes in one call; odd
// heights and widths, whose last row and column no window reads, plane by
// plane) against the general loop, bit for bit but NaN payloads, with
// signed zeros, infinities and NaNs in the data, at 1 and 2 threads; and
// checks that those geometries take that path.
func TestAvgPool2x2Path(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	a := Pool2DAttrs{PoolSize: []int64{2, 2}, Strides: []int64{2, 2}}
	for i, shape := range [][]int64{{1, 40, 56, 56}, {2, 7, 28, 28}, {1, 5, 21, 37}, {2, 3, 16, 16}, {1, 9, 3, 17}} {
		avgPoolPathVsGeneral(t, r, int64(70+i), shape, a, avgPool2x2OK, fmt.Sprint(shape))
	}
}

// avgPoolPathVsGeneral runs AvgPool2D with a on a random float32 input of
// shape (seed; signed zeros, infinities and NaNs sprinkled in with r) at 1
// and 2 threads against the general loop (checkAvgPlanes), after checking
// that onPath accepts the geometry.
func avgPoolPathVsGeneral(t *testing.T, r *rand.Rand, seed int64, shape []int64, a Pool2DAttrs, onPath func(*pool2dGeom) bool, what string) {
	t.Helper()
	defer SetNumThreads(0)
	x := randT(t, seed, shape, f32, -4, 4)
	xs := x.Float32s()
	sprinkleSpecials(r, 8, xs)
	g, err := resolvePool2D("test", x, &a)
	if err != nil {
		t.Fatal(err)
	}
	if !onPath(&g) {
		t.Fatalf("%s: not on the path", what)
	}
	for _, th := range []int{1, 2} {
		SetNumThreads(th)
		checkAvgPlanes(t, fmt.Sprintf("%s threads=%d", what, th), &g, xs, func(o []float32) {
			out := mustT(t, g.outShape[:], f32)
			if err := AvgPool2D(out, x, a); err != nil {
				t.Fatal(err)
			}
			copy(o, out.Float32s())
		})
	}
}
