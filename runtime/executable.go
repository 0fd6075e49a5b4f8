package runtime

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/relaxgo/relaxgo/internal/bytecode"
)

// execWord is one 64-bit word of the instruction stream (TVM's ExecWord).
type execWord = int64

// FuncKind says how a function-table entry is implemented.
type FuncKind int32

// Function kinds, numbered as TVM's VMFuncInfo::FuncKind.
const (
	// FuncKindPacked is an external function resolved by name from the VM's
	// imports or the global registry.
	FuncKindPacked FuncKind = 0
	// FuncKindVM is a bytecode function interpreted by the VM.
	FuncKindVM FuncKind = 1
	// FuncKindVMTIR is a compiled function: a Go vmtirFunc registered as
	// "__vmtir__<name>", with no instructions of its own.
	FuncKindVMTIR FuncKind = 2
)

// String names the kind.
func (k FuncKind) String() string {
	switch k {
	case FuncKindPacked:
		return "packed_func"
	case FuncKindVM:
		return "vm_func"
	case FuncKindVMTIR:
		return "vm_tir_func"
	}
	return fmt.Sprintf("func_kind(%d)", int32(k))
}

// FuncInfo describes one entry of the function table (TVM's VMFuncInfo).
type FuncInfo struct {
	Kind             FuncKind
	Name             string
	StartInstr       int64 // first instruction (VM functions)
	EndInstr         int64 // one past the last instruction (VM functions)
	NumArgs          int64 // number of parameters; -2 for undefined/packed entries as TVM writes them
	RegisterFileSize int64 // registers per frame
	ParamNames       []string
}

func (f FuncInfo) clone() FuncInfo {
	f.ParamNames = append([]string(nil), f.ParamNames...)
	return f
}

// MemoryScope attaches a storage scope to a constant (TVM's memory_scopes map).
type MemoryScope struct {
	ConstIndex int64
	Scope      string
}

// Executable is a compiled Relax program: function table, constant pool and
// instruction stream (TVM's VMExecutable). It is immutable once built by
// execBuilder.Get or LoadExecutable, and safe to share between goroutines and VMs.
type Executable struct {
	funcs       []FuncInfo
	funcMap     map[string]int
	scopes      []MemoryScope // sorted by ConstIndex, unique
	constants   []Value
	instrOffset []execWord
	instrData   []execWord

	once sync.Once
	prog *program // pre-decoded instructions, built on first VM creation
}

// NumFuncs is the size of the function table.
func (e *Executable) NumFuncs() int { return len(e.funcs) }

// Func returns the i-th function-table entry (a copy).
func (e *Executable) Func(i int) (FuncInfo, bool) {
	if i < 0 || i >= len(e.funcs) {
		return FuncInfo{}, false
	}
	return e.funcs[i].clone(), true
}

// Funcs returns a copy of the function table.
func (e *Executable) Funcs() []FuncInfo {
	out := make([]FuncInfo, len(e.funcs))
	for i, f := range e.funcs {
		out[i] = f.clone()
	}
	return out
}

// FuncIndex returns the index of the function named name.
func (e *Executable) FuncIndex(name string) (int, bool) {
	i, ok := e.funcMap[name]
	return i, ok
}

// HasFunction reports whether the function table has an entry named name.
func (e *Executable) HasFunction(name string) bool {
	_, ok := e.funcMap[name]
	return ok
}

// Constants returns a copy of the constant pool slice. The values themselves
// are shared and must not be modified.
func (e *Executable) Constants() []Value { return append([]Value(nil), e.constants...) }

// MemoryScopes returns the memory scopes attached to constants.
func (e *Executable) MemoryScopes() []MemoryScope { return append([]MemoryScope(nil), e.scopes...) }

// NumInstructions is the number of instructions in the stream.
func (e *Executable) NumInstructions() int { return len(e.instrOffset) }

// InstrOffsets returns a copy of the instruction offset table.
func (e *Executable) InstrOffsets() []execWord { return append([]execWord(nil), e.instrOffset...) }

// InstrData returns a copy of the flat instruction words.
func (e *Executable) InstrData() []execWord { return append([]execWord(nil), e.instrData...) }

// instruction decodes instruction i.
func (e *Executable) instruction(i int) (bytecode.Instruction, error) {
	if i < 0 || i >= len(e.instrOffset) {
		return bytecode.Instruction{}, fmt.Errorf("runtime: instruction %d out of range [0, %d)", i, len(e.instrOffset))
	}
	off := e.instrOffset[i]
	if _, err := bytecode.InstrWords(e.instrData, off); err != nil {
		return bytecode.Instruction{}, fmt.Errorf("runtime: instruction %d: %w", i, err)
	}
	return bytecode.DecodeAt(e.instrData, off), nil
}

func (e *Executable) funcName(idx int64) string {
	if idx >= 0 && idx < int64(len(e.funcs)) {
		return e.funcs[idx].Name
	}
	return "unknown_func_index(" + strconv.FormatInt(idx, 10) + ")"
}

// padRight pads s with spaces to width w (C++ std::setw with std::left).
func padRight(s string, w int) string {
	if len(s) >= w {
		return s
	}
	return s + strings.Repeat(" ", w-len(s))
}

// AsText prints the executable in TVM's text format (VMExecutable::AsText).
func (e *Executable) AsText() string {
	var b strings.Builder
	argStr := func(a bytecode.Arg) string {
		switch a.Kind() {
		case bytecode.ArgRegister:
			return bytecode.RegName(a.Value())
		case bytecode.ArgImmediate:
			return "i" + strconv.FormatInt(a.Value(), 10)
		case bytecode.ArgConstIdx:
			return "c[" + strconv.FormatInt(a.Value(), 10) + "]"
		case bytecode.ArgFuncIdx:
			return "f[" + e.funcName(a.Value()) + "]"
		}
		return fmt.Sprintf("<bad arg kind %d>", uint8(a.Kind()))
	}
	for _, f := range e.funcs {
		switch f.Kind {
		case FuncKindPacked:
			fmt.Fprintf(&b, "@%s packed_func;\n\n", f.Name)
			continue
		case FuncKindVMTIR:
			fmt.Fprintf(&b, "@%s num_inputs=%d vm_tir_func;\n\n", f.Name, f.NumArgs)
			continue
		case FuncKindVM:
		default:
			fmt.Fprintf(&b, "@%s <bad kind %d>;\n\n", f.Name, int32(f.Kind))
			continue
		}
		fmt.Fprintf(&b, "@%s:\n", f.Name)
		for idx := f.StartInstr; idx < f.EndInstr; idx++ {
			b.WriteString("  ")
			in, err := e.instruction(int(idx))
			if err != nil {
				fmt.Fprintf(&b, "<%v>\n", err)
				continue
			}
			switch in.Op {
			case bytecode.OpCall:
				args := mapArgs(in.Args, argStr)
				b.WriteString(padRight("call", 6))
				b.WriteString(padRight(e.funcName(in.FuncIdx), 16))
				b.WriteString(" in: ")
				b.WriteString(padRight(strings.Join(args, ", "), 12))
				b.WriteString(" dst: ")
				b.WriteString(bytecode.RegName(in.Dst))
				b.WriteByte('\n')
			case bytecode.OpRet:
				b.WriteString(padRight("ret ", 6))
				b.WriteString(bytecode.RegName(in.Result))
				b.WriteByte('\n')
			case bytecode.OpGoto:
				b.WriteString(padRight("goto", 6))
				b.WriteString(strconv.FormatInt(in.PCOffset, 10))
				b.WriteByte('\n')
			case bytecode.OpIf:
				b.WriteString(padRight("If", 6))
				b.WriteString(bytecode.RegName(in.Cond))
				b.WriteString(", ")
				b.WriteString(strconv.FormatInt(in.FalseOffset, 10))
				b.WriteByte('\n')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// AsPython prints the executable as the Python execBuilder program that
// builds it (VMExecutable::AsPython).
func (e *Executable) AsPython() string {
	var b strings.Builder
	pyFunc := func(idx int64) string {
		if idx >= 0 && idx < int64(len(e.funcs)) {
			return "\"" + e.funcs[idx].Name + "\""
		}
		return "ib.unknown_func_index(" + strconv.FormatInt(idx, 10) + ")"
	}
	argStr := func(a bytecode.Arg) string {
		switch a.Kind() {
		case bytecode.ArgRegister:
			if a.Value() == bytecode.VMRegister {
				return "ib.r(vm)"
			}
			return "ib.r(" + strconv.FormatInt(a.Value(), 10) + ")"
		case bytecode.ArgImmediate:
			return "ib.imm(" + strconv.FormatInt(a.Value(), 10) + ")"
		case bytecode.ArgConstIdx:
			return "ib.c(" + strconv.FormatInt(a.Value(), 10) + ")"
		case bytecode.ArgFuncIdx:
			return "ib.f(" + pyFunc(a.Value()) + ")"
		}
		return fmt.Sprintf("<bad arg kind %d>", uint8(a.Kind()))
	}
	b.WriteString("ib = rx.Builder()\n")
	for _, f := range e.funcs {
		if f.Kind != FuncKindVM {
			continue
		}
		fmt.Fprintf(&b, "with ib.function(\"%s\", num_inputs=%d):\n", f.Name, f.NumArgs)
		for idx := f.StartInstr; idx < f.EndInstr; idx++ {
			in, err := e.instruction(int(idx))
			if err != nil {
				fmt.Fprintf(&b, "    # %v\n", err)
				continue
			}
			switch in.Op {
			case bytecode.OpCall:
				args := mapArgs(in.Args, argStr)
				fmt.Fprintf(&b, "    ib.emit_call(%s, args=[%s]", pyFunc(in.FuncIdx), strings.Join(args, ", "))
				if in.Dst != bytecode.VoidRegister {
					fmt.Fprintf(&b, ", dst=ib.r(%d)", in.Dst)
				}
				b.WriteString(")\n")
			case bytecode.OpRet:
				fmt.Fprintf(&b, "    ib.emit_ret(ib.r(%d))\n", in.Result)
			case bytecode.OpGoto:
				fmt.Fprintf(&b, "    ib.emit_goto(%d)\n", in.PCOffset)
			case bytecode.OpIf:
				fmt.Fprintf(&b, "    ib.emit_if(ib.r(%d), %d)\n", in.Cond, in.FalseOffset)
			}
		}
	}
	return b.String()
}

// statsWriter mimics the std::ostringstream + seekp(-2) idiom of TVM's Stats:
// backing up two bytes and then writing at least two overwrites them.
type statsWriter struct{ bytes.Buffer }

func (w *statsWriter) back2() {
	if n := w.Len(); n >= 2 {
		w.Truncate(n - 2)
	}
}

// Stats summarises the constant pool and the function table in TVM's format
// (VMExecutable::Stats). Float constants, which TVM's Stats rejects, are printed
// with %g.
func (e *Executable) Stats() string {
	var w statsWriter
	fmt.Fprintf(&w, "Relax VM executable statistics:\n")
	fmt.Fprintf(&w, "  Constant pool (# %d): [", len(e.constants))
	for _, c := range e.constants {
		switch v := c.(type) {
		case *Tensor:
			if v.NDim() == 0 {
				w.WriteString("scalar, ")
				continue
			}
			w.WriteString("[")
			for _, d := range v.Shape() {
				fmt.Fprintf(&w, "%d, ", d)
			}
			w.back2()
			w.WriteString("], ")
		case Shape:
			w.WriteString("shapetuple[")
			for _, d := range v {
				fmt.Fprintf(&w, "%d, ", d)
			}
			w.back2()
			w.WriteString("], ")
		case string:
			fmt.Fprintf(&w, "\"%s\", ", v)
		case int64:
			fmt.Fprintf(&w, "%d, ", v)
		case DataType:
			fmt.Fprintf(&w, "%s, ", v)
		case float64:
			fmt.Fprintf(&w, "%g, ", v)
		default:
			fmt.Fprintf(&w, "<%s>, ", TypeName(c))
		}
	}
	if len(e.constants) > 0 {
		w.back2()
	}
	w.WriteString("]\n")
	fmt.Fprintf(&w, "  Globals (#%d): [", len(e.funcs))
	for _, f := range e.funcs {
		fmt.Fprintf(&w, "%s, ", f.Name)
	}
	if len(e.funcs) > 0 {
		w.back2()
	}
	w.WriteString("]\n")
	return w.String()
}

// mapArgs formats each of an instruction's arguments with f.
func mapArgs(as []bytecode.Arg, f func(bytecode.Arg) string) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = f(a)
	}
	return out
}
