package vmtir

import (
	"fmt"

	"github.com/relaxgo/relaxgo/internal/builtin"
	"github.com/relaxgo/relaxgo/internal/bytecode"
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Names of the VM builtins the lowering emits.
const (
	builtinCopy          = builtin.Copy
	builtinMakeTuple     = builtin.MakeTuple
	builtinTupleGetItem  = builtin.TupleGetItem
	builtinReadIfCond    = builtin.ReadIfCond
	builtinNullValue     = builtin.NullValue
	builtinAllocStorage  = builtin.AllocStorage
	builtinAllocTensor   = builtin.AllocTensor
	builtinMakeClosure   = builtin.MakeClosure
	builtinInvokeClosure = builtin.InvokeClosure
	builtinShapeOf       = builtin.ShapeOf
)

// Lower turns every Relax function of a VM-ready module (the output of the
// lowering pipeline) into a register program. Functions are declared in
// module order; PrimFuncs and external functions become packed entries.
func Lower(m *ir.Module) (*Program, error) {
	p := &Program{index: map[string]int{}}
	for _, name := range m.Order {
		switch m.Funcs[name].(type) {
		case *ir.Function:
			p.declare(name, runtime.FuncKindVM)
		case *ir.PrimFunc:
			p.declare(name, runtime.FuncKindPacked)
		}
	}
	cp := &constPool{p: p}
	for _, fn := range m.RelaxFuncs() {
		fl := &funcLowerer{p: p, m: m, consts: cp, regs: map[*ir.Var]int64{}}
		if err := fl.lower(fn); err != nil {
			return nil, fmt.Errorf("vmtir: function %s: %w", fn.Name, err)
		}
	}
	return p, nil
}

// constPool de-duplicates constants the way the executable builder does.
type constPool struct {
	p    *Program
	seen map[string]int
}

func (c *constPool) add(v runtime.Value) int {
	key := ""
	switch x := v.(type) {
	case *runtime.Tensor:
		// Tensors are identified by pointer: the same Constant node shares one entry.
		key = fmt.Sprintf("tensor:%p", x)
	default:
		key = fmt.Sprintf("%T:%v", v, v)
	}
	if c.seen == nil {
		c.seen = map[string]int{}
	}
	if i, ok := c.seen[key]; ok {
		return i
	}
	c.p.Consts = append(c.p.Consts, v)
	c.seen[key] = len(c.p.Consts) - 1
	return len(c.p.Consts) - 1
}

type funcLowerer struct {
	p      *Program
	m      *ir.Module
	consts *constPool
	f      *Func
	regs   map[*ir.Var]int64
	next   int64
}

func (fl *funcLowerer) newReg() int64 {
	r := fl.next
	fl.next++
	return r
}

func (fl *funcLowerer) emit(in Instr) { fl.f.Instrs = append(fl.f.Instrs, in) }

func (fl *funcLowerer) call(name string, dst int64, args ...Arg) {
	fl.emit(Instr{Op: bytecode.OpCall, Dst: dst, Func: fl.p.declare(name, runtime.FuncKindPacked), Args: args})
}

func (fl *funcLowerer) lower(fn *ir.Function) error {
	fl.f = fl.p.Funcs[fl.p.index[fn.Name]]
	fl.f.NumArgs = len(fn.Params)
	for i, prm := range fn.Params {
		fl.regs[prm] = int64(i)
		fl.f.ParamNames = append(fl.f.ParamNames, prm.Name)
	}
	fl.next = int64(len(fn.Params))
	res, err := fl.seq(fn.Body)
	if err != nil {
		return err
	}
	fl.emit(Instr{Op: bytecode.OpRet, Reg: res})
	fl.f.NumRegs = int(fl.next)
	return nil
}

// seq emits a sequence's bindings and returns the register holding its result.
func (fl *funcLowerer) seq(s *ir.SeqExpr) (int64, error) {
	for _, blk := range s.Blocks {
		for _, b := range blk.Bindings {
			if err := fl.binding(b); err != nil {
				return 0, err
			}
		}
	}
	return fl.toReg(s.Body)
}

// toReg returns a register holding e's value, copying non-register values into one.
func (fl *funcLowerer) toReg(e ir.Expr) (int64, error) {
	a, err := fl.arg(e)
	if err != nil {
		return 0, err
	}
	if a.Kind == ArgReg && a.Value < bytecode.BeginSpecialReg {
		return a.Value, nil
	}
	r := fl.newReg()
	fl.call(builtinCopy, r, a)
	return r, nil
}

func (fl *funcLowerer) binding(b ir.Binding) error {
	vb, ok := b.(*ir.VarBinding)
	if !ok {
		return posErrf(b.Pos(), "match_cast of %s was not lowered", b.BoundVar().Name)
	}
	v := vb.Var
	if isVoidSInfo(v.Info) {
		if c, ok := vb.Value.(*ir.Call); ok {
			fl.regs[v] = bytecode.VoidRegister
			return fl.callExpr(c, bytecode.VoidRegister)
		}
	}
	switch x := vb.Value.(type) {
	case *ir.Call:
		if x.OpName() == "relax.vm.kill_object" {
			return fl.callExpr(x, 0)
		}
		r := fl.newReg()
		fl.regs[v] = r
		return fl.callExpr(x, r)
	case *ir.If:
		r, err := fl.ifExpr(x)
		if err != nil {
			return err
		}
		fl.regs[v] = r
		return nil
	default:
		// A value that is not a call: copy it into a fresh register.
		a, err := fl.arg(x)
		if err != nil {
			return err
		}
		r := fl.newReg()
		fl.regs[v] = r
		fl.call(builtinCopy, r, a)
		return nil
	}
}

// ifExpr emits TVM's If sequence:
//
//	call read_if_cond [c] -> k; If k, Nt+3; <then>; copy [t] -> m; Goto Nf+2; <else>; copy [f] -> m
func (fl *funcLowerer) ifExpr(x *ir.If) (int64, error) {
	c, err := fl.arg(x.Cond)
	if err != nil {
		return 0, err
	}
	k := fl.newReg()
	fl.call(builtinReadIfCond, k, c)
	m := fl.newReg()
	ifAt := len(fl.f.Instrs)
	fl.emit(Instr{Op: bytecode.OpIf, Reg: k})
	t, err := fl.seq(x.Then)
	if err != nil {
		return 0, err
	}
	fl.call(builtinCopy, m, Reg(t))
	gotoAt := len(fl.f.Instrs)
	fl.emit(Instr{Op: bytecode.OpGoto})
	fl.f.Instrs[ifAt].Offset = int64(len(fl.f.Instrs) - ifAt)
	f, err := fl.seq(x.Else)
	if err != nil {
		return 0, err
	}
	fl.call(builtinCopy, m, Reg(f))
	fl.f.Instrs[gotoAt].Offset = int64(len(fl.f.Instrs) - gotoAt)
	return m, nil
}

// args lowers a list of argument expressions.
func (fl *funcLowerer) args(es []ir.Expr) ([]Arg, error) {
	out := make([]Arg, 0, len(es))
	for _, e := range es {
		a, err := fl.arg(e)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// tupleArgs lowers the fields of a tuple-literal argument (call_builtin_with_ctx, make_closure).
func (fl *funcLowerer) tupleArgs(e ir.Expr) ([]Arg, error) {
	t, ok := e.(*ir.Tuple)
	if !ok {
		return nil, posErrf(e.Pos(), "expected a tuple of arguments")
	}
	return fl.args(t.Fields)
}

// callExpr emits a call writing dst.
func (fl *funcLowerer) callExpr(c *ir.Call, dst int64) error {
	switch callee := c.Callee.(type) {
	case *ir.Op:
		return fl.opCall(c, callee.Name, dst)
	case *ir.GlobalVar:
		idx, ok := fl.p.index[callee.Name]
		if !ok {
			return posErrf(c.Pos(), "call to unknown function %s", callee.Name)
		}
		args, err := fl.args(c.Args)
		if err != nil {
			return err
		}
		fl.emit(Instr{Op: bytecode.OpCall, Dst: dst, Func: idx, Args: args})
		return nil
	case *ir.ExternFunc:
		args, err := fl.args(c.Args)
		if err != nil {
			return err
		}
		fl.call(callee.Symbol, dst, args...)
		return nil
	default:
		clo, err := fl.arg(callee)
		if err != nil {
			return err
		}
		args, err := fl.args(c.Args)
		if err != nil {
			return err
		}
		fl.call(builtinInvokeClosure, dst, append([]Arg{VMArg(), clo}, args...)...)
		return nil
	}
}

func (fl *funcLowerer) opCall(c *ir.Call, op string, dst int64) error {
	need := func(n int) error {
		if len(c.Args) != n {
			return posErrf(c.Pos(), "%s: expected %d arguments, got %d", op, n, len(c.Args))
		}
		return nil
	}
	switch op {
	case "relax.call_builtin_with_ctx":
		if err := need(2); err != nil {
			return err
		}
		ext, ok := c.Args[0].(*ir.ExternFunc)
		if !ok {
			return posErrf(c.Pos(), "%s: callee must be an extern function", op)
		}
		args, err := fl.tupleArgs(c.Args[1])
		if err != nil {
			return err
		}
		fl.call(ext.Symbol, dst, append([]Arg{VMArg()}, args...)...)
	case "relax.call_pure_packed":
		if len(c.Args) < 1 {
			return posErrf(c.Pos(), "%s: missing callee", op)
		}
		ext, ok := c.Args[0].(*ir.ExternFunc)
		if !ok {
			return posErrf(c.Pos(), "%s: callee must be an extern function", op)
		}
		args, err := fl.args(c.Args[1:])
		if err != nil {
			return err
		}
		fl.call(ext.Symbol, dst, args...)
	case "relax.memory.alloc_storage", "relax.vm.alloc_storage":
		// (size, device index, scope, dtype) -> alloc_storage(%vm, size, device index, dtype, scope)
		if err := need(4); err != nil {
			return err
		}
		a, err := fl.args(c.Args)
		if err != nil {
			return err
		}
		fl.call(builtinAllocStorage, dst, VMArg(), a[0], a[1], a[3], a[2])
	case "relax.memory.alloc_tensor", "relax.vm.alloc_tensor":
		if err := need(4); err != nil {
			return err
		}
		a, err := fl.args(c.Args)
		if err != nil {
			return err
		}
		fl.call(builtinAllocTensor, dst, a...)
	case "relax.vm.kill_object":
		if err := need(1); err != nil {
			return err
		}
		v, ok := c.Args[0].(*ir.Var)
		if !ok {
			return posErrf(c.Pos(), "%s: argument must be a variable", op)
		}
		r, ok := fl.regs[v]
		if !ok {
			return posErrf(c.Pos(), "%s: variable %s has no register", op, v.Name)
		}
		fl.call(builtinNullValue, r)
	case "relax.make_closure":
		if err := need(2); err != nil {
			return err
		}
		f, err := fl.arg(c.Args[0])
		if err != nil {
			return err
		}
		caps, err := fl.tupleArgs(c.Args[1])
		if err != nil {
			return err
		}
		fl.call(builtinMakeClosure, dst, append([]Arg{f}, caps...)...)
	case "relax.invoke_closure", "relax.invoke_pure_closure":
		if err := need(2); err != nil {
			return err
		}
		clo, err := fl.arg(c.Args[0])
		if err != nil {
			return err
		}
		args, err := fl.tupleArgs(c.Args[1])
		if err != nil {
			return err
		}
		fl.call(builtinInvokeClosure, dst, append([]Arg{VMArg(), clo}, args...)...)
	case "relax.shape_of":
		if err := need(1); err != nil {
			return err
		}
		a, err := fl.arg(c.Args[0])
		if err != nil {
			return err
		}
		fl.call(builtinShapeOf, dst, a)
	case "relax.null_value":
		fl.call(builtinNullValue, dst)
	default:
		return posErrf(c.Pos(), "operator %s was not lowered before code generation", op)
	}
	return nil
}

// arg lowers a leaf (or tuple) expression to an argument, emitting code for
// values that need it.
func (fl *funcLowerer) arg(e ir.Expr) (Arg, error) {
	switch x := e.(type) {
	case *ir.Var:
		r, ok := fl.regs[x]
		if !ok {
			return Arg{}, posErrf(x.Pos(), "variable %s is used before it is defined", x.Name)
		}
		return Reg(r), nil
	case *ir.Constant:
		if x.Value == nil {
			return Arg{}, posErrf(x.Pos(), "constant without a value")
		}
		return Const(fl.consts.add(x.Value)), nil
	case *ir.PrimValue:
		switch v := ir.Simplify(x.Value).(type) {
		case *ir.IntImm:
			if v.Value >= bytecode.MinArgValue && v.Value <= bytecode.MaxArgValue {
				return Imm(v.Value), nil
			}
			return Const(fl.consts.add(v.Value)), nil
		case *ir.FloatImm:
			return Const(fl.consts.add(v.Value)), nil
		}
		return Arg{}, posErrf(x.Pos(), "prim value %s is not a constant; it should have been lowered", ir.ExprString(x.Value))
	case *ir.StringImm:
		return Const(fl.consts.add(x.Value)), nil
	case *ir.DataTypeImm:
		return Const(fl.consts.add(x.Value)), nil
	case *ir.ShapeExpr:
		s := make(runtime.Shape, len(x.Values))
		for i, d := range x.Values {
			v, ok := ir.AsInt(ir.Simplify(d))
			if !ok {
				return Arg{}, posErrf(x.Pos(), "shape %s is symbolic; it should have been lowered", ir.ExprString(d))
			}
			s[i] = v
		}
		return Const(fl.consts.add(s)), nil
	case *ir.GlobalVar:
		idx, ok := fl.p.index[x.Name]
		if !ok {
			return Arg{}, posErrf(x.Pos(), "reference to unknown function %s", x.Name)
		}
		return FuncRef(idx), nil
	case *ir.ExternFunc:
		return FuncRef(fl.p.declare(x.Symbol, runtime.FuncKindPacked)), nil
	case *ir.Tuple:
		args, err := fl.args(x.Fields)
		if err != nil {
			return Arg{}, err
		}
		r := fl.newReg()
		fl.call(builtinMakeTuple, r, args...)
		return Reg(r), nil
	case *ir.TupleGetItem:
		t, err := fl.arg(x.Tuple)
		if err != nil {
			return Arg{}, err
		}
		r := fl.newReg()
		fl.call(builtinTupleGetItem, r, t, Imm(int64(x.Index)))
		return Reg(r), nil
	case *ir.Call:
		if x.OpName() == "relax.null_value" {
			return VoidArg(), nil
		}
		r := fl.newReg()
		if err := fl.callExpr(x, r); err != nil {
			return Arg{}, err
		}
		return Reg(r), nil
	case *ir.If:
		r, err := fl.ifExpr(x)
		return Reg(r), err
	}
	return Arg{}, posErrf(e.Pos(), "cannot lower expression of type %T", e)
}

func isVoidSInfo(s ir.StructInfo) bool {
	t, ok := s.(*ir.TupleSInfo)
	return ok && len(t.Fields) == 0
}

func posErrf(sp ir.Span, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if sp.Line > 0 {
		return fmt.Errorf("%s: %s", sp, msg)
	}
	return fmt.Errorf("%s", msg)
}
