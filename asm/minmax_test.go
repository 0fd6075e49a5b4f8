package asm

import (
	"math"
	"testing"
)

// TestMinMaxSpecials runs the max/min kernels at every level on every pair
// of special values (NaNs with payloads and signs, signalling NaNs, signed
// zeros, infinities, ordinary numbers) and requires exactly the bits of Go's
// own max and min, for the binary and the scalar forms.
func TestMinMaxSpecials(t *testing.T) {
	vals := []float32{
		math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00002), math.Float32frombits(0x7f800003),
		math.Float32frombits(0xff800004), 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		1, -1, 3.5, -2.25, math.MaxFloat32, math.SmallestNonzeroFloat32,
	}
	var xs, ys []float32
	for _, a := range vals {
		for _, b := range vals {
			xs, ys = append(xs, a), append(ys, b)
		}
	}
	defer func(l Level) { _ = SetLevel(l) }(CurrentLevel())
	for _, l := range levels() {
		if err := SetLevel(l); err != nil {
			t.Fatal(err)
		}
		gotMax, gotMin := make([]float32, len(xs)), make([]float32, len(xs))
		MaxF32(gotMax, xs, ys)
		MinF32(gotMin, xs, ys)
		for i := range xs {
			if w := max(xs[i], ys[i]); math.Float32bits(gotMax[i]) != math.Float32bits(w) {
				t.Errorf("%s: max(%08x, %08x) = %08x, Go gives %08x", l, math.Float32bits(xs[i]), math.Float32bits(ys[i]), math.Float32bits(gotMax[i]), math.Float32bits(w))
			}
			if w := min(xs[i], ys[i]); math.Float32bits(gotMin[i]) != math.Float32bits(w) {
				t.Errorf("%s: min(%08x, %08x) = %08x, Go gives %08x", l, math.Float32bits(xs[i]), math.Float32bits(ys[i]), math.Float32bits(gotMin[i]), math.Float32bits(w))
			}
		}
		for _, s := range vals {
			MaxScalarF32(gotMax, xs, s)
			MinScalarF32(gotMin, xs, s)
			for i := range xs {
				// Go's max and min are symmetric, bit for bit: the kernels
				// serve max(s, x) too.
				if w := max(xs[i], s); math.Float32bits(gotMax[i]) != math.Float32bits(w) || math.Float32bits(max(s, xs[i])) != math.Float32bits(w) {
					t.Errorf("%s: maxScalar(%08x, %08x) = %08x, Go gives %08x", l, math.Float32bits(xs[i]), math.Float32bits(s), math.Float32bits(gotMax[i]), math.Float32bits(w))
				}
				if w := min(xs[i], s); math.Float32bits(gotMin[i]) != math.Float32bits(w) || math.Float32bits(min(s, xs[i])) != math.Float32bits(w) {
					t.Errorf("%s: minScalar(%08x, %08x) = %08x, Go gives %08x", l, math.Float32bits(xs[i]), math.Float32bits(s), math.Float32bits(gotMin[i]), math.Float32bits(w))
				}
			}
		}
	}
}

// TestMulAddScalar compares MulAddScalarF32 (dst is read and written) with
// its twin at every level on odd sizes and offsets, with guard bands, and
// checks that the product is rounded before the addition.
func TestMulAddScalar(t *testing.T) {
	defer func(l Level) { _ = SetLevel(l) }(CurrentLevel())
	for _, l := range levels() {
		if err := SetLevel(l); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 7, 8, 9, 31, 33, 100, 257} {
			for _, off := range []int{0, 3} {
				x := make([]float32, n+off)
				d0 := make([]float32, n)
				for i := range x {
					x[i] = float32(i%13)*0.37 - 2.1
				}
				for i := range d0 {
					d0[i] = float32(i%7)*1.3 - 4
				}
				const s = float32(1.0000001)
				want := append([]float32(nil), d0...)
				maddScalarGo(want, x[off:], s)
				buf := make([]float32, n+32)
				for i := range buf {
					buf[i] = 777
				}
				got := buf[16 : 16+n]
				copy(got, d0)
				MulAddScalarF32(got, x[off:off+n], s)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s n=%d off=%d: [%d] %v, twin %v", l, n, off, i, got[i], want[i])
					}
					if exp := d0[i] + float32(x[off+i]*s); math.Float32bits(want[i]) != math.Float32bits(exp) {
						t.Fatalf("twin [%d] = %v, want the product rounded first: %v", i, want[i], exp)
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
