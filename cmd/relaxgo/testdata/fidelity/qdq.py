# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32"), s: R.Tensor((3,), dtype="float32"), z: R.Tensor((3,), dtype="int8"), q: R.Tensor((2, 3, 4), dtype="uint8"), s1: R.Tensor((1,), dtype="float32"), z1: R.Tensor((1,), dtype="uint8"), xh: R.Tensor((2, 3, 4), dtype="float16"), sh: R.Tensor((4,), dtype="float16"), zh: R.Tensor((4,), dtype="int8")) -> R.Tuple(R.Tensor((2, 3, 4), dtype="int8"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float16"), R.Tensor((2, 3, 4), dtype="uint8"), R.Tensor((2, 3, 4), dtype="int8"), R.Tensor((2, 3, 4), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((2, 3, 4), dtype="int8") = R.quantize(x, s, z, axis=1, out_dtype="int8")
            b: R.Tensor((2, 3, 4), dtype="float32") = R.dequantize(a, s, z, axis=1, out_dtype="float32")
            c: R.Tensor((2, 3, 4), dtype="float16") = R.dequantize(q, s1, z1, axis=-1, out_dtype="float16")
            d: R.Tensor((2, 3, 4), dtype="uint8") = R.quantize(x, R.const(0.05, "float32"), R.const(3, "int32"), axis=-1, out_dtype="uint8")
            e: R.Tensor((2, 3, 4), dtype="int8") = R.quantize(xh, sh, zh, axis=-1, out_dtype="int8")
            f: R.Tensor((2, 3, 4), dtype="float32") = R.dequantize(e, sh, zh, axis=-1, out_dtype="float32")
            gv = (a, b, c, d, e, f)
            R.output(gv)
        return gv
