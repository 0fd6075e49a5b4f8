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
