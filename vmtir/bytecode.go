package vmtir

import (
	"fmt"

	"github.com/relaxgo/relaxgo/internal/bytecode"
	"github.com/relaxgo/relaxgo/runtime"
)

// Bytecode builds the executable for a program with ExecBuilder
// (which formalizes registers and checks the result). It also
// returns where each program constant went: consts[i] is an ArgImm holding
// constant i's value (small integers become immediates) or an ArgConst
// holding its index in the executable's constant pool. The compiled backend
// (package gen) uses this mapping, so both backends read the same pool.
func Bytecode(p *Program) (exec *runtime.Executable, consts []Arg, err error) {
	b := NewExecBuilder()
	for _, f := range p.Funcs {
		if err := b.DeclareFunction(f.Name, f.Kind); err != nil {
			return nil, nil, fmt.Errorf("vmtir: %w", err)
		}
	}
	args := make([]bytecode.Arg, len(p.Consts))
	consts = make([]Arg, len(p.Consts))
	for i, c := range p.Consts {
		a, err := b.ConvertConstant(c)
		if err != nil {
			return nil, nil, fmt.Errorf("vmtir: constant %d: %w", i, err)
		}
		args[i] = a
		switch a.Kind() {
		case bytecode.ArgImmediate:
			consts[i] = Imm(a.Value())
		case bytecode.ArgConstIdx:
			consts[i] = Arg{Kind: ArgConst, Value: a.Value()}
		default:
			return nil, nil, fmt.Errorf("vmtir: constant %d became a %s argument", i, a.Kind())
		}
	}
	conv := func(a Arg) bytecode.Arg {
		switch a.Kind {
		case ArgReg:
			return bytecode.Reg(a.Value)
		case ArgImm:
			return bytecode.Imm(a.Value)
		case ArgConst:
			return args[a.Value]
		default:
			return bytecode.FuncIdx(a.Value)
		}
	}
	for _, f := range p.Funcs {
		if f.Kind != runtime.FuncKindVM {
			continue
		}
		if err := b.EmitFunction(f.Name, int64(f.NumArgs), f.ParamNames, f.Kind, int64(f.NumRegs)); err != nil {
			return nil, nil, fmt.Errorf("vmtir: %w", err)
		}
		for _, in := range f.Instrs {
			var err error
			switch in.Op {
			case bytecode.OpCall:
				args := make([]bytecode.Arg, len(in.Args))
				for i, a := range in.Args {
					args[i] = conv(a)
				}
				err = b.EmitCallIdx(int64(in.Func), args, in.Dst)
			case bytecode.OpRet:
				err = b.EmitRet(bytecode.Reg(in.Reg))
			case bytecode.OpGoto:
				err = b.EmitGoto(in.Offset)
			case bytecode.OpIf:
				err = b.EmitIf(bytecode.Reg(in.Reg), in.Offset)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("vmtir: function %s: %w", f.Name, err)
			}
		}
		if err := b.EndFunction(f.Name); err != nil {
			return nil, nil, fmt.Errorf("vmtir: %w", err)
		}
	}
	exec, err = b.Get()
	if err != nil {
		return nil, nil, err
	}
	return exec, consts, nil
}
