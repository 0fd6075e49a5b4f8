package lower_test

import (
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/ir/tvmscript"
	_ "github.com/relaxgo/relaxgo/kernels" // registers the fused kernel FuseAttention targets
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
	cases := []struct {
		name, scale, axis, extra string
		fused                    bool
	}{
		{"mul", mul, "-1", "", true},
		{"mul_first", `s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.multiply(R.const(0.5, "float32"), s)`, "3", "", true},
		{"div", `s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.divide(s, R.const(4.0, "float32"))`, "-1", "", true},
		{"none", `s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.matmul(q, k, out_dtype="void")`, "-1", "", true}, // (s is dead)
		{"rdiv", `s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.divide(R.const(4.0, "float32"), s)`, "-1", "", false},
		{"axis", mul, "2", "", false},
		{"reused", mul, "-1", `gv: R.Tensor((1, 2, 4, 5), dtype="float32") = R.add(o, R.sum(p, axis=[3], keepdims=True))`, false},
		{"add_mask", mul + `
            s3: R.Tensor((1, 2, 4, 6), dtype="float32") = R.add(s2, R.const(np.zeros((4, 6), dtype=np.float32)))`, "-1", "", true},
		{"mask_add", mul + `
            s3: R.Tensor((1, 2, 4, 6), dtype="float32") = R.add(R.const(np.zeros((1, 1, 1, 6), dtype=np.float32)), s2)`, "-1", "", true},
		{"where", mul + `
            s3: R.Tensor((1, 2, 4, 6), dtype="float32") = R.where(R.const(np.ones((1, 1, 4, 6), dtype=np.bool_)), R.const(float("-inf"), "float32"), s2)`, "-1", "", true},
		{"where_keep", `s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.divide(s, R.const(4.0, "float32"))
            s3: R.Tensor((1, 2, 4, 6), dtype="float32") = R.where(R.const(np.ones((4, 6), dtype=np.bool_)), s2, R.const(-1e9, "float32"))`, "-1", "", true},
		{"mask_then_scale", `s2: R.Tensor((1, 2, 4, 6), dtype="float32") = R.add(s, R.const(np.zeros((4, 6), dtype=np.float32)))
            s3: R.Tensor((1, 2, 4, 6), dtype="float32") = R.multiply(s2, R.const(0.5, "float32"))`, "-1", "", false},
	}
	src := head
	for _, c := range cases {
		src += fn(c.name, c.scale, c.axis, c.extra)
	}
	m, err := tvmscript.Parse("attention.py", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	var passes []lower.Pass
	for _, p := range lower.DefaultPasses() {
		passes = append(passes, p)
		if p.Name == "fuse-attention" {
			break
		}
	}
	out, err := lower.Run(m, passes, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := tvmscript.Print(out, tvmscript.Current)
	for _, c := range cases {
		// The function's text: from its def to the next function's.
		i := strings.Index(all, "def "+c.name+"(")
		if i < 0 {
			t.Fatalf("%s: function lost:\n%s", c.name, all)
		}
		text := all[i:]
		if j := strings.Index(text, "@R.function"); j >= 0 {
			text = text[:j]
		}
		if got := strings.Contains(text, lower.SoftmaxAttentionKernel); got != c.fused {
			t.Errorf("%s: fused %v, want %v:\n%s", c.name, got, c.fused, text)
		}
		if c.fused && strings.Contains(text, "kernels.nn.softmax") {
			t.Errorf("%s: the softmax call is still there:\n%s", c.name, text)
		}
	}
}
