# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(theta: R.Tensor((2, 2, 3), dtype="float32"), theta3: R.Tensor((1, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 2, 4, 5), dtype="float32"), R.Tensor((2, 2, 3, 6), dtype="float32"), R.Tensor((1, 3, 2, 3, 4), dtype="float32")):
        with R.dataflow():
            g1: R.Tensor((2, 2, 4, 5), dtype="float32") = R.image.affine_grid(theta, R.shape([4, 5]), align_corners=True)
            g2: R.Tensor((2, 2, 3, 6), dtype="float32") = R.image.affine_grid(theta, R.shape([3, 6]), align_corners=False)
            g3: R.Tensor((1, 3, 2, 3, 4), dtype="float32") = R.image.affine_grid(theta3, R.shape([2, 3, 4]), align_corners=False)
            gv = (g1, g2, g3)
            R.output(gv)
        return gv
