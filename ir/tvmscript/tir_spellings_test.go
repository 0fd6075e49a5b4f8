package tvmscript

import (
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/ir"
)

// TestTIRIntrinsicDType checks the dtype keyword older printers put on TIR
// intrinsic calls (T.exp(x, dtype="float32"), T.if_then_else(c, a, b,
// dtype=...)): accepted when it is the call's type, refused with a position
// when it is not, and not printed back.
func TestTIRIntrinsicDType(t *testing.T) {
	src := `# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            with T.block("b"):
                vi = T.axis.spatial(T.int64(4), i)
                B[vi] = T.if_then_else(vi < T.int64(2), T.exp(A[vi], dtype="float32"), T.float32(0), dtype="float32")

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_sinfo=R.Tensor((4,), dtype="float32"))
        return y
`
	m, err := ParseString("kw.py", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := Print(m, Current)
	if !strings.Contains(out, "T.if_then_else(vi < T.int64(2), T.exp(A[vi]), T.float32(0.0))") {
		t.Errorf("printed:\n%s", out)
	}
	bad := strings.Replace(src, `T.exp(A[vi], dtype="float32")`, `T.exp(A[vi], dtype="float64")`, 1)
	if _, err := ParseString("kw.py", bad, nil); err == nil || !strings.Contains(err.Error(), `kw.py:12:`) || !strings.Contains(err.Error(), `T.exp: dtype="float64", but the call's type is float32`) {
		t.Errorf("a wrong dtype: %v", err)
	}
}

// TestTIRGridForms checks the T.grid spellings TVM's tests write:
// T.grid(*buf.shape), and one loop target naming all the loop variables
// (`for iters in T.grid(m, n)`, then T.axis.remap("SS", iters)), and
// T.alloc_buffer(buf.shape, ...), buf.shape[i] in expressions; the module
// prints and parses back to the same structure. Other star arguments are
// refused with a position.
func TestTIRGridForms(t *testing.T) {
	src := `# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        for iters in T.grid(*A.shape):
            with T.block("b"):
                i, j = T.axis.remap("SS", iters)
                B[i, j] = A[i, j] + T.float32(1)
        C = T.alloc_buffer(A.shape, "float32")
        for i, j in T.grid(*B.shape):
            with T.block("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = B[vi, vj] * T.float32(2)
        for k in T.serial(T.int64(0), A.shape[1]):
            with T.block("d"):
                vk = T.axis.spatial(A.shape[1], k)
                C[0, vk] = A[0, vk]
`
	m, err := ParseString("grid.py", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := Print(m, Current)
	if !strings.Contains(out, "for iters_0, iters_1 in T.grid(T.int64(2), T.int64(3)):") {
		t.Errorf("printed:\n%s", out)
	}
	m2, err := ParseString("printed.py", out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.StructuralEqual(m, m2); err != nil {
		t.Error(err)
	}
	bad := strings.Replace(src, "T.grid(*A.shape)", "range(*A.shape)", 1)
	if _, err := ParseString("grid.py", bad, nil); err == nil || !strings.Contains(err.Error(), "grid.py:8:") || !strings.Contains(err.Error(), "star arguments are not supported") {
		t.Errorf("a star argument to range: %v", err)
	}
}

// TestExternFuncCallable checks R.ExternFunc with its type, including an
// R.Callable whose result TVM derives with a global function
// (derive_func): the call parses and type-checks (its result is R.Object),
// and a typed ExternFunc value prints with its type and parses back equal.
func TestExternFuncCallable(t *testing.T) {
	src := `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(A: R.Tensor([4096], "float32")):
        B = R.ExternFunc(
            "runtime.TVMTensorCreateView",
            R.Callable(derive_func="tvm.relax.type.infer_view_ty", purity=True),
        )(A, R.shape([64, 64]), R.dtype("float32"), R.prim_value(0))
        f = R.ExternFunc("my_ext", R.Callable((R.Tensor((2,), dtype="float32"),), R.Tensor(ndim=2, dtype="float32"), True))
        return (B, f)
`
	m, err := ParseString("ext.py", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := Print(m, Current)
	if !strings.Contains(out, `R.ExternFunc("my_ext", R.Callable((R.Tensor((2,), dtype="float32"),), R.Tensor(ndim=2, dtype="float32")))`) {
		t.Errorf("printed:\n%s", out)
	}
	m2, err := ParseString("printed.py", out, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if err := ir.StructuralEqual(m, m2); err != nil {
		t.Error(err)
	}
}
