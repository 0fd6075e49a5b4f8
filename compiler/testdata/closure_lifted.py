# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def adder(y: R.Tensor((2,), dtype="float32"), x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        z: R.Tensor((2,), dtype="float32") = R.add(y, x)
        return z

    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        cls = Module
        clo: R.Object = R.make_closure(cls.adder, (x,))
        r = R.invoke_closure(clo, (x,), sinfo_args=(R.Tensor((2,), dtype="float32"),))
        s: R.Tensor((2,), dtype="float32") = R.multiply(r, x)
        return s
