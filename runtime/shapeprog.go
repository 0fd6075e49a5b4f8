package runtime

import (
	"fmt"

	"github.com/relaxgo/relaxgo/internal/builtin"
)

func shapeCompute(args []Value) (Value, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("%s: expected 3 arguments, got %d", builtin.ShapeCompute, len(args))
	}
	heap, ok := args[0].(*Tensor)
	if !ok || heap.DType() != Int64 || heap.NDim() != 1 {
		return nil, fmt.Errorf("%s: argument 0 must be an int64 shape heap, got %s", builtin.ShapeCompute, TypeName(args[0]))
	}
	dst, ok := args[1].(int64)
	h := heap.Int64s()
	if !ok || dst < 0 || dst >= int64(len(h)) {
		return nil, fmt.Errorf("%s: destination slot %v out of range [0, %d)", builtin.ShapeCompute, args[1], len(h))
	}
	prog, ok := args[2].(Shape)
	if !ok {
		return nil, fmt.Errorf("%s: argument 2 must be a shape program, got %s", builtin.ShapeCompute, TypeName(args[2]))
	}
	v, err := builtin.EvalShapeProgram(prog, h)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", builtin.ShapeCompute, err)
	}
	h[dst] = v
	return nil, nil
}

func init() { MustRegister(builtin.ShapeCompute, shapeCompute) }
