# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 5, 6), dtype="float32"), g: R.Tensor((2, 2, 4, 7), dtype="float32"), x3: R.Tensor((1, 2, 3, 4, 5), dtype="float32"), g3: R.Tensor((1, 3, 2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((1, 2, 2, 3, 4), dtype="float32"), R.Tensor((1, 2, 2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4, 7), dtype="float32"), R.Tensor((2, 3, 4, 7), dtype="float32"), R.Tensor((2, 3, 4, 7), dtype="float32"), R.Tensor((2, 3, 4, 7), dtype="float32"), R.Tensor((2, 3, 4, 7), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((2, 3, 4, 7), dtype="float32") = R.image.grid_sample(x, g, method="bilinear", layout="NCHW", padding_mode="zeros", align_corners=False)
            b: R.Tensor((2, 3, 4, 7), dtype="float32") = R.image.grid_sample(x, g, method="bilinear", layout="NCHW", padding_mode="border", align_corners=True)
            c: R.Tensor((2, 3, 4, 7), dtype="float32") = R.image.grid_sample(x, g, method="bilinear", layout="NCHW", padding_mode="reflection", align_corners=False)
            d: R.Tensor((2, 3, 4, 7), dtype="float32") = R.image.grid_sample(x, g, method="nearest", layout="NCHW", padding_mode="zeros", align_corners=True)
            e: R.Tensor((2, 3, 4, 7), dtype="float32") = R.image.grid_sample(x, g, method="bicubic", layout="NCHW", padding_mode="zeros", align_corners=False)
            t1: R.Tensor((1, 2, 2, 3, 4), dtype="float32") = R.image.grid_sample(x3, g3, method="bilinear", layout="NCDHW", padding_mode="border", align_corners=False)
            t2: R.Tensor((1, 2, 2, 3, 4), dtype="float32") = R.image.grid_sample(x3, g3, method="nearest", layout="NCDHW", padding_mode="zeros", align_corners=True)
            gv = (t1, t2, a, b, c, d, e)
            R.output(gv)
        return gv
