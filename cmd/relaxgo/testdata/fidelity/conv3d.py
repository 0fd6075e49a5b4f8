# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 5, 6, 7), dtype="float32"), w: R.Tensor((6, 2, 3, 3, 2), dtype="float32"), wt: R.Tensor((4, 3, 2, 3, 3), dtype="float32")) -> R.Tuple(R.Tensor((1, 6, 3, 2, 6), dtype="float32"), R.Tensor((1, 6, 9, 11, 16), dtype="float32")):
        with R.dataflow():
            c: R.Tensor((1, 6, 3, 2, 6), dtype="float32") = R.nn.conv3d(x, w, strides=[2, 2, 1], padding=[1, 0, 1, 1, 0, 0], dilation=[1, 1, 2], groups=2, data_layout="NCDHW", kernel_layout="OIDHW", out_layout="NCDHW", out_dtype="void")
            t: R.Tensor((1, 6, 9, 11, 16), dtype="float32") = R.nn.conv3d_transpose(x, wt, strides=[2, 2, 2], padding=[1, 1, 0, 1, 1, 0], output_padding=[1, 0, 1], dilation=[1, 1, 1], groups=2, data_layout="NCDHW", kernel_layout="IODHW", out_layout="NCDHW", out_dtype="void")
            gv = (c, t)
            R.output(gv)
        return gv
