package kernels

import (
	"fmt"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/internal/golden"
)

// opsDoc renders the op table as Markdown.
func opsDoc() string {
	var b strings.Builder
	b.WriteString("# kernels: packed operator table\n\n")
	b.WriteString("Generated from `kernels.Names()`/`kernels.Lookup` by `go test ./kernels -run TestOpsDoc -update`; do not edit.\n\n")
	b.WriteString("Each Relax op `relax.X` has a packed function `kernels.X` in the runtime registry. Arguments: the op's\n")
	b.WriteString("tensor inputs in Relax order, then its attributes in Relax's attribute order, then the preallocated\n")
	b.WriteString("output tensor(s). ints are int64, bools are bool or int64 0/1, floats are float64, int lists are\n")
	b.WriteString("runtime.Shape, strings are string, dtypes are runtime.DataType (or their spelling), None is nil.\n")
	b.WriteString("Every function returns (nil, nil) or an error naming the op and the problem.\n")
	b.WriteString("Kernels registered outside this table (matmul, convolutions) are listed by `kernels.Supported()`;\n")
	b.WriteString("`kernels.Run(op, args...)` calls any of them by Relax op name (constant folding).\n\n")
	b.WriteString("| op | packed name | arguments |\n|---|---|---|\n")
	for _, n := range Names() {
		spec, _ := Lookup(n)
		fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", n, spec.Name, strings.ReplaceAll(spec.Args, "|", "\\|"))
	}
	return b.String()
}

// TestOpsDoc keeps OPS.md in sync with the Ops table.
func TestOpsDoc(t *testing.T) {
	golden.Check(t, "OPS.md", []byte(opsDoc()))
}
