# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32"), y: R.Tensor((2,), dtype="float32")) -> R.Tuple(R.Tensor((4, 3), dtype="float32"), R.Tensor((2, 2), dtype="float32"), R.Tensor((2,), dtype="int32"), R.Tensor((2,), dtype="int32"), R.Tensor((8,), dtype="uint8")):
        with R.dataflow():
            v1: R.Tensor((4, 3), dtype="float32") = R.memory.view(x, R.shape([4, 3]))
            v2: R.Tensor((2, 2), dtype="float32") = R.memory.view(x, R.shape([2, 2]), R.dtype("float32"), R.prim_value(16))
            v3: R.Tensor((2,), dtype="int32") = R.memory.view(y, R.shape([2]), R.dtype("int32"))
            v4: R.Tensor((2,), dtype="int32") = R.memory.view(y, R.null_value(), R.dtype("int32"), R.null_value())
            v5: R.Tensor((8,), dtype="uint8") = R.memory.view(x, shape=R.shape([8]), dtype=R.dtype("uint8"), relative_byte_offset=R.prim_value(4))
            gv = (v1, v2, v3, v4, v5)
            R.output(gv)
        return gv
