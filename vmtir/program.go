// Package vmtir lowers VM-ready Relax functions to one linear register
// program each (Call/Ret/Goto/If over registers, immediates, constants and
// function references), the form TVM's VMCodeGen emits.
//
// The Program is the one seam between the compiler and its two backends,
// which sit side by side:
//
//   - the bytecode backend, Bytecode, assembles the Program with ExecBuilder
//     into a runtime.Executable and returns where each constant went
//     (an immediate or a constant-pool index);
//   - the Go backend (package gen) prints the same instructions as
//     straight-line Go, reading constants through that mapping, so compiled
//     code and bytecode share one constant pool.
//
// Neither backend re-derives what the other decided, and both call the same
// kernels in the same order, so the two execution modes agree bit for bit.
package vmtir

import (
	"fmt"
	"strings"

	"github.com/relaxgo/relaxgo/internal/bytecode"
	"github.com/relaxgo/relaxgo/runtime"
)

// ArgKind says how an instruction argument is read.
type ArgKind uint8

// Argument kinds (as in TVM's Instruction::ArgKind).
const (
	ArgReg   ArgKind = iota // a register (or bytecode.VoidRegister / bytecode.VMRegister)
	ArgImm                  // a 56-bit signed immediate
	ArgConst                // an index into Program.Consts
	ArgFunc                 // an index into Program.Funcs
)

// Arg is one argument of a Call.
type Arg struct {
	Kind  ArgKind
	Value int64
}

// Reg is register r.
func Reg(r int64) Arg { return Arg{ArgReg, r} }

// Imm is the immediate v.
func Imm(v int64) Arg { return Arg{ArgImm, v} }

// Const is constant-pool entry i.
func Const(i int) Arg { return Arg{ArgConst, int64(i)} }

// FuncRef is function-table entry i.
func FuncRef(i int) Arg { return Arg{ArgFunc, int64(i)} }

// VoidArg is the void register (reads as nil).
func VoidArg() Arg { return Reg(bytecode.VoidRegister) }

// VMArg is the VM register (reads as the running VM).
func VMArg() Arg { return Reg(bytecode.VMRegister) }

// IsVoid reports whether a is the void register.
func (a Arg) IsVoid() bool { return a.Kind == ArgReg && a.Value == bytecode.VoidRegister }

// Instr is one instruction. Call uses Dst, Func and Args; Ret uses Reg; Goto
// uses Offset; If uses Reg (the condition) and Offset (to the false branch).
type Instr struct {
	Op     bytecode.Opcode
	Dst    int64
	Func   int
	Args   []Arg
	Reg    int64
	Offset int64
}

// Func is an entry of the function table: a VM function with its code, or a
// packed function referenced by name.
type Func struct {
	Name       string
	Kind       runtime.FuncKind
	NumArgs    int
	ParamNames []string
	// NumRegs is the register file size (parameters included).
	NumRegs int
	Instrs  []Instr
}

// Program is the lowered module: the function table and the constant pool.
type Program struct {
	Funcs  []*Func
	Consts []runtime.Value
	index  map[string]int
}

// FuncIndex returns the table index of name.
func (p *Program) FuncIndex(name string) (int, bool) {
	i, ok := p.index[name]
	return i, ok
}

// declare adds name to the function table (once) and returns its index.
func (p *Program) declare(name string, kind runtime.FuncKind) int {
	if i, ok := p.index[name]; ok {
		return i
	}
	p.index[name] = len(p.Funcs)
	p.Funcs = append(p.Funcs, &Func{Name: name, Kind: kind})
	return len(p.Funcs) - 1
}

// String renders the program in the style of the executable's AsText, for
// debugging and golden tests.
func (p *Program) String() string {
	var b strings.Builder
	for _, f := range p.Funcs {
		if f.Kind == runtime.FuncKindPacked {
			fmt.Fprintf(&b, "@%s packed_func;\n\n", f.Name)
			continue
		}
		fmt.Fprintf(&b, "@%s(%s) regs=%d:\n", f.Name, strings.Join(f.ParamNames, ", "), f.NumRegs)
		for _, in := range f.Instrs {
			b.WriteString("  " + p.InstrString(in) + "\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ArgString spells an argument as the executable's text form does: %N, %void,
// %vm, iN, c[N] or f[name].
func (p *Program) ArgString(a Arg) string {
	switch a.Kind {
	case ArgReg:
		switch a.Value {
		case bytecode.VoidRegister:
			return "%void"
		case bytecode.VMRegister:
			return "%vm"
		}
		return fmt.Sprintf("%%%d", a.Value)
	case ArgImm:
		return fmt.Sprintf("i%d", a.Value)
	case ArgConst:
		return fmt.Sprintf("c[%d]", a.Value)
	default:
		return fmt.Sprintf("f[%s]", p.Funcs[a.Value].Name)
	}
}

// InstrString renders one instruction (as in String).
func (p *Program) InstrString(in Instr) string {
	switch in.Op {
	case bytecode.OpCall:
		args := make([]string, len(in.Args))
		for i, a := range in.Args {
			args[i] = p.ArgString(a)
		}
		return fmt.Sprintf("call %s [%s] -> %s", p.Funcs[in.Func].Name, strings.Join(args, ", "), p.ArgString(Reg(in.Dst)))
	case bytecode.OpRet:
		return fmt.Sprintf("ret %s", p.ArgString(Reg(in.Reg)))
	case bytecode.OpGoto:
		return fmt.Sprintf("goto %d", in.Offset)
	default:
		return fmt.Sprintf("if %s, %d", p.ArgString(Reg(in.Reg)), in.Offset)
	}
}
