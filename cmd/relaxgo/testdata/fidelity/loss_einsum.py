# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(pred: R.Tensor((4, 5), dtype="float32"), tgt: R.Tensor((4,), dtype="int64"), w: R.Tensor((5,), dtype="float32"), pred3: R.Tensor((2, 3, 4), dtype="float32"), tgt3: R.Tensor((2, 4), dtype="int32"), lab: R.Tensor((4, 5), dtype="float32"), a: R.Tensor((2, 3), dtype="float32"), b: R.Tensor((3, 4), dtype="float32"), bt: R.Tensor((5, 2, 3), dtype="float32"), sq: R.Tensor((3, 3), dtype="float32"), ia: R.Tensor((2, 3), dtype="int32")) -> R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((2, 4), dtype="float32"), R.Tensor((5, 3, 2), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((3,), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((3, 2), dtype="int32"), R.Tensor((5, 2, 4), dtype="float32")):
        with R.dataflow():
            l1: R.Tensor((), dtype="float32") = R.nn.nll_loss(pred, tgt, w, reduction="mean", ignore_index=2)
            l2: R.Tensor((), dtype="float32") = R.nn.nll_loss(pred, tgt, reduction="sum", ignore_index=-100)
            l3: R.Tensor((4,), dtype="float32") = R.nn.nll_loss(pred, tgt, w, reduction="none", ignore_index=-100)
            l4: R.Tensor((), dtype="float32") = R.nn.nll_loss(pred3, tgt3, reduction="mean", ignore_index=-100)
            ce: R.Tensor((), dtype="float32") = R.nn.cross_entropy_with_logits(pred, lab)
            e1: R.Tensor((2, 4), dtype="float32") = R.einsum((a, b), subscripts="ij,jk->ik")
            e2: R.Tensor((5, 3, 2), dtype="float32") = R.einsum((bt,), subscripts="bij->bji")
            e3: R.Tensor((), dtype="float32") = R.einsum((sq,), subscripts="ii")
            e4: R.Tensor((3,), dtype="float32") = R.einsum((sq,), subscripts="ii->i")
            e5: R.Tensor((2, 3, 4), dtype="float32") = R.einsum((a, b), subscripts="ij,jk->ijk")
            e6: R.Tensor((3, 2), dtype="int32") = R.einsum((ia,), subscripts="ij->ji")
            e7: R.Tensor((5, 2, 4), dtype="float32") = R.einsum((bt, b), subscripts="...ij,jk->...ik")
            gv = (l1, l2, l3, l4, ce, e1, e2, e3, e4, e5, e6, e7)
            R.output(gv)
        return gv
