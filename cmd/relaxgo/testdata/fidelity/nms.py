# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(boxes: R.Tensor((2, 6, 4), dtype="float32"), scores: R.Tensor((2, 3, 6), dtype="float32"), max_out: R.Tensor((), dtype="int64"), iou: R.Tensor((), dtype="float32"), thr: R.Tensor((), dtype="float32")):
        with R.dataflow():
            a = R.vision.all_class_non_max_suppression(boxes, scores, max_out, iou, thr, output_format="onnx")
            b = R.vision.all_class_non_max_suppression(boxes, scores, max_out, iou, thr, output_format="tensorflow")
            gv = (a[0], a[1], b[0], b[1], b[2])
            R.output(gv)
        return gv
