# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32"), ie: R.Tensor((2, 4), dtype="int64"), ue: R.Tensor((2, 4), dtype="float32"), xi: R.Tensor((3, 4), dtype="int32"), ui: R.Tensor((2, 4), dtype="int32"), d: R.Tensor((4, 3), dtype="float32"), ind: R.Tensor((2, 1), dtype="int64"), un: R.Tensor((2, 3), dtype="float32"), ind2: R.Tensor((2, 2), dtype="int32"), un2: R.Tensor((2,), dtype="float32"), i0: R.Tensor((3,), dtype="int64"), i1: R.Tensor((3,), dtype="int64"), j0: R.Tensor((3,), dtype="int64"), v: R.Tensor((3,), dtype="float32"), src: R.Tensor((3, 2), dtype="float32"), xh: R.Tensor((3, 4), dtype="float16"), uh: R.Tensor((2, 4), dtype="float16")):
        with R.dataflow():
            a: R.Tensor((3, 4), dtype="float32") = R.scatter_elements(x, ie, ue, axis=0, reduction="update")
            b: R.Tensor((3, 4), dtype="float32") = R.scatter_elements(x, ie, ue, axis=1, reduction="add")
            c: R.Tensor((3, 4), dtype="int32") = R.scatter_elements(xi, ie, ui, axis=0, reduction="mul")
            e: R.Tensor((3, 4), dtype="float32") = R.scatter_elements(x, ie, ue, axis=-1, reduction="max")
            f: R.Tensor((3, 4), dtype="float32") = R.scatter_elements(x, ie, ue, axis=0, reduction="min")
            g: R.Tensor((3, 4), dtype="float32") = R.scatter_elements(x, ie, ue, axis=1, reduction="mean")
            h: R.Tensor((4, 3), dtype="float32") = R.scatter_nd(d, ind, un, reduction="add")
            k: R.Tensor((4, 3), dtype="float32") = R.scatter_nd(d, ind2, un2, reduction="update")
            l: R.Tensor((4, 3), dtype="float32") = R.scatter_nd(d, ind, un, reduction="mul")
            m: R.Tensor((3, 4), dtype="float32") = R.index_put(x, (i0, i1), v, accumulate=True)
            n: R.Tensor((3, 4), dtype="float32") = R.index_put(x, (j0, i1), v, accumulate=False)
            o: R.Tensor((3, 4), dtype="float32") = R.slice_scatter(x, src, R.prim_value(1), R.prim_value(4), R.prim_value(2), axis=1)
            p: R.Tensor((3, 4), dtype="float16") = R.scatter_elements(xh, ie, uh, axis=1, reduction="add")
            gv = (a, b, c, e, f, g, h, k, l, m, n, o, p)
            R.output(gv)
        return gv
