package gen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/relaxgo/relaxgo/internal/builtin"
	"github.com/relaxgo/relaxgo/internal/bytecode"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/vmtir"
)

const (
	runtimePkg = "github.com/relaxgo/relaxgo/runtime"
	rtimplPkg  = "github.com/relaxgo/relaxgo/runtime/rtimpl"
	kernelsPkg = "github.com/relaxgo/relaxgo/kernels"
)

// typedKernel is a kernel whose packed function only unpacks its tensor
// arguments and calls a typed function of package kernels: compiled code
// calls that function directly (kernels.Add(out, a, b) for kernels.add's
// packed (a, b, out)), and the packed function when an argument is not a
// tensor, the typed call fails (the packed call then reports the error in
// the bytecode's words) or the registration was overridden.
type typedKernel struct {
	fn   string // the function in package kernels: f(out, x) or f(out, a, b)
	args int    // the packed arguments: 2 (x, out) or 3 (a, b, out)
}

// typedKernels are the kernels compiled code calls directly; TestTypedKernels
// checks each against its packed function.
var typedKernels = map[string]typedKernel{
	"kernels.add":      {"Add", 3},
	"kernels.subtract": {"Subtract", 3},
	"kernels.multiply": {"Multiply", 3},
	"kernels.divide":   {"Divide", 3},
	"kernels.maximum":  {"Maximum", 3},
	"kernels.minimum":  {"Minimum", 3},
	"kernels.power":    {"Power", 3},
	"kernels.exp":      {"Exp", 2},
	"kernels.log":      {"Log", 2},
	"kernels.sqrt":     {"Sqrt", 2},
	"kernels.negative": {"Negative", 2},
	"kernels.tanh":     {"Tanh", 2},
	"kernels.sigmoid":  {"Sigmoid", 2},
	"kernels.nn.relu":  {"Relu", 2},
	"kernels.nn.gelu":  {"Gelu", 2},
	"kernels.nn.silu":  {"Silu", 2},
}

// compiledUnit collects what the compiled functions of one program share:
// the library functions they call (resolved once at load time) and the
// boxed immediates they pass.
type compiledUnit struct {
	p *vmtir.Program
	// consts maps program constant indices to executable arguments (an
	// immediate or a constant-pool index), as vmtir.Bytecode assigned them.
	consts []vmtir.Arg
	// primFuncs maps PrimFunc names to the Go functions implementing them.
	primFuncs map[string]string
	libNames  []string
	libIndex  map[string]int
	imms      []int64
	immIndex  map[int64]int
	// shapeSites counts make_shape call sites (MakeShapeAt caches per site).
	shapeSites int
	// stageBase is the first staging register of the function being emitted.
	stageBase int
	// usesConst, usesFuncs and usesErr record whether the function being
	// emitted reads the constant pool, the function table and err.
	usesConst, usesFuncs, usesErr bool
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
		if in.Op == bytecode.OpCall && len(in.Args) > n {
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
	u.stageBase = base
	targets := map[int]bool{}
	for pc, in := range f.Instrs {
		switch in.Op {
		case bytecode.OpGoto, bytecode.OpIf:
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
			case bytecode.VoidRegister:
				return jen.Nil(), nil
			case bytecode.VMRegister:
				return jen.Id("vm"), nil
			}
			return reg(a.Value), nil
		case vmtir.ArgImm:
			return u.imm(a.Value), nil
		case vmtir.ArgConst:
			if a.Value < 0 || int(a.Value) >= len(u.consts) {
				return nil, fmt.Errorf("gen: %s: constant %d has no executable argument", f.Name, a.Value)
			}
			ca := u.consts[a.Value]
			if ca.Kind == vmtir.ArgImm {
				return u.imm(ca.Value), nil
			}
			u.usesConst = true
			return jen.Id("c").Index(jen.Lit(int(ca.Value))), nil
		case vmtir.ArgFunc:
			u.usesFuncs = true
			return jen.Id("fp").Index(jen.Lit(int(a.Value))), nil
		}
		return nil, fmt.Errorf("gen: %s: bad argument kind %d", f.Name, a.Kind)
	}
	u.usesConst, u.usesFuncs, u.usesErr = false, false, false
	var body []jen.Code
	for pc, in := range f.Instrs {
		var stmts []jen.Code
		switch in.Op {
		case bytecode.OpCall:
			callee := u.p.Funcs[in.Func]
			dst := jen.Id("_")
			if in.Dst < bytecode.BeginSpecialReg {
				dst = reg(in.Dst).(*jen.Statement)
			}
			// Copies and nulls are register moves; everything else is a call.
			if callee.Name == builtin.Copy && len(in.Args) == 1 {
				a, err := argCode(in.Args[0])
				if err != nil {
					return nil, err
				}
				if in.Dst < bytecode.BeginSpecialReg {
					stmts = append(stmts, dst.Clone().Op("=").Add(a))
				}
				break
			}
			if callee.Name == builtin.NullValue && len(in.Args) == 0 {
				if in.Dst < bytecode.BeginSpecialReg {
					stmts = append(stmts, dst.Clone().Op("=").Nil())
				}
				break
			}
			// stage copies the arguments into the register window the callee
			// receives; argv are the same arguments as expressions.
			var stage, argv []jen.Code
			for i, a := range in.Args {
				ac, err := argCode(a)
				if err != nil {
					return nil, err
				}
				argv = append(argv, ac)
				stage = append(stage, jen.Id("r").Index(jen.Lit(base+i)).Op("=").Add(ac))
			}
			window := jen.Id("r").Index(jen.Lit(base).Op(":").Lit(base + len(in.Args)))
			u.usesErr = true
			errCheck := jen.If(jen.Id("err").Op("!=").Nil()).Block(
				jen.Return(jen.Qual(rtimplPkg, "CallErr").Call(jen.Lit(pc), jen.Lit(callee.Name), jen.Id("err"))),
			)
			var slow []jen.Code
			packed := func(fn jen.Code) []jen.Code {
				call := jen.Qual(rtimplPkg, "Call").Call(append([]jen.Code{fn, window}, argv...)...)
				return []jen.Code{jen.List(dst, jen.Id("err")).Op("=").Add(call), errCheck}
			}
			switch {
			case callee.Kind == runtime.FuncKindPacked && u.primFuncs[callee.Name] != "":
				slow = packed(jen.Id(u.primFuncs[callee.Name]))
			case callee.Kind == runtime.FuncKindPacked && isLibrary(callee.Name):
				slow = packed(jen.Id("lib").Index(jen.Lit(u.lib(callee.Name))))
			default:
				call := jen.Qual(rtimplPkg, "CallFunc").Call(jen.Id("vm"), jen.Lit(in.Func), window.Clone().Op("..."))
				slow = append(append(slow, stage...), jen.List(dst, jen.Id("err")).Op("=").Add(call), errCheck)
			}
			var libCall []jen.Code // the library call's function and window, for fastPath
			if callee.Kind == runtime.FuncKindPacked && u.primFuncs[callee.Name] == "" && isLibrary(callee.Name) {
				libCall = append([]jen.Code{jen.Id("lib").Index(jen.Lit(u.lib(callee.Name))), window}, argv...)
			}
			if fast := u.fastPath(callee.Name, in, reg, argCode, stage, slow, errCheck, libCall); fast != nil {
				stmts = append(stmts, fast...)
			} else {
				stmts = append(stmts, slow...)
			}
		case bytecode.OpRet:
			stmts = append(stmts, jen.Id("r").Index(jen.Lit(int(n))).Op("=").Add(reg(in.Reg)), jen.Return(jen.Nil()))
		case bytecode.OpGoto:
			stmts = append(stmts, jen.Goto().Id(label(pc+int(in.Offset))))
		case bytecode.OpIf:
			stmts = append(stmts, jen.If(
				jen.List(jen.Id("ok"), jen.Id("err")).Op(":=").Qual(rtimplPkg, "IfCond").Call(reg(in.Reg)),
				jen.Id("err").Op("!=").Nil(),
			).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit(fmt.Sprintf("instruction %d: %%w", pc)), jen.Id("err"))),
			).Else().If(jen.Op("!").Id("ok")).Block(jen.Goto().Id(label(pc+int(in.Offset)))))
		}
		if len(stmts) == 0 {
			stmts = append(stmts, jen.Comment("(no-op)"))
		}
		// Each instruction is its bytecode text as a comment, preceded by
		// its label when something jumps to it; jumps name their target.
		if targets[pc] {
			body = append(body, jen.Id(label(pc)).Op(":"))
		}
		comment := u.p.InstrString(in)
		switch in.Op {
		case bytecode.OpGoto:
			comment = fmt.Sprintf("goto %s (offset %+d)", label(pc+int(in.Offset)), in.Offset)
		case bytecode.OpIf:
			comment = fmt.Sprintf("if %s else goto %s (offset %+d)", u.p.ArgString(vmtir.Reg(in.Reg)), label(pc+int(in.Offset)), in.Offset)
		}
		body = append(body, jen.Comment(comment))
		body = append(body, stmts...)
	}
	if targets[len(f.Instrs)] {
		return nil, fmt.Errorf("gen: %s: jump past the last instruction", f.Name)
	}
	last := f.Instrs[len(f.Instrs)-1]
	if last.Op != bytecode.OpRet {
		body = append(body, jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("function ended without return"))))
	}
	var prelude []jen.Code
	if u.usesConst {
		prelude = append(prelude, jen.Id("c").Op(":=").Qual(rtimplPkg, "ConstPool").Call(jen.Id("vm")))
	}
	if u.usesFuncs {
		prelude = append(prelude, jen.Id("fp").Op(":=").Qual(rtimplPkg, "FuncPool").Call(jen.Id("vm")))
	}
	if u.usesErr {
		prelude = append(prelude, jen.Var().Id("err").Error())
	}
	body = append(prelude, body...)
	doc := fmt.Sprintf("%s is the compiled form of Relax function %s (%s, %d registers).", GoFuncName(f.Name), f.Name, plural(int(n), "parameter"), registerFileSize(f))
	return jen.Comment(doc).Line().Func().Id(GoFuncName(f.Name)).Params(
		jen.Id("vm").Op("*").Qual(runtimePkg, "VM"),
		jen.Id("r").Index().Qual(runtimePkg, "Value"),
	).Error().Block(body...), nil
}

// plural spells n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// libraryDecls declares the resolved library functions and boxed immediates.
func (u *compiledUnit) libraryDecls() []jen.Code {
	names := make([]jen.Code, len(u.libNames))
	for i, n := range u.libNames {
		names[i] = jen.Lit(n)
	}
	imms := make([]jen.Code, len(u.imms))
	for i, v := range u.imms {
		imms[i] = jen.Lit(v)
	}
	return []jen.Code{
		jen.Comment("libNames are the runtime builtins and kernels the compiled functions call;"),
		jen.Comment("lib holds them, resolved from the registry when the model loads."),
		jen.Var().Id("libNames").Op("=").Index().String().Add(wrapped(names, 1)),
		jen.Var().Id("lib").Index().Qual(runtimePkg, "PackedFunc"),
		jen.Comment("libDirect tells, per entry of lib, whether its kernel's typed function may be"),
		jen.Comment("called directly (its registration was not overridden)."),
		jen.Var().Id("libDirect").Index().Bool(),
		jen.Comment("imms are the integer immediates of the compiled functions, boxed once."),
		jen.Var().Id("imms").Op("=").Index().Qual(runtimePkg, "Value").Add(wrapped(imms, 8)),
	}
}

// constValue returns the program constant an argument refers to, if any.
func (u *compiledUnit) constValue(a vmtir.Arg) (runtime.Value, bool) {
	if a.Kind != vmtir.ArgConst {
		return nil, false
	}
	return u.p.Consts[a.Value], true
}

// immValue returns an argument's integer value when it is known statically.
func (u *compiledUnit) immValue(a vmtir.Arg) (int64, bool) {
	switch a.Kind {
	case vmtir.ArgImm:
		return a.Value, true
	case vmtir.ArgConst:
		v, ok := u.p.Consts[a.Value].(int64)
		return v, ok
	}
	return 0, false
}

// wrapped is a composite literal's braces around items, perRow to a line
// (on one line when they fit in a row).
func wrapped(items []jen.Code, perRow int) jen.Code {
	if len(items) <= perRow {
		return jen.Values(items...)
	}
	var rows []jen.Code
	for i := 0; i < len(items); i += perRow {
		row := items[i:min(i+perRow, len(items))]
		rows = append(rows, jen.List(row...).Op(","))
	}
	return jen.Custom(jen.Options{Open: "{", Close: "}", Multi: true}, rows...)
}

// dtypeNames are the runtime's named data types, for generated code.
var dtypeNames = map[runtime.DataType]string{
	runtime.Float16: "Float16", runtime.Float32: "Float32", runtime.Float64: "Float64",
	runtime.Int8: "Int8", runtime.Int16: "Int16", runtime.Int32: "Int32", runtime.Int64: "Int64",
	runtime.UInt8: "UInt8", runtime.UInt16: "UInt16", runtime.UInt32: "UInt32", runtime.UInt64: "UInt64",
	runtime.Bool: "Bool", runtime.BFloat16: "BFloat16", runtime.Void: "Void",
}

// dtypeLit spells dt as runtime's named variable, or a literal for other types.
func dtypeLit(dt runtime.DataType) jen.Code {
	if n, ok := dtypeNames[dt]; ok {
		return jen.Qual(runtimePkg, n)
	}
	return jen.Qual(runtimePkg, "DataType").Values(jen.Dict{
		jen.Id("Code"): jen.Lit(int(dt.Code)), jen.Id("Bits"): jen.Lit(int(dt.Bits)), jen.Id("Lanes"): jen.Lit(int(dt.Lanes)),
	})
}

// fastPath specializes calls of hot builtins whose arguments are known at
// generation time: the success path runs inline, and anything unexpected
// falls back to the builtin itself (slow), so errors are the bytecode's.
// stage copies the call's arguments into its register window.
func (u *compiledUnit) fastPath(name string, in vmtir.Instr, reg func(int64) jen.Code, argCode func(vmtir.Arg) (jen.Code, error), stage, slow []jen.Code, errCheck jen.Code, libCall []jen.Code) []jen.Code {
	a := in.Args
	value := func(i int) jen.Code {
		c, err := argCode(a[i])
		if err != nil {
			return nil
		}
		return c
	}
	dstOK := in.Dst < bytecode.BeginSpecialReg
	if tk, ok := typedKernels[name]; ok {
		if dstOK || len(a) != tk.args || libCall == nil {
			return nil
		}
		direct := jen.Id("libDirect").Index(jen.Lit(u.lib(name)))
		var check, call jen.Code
		if tk.args == 3 {
			check = jen.List(jen.Id("a"), jen.Id("b"), jen.Id("o"), jen.Id("ok")).Op(":=").Qual(rtimplPkg, "Tensors3").Call(direct, value(0), value(1), value(2))
			call = jen.Qual(kernelsPkg, tk.fn).Call(jen.Id("o"), jen.Id("a"), jen.Id("b"))
		} else {
			check = jen.List(jen.Id("x"), jen.Id("o"), jen.Id("ok")).Op(":=").Qual(rtimplPkg, "Tensors2").Call(direct, value(0), value(1))
			call = jen.Qual(kernelsPkg, tk.fn).Call(jen.Id("o"), jen.Id("x"))
		}
		return []jen.Code{jen.If(check, jen.Op("!").Id("ok").Op("||").Add(call).Op("!=").Nil()).Block(slow...)}
	}
	switch name {
	case builtin.CheckTensorInfo:
		if len(a) != 3 && len(a) != 4 {
			return nil
		}
		ndim, ok := u.immValue(a[1])
		if !ok {
			return nil
		}
		cond := jen.Op("!").Id("ok").Op("||").Id("t").Op("==").Nil()
		if ndim >= 0 {
			cond = cond.Op("||").Id("t").Dot("NDim").Call().Op("!=").Lit(int(ndim))
		}
		if len(a) == 4 {
			v, ok := u.constValue(a[2])
			dt, isDT := v.(runtime.DataType)
			if !ok || !isDT {
				return nil
			}
			lit := dtypeLit(dt)
			if _, named := dtypeNames[dt]; !named {
				lit = jen.Parens(lit)
			}
			cond = cond.Op("||").Id("t").Dot("DType").Call().Op("!=").Add(lit)
		}
		return []jen.Code{jen.If(jen.List(jen.Id("t"), jen.Id("ok")).Op(":=").Add(value(0)).Assert(jen.Op("*").Qual(runtimePkg, "Tensor")), cond).Block(slow...)}
	case builtin.MatchShape:
		if len(a) < 3 {
			return nil
		}
		n, ok := u.immValue(a[2])
		if !ok || n < 0 || len(a) < 3+2*int(n) {
			return nil
		}
		cond := jen.Op("!").Id("ok").Op("||").Len(jen.Id("s")).Op("!=").Lit(int(n))
		var stores []jen.Code
		useHeap := false
		maxSlot := int64(-1)
		for i := 0; i < int(n); i++ {
			code, ok1 := u.immValue(a[3+2*i])
			val, ok2 := u.immValue(a[4+2*i])
			if !ok1 || !ok2 {
				return nil
			}
			dim := jen.Id("s").Index(jen.Lit(i))
			switch code {
			case 0:
				cond = cond.Op("||").Add(dim).Op("!=").Lit(int(val))
			case 1:
				useHeap = true
				maxSlot = max(maxSlot, val)
				stores = append(stores, jen.Id("h").Index(jen.Lit(int(val))).Op("=").Add(dim))
			case 2:
			case 3:
				useHeap = true
				maxSlot = max(maxSlot, val)
				cond = cond.Op("||").Add(dim).Op("!=").Id("h").Index(jen.Lit(int(val)))
			default:
				return nil
			}
		}
		body := []jen.Code{jen.List(jen.Id("s"), jen.Id("ok")).Op(":=").Qual(rtimplPkg, "ValueShape").Call(value(0))}
		if useHeap {
			body = append(body, jen.List(jen.Id("h"), jen.Id("hok")).Op(":=").Qual(rtimplPkg, "ShapeHeap").Call(value(1)))
			cond = jen.Op("!").Id("hok").Op("||").Len(jen.Id("h")).Op("<=").Lit(int(maxSlot)).Op("||").Add(cond)
		}
		if len(stores) == 0 {
			body = append(body, jen.If(cond).Block(slow...))
		} else {
			body = append(body, jen.If(cond).Block(slow...).Else().Block(stores...))
		}
		return []jen.Code{jen.Block(body...)}
	case builtin.MakeShape:
		if !dstOK {
			return nil
		}
		site := u.shapeSites
		u.shapeSites++
		base := u.stageBase
		return append(append([]jen.Code{}, stage...),
			jen.List(reg(in.Dst), jen.Id("err")).Op("=").Qual(rtimplPkg, "MakeShapeAt").Call(jen.Id("vm"), jen.Lit(site),
				jen.Id("r").Index(jen.Lit(base).Op(":").Lit(base+len(a)))),
			errCheck)
	case builtin.MakeTuple:
		if !dstOK {
			return nil
		}
		base := u.stageBase
		return append(append([]jen.Code{}, stage...),
			jen.List(reg(in.Dst), jen.Id("err")).Op("=").Qual(rtimplPkg, "MakeTuple").Call(jen.Id("vm"),
				jen.Id("r").Index(jen.Lit(base).Op(":").Lit(base+len(a)))),
			errCheck)
	case builtin.AllocStorage:
		if !dstOK || len(a) != 5 {
			return nil
		}
		sv, ok := u.constValue(a[1])
		size, isShape := sv.(runtime.Shape)
		dev, okDev := u.immValue(a[2])
		dv, okDT := u.constValue(a[3])
		dt, isDT := dv.(runtime.DataType)
		if !ok || !isShape || !okDev || dev != 0 || !okDT || !isDT {
			return nil
		}
		if dt.ElemBytes() == 0 {
			dt = runtime.UInt8
		}
		nbytes, err := runtime.NumBytes(size, dt)
		if err != nil {
			return nil
		}
		return []jen.Code{
			jen.List(reg(in.Dst), jen.Id("err")).Op("=").Qual(rtimplPkg, "AllocStorage").Call(jen.Id("vm"), jen.Lit(int(nbytes))),
			errCheck,
		}
	case builtin.AllocTensor:
		// rtimpl.AllocTensor views the storage directly and falls back to
		// the builtin (libCall) for anything unexpected.
		if !dstOK || len(a) != 4 || libCall == nil {
			return nil
		}
		off, ok := u.immValue(a[1])
		dv, okDT := u.constValue(a[3])
		dt, isDT := dv.(runtime.DataType)
		if !ok || !okDT || !isDT {
			return nil
		}
		args := append([]jen.Code{libCall[0], libCall[1], jen.Lit(int(off)), dtypeLit(dt)}, libCall[2:]...)
		return []jen.Code{
			jen.List(reg(in.Dst), jen.Id("err")).Op("=").Qual(rtimplPkg, "AllocTensor").Call(args...),
			errCheck,
		}
	}
	return nil
}
