package gen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/vmtir"
)

const runtimePkg = "github.com/relaxgo/relaxgo/runtime"

// compiledUnit collects what the compiled functions of one program share:
// the library functions they call (resolved once at load time) and the
// boxed immediates they pass.
type compiledUnit struct {
	p *vmtir.Program
	// consts maps program constant indices to executable arguments (an
	// immediate or a constant-pool index), as the executable builder assigned them.
	consts []runtime.Arg
	// primFuncs maps PrimFunc names to the Go functions implementing them.
	primFuncs map[string]string
	libNames  []string
	libIndex  map[string]int
	imms      []int64
	immIndex  map[int64]int
}

// isLibrary reports whether a packed callee is a runtime builtin or a kernel,
// which generated code calls through a function resolved once at load.
func isLibrary(name string) bool {
	return strings.HasPrefix(name, "vm.builtin.") || strings.HasPrefix(name, "kernels.")
}

func (u *compiledUnit) lib(name string) int {
	if i, ok := u.libIndex[name]; ok {
		return i
	}
	u.libIndex[name] = len(u.libNames)
	u.libNames = append(u.libNames, name)
	return len(u.libNames) - 1
}

func (u *compiledUnit) imm(v int64) jen.Code {
	i, ok := u.immIndex[v]
	if !ok {
		i = len(u.imms)
		u.immIndex[v] = i
		u.imms = append(u.imms, v)
	}
	return jen.Id("imms").Index(jen.Lit(i))
}

// GoFuncName is the Go identifier of the compiled form of Relax function name.
func GoFuncName(name string) string { return "vmtir_" + sanitize(name) }

// sanitize turns a TVM symbol into a Go identifier fragment.
func sanitize(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteString(fmt.Sprintf("_x%x_", r))
		}
	}
	return b.String()
}

// registerFileSize is the register count of the compiled form of f:
// parameters, the return slot, f's other registers shifted up by one, and a
// staging area for call arguments.
func registerFileSize(f *vmtir.Func) int64 {
	return int64(f.NumRegs) + 1 + int64(maxArgs(f))
}

func maxArgs(f *vmtir.Func) int {
	n := 0
	for _, in := range f.Instrs {
		if in.Op == runtime.OpCall && len(in.Args) > n {
			n = len(in.Args)
		}
	}
	return n
}

// compiledFunc emits `func vmtir_<name>(vm *runtime.VM, r []runtime.Value) error`:
// straight-line Go over a register file with the layout of TVM's compiled
// mode (registers 0..n-1 the parameters, n the return slot).
func (u *compiledUnit) compiledFunc(f *vmtir.Func) (jen.Code, error) {
	n := int64(f.NumArgs)
	reg := func(k int64) jen.Code {
		if k >= n {
			k++
		}
		return jen.Id("r").Index(jen.Lit(int(k)))
	}
	base := f.NumRegs + 1
	targets := map[int]bool{}
	for pc, in := range f.Instrs {
		switch in.Op {
		case runtime.OpGoto, runtime.OpIf:
			t := pc + int(in.Offset)
			if t < 0 || t > len(f.Instrs) {
				return nil, fmt.Errorf("gen: %s: instruction %d jumps outside the function", f.Name, pc)
			}
			targets[t] = true
		}
	}
	label := func(pc int) string { return fmt.Sprintf("L%d", pc) }
	argCode := func(a vmtir.Arg) (jen.Code, error) {
		switch a.Kind {
		case vmtir.ArgReg:
			switch a.Value {
			case runtime.VoidRegister:
				return jen.Nil(), nil
			case runtime.VMRegister:
				return jen.Id("vm"), nil
			}
			return reg(a.Value), nil
		case vmtir.ArgImm:
			return u.imm(a.Value), nil
		case vmtir.ArgConst:
			ca := u.consts[a.Value]
			if ca.Kind() == runtime.ArgImmediate {
				return u.imm(ca.Value()), nil
			}
			return jen.Id("c").Index(jen.Lit(int(ca.Value()))), nil
		case vmtir.ArgFunc:
			return jen.Id("fp").Index(jen.Lit(int(a.Value))), nil
		}
		return nil, fmt.Errorf("gen: %s: bad argument kind %d", f.Name, a.Kind)
	}
	var body []jen.Code
	body = append(body,
		jen.Id("c").Op(":=").Id("vm").Dot("ConstPool").Call(),
		jen.Id("fp").Op(":=").Id("vm").Dot("FuncPool").Call(),
		jen.Var().Id("err").Error(),
		jen.Id("_").Op(",").Id("_").Op(",").Id("_").Op("=").Id("c").Op(",").Id("fp").Op(",").Id("err"),
	)
	for pc, in := range f.Instrs {
		var stmts []jen.Code
		switch in.Op {
		case runtime.OpCall:
			callee := u.p.Funcs[in.Func]
			dst := jen.Id("_")
			if in.Dst < runtime.BeginSpecialReg {
				dst = reg(in.Dst).(*jen.Statement)
			}
			// Copies and nulls are register moves; everything else is a call.
			if callee.Name == "vm.builtin.copy" && len(in.Args) == 1 {
				a, err := argCode(in.Args[0])
				if err != nil {
					return nil, err
				}
				if in.Dst < runtime.BeginSpecialReg {
					stmts = append(stmts, dst.Clone().Op("=").Add(a))
				}
				break
			}
			if callee.Name == "vm.builtin.null_value" && len(in.Args) == 0 {
				if in.Dst < runtime.BeginSpecialReg {
					stmts = append(stmts, dst.Clone().Op("=").Nil())
				}
				break
			}
			for i, a := range in.Args {
				ac, err := argCode(a)
				if err != nil {
					return nil, err
				}
				stmts = append(stmts, jen.Id("r").Index(jen.Lit(base+i)).Op("=").Add(ac))
			}
			args := jen.Id("r").Index(jen.Lit(base).Op(":").Lit(base + len(in.Args)))
			var call *jen.Statement
			switch {
			case callee.Kind == runtime.FuncKindPacked && u.primFuncs[callee.Name] != "":
				call = jen.Id(u.primFuncs[callee.Name]).Call(args)
			case callee.Kind == runtime.FuncKindPacked && isLibrary(callee.Name):
				call = jen.Id("lib").Index(jen.Lit(u.lib(callee.Name))).Call(args)
			default:
				call = jen.Id("vm").Dot("CallFunc").Call(jen.Lit(in.Func), args.Clone().Op("..."))
			}
			stmts = append(stmts,
				jen.List(dst, jen.Id("err")).Op("=").Add(call),
				jen.If(jen.Id("err").Op("!=").Nil()).Block(
					jen.Return(jen.Qual(runtimePkg, "CallErr").Call(jen.Lit(pc), jen.Lit(callee.Name), jen.Id("err"))),
				),
			)
		case runtime.OpRet:
			stmts = append(stmts, jen.Id("r").Index(jen.Lit(int(n))).Op("=").Add(reg(in.Reg)), jen.Return(jen.Nil()))
		case runtime.OpGoto:
			stmts = append(stmts, jen.Goto().Id(label(pc+int(in.Offset))))
		case runtime.OpIf:
			stmts = append(stmts, jen.If(
				jen.List(jen.Id("ok"), jen.Id("err")).Op(":=").Qual(runtimePkg, "IfCond").Call(reg(in.Reg)),
				jen.Id("err").Op("!=").Nil(),
			).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit(fmt.Sprintf("instruction %d: %%w", pc)), jen.Id("err"))),
			).Else().If(jen.Op("!").Id("ok")).Block(jen.Goto().Id(label(pc+int(in.Offset)))))
		}
		if len(stmts) == 0 {
			stmts = append(stmts, jen.Comment("(no-op)"))
		}
		if targets[pc] {
			stmts[0] = jen.Id(label(pc)).Op(":").Add(stmts[0])
		}
		body = append(body, jen.Comment(u.p.InstrString(in)))
		body = append(body, stmts...)
	}
	if targets[len(f.Instrs)] {
		return nil, fmt.Errorf("gen: %s: jump past the last instruction", f.Name)
	}
	last := f.Instrs[len(f.Instrs)-1]
	if last.Op != runtime.OpRet {
		body = append(body, jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("function ended without return"))))
	}
	doc := fmt.Sprintf("%s is the compiled form of Relax function %s (%d parameters, %d registers).", GoFuncName(f.Name), f.Name, n, registerFileSize(f))
	return jen.Comment(doc).Line().Func().Id(GoFuncName(f.Name)).Params(
		jen.Id("vm").Op("*").Qual(runtimePkg, "VM"),
		jen.Id("r").Index().Qual(runtimePkg, "Value"),
	).Error().Block(body...), nil
}

// libraryDecls declares the resolved library functions and boxed immediates.
func (u *compiledUnit) libraryDecls() []jen.Code {
	names := make([]jen.Code, len(u.libNames))
	for i, n := range u.libNames {
		names[i] = jen.Lit(n)
	}
	imms := make([]jen.Code, len(u.imms))
	for i, v := range u.imms {
		imms[i] = jen.Int64().Call(jen.Lit(v))
	}
	return []jen.Code{
		jen.Comment("libNames are the runtime builtins and kernels the compiled functions call;"),
		jen.Comment("lib holds them, resolved from the registry when the model loads."),
		jen.Var().Id("libNames").Op("=").Index().String().Values(names...),
		jen.Var().Id("lib").Index().Qual(runtimePkg, "PackedFunc"),
		jen.Comment("imms are the integer immediates of the compiled functions, boxed once."),
		jen.Var().Id("imms").Op("=").Index().Qual(runtimePkg, "Value").Values(imms...),
	}
}

// sortedKeys lists a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
