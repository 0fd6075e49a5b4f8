package lower_test

import (
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/kernels" // (its init registers the fused kernel FuseAttention targets)
	"github.com/relaxgo/relaxgo/lower"
)

// TestFuseAttention checks which decomposed attentions FuseAttention
// rewrites into one softmax_attention call: scaled by a multiply (either
// operand order), by scores / c and not at all, masked by an add (either
// order) or a where (either branch); and which it leaves alone: c /
// scores, a softmax over another axis, an intermediate used twice, a mask
// before the scale.
func TestFuseAttention(t *testing.T) {
	const head = `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
`
	fn := func(name, scale, axis string, extra string) string {
		body := `    @R.function
    def NAME(q: R.Tensor((1, 2, 4, 8), dtype="float32"), k: R.Tensor((1, 2, 8, 6), dtype="float32"), v: R.Tensor((1, 2, 6, 5), dtype="float32")) -> R.Tensor((1, 2, 4, 5), dtype="float32"):
        with R.dataflow():
            s: R.Tensor((1, 2, 4, 6), dtype="float32") = R.matmul(q, k, out_dtype="void")
            SCALE
            p: R.Tensor((1, 2, 4, 6), dtype="float32") = R.nn.softmax(s2, axis=AXIS)
            o: R.Tensor((1, 2, 4, 5), dtype="float32") = R.matmul(p, v, out_dtype="void")
            EXTRA
            R.output(gv)
        return gv
`
		in := "s2"
		if strings.Contains(scale, "s3:") {
			in = "s3"
		}
		body = strings.NewReplacer("NAME", name, "SCALE", scale, "AXIS", axis, "softmax(s2", "softmax("+in).Replace(body)
		if extra == "" {
			extra = "gv: R.Tensor((1, 2, 4, 5), dtype=\"float32\") = o"
		}
		return strings.Replace(body, "EXTRA", extra, 1)
	}
	const mul = `s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.multiply(s, R.const(0.5, "float32"))`
	const (
		noScale, byMul, byDiv                  = kernels.AttentionNoScale, kernels.AttentionMultiply, kernels.AttentionDivide
		noMask, addM, mAdd, whereFill, whereKp = kernels.AttentionNoMask, kernels.AttentionAddMask, kernels.AttentionMaskAdd, kernels.AttentionWhereFill, kernels.AttentionWhereKeep
	)
	cases := []struct {
		name, scale, axis, extra string
		fused                    bool
		scaleOp, maskOp          int // the fused call's codes (the kernel's constants)
	}{
		{"mul", mul, "-1", "", true, byMul, noMask},
		{"mul_first", `s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.multiply(R.const(0.5, "float32"), s)`, "3", "", true, byMul, noMask},
		{"div", `s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.divide(s, R.const(4.0, "float32"))`, "-1", "", true, byDiv, noMask},
		{"none", `s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.matmul(q, k, out_dtype="void")`, "-1", "", true, noScale, noMask}, // (s is dead)
		{"rdiv", `s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.divide(R.const(4.0, "float32"), s)`, "-1", "", false, 0, 0},
		{"axis", mul, "2", "", false, 0, 0},
		{"reused", mul, "-1", `gv: R.Tensor((1, 2, 4, 5), dtype="float32") = R.add(o, R.sum(p, axis=[3], keepdims=True))`, false, 0, 0},
		{"add_mask", mul + `
            s3: R.Tensor((1, 2, 4, 6), dtype="float32") = R.add(s2, R.const(np.zeros((4, 6), dtype=np.float32)))`, "-1", "", true, byMul, addM},
		{"mask_add", mul + `
            s3: R.Tensor((1, 2, 4, 6), dtype="float32") = R.add(R.const(np.zeros((1, 1, 1, 6), dtype=np.float32)), s2)`, "-1", "", true, byMul, mAdd},
		{"where", mul + `
            s3: R.Tensor((1, 2, 4, 6), dtype="float32") = R.where(R.const(np.ones((1, 1, 4, 6), dtype=np.bool_)), R.const(float("-inf"), "float32"), s2)`, "-1", "", true, byMul, whereFill},
		{"where_keep", `s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.divide(s, R.const(4.0, "float32"))
            s3: R.Tensor((1, 2, 4, 6), dtype="float32") = R.where(R.const(np.ones((4, 6), dtype=np.bool_)), s2, R.const(-1e9, "float32"))`, "-1", "", true, byDiv, whereKp},
		{"mask_then_scale", `s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.add(s, R.const(np.zeros((4, 6), dtype=np.float32)))
            s3: R.Tensor((1, 2, 4, 6), dtype="float32") = R.multiply(s2, R.const(0.5, "float32"))`, "-1", "", false, 0, 0},
	}
	src := head
	for _, c := range cases {
		src += fn(c.name, c.scale, c.axis, c.extra)
	}
	out, all := lowerThrough(t, "attention.py", src, "fuse-attention")
	for _, c := range cases {
		text := funcText(t, all, c.name)
		if got := strings.Contains(text, lower.SoftmaxAttentionKernel); got != c.fused {
			t.Errorf("%s: fused %v, want %v:\n%s", c.name, got, c.fused, text)
		}
		if c.fused && strings.Contains(text, "kernels.nn.softmax") {
			t.Errorf("%s: the softmax call is still there:\n%s", c.name, text)
		}
		if c.fused {
			if s, m, l := attentionCodes(t, out, c.name); s != c.scaleOp || m != c.maskOp || l != 0 {
				t.Errorf("%s: scale_op %d, mask_op %d, layout %d; the kernel's codes are %d, %d, 0", c.name, s, m, l, c.scaleOp, c.maskOp)
			}
		}
	}
}

// attentionCodes returns the scale_op, mask_op and layout arguments of the
// fused attention call in function name of m.
func attentionCodes(t *testing.T, m *ir.Module, name string) (scaleOp, maskOp, layout int) {
	t.Helper()
	f, ok := m.Function(name)
	if !ok {
		t.Fatalf("%s: function lost", name)
	}
	scaleOp, maskOp, layout = -1, -1, -1
	ir.VisitExpr(f.Body, func(e ir.Expr) bool {
		c, ok := e.(*ir.Call)
		if !ok || c.OpName() != "relax.call_dps_packed" || len(c.Args) != 2 {
			return true
		}
		ext, ok1 := c.Args[0].(*ir.ExternFunc)
		args, ok2 := c.Args[1].(*ir.Tuple)
		if !ok1 || !ok2 || ext.Symbol != lower.SoftmaxAttentionKernel || len(args.Fields) != 9 {
			return true
		}
		code := func(i int) int {
			p, ok := args.Fields[i].(*ir.PrimValue)
			if !ok {
				return -1
			}
			v, _ := ir.AsInt(p.Value)
			return int(v)
		}
		scaleOp, maskOp, layout = code(4), code(7), code(8)
		return true
	})
	return scaleOp, maskOp, layout
}

// TestFuseAttentionHeadSplit checks that the fused attention reads q and v
// through the head split's permutes ((B, T, H, F) -> (B, H, T, F); at rank
// 3 (T, G, F) -> (G, T, F)) and writes the permute back, those permute_dims
// gone (the keys' transposition stays); that a permute with another use stays (its operand
// head-major); and other permutations are left to permute_dims.
func TestFuseAttentionHeadSplit(t *testing.T) {
	const src = `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def all(q: R.Tensor((1, 4, 2, 8), dtype="float32"), k: R.Tensor((1, 6, 2, 8), dtype="float32"), v: R.Tensor((1, 6, 2, 5), dtype="float32")) -> R.Tensor((1, 4, 2, 5), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((1, 2, 4, 8), dtype="float32") = R.permute_dims(q, axes=[0, 2, 1, 3])
            b: R.Tensor((1, 2, 8, 6), dtype="float32") = R.permute_dims(k, axes=[0, 2, 3, 1])
            c: R.Tensor((1, 2, 6, 5), dtype="float32") = R.permute_dims(v, axes=[0, 2, 1, 3])
            s: R.Tensor((1, 2, 4, 6), dtype="float32") = R.matmul(a, b, out_dtype="void")
            s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.multiply(s, R.const(0.5, "float32"))
            p: R.Tensor((1, 2, 4, 6), dtype="float32") = R.nn.softmax(s2, axis=-1)
            o: R.Tensor((1, 2, 4, 5), dtype="float32") = R.matmul(p, c, out_dtype="void")
            gv: R.Tensor((1, 4, 2, 5), dtype="float32") = R.permute_dims(o, axes=[0, 2, 1, 3])
            R.output(gv)
        return gv

    @R.function
    def mha3(q: R.Tensor((4, 2, 8), dtype="float32"), k: R.Tensor((6, 2, 8), dtype="float32"), v: R.Tensor((6, 2, 5), dtype="float32")) -> R.Tensor((4, 2, 5), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((2, 4, 8), dtype="float32") = R.permute_dims(q, axes=[1, 0, 2])
            b: R.Tensor((2, 8, 6), dtype="float32") = R.permute_dims(k, axes=[1, 2, 0])
            c: R.Tensor((2, 6, 5), dtype="float32") = R.permute_dims(v, axes=[1, 0, 2])
            s: R.Tensor((2, 4, 6), dtype="float32") = R.matmul(a, b, out_dtype="void")
            p: R.Tensor((2, 4, 6), dtype="float32") = R.nn.softmax(s, axis=-1)
            o: R.Tensor((2, 4, 5), dtype="float32") = R.matmul(p, c, out_dtype="void")
            gv: R.Tensor((4, 2, 5), dtype="float32") = R.permute_dims(o, axes=[1, 0, 2])
            R.output(gv)
        return gv

    @R.function
    def shared(q: R.Tensor((1, 4, 2, 8), dtype="float32"), k: R.Tensor((1, 2, 8, 6), dtype="float32"), v: R.Tensor((1, 5, 2, 6), dtype="float32")) -> R.Tensor((1, 2, 4, 5), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((1, 2, 4, 8), dtype="float32") = R.permute_dims(q, axes=[0, 2, 1, 3])
            c: R.Tensor((1, 2, 6, 5), dtype="float32") = R.permute_dims(v, axes=[0, 2, 3, 1])
            s: R.Tensor((1, 2, 4, 6), dtype="float32") = R.matmul(a, k, out_dtype="void")
            p: R.Tensor((1, 2, 4, 6), dtype="float32") = R.nn.softmax(s, axis=-1)
            o: R.Tensor((1, 2, 4, 5), dtype="float32") = R.matmul(p, c, out_dtype="void")
            gv: R.Tensor((1, 2, 4, 5), dtype="float32") = R.add(o, R.sum(a, axis=[3], keepdims=True))
            R.output(gv)
        return gv

    @R.function
    def outshared(q: R.Tensor((1, 2, 4, 8), dtype="float32"), k: R.Tensor((1, 2, 8, 6), dtype="float32"), v: R.Tensor((1, 2, 6, 5), dtype="float32")) -> R.Tensor((1, 4, 2, 5), dtype="float32"):
        with R.dataflow():
            s: R.Tensor((1, 2, 4, 6), dtype="float32") = R.matmul(q, k, out_dtype="void")
            p: R.Tensor((1, 2, 4, 6), dtype="float32") = R.nn.softmax(s, axis=-1)
            o: R.Tensor((1, 2, 4, 5), dtype="float32") = R.matmul(p, v, out_dtype="void")
            t: R.Tensor((1, 4, 2, 5), dtype="float32") = R.permute_dims(o, axes=[0, 2, 1, 3])
            u: R.Tensor((1, 2, 4, 5), dtype="float32") = R.multiply(o, R.const(2.0, "float32"))
            w: R.Tensor((1, 4, 2, 5), dtype="float32") = R.permute_dims(u, axes=[0, 2, 1, 3])
            gv: R.Tensor((1, 4, 2, 5), dtype="float32") = R.add(t, w)
            R.output(gv)
        return gv
`
	out, all := lowerThrough(t, "headsplit.py", src, "fuse-attention")
	want := kernels.AttentionTokenMajorA | kernels.AttentionTokenMajorV | kernels.AttentionTokenMajorOut
	for _, name := range []string{"all", "mha3"} { // rank 4, rank 3 (PyTorch's multi-head attention)
		if _, _, l := attentionCodes(t, out, name); l != want {
			t.Errorf("%s: layout %d, want %d:\n%s", name, l, want, funcText(t, all, name))
		}
		if text := funcText(t, all, name); strings.Count(text, "permute_dims") != 1 { // the keys'
			t.Errorf("%s: want only the keys' permute_dims left:\n%s", name, text)
		}
	}
	// q's permute has another use (the sum), v's permutation is not the
	// head split's (its values would be another matrix): both stay, and
	// the operands they make are read head-major.
	if _, _, l := attentionCodes(t, out, "shared"); l != 0 {
		t.Errorf("shared: layout %d, want 0:\n%s", l, funcText(t, all, "shared"))
	}
	if text := funcText(t, all, "shared"); strings.Count(text, "permute_dims") != 2 {
		t.Errorf("shared: want both permute_dims left:\n%s", text)
	}
	// The output read again besides its permute: written head-major.
	if _, _, l := attentionCodes(t, out, "outshared"); l != 0 {
		t.Errorf("outshared: layout %d, want 0:\n%s", l, funcText(t, all, "outshared"))
	}
}
