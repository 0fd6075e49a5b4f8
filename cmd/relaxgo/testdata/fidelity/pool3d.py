# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 4, 5, 6), dtype="float32"), m: R.Tensor((3, 4), dtype="float32"), mi: R.Tensor((2, 5), dtype="int32")) -> R.Tuple(R.Tensor((1, 2, 2, 2, 3), dtype="float32"), R.Tensor((1, 2, 2, 3, 3), dtype="float32"), R.Tensor((1, 2, 2, 3, 3), dtype="float32"), R.Tensor((1, 2, 2, 3, 4), dtype="float32"), R.Tensor((1, 4, 5, 6, 2), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="int64"), R.Tensor((2, 1), dtype="int32"), R.Tensor((2, 1), dtype="int64")):
        with R.dataflow():
            p1: R.Tensor((1, 2, 2, 2, 3), dtype="float32") = R.nn.max_pool3d(x, pool_size=[2, 2, 2], strides=[2, 2, 2], padding=[0, 0, 0, 0, 0, 0], dilation=[1, 1, 1], ceil_mode=False, count_include_pad=False, layout="NCDHW", out_layout="NCDHW")
            p2: R.Tensor((1, 2, 2, 3, 3), dtype="float32") = R.nn.avg_pool3d(x, pool_size=[3, 3, 3], strides=[2, 2, 2], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 1, 1], ceil_mode=False, count_include_pad=True, layout="NCDHW", out_layout="NCDHW")
            p3: R.Tensor((1, 2, 2, 3, 3), dtype="float32") = R.nn.avg_pool3d(x, pool_size=[3, 3, 3], strides=[2, 2, 2], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 1, 1], ceil_mode=False, count_include_pad=False, layout="NCDHW", out_layout="NCDHW")
            p4: R.Tensor((1, 2, 2, 3, 4), dtype="float32") = R.nn.adaptive_avg_pool3d(x, output_size=[2, 3, 4], layout="NCDHW", out_layout="NCDHW")
            xt: R.Tensor((1, 4, 5, 6, 2), dtype="float32") = R.permute_dims(x, axes=[0, 2, 3, 4, 1])
            p5: R.Tensor((1, 4, 5, 6, 2), dtype="float32") = R.nn.max_pool3d(xt, pool_size=[3, 3, 3], strides=[1, 1, 1], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 1, 1], ceil_mode=False, count_include_pad=False, layout="NDHWC", out_layout="NDHWC")
            md: R.Tensor((), dtype="float32") = R.median(m, axis=None, keepdims=False)
            mt: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="int64")) = R.median(m, axis=[1], keepdims=False)
            mv: R.Tensor((3,), dtype="float32") = mt[0]
            mix: R.Tensor((3,), dtype="int64") = mt[1]
            it: R.Tuple(R.Tensor((2, 1), dtype="int32"), R.Tensor((2, 1), dtype="int64")) = R.median(mi, axis=[-1], keepdims=True)
            iv: R.Tensor((2, 1), dtype="int32") = it[0]
            ii: R.Tensor((2, 1), dtype="int64") = it[1]
            gv = (p1, p2, p3, p4, p5, md, mv, mix, iv, ii)
            R.output(gv)
        return gv
