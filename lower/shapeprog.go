package lower

import (
	"fmt"

	"github.com/relaxgo/relaxgo/internal/builtin"
	"github.com/relaxgo/relaxgo/ir"
)

// compileShapeProgram encodes an integer expression over heap-resident
// symbolic variables as a stack program for builtin.ShapeCompute
// (see builtin.ShapeOp for the encoding). The program is returned as
// dimensions of a shape value so it lands in the constant pool.
func compileShapeProgram(e ir.PrimExpr, slots map[*ir.PrimVar]int) ([]ir.PrimExpr, error) {
	var words []int64
	var emit func(e ir.PrimExpr) error
	emit = func(e ir.PrimExpr) error {
		switch x := e.(type) {
		case *ir.IntImm:
			words = append(words, int64(builtin.ShapePush), x.Value)
		case *ir.PrimVar:
			s, ok := slots[x]
			if !ok {
				return fmt.Errorf("symbolic variable %s is used before it is defined", x.Name)
			}
			words = append(words, int64(builtin.ShapeLoad), int64(s))
		case *ir.Cast:
			if x.Type.IsFloat() || x.Value.DType().IsFloat() {
				return fmt.Errorf("cannot compute %s at run time: float cast", ir.ExprString(e))
			}
			return emit(x.Value)
		case *ir.Not:
			if err := emit(x.A); err != nil {
				return err
			}
			words = append(words, int64(builtin.ShapeNot))
		case *ir.Select:
			for _, a := range []ir.PrimExpr{x.Cond, x.True, x.False} {
				if err := emit(a); err != nil {
					return err
				}
			}
			words = append(words, int64(builtin.ShapeSelect))
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

var shapeOps = map[ir.BinOp]builtin.ShapeOp{
	ir.OpAdd: builtin.ShapeAdd, ir.OpSub: builtin.ShapeSub, ir.OpMul: builtin.ShapeMul,
	ir.OpFloorDiv: builtin.ShapeFloorDiv, ir.OpFloorMod: builtin.ShapeFloorMod,
	ir.OpDiv: builtin.ShapeTruncDiv, ir.OpMod: builtin.ShapeTruncMod,
	ir.OpMin: builtin.ShapeMin, ir.OpMax: builtin.ShapeMax,
	ir.OpEQ: builtin.ShapeEQ, ir.OpNE: builtin.ShapeNE, ir.OpLT: builtin.ShapeLT,
	ir.OpLE: builtin.ShapeLE, ir.OpGT: builtin.ShapeGT, ir.OpGE: builtin.ShapeGE,
	ir.OpAnd: builtin.ShapeAnd, ir.OpOr: builtin.ShapeOr,
}
