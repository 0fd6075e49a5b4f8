package lower_test

import (
	"strings"
	"testing"
)

// TestLegalizeFlattensTensorLists checks that concat and stack get the
// tensors of a literal tuple themselves, one tensor as well as several, so
// that no tuple is built on every call; a tuple that is a variable stays one.
func TestLegalizeFlattensTensorLists(t *testing.T) {
	const src = `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 6), dtype="float32"), y: R.Tensor((2, 6), dtype="float32")) -> R.Tuple(R.Tensor((2, 1, 6), dtype="float32"), R.Tensor((2, 6), dtype="float32"), R.Tensor((2, 2, 6), dtype="float32"), R.Tensor((4, 6), dtype="float32")):
        with R.dataflow():
            one = R.stack((x,), axis=1)
            cat1 = R.concat((y,), axis=0)
            two = R.stack((x, y), axis=1)
            tup = (x, y)
            fromvar = R.concat(tup, axis=0)
            gv = (one, cat1, two, fromvar)
            R.output(gv)
        return gv
`
	_, text := lowerThrough(t, "tuples.py", src, "legalize")
	want := map[string]string{
		"one":     `"kernels.stack", (x, 1)`,
		"cat1":    `"kernels.concat", (y, 0)`,
		"two":     `"kernels.stack", (x, y, 1)`,
		"fromvar": `"kernels.concat", (tup, 0)`,
	}
	checkBindings(t, text, want)
}

// TestCallTIRRewriteFoldsTupleItems checks that the items of a split's
// outputs (a call with several outputs binds a tuple of them) are the
// outputs themselves and that the tuple is not built when nothing else uses
// it; a tuple the function returns is kept, its items folded all the same.
func TestCallTIRRewriteFoldsTupleItems(t *testing.T) {
	const src = `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 6), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32"))):
        with R.dataflow():
            parts = R.split(x, indices_or_sections=2, axis=1)
            a = parts[0]
            b = parts[1]
            s = R.add(a, b)
            kept = R.split(x, indices_or_sections=2, axis=1)
            c = kept[1]
            d = R.multiply(s, c)
            gv = (d, kept)
            R.output(gv)
        return gv
`
	_, text := lowerThrough(t, "items.py", src, "call-tir-rewrite")
	for _, c := range []struct{ line, want string }{
		{"a", "alloc_parts_out0"}, {"b", "alloc_parts_out1"}, {"c", "alloc_kept_out1"},
	} {
		if !strings.Contains(text, c.line+": R.Tensor((2, 3), dtype=\"float32\") = "+c.want+"\n") {
			t.Errorf("%s is not bound to %s:\n%s", c.line, c.want, text)
		}
	}
	if strings.Contains(text, "parts: ") || strings.Contains(text, "parts[") {
		t.Errorf("the unused tuple parts is still built:\n%s", text)
	}
	if !strings.Contains(text, "kept: R.Tuple(") {
		t.Errorf("the returned tuple kept is gone:\n%s", text)
	}
}

// TestLegalizeZeroRoi checks that resize2d's roi of zeros (the attribute's
// default, which ONNX imports print) is passed as a null value, which the
// kernel reads as zeros, so that no tuple is built on every call; a roi
// that is not all zeros stays a tuple.
func TestLegalizeZeroRoi(t *testing.T) {
	const src = `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 4, 4), dtype="float32")) -> R.Tuple(R.Tensor((1, 2, 8, 8), dtype="float32"), R.Tensor((1, 2, 8, 8), dtype="float32")):
        with R.dataflow():
            zero = R.image.resize2d(x, R.shape([8, 8]), roi=[0.0, 0.0, 0.0, 0.0], layout="NCHW", method="linear", coordinate_transformation_mode="half_pixel", rounding_method="", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype="void")
            crop = R.image.resize2d(x, R.shape([8, 8]), roi=[0.0, 0.25, 1.0, 0.75], layout="NCHW", method="linear", coordinate_transformation_mode="tf_crop_and_resize", rounding_method="", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0, out_dtype="void")
            gv = (zero, crop)
            R.output(gv)
        return gv
`
	_, text := lowerThrough(t, "roi.py", src, "legalize")
	want := map[string]string{
		"zero": `R.shape([8, 8]), R.null_value(), R.str("NCHW")`,
		"crop": `R.shape([8, 8]), (0.0, 0.25, 1.0, 0.75), R.str("NCHW")`,
	}
	checkBindings(t, text, want)
}

// checkBindings checks that each binding named in want has a right-hand side
// containing want's text, and that each is found in text.
func checkBindings(t *testing.T, text string, want map[string]string) {
	t.Helper()
	got := bindingsOf(text)
	missing := map[string]string{}
	for name, w := range want {
		rhs, ok := got[name]
		switch {
		case !ok:
			missing[name] = w
		case !strings.Contains(rhs, w):
			t.Errorf("%s = %s, want the call to contain %s", name, rhs, w)
		}
	}
	if len(missing) > 0 {
		t.Errorf("bindings not found: %v\n%s", missing, text)
	}
}

// bindingsOf maps each variable bound in a printed module to the
// right-hand side of its first binding.
func bindingsOf(text string) map[string]string {
	got := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		name, rhs, ok := strings.Cut(strings.TrimSpace(line), " = ")
		if _, seen := got[name]; ok && !seen {
			got[name] = rhs
		}
	}
	return got
}
