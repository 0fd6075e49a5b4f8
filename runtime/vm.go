package runtime

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"

	"github.com/relaxgo/relaxgo/internal/builtin"
	"github.com/relaxgo/relaxgo/internal/bytecode"
)

// opKind is a pre-decoded operand kind: registers are split from the special
// registers so the dispatch loop needs no range checks.
type opKind uint8

const (
	opReg opKind = iota
	opVoid
	opVM
	opImm
	opConst
	opFunc
)

type operand struct {
	kind opKind
	idx  int64 // register, constant or function index
	imm  Value // boxed immediate, shared by every VM
}

// instr is a pre-decoded instruction.
type instr struct {
	op   bytecode.Opcode
	a    operand   // Call: dst (kind opVoid = discard); Ret: result; If: condition
	b    int64     // Call: callee index; Goto: offset; If: false offset
	args []operand // Call arguments
}

// program is the decoded form of an executable, built once and shared.
type program struct {
	code    []instr
	maxArgs []int // per function: most arguments of any Call it makes
}

func regOperand(r int64) operand {
	switch {
	case r == bytecode.VoidRegister:
		return operand{kind: opVoid}
	case r == bytecode.VMRegister:
		return operand{kind: opVM}
	case r >= bytecode.BeginSpecialReg:
		return operand{kind: opVoid}
	}
	return operand{kind: opReg, idx: r}
}

// prepared decodes the validated executable once.
func (e *Executable) prepared() *program {
	e.once.Do(func() {
		p := &program{code: make([]instr, len(e.instrOffset)), maxArgs: make([]int, len(e.funcs))}
		for i, off := range e.instrOffset {
			if _, err := bytecode.InstrWords(e.instrData, off); err != nil {
				continue // validate() rejected executables that would reach this
			}
			in := bytecode.DecodeAt(e.instrData, off)
			d := instr{op: in.Op}
			switch in.Op {
			case bytecode.OpCall:
				d.a = regOperand(in.Dst)
				d.b = in.FuncIdx
				d.args = make([]operand, len(in.Args))
				for j, a := range in.Args {
					v := a.Value()
					switch a.Kind() {
					case bytecode.ArgRegister:
						d.args[j] = regOperand(v)
					case bytecode.ArgImmediate:
						d.args[j] = operand{kind: opImm, imm: v}
					case bytecode.ArgConstIdx:
						d.args[j] = operand{kind: opConst, idx: v}
					case bytecode.ArgFuncIdx:
						d.args[j] = operand{kind: opFunc, idx: v}
					}
				}
			case bytecode.OpRet:
				d.a = regOperand(in.Result)
			case bytecode.OpGoto:
				d.b = in.PCOffset
			case bytecode.OpIf:
				d.a = regOperand(in.Cond)
				d.b = in.FalseOffset
			}
			p.code[i] = d
		}
		for fi, f := range e.funcs {
			if f.Kind != FuncKindVM {
				continue
			}
			for pc := f.StartInstr; pc < f.EndInstr; pc++ {
				p.maxArgs[fi] = max(p.maxArgs[fi], len(p.code[pc].args))
			}
		}
		e.prog = p
	})
	return e.prog
}

// InstrumentReturnKind is what an Instrument returns (TVM's VMInstrumentReturnKind).
type InstrumentReturnKind int

// Instrument return kinds.
const (
	// InstrumentNoOp lets the call run.
	InstrumentNoOp InstrumentReturnKind = 0
	// InstrumentSkipRun, returned before a call, skips it: its destination
	// register receives nil and no after-call callback follows.
	InstrumentSkipRun InstrumentReturnKind = 1
)

// Instrument observes every Call instruction of bytecode functions: once
// before the call (before=true, ret=nil) and once after it (before=false,
// ret=the result). fn is the callee (PackedFunc or *Closure), symbol its
// function-table name; args must not be retained.
type Instrument func(fn Value, symbol string, before bool, ret Value, args []Value) InstrumentReturnKind

// CallError reports a failing Call instruction: the bytecode function, the
// instruction's index within it and the callee. Errors that already carry
// their context (CheckError from the vm.builtin.check_*/match_* builtins and
// inner CallErrors) are returned unwrapped.
type CallError struct {
	Func   string // bytecode function running the call
	Instr  int    // instruction index within Func
	Callee string // function-table name of the callee
	Err    error
}

// Error describes the failing call.
func (e *CallError) Error() string {
	return fmt.Sprintf("%s: instruction %d (call %s): %v", e.Func, e.Instr, e.Callee, e.Err)
}

// Unwrap returns the callee's error.
func (e *CallError) Unwrap() error { return e.Err }

type frame struct {
	regs     []Value
	args     []Value    // call argument buffer reused by every Call of the frame
	storages []*Storage // pooled storages allocated while this frame ran
}

type poolEntry struct {
	packed    PackedFunc
	clo       *Closure
	makeShape bool // packed is the registry's vm.builtin.make_shape
	makeTuple bool // packed is the registry's vm.builtin.make_tuple
}

// VMOption configures NewVM.
type VMOption func(*vmConfig)

type vmConfig struct {
	alloc    AllocatorType
	imports  []*Module
	maxDepth int
	maxSteps int64
	recycle  bool
	memLimit int64
	owner    any
}

// withOwner makes the VM keep owner reachable: a Model's VMs keep the Model,
// whose cleanup forgets its weights' packed forms (rtimpl), alive.
func withOwner(owner any) VMOption { return func(c *vmConfig) { c.owner = owner } }

// WithAllocator selects the allocator type (PooledAllocator by default).
func WithAllocator(t AllocatorType) VMOption { return func(c *vmConfig) { c.alloc = t } }

// WithImports adds modules searched, in order, for packed and compiled
// functions before the global registries.
func WithImports(mods ...*Module) VMOption {
	return func(c *vmConfig) { c.imports = append(c.imports, mods...) }
}

// WithMaxCallDepth bounds nested function calls (default 10000); deeper
// recursion fails with an error instead of exhausting the Go stack.
func WithMaxCallDepth(n int) VMOption { return func(c *vmConfig) { c.maxDepth = n } }

// WithInstructionLimit bounds how many bytecode instructions one Invoke may
// execute (0, the default: no bound); past it the call fails with
// ErrLimit. Compiled functions run as Go and are not counted.
func WithInstructionLimit(n int64) VMOption { return func(c *vmConfig) { c.maxSteps = n } }

// DefaultMaxCallDepth is the default bound on nested calls.
const DefaultMaxCallDepth = 10000

// VM runs an Executable (TVM's relax VirtualMachine). A VM is used by one
// goroutine at a time; create one VM per goroutine over a shared Executable.
type VM struct {
	owner    any // what made the VM and must outlive it (withOwner), or nil
	exec     *Executable
	prog     *program
	consts   []Value
	pool     []poolEntry
	poolVals []Value
	imports  []*Module
	alloc    Allocator
	frames   []*frame
	argBuf   []Value // Invoke's copy of its arguments (takeArgs)
	argsBusy bool
	// Recycled outputs: the tuple the last top-level call returned (as a
	// slice and as the Value returned), and whether this call's make_tuple
	// has taken it (makeTuple).
	lastTuple    Tuple
	lastTupleVal Value
	tupleTaken   bool
	free         []*frame
	maxDepth     int
	instr        Instrument
	instrKeeps   bool // instr may keep what it is shown (SetInstrument): no recycling
	inputs       map[string][]Value
	outputs      map[string]Value
	saved        map[string]*Closure
	// lastName and lastClo cache GetClosure's last answer (a generated
	// method or a serving loop invokes one name call after call; two map
	// lookups were ~6% of a small call). Saving a closure resets them.
	lastName  string
	lastClo   *Closure
	devices   []Device
	trackable bool
	escaped   []*Storage // releaseStorages' scratch, reused across calls
	// shapes caches, per instruction, the last Shape value that
	// vm.builtin.make_shape returned there (nil when the executable has no
	// make_shape calls).
	shapes []Value
	// siteShapes are the last make_shape results of compiled call sites (makeShapeAt).
	siteShapes []Value
	// ctx is the context of the InvokeContext call in progress (nil
	// otherwise); steps counts the instructions of the current call and
	// maxSteps bounds them (0: no bound). Both are checked every
	// stepCheck instructions, so the dispatch loop pays one increment.
	ctx      context.Context
	steps    int64
	maxSteps int64
	// recycle (WithRecycledOutputs) returns the storages of one call's
	// results to the allocator when the next call starts; recycled holds
	// them meanwhile.
	recycle  bool
	recycled []*Storage
	// memLimit bounds the bytes one top-level call may allocate
	// (WithMemoryLimit); callBytes counts them.
	memLimit  int64
	callBytes int64
}

// stepCheck is how often (in instructions) the VM loop looks at its
// context and instruction limit.
const stepCheck = 1024

// checkSteps reports a cancelled context or an exceeded instruction limit.
func (vm *VM) checkSteps() error {
	if vm.maxSteps > 0 && vm.steps > vm.maxSteps {
		return fmt.Errorf("runtime: more than %d instructions executed: %w", vm.maxSteps, ErrLimit)
	}
	if vm.ctx != nil {
		if err := vm.ctx.Err(); err != nil {
			return fmt.Errorf("runtime: call stopped after %d instructions: %w", vm.steps, err)
		}
	}
	return nil
}

// NewVM loads exec: it creates the allocator, places constants on the CPU,
// and resolves the function pool (packed functions from imports, then the
// global registry; bytecode and compiled functions as closures). A packed
// function that cannot be found is an error naming it.
func NewVM(exec *Executable, opts ...VMOption) (*VM, error) {
	if exec == nil {
		return nil, errors.New("runtime: NewVM: nil executable")
	}
	cfg := vmConfig{alloc: PooledAllocator, maxDepth: DefaultMaxCallDepth}
	for _, o := range opts {
		o(&cfg)
	}
	alloc, err := NewAllocator(cfg.alloc)
	if err != nil {
		return nil, fmt.Errorf("runtime: NewVM: %w", err)
	}
	vm := &VM{
		exec:     exec,
		prog:     exec.prepared(),
		consts:   exec.constants,
		imports:  cfg.imports,
		alloc:    alloc,
		maxDepth: cfg.maxDepth,
		maxSteps: cfg.maxSteps,
		recycle:  cfg.recycle,
		memLimit: cfg.memLimit,
		owner:    cfg.owner,
		devices:  []Device{CPU},
	}
	if vm.memLimit <= 0 {
		vm.memLimit = defaultMemoryLimit()
	}
	vm.trackable = alloc.Type() == PooledAllocator
	vm.pool = make([]poolEntry, len(exec.funcs))
	vm.poolVals = make([]Value, len(exec.funcs))
	for i, f := range exec.funcs {
		switch f.Kind {
		case FuncKindPacked:
			pf, ok := vm.lookupPacked(f.Name)
			if !ok {
				return nil, fmt.Errorf("runtime: NewVM: %w: %q is not in the VM's imports or the global function registry", ErrMissingFunction, f.Name)
			}
			vm.pool[i] = poolEntry{packed: pf}
			vm.poolVals[i] = pf
			if f.Name == builtin.MakeTuple && !vm.importsHave(f.Name) {
				vm.pool[i].makeTuple = true
			}
			if f.Name == builtin.MakeShape && !vm.importsHave(f.Name) {
				vm.pool[i].makeShape = true
				if vm.shapes == nil {
					vm.shapes = make([]Value, len(vm.prog.code))
				}
			}
		case FuncKindVM:
			c := vm.bytecodeClosure(i)
			vm.pool[i] = poolEntry{clo: c}
			vm.poolVals[i] = c
		case FuncKindVMTIR:
			fn, ok := vm.lookupVMTIR(vmtirFuncPrefix + f.Name)
			if !ok {
				return nil, fmt.Errorf("runtime: NewVM: cannot find compiled function %q of %q in the VM's imports or the compiled-function registry", vmtirFuncPrefix+f.Name, f.Name)
			}
			c := vm.vmtirClosure(i, fn)
			vm.pool[i] = poolEntry{clo: c}
			vm.poolVals[i] = c
		}
	}
	return vm, nil
}

// importsHave reports whether an import module provides name.
func (vm *VM) importsHave(name string) bool {
	for _, m := range vm.imports {
		if _, ok := m.GetFunction(name); ok {
			return true
		}
	}
	return false
}

func (vm *VM) lookupPacked(name string) (PackedFunc, bool) {
	for _, m := range vm.imports {
		if f, ok := m.GetFunction(name); ok {
			return f, true
		}
	}
	return Lookup(name)
}

func (vm *VM) lookupVMTIR(symbol string) (vmtirFunc, bool) {
	for _, m := range vm.imports {
		if f, ok := m.getVMTIRFunc(symbol); ok {
			return f, true
		}
	}
	return lookupVMTIR(symbol)
}

func (vm *VM) bytecodeClosure(fidx int) *Closure {
	exec := vm.exec
	return NewClosure(exec.funcs[fidx].Name, func(v *VM, args []Value) (Value, error) {
		if v == nil || v.exec != exec {
			return nil, fmt.Errorf("runtime: closure %s belongs to another executable", exec.funcs[fidx].Name)
		}
		return v.invokeBytecode(fidx, args)
	})
}

func (vm *VM) vmtirClosure(fidx int, fn vmtirFunc) *Closure {
	exec := vm.exec
	f := exec.funcs[fidx]
	return NewClosure(f.Name, func(v *VM, args []Value) (Value, error) {
		if v == nil || v.exec != exec {
			return nil, fmt.Errorf("runtime: closure %s belongs to another executable", f.Name)
		}
		if int64(len(args)) != f.NumArgs {
			return nil, arityError(&f, len(args))
		}
		if v.ctx != nil {
			// Compiled functions look at the context of InvokeContext
			// when they start (recursion is their only loop).
			if err := v.ctx.Err(); err != nil {
				return nil, fmt.Errorf("runtime: call stopped at %s: %w", f.Name, err)
			}
		}
		fr, err := v.pushFrame(int(f.RegisterFileSize), 0)
		if err != nil {
			return nil, err
		}
		for i, a := range args {
			fr.regs[i] = a
		}
		if err := fn(v, fr.regs); err != nil {
			v.popFrame(fr, nil)
			return nil, compiledError(f.Name, err)
		}
		ret := fr.regs[f.NumArgs]
		v.popFrame(fr, ret)
		return ret, nil
	})
}

// compiledError gives a compiled function's error the context bytecode mode
// gives it, and like bytecode mode only once: a CallError made by
// rtimpl.CallErr gets the function's name, and errors that already carry
// their context (CheckErrors, named CallErrors, the depth limit, a stopped
// call) pass through unchanged, so deep recursion does not build a message
// per level.
func compiledError(fn string, err error) error {
	var ce *CheckError
	if errors.As(err, &ce) {
		return err
	}
	var cl *CallError
	if errors.As(err, &cl) {
		if cl.Func == "" {
			cl.Func = fn
		}
		return err
	}
	return fmt.Errorf("%s: %w", fn, err)
}

func arityError(f *FuncInfo, got int) error {
	var names string
	if len(f.ParamNames) > 0 {
		names = " (" + strings.Join(f.ParamNames, ", ") + ")"
	}
	return fmt.Errorf("runtime: %w: function %s expects %d arguments%s, but %d arguments were provided", ErrArity, f.Name, f.NumArgs, names, got)
}

func (vm *VM) pushFrame(nregs, nargs int) (*frame, error) {
	if len(vm.frames) >= vm.maxDepth {
		return nil, fmt.Errorf("runtime: maximum call depth %d exceeded", vm.maxDepth)
	}
	var fr *frame
	if n := len(vm.free); n > 0 {
		fr = vm.free[n-1]
		vm.free = vm.free[:n-1]
	} else {
		fr = &frame{}
	}
	if cap(fr.regs) >= nregs {
		fr.regs = fr.regs[:nregs]
	} else {
		fr.regs = make([]Value, nregs)
	}
	if cap(fr.args) >= nargs {
		fr.args = fr.args[:nargs]
	} else {
		fr.args = make([]Value, nargs)
	}
	vm.frames = append(vm.frames, fr)
	return fr, nil
}

// popFrame removes the top frame (fr), returning its pooled storages that do
// not escape through ret to the allocator.
func (vm *VM) popFrame(fr *frame, ret Value) {
	if len(fr.storages) > 0 {
		vm.releaseStorages(fr, ret)
	}
	clearValues(fr.regs)
	clearValues(fr.args)
	n := len(vm.frames)
	vm.frames[n-1] = nil
	vm.frames = vm.frames[:n-1]
	vm.free = append(vm.free, fr)
}

// clearValues sets every non-nil element of vs to nil. Most registers are
// already nil when a function returns (kill_object, compiled code's own
// nils), and storing nil over nil needs no write barrier, where clear's
// bulk barrier visits every slot whenever the collector is marking, which
// in a loop of small calls that each allocate a result is most of the time
// (add_self: a cycle every ~7 ms, marking for 4-6 ms of it). With the
// arguments stored one by one too (not copy's typed bulk move): add_self
// compiled 510-546 -> 483-526 ns a call (five alternated runs).
func clearValues(vs []Value) {
	for i := range vs {
		if vs[i] != nil {
			vs[i] = nil
		}
	}
}

// clearPtrs is clear(ps) element by element, as clearValues.
func clearPtrs(ps []*Storage) {
	for i := range ps {
		ps[i] = nil
	}
}

func (vm *VM) releaseStorages(fr *frame, ret Value) {
	escaped := vm.escaped[:0]
	collectStorages(ret, &escaped, 0)
	for _, s := range fr.storages {
		keep := false
		for _, e := range escaped {
			if e == s {
				keep = true
				break
			}
		}
		if !keep {
			vm.alloc.Free(s)
			vm.callBytes = max(0, vm.callBytes-s.Size())
		} else if vm.recycle && len(vm.frames) == 1 {
			vm.recycled = append(vm.recycled, s)
		}
	}
	clearPtrs(fr.storages)
	fr.storages = fr.storages[:0]
	clearPtrs(escaped)
	vm.escaped = escaped[:0]
}

func collectStorages(v Value, out *[]*Storage, depth int) {
	if depth > 64 {
		return
	}
	switch x := v.(type) {
	case *Tensor:
		if x != nil && x.storage != nil {
			*out = append(*out, x.storage)
		}
	case *Storage:
		*out = append(*out, x)
	case Tuple:
		for _, e := range x {
			collectStorages(e, out, depth+1)
		}
	case *Closure:
		if x != nil {
			for _, e := range x.bound {
				collectStorages(e, out, depth+1)
			}
		}
	}
}

// trackStorage records a pooled storage in the running frame so it returns
// to the pool when the frame exits (unless it escapes through the result).
// Nothing is recycled while an instrument from SetInstrument is installed,
// because it may keep tensors for inspection (one from SetTimingInstrument
// keeps none).
func (vm *VM) trackStorage(s *Storage) {
	if !vm.trackable || vm.instrKeeps || len(vm.frames) == 0 {
		return
	}
	fr := vm.frames[len(vm.frames)-1]
	fr.storages = append(fr.storages, s)
}

// unwind drops frames above depth after a panic.
func (vm *VM) unwind(depth int) {
	for len(vm.frames) > depth {
		n := len(vm.frames)
		fr := vm.frames[n-1]
		clear(fr.regs)
		clear(fr.args)
		fr.storages = fr.storages[:0]
		vm.frames[n-1] = nil
		vm.frames = vm.frames[:n-1]
	}
}

func (vm *VM) invokeBytecode(fidx int, args []Value) (Value, error) {
	f := &vm.exec.funcs[fidx]
	if int64(len(args)) != f.NumArgs {
		return nil, arityError(f, len(args))
	}
	fr, err := vm.pushFrame(int(f.RegisterFileSize), vm.prog.maxArgs[fidx])
	if err != nil {
		return nil, err
	}
	copy(fr.regs, args)
	ret, err := vm.run(fr, f)
	vm.popFrame(fr, ret)
	return ret, err
}

// run is the dispatch loop of one bytecode function activation.
func (vm *VM) run(fr *frame, f *FuncInfo) (Value, error) {
	code := vm.prog.code
	regs := fr.regs
	pc := f.StartInstr
	for {
		vm.steps++
		if vm.steps%stepCheck == 0 {
			if err := vm.checkSteps(); err != nil {
				return nil, err
			}
		}
		in := &code[pc]
		switch in.op {
		case bytecode.OpCall:
			args := fr.args[:len(in.args)]
			for i := range in.args {
				o := &in.args[i]
				switch o.kind {
				case opReg:
					args[i] = regs[o.idx]
				case opImm:
					args[i] = o.imm
				case opConst:
					args[i] = vm.consts[o.idx]
				case opFunc:
					args[i] = vm.poolVals[o.idx]
				case opVM:
					args[i] = vm
				default:
					args[i] = nil
				}
			}
			var ret Value
			var err error
			if vm.instr == nil {
				p := &vm.pool[in.b]
				if p.makeShape {
					ret, err = vm.makeShape(pc, args)
				} else if p.makeTuple {
					ret, err = vm.makeTuple(args)
				} else if p.packed != nil {
					ret, err = p.packed(args)
				} else {
					ret, err = p.clo.call(vm, args)
				}
			} else {
				ret, err = vm.instrumentedCall(in.b, args)
			}
			if err != nil {
				return nil, vm.callError(f, pc, in.b, err)
			}
			if in.a.kind == opReg {
				regs[in.a.idx] = ret
			}
			pc++
		case bytecode.OpRet:
			return vm.read(regs, in.a), nil
		case bytecode.OpGoto:
			pc += in.b
		case bytecode.OpIf:
			c, err := condValue(vm.read(regs, in.a))
			if err != nil {
				return nil, fmt.Errorf("%s: instruction %d: %w", f.Name, pc-f.StartInstr, err)
			}
			if c != 0 {
				pc++
			} else {
				pc += in.b
			}
		default:
			return nil, fmt.Errorf("%s: instruction %d: invalid opcode %d", f.Name, pc-f.StartInstr, int64(in.op))
		}
	}
}

// makeShape runs vm.builtin.make_shape for instruction pc. Shape values are
// immutable, so when the shape equals the one made at pc before, that value
// is returned again instead of a new allocation.
func (vm *VM) makeShape(pc int64, args []Value) (Value, error) {
	var buf [8]int64
	s, err := makeShapeInto(buf[:0], args)
	if err != nil {
		return nil, err
	}
	return reuseShape(&vm.shapes[pc], s), nil
}

// reuseShape returns *slot when it holds a Shape equal to s (Shape values are
// immutable), else stores and returns a new Shape copied from s.
func reuseShape(slot *Value, s []int64) Value {
	if old, ok := (*slot).(Shape); ok && old.Equal(s) {
		return *slot
	}
	c := make(Shape, len(s))
	copy(c, s)
	*slot = c
	return *slot
}

func (vm *VM) read(regs []Value, o operand) Value {
	switch o.kind {
	case opReg:
		return regs[o.idx]
	case opVM:
		return vm
	}
	return nil
}

func condValue(v Value) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	}
	return 0, fmt.Errorf("runtime: If condition must be an int or bool, got %s", TypeName(v))
}

func (vm *VM) callError(f *FuncInfo, pc, callee int64, err error) error {
	var ce *CheckError
	var cl *CallError
	if errors.As(err, &ce) || errors.As(err, &cl) {
		return err
	}
	return &CallError{Func: f.Name, Instr: int(pc - f.StartInstr), Callee: vm.exec.funcs[callee].Name, Err: err}
}

func (vm *VM) instrumentedCall(idx int64, args []Value) (Value, error) {
	fn := vm.poolVals[idx]
	sym := vm.exec.funcs[idx].Name
	if vm.instr(fn, sym, true, nil, args) == InstrumentSkipRun {
		return nil, nil
	}
	ret, err := vm.callFunc(int(idx), args...)
	if err != nil {
		return nil, err
	}
	vm.instr(fn, sym, false, ret, args)
	return ret, nil
}

// guard converts a panic escaping a call into an error and restores the
// frame stack to depth.
func (vm *VM) guard(what string, depth int, err *error) {
	if r := recover(); r != nil {
		vm.unwind(depth)
		*err = fmt.Errorf("runtime: %s: panic: %v", what, r)
	}
}

// Executable is the executable the VM runs.
func (vm *VM) Executable() *Executable { return vm.exec }

// Allocator is the VM's allocator.
func (vm *VM) Allocator() Allocator { return vm.alloc }

// Devices lists the VM's devices; the host CPU is last (and, for now, only).
func (vm *VM) Devices() []Device { return append([]Device(nil), vm.devices...) }

// callFunc calls function-table entry idx with args: packed functions
// directly, bytecode and compiled functions on this VM. Compiled functions use
// it for their calls; it does not run the instrument.
func (vm *VM) callFunc(idx int, args ...Value) (Value, error) {
	if idx < 0 || idx >= len(vm.pool) {
		return nil, fmt.Errorf("runtime: function index %d outside the function pool of %d", idx, len(vm.pool))
	}
	p := &vm.pool[idx]
	if p.packed != nil {
		return p.packed(args)
	}
	return p.clo.call(vm, args)
}

// callValue invokes a PackedFunc or *Closure value.
func (vm *VM) callValue(fn Value, args []Value) (Value, error) {
	switch f := fn.(type) {
	case PackedFunc:
		if f == nil {
			return nil, errors.New("runtime: call of a nil function")
		}
		return f(args)
	case *Closure:
		if f == nil {
			return nil, errors.New("runtime: call of a nil closure")
		}
		return f.call(vm, args)
	case func([]Value) (Value, error):
		return f(args)
	}
	return nil, fmt.Errorf("runtime: expected a closure or function, got %s", TypeName(fn))
}

// GetClosure returns the closure of a function saved with SaveFunction or of
// a bytecode or compiled function of the executable.
func (vm *VM) GetClosure(name string) (*Closure, error) {
	if vm.lastClo != nil && name == vm.lastName {
		return vm.lastClo, nil
	}
	if c, ok := vm.saved[name]; ok {
		vm.lastName, vm.lastClo = name, c
		return c, nil
	}
	i, ok := vm.exec.funcMap[name]
	if !ok {
		return nil, fmt.Errorf("runtime: %w: %q", ErrUnknownFunction, name)
	}
	if vm.pool[i].clo == nil {
		return nil, fmt.Errorf("runtime: %q is a packed function, not a function of the executable", name)
	}
	vm.lastName, vm.lastClo = name, vm.pool[i].clo
	return vm.pool[i].clo, nil
}

// wireThread wires the calling goroutine to its OS thread for the length of
// a top-level call and returns the function that unwires it. Unwired, a
// goroutine that runs a model for longer than the scheduler's time slice
// is preempted and may resume on another thread, on another CPU, whose
// caches do not hold the model's working set, again and again through the
// call: on a 2-vCPU Intel Xeon, Inception-v3 at 1 thread (30 calls, three
// alternated runs) ran at medians of 200-223 ms a call unwired and 144-151
// wired, in another set 147-187 and 141-145 (RATIONALE, "A call wires its
// goroutine to its thread"). A caller that wired its goroutine itself stays
// wired (the locks nest).
func wireThread() (unwire func()) {
	goruntime.LockOSThread()
	return goruntime.UnlockOSThread
}

// Invoke calls the function name with args and returns its result.
func (vm *VM) Invoke(name string, args ...Value) (ret Value, err error) {
	c, err := vm.GetClosure(name)
	if err != nil {
		return nil, err
	}
	top := len(vm.frames) == 0
	if top {
		defer wireThread()()
		vm.steps = 0
		vm.callBytes = 0
		vm.recycleOutputs()
		vm.tupleTaken = false
	}
	a, own := vm.takeArgs(args)
	if own {
		defer vm.releaseArgs()
	}
	defer vm.guard(name, len(vm.frames), &err)
	ret, err = c.call(vm, a)
	if top && vm.recycle {
		// The result tuple, for the next call's first make_tuple.
		vm.lastTuple, vm.lastTupleVal = nil, nil
		if t, ok := ret.(Tuple); ok && err == nil {
			vm.lastTuple, vm.lastTupleVal = t, ret
		}
	}
	return ret, err
}

// makeTuple is vm.builtin.make_tuple. With recycled outputs, the first
// tuple a top-level call makes reuses the tuple the previous call returned
// when it has as many elements (that result is no longer valid): its
// elements are overwritten and the same Value returned, so a function
// returning a tuple allocates nothing for it in steady state.
//
// Otherwise a tuple of up to four elements whose first is a tensor on a
// storage the running activation allocated is kept in that storage
// (Storage.tuple), once per lease of it: returned, the tuple keeps the
// storage from the pool as its tensor does; not returned, both die with
// the activation. (Not with recycled outputs, whose reused tuple may sit
// in a storage the call takes again.) Other tuples cost one allocation.
func (vm *VM) makeTuple(args []Value) (Value, error) {
	if vm.recycle {
		if !vm.tupleTaken && vm.lastTuple != nil && len(vm.lastTuple) == len(args) {
			vm.tupleTaken = true
			copy(vm.lastTuple, args)
			return vm.lastTupleVal, nil
		}
	} else if s := vm.tupleStorage(args); s != nil {
		s.tupleUsed = true
		return s.tuple.fill(args), nil
	}
	return builtinMakeTuple(args)
}

// tupleStorage returns the storage whose tuple room makeTuple may fill
// with args, or nil: the first element's, when the running activation
// allocated it and its room is free.
func (vm *VM) tupleStorage(args []Value) *Storage {
	if len(args) == 0 || len(args) > storageTupleLen || len(vm.frames) == 0 {
		return nil
	}
	t, ok := args[0].(*Tensor)
	if !ok || t == nil || t.storage == nil || t.storage.tupleUsed {
		return nil
	}
	for _, s := range vm.frames[len(vm.frames)-1].storages {
		if s == t.storage {
			return s
		}
	}
	return nil
}

// takeArgs copies a call's arguments into the VM's buffer (own), or into a
// new slice when a call already uses it (a nested Invoke). The callee is
// called through a func value, so the caller's variadic slice would
// otherwise escape: one allocation per call with a literal argument list.
func (vm *VM) takeArgs(args []Value) (a []Value, own bool) {
	if vm.argsBusy {
		return append([]Value(nil), args...), false
	}
	vm.argsBusy = true
	if cap(vm.argBuf) < len(args) {
		vm.argBuf = make([]Value, len(args))
	}
	vm.argBuf = vm.argBuf[:len(args)]
	for i, v := range args { // element by element: see clearValues
		vm.argBuf[i] = v
	}
	return vm.argBuf, true
}

// releaseArgs frees the argument buffer, dropping its references.
func (vm *VM) releaseArgs() {
	clearValues(vm.argBuf)
	vm.argsBusy = false
}

// InvokeContext is Invoke that stops when ctx is done: the bytecode loop
// looks at ctx every 1024 instructions (and at its instruction limit, if
// any), and the call then fails with an error wrapping ctx.Err(). Kernels
// already running finish first; compiled functions are not interrupted.
func (vm *VM) InvokeContext(ctx context.Context, name string, args ...Value) (Value, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("runtime: %s: %w", name, err)
	}
	prev := vm.ctx
	vm.ctx = ctx
	defer func() { vm.ctx = prev }()
	return vm.Invoke(name, args...)
}

// InvokeClosure calls a closure or packed function value on this VM (TVM's
// vm.invoke_closure), e.g. a closure returned by a Relax function.
func (vm *VM) InvokeClosure(fn Value, args ...Value) (ret Value, err error) {
	if len(vm.frames) == 0 {
		defer wireThread()()
	}
	defer vm.guard("invoke_closure", len(vm.frames), &err)
	return vm.callValue(fn, args)
}

// SetInstrument installs f to run before and after every Call of bytecode
// functions; nil removes it. While it is installed no storage is reused
// between calls, so f may keep the tensors it is shown.
func (vm *VM) SetInstrument(f Instrument) { vm.instr, vm.instrKeeps = f, f != nil }

// SetTimingInstrument is SetInstrument for an f that keeps nothing it is
// shown (a timer, a counter): storage is reused between calls as without an
// instrument, so the calls run as they otherwise would (a profile of a
// function's operators then times them on warm memory, not on storage
// allocated afresh each call).
func (vm *VM) SetTimingInstrument(f Instrument) { vm.instr, vm.instrKeeps = f, false }

// SetInput stores the arguments of name for InvokeStateful; exactly the
// function's number of parameters must be given.
func (vm *VM) SetInput(name string, args ...Value) error {
	i, ok := vm.exec.funcMap[name]
	if !ok {
		return fmt.Errorf("runtime: SetInput: %w: %q", ErrUnknownFunction, name)
	}
	f := &vm.exec.funcs[i]
	if f.Kind == FuncKindPacked {
		return fmt.Errorf("runtime: SetInput: %q is a packed function", name)
	}
	if int64(len(args)) != f.NumArgs {
		return fmt.Errorf("runtime: SetInput: %w", arityError(f, len(args)))
	}
	if vm.inputs == nil {
		vm.inputs = map[string][]Value{}
	}
	vm.inputs[name] = append([]Value(nil), args...)
	return nil
}

// InvokeStateful calls name with the arguments given to SetInput and keeps
// the result for GetOutput.
func (vm *VM) InvokeStateful(name string) error {
	if !vm.exec.HasFunction(name) {
		return fmt.Errorf("runtime: InvokeStateful: %w: %q", ErrUnknownFunction, name)
	}
	in, ok := vm.inputs[name]
	if !ok {
		return fmt.Errorf("runtime: no inputs set for stateful call of %q; use SetInput first", name)
	}
	out, err := vm.Invoke(name, in...)
	if err != nil {
		return err
	}
	if vm.outputs == nil {
		vm.outputs = map[string]Value{}
	}
	vm.outputs[name] = out
	return nil
}

func (vm *VM) output(name string, index []int) (Value, error) {
	out, ok := vm.outputs[name]
	if !ok {
		return nil, fmt.Errorf("runtime: no output saved for call of %q; use InvokeStateful first", name)
	}
	for _, i := range index {
		t, ok := out.(Tuple)
		if !ok {
			return nil, fmt.Errorf("runtime: output of %q: attempted to index into a %s, not a tuple", name, TypeName(out))
		}
		if i < 0 || i >= len(t) {
			return nil, fmt.Errorf("runtime: output of %q: invalid index (%d >= %d)", name, i, len(t))
		}
		out = t[i]
	}
	return out, nil
}

// GetOutput returns the stateful output of name, indexed into nested tuples
// by index. Like TVM it refuses to return a tuple: index further.
func (vm *VM) GetOutput(name string, index ...int) (Value, error) {
	out, err := vm.output(name, index)
	if err != nil {
		return nil, err
	}
	if _, ok := out.(Tuple); ok {
		return nil, fmt.Errorf("runtime: GetOutput(%q) cannot return a tuple; specify another index", name)
	}
	return out, nil
}

// GetOutputs returns the whole stateful output of name, tuples included.
func (vm *VM) GetOutputs(name string) (Value, error) { return vm.output(name, nil) }

// GetOutputArity is the number of elements of the (indexed) stateful output
// when it is a tuple, and -1 otherwise.
func (vm *VM) GetOutputArity(name string, index ...int) (int, error) {
	out, err := vm.output(name, index)
	if err != nil {
		return 0, err
	}
	if t, ok := out.(Tuple); ok {
		return len(t), nil
	}
	return -1, nil
}

// SaveFunction binds args as the trailing arguments of funcName and saves the
// result as savedName, callable with Invoke(savedName, leadingArgs...). With
// includeReturn false the saved function returns nil.
func (vm *VM) SaveFunction(funcName, savedName string, includeReturn bool, args ...Value) error {
	c, err := vm.GetClosure(funcName)
	if err != nil {
		return fmt.Errorf("runtime: SaveFunction: %w", err)
	}
	bound := c.BindLastArgs(args...)
	saved := NewClosure(savedName, bound.call)
	if !includeReturn {
		saved = NewClosure(savedName, func(v *VM, a []Value) (Value, error) {
			_, err := bound.call(v, a)
			return nil, err
		})
	}
	if vm.saved == nil {
		vm.saved = map[string]*Closure{}
	}
	vm.saved[savedName] = saved
	vm.lastName, vm.lastClo = "", nil
	return nil
}

// FunctionArity is the number of parameters of the executable function name.
func (vm *VM) FunctionArity(name string) (int, error) {
	i, ok := vm.exec.funcMap[name]
	if !ok {
		return 0, fmt.Errorf("runtime: %w: %q", ErrUnknownFunction, name)
	}
	return int(vm.exec.funcs[i].NumArgs), nil
}

// FunctionParamName is the name of parameter index of function name.
func (vm *VM) FunctionParamName(name string, index int) (string, error) {
	i, ok := vm.exec.funcMap[name]
	if !ok {
		return "", fmt.Errorf("runtime: %w: %q", ErrUnknownFunction, name)
	}
	p := vm.exec.funcs[i].ParamNames
	if index < 0 || index >= len(p) {
		return "", fmt.Errorf("runtime: invalid parameter index for %s (%d out of %d)", name, index, len(p))
	}
	return p[index], nil
}
