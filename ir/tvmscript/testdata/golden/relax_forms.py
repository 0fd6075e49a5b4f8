# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_attrs({"system_lib_prefix": "lib_"})
    @T.prim_func(private=True)
    def copy(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in range(T.int64(4)):
            B[i] = A[i]

    @R.function(private=True)
    def helper(x: R.Tensor((4,), dtype="float32"), flag: R.Prim("bool")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Object):
        return (x, R.str("ok"))

    @R.function(pure=False)
    def main(x: R.Tensor(("n",), dtype="float32"), c: R.Tensor((), dtype="bool"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        n = T.int64()
        R.func_attr({"num_input": 2, "tir_var_upper_bound": {"n": 1024}})
        cls = Module
        s: R.Shape([n]) = R.shape([n])
        k = R.prim_value(n * 2)
        k2 = R.prim_value(T.int32(3))
        dt = R.dtype("float16")
        w = R.const([[1.0, 2.5], [-3.0, 0.125]], "float32")
        z = R.match_cast(x, R.Tensor((4,), dtype="float32"))
        with R.dataflow():
            a = R.call_tir(cls.copy, (z,), out_sinfo=R.Tensor((4,), dtype="float32"))
            b = R.call_pure_packed("my.scale", a, R.const(2.0, "float32"), sinfo_args=(R.Tensor((4,), dtype="float32"),))
            t: R.Tuple(R.Tensor((4,), dtype="float32"), R.Object) = cls.helper(b, True)
            u = t[0]
            v: R.Tensor((4,), dtype="float32") = R.nn.softmax(u, axis=-1)
            R.output(v)
        R.call_packed("my.print", v, sinfo_args=(R.Tuple,))
        if c:
            r = R.add(v, y)
        else:
            r = y
        return r
