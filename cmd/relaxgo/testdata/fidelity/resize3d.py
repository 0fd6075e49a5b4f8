# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 4, 5), dtype="float32"), xh: R.Tensor((1, 2, 3, 4, 5), dtype="float16")) -> R.Tuple(R.Tensor((1, 2, 5, 6, 3), dtype="float16"), R.Tensor((1, 2, 5, 6, 3), dtype="float32"), R.Tensor((1, 2, 4, 7, 8), dtype="float32"), R.Tensor((1, 2, 6, 8, 10), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((1, 2, 5, 6, 3), dtype="float32") = R.image.resize3d(x, R.shape([5, 6, 3]), roi=[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], layout="NCDHW", method="linear", coordinate_transformation_mode="half_pixel", rounding_method="", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype="void")
            b: R.Tensor((1, 2, 4, 7, 8), dtype="float32") = R.image.resize3d(x, R.shape([4, 7, 8]), roi=[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], layout="NCDHW", method="linear", coordinate_transformation_mode="align_corners", rounding_method="", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype="void")
            c: R.Tensor((1, 2, 6, 8, 10), dtype="float32") = R.image.resize3d(x, R.shape([6, 8, 10]), roi=[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], layout="NCDHW", method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="floor", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype="void")
            h: R.Tensor((1, 2, 5, 6, 3), dtype="float16") = R.image.resize3d(xh, R.shape([5, 6, 3]), roi=[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], layout="NCDHW", method="linear", coordinate_transformation_mode="half_pixel", rounding_method="", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype="void")
            gv = (h, a, b, c)
            R.output(gv)
        return gv
