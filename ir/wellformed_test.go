package ir

import (
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// fn builds a function main(params) { blocks; return body }.
func mkFunc(name string, params []*Var, ret StructInfo, body Expr, blocks ...*BindingBlock) *Function {
	return &Function{Name: name, Params: params, Ret: ret, Pure: true,
		Body: &SeqExpr{Blocks: blocks, Body: body}}
}

func bind(v *Var, value Expr, line int) *VarBinding {
	return &VarBinding{Var: v, Value: value, Loc: Span{File: "m.py", Line: line, Col: 9}}
}

func block(df bool, bs ...Binding) *BindingBlock { return &BindingBlock{Dataflow: df, Bindings: bs} }

func opCall(op string, args []Expr, attrs Attrs) *Call {
	return &Call{Callee: &Op{Name: op}, Args: args, Attrs: attrs}
}

func modOf(fs ...BaseFunc) *Module {
	m := NewModule()
	for _, f := range fs {
		switch x := f.(type) {
		case *Function:
			m.Add(x.Name, x)
		case *PrimFunc:
			m.Add(x.Name, x)
		}
	}
	return m
}

func TestNormalizeHandBuilt(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	x := tv("x", tsi("float32", n, 16))
	w := tv("w", tsi("float32", 16, 8))
	lv := &Var{Name: "lv", Dataflow: true}
	gv := &Var{Name: "gv"}
	f := mkFunc("main", []*Var{x, w}, nil, gv,
		block(true,
			bind(lv, opCall("relax.matmul", []Expr{x, w}, Attrs{{"out_dtype", "void"}}), 3),
			bind(gv, &Tuple{Fields: []Expr{lv, opCall("relax.shape_of", []Expr{lv}, nil)}}, 4)))
	m := modOf(f)
	if err := Normalize(m); err != nil {
		t.Fatal(err)
	}
	if got := SInfoString(lv.SInfo()); got != `R.Tensor((n, 8), dtype="float32")` {
		t.Errorf("lv: %s", got)
	}
	want := `R.Callable((R.Tensor((n, 16), dtype="float32"), R.Tensor((16, 8), dtype="float32")), R.Tuple(R.Tensor((n, 8), dtype="float32"), R.Shape([n, 8])))`
	if got := SInfoString(f.SInfo()); got != want {
		t.Errorf("func: %s\nwant %s", got, want)
	}
	if err := WellFormed(m); err != nil {
		t.Errorf("WellFormed: %v", err)
	}
	if err := Normalize(m); err != nil {
		t.Fatal(err)
	}
	if got := SInfoString(f.SInfo()); got != want {
		t.Errorf("not idempotent: %s", got)
	}
}

func TestNormalizeCallsIfMatchCast(t *testing.T) {
	// fact(n, acc) recursion with an If; main calls it.
	i64 := func() *TensorSInfo { return tsi("int64") }
	nv, acc := tv("n", i64()), tv("acc", i64())
	cond, r := &Var{Name: "cond"}, &Var{Name: "r"}
	r1, r2 := &Var{Name: "r1"}, &Var{Name: "r2"}
	one := &Constant{Value: runtime.MustNewTensor(nil, runtime.Int64), MetaIndex: -1}
	ifE := &If{Cond: cond,
		Then: &SeqExpr{Blocks: []*BindingBlock{block(false, bind(r1, acc, 6))}, Body: r1},
		Else: &SeqExpr{Blocks: []*BindingBlock{block(false, bind(r2, &Call{Callee: &GlobalVar{Name: "fact"}, Args: []Expr{nv, acc}}, 8))}, Body: r2}}
	fact := mkFunc("fact", []*Var{nv, acc}, i64(), r,
		block(false, bind(cond, opCall("relax.less_equal", []Expr{nv, one}, nil), 4), bind(r, ifE, 5)))
	p := tv("p", i64())
	g := &Var{Name: "g"}
	main := mkFunc("main", []*Var{p}, nil, g, block(false, bind(g, &Call{Callee: &GlobalVar{Name: "fact"}, Args: []Expr{p, p}}, 12)))
	m := modOf(fact, main)
	if err := Normalize(m); err != nil {
		t.Fatal(err)
	}
	if got := SInfoString(r.SInfo()); got != `R.Tensor((), dtype="int64")` {
		t.Errorf("r: %s", got)
	}
	if got := SInfoString(main.Ret); got != `R.Tensor((), dtype="int64")` {
		t.Errorf("main ret: %s", got)
	}
	if err := WellFormed(m); err != nil {
		t.Errorf("WellFormed: %v", err)
	}

	// match_cast defines symbolic variables; call of a function with symbolic params substitutes.
	a, b := NewPrimVar("a", runtime.Int64), NewPrimVar("b", runtime.Int64)
	k := NewPrimVar("k", runtime.Int64)
	x := tv("x", &TensorSInfo{NDim: -1, DType: runtime.Float32})
	lv, sh := &Var{Name: "lv"}, &Var{Name: "sh"}
	mc := &MatchCast{Var: lv, Value: x, Info: tsi("float32", a, b)}
	y := tv("y", tsi("float32", k))
	twice := mkFunc("twice", []*Var{y}, tsi("float32", Mul(k, Int64(2))), y)
	out := &Var{Name: "out"}
	f := mkFunc("f", []*Var{x}, nil, &Tuple{Fields: []Expr{sh, out}},
		block(false, mc,
			bind(sh, &ShapeExpr{Values: []PrimExpr{Mul(a, Int64(2)), b}}, 3),
			bind(out, &Call{Callee: &GlobalVar{Name: "twice"}, Args: []Expr{
				opCall("relax.reshape", []Expr{lv, &ShapeExpr{Values: []PrimExpr{Mul(a, b)}}}, nil)}}, 4)))
	m = modOf(twice, f)
	if err := Normalize(m); err != nil {
		t.Fatal(err)
	}
	if got := SInfoString(out.SInfo()); got != `R.Tensor((a * b * 2,), dtype="float32")` {
		t.Errorf("out: %s", got)
	}
	// a and b are local to the body: the inferred return type erases them.
	if got := SInfoString(f.Ret); got != `R.Tuple(R.Shape(ndim=2), R.Tensor(ndim=1, dtype="float32"))` {
		t.Errorf("f ret: %s", got)
	}
	if err := WellFormed(m); err != nil {
		t.Errorf("WellFormed: %v", err)
	}
}

func TestNormalizeErrors(t *testing.T) {
	x := tv("x", tsi("float32", 2, 3))
	cases := []struct {
		name string
		m    func() *Module
		want string
	}{
		{"annotation mismatch", func() *Module {
			y := tv("y", tsi("float32", 3, 2))
			return modOf(mkFunc("main", []*Var{x}, nil, y, block(false, bind(y, opCall("relax.add", []Expr{x, x}, nil), 7))))
		}, `m.py:7:9: type mismatch: variable y is annotated R.Tensor((3, 2), dtype="float32") but its value has type R.Tensor((2, 3), dtype="float32")`},
		{"annotation dtype", func() *Module {
			y := tv("y", tsi("int32", 2, 3))
			return modOf(mkFunc("main", []*Var{x}, nil, y, block(false, bind(y, x, 2))))
		}, "type mismatch"},
		{"less specific ok", nil, ""},
		{"op error located", func() *Module {
			y := &Var{Name: "y"}
			return modOf(mkFunc("main", []*Var{x}, nil, y, block(false, bind(y, opCall("relax.matmul", []Expr{x, x}, nil), 5))))
		}, "m.py:5:9: relax.matmul: inner dimensions do not match"},
		{"return mismatch", func() *Module {
			return modOf(mkFunc("main", []*Var{x}, tsi("float32", 3), x))
		}, "type mismatch: function main returns"},
		{"bad call arity", func() *Module {
			y := &Var{Name: "y"}
			return modOf(mkFunc("g", []*Var{tv("a", tsi("float32", 2, 3))}, tsi("float32", 2, 3), y,
				block(false, bind(y, &Call{Callee: &GlobalVar{Name: "g"}, Args: []Expr{x, x}}, 3))))
		}, "expects 1 arguments"},
		{"unknown op", func() *Module {
			y := &Var{Name: "y"}
			return modOf(mkFunc("main", []*Var{x}, nil, y, block(false, bind(y, opCall("relax.nope", []Expr{x}, nil), 5))))
		}, `unknown op "relax.nope"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.m == nil {
				y := tv("y", &TensorSInfo{NDim: 2, DType: runtime.Float32})
				m := modOf(mkFunc("main", []*Var{x}, nil, y, block(false, bind(y, x, 2))))
				if err := Normalize(m); err != nil {
					t.Fatal(err)
				}
				if got := SInfoString(y.SInfo()); got != `R.Tensor(ndim=2, dtype="float32")` {
					t.Fatalf("annotation not kept: %s", got)
				}
				return
			}
			err := Normalize(tc.m())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestWellFormedErrors(t *testing.T) {
	n := NewPrimVar("n", runtime.Int64)
	cases := []struct {
		name string
		m    func() *Module
		want string
	}{
		{"undefined var", func() *Module {
			x, ghost, y := tv("x", tsi("float32", 2)), tv("ghost", tsi("float32", 2)), &Var{Name: "y"}
			return modOf(mkFunc("main", []*Var{x}, nil, y, block(false, bind(y, opCall("relax.add", []Expr{x, ghost}, nil), 4))))
		}, "m.py:4:9: undefined variable ghost"},
		{"use before bind", func() *Module {
			x, a, b := tv("x", tsi("float32", 2)), &Var{Name: "a"}, &Var{Name: "b"}
			return modOf(mkFunc("main", []*Var{x}, nil, b, block(false, bind(b, a, 3), bind(a, x, 4))))
		}, "m.py:3:9: undefined variable a"},
		{"dataflow var escapes", func() *Module {
			x, lv := tv("x", tsi("float32", 2)), &Var{Name: "lv", Dataflow: true}
			return modOf(mkFunc("main", []*Var{x}, nil, lv, block(true, bind(lv, x, 3))))
		}, "dataflow variable lv is used outside its dataflow block"},
		{"if branch scope", func() *Module {
			c, x, a, r := tv("c", tsi("bool")), tv("x", tsi("float32", 2)), &Var{Name: "a"}, &Var{Name: "r"}
			ifE := &If{Cond: c, Then: &SeqExpr{Blocks: []*BindingBlock{block(false, bind(a, x, 3))}, Body: a}, Else: &SeqExpr{Body: x}}
			return modOf(mkFunc("main", []*Var{c, x}, nil, a, block(false, bind(r, ifE, 2))))
		}, "undefined variable a"},
		{"duplicate binding", func() *Module {
			x, y := tv("x", tsi("float32", 2)), &Var{Name: "y"}
			return modOf(mkFunc("main", []*Var{x}, nil, y, block(false, bind(y, x, 3), bind(y, x, 4))))
		}, "m.py:4:9: variable y is bound more than once"},
		{"unknown function", func() *Module {
			x, y := tv("x", tsi("float32", 2)), &Var{Name: "y"}
			return modOf(mkFunc("main", []*Var{x}, nil, y, block(false, bind(y, &Call{Callee: &GlobalVar{Name: "nothere"}, Args: []Expr{x}}, 3))))
		}, "call to unknown function nothere"},
		{"unknown op", func() *Module {
			x, y := tv("x", tsi("float32", 2)), &Var{Name: "y"}
			return modOf(mkFunc("main", []*Var{x}, nil, y, block(false, bind(y, opCall("relax.bogus", []Expr{x}, nil), 3))))
		}, `unknown op "relax.bogus"`},
		{"undefined symbolic var", func() *Module {
			x, y := tv("x", tsi("float32", 2)), &Var{Name: "y"}
			return modOf(mkFunc("main", []*Var{x}, nil, y, block(false, bind(y, &ShapeExpr{Values: []PrimExpr{n}}, 3))))
		}, "symbolic variable n is used before it is defined"},
		{"symbolic var in annotation", func() *Module {
			x, y := tv("x", tsi("float32", 2)), tv("y", tsi("float32", n))
			return modOf(mkFunc("main", []*Var{x}, nil, y, block(false, bind(y, x, 3))))
		}, "symbolic variable n in the type of y"},
		{"if condition", func() *Module {
			x, r := tv("x", tsi("float32", 2)), &Var{Name: "r"}
			x2 := tv("x2", tsi("float32", 2))
			ifE := &If{Cond: x, Then: &SeqExpr{Body: x}, Else: &SeqExpr{Body: x2}}
			x.SetSInfo(tsi("float32", 2))
			return modOf(mkFunc("main", []*Var{x, x2}, nil, r, block(false, bind(r, ifE, 2))))
		}, "if condition must be a bool or int scalar"},
		{"no return", func() *Module {
			f := mkFunc("main", []*Var{tv("x", tsi("float32", 2))}, nil, nil)
			f.Loc = Span{File: "m.py", Line: 2, Col: 5}
			return modOf(f)
		}, "m.py:2:5: function main has no return value"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := WellFormed(tc.m())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %q", err, tc.want)
			}
		})
	}
}

// TestStubPrimFuncWellFormed: a PrimFunc whose handle parameter has no
// buffer (TVM prints such stubs with a T.evaluate(0) body) is well formed.
func TestStubPrimFuncWellFormed(t *testing.T) {
	h := NewPrimVar("var_A", runtime.DataType{Code: runtime.CodeHandle, Bits: 64, Lanes: 1})
	m := modOf(&PrimFunc{Name: "k", Params: []*PrimVar{h}, BufferMap: map[*PrimVar]*Buffer{}, Body: &Evaluate{Value: Int64(0)}})
	if err := WellFormed(m); err != nil {
		t.Fatal(err)
	}
}
