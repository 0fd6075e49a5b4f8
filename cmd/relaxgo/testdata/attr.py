# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        with T.block("root"):
            T.attr(0, "pragma_scope", "seq")
            for i in range(T.int64(4)):
                B[i] = A[i] * T.float32(2)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.f, (x,), out_sinfo=R.Tensor((4,), dtype="float32"))
        return y
