# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32"), m: R.Tensor((2, 3), dtype="bool"), b: R.Tensor((2,), dtype="int64"), e: R.Tensor((2,), dtype="int64"), s: R.Tensor((2,), dtype="int64"), shp: R.Tensor((2,), dtype="int64")) -> R.Tuple(R.Tensor(dtype="int64", ndim=2), R.Tensor(dtype="int64", ndim=2), R.Tensor(dtype="float32", ndim=2), R.Shape(ndim=2), R.Tensor(dtype="float32", ndim=2)):
        a = T.int64()
        c = T.int64()
        n1 = R.nonzero(x)
        n2 = R.nonzero(m)
        d = R.dynamic_strided_slice(x, b, e, s)
        sh = R.tensor_to_shape(shp)
        sh2 = R.match_cast(sh, R.Shape([a, c]))
        r = R.reshape(x, sh2)
        return (n1, n2, d, sh, r)
