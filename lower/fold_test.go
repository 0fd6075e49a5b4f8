package lower_test

import (
	"math"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/ir/tvmscript"
	"github.com/relaxgo/relaxgo/lower"
)

// TestFoldConstantPropagates checks that FoldConstant folds calls on
// variables bound to constants, including results it folded itself, and
// calls with shape arguments (a batch norm's sqrt(var + eps) reshaped to a
// channel vector), computing the values with the kernels, and leaves to run
// time a result larger than its inputs and foldMinElems (a broadcast) and
// calls that read a parameter.
func TestFoldConstantPropagates(t *testing.T) {
	src := `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 3), dtype="float32")) -> R.Tuple(R.Tensor((1, 2, 3, 3), dtype="float32"), R.Tensor((1, 2, 100, 100), dtype="float32")):
        with R.dataflow():
            v = R.const(np.array([2.0, 8.0], dtype=np.float32))
            a = R.add(v, R.const(0.25, "float32"))
            s = R.sqrt(a)
            r = R.reshape(s, R.shape([1, 2, 1, 1]))
            big = R.broadcast_to(r, R.shape([1, 2, 100, 100]))
            y = R.multiply(x, r)
            gv = (y, big)
            R.output(gv)
        return gv
`
	m, err := tvmscript.Parse("fold.py", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	var passes []lower.Pass
	for _, p := range lower.DefaultPasses() {
		passes = append(passes, p)
		if p.Name == "dead-code-elimination" {
			break
		}
	}
	out, err := lower.Run(m, passes, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := tvmscript.Print(out, tvmscript.Current)
	for _, gone := range []string{"R.add", "R.sqrt", "R.reshape"} {
		if strings.Contains(text, gone) {
			t.Errorf("%s was not folded:\n%s", gone, text)
		}
	}
	for _, kept := range []string{"R.broadcast_to", "R.multiply"} {
		if !strings.Contains(text, kept) {
			t.Errorf("%s was folded or lost:\n%s", kept, text)
		}
	}
	// The folded channel vector is sqrt([2.25, 8.25]) reshaped.
	var found bool
	for _, f := range out.RelaxFuncs() {
		ir.VisitExpr(f.Body, func(e ir.Expr) bool {
			k, ok := e.(*ir.Constant)
			if !ok || k.Value.NDim() != 4 {
				return true
			}
			found = true
			got := k.Value.Float32s()
			for i, want := range []float64{math.Sqrt(2.25), math.Sqrt(8.25)} {
				if got[i] != float32(want) {
					t.Errorf("folded [%d] = %v, want %v", i, got[i], float32(want))
				}
			}
			return true
		})
	}
	if !found {
		t.Errorf("no folded 4-D constant:\n%s", text)
	}
}
