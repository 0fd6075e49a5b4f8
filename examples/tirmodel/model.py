# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

# A feed-forward block whose bias + GELU epilogue and row-wise mean are
# hand-written TIR PrimFuncs, called from Relax with R.call_tir; relaxgo
# compiles them to Go loop nests (model/tir.go). The batch size n is symbolic.
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def bias_gelu(var_x: T.handle, b: T.Buffer((T.int64(8),), "float32"), var_y: T.handle):
        T.func_attr({"tir.noalias": True})
        n = T.int64()
        x = T.match_buffer(var_x, (n, T.int64(8)))
        y = T.match_buffer(var_y, (n, T.int64(8)))
        for i, j in T.grid(n, T.int64(8)):
            with T.block("bias_gelu"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(x[v_i, v_j], b[v_j])
                T.writes(y[v_i, v_j])
                y[v_i, v_j] = (x[v_i, v_j] + b[v_j]) * T.float32(0.5) * (T.float32(1.0) + T.erf((x[v_i, v_j] + b[v_j]) * T.float32(0.70710678118654757)))

    @T.prim_func(private=True)
    def row_mean(var_a: T.handle, var_m: T.handle):
        T.func_attr({"tir.noalias": True})
        n = T.int64()
        a = T.match_buffer(var_a, (n, T.int64(8)))
        m = T.match_buffer(var_m, (n,))
        for i, k in T.grid(n, T.int64(8)):
            with T.block("row_mean"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                T.reads(a[v_i, v_k])
                T.writes(m[v_i])
                with T.init():
                    m[v_i] = T.float32(0.0)
                m[v_i] = m[v_i] + a[v_i, v_k] * T.float32(0.125)

    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32"), b: R.Tensor((8,), dtype="float32")) -> R.Tuple(R.Tensor(("n", 8), dtype="float32"), R.Tensor(("n",), dtype="float32")):
        n = T.int64()
        cls = Module
        with R.dataflow():
            h = R.call_tir(cls.bias_gelu, (x, b), out_sinfo=R.Tensor((n, 8), dtype="float32"))
            m = R.call_tir(cls.row_mean, (h,), out_sinfo=R.Tensor((n,), dtype="float32"))
            gv = (h, m)
            R.output(gv)
        return gv
