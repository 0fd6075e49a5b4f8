package kernels

import (
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
			for _, x := range [][]float32{a.Float32s(), b.Float32s()} {
				for i := range x {
					switch r.Intn(8) {
					case 0:
						x[i] = math.Float32frombits(0x7fc00000 | uint32(r.Intn(1<<22)) | uint32(r.Intn(2))<<31)
					case 1:
						x[i] = float32(math.Inf(1 - 2*r.Intn(2)))
					case 2:
						x[i] = float32(math.Copysign(0, float64(r.Intn(2)*2-1)))
					}
				}
			}
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
