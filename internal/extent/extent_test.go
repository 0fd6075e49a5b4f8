package extent

import (
	"math"
	"testing"
)

func TestMul(t *testing.T) {
	cases := []struct {
		a, b, want int
		ok         bool
	}{
		{0, math.MaxInt64, 0, true},
		{3, 4, 12, true},
		{math.MaxInt64, 1, math.MaxInt64, true},
		{math.MaxInt64/2 + 1, 2, 0, false},
		{1 << 62, 4, 0, false},
		{-1, 2, 0, false},
	}
	for _, c := range cases {
		got, ok := Mul(c.a, c.b)
		if got != c.want || ok != c.ok {
			t.Errorf("Mul(%d, %d) = %d, %v; want %d, %v", c.a, c.b, got, ok, c.want, c.ok)
		}
	}
}

func TestConvDimOK(t *testing.T) {
	if !ConvDimOK(224, 3, 2, 1, 1, 1, 0) || !ConvDimOK(0, 0, 1, 1, 0, 0, 0) {
		t.Error("ordinary sizes rejected")
	}
	for _, c := range [][7]int64{
		{8, 3, 1, math.MaxInt64, 0, 0, 0},
		{8, 3, 1, 1, math.MaxInt64, 0, 0},
		{8, 3, 1, 1, math.MaxInt64 / 2, math.MaxInt64 / 2, 0},
		{8, 3, math.MaxInt64/4 + 1, 1, 0, 0, 0},
		{math.MaxInt64, 1, 1, 1, 0, 0, 0},
		{8, 3, 1, 1, math.MinInt64, 0, 0},
		{8, math.MinInt64, 1, 1, 0, 0, 0},
	} {
		if ConvDimOK(c[0], c[1], c[2], c[3], c[4], c[5], c[6]) {
			t.Errorf("ConvDimOK%v accepted", c)
		}
	}
}
