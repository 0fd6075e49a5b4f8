package lower_test

import (
	"regexp"
	"strings"
	"testing"

	_ "github.com/relaxgo/relaxgo/kernels" // registers the kernels Legalize targets
	"github.com/relaxgo/relaxgo/lower"
)

// TestConcatInPlace checks which concatenations StaticPlanBlockMemory does
// in place (each part's allocation a view of the output's storage, the
// kernels.concat call gone): a batch of one along channels and any batch
// along the first axis; and which it leaves as copies: a batch of two along
// channels (the parts are not contiguous blocks), a part used after the
// concatenation, a part at an unaligned offset, an output the function
// returns (not the planner's) and a part passed twice.
func TestConcatInPlace(t *testing.T) {
	fn := func(name, in, part, out, body string) string {
		return strings.NewReplacer("NAME", name, "IN", in, "PART", part, "OUT", out, "BODY", body).Replace(`    @R.function
    def NAME(x: R.Tensor(IN, dtype="float32")) -> R.Tensor(OUT, dtype="float32"):
        with R.dataflow():
            a: R.Tensor(PART, dtype="float32") = R.nn.relu(x)
            b: R.Tensor(PART, dtype="float32") = R.exp(x)
            BODY
            R.output(gv)
        return gv
`)
	}
	const (
		cat1   = `c: R.Tensor((1, 8, 4, 4), dtype="float32") = R.concat((a, b), axis=1)`
		relu1  = `gv: R.Tensor((1, 8, 4, 4), dtype="float32") = R.nn.relu(c)`
		single = "(1, 4, 4, 4)"
	)
	cases := []struct {
		name, in, out, body string
		inPlace             bool
	}{
		{"channels", single, "(1, 8, 4, 4)", cat1 + "\n            " + relu1, true},
		{"axis0", "(2, 4, 4, 4)", "(4, 4, 4, 4)", `c: R.Tensor((4, 4, 4, 4), dtype="float32") = R.concat((a, b), axis=0)
            gv: R.Tensor((4, 4, 4, 4), dtype="float32") = R.nn.relu(c)`, true},
		{"negative_axis", single, "(1, 4, 4, 8)", `c: R.Tensor((1, 4, 4, 8), dtype="float32") = R.concat((a, b), axis=-1)
            gv: R.Tensor((1, 4, 4, 8), dtype="float32") = R.nn.relu(c)`, false}, // blocks interleave along the last axis
		{"batch2", "(2, 4, 4, 4)", "(2, 8, 4, 4)", `c: R.Tensor((2, 8, 4, 4), dtype="float32") = R.concat((a, b), axis=1)
            gv: R.Tensor((2, 8, 4, 4), dtype="float32") = R.nn.relu(c)`, false},
		{"part_used_after", single, "(1, 8, 4, 4)", cat1 + `
            d: R.Tensor((1, 8, 4, 4), dtype="float32") = R.nn.relu(c)
            e: R.Tensor((1, 4, 4, 4), dtype="float32") = R.exp(a)
            gv: R.Tensor((1, 8, 4, 4), dtype="float32") = R.add(d, R.sum(e))`, false},
		{"unaligned", "(1, 3, 2, 2)", "(1, 6, 2, 2)", `c: R.Tensor((1, 6, 2, 2), dtype="float32") = R.concat((a, b), axis=1)
            gv: R.Tensor((1, 6, 2, 2), dtype="float32") = R.nn.relu(c)`, false},
		{"returned", single, "(1, 8, 4, 4)", `gv: R.Tensor((1, 8, 4, 4), dtype="float32") = R.concat((a, b), axis=1)`, false},
		{"twice", single, "(1, 8, 4, 4)", `c: R.Tensor((1, 8, 4, 4), dtype="float32") = R.concat((a, a), axis=1)
            gv: R.Tensor((1, 8, 4, 4), dtype="float32") = R.add(c, R.concat((b, b), axis=1))`, false},
	}
	src := "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n"
	for _, c := range cases {
		src += fn(c.name, c.in, c.in, c.out, c.body)
	}
	_, all := lowerThrough(t, "concat.py", src, "static-plan-block-memory")
	for _, c := range cases {
		text := funcText(t, all, c.name)
		got := strings.Contains(text, "concatenations in place")
		if got != c.inPlace {
			t.Errorf("%s: in place %v, want %v:\n%s", c.name, got, c.inPlace, text)
		}
		if c.inPlace {
			if strings.Contains(text, lower.ConcatKernel) {
				t.Errorf("%s: the concat call is still there:\n%s", c.name, text)
			}
			// b's allocation is a view of the output's storage at a's
			// size in bytes.
			off := "256"
			if c.name == "axis0" {
				off = "512"
			}
			if !regexp.MustCompile(`alloc_b: R.Tensor\([^)]*\), dtype="float32"\) = R.memory.alloc_tensor\(storage\d+, ` + off + `,`).MatchString(text) {
				t.Errorf("%s: b is not a view at offset %s:\n%s", c.name, off, text)
			}
		}
	}
}

// TestConcatPrefixChainsInPlace checks a dense block's concatenations, each
// the one before's parts plus one more: all of them in place, the earlier
// outputs views at offset 0 of the last one's storage and no kernels.concat
// call left; and, when an earlier output is read after the last
// concatenation, that one left as a copy while the later ones stay in place.
func TestConcatPrefixChainsInPlace(t *testing.T) {
	const body = `    @R.function
    def NAME(x: R.Tensor((1, 4, 4, 4), dtype="float32")) -> R.Tensor((1, 16, 4, 4), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((1, 4, 4, 4), dtype="float32") = R.nn.relu(x)
            b: R.Tensor((1, 4, 4, 4), dtype="float32") = R.exp(x)
            c1: R.Tensor((1, 8, 4, 4), dtype="float32") = R.concat((a, b), axis=1)
            d1: R.Tensor((1, 8, 4, 4), dtype="float32") = R.nn.relu(c1)
            e: R.Tensor((1, 4, 4, 4), dtype="float32") = R.add(a, R.sum(d1))
            c2: R.Tensor((1, 12, 4, 4), dtype="float32") = R.concat((a, b, e), axis=1)
            d2: R.Tensor((1, 12, 4, 4), dtype="float32") = R.nn.relu(c2)
            f: R.Tensor((1, 4, 4, 4), dtype="float32") = R.add(b, R.sum(d2))
            c3: R.Tensor((1, 16, 4, 4), dtype="float32") = R.concat((a, b, e, f), axis=1)
            LAST
            R.output(gv)
        return gv
`
	src := "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n" +
		strings.NewReplacer("NAME", "chain", "LAST", `gv: R.Tensor((1, 16, 4, 4), dtype="float32") = R.nn.relu(c3)`).Replace(body) +
		strings.NewReplacer("NAME", "early_read_late", "LAST", `g: R.Tensor((1, 16, 4, 4), dtype="float32") = R.nn.relu(c3)
            gv: R.Tensor((1, 16, 4, 4), dtype="float32") = R.add(g, R.sum(c1))`).Replace(body)
	_, all := lowerThrough(t, "concat_chain.py", src, "static-plan-block-memory")
	view := func(text, name string) string {
		m := regexp.MustCompile(`alloc_` + name + `: R.Tensor\([^)]*\), dtype="float32"\) = R.memory.alloc_tensor\((storage\d+), (\d+),`).FindStringSubmatch(text)
		if m == nil {
			return ""
		}
		return m[1] + "@" + m[2]
	}
	text := funcText(t, all, "chain")
	if !strings.Contains(text, "3 concatenations in place") || strings.Contains(text, lower.ConcatKernel) {
		t.Errorf("chain: want the three concatenations in place and no concat call:\n%s", text)
	}
	st := strings.Split(view(text, "c3"), "@")[0]
	for name, off := range map[string]string{"c3": "0", "c1": "0", "c2": "0", "a": "0", "b": "256", "e": "512", "f": "768"} {
		if got := view(text, name); got != st+"@"+off {
			t.Errorf("chain: %s is %q, want a view at %s@%s:\n%s", name, got, st, off, text)
		}
	}
	text = funcText(t, all, "early_read_late")
	if !strings.Contains(text, "2 concatenations in place") || strings.Count(text, lower.ConcatKernel) != 1 {
		t.Errorf("early_read_late: want two concatenations in place and c1's copy left:\n%s", text)
	}
	if got := view(text, "c2"); got == "" || !strings.HasSuffix(got, "@0") || strings.Split(got, "@")[0] != strings.Split(view(text, "c3"), "@")[0] {
		t.Errorf("early_read_late: c2 is %q, want a view at offset 0 of c3's storage:\n%s", got, text)
	}
}
