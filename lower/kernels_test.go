package lower_test

import (
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/kernels"
)

// kernelArgNames reads the argument names of a kernel's documented packed
// signature ("data, pool_size (Shape), ..., out").
func kernelArgNames(spec string) []string {
	var names []string
	depth := 0
	start := 0
	for i := 0; i <= len(spec); i++ {
		if i < len(spec) {
			switch spec[i] {
			case '(':
				depth++
				continue
			case ')':
				depth--
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		f := strings.Fields(spec[start:i])
		if len(f) > 0 {
			names = append(names, f[0])
		}
		start = i + 1
	}
	return names
}

// TestKernelAttrOrder checks that every op legalized to a table kernel passes
// attributes in the order the kernel reads them: Legalize appends the op's
// canonical attributes (ir registry order) after its expression arguments.
func TestKernelAttrOrder(t *testing.T) {
	for _, op := range kernels.Names() {
		def, ok := ir.LookupOp("relax." + op)
		if !ok {
			continue
		}
		spec, _ := kernels.Lookup(op)
		names := kernelArgNames(spec.Args)
		n := len(def.Args)
		if len(names) < n+len(def.Attrs) {
			t.Errorf("%s: kernel takes %v; the op has %d arguments and attributes %v", op, names, n, attrNames(def))
			continue
		}
		got := names[n : n+len(def.Attrs)]
		if strings.Join(got, ",") != strings.Join(attrNames(def), ",") {
			t.Errorf("%s: kernel reads attributes %v after %d inputs; the op's canonical order is %v", op, got, n, attrNames(def))
		}
	}
}

func attrNames(d *ir.OpDef) []string {
	out := make([]string, len(d.Attrs))
	for i, a := range d.Attrs {
		out[i] = a.Name
	}
	return out
}
