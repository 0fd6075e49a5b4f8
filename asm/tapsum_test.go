package asm

import (
	"math"
	"math/rand"
	"testing"
)

// TestTapSum compares TapSumF32 with its twin at every level on odd sizes,
// tap counts and offsets, with guard bands around dst, special values in
// base and w (NaNs with payloads, infinities, signed zeros), and checks the
// twin against the sum written out.
func TestTapSum(t *testing.T) {
	defer func(l Level) { _ = SetLevel(l) }(CurrentLevel())
	r := rand.New(rand.NewSource(7))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00123), 1e-45, 3.4e38}
	for _, l := range levels() {
		if err := SetLevel(l); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 7, 8, 9, 31, 63, 64, 65, 130, 257} {
			for _, ntaps := range []int{0, 1, 4, 9, 25} {
				for _, special := range []bool{false, true} {
					base := make([]float32, n+40)
					for i := range base {
						base[i] = float32(r.NormFloat64())
						if special && r.Intn(8) == 0 {
							base[i] = specials[r.Intn(len(specials))]
						}
					}
					offs := make([]int, ntaps)
					w := make([]float32, ntaps)
					for k := range offs {
						offs[k] = r.Intn(41)
						w[k] = float32(r.NormFloat64())
						if special && r.Intn(4) == 0 {
							w[k] = specials[r.Intn(len(specials))]
						}
					}
					want := make([]float32, n)
					tapSumGo(want, base, offs, w)
					buf := make([]float32, n+32)
					for i := range buf {
						buf[i] = 777
					}
					got := buf[16 : 16+n]
					TapSumF32(got, base, offs, w)
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s n=%d taps=%d: [%d] %v (%#x), twin %v (%#x)", l, n, ntaps, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
						}
						var acc float32
						for k, o := range offs {
							p := base[o+i] * w[k]
							acc += p
						}
						// Plain Go picks among NaNs by register allocation.
						if bothNaN := want[i] != want[i] && acc != acc; !bothNaN && math.Float32bits(want[i]) != math.Float32bits(acc) {
							t.Fatalf("twin [%d] = %v, want %v", i, want[i], acc)
						}
					}
					for i := 0; i < 16; i++ {
						if buf[i] != 777 || buf[len(buf)-1-i] != 777 {
							t.Fatalf("%s n=%d: wrote outside dst", l, n)
						}
					}
				}
			}
		}
	}
}

func TestTapSumBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		offs []int
		w    []float32
	}{
		{"negative", []int{-1}, []float32{1}},
		{"past end", []int{3}, []float32{1}},
		{"short w", []int{0, 1}, []float32{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			TapSumF32(make([]float32, 8), make([]float32, 10), tc.offs, tc.w)
		})
	}
}

// TestInterleave2 checks Interleave2F32 at every level on odd lengths, with
// guard bands, and that Deinterleave2RowsF32 on one row undoes it.
func TestInterleave2(t *testing.T) {
	defer func(l Level) { _ = SetLevel(l) }(CurrentLevel())
	for _, l := range levels() {
		if err := SetLevel(l); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 7, 8, 9, 17, 64, 101} {
			even, odd := make([]float32, n), make([]float32, n)
			for k := range even {
				even[k], odd[k] = float32(k)+0.25, -float32(k)-0.5
			}
			buf := make([]float32, 2*n+32)
			for i := range buf {
				buf[i] = 777
			}
			dst := buf[16 : 16+2*n]
			Interleave2F32(dst, even, odd)
			for k := 0; k < n; k++ {
				if dst[2*k] != even[k] || dst[2*k+1] != odd[k] {
					t.Fatalf("%s n=%d: [%d] = %v, %v", l, n, k, dst[2*k], dst[2*k+1])
				}
			}
			for i := 0; i < 16; i++ {
				if buf[i] != 777 || buf[len(buf)-1-i] != 777 {
					t.Fatalf("%s n=%d: wrote outside dst", l, n)
				}
			}
			e2, o2 := make([]float32, n), make([]float32, n)
			Deinterleave2RowsF32(e2, o2, n, dst, 2*n, 1, n)
			for k := range e2 {
				if e2[k] != even[k] || o2[k] != odd[k] {
					t.Fatalf("%s n=%d: round trip [%d]", l, n, k)
				}
			}
		}
	}
}

// TestTapSumChain compares TapSumChainF32 at every level with TapSumF32's
// twin followed by the chain's twin, bit for bit, on sizes around both
// vector widths, tap counts, random chains (every step code, special
// scalars) and inputs with special values, with guard bands around dst.
func TestTapSumChain(t *testing.T) {
	defer func(l Level) { _ = SetLevel(l) }(CurrentLevel())
	r := rand.New(rand.NewSource(17))
	sp := specials()
	for _, l := range levels() {
		if err := SetLevel(l); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 64, 130, 257} {
			for _, ntaps := range []int{0, 1, 4, 9} {
				for _, steps := range []int{0, 1, 5} {
					base := make([]float32, n+40)
					for i := range base {
						base[i] = float32(r.NormFloat64())
						if r.Intn(10) == 0 {
							base[i] = sp[r.Intn(len(sp))]
						}
					}
					offs, w := make([]int, ntaps), make([]float32, ntaps)
					for k := range offs {
						offs[k] = r.Intn(41)
						w[k] = float32(r.NormFloat64())
						if r.Intn(10) == 0 {
							w[k] = sp[r.Intn(len(sp))]
						}
					}
					codes, sc := randChain(r, steps, sp)
					off := r.Intn(4)
					buf, dst := guarded(n, off)
					TapSumChainF32(dst, base, offs, w, codes, sc)
					want := make([]float32, n)
					tapSumGo(want, base, offs, w)
					scalarChainGo(want, want, codes, sc)
					for i := range want {
						if g, wb := math.Float32bits(dst[i]), math.Float32bits(want[i]); g != wb {
							t.Fatalf("%s n=%d taps=%d steps=%d: [%d] %#x, want %#x", l, n, ntaps, steps, i, g, wb)
						}
					}
					checkGuards(t, l.String(), buf, n, off)
				}
			}
		}
	}
	b := make([]float32, 64)
	one := []float32{1}
	mustPanic(t, "TapSumChainF32",
		func() { TapSumChainF32(make([]float32, 8), b, []int{57}, one, nil, nil) },          // tap past base
		func() { TapSumChainF32(make([]float32, 8), b, []int{0, 1}, one, nil, nil) },        // short w
		func() { TapSumChainF32(make([]float32, 8), b, []int{0}, one, []uint8{99}, one) },   // bad code
		func() { TapSumChainF32(make([]float32, 8), b, []int{0}, one, []uint8{0, 0}, one) }, // short scalars
	)
}
