# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        @R.function
        def inner(y: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
            z: R.Tensor((2,), dtype="float32") = R.add(y, x)
            return z

        r: R.Tensor((2,), dtype="float32") = inner(x)
        return r
