package asm

import (
	"math"
	"testing"
)

// TestSgemmNaNPropagation runs the micro-kernels at every level on NaNs and
// invalid products and requires the Go twins' bits: which NaN comes out
// when several meet (the broadcast A element's, then B's, then the
// accumulator's; the default NaN for inf*0 and inf-inf) must not depend on
// the SIMD level. FuzzDiffSIMDLevels found the twins disagreeing here.
func TestSgemmNaNPropagation(t *testing.T) {
	n1 := math.Float32frombits(0x7fc00001)
	n2 := math.Float32frombits(0xffc00002)
	s3 := math.Float32frombits(0xff800003) // signalling
	inf := float32(math.Inf(1))
	cases := []struct {
		name           string
		a0, b0, a1, b1 float32 // depth 0 and 1 of element (0, 0)
	}{
		{"acc NaN, then A NaN", n1, 1, n2, 1},
		{"acc NaN, then B NaN", n1, 1, 1, n2},
		{"A NaN and B NaN", n1, n2, 0, 0},
		{"B NaN and A NaN", n2, n1, 0, 0},
		{"inf*0", inf, 0, 0, 0},
		{"acc NaN, then inf*0", n1, 1, inf, 0},
		{"acc default NaN, then A NaN", inf, 0, n1, 1},
		{"signalling B", n1, 1, 1, s3},
		{"inf, then -inf", inf, 1, -inf, 1},
	}
	defer func(l Level) { _ = SetLevel(l) }(CurrentLevel())
	type kernel struct {
		name string
		run  func(c [4]float32) uint32
	}
	kernels := []kernel{
		{"SgemmKernel", func(c [4]float32) uint32 {
			mr, nr := SgemmTile()
			a, b, out := make([]float32, 2*mr), make([]float32, 2*nr), make([]float32, mr*nr)
			a[0], b[0], a[mr], b[nr] = c[0], c[1], c[2], c[3]
			if err := SgemmKernel(2, a, b, out, nr, 1, 0); err != nil {
				t.Fatal(err)
			}
			return math.Float32bits(out[0])
		}},
		{"SgemmKernelSmall", func(c [4]float32) uint32 {
			mr, nr := SgemmTileSmall()
			a, b, out := make([]float32, 2*mr), make([]float32, 2*nr), make([]float32, mr*nr)
			a[0], b[0], a[mr], b[nr] = c[0], c[1], c[2], c[3]
			if err := SgemmKernelSmall(2, a, b, out, nr, 1, 0); err != nil {
				t.Fatal(err)
			}
			return math.Float32bits(out[0])
		}},
		{"SgemmDirect", func(c [4]float32) uint32 {
			nr, ok := SgemmDirectTile(1)
			if !ok {
				return 0
			}
			a, b, out := []float32{c[0], c[2]}, make([]float32, 2*nr), make([]float32, nr)
			b[0], b[nr] = c[1], c[3]
			if err := SgemmDirect(1, 2, a, b, nr, out, nr, 1, 0); err != nil {
				t.Fatal(err)
			}
			return math.Float32bits(out[0])
		}},
	}
	for _, k := range kernels {
		for _, c := range cases {
			in := [4]float32{c.a0, c.b0, c.a1, c.b1}
			if err := SetLevel(LevelGo); err != nil {
				t.Fatal(err)
			}
			want := k.run(in)
			for l := LevelGo + 1; l <= MaxLevel(); l++ {
				if err := SetLevel(l); err != nil {
					t.Fatal(err)
				}
				if k.name == "SgemmDirect" {
					if _, ok := SgemmDirectTile(1); !ok {
						continue
					}
				}
				if got := k.run(in); got != want {
					t.Errorf("%s, %s at %s: %08x, the Go twin gives %08x", k.name, c.name, l, got, want)
				}
			}
		}
	}
}
