package runtime

import (
	"errors"
	"fmt"

	"github.com/relaxgo/relaxgo/internal/bytecode"
)

// maxRegisterFileSize bounds a function's register file, so that a corrupt or
// hostile executable cannot make each call allocate gigabytes.
const maxRegisterFileSize = 1 << 20

// invalidf builds an ErrInvalidExecutable error.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("runtime: %w: %s", ErrInvalidExecutable, fmt.Sprintf(format, args...))
}

// validate checks everything the VM relies on to run e without panicking:
// function entries, instruction decoding, register numbers within register
// files, constant and function indices, and control flow that stays inside
// its function. It does not check that registers are defined before use (see
// execBuilder.Get for that).
func (e *Executable) validate() error {
	nInstr := int64(len(e.instrOffset))
	for i, off := range e.instrOffset {
		if _, err := bytecode.InstrWords(e.instrData, off); err != nil {
			return invalidf("instruction %d: %v", i, err)
		}
	}
	seen := make(map[string]int, len(e.funcs))
	for fi, f := range e.funcs {
		if j, dup := seen[f.Name]; dup {
			return invalidf("function %d and %d are both named %q", j, fi, f.Name)
		}
		seen[f.Name] = fi
		switch f.Kind {
		case FuncKindPacked:
			continue
		case FuncKindVM, FuncKindVMTIR:
		default:
			return invalidf("function %q: unknown kind %d", f.Name, int32(f.Kind))
		}
		if f.NumArgs < 0 {
			return invalidf("function %q: negative number of arguments %d (declared but never defined?)", f.Name, f.NumArgs)
		}
		if f.RegisterFileSize > maxRegisterFileSize {
			return invalidf("function %q: register file size %d exceeds the limit %d", f.Name, f.RegisterFileSize, maxRegisterFileSize)
		}
		if len(f.ParamNames) != 0 && int64(len(f.ParamNames)) != f.NumArgs {
			return invalidf("function %q: %d parameter names for %d arguments", f.Name, len(f.ParamNames), f.NumArgs)
		}
		if f.Kind == FuncKindVMTIR {
			if f.RegisterFileSize < f.NumArgs+1 {
				return invalidf("function %q: compiled function needs a register file of at least num_args+1 = %d, has %d", f.Name, f.NumArgs+1, f.RegisterFileSize)
			}
			continue
		}
		if f.RegisterFileSize < f.NumArgs {
			return invalidf("function %q: register file size %d is smaller than its %d arguments", f.Name, f.RegisterFileSize, f.NumArgs)
		}
		if f.StartInstr < 0 || f.StartInstr >= f.EndInstr || f.EndInstr > nInstr {
			return invalidf("function %q: instruction range [%d, %d) is empty or outside the %d instructions (EndFunction not called?)", f.Name, f.StartInstr, f.EndInstr, nInstr)
		}
		for pc := f.StartInstr; pc < f.EndInstr; pc++ {
			if err := e.validateInstr(f, pc); err != nil {
				return invalidf("function %q, instruction %d: %v", f.Name, pc-f.StartInstr, err)
			}
		}
	}
	for i, s := range e.scopes {
		if s.ConstIndex < 0 || s.ConstIndex >= int64(len(e.constants)) {
			return invalidf("memory scope %q refers to constant %d of %d", s.Scope, s.ConstIndex, len(e.constants))
		}
		if i > 0 && s.ConstIndex <= e.scopes[i-1].ConstIndex {
			return invalidf("memory scopes are not sorted by constant index")
		}
	}
	return nil
}

func (e *Executable) validateInstr(f FuncInfo, pc int64) error {
	in := bytecode.DecodeAt(e.instrData, e.instrOffset[pc])
	readable := func(what string, r int64) error {
		if r == bytecode.VoidRegister || r == bytecode.VMRegister {
			return nil
		}
		if r < 0 || r >= f.RegisterFileSize {
			return fmt.Errorf("%s register %d outside the register file of %d", what, r, f.RegisterFileSize)
		}
		return nil
	}
	fallsThrough := func() error {
		if pc+1 >= f.EndInstr {
			return fmt.Errorf("%s falls off the end of the function", in.Op)
		}
		return nil
	}
	jump := func(off int64) error {
		t := pc + off
		if off > f.EndInstr || off < -f.EndInstr || t < f.StartInstr || t >= f.EndInstr {
			return fmt.Errorf("%s offset %d jumps outside the function", in.Op, off)
		}
		return nil
	}
	switch in.Op {
	case bytecode.OpCall:
		if in.FuncIdx < 0 || in.FuncIdx >= int64(len(e.funcs)) {
			return fmt.Errorf("callee index %d outside the function table of %d", in.FuncIdx, len(e.funcs))
		}
		if in.Dst < 0 || (in.Dst < bytecode.BeginSpecialReg && in.Dst >= f.RegisterFileSize) {
			return fmt.Errorf("destination register %d outside the register file of %d", in.Dst, f.RegisterFileSize)
		}
		for i, a := range in.Args {
			if err := e.validateArg(a, f, readable); err != nil {
				return fmt.Errorf("argument %d: %w", i, err)
			}
		}
		return fallsThrough()
	case bytecode.OpRet:
		return readable("result", in.Result)
	case bytecode.OpGoto:
		if in.PCOffset == 0 {
			return errors.New("goto offset 0 loops forever")
		}
		return jump(in.PCOffset)
	case bytecode.OpIf:
		if err := readable("condition", in.Cond); err != nil {
			return err
		}
		if in.FalseOffset <= 1 {
			return fmt.Errorf("If false offset %d must be greater than 1", in.FalseOffset)
		}
		if err := fallsThrough(); err != nil {
			return err
		}
		return jump(in.FalseOffset)
	}
	return fmt.Errorf("unknown opcode %d", int64(in.Op))
}

func (e *Executable) validateArg(a bytecode.Arg, f FuncInfo, readable func(string, int64) error) error {
	v := a.Value()
	switch a.Kind() {
	case bytecode.ArgRegister:
		return readable("argument", v)
	case bytecode.ArgImmediate:
		return nil
	case bytecode.ArgConstIdx:
		if v < 0 || v >= int64(len(e.constants)) {
			return fmt.Errorf("constant index %d outside the constant pool of %d", v, len(e.constants))
		}
	case bytecode.ArgFuncIdx:
		if v < 0 || v >= int64(len(e.funcs)) {
			return fmt.Errorf("function index %d outside the function table of %d", v, len(e.funcs))
		}
	default:
		return fmt.Errorf("unknown argument kind %d", uint8(a.Kind()))
	}
	return nil
}

// checkDefUse is TVM's CheckExecutable: within each VM function, scanning
// instructions in order, every register read must be a parameter, a special
// register, or a register written by an earlier Call.
func (e *Executable) checkDefUse() error {
	for _, f := range e.funcs {
		if f.Kind != FuncKindVM {
			continue
		}
		defined := make(map[int64]bool)
		use := func(pc int64, what string, r int64) error {
			if r >= bytecode.BeginSpecialReg || r < f.NumArgs || defined[r] {
				return nil
			}
			return fmt.Errorf("runtime: %w: function %q, instruction %d: %s register %%%d is used before it is defined as a destination",
				ErrInvalidExecutable, f.Name, pc-f.StartInstr, what, r)
		}
		for pc := f.StartInstr; pc < f.EndInstr; pc++ {
			in := bytecode.DecodeAt(e.instrData, e.instrOffset[pc])
			switch in.Op {
			case bytecode.OpCall:
				for i, a := range in.Args {
					if a.Kind() == bytecode.ArgRegister {
						if err := use(pc, fmt.Sprintf("argument %d", i), a.Value()); err != nil {
							return err
						}
					}
				}
				if in.Dst != bytecode.VoidRegister {
					defined[in.Dst] = true
				}
			case bytecode.OpRet:
				if err := use(pc, "result", in.Result); err != nil {
					return err
				}
			case bytecode.OpIf:
				if err := use(pc, "condition", in.Cond); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkInstructions validates a raw function table and instruction stream the
// way the loader and execBuilder.Get do (structure, indices, control flow,
// definition before use), without a constant pool beyond numConstants
// placeholder entries. It is the entry point of the instruction-checker fuzz
// target and a debugging aid for code generators.
func checkInstructions(funcs []FuncInfo, numConstants int, instrOffset, instrData []execWord) error {
	if numConstants < 0 {
		return fmt.Errorf("runtime: negative constant count %d", numConstants)
	}
	e := &Executable{
		funcs:       funcs,
		constants:   make([]Value, numConstants),
		instrOffset: instrOffset,
		instrData:   instrData,
	}
	if err := e.validate(); err != nil {
		return err
	}
	return e.checkDefUse()
}
