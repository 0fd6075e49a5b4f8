package tvmscript

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

const hdr = "# from tvm.script import ir as I\n# from tvm.script import tir as T\n# from tvm.script import relax as R\n\n"

// relaxMod wraps one Relax function (indented by 4) in a module.
func relaxMod(fn string) string {
	return hdr + "@I.ir_module\nclass Module:\n" + indent(fn, "    ")
}

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pre + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func mustParse(t *testing.T, src string) *ir.Module {
	t.Helper()
	m, err := ParseString("test.py", src, nil)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return m
}

func mainFn(t *testing.T, m *ir.Module) *ir.Function {
	t.Helper()
	f, ok := m.Function("main")
	if !ok {
		t.Fatal("no main")
	}
	return f
}

func bindings(f *ir.Function) []ir.Binding {
	var out []ir.Binding
	for _, b := range f.Body.Blocks {
		out = append(out, b.Bindings...)
	}
	return out
}

func valueOf(t *testing.T, f *ir.Function, i int) ir.Expr {
	t.Helper()
	bs := bindings(f)
	if i >= len(bs) {
		t.Fatalf("binding %d of %d", i, len(bs))
	}
	return bs[i].BoundValue()
}

func TestRelaxConstructs(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		check func(t *testing.T, m *ir.Module)
	}{
		{"no header uses default aliases", "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n        return x\n",
			func(t *testing.T, m *ir.Module) {
				f := mainFn(t, m)
				if ts := f.Params[0].Info.(*ir.TensorSInfo); ts.DType != runtime.Float32 || len(ts.Shape) != 1 {
					t.Errorf("param info %v", ir.SInfoString(ts))
				}
			}},
		{"header aliases", "# from tvm.script import ir as II\n# from tvm.script import relax as RX\n@II.ir_module\nclass M:\n    @RX.function\n    def main(x: RX.Tensor((2,), \"float32\")):\n        y = RX.add(x, x)\n        return y\n",
			func(t *testing.T, m *ir.Module) {
				if c := valueOf(t, mainFn(t, m), 0).(*ir.Call); c.OpName() != "relax.add" {
					t.Errorf("op %s", c.OpName())
				}
			}},
		{"tvm.script long forms", "import tvm\n@tvm.script.ir_module\nclass M:\n    @tvm.script.relax.function\n    def main(x: tvm.script.relax.Tensor((2,), \"float32\")):\n        y = tvm.script.relax.add(x, x)\n        return y\n\n    @tvm.script.tir.prim_func\n    def f(A: tvm.script.tir.Buffer((2,), \"float32\")):\n        for i in tvm.script.tir.serial(2):\n            A[i] = tvm.script.tir.float32(0)\n",
			func(t *testing.T, m *ir.Module) {
				if c := valueOf(t, mainFn(t, m), 0).(*ir.Call); c.OpName() != "relax.add" {
					t.Errorf("op %s", c.OpName())
				}
				if _, ok := m.PrimFunc("f"); !ok {
					t.Error("no prim_func f")
				}
			}},
		{"layout_transform index maps", relaxMod(`@R.function
def main(x: R.Tensor((2, 10), "float32")):
    a = R.layout_transform(x, index_map=lambda i, j: (i, j // 4, j % 4), pad_value=1.5)
    b = R.layout_transform(a, index_map=T.index_map(lambda i0, i1, i2: (i0, i1 * 4 + i2), index_dtype="int32"), pad_value=None, axis_separators=[])
    c = R.layout_transform(b, lambda n, c: (c, n))
    return c`), func(t *testing.T, m *ir.Module) {
			f := mainFn(t, m)
			a := valueOf(t, f, 0).(*ir.Call)
			im, err := ir.LayoutIndexMap(a)
			if err != nil {
				t.Fatal(err)
			}
			if got := im.String(); got != "lambda i, j: (i, j // 4, j % 4)" {
				t.Errorf("index map %s", got)
			}
			if pv, _ := a.Attrs.Get("pad_value"); pv != 1.5 {
				t.Errorf("pad_value %v", pv)
			}
			b := valueOf(t, f, 1).(*ir.Call)
			if im, _ := ir.LayoutIndexMap(b); im == nil || im.Params[0].Type != runtime.Int32 {
				t.Errorf("index_dtype not kept: %v", im)
			}
			if _, ok := b.Attrs.Get("axis_separators"); ok {
				t.Error("empty axis_separators kept")
			}
			if c := valueOf(t, f, 2).(*ir.Call); len(c.Attrs) == 0 {
				t.Error("positional index map dropped")
			}
			s := Print(m, Current)
			for _, w := range []string{"index_map=T.index_map(lambda i, j: (i, j // 4, j % 4)), pad_value=1.5",
				`T.index_map(lambda i0, i1, i2: (i0, i1 * 4 + i2), index_dtype="int32")`, "T.index_map(lambda n, c: (c, n))"} {
				if !strings.Contains(s, w) {
					t.Errorf("printed module lacks %s:\n%s", w, s)
				}
			}
			m2, err := ParseString("printed.py", s, nil)
			if err != nil {
				t.Fatalf("reparse: %v\n%s", err, s)
			}
			if err := ir.StructuralEqual(m, m2); err != nil {
				t.Errorf("round trip: %v", err)
			}
		}},
		{"R.const of literal arithmetic", relaxMod(`@R.function
def main(x: R.Tensor((2,), "float32")):
    y = R.multiply(x, R.const(5.0 / 3.0, "float32"))
    return y`), func(t *testing.T, m *ir.Module) {
			c := valueOf(t, mainFn(t, m), 0).(*ir.Call).Args[1].(*ir.Constant)
			if got := c.Value.Float32s()[0]; got != float32(5.0/3.0) {
				t.Errorf("constant %v", got)
			}
		}},
		{"tuple unpacking", relaxMod(`@R.function
def main(x: R.Tensor((4,), "float32")):
    with R.dataflow():
        a, b = R.split(x, 2)
        c, d = (a, b)
        e = R.add(c, d)
        R.output(e)
    return e`), func(t *testing.T, m *ir.Module) {
			bs := bindings(mainFn(t, m))
			if len(bs) != 7 {
				t.Fatalf("%d bindings, want 7 (split, a, b, the tuple, c, d, e)", len(bs))
			}
			if bs[0].BoundVar().Name != "a_b" || bs[1].BoundVar().Name != "a" || bs[2].BoundVar().Name != "b" {
				t.Errorf("names %s %s %s", bs[0].BoundVar().Name, bs[1].BoundVar().Name, bs[2].BoundVar().Name)
			}
			if g, ok := bs[2].BoundValue().(*ir.TupleGetItem); !ok || g.Index != 1 || g.Tuple != bs[0].BoundVar() {
				t.Errorf("b = %#v", bs[2].BoundValue())
			}
			if err := ir.Normalize(m); err != nil {
				t.Errorf("normalize: %v", err)
			}
		}},
		{"scalar values become prim values", relaxMod(`@R.function
def main(x: R.Tensor(("n", "m"), "float32")):
    n, m = T.int64(), T.int64()
    a = (x, n)
    b = n * 2 + m
    c = T.int64(3)
    return (a, b, c)`), func(t *testing.T, m *ir.Module) {
			bs := bindings(mainFn(t, m))
			if f := bs[0].BoundValue().(*ir.Tuple).Fields[1]; !isPrimValue(f) {
				t.Errorf("tuple field %T", f)
			}
			for _, i := range []int{1, 2} {
				if v := bs[i].BoundValue(); !isPrimValue(v) {
					t.Errorf("binding %d is %T, want a prim value", i, v)
				}
			}
		}},
		{"nested function shares symbolic vars", relaxMod(`@R.function
def main(x: R.Tensor(("n", "m"), "float32")):
    n = T.int64()
    m = T.int64()

    @R.function
    def inner(y: R.Tensor((n, m), "float32")) -> R.Tensor((n, m), "float32"):
        return y

    z = inner(x)
    return z`), func(t *testing.T, m *ir.Module) {
			f := mainFn(t, m)
			inner := bindings(f)[0].BoundValue().(*ir.Function)
			if inner.Params[0].Info.(*ir.TensorSInfo).Shape[0] != f.Params[0].Info.(*ir.TensorSInfo).Shape[0] {
				t.Error("inner n is not main's n")
			}
		}},
		{"annotation without dtype takes the value's", relaxMod(`@R.function
def main(x: R.Tensor((6,), "float32")):
    a: R.Tensor((1, 6)) = R.reshape(x, [1, 6])
    b = R.add(a, a)
    return b`), func(t *testing.T, m *ir.Module) {
			if err := ir.Normalize(m); err != nil {
				t.Fatal(err)
			}
			bs := bindings(mainFn(t, m))
			for _, b := range bs {
				if dt := b.BoundVar().Info.(*ir.TensorSInfo).DType; dt != runtime.Float32 {
					t.Errorf("%s has dtype %s", b.BoundVar().Name, dt)
				}
			}
		}},
		{"attention bias argument", relaxMod(`@R.function
def main(q: R.Tensor((1, 4, 2, 8), "float32"), b: R.Tensor((1, 2, 4, 4), "float32")):
    a = R.nn.attention(q, q, q, b, scale=None)
    c = R.nn.attention(q, q, q, None, scale=0.5)
    d = R.nn.attention(q, q, q, bias=b)
    return (a, c, d)`), func(t *testing.T, m *ir.Module) {
			var ops []string
			for _, b := range bindings(mainFn(t, m)) {
				c := b.BoundValue().(*ir.Call)
				ops = append(ops, fmt.Sprintf("%s/%d", c.OpName(), len(c.Args)))
			}
			if got := strings.Join(ops, " "); got != "relax.nn.attention_bias/4 relax.nn.attention/3 relax.nn.attention_bias/4" {
				t.Errorf("ops %s", got)
			}
		}},
		{"operator sugar", relaxMod(`@R.function
def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
    a = x + y
    b = a - x
    c = b * y
    d = c / y
    e = d // y
    f = e % x
    g = f ** y
    h = -g
    i = x < y
    j = x >= y
    return (h, i, j)`), func(t *testing.T, m *ir.Module) {
			var ops []string
			for _, b := range bindings(mainFn(t, m)) {
				ops = append(ops, b.BoundValue().(*ir.Call).OpName())
			}
			want := "relax.add relax.subtract relax.multiply relax.divide relax.floor_divide relax.mod relax.power relax.negative relax.less relax.greater_equal"
			if got := strings.Join(ops, " "); got != want {
				t.Errorf("ops\n%s\nwant\n%s", got, want)
			}
		}},
		{"R.const of NumPy constructors", relaxMod(`@R.function
def main(x: R.Tensor((2,), "float32")):
    a = R.const(np.array([[1, 2], [3, 4]], dtype=np.float32))
    b = R.const(np.ones((3, 2), dtype="int32"))
    c = R.const(np.zeros(2))
    d = R.const(np.full((2,), -1.5), "float32")
    e = R.const(np.array([1, 2]))
    return (a, b, c, d, e)`), func(t *testing.T, m *ir.Module) {
			want := []struct {
				dt    runtime.DataType
				shape string
				vals  string
			}{
				{runtime.Float32, "[2 2]", "[1 2 3 4]"},
				{runtime.Int32, "[3 2]", "[1 1 1 1 1 1]"},
				{runtime.Float64, "[2]", "[0 0]"},
				{runtime.Float32, "[2]", "[-1.5 -1.5]"},
				{runtime.Int64, "[2]", "[1 2]"},
			}
			for i, b := range bindings(mainFn(t, m))[:5] {
				c := b.BoundValue().(*ir.Constant).Value
				vals := tensorio.AsFloat64s(c)
				if c.DType() != want[i].dt || fmt.Sprint(c.Shape()) != want[i].shape || fmt.Sprint(vals) != want[i].vals {
					t.Errorf("constant %d: %s %v %v, want %s %s %s", i, c.DType(), c.Shape(), vals, want[i].dt, want[i].shape, want[i].vals)
				}
			}
		}},
		{"pure private attrs", relaxMod(`@R.function(pure=False, private=True)
def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    R.func_attr({"num_input": 1, "relax.force_pure": True, "name": "m", "f": 0.5, "l": [1, 2]})
    return x`), func(t *testing.T, m *ir.Module) {
			f := mainFn(t, m)
			if f.Pure || !f.Private || f.NumInput() != 1 {
				t.Errorf("pure=%v private=%v num_input=%d", f.Pure, f.Private, f.NumInput())
			}
			if v, _ := f.Attrs.Get("relax.force_pure"); v != true {
				t.Errorf("force_pure %v", v)
			}
		}},
		{"symbolic vars shared", relaxMod(`@R.function
def main(x: R.Tensor(("n", "m"), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor(("n", "m * 2"), "float32"):
    n = T.int64()
    m = T.int64()
    z: R.Tensor((n, m * 2), "float32") = R.concat((x, x), axis=1)
    return z`), func(t *testing.T, m *ir.Module) {
			f := mainFn(t, m)
			n1 := f.Params[0].Info.(*ir.TensorSInfo).Shape[0]
			n2 := f.Params[1].Info.(*ir.TensorSInfo).Shape[0]
			n3 := bindings(f)[0].BoundVar().Info.(*ir.TensorSInfo).Shape[0]
			if n1 != n2 || n1 != n3 {
				t.Errorf("symbolic n not shared: %p %p %p", n1, n2, n3)
			}
			ret := f.Ret.(*ir.TensorSInfo).Shape[1]
			if b, ok := ret.(*ir.Binary); !ok || b.Op != ir.OpMul || b.A != f.Params[0].Info.(*ir.TensorSInfo).Shape[1] {
				t.Errorf("ret dim %v", ir.ExprString(ret))
			}
		}},
		{"dataflow outputs", relaxMod(`@R.function
def main(x: R.Tensor((2,), "float32")):
    with R.dataflow():
        a = R.add(x, x)
        b = R.multiply(a, x)
        R.output(b)
    return b`), func(t *testing.T, m *ir.Module) {
			f := mainFn(t, m)
			blk := f.Body.Blocks[0]
			if !blk.Dataflow || !blk.Bindings[0].BoundVar().Dataflow || blk.Bindings[1].BoundVar().Dataflow {
				t.Errorf("dataflow flags wrong")
			}
			if f.Body.Body != blk.Bindings[1].BoundVar() {
				t.Errorf("return is not the output var")
			}
		}},
		{"if else", relaxMod(`@R.function
def main(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    if c:
        a = R.add(x, x)
        r: R.Tensor((2,), "float32") = R.multiply(a, x)
    else:
        r: R.Tensor((2,), "float32") = x
    return r`), func(t *testing.T, m *ir.Module) {
			f := mainFn(t, m)
			b := bindings(f)[0].(*ir.VarBinding)
			ife := b.Value.(*ir.If)
			if b.Var.Name != "r" || b.Var.Info == nil {
				t.Errorf("if var %s", b.Var.Name)
			}
			if v, ok := ife.Then.Body.(*ir.Var); !ok || v.Name != "r_then" {
				t.Errorf("then body %T", ife.Then.Body)
			}
			if ife.Else.Body != f.Params[1] || len(ife.Else.Blocks) != 0 {
				t.Errorf("else body should be x itself")
			}
		}},
		{"match_cast and shapes", relaxMod(`@R.function
def main(x: R.Tensor(dtype="float32"), s: R.Shape(ndim=2)) -> R.Shape(ndim=2):
    n = T.int64()
    m = T.int64()
    lv = R.match_cast(x, R.Tensor((n, m), dtype="float32"))
    gv: R.Shape([n * 2, m]) = R.shape([n * 2, m])
    return gv`), func(t *testing.T, m *ir.Module) {
			f := mainFn(t, m)
			mc, ok := bindings(f)[0].(*ir.MatchCast)
			if !ok || mc.Info.(*ir.TensorSInfo).NDim != 2 {
				t.Fatalf("match cast %T", bindings(f)[0])
			}
			se := valueOf(t, f, 1).(*ir.ShapeExpr)
			if len(se.Values) != 2 || se.Values[1] != mc.Info.(*ir.TensorSInfo).Shape[1] {
				t.Errorf("shape expr %v", se.Values)
			}
		}},
		{"tuples and indexing", relaxMod(`@R.function
def main(x: R.Tensor((2,), "float32")):
    t = (x, (x,), R.tuple())
    a = t[1]
    b = a[0]
    return (b, t)`), func(t *testing.T, m *ir.Module) {
			f := mainFn(t, m)
			tup := valueOf(t, f, 0).(*ir.Tuple)
			if len(tup.Fields) != 3 || len(tup.Fields[2].(*ir.Tuple).Fields) != 0 {
				t.Errorf("tuple %v", tup.Fields)
			}
			if g := valueOf(t, f, 1).(*ir.TupleGetItem); g.Index != 1 {
				t.Errorf("index %d", g.Index)
			}
			if _, ok := f.Body.Body.(*ir.Tuple); !ok {
				t.Errorf("return tuple %T", f.Body.Body)
			}
		}},
		{"literal values", relaxMod(`@R.function
def main(x: R.Tensor((2,), "float32")):
    a = R.const(1.5)
    b = R.const(3)
    c = R.const(True)
    d = R.const([[1, 2], [3, 4]], "int64")
    e = R.prim_value(T.int32(7))
    f = R.str("hi")
    g = R.dtype("float16")
    h = 5
    i = R.const(-0.25, "float16")
    return x`), func(t *testing.T, m *ir.Module) {
			f := mainFn(t, m)
			dts := []runtime.DataType{runtime.Float32, runtime.Int32, runtime.Bool, runtime.Int64}
			for i, dt := range dts {
				c := valueOf(t, f, i).(*ir.Constant)
				if c.Value.DType() != dt || c.MetaIndex != -1 {
					t.Errorf("const %d dtype %s", i, c.Value.DType())
				}
			}
			if d := valueOf(t, f, 3).(*ir.Constant).Value; d.NDim() != 2 || d.Int64s()[3] != 4 {
				t.Errorf("list const %v", d.Shape())
			}
			if pv := valueOf(t, f, 4).(*ir.PrimValue); pv.Value.DType() != runtime.Int32 {
				t.Errorf("prim value %v", pv.Value)
			}
			if s := valueOf(t, f, 5).(*ir.StringImm); s.Value != "hi" {
				t.Errorf("str %q", s.Value)
			}
			if d := valueOf(t, f, 6).(*ir.DataTypeImm); d.Value != runtime.Float16 {
				t.Errorf("dtype %v", d.Value)
			}
			if pv := valueOf(t, f, 7).(*ir.PrimValue); pv.Value.(*ir.IntImm).Type != runtime.Int64 {
				t.Errorf("bare literal %v", pv.Value)
			}
			if h := valueOf(t, f, 8).(*ir.Constant); getElem(h.Value, 0) != -0.25 {
				t.Errorf("half const %v", getElem(h.Value, 0))
			}
		}},
		{"call forms", hdr + `@I.ir_module
class Module:
    @T.prim_func(private=True)
    def k(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
        T.evaluate(0)

    @R.function
    def helper(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x

    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Module
        a = R.call_tir(cls.k, (x,), R.Tensor((2,), dtype="float32"))
        b = R.call_tir(cls.k, x, out_sinfo=[R.Tensor((2,), "float32"), R.Tensor((2,), "float32")], tir_vars=R.shape([n]))
        c = R.call_packed("my.f", x, 1, sinfo_args=R.Tensor((2,), "float32"))
        d = R.call_pure_packed("my.g", x, ty_args=(R.Tensor((2,), "float32"),))
        e = R.call_dps_packed("my.h", (x, x), out_ty=R.Tensor((2,), "float32"))
        f = cls.helper(x)
        g = Module.helper(
            f,
        )
        R.call_packed("my.print", x, sinfo_args=R.Tuple())
        return g`, func(t *testing.T, m *ir.Module) {
			f := mainFn(t, m)
			a := valueOf(t, f, 0).(*ir.Call)
			if a.OpName() != "relax.call_tir" || len(a.Args) != 2 || len(a.SInfoArgs) != 1 {
				t.Errorf("call_tir %v", a)
			}
			if _, ok := a.Args[0].(*ir.GlobalVar); !ok {
				t.Errorf("call_tir callee %T", a.Args[0])
			}
			b := valueOf(t, f, 1).(*ir.Call)
			if len(b.Args) != 3 || len(b.SInfoArgs) != 2 || len(b.Args[1].(*ir.Tuple).Fields) != 1 {
				t.Errorf("call_tir with tir_vars: args %d sinfo %d", len(b.Args), len(b.SInfoArgs))
			}
			c := valueOf(t, f, 2).(*ir.Call)
			if ef, ok := c.Callee.(*ir.ExternFunc); !ok || ef.Symbol != "my.f" || len(c.Args) != 2 {
				t.Errorf("call_packed %T", c.Callee)
			}
			d := valueOf(t, f, 3).(*ir.Call)
			if d.OpName() != "relax.call_pure_packed" || d.Args[0].(*ir.ExternFunc).Symbol != "my.g" {
				t.Errorf("call_pure_packed")
			}
			e := valueOf(t, f, 4).(*ir.Call)
			if e.OpName() != "relax.call_dps_packed" || len(e.Args[1].(*ir.Tuple).Fields) != 2 {
				t.Errorf("call_dps_packed")
			}
			g := valueOf(t, f, 6).(*ir.Call)
			if gv, ok := g.Callee.(*ir.GlobalVar); !ok || gv.Name != "helper" {
				t.Errorf("cls.helper call %T", g.Callee)
			}
			if v := bindings(f)[7].BoundVar(); v.Name != "_" {
				t.Errorf("void call bound to %q", v.Name)
			}
		}},
		{"op kwargs canonicalized", relaxMod(`@R.function
def main(x: R.Tensor((2, 3), "float32")):
    a = R.sum(x, axis=[1], keepdims=True)
    b = R.reshape(x, R.shape([3, 2]))
    c = R.nn.softmax(x, axis=-1)
    return c`), func(t *testing.T, m *ir.Module) {
			f := mainFn(t, m)
			a := valueOf(t, f, 0).(*ir.Call)
			if v, ok := a.Attrs.Get("keepdims"); !ok || v != true {
				t.Errorf("keepdims %v", a.Attrs)
			}
		}},
		{"metadata constants", relaxMod(`@R.function
def main(x: R.Tensor((2,), "float32")):
    a = R.add(x, metadata["relax.expr.Constant"][0])
    return a`) + "\n# Metadata omitted. Use show_meta=True in script() method to show it.\n", nil},
		{"nested function and struct info kinds", relaxMod(`@R.function
def main(x: R.Tensor((2,), "float32"), o: R.Object, a: R.Any, p: R.Prim("int64"), q: T.int32, v: R.Prim(value="k"), c: R.Callable((R.Tensor, R.Shape), R.Tuple(R.Tensor((2,), "float32")), purity=False), s: R.Shape, u: R.Tensor(ndim=3)):
    @R.function
    def inner(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return y
    r = inner(x)
    return r`), func(t *testing.T, m *ir.Module) {
			f := mainFn(t, m)
			if _, ok := valueOf(t, f, 0).(*ir.Function); !ok {
				t.Errorf("nested function binding %T", valueOf(t, f, 0))
			}
			if c := valueOf(t, f, 1).(*ir.Call); c.Callee != bindings(f)[0].BoundVar() {
				t.Errorf("closure call callee")
			}
			if ps := f.Params[4].Info.(*ir.PrimSInfo); ps.DType != runtime.Int32 {
				t.Errorf("T.int32 annotation %v", ps.DType)
			}
			if fs := f.Params[6].Info.(*ir.FuncSInfo); fs.Pure || len(fs.Params) != 2 {
				t.Errorf("callable %v", ir.SInfoString(fs))
			}
		}},
		{"CPU virtual devices", hdr + `@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global"), I.vdevice({"kind": "llvm", "mcpu": "znver3"}, 0)]})
    @R.function
    def main(x: R.Tensor((2,), "float32", vdevice="llvm:0:global")) -> R.Tensor((2,), "float32", vdevice="llvm"):
        y = R.to_vdevice(x, "llvm:0")
        return y`, func(t *testing.T, m *ir.Module) {
			if _, ok := valueOf(t, mainFn(t, m), 0).(*ir.Var); !ok {
				t.Errorf("R.to_vdevice to the CPU is not the value itself")
			}
		}},
		{"module attrs and global infos", hdr + `@I.ir_module
class Module:
    I.module_attrs({"system_lib_prefix": "lib_", "n": 3})
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global")]})
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        return x`, func(t *testing.T, m *ir.Module) {
			if v, _ := m.Attrs.Get("system_lib_prefix"); v != "lib_" {
				t.Errorf("module attrs %v", m.Attrs)
			}
			if v, _ := m.GlobalInfos.Get("vdevice"); v != `[I.vdevice("llvm", 0, "global")]` {
				t.Errorf("global infos %v", v)
			}
		}},
	}
	consts := &Options{Constants: []*runtime.Tensor{runtime.MustNewTensor([]int64{2}, runtime.Float32)}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseString("test.py", tc.src, consts)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if tc.check != nil {
				tc.check(t, m)
			}
			for _, d := range []Dialect{Current, V023} {
				roundTrip(t, m, d, consts)
			}
		})
	}
}

func TestTIRConstructs(t *testing.T) {
	prim := func(body string) string {
		return hdr + "@I.ir_module\nclass Module:\n" + indent(body, "    ")
	}
	tests := []struct {
		name  string
		src   string
		check func(t *testing.T, f *ir.PrimFunc)
	}{
		{"match_buffer and grid", prim(`@T.prim_func(private=True, s_tir=True)
def f(var_A: T.handle, B: T.Buffer((T.int64(4),), "float16"), m: T.int32):
    T.func_attr({"tirx.noalias": True, "global_symbol": "f"})
    n = T.int64()
    A = T.match_buffer(var_A, (n, T.int64(4)))
    for i, j in T.grid(n, T.int64(4)):
        with T.sblock("b"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vj])
            B[vj] = T.Cast("float16", A[vi, vj] + T.float32(1))`), func(t *testing.T, f *ir.PrimFunc) {
			if len(f.Params) != 3 || f.BufferMap[f.Params[0]].Name != "A" || f.BufferMap[f.Params[1]].DType != runtime.Float16 {
				t.Errorf("params/buffer map wrong")
			}
			if f.Params[2].Type != runtime.Int32 || f.BufferMap[f.Params[2]] != nil {
				t.Errorf("scalar param")
			}
			if v, _ := f.Attrs.Get("tir.noalias"); v != true {
				t.Errorf("attrs %v", f.Attrs)
			}
			root := f.Body.(*ir.Block)
			if !root.Implicit {
				t.Errorf("root not implicit")
			}
			outer := root.Body.(*ir.For)
			if outer.Var.Type != runtime.Int64 || outer.Extent != f.BufferMap[f.Params[0]].Shape[0] {
				t.Errorf("grid loop")
			}
		}},
		{"zero-dimensional buffers, -> None", prim(`@T.prim_func
def f(A: T.Buffer((), "float32"), B: T.Buffer((4,), "float32")) -> None:
    for i in range(4):
        with T.sblock("b"):
            vi = T.axis.spatial(4, i)
            T.reads(A[()], B[vi])
            T.writes(B[vi])
            B[vi] = B[vi] + A[()]`), func(t *testing.T, f *ir.PrimFunc) {
			blk := f.Body.(*ir.Block).Body.(*ir.For).Body.(*ir.Block)
			if len(blk.Reads) != 2 || len(blk.Reads[0].Region) != 0 {
				t.Errorf("reads %v", blk.Reads)
			}
		}},
		{"keyword operands of math functions", prim(`@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.exp(x=A[i]) + T.pow(y=A[i], x=T.float32(2))`), func(t *testing.T, f *ir.PrimFunc) {
			m := ir.NewModule()
			if err := m.Add("f", f); err != nil {
				t.Fatal(err)
			}
			s := Print(m, Current)
			if !strings.Contains(s, "T.exp(A[i])") || !strings.Contains(s, "T.pow(T.float32(2.0), A[i])") {
				t.Errorf("printed:\n%s", s)
			}
		}},
		{"T.let annotation", prim(`@T.prim_func
def f(A: T.Buffer((4,), "int64")):
    for i in range(4):
        v: T.let[T.int64] = A[i] * 2
        A[i] = v`), func(t *testing.T, f *ir.PrimFunc) {
			m := ir.NewModule()
			if err := m.Add("f", f); err != nil {
				t.Fatal(err)
			}
			if s := Print(m, Current); !strings.Contains(s, "v: T.int64 = A[i] * T.int64(2)") {
				t.Errorf("printed:\n%s", s)
			}
		}},
		{"tuple symbolic declarations", prim(`@T.prim_func
def f(var_A: T.handle):
    n, m = T.int64(), T.int64()
    A = T.match_buffer(var_A, (n, m))
    for i, j in T.grid(n, m):
        A[i, j] = T.float32(0)`), func(t *testing.T, f *ir.PrimFunc) {
			b := f.BufferMap[f.Params[0]]
			if len(b.Shape) != 2 || ir.ExprString(b.Shape[0]) != "n" || ir.ExprString(b.Shape[1]) != "m" {
				t.Errorf("buffer shape %v", b.Shape)
			}
		}},
		{"current-dialect block builtins", prim(`@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    C = T.sblock_alloc_buffer((4,))
    for i in range(4):
        with T.sblock("b"):
            vi = T.axis.spatial(4, i)
            T.sblock_attr({"k": 1})
            D = T.sblock_alloc_buffer((1,))
            D[0] = A[vi]
            C[vi] = D[0]
            A[vi] = C[vi]`), func(t *testing.T, f *ir.PrimFunc) {
			root := f.Body.(*ir.Block)
			if len(root.AllocBuffers) != 1 || root.AllocBuffers[0].Name != "C" {
				t.Fatalf("root alloc %v", root.AllocBuffers)
			}
			blk := root.Body.(*ir.For).Body.(*ir.Block)
			if len(blk.AllocBuffers) != 1 || blk.AllocBuffers[0].Name != "D" || len(blk.Annotations) != 1 {
				t.Errorf("block allocs %v annotations %v", blk.AllocBuffers, blk.Annotations)
			}
		}},
		{"loop kinds, alloc, axis, init, where", prim(`@T.prim_func
def f(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    C = T.alloc_buffer((16,), scope="shared")
    for i in T.parallel(16):
        for k in T.serial(2, 16):
            for u in T.unroll(2):
                with T.block("red"):
                    vi = T.axis.spatial(16, i)
                    vk = T.axis.reduce((2, 16), k)
                    vu = T.axis.opaque(2, u)
                    T.where(i < 15 and k + u < 17)
                    T.reads(A[vi, vk:vk + 2])
                    T.writes(C[vi])
                    with T.init():
                        C[vi] = T.float32(0)
                    C[vi] = C[vi] + A[vi, vk]
    for v in T.vectorized(16):
        B[v] = C[v]`), func(t *testing.T, f *ir.PrimFunc) {
			root := f.Body.(*ir.Block)
			if len(root.AllocBuffers) != 1 || root.AllocBuffers[0].Scope != "shared" {
				t.Fatalf("root alloc %v", root.AllocBuffers)
			}
			seq := root.Body.(*ir.SeqStmt)
			par := seq.Stmts[0].(*ir.For)
			ser := par.Body.(*ir.For)
			if par.Kind != ir.ForParallel || ser.Kind != ir.ForSerial || ir.ExprString(ser.Min) != "T.int32(2)" || ser.Extent.(*ir.IntImm).Value != 14 {
				t.Errorf("loop kinds/range: %v %v %v", par.Kind, ir.ExprString(ser.Min), ir.ExprString(ser.Extent))
			}
			blk := ser.Body.(*ir.For).Body.(*ir.Block)
			if blk.IterVars[1].Kind != ir.IterReduce || blk.IterVars[2].Kind != ir.IterOpaque || blk.Predicate == nil || blk.Init == nil {
				t.Errorf("block header")
			}
			if e := blk.Reads[0].Region[1].Extent.(*ir.IntImm); e.Value != 2 {
				t.Errorf("region extent %d", e.Value)
			}
			if seq.Stmts[1].(*ir.For).Kind != ir.ForVectorized {
				t.Errorf("vectorized")
			}
		}},
		{"expressions and statements", prim(`@T.prim_func
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "int64"), n: T.int64):
    for i in range(8):
        x: T.float32 = T.exp(A[i]) * T.sqrt(T.fabs(A[i]))
        if i % 2 == 0 and not i < 1:
            A[i] = T.if_then_else(x > T.float32(0), x, -x)
        else:
            A[i] = T.Select(T.likely(i < 4), T.max(x, T.float32(1)), T.min(x, 0))
        B[i] = n // 2 + T.floormod(n, 3) - T.truncdiv(n, 4) + T.Cast("int64", i) * n
        B[i] = 0
    T.evaluate(T.call_extern("int32", "puts", "hi"))`), func(t *testing.T, f *ir.PrimFunc) {
			loop := f.Body.(*ir.SeqStmt).Stmts[0].(*ir.For)
			let := loop.Body.(*ir.LetStmt)
			if let.Var.Type != runtime.Float32 {
				t.Errorf("let type")
			}
			body := let.Body.(*ir.SeqStmt)
			st := body.Stmts[1].(*ir.BufferStore)
			if s := (&printer{}).prim(st.Value, tirMode); !strings.HasPrefix(s, "n // T.int64(2) + n % T.int64(3)") {
				t.Errorf("int literal did not take int64: %s", s)
			}
			if z := body.Stmts[2].(*ir.BufferStore).Value.(*ir.IntImm); z.Type != runtime.Int64 {
				t.Errorf("store literal type %s", z.Type)
			}
			ite := body.Stmts[0].(*ir.IfThenElse)
			if ite.Else == nil {
				t.Errorf("else missing")
			}
		}},
		{"top-level alloc without blocks", prim(`@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(1.5)`), func(t *testing.T, f *ir.PrimFunc) {
			if _, ok := f.Body.(*ir.For); !ok {
				t.Errorf("no root block expected, got %T", f.Body)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mustParse(t, tc.src)
			f, ok := m.PrimFunc("f")
			if !ok {
				t.Fatal("no f")
			}
			tc.check(t, f)
			for _, d := range []Dialect{Current, V023} {
				roundTrip(t, m, d, nil)
			}
		})
	}
}

// TestFoldNumber checks literal arithmetic against Python's results
// (computed with CPython: 5.0 / 3.0, -(2 ** 3) // 3, 7 % -3, ...).
func TestFoldNumber(t *testing.T) {
	tests := []struct {
		src  string
		want any // int64 or float64; nil when it must not fold
	}{
		{"5.0 / 3.0", 5.0 / 3.0},
		{"7 / 2", 3.5},
		{"-(2 ** 3) // 3", int64(-3)},
		{"7 % -3", int64(-2)},
		{"-7 // 2", int64(-4)},
		{"7.5 % 2", 1.5},
		{"-7.5 // 2", -4.0},
		{"2 ** -1", 0.5},
		{"1 - 2 * 3", int64(-5)},
		{"+4", int64(4)},
		{`float("inf")`, math.Inf(1)},
		{`-float("-inf")`, math.Inf(1)},
		{`float(3)`, 3.0},
		{`int(-2.7)`, int64(-2)},
		{`float("x")`, nil},
		{`str(3)`, nil},
		{"1 / 0", nil},
		{"1 // 0", nil},
		{"9223372036854775807 + 1", nil},
		{"2 ** 63", nil},
		{"x + 1", nil},
	}
	for _, tc := range tests {
		toks, _, _, err := lex(newSource("t.py", []byte(tc.src)), tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		e, err := (&pyParser{src: newSource("t.py", []byte(tc.src)), toks: toks}).expr()
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		got, ok := foldNumber(e)
		switch want := tc.want.(type) {
		case nil:
			if ok {
				t.Errorf("%s folded to %#v", tc.src, got)
			}
		case int64:
			if l, isInt := got.(*intLit); !ok || !isInt || l.v != want {
				t.Errorf("%s = %#v, want int %d", tc.src, got, want)
			}
		case float64:
			if l, isFloat := got.(*floatLit); !ok || !isFloat || l.v != want {
				t.Errorf("%s = %#v, want float %g", tc.src, got, want)
			}
		}
	}
}

func isPrimValue(e ir.Expr) bool {
	_, ok := e.(*ir.PrimValue)
	return ok
}
