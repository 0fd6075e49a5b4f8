package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// TestBinarySameShapeFastPath checks that float32 add, subtract, multiply
// and divide on operands of the output's shape (the one-row fast path) give
// the bits of the broadcasting plan's rows, NaN payloads, infinities and
// signed zeros included, over sizes around the vector width and shapes that
// differ only by leading ones.
func TestBinarySameShapeFastPath(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	for _, shapes := range [][2][]int64{{{7}, {7}}, {{3, 5}, {3, 5}}, {{1, 1, 9}, {9}}, {{1}, {1}}, {{4, 33}, {1, 4, 33}}} {
		for _, op := range []bop{bAdd, bSub, bMul, bDiv} {
			a := randT(t, r.Int63(), shapes[0], f32, -3, 3)
			b := randT(t, r.Int63(), shapes[1], f32, -3, 3)
			sprinkleSpecials(r, 8, a.Float32s(), b.Float32s())
			oshape := shapes[0]
			if len(shapes[1]) > len(oshape) {
				oshape = shapes[1]
			}
			got, want := mustT(t, oshape, f32), mustT(t, oshape, f32)
			if err := binary(op, got, a, b); err != nil {
				t.Fatal(err)
			}
			p := makePlan(oshape, a.Shape(), b.Shape())
			runBin(op, &p, want.Float32s(), a.Float32s(), b.Float32s(), floatRow[float32])
			for i, w := range want.Float32s() {
				if g := got.Float32s()[i]; math.Float32bits(g) != math.Float32bits(w) {
					t.Fatalf("%s %v %v: [%d] fast %08x, plan %08x", bopNames[op], shapes[0], shapes[1], i, math.Float32bits(g), math.Float32bits(w))
				}
			}
		}
	}
}

// TestBinaryPerRowMatchesPlan checks that float32 arithmetic with one value
// per short row (perRowOperand: the elementwise chain's blocks of rows)
// gives the bits of the broadcasting plan's rows on both operand sides, NaN
// payloads, infinities and signed zeros included, at 1 and 2 threads: row
// lengths at and around the bounds (8, ewShortRow) and between, operands of
// fewer dims, broadcast over leading dims, and one the route leaves alone;
// and in place, the output in the full operand's memory.
func TestBinaryPerRowMatchesPlan(t *testing.T) {
	defer SetNumThreads(0)
	r := rand.New(rand.NewSource(23))
	cases := []struct {
		full, row []int64
		routed    bool
	}{
		{[]int64{1, 1152, 7, 7}, []int64{1, 1152, 1, 1}, true}, // EfficientNet-B0's scale
		{[]int64{1, 96, 14, 14}, []int64{96, 1, 1}, true},
		{[]int64{3, 40, 8}, []int64{3, 40, 1}, true},       // rows of 8
		{[]int64{2, 5, 32, 32}, []int64{1, 5, 1, 1}, true}, // rows of ewShortRow, images broadcast
		{[]int64{4, 6, 5, 5}, []int64{4, 1, 1, 1}, true},   // rows of 150 over the channels
		{[]int64{6, 1025}, []int64{6, 1}, false},           // rows longer than ewShortRow
		{[]int64{40, 7}, []int64{40, 1}, false},            // rows of 7
		{[]int64{5, 9, 9}, []int64{1, 9, 9}, false},        // broadcast over the outer dims only
	}
	for _, c := range cases {
		for _, op := range []bop{bAdd, bSub, bMul, bDiv} {
			for _, rev := range []bool{false, true} {
				full := randT(t, r.Int63(), c.full, f32, -3, 3)
				row := randT(t, r.Int63(), c.row, f32, -3, 3)
				sprinkleSpecials(r, 10, full.Float32s(), row.Float32s())
				a, b := full, row
				if rev {
					a, b = row, full
				}
				if _, _, _, ok := perRowOperand(c.full, a, b); ok != c.routed {
					t.Fatalf("%v against %v: routed %v, want %v", c.full, c.row, ok, c.routed)
				}
				p := makePlan(c.full, a.Shape(), b.Shape())
				want := mustT(t, c.full, f32)
				runBin(op, &p, want.Float32s(), a.Float32s(), b.Float32s(), floatRow[float32])
				for _, th := range []int{1, 2} {
					SetNumThreads(th)
					got := mustT(t, c.full, f32)
					if err := binary(op, got, a, b); err != nil {
						t.Fatal(err)
					}
					for i, w := range want.Float32s() {
						if g := got.Float32s()[i]; math.Float32bits(g) != math.Float32bits(w) {
							t.Fatalf("%s %v %v rev=%v threads %d: [%d] %08x, plan %08x", bopNames[op], c.full, c.row, rev, th, i, math.Float32bits(g), math.Float32bits(w))
						}
					}
				}
				// In place, the output the full operand's memory (as a
				// memory plan may give an elementwise result).
				inPlace := mustT(t, c.full, f32)
				copy(inPlace.Float32s(), full.Float32s())
				ia, ib := inPlace, row
				if rev {
					ia, ib = row, inPlace
				}
				if err := binary(op, inPlace, ia, ib); err != nil {
					t.Fatal(err)
				}
				for i, w := range want.Float32s() {
					if g := inPlace.Float32s()[i]; math.Float32bits(g) != math.Float32bits(w) {
						t.Fatalf("%s %v %v rev=%v in place: [%d] %08x, plan %08x", bopNames[op], c.full, c.row, rev, i, math.Float32bits(g), math.Float32bits(w))
					}
				}
			}
		}
	}
}

// BenchmarkBinaryPerRow is a squeeze-and-excitation block's scale, x * s
// with s of shape (1, C, 1, 1), on EfficientNet-B0's planes, 1 thread,
// through the elementwise chain's blocks of rows (rows=chain) and through
// the broadcast plan (rows=plan).
func BenchmarkBinaryPerRow(b *testing.B) {
	defer func() { SetNumThreads(0); binRowsOn = true }()
	for _, sh := range [][2]int64{{1152, 7}, {672, 14}, {480, 14}, {240, 28}} {
		x := randT(b, 1, []int64{1, sh[0], sh[1], sh[1]}, f32, -3, 3)
		s := randT(b, 2, []int64{1, sh[0], 1, 1}, f32, -3, 3)
		out := mustT(b, x.Shape(), f32)
		for _, on := range []bool{true, false} {
			name := map[bool]string{true: "chain", false: "plan"}[on]
			b.Run(fmt.Sprintf("%dx%dx%d/rows=%s", sh[0], sh[1], sh[1], name), func(b *testing.B) {
				SetNumThreads(1)
				binRowsOn = on
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if err := Multiply(out, x, s); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(x.NumElements())*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gelem/s")
			})
		}
	}
}

// sprinkleSpecials replaces about one in every `every` values of each slice
// with a quiet NaN of random payload and sign, an infinity or a signed zero
// (three in every).
func sprinkleSpecials(r *rand.Rand, every int, xs ...[]float32) {
	for _, x := range xs {
		for i := range x {
			switch r.Intn(every) {
			case 0:
				x[i] = math.Float32frombits(0x7fc00000 | uint32(r.Intn(1<<22)) | uint32(r.Intn(2))<<31)
			case 1:
				x[i] = float32(math.Inf(1 - 2*r.Intn(2)))
			case 2:
				x[i] = float32(math.Copysign(0, float64(r.Intn(2)*2-1)))
			}
		}
	}
}

// TestPowSquare holds a float32 power by a one-element 2 (computed as x*x)
// to the general loop's math.Pow, bit for bit but for NaN payloads: signed
// zeros, subnormals and squares that underflow, overflow to Inf, infinities
// and NaN, with the exponent as a scalar and as a [1, 1] tensor.
func TestPowSquare(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 3.5, -7.25, 1e-20, -1e-23, 1e-40, 3e-39, 1e19, -2e19, 3.4e38,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.Nextafter32(1, 2), 1.9999999}
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 200; i++ {
		vals = append(vals, float32(r.NormFloat64()*math.Pow(10, float64(r.Intn(60)-30))))
	}
	x := mustT(t, []int64{int64(len(vals))}, f32)
	copy(x.Float32s(), vals)
	twos := mustT(t, []int64{int64(len(vals))}, f32)
	for i := range twos.Float32s() {
		twos.Float32s()[i] = 2
	}
	want := mustT(t, []int64{int64(len(vals))}, f32)
	if err := Power(want, x, twos); err != nil { // same shapes: the general loop
		t.Fatal(err)
	}
	for _, shape := range [][]int64{{}, {1}} {
		two := mustT(t, shape, f32)
		two.Float32s()[0] = 2
		got := mustT(t, []int64{int64(len(vals))}, f32)
		if err := Power(got, x, two); err != nil {
			t.Fatal(err)
		}
		for i, g := range got.Float32s() {
			w := want.Float32s()[i]
			if g != g && w != w {
				continue
			}
			if math.Float32bits(g) != math.Float32bits(w) {
				t.Fatalf("exponent shape %v: pow(%v, 2) = %v, math.Pow gives %v", shape, vals[i], g, w)
			}
		}
	}
}
