package tvmscript

import (
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

func TestPrintElidesLargeConstants(t *testing.T) {
	src := `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        gv: R.Tensor((4,), dtype="float32") = R.add(x, R.const(1.5, "float32"))
        return gv
`
	m, err := ParseString("elide.py", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Replace the scalar with a 4-element constant, shared by two uses.
	big, _ := runtime.FromSlice([]float32{1, 2, 3, 4}, 4)
	fn, _ := m.Function("main")
	call := fn.Body.Blocks[0].Bindings[0].BoundValue().(*ir.Call)
	k := &ir.Constant{Value: big, MetaIndex: -1}
	call.Args = []ir.Expr{k, k}
	if out := Print(m, Current); !strings.Contains(out, "R.const([1.0, 2.0, 3.0, 4.0]") {
		t.Errorf("Print elided a constant:\n%s", out)
	}
	out := PrintWith(m, Current, PrintOptions{ElideConstantsOver: 3})
	if !strings.Contains(out, `R.add(metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][0])`) ||
		!strings.Contains(out, "# Metadata omitted") {
		t.Errorf("PrintWith did not elide the constant once:\n%s", out)
	}
}
