# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 10, 3, 5), dtype="float32"), v: R.Tensor((16,), dtype="int32")) -> R.Tuple(R.Tensor((2, 3, 3, 5, 4), dtype="float32"), R.Tensor((2, 12, 3, 5), dtype="float32"), R.Tensor((4, 4), dtype="int32"), R.Tensor((16,), dtype="int32"), R.Tensor((5, 2, 3, 10), dtype="float32"), R.Tensor((3, 6), dtype="int32")):
        with R.dataflow():
            a: R.Tensor((2, 3, 3, 5, 4), dtype="float32") = R.layout_transform(x, index_map=T.index_map(lambda i0, i1, i2, i3: (i0, i1 // 4, i2, i3, i1 % 4), index_dtype="int32"), pad_value=-1.5)
            b: R.Tensor((2, 12, 3, 5), dtype="float32") = R.layout_transform(a, index_map=T.index_map(lambda i0, i1, i2, i3, i4: (i0, i1 * 4 + i4, i2, i3), index_dtype="int32"))
            c: R.Tensor((4, 4), dtype="int32") = R.layout_transform(v, index_map=lambda i: (i // 4, i % 4), pad_value=None)
            d: R.Tensor((16,), dtype="int32") = R.layout_transform(c, index_map=lambda axis0, axis1: (axis0 * 4 + axis1,), pad_value=None)
            e = R.layout_transform(x, lambda n, c, h, w: (w, n, h, c))
            f = R.layout_transform(v, index_map=lambda i: (i // 6, i % 6), pad_value=7)
            gv = (a, b, c, d, e, f)
            R.output(gv)
        return gv
