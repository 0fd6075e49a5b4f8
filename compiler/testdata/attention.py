# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 4, 2, 8), dtype="float32"), k: R.Tensor((1, 4, 2, 8), dtype="float32"), v: R.Tensor((1, 4, 2, 8), dtype="float32")) -> R.Tensor((1, 4, 2, 8), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((1, 4, 2, 8), dtype="float32") = R.nn.attention(q, k, v, scale=None, causal_mask="TopLeft", window_size=None)
            R.output(gv)
        return gv
