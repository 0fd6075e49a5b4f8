# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, 2, 2), dtype="float32")) -> R.Tuple(R.Tensor((1, 1, 4, 4), dtype="float32"), R.Tensor((1, 4, 4, 1), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((1, 1, 4, 4), dtype="float32") = R.image.resize2d(x, R.shape([4, 4]), roi=[0.0, 0.0, 0.0, 0.0], layout="NCHW", method="linear", coordinate_transformation_mode="half_pixel", rounding_method="round", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype="void")
            t: R.Tensor((1, 2, 2, 1), dtype="float32") = R.permute_dims(x, axes=[0, 2, 3, 1])
            b: R.Tensor((1, 4, 4, 1), dtype="float32") = R.image.resize2d(t, (4, 4), layout="NHWC", method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="floor")
            gv = (a, b)
            R.output(gv)
        return gv
