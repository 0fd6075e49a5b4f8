package ir

import "testing"

func TestSimplifyCanonical(t *testing.T) {
	n := NewPrimVar("n", Int64(0).Type)
	m := NewPrimVar("m", Int64(0).Type)
	two := Int64(2)
	tests := []struct {
		name string
		a, b PrimExpr
		eq   bool
	}{
		{"commute mul", &Binary{OpMul, n, two}, &Binary{OpMul, two, n}, true},
		{"add sub", &Binary{OpSub, &Binary{OpAdd, n, Int64(1)}, Int64(1)}, n, true},
		{"distribute", &Binary{OpMul, &Binary{OpAdd, n, m}, two}, &Binary{OpAdd, &Binary{OpMul, two, m}, &Binary{OpMul, n, two}}, true},
		{"floordiv exact", &Binary{OpFloorDiv, &Binary{OpMul, n, Int64(4)}, two}, &Binary{OpMul, n, two}, true},
		{"floormod exact", &Binary{OpFloorMod, &Binary{OpMul, n, Int64(4)}, two}, Int64(0), true},
		{"different vars", n, m, false},
		{"different coef", &Binary{OpMul, n, two}, &Binary{OpMul, n, Int64(3)}, false},
		{"const fold", &Binary{OpFloorDiv, Int64(-7), two}, Int64(-4), true},
		{"min same", &Binary{OpMin, n, n}, n, true},
		{"floordiv atom", &Binary{OpFloorDiv, n, two}, &Binary{OpFloorDiv, &Binary{OpAdd, n, Int64(0)}, two}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ProveEqual(tc.a, tc.b); got != tc.eq {
				t.Errorf("ProveEqual(%s, %s) = %v, want %v", ExprString(tc.a), ExprString(tc.b), got, tc.eq)
			}
		})
	}
}

func TestSimplifyPrints(t *testing.T) {
	n := NewPrimVar("n", Int64(0).Type)
	tests := []struct {
		in   PrimExpr
		want string
	}{
		{&Binary{OpMul, Int64(2), n}, "n * 2"},
		{&Binary{OpSub, n, Int64(1)}, "n - 1"},
		{&Binary{OpAdd, Int64(3), Int64(4)}, "7"},
		{&Binary{OpSub, Int64(1), n}, "1 - n"},
		{&Binary{OpMul, n, n}, "n * n"},
	}
	for _, tc := range tests {
		if got := ExprString(Simplify(tc.in)); got != tc.want {
			t.Errorf("Simplify(%s) = %q, want %q", ExprString(tc.in), got, tc.want)
		}
	}
}

func TestEvalInt(t *testing.T) {
	n := NewPrimVar("n", Int64(0).Type)
	e := &Binary{OpFloorMod, &Binary{OpMul, n, Int64(3)}, Int64(5)}
	got, err := EvalInt(e, map[*PrimVar]int64{n: 4})
	if err != nil || got != 2 {
		t.Fatalf("EvalInt = %d, %v; want 2", got, err)
	}
	if _, err := EvalInt(e, nil); err == nil {
		t.Fatal("unbound variable: want error")
	}
	if _, err := EvalInt(&Binary{OpFloorDiv, n, Int64(0)}, map[*PrimVar]int64{n: 1}); err == nil {
		t.Fatal("division by zero: want error")
	}
}

func TestFormatFloat(t *testing.T) {
	for in, want := range map[float64]string{2: "2.0", 1e-05: "1.0000000000000001e-05", 0.35355338454246521: "0.35355338454246521", 1e6: "1000000.0", 1e17: "1e+17", -0.5: "-0.5", 0.1: "0.10000000000000001"} {
		if got := FormatFloat(in); got != want {
			t.Errorf("FormatFloat(%v) = %q, want %q", in, got, want)
		}
	}
}
