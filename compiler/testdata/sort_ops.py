# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 5), dtype="float32")) -> R.Tuple(R.Tensor((2, 5), dtype="float32"), R.Tensor((2, 5), dtype="int32"), R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="int64")):
        with R.dataflow():
            s: R.Tensor((2, 5), dtype="float32") = R.sort(x, axis=-1, descending=False)
            a: R.Tensor((2, 5), dtype="int32") = R.argsort(x, axis=-1, descending=True, dtype="int32")
            tk: R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="int64")) = R.topk(x, k=2, axis=-1, ret_type="both", largest=True, dtype="int64")
            v: R.Tensor((2, 2), dtype="float32") = tk[0]
            i: R.Tensor((2, 2), dtype="int64") = tk[1]
            gv = (s, a, v, i)
            R.output(gv)
        return gv
