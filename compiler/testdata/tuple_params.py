# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def pair(x: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((3, 2), dtype="float32")):
        a: R.Tensor((2, 3), dtype="float32") = R.nn.relu(x)
        b: R.Tensor((3, 2), dtype="float32") = R.permute_dims(x, axes=[1, 0])
        return (a, b)

    @R.function
    def main(t: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((3,), dtype="float32")), k: R.Prim("int64")) -> R.Tuple(R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((3, 2), dtype="float32")), R.Tensor((2, 3), dtype="float32"), R.Shape([2, 3])):
        cls = Module
        x: R.Tensor((2, 3), dtype="float32") = t[0]
        bias: R.Tensor((3,), dtype="float32") = t[1]
        y: R.Tensor((2, 3), dtype="float32") = R.add(x, bias)
        p: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((3, 2), dtype="float32")) = cls.pair(y)
        q: R.Tensor((2, 3), dtype="float32") = p[0]
        s: R.Tensor((2, 3), dtype="float32") = R.multiply(q, R.const(2, "float32"))
        m: R.Tensor((2,), dtype="float32") = R.max(s, axis=[1], keepdims=False)
        e: R.Tensor((2, 3), dtype="float32") = R.subtract(s, R.expand_dims(m, axis=[1]))
        sh: R.Shape([2, 3]) = R.shape_of(e)
        return (p, e, sh)
