# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), dtype="float32"), b: R.Tensor((2, 3), dtype="float32"), c: R.Tensor((2, 3), dtype="float32"), ai: R.Tensor((2, 3), dtype="int32"), v: R.Tensor((2, 5), dtype="float32"), bounds: R.Tensor((4,), dtype="float32"), seq: R.Tensor((3, 4, 2), dtype="float32"), lens: R.Tensor((3,), dtype="int64"), lens4: R.Tensor((4,), dtype="int32"), prob: R.Tensor((2, 4), dtype="float32"), u: R.Tensor((3, 1), dtype="float32"), sidx: R.Tensor((3, 1), dtype="int64")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="int32"), R.Tensor((2, 5), dtype="int64"), R.Tensor((2, 5), dtype="int32"), R.Tensor((8,), dtype="float32"), R.Tensor((5,), dtype="float32"), R.Tensor((3, 4, 2), dtype="float32"), R.Tensor((3, 4, 2), dtype="float32"), R.Tensor((3,), dtype="int64"), R.Tensor((3, 1), dtype="int64"), R.Tensor((2, 3), dtype="float32")):
        with R.dataflow():
            s: R.Tensor((2, 3), dtype="float32") = R.grad.start_checkpoint(a)
            f: R.Tensor((2, 3), dtype="float32") = R.ewise_fma(s, b, c)
            e: R.Tensor((2, 3), dtype="float32") = R.grad.end_checkpoint(f)
            fi: R.Tensor((2, 3), dtype="int32") = R.ewise_fma(ai, ai, ai)
            k1: R.Tensor((2, 5), dtype="int64") = R.bucketize(v, bounds, out_int32=False, right=False)
            k2: R.Tensor((2, 5), dtype="int32") = R.bucketize(v, bounds, out_int32=True, right=True)
            w1: R.Tensor((8,), dtype="float32") = R.hamming_window(R.prim_value(8), R.prim_value(1), R.prim_value(T.float32(0.54)), R.prim_value(T.float32(0.46)), dtype="float32")
            w2: R.Tensor((5,), dtype="float32") = R.hamming_window(R.prim_value(5), R.prim_value(0), R.prim_value(T.float32(0.5)), R.prim_value(T.float32(0.5)), dtype="float32")
            r1: R.Tensor((3, 4, 2), dtype="float32") = R.reverse_sequence(seq, lens, seq_axis=1, batch_axis=0)
            r2: R.Tensor((3, 4, 2), dtype="float32") = R.reverse_sequence(seq, lens4, seq_axis=0, batch_axis=-2)
            st: R.Tensor((3,), dtype="int64") = R.shape_to_tensor(R.shape([3, 4, 2]))
            m: R.Tensor((3, 1), dtype="int64") = R.multinomial_from_uniform(prob, u, sidx, dtype="int64")
            gv = (e, fi, k1, k2, w1, w2, r1, r2, st, m, s)
            R.output(gv)
        return gv
