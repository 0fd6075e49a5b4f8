package half

import (
	"math"
	"math/rand"
	"testing"
)

func TestAgainstNumPy(t *testing.T) {
	for _, c := range numpyF32ToF16 {
		if got := Float32ToFloat16(math.Float32frombits(c.in)); got != c.out {
			t.Errorf("Float32ToFloat16(%#08x) = %#04x, NumPy gives %#04x", c.in, got, c.out)
		}
	}
	for _, c := range numpyF64ToF16 {
		if got := Float64ToFloat16(math.Float64frombits(c.in)); got != c.out {
			t.Errorf("Float64ToFloat16(%#016x) = %#04x, NumPy gives %#04x", c.in, got, c.out)
		}
	}
	for _, c := range numpyF16ToF32 {
		if got := math.Float32bits(Float16ToFloat32(c.in)); got != c.out {
			t.Errorf("Float16ToFloat32(%#04x) = %#08x, NumPy gives %#08x", c.in, got, c.out)
		}
	}
}

// codec is one 16-bit format seen through the package's functions.
type codec struct {
	name   string
	widen  func(uint16) float32
	from32 func(float32) uint16
	from64 func(float64) uint16
}

var codecs = []codec{
	{"float16", Float16ToFloat32, Float32ToFloat16, Float64ToFloat16},
	{"bfloat16", BFloat16ToFloat32, Float32ToBFloat16, Float64ToBFloat16},
}

// TestRoundTrip: every 16-bit pattern, NaNs included, survives widening and
// narrowing unchanged (from float64, NaNs excepted).
func TestRoundTrip(t *testing.T) {
	for _, c := range codecs {
		for i := 0; i < 1<<16; i++ {
			h := uint16(i)
			w := c.widen(h)
			if got := c.from32(w); got != h {
				t.Fatalf("%s: %#04x widens to %v and narrows back to %#04x", c.name, h, w, got)
			}
			// float32 -> float64 conversion quiets NaNs on amd64.
			if got := c.from64(float64(w)); got != h && w == w {
				t.Fatalf("%s: %#04x via float64 narrows back to %#04x", c.name, h, got)
			}
		}
	}
}

// nearest finds the finite 16-bit value nearest to v by exhaustive search
// (ties to the even encoding), or reports that v rounds to an infinity.
func nearest(c codec, v float64) uint16 {
	best, bestD := uint16(0), math.Inf(1)
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		w := float64(c.widen(h))
		if math.IsNaN(w) || math.IsInf(w, 0) || math.Signbit(w) != math.Signbit(v) {
			continue
		}
		d := math.Abs(w - v)
		if d < bestD || d == bestD && h&1 == 0 {
			best, bestD = h, d
		}
	}
	// Overflow: beyond the largest finite value plus half an ulp.
	maxH := best
	if math.Abs(v) >= math.Abs(float64(c.widen(maxH))) {
		next := float64(c.widen(maxH + 1)) // the infinity after the largest finite
		if math.IsInf(next, 0) {
			prev := float64(c.widen(maxH - 1))
			limit := math.Abs(float64(c.widen(maxH))) + (math.Abs(float64(c.widen(maxH)))-math.Abs(prev))/2
			if math.Abs(v) >= limit {
				return maxH + 1
			}
		}
	}
	return best
}

// TestNarrowingIsNearest compares narrowing with an exhaustive search on
// random float64 values, which also covers ties, subnormals and overflow.
func TestNarrowingIsNearest(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, c := range codecs {
		for i := 0; i < 300; i++ {
			// A random 16-bit value, nudged by up to one ulp in either
			// direction, sometimes exactly halfway to its neighbour.
			h := uint16(rng.Intn(1 << 16))
			lo := float64(c.widen(h))
			hi := float64(c.widen(h + 1))
			if math.IsNaN(lo) || math.IsInf(lo, 0) || math.IsNaN(hi) || (h+1)&0x7fff == 0 {
				continue
			}
			v := lo + (hi-lo)*[]float64{0.5, rng.Float64(), 0.25, 0.75}[i%4]
			want := nearest(c, v)
			if got := c.from64(v); got != want {
				t.Errorf("%s: from float64 %v = %#04x, nearest is %#04x", c.name, v, got, want)
			}
			if v32 := float32(v); float64(v32) == v {
				if got := c.from32(v32); got != want {
					t.Errorf("%s: from float32 %v = %#04x, nearest is %#04x", c.name, v32, got, want)
				}
			}
		}
	}
}

func TestNaNPayloads(t *testing.T) {
	for _, c := range []struct {
		name string
		got  uint16
		want uint16
	}{
		{"bfloat16 signalling NaN keeps its top payload bits", Float32ToBFloat16(math.Float32frombits(0x7f810000)), 0x7f81},
		{"bfloat16 NaN with a low payload stays NaN", Float32ToBFloat16(math.Float32frombits(0xff800001)), 0xff81},
		{"bfloat16 quiet NaN", Float32ToBFloat16(math.Float32frombits(0x7fc00000)), 0x7fc0},
		{"bfloat16 from float64 NaN", Float64ToBFloat16(math.Float64frombits(0x7ff8000000000000)), 0x7fc0},
		{"bfloat16 overflow", Float32ToBFloat16(math.Float32frombits(0x7f7fffff)), 0x7f80},
		{"bfloat16 largest finite", Float32ToBFloat16(math.Float32frombits(0x7f7f7fff)), 0x7f7f},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %#04x, want %#04x", c.name, c.got, c.want)
		}
	}
	if r := RoundFloat16(1.0 / 3); r != Float16ToFloat32(0x3555) {
		t.Errorf("RoundFloat16(1/3) = %v", r)
	}
	if r := RoundBFloat16(1.0 / 3); r != BFloat16ToFloat32(0x3eab) {
		t.Errorf("RoundBFloat16(1/3) = %v", r)
	}
}
