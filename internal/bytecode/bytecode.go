// Package bytecode is the instruction encoding of the Relax VM's executable
// format (TVM's bytecode.h): opcodes, argument words and special registers.
// Both the runtime (which decodes and runs it) and the compiler (which emits
// it) use this one definition.
package bytecode

import "fmt"

// Opcode is the operation of an instruction. The VM has exactly four.
type Opcode int64

// The four opcodes, numbered as in TVM's bytecode.h.
const (
	OpCall Opcode = 1 // Call [1, dst, func_idx, num_args, args...]
	OpRet  Opcode = 2 // Ret [2, reg]
	OpGoto Opcode = 3 // Goto [3, pc_offset]
	OpIf   Opcode = 4 // If [4, cond_reg, false_offset]
)

// String names the opcode as AsText spells it.
func (o Opcode) String() string {
	switch o {
	case OpCall:
		return "call"
	case OpRet:
		return "ret"
	case OpGoto:
		return "goto"
	case OpIf:
		return "If"
	}
	return fmt.Sprintf("opcode(%d)", int64(o))
}

// ArgKind is the kind of a Call argument word (its top 8 bits).
type ArgKind uint8

// Argument kinds, numbered as in TVM.
const (
	ArgRegister  ArgKind = 0 // a register of the current frame (or a special register)
	ArgImmediate ArgKind = 1 // a signed 56-bit integer literal
	ArgConstIdx  ArgKind = 2 // an index into the constant pool
	ArgFuncIdx   ArgKind = 3 // an index into the function table
)

// String names the kind.
func (k ArgKind) String() string {
	switch k {
	case ArgRegister:
		return "register"
	case ArgImmediate:
		return "immediate"
	case ArgConstIdx:
		return "const"
	case ArgFuncIdx:
		return "func"
	}
	return fmt.Sprintf("argkind(%d)", uint8(k))
}

// Encoding constants of an argument word: 8 bits of kind above 56 bits of
// sign-extended value.
const (
	argKindBits  = 8
	argValueBits = 64 - argKindBits
	argValueMask = int64(1)<<argValueBits - 1
	// MaxArgValue is the largest value an argument word holds (2^55-1).
	MaxArgValue = int64(1)<<(argValueBits-1) - 1
	// MinArgValue is the smallest value an argument word holds, -(2^55-1) as in TVM.
	MinArgValue = -MaxArgValue
)

// Special registers. Registers at or above BeginSpecialReg are not part of a
// frame's register file.
const (
	// BeginSpecialReg is the first special register number, 2^54.
	BeginSpecialReg int64 = 1 << 54
	// VoidRegister reads as nil; writing it discards the value.
	VoidRegister = BeginSpecialReg
	// VMRegister reads as the running *VM (TVM's ctx pointer).
	VMRegister = BeginSpecialReg + 1
)

// Arg is an encoded Call argument word.
type Arg int64

// MakeArg encodes kind and value. It reports an error when value does not fit
// in 56 signed bits.
func MakeArg(kind ArgKind, value int64) (Arg, error) {
	if value > MaxArgValue || value < MinArgValue {
		return 0, fmt.Errorf("bytecode: %s argument value %d does not fit in 56 bits", kind, value)
	}
	if kind > ArgFuncIdx {
		return 0, fmt.Errorf("bytecode: invalid argument kind %d", uint8(kind))
	}
	return Arg(int64(kind)<<argValueBits | value&argValueMask), nil
}

func mustArg(kind ArgKind, value int64) Arg {
	a, err := MakeArg(kind, value)
	if err != nil {
		panic(err)
	}
	return a
}

// Reg is a register argument. reg must be a register number below 2^55
// (ordinary registers and the special registers qualify).
func Reg(reg int64) Arg { return mustArg(ArgRegister, reg) }

// Imm is an immediate argument; v must lie in [MinArgValue, MaxArgValue]
// (an executable builder stores other integers as constants).
func Imm(v int64) Arg { return mustArg(ArgImmediate, v) }

// ConstIdx is a constant-pool argument.
func ConstIdx(i int64) Arg { return mustArg(ArgConstIdx, i) }

// FuncIdx is a function-table argument.
func FuncIdx(i int64) Arg { return mustArg(ArgFuncIdx, i) }

// VoidReg is the %void register argument.
func VoidReg() Arg { return Reg(VoidRegister) }

// VMReg is the %vm register argument.
func VMReg() Arg { return Reg(VMRegister) }

// Kind is the argument's kind.
func (a Arg) Kind() ArgKind { return ArgKind(uint64(a) >> argValueBits) }

// Value is the argument's sign-extended 56-bit value.
func (a Arg) Value() int64 { return (int64(a) & argValueMask) << argKindBits >> argKindBits }

// Word is the raw encoded word.
func (a Arg) Word() int64 { return int64(a) }

// String spells the argument as AsText does: %N, %void, %vm, iN, c[N], f[N].
func (a Arg) String() string {
	switch a.Kind() {
	case ArgRegister:
		return RegName(a.Value())
	case ArgImmediate:
		return fmt.Sprintf("i%d", a.Value())
	case ArgConstIdx:
		return fmt.Sprintf("c[%d]", a.Value())
	case ArgFuncIdx:
		return fmt.Sprintf("f[%d]", a.Value())
	}
	return fmt.Sprintf("arg(%#x)", uint64(a))
}

// RegName spells register r as AsText does: %N, %void or %vm.
func RegName(r int64) string {
	switch r {
	case VoidRegister:
		return "%void"
	case VMRegister:
		return "%vm"
	}
	return fmt.Sprintf("%%%d", r)
}

// Instruction is a decoded instruction. Only the fields of its opcode are set.
type Instruction struct {
	Op          Opcode
	Dst         int64 // Call: destination register
	FuncIdx     int64 // Call: callee index in the function table
	Args        []Arg // Call: arguments (aliasing the executable's words)
	Result      int64 // Ret: register returned
	PCOffset    int64 // Goto: relative jump
	Cond        int64 // If: condition register
	FalseOffset int64 // If: relative jump when the condition is zero
}

// InstrWords is the number of words the instruction at data[off:] occupies,
// or an error when it is malformed or runs past the end of data.
func InstrWords(data []int64, off int64) (int64, error) {
	n := int64(len(data))
	if off < 0 || off >= n {
		return 0, fmt.Errorf("instruction offset %d outside instruction data of %d words", off, n)
	}
	var size int64
	switch Opcode(data[off]) {
	case OpCall:
		if n-off < 4 {
			return 0, fmt.Errorf("call at word %d is truncated", off)
		}
		na := data[off+3]
		if na < 0 || na > n-off-4 {
			return 0, fmt.Errorf("call at word %d has %d arguments, more than the %d words left", off, na, n-off-4)
		}
		size = 4 + na
	case OpRet:
		size = 2
	case OpGoto:
		size = 2
	case OpIf:
		size = 3
	default:
		return 0, fmt.Errorf("unknown opcode %d at word %d", data[off], off)
	}
	if size > n-off {
		return 0, fmt.Errorf("%s at word %d is truncated", Opcode(data[off]), off)
	}
	return size, nil
}

// DecodeAt decodes the instruction at word offset off; the caller has checked
// it with InstrWords.
func DecodeAt(data []int64, off int64) Instruction {
	in := Instruction{Op: Opcode(data[off])}
	switch in.Op {
	case OpCall:
		in.Dst = data[off+1]
		in.FuncIdx = data[off+2]
		na := data[off+3]
		words := data[off+4 : off+4+na]
		in.Args = make([]Arg, na)
		for i, w := range words {
			in.Args[i] = Arg(w)
		}
	case OpRet:
		in.Result = data[off+1]
	case OpGoto:
		in.PCOffset = data[off+1]
	case OpIf:
		in.Cond = data[off+1]
		in.FalseOffset = data[off+2]
	}
	return in
}
