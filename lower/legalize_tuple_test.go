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
	for _, line := range strings.Split(text, "\n") {
		name, rhs, ok := strings.Cut(strings.TrimSpace(line), " = ")
		if w, found := want[name]; ok && found {
			if !strings.Contains(rhs, w) {
				t.Errorf("%s = %s, want the call to contain %s", name, rhs, w)
			}
			delete(want, name)
		}
	}
	if len(want) > 0 {
		t.Errorf("bindings not found: %v\n%s", want, text)
	}
}
