# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), i: R.Tensor((2, 3), dtype="int64"), c: R.Tensor((4,), dtype="int32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((6,), dtype="float32"), R.Tensor((2, 3), dtype="float32"), R.Tensor((4, 5), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((2, 3), dtype="float32") = R.cumsum(x, axis=1, dtype="float32", exclusive=False)
            b: R.Tensor((6,), dtype="float32") = R.cumprod(x)
            g: R.Tensor((2, 3), dtype="float32") = R.gather_elements(x, R.floor_mod(i, R.const(3, "int64")), axis=1)
            h: R.Tensor((4, 5), dtype="float32") = R.one_hot(c, R.prim_value(T.float32(1)), R.prim_value(T.float32(0)), 5, -1)
            gv = (a, b, g, h)
            R.output(gv)
        return gv
