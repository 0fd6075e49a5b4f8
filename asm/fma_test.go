package asm

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// fmaExact rounds the exact a*b + c to float32 (ties to even) with math/big.
func fmaExact(a, b, c float32) float32 {
	x := new(big.Float).SetPrec(400).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetPrec(400).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetPrec(400).SetFloat64(float64(c)))
	f, _ := x.Float32()
	return f
}

// TestFMA32 checks FMA32 against the exact result on random operands of
// every magnitude, on sums that cancel, and on the double-rounding cases
// that a plain float64 multiply-add rounded to float32 gets wrong.
func TestFMA32(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rnd := func() float32 {
		switch r.IntN(4) {
		case 0:
			return math.Float32frombits(r.Uint32()) // any bit pattern
		case 1:
			return float32(r.NormFloat64())
		case 2:
			return float32(r.NormFloat64()) * float32(math.Ldexp(1, r.IntN(60)-30))
		default:
			return float32(r.IntN(1<<24)) * float32(math.Ldexp(1, -r.IntN(30)))
		}
	}
	finite := func(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }
	check := func(a, b, c float32) {
		t.Helper()
		if !finite(a) || !finite(b) || !finite(c) {
			return
		}
		got, want := FMA32(a, b, c), fmaExact(a, b, c)
		if math.Float32bits(got) != math.Float32bits(want) && !(got == 0 && want == 0) {
			t.Fatalf("FMA32(%v, %v, %v) = %v, want %v", a, b, c, got, want)
		}
	}
	for range 200000 {
		a, b := rnd(), rnd()
		check(a, b, rnd())
		check(a, b, -a*b) // cancellation
	}
	// a*b + c lands exactly half an ulp of float32 away plus a tail below
	// float64's precision: rounding to float64 first would make a tie.
	for i := range 2000 {
		a := float32(1 + float64(i)/4096)
		b := float32(1 + math.Ldexp(1, -23))
		check(a, b, float32(math.Ldexp(1, -30)))
		check(a, b, -float32(math.Ldexp(1, -50)))
	}
	// (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 is a float32 midpoint; adding 2^-60
	// puts the exact sum just above it (round up), but a float64 sum loses
	// the 2^-60 and rounds the tie to even (down).
	a := float32(1 + math.Ldexp(1, -12))
	c := float32(math.Ldexp(1, -60))
	naive := float32(float64(a)*float64(a) + float64(c))
	if want := fmaExact(a, a, c); naive == want {
		t.Fatal("the double-rounding case does not discriminate")
	} else if got := FMA32(a, a, c); got != want {
		t.Errorf("double-rounding case: FMA32 = %v, want %v", got, want)
	}
}
