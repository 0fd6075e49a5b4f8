# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 8, 9), dtype="float32"), rois: R.Tensor((3, 5), dtype="float32")) -> R.Tuple(R.Tensor((3, 3, 2, 3), dtype="float32"), R.Tensor((3, 3, 3, 3), dtype="float32"), R.Tensor((3, 2, 2, 3), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((3, 3, 2, 3), dtype="float32") = R.vision.roi_align(x, rois, pooled_size=[2, 3], spatial_scale=0.5, sample_ratio=2, aligned=False, layout="NCHW", mode="avg")
            b: R.Tensor((3, 3, 3, 3), dtype="float32") = R.vision.roi_align(x, rois, pooled_size=[3, 3], spatial_scale=1.0, sample_ratio=-1, aligned=True, layout="NCHW", mode="max")
            xt: R.Tensor((2, 8, 9, 3), dtype="float32") = R.permute_dims(x, axes=[0, 2, 3, 1])
            c: R.Tensor((3, 2, 2, 3), dtype="float32") = R.vision.roi_align(xt, rois, pooled_size=[2, 2], spatial_scale=0.5, sample_ratio=2, aligned=False, layout="NHWC", mode="avg")
            gv = (a, b, c)
            R.output(gv)
        return gv
