package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
)

// testFile emits model.relaxgo_test.go: every public function runs once in each mode
// on deterministic inputs, and the results must agree bit for bit.
func testFile(in Input) ([]byte, error) {
	var body strings.Builder
	usesRuntime := false
	for _, fn := range publicFuncs(in.Lowered) {
		fmt.Fprintf(&body, ",\n\t\trtimpltest.Func{Name: %q", fn.Name)
		switch args, ok := testArgs(fn); {
		case !ok:
			body.WriteString(`, Skip: "a parameter's type gives no shape to test with"`)
		case args != "":
			usesRuntime = true
			fmt.Fprintf(&body, ", Args: []runtime.Value{%s}", args)
		}
		body.WriteString("}")
	}
	imp := ""
	if usesRuntime {
		imp = "\n\t\"github.com/relaxgo/relaxgo/runtime\""
	}
	return []byte(fmt.Sprintf(`%s

package %s

import (
	"testing"
%s
	"github.com/relaxgo/relaxgo/runtime/rtimpl/rtimpltest"
)

// TestModesAgree runs each public function in bytecode and compiled mode.
func TestModesAgree(t *testing.T) {
	rtimpltest.TestModesAgree(t, pkg.Load%s)
}
`, header(in.Source), in.Package, imp, body.String())), nil
}

// testArgs renders deterministic arguments for fn's parameters; symbolic
// dimensions are 3 and unknown dimensions of known rank 2.
func testArgs(fn *ir.Function) (string, bool) {
	var b strings.Builder
	for i, p := range fn.Params {
		a, ok := testArg(p.Info, i)
		if !ok {
			return "", false
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a)
	}
	return b.String(), true
}

// testArg renders one argument of struct info s (seed varies the data).
func testArg(s ir.StructInfo, seed int) (string, bool) {
	switch x := s.(type) {
	case *ir.TensorSInfo:
		var dims []string
		switch {
		case x.Shape != nil:
			for _, d := range x.Shape {
				v, ok := ir.AsInt(ir.Simplify(d))
				if !ok {
					env := map[*ir.PrimVar]int64{}
					for _, fv := range ir.FreeVars(d) {
						env[fv] = 3
					}
					var err error
					if v, err = ir.EvalInt(d, env); err != nil || v < 0 {
						return "", false
					}
				}
				dims = append(dims, strconv.FormatInt(v, 10))
			}
		case x.NDim >= 0:
			for range x.NDim {
				dims = append(dims, "2")
			}
		default:
			return "", false
		}
		name := "runtime.Float32"
		if !x.DType.IsVoid() {
			if name = dtypeExpr(x.DType.String()); name == "" {
				return "", false
			}
		}
		return fmt.Sprintf("rtimpltest.Tensor{Shape: []int64{%s}, DType: %s, Seed: %d}", strings.Join(dims, ", "), name, seed), true
	case *ir.ShapeSInfo:
		if x.NDim < 0 {
			return "", false
		}
		return fmt.Sprintf("runtime.Shape{%s}", strings.TrimSuffix(strings.Repeat("2, ", x.NDim), ", ")), true
	case *ir.PrimSInfo:
		switch {
		case x.DType.IsBool():
			return "true", true
		case x.DType.IsFloat():
			return "float64(0.5)", true
		default:
			return "int64(3)", true
		}
	case *ir.TupleSInfo:
		fields := make([]string, len(x.Fields))
		for i, f := range x.Fields {
			a, ok := testArg(f, seed*7+i+1)
			if !ok {
				return "", false
			}
			fields[i] = a
		}
		return "runtime.Tuple{" + strings.Join(fields, ", ") + "}", true
	}
	return "", false
}

func dtypeExpr(s string) string {
	switch s {
	case "float32":
		return "runtime.Float32"
	case "float64":
		return "runtime.Float64"
	case "int32":
		return "runtime.Int32"
	case "int64":
		return "runtime.Int64"
	case "bool":
		return "runtime.Bool"
	}
	return ""
}
