package ir

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestVisitRewriteFreeVars(t *testing.T) {
	x, y := tv("x", tsi("float32", 2)), tv("y", tsi("float32", 2))
	a, b := &Var{Name: "a"}, &Var{Name: "b"}
	add := opCall("relax.add", []Expr{x, y}, nil)
	mul := opCall("relax.multiply", []Expr{a, x}, nil)
	f := mkFunc("main", []*Var{x}, nil, b, block(false, bind(a, add, 1), bind(b, mul, 2)))
	var calls int
	VisitExpr(f, func(e Expr) bool {
		if _, ok := e.(*Call); ok {
			calls++
		}
		return true
	})
	if calls != 2 {
		t.Errorf("visited %d calls", calls)
	}
	skipped := 0
	VisitExpr(f, func(e Expr) bool {
		if _, ok := e.(*Var); ok {
			skipped++
		}
		_, isCall := e.(*Call)
		return !isCall
	})
	if skipped != 1 { // only the body var b
		t.Errorf("skip children: saw %d vars", skipped)
	}
	if got := ExprFreeVars(f); len(got) != 1 || got[0] != y {
		t.Errorf("free vars %v", got)
	}
	if bs := FunctionBindings(f); len(bs) != 2 || bs[0].BoundVar() != a {
		t.Errorf("bindings %v", bs)
	}
	// Replace y by x: only the first call and the containing nodes are rebuilt.
	out := RewriteExpr(f, func(e Expr) Expr {
		if e == y {
			return x
		}
		return nil
	})
	nf := out.(*Function)
	if nf == f {
		t.Fatal("function not rebuilt")
	}
	b0 := nf.Body.Blocks[0].Bindings
	if b0[0].BoundValue() == add || b0[0].BoundValue().(*Call).Args[1] != x {
		t.Error("add not rewritten")
	}
	if b0[1].BoundValue() != mul {
		t.Error("unchanged call rebuilt")
	}
	if same := RewriteExpr(f, func(Expr) Expr { return nil }); same != f {
		t.Error("identity rewrite rebuilt the function")
	}
}

func TestSInfoUtils(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	m := NewPrimVar("m", runtime.Int64)
	a := tsi("float32", Mul(n, Int64(2)), 3)
	b := tsi("float32", Mul(Int64(2), n), 3)
	if !SInfoEqual(a, b) {
		t.Error("n*2 vs 2*n")
	}
	cases := []struct {
		base, derived StructInfo
		want          bool
	}{
		{&ObjectSInfo{}, a, true},
		{&TensorSInfo{NDim: 2, DType: runtime.Float32}, a, true},
		{&TensorSInfo{NDim: -1, DType: runtime.Void}, a, true},
		{a, &TensorSInfo{NDim: 2, DType: runtime.Float32}, false},
		{tsi("float32", 2, 3), tsi("float16", 2, 3), false},
		{&ShapeSInfo{NDim: 2}, &ShapeSInfo{Values: dims(n, 2), NDim: 2}, true},
		{&TupleSInfo{[]StructInfo{&ObjectSInfo{}}}, &TupleSInfo{[]StructInfo{a}}, true},
		{&FuncSInfo{Opaque: true}, &FuncSInfo{Params: []StructInfo{a}, Ret: a, Pure: true}, true},
		{&PrimSInfo{DType: runtime.Int64}, &PrimSInfo{DType: runtime.Int64, Value: n}, true},
	}
	for i, c := range cases {
		if got := IsBaseOf(c.base, c.derived); got != c.want {
			t.Errorf("%d: IsBaseOf(%s, %s) = %v", i, SInfoString(c.base), SInfoString(c.derived), got)
		}
	}
	if MayBeBaseOf(tsi("float32", 2), tsi("float32", 3)) || !MayBeBaseOf(tsi("float32", 2), &TensorSInfo{NDim: -1, DType: runtime.Float32}) {
		t.Error("MayBeBaseOf")
	}
	joins := []struct {
		a, b StructInfo
		want string
	}{
		{tsi("float32", n, 3), tsi("float32", n, 3), `R.Tensor((n, 3), dtype="float32")`},
		{tsi("float32", n, 3), tsi("float32", m, 3), `R.Tensor(ndim=2, dtype="float32")`},
		{tsi("float32", 2), tsi("int32", 2, 2), `R.Tensor()`},
		{tsi("float32", 2), &ShapeSInfo{NDim: 1}, `R.Any`},
		{&TupleSInfo{[]StructInfo{tsi("float32", 2)}}, &TupleSInfo{[]StructInfo{tsi("float32", 3)}}, `R.Tuple(R.Tensor(ndim=1, dtype="float32"))`},
		{&PrimSInfo{DType: runtime.Int64, Value: n}, &PrimSInfo{DType: runtime.Int64, Value: m}, `R.Prim("int64")`},
	}
	for i, j := range joins {
		if got := SInfoString(SInfoJoin(j.a, j.b)); got != j.want {
			t.Errorf("join %d: %s, want %s", i, got, j.want)
		}
	}
	sub := SubstSInfo(&TupleSInfo{[]StructInfo{a, &ShapeSInfo{Values: dims(m), NDim: 1}}}, map[*PrimVar]PrimExpr{n: Int64(4)})
	if got := SInfoString(sub); got != `R.Tuple(R.Tensor((8, 3), dtype="float32"), R.Shape([m]))` {
		t.Errorf("subst: %s", got)
	}
	if vs := CollectSymVars(&TupleSInfo{[]StructInfo{tsi("float32", n, Add(m, n))}}); len(vs) != 2 || vs[0] != n || vs[1] != m {
		t.Errorf("collect: %v", vs)
	}
	er := EraseToWellDefined(&TupleSInfo{[]StructInfo{tsi("float32", n, 2), tsi("float32", m)}}, func(v *PrimVar) bool { return v == n })
	if got := SInfoString(er); got != `R.Tuple(R.Tensor((n, 2), dtype="float32"), R.Tensor(ndim=1, dtype="float32"))` {
		t.Errorf("erase: %s", got)
	}
}
