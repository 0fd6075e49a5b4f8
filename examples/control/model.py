# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def power(x: R.Tensor((4,), dtype="float32"), n: R.Tensor((), dtype="int64")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        done: R.Tensor((), dtype="bool") = R.less_equal(n, R.const(0, "int64"))
        if done:
            r: R.Tensor((4,), dtype="float32") = R.ones(R.shape([4]), dtype="float32")
        else:
            n1: R.Tensor((), dtype="int64") = R.subtract(n, R.const(1, "int64"))
            p: R.Tensor((4,), dtype="float32") = cls.power(x, n1)
            r: R.Tensor((4,), dtype="float32") = R.multiply(p, x)
        return r

    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), n: R.Tensor((), dtype="int64")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y: R.Tensor((4,), dtype="float32") = cls.power(x, n)
        s: R.Tensor((), dtype="float32") = R.sum(y, axis=None, keepdims=False)
        positive: R.Tensor((), dtype="bool") = R.greater(s, R.const(0.0, "float32"))
        if positive:
            out: R.Tensor((4,), dtype="float32") = y
        else:
            out: R.Tensor((4,), dtype="float32") = R.negative(y)
        return out
