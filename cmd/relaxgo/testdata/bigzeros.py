# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), dtype="float32")) -> R.Tensor(("n", "n"), dtype="float32"):
        n = T.int64()
        m = T.int64()
        y: R.Tensor((n, n), dtype="float32") = R.zeros(R.shape([n, n]), dtype="float32")
        return y
