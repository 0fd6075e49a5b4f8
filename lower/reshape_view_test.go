package lower_test

import (
	"strings"
	"testing"
)

// TestRewriteDataflowReshape checks which reshapes become views
// (vm.builtin.reshape): those of a destination-passing call's output bound
// to a DataflowVar, chains of them, and the reshape-like ops (expand_dims,
// squeeze, flatten); not those of a parameter, nor a dataflow block's
// output.
func TestRewriteDataflowReshape(t *testing.T) {
	const src = `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 6), dtype="float32"), y: R.Tensor((2, 6), dtype="float32")) -> R.Tuple(R.Tensor((3, 4), dtype="float32"), R.Tensor((12,), dtype="float32"), R.Tensor((2, 6), dtype="float32"), R.Tensor((1, 2, 6), dtype="float32"), R.Tensor((2, 1, 6), dtype="float32"), R.Tensor((6, 2), dtype="float32"), R.Tensor((6, 2, 1), dtype="float32"), R.Tensor((2, 6, 1), dtype="float32")):
        with R.dataflow():
            from_param = R.reshape(x, R.shape([3, 4]))
            a = R.add(x, y)
            view = R.reshape(a, R.shape([4, 3]))
            chained = R.reshape(view, R.shape([2, 2, 3]))
            e = R.expand_dims(a, axis=[0])
            s = R.squeeze(e, axis=[0])
            f = R.flatten(s)
            b = R.multiply(chained, R.const(2.0, "float32"))
            out_view = R.reshape(b, R.shape([12]))
            g = R.add(f, f)
            e2 = R.expand_dims(a, axis=[0])
            unit_moved = R.permute_dims(e2, axes=[1, 0, 2])
            transposed = R.permute_dims(a, axes=[1, 0])
            unit_last = R.permute_dims(e2, axes=[2, 1, 0])
            unit_to_end = R.permute_dims(e2, axes=[1, 2, 0])
            gv = (from_param, out_view, R.reshape(g, R.shape([2, 6])), e2, unit_moved, transposed, unit_last, unit_to_end)
            R.output(gv, out_view)
        return gv
`
	_, text := lowerThrough(t, "reshape.py", src, "rewrite-dataflow-reshape")
	// A permute_dims that only moves an axis of extent 1 is a view;
	// one that reorders two others is not.
	checkViews(t, text,
		map[string]bool{"view": true, "chained": true, "e": true, "s": true, "f": true, "e2": true, "unit_moved": true, "unit_to_end": true},
		map[string]bool{"from_param": true, "out_view": true, "transposed": true, "unit_last": true})
}

// checkViews checks that each binding of views in the lowered text is a
// vm.builtin.reshape view and each of copies is not, and that all are there.
func checkViews(t *testing.T, text string, views, copies map[string]bool) {
	t.Helper()
	got := bindingsOf(text)
	missing := map[string]bool{}
	for _, want := range []struct {
		names map[string]bool
		view  bool
	}{{views, true}, {copies, false}} {
		for name := range want.names {
			rhs, ok := got[name]
			if !ok {
				missing[name] = true
				continue
			}
			isView := strings.Contains(rhs, `R.call_pure_packed("vm.builtin.reshape"`)
			if want.view && !isView {
				t.Errorf("%s is not a view: %s = %s", name, name, rhs)
			}
			if !want.view && isView {
				t.Errorf("%s became a view: %s = %s", name, name, rhs)
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("bindings not found: %v\n%s", missing, text)
	}
}

// TestRewriteDataflowReshapeAliasedOutput checks that a reshape bound to a
// DataflowVar that a block output is bound to (`gv = flat`, as importers end
// a function) stays a copy into the result: as a view it would be a header
// made on every call over storage made on every call.
func TestRewriteDataflowReshapeAliasedOutput(t *testing.T) {
	const src = `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 6), dtype="float32")) -> R.Tensor((12,), dtype="float32"):
        with R.dataflow():
            a = R.add(x, x)
            inner = R.reshape(a, R.shape([3, 4]))
            flat = R.reshape(inner, R.shape([12]))
            gv = flat
            R.output(gv)
        return gv
`
	_, text := lowerThrough(t, "aliased.py", src, "rewrite-dataflow-reshape")
	checkViews(t, text, map[string]bool{"inner": true}, map[string]bool{"flat": true})
}
