package builtin

import (
	"errors"
	"fmt"
)

// ShapeOp is an opcode of a shape program: a stack machine over int64 in
// which ShapePush and ShapeLoad take one operand word (an immediate, a heap
// slot), ShapeNot pops one value, ShapeSelect pops three (cond, then, else)
// and the other operators pop two (a, b) and push a op b. The program leaves
// exactly one value on the stack.
type ShapeOp int64

// Shape program opcodes.
const (
	ShapePush ShapeOp = iota
	ShapeLoad
	ShapeAdd
	ShapeSub
	ShapeMul
	ShapeFloorDiv
	ShapeFloorMod
	ShapeTruncDiv
	ShapeTruncMod
	ShapeMin
	ShapeMax
	ShapeEQ
	ShapeNE
	ShapeLT
	ShapeLE
	ShapeGT
	ShapeGE
	ShapeAnd
	ShapeOr
	ShapeNot
	ShapeSelect
)

// maxShapeStack bounds a shape program's stack.
const maxShapeStack = 64

// EvalShapeProgram runs a shape program over heap and returns its value.
func EvalShapeProgram(prog []int64, heap []int64) (int64, error) {
	var stack [maxShapeStack]int64
	sp := 0
	pop := func() int64 { sp--; return stack[sp] }
	for pc := 0; pc < len(prog); pc++ {
		op := ShapeOp(prog[pc])
		switch op {
		case ShapePush, ShapeLoad:
			if pc+1 >= len(prog) {
				return 0, errors.New("shape program: missing operand")
			}
			pc++
			v := prog[pc]
			if op == ShapeLoad {
				if v < 0 || v >= int64(len(heap)) {
					return 0, fmt.Errorf("shape program: heap slot %d out of range [0, %d)", v, len(heap))
				}
				v = heap[v]
			}
			if sp == maxShapeStack {
				return 0, errors.New("shape program: stack overflow")
			}
			stack[sp] = v
			sp++
			continue
		case ShapeNot:
			if sp < 1 {
				return 0, errors.New("shape program: stack underflow")
			}
			stack[sp-1] = b2i(stack[sp-1] == 0)
			continue
		case ShapeSelect:
			if sp < 3 {
				return 0, errors.New("shape program: stack underflow")
			}
			f, t, c := pop(), pop(), pop()
			if c != 0 {
				stack[sp] = t
			} else {
				stack[sp] = f
			}
			sp++
			continue
		}
		if sp < 2 {
			return 0, errors.New("shape program: stack underflow")
		}
		b, a := pop(), pop()
		var r int64
		switch op {
		case ShapeAdd:
			r = a + b
		case ShapeSub:
			r = a - b
		case ShapeMul:
			r = a * b
		case ShapeFloorDiv, ShapeFloorMod, ShapeTruncDiv, ShapeTruncMod:
			if b == 0 {
				return 0, errors.New("shape program: division by zero")
			}
			switch op {
			case ShapeFloorDiv:
				r = a / b
				if (a%b != 0) && ((a < 0) != (b < 0)) {
					r--
				}
			case ShapeFloorMod:
				r = a % b
				if r != 0 && ((r < 0) != (b < 0)) {
					r += b
				}
			case ShapeTruncDiv:
				r = a / b
			default:
				r = a % b
			}
		case ShapeMin:
			r = min(a, b)
		case ShapeMax:
			r = max(a, b)
		case ShapeEQ:
			r = b2i(a == b)
		case ShapeNE:
			r = b2i(a != b)
		case ShapeLT:
			r = b2i(a < b)
		case ShapeLE:
			r = b2i(a <= b)
		case ShapeGT:
			r = b2i(a > b)
		case ShapeGE:
			r = b2i(a >= b)
		case ShapeAnd:
			r = b2i(a != 0 && b != 0)
		case ShapeOr:
			r = b2i(a != 0 || b != 0)
		default:
			return 0, fmt.Errorf("shape program: unknown opcode %d", op)
		}
		stack[sp] = r
		sp++
	}
	if sp != 1 {
		return 0, fmt.Errorf("shape program: %d values left on the stack, want 1", sp)
	}
	return stack[0], nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
