# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def scale_and_sum(A: T.Buffer((T.int64(4),), "float32"), S: T.Buffer((T.int64(1),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in range(T.int64(4)):
            with T.block("scale"):
                vi = T.axis.spatial(T.int64(4), i)
                T.reads(A[vi])
                T.writes(A[vi])
                A[vi] = A[vi] * T.float32(2)
        for i in range(T.int64(4)):
            with T.block("sum"):
                vi = T.axis.reduce(T.int64(4), i)
                T.reads(A[vi])
                T.writes(S[T.int64(0)])
                with T.init():
                    S[T.int64(0)] = T.float32(0)
                S[T.int64(0)] = S[T.int64(0)] + A[vi]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((1,), dtype="float32")):
        cls = Module
        z: R.Tensor((4,), dtype="float32") = R.add(x, x)
        r = R.call_tir_inplace(cls.scale_and_sum, (z,), inplace_indices=[0, -1], out_sinfo=[R.Tensor((4,), dtype="float32"), R.Tensor((1,), dtype="float32")])
        return r
