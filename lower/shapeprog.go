package lower

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// compileShapeProgram encodes an integer expression over heap-resident
// symbolic variables as a stack program for runtime.ShapeComputeBuiltin
// (see runtime.ShapeOp for the encoding). The program is returned as
// dimensions of a shape value so it lands in the constant pool.
func compileShapeProgram(e ir.PrimExpr, slots map[*ir.PrimVar]int) ([]ir.PrimExpr, error) {
	var words []int64
	var emit func(e ir.PrimExpr) error
	emit = func(e ir.PrimExpr) error {
		switch x := e.(type) {
		case *ir.IntImm:
			words = append(words, int64(runtime.ShapePush), x.Value)
		case *ir.PrimVar:
			s, ok := slots[x]
			if !ok {
				return fmt.Errorf("symbolic variable %s is used before it is defined", x.Name)
			}
			words = append(words, int64(runtime.ShapeLoad), int64(s))
		case *ir.Cast:
			if x.Type.IsFloat() || x.Value.DType().IsFloat() {
				return fmt.Errorf("cannot compute %s at run time: float cast", ir.ExprString(e))
			}
			return emit(x.Value)
		case *ir.Not:
			if err := emit(x.A); err != nil {
				return err
			}
			words = append(words, int64(runtime.ShapeNot))
		case *ir.Select:
			for _, a := range []ir.PrimExpr{x.Cond, x.True, x.False} {
				if err := emit(a); err != nil {
					return err
				}
			}
			words = append(words, int64(runtime.ShapeSelect))
		case *ir.Binary:
			op, ok := shapeOps[x.Op]
			if !ok {
				return fmt.Errorf("cannot compute %s at run time", ir.ExprString(e))
			}
			if err := emit(x.A); err != nil {
				return err
			}
			if err := emit(x.B); err != nil {
				return err
			}
			words = append(words, int64(op))
		case *ir.PrimCall:
			if x.Op == "if_then_else" && len(x.Args) == 3 {
				return emit(&ir.Select{Cond: x.Args[0], True: x.Args[1], False: x.Args[2]})
			}
			return fmt.Errorf("cannot compute %s at run time", ir.ExprString(e))
		default:
			return fmt.Errorf("cannot compute %s at run time", ir.ExprString(e))
		}
		return nil
	}
	if err := emit(e); err != nil {
		return nil, err
	}
	out := make([]ir.PrimExpr, len(words))
	for i, w := range words {
		out[i] = ir.Int64(w)
	}
	return out, nil
}

var shapeOps = map[ir.BinOp]runtime.ShapeOp{
	ir.OpAdd: runtime.ShapeAdd, ir.OpSub: runtime.ShapeSub, ir.OpMul: runtime.ShapeMul,
	ir.OpFloorDiv: runtime.ShapeFloorDiv, ir.OpFloorMod: runtime.ShapeFloorMod,
	ir.OpDiv: runtime.ShapeTruncDiv, ir.OpMod: runtime.ShapeTruncMod,
	ir.OpMin: runtime.ShapeMin, ir.OpMax: runtime.ShapeMax,
	ir.OpEQ: runtime.ShapeEQ, ir.OpNE: runtime.ShapeNE, ir.OpLT: runtime.ShapeLT,
	ir.OpLE: runtime.ShapeLE, ir.OpGT: runtime.ShapeGT, ir.OpGE: runtime.ShapeGE,
	ir.OpAnd: runtime.ShapeAnd, ir.OpOr: runtime.ShapeOr,
}
