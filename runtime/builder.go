package runtime

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"sort"

	"github.com/relaxgo/relaxgo/internal/bytecode"
)

// execBuilder assembles an Executable instruction by instruction (TVM's
// relax.ExecBuilder), exposed to the compiler as vmtir.ExecBuilder through
// internal/rtlink. Methods return an error and also remember the first
// one, so a code generator may check each call or only the result of Get.
//
// The builder takes ownership of the constants passed to ConvertConstant:
// tensors are not copied and must not be modified afterwards.
type execBuilder struct {
	funcs       []FuncInfo
	funcMap     map[string]int
	ended       map[int]bool
	constants   []Value
	dedup       map[uint64][]int // structural hash -> constant indices
	scopes      map[int64]string
	instrOffset []execWord
	instrData   []execWord
	err         error
}

// newExecBuilder returns an empty builder.
func newExecBuilder() *execBuilder {
	return &execBuilder{
		funcMap: map[string]int{},
		ended:   map[int]bool{},
		dedup:   map[uint64][]int{},
		scopes:  map[int64]string{},
	}
}

func (b *execBuilder) fail(format string, args ...any) error {
	err := fmt.Errorf("runtime: exec builder: "+format, args...)
	if b.err == nil {
		b.err = err
	}
	return err
}

// Err is the first error any builder method reported, or nil.
func (b *execBuilder) Err() error { return b.err }

// DeclareFunction adds name to the function table with the given kind (a
// forward declaration). Declaring an existing name again is a no-op when the
// kind agrees and an error otherwise.
func (b *execBuilder) DeclareFunction(name string, kind FuncKind) error {
	if kind != FuncKindPacked && kind != FuncKindVM && kind != FuncKindVMTIR {
		return b.fail("declare %q: invalid function kind %d", name, int32(kind))
	}
	if i, ok := b.funcMap[name]; ok {
		if b.funcs[i].Kind != kind {
			return b.fail("function %q already declared as %s, not %s", name, b.funcs[i].Kind, kind)
		}
		return nil
	}
	b.funcMap[name] = len(b.funcs)
	b.funcs = append(b.funcs, FuncInfo{Kind: kind, Name: name, NumArgs: -2})
	return nil
}

// EmitFunction starts the definition of function name with numInputs
// parameters occupying registers 0..numInputs-1. paramNames may be nil or
// must have numInputs entries. For FuncKindVMTIR no instructions follow and
// initRegisterSize must cover the parameters, the return slot and the
// temporaries; for FuncKindVM Get computes the register file size.
func (b *execBuilder) EmitFunction(name string, numInputs int64, paramNames []string, kind FuncKind, initRegisterSize int64) error {
	if _, ok := b.funcMap[name]; !ok {
		if err := b.DeclareFunction(name, kind); err != nil {
			return err
		}
	}
	f := &b.funcs[b.funcMap[name]]
	if f.Kind != kind {
		return b.fail("function %q declared as %s, defined as %s", name, f.Kind, kind)
	}
	if f.NumArgs != -2 {
		return b.fail("function %q already defined", name)
	}
	if numInputs < 0 {
		return b.fail("function %q: negative number of inputs %d", name, numInputs)
	}
	if paramNames != nil && int64(len(paramNames)) != numInputs {
		return b.fail("function %q defined with %d arguments, but the list of parameter names has %d names (%v)", name, numInputs, len(paramNames), paramNames)
	}
	f.NumArgs = numInputs
	f.ParamNames = append([]string(nil), paramNames...)
	f.RegisterFileSize = initRegisterSize
	if kind == FuncKindVM {
		f.StartInstr = int64(len(b.instrOffset))
	}
	return nil
}

// EndFunction closes the definition of name.
func (b *execBuilder) EndFunction(name string) error {
	i, ok := b.funcMap[name]
	if !ok {
		return b.fail("EndFunction: unknown function %q", name)
	}
	if b.ended[i] {
		return b.fail("EndFunction(%q) can only be called once", name)
	}
	b.ended[i] = true
	if b.funcs[i].Kind == FuncKindVM {
		b.funcs[i].EndInstr = int64(len(b.instrOffset))
	}
	return nil
}

// GetFunction returns the f[idx] argument referring to the function name.
func (b *execBuilder) GetFunction(name string) (bytecode.Arg, error) {
	i, ok := b.funcMap[name]
	if !ok {
		return 0, b.fail("cannot find function %q", name)
	}
	return bytecode.FuncIdx(int64(i)), nil
}

// EmitCall emits a call of the function name, declaring it as a packed
// function when the name is new. dst is a register number or bytecode.VoidRegister.
func (b *execBuilder) EmitCall(name string, args []bytecode.Arg, dst int64) error {
	if _, ok := b.funcMap[name]; !ok {
		if err := b.DeclareFunction(name, FuncKindPacked); err != nil {
			return err
		}
	}
	return b.EmitCallIdx(int64(b.funcMap[name]), args, dst)
}

// EmitCallIdx emits a call of the function-table entry funcIdx.
func (b *execBuilder) EmitCallIdx(funcIdx int64, args []bytecode.Arg, dst int64) error {
	if funcIdx < 0 || funcIdx >= int64(len(b.funcs)) {
		return b.fail("call of function index %d outside the table of %d", funcIdx, len(b.funcs))
	}
	if dst < 0 {
		return b.fail("call of %q: negative destination register %d", b.funcs[funcIdx].Name, dst)
	}
	b.instrOffset = append(b.instrOffset, int64(len(b.instrData)))
	b.instrData = append(b.instrData, int64(bytecode.OpCall), dst, funcIdx, int64(len(args)))
	for _, a := range args {
		b.instrData = append(b.instrData, a.Word())
	}
	return nil
}

// EmitRet emits a return of the register result (a register argument).
func (b *execBuilder) EmitRet(result bytecode.Arg) error {
	if result.Kind() != bytecode.ArgRegister {
		return b.fail("ret operand must be a register, got %s", result)
	}
	b.instrOffset = append(b.instrOffset, int64(len(b.instrData)))
	b.instrData = append(b.instrData, int64(bytecode.OpRet), result.Value())
	return nil
}

// EmitGoto emits a relative jump by pcOffset instructions.
func (b *execBuilder) EmitGoto(pcOffset int64) error {
	b.instrOffset = append(b.instrOffset, int64(len(b.instrData)))
	b.instrData = append(b.instrData, int64(bytecode.OpGoto), pcOffset)
	return nil
}

// EmitIf emits a conditional: when register cond is non-zero execution falls
// through, otherwise it jumps by falseOffset instructions.
func (b *execBuilder) EmitIf(cond bytecode.Arg, falseOffset int64) error {
	if cond.Kind() != bytecode.ArgRegister {
		return b.fail("If condition must be a register, got %s", cond)
	}
	b.instrOffset = append(b.instrOffset, int64(len(b.instrData)))
	b.instrData = append(b.instrData, int64(bytecode.OpIf), cond.Value(), falseOffset)
	return nil
}

// SaveMemoryScope records a storage scope for the constant argument idx.
func (b *execBuilder) SaveMemoryScope(idx bytecode.Arg, scope string) error {
	if idx.Kind() != bytecode.ArgConstIdx {
		return b.fail("memory scope %q needs a constant index, got %s", scope, idx)
	}
	b.scopes[idx.Value()] = scope
	return nil
}

// ConvertConstant turns a literal into an argument: integers that fit in 56
// bits (and bools) become immediates; everything else goes to the constant pool,
// de-duplicated by structural equality (tensors compare dtype, shape and
// bytes). Supported: int, int32, int64, bool, float32, float64, string,
// DataType, Shape, []int64 (as Shape) and *Tensor.
func (b *execBuilder) ConvertConstant(v Value) (bytecode.Arg, error) {
	switch x := v.(type) {
	case int:
		v = int64(x)
	case int32:
		v = int64(x)
	case bool:
		if x {
			return bytecode.Imm(1), nil
		}
		return bytecode.Imm(0), nil
	case float32:
		v = float64(x)
	case []int64:
		v = Shape(x)
	}
	switch x := v.(type) {
	case int64:
		if x >= bytecode.MinArgValue && x <= bytecode.MaxArgValue {
			return bytecode.Imm(x), nil
		}
	case float64, string, DataType, Shape:
	case *Tensor:
		if x == nil {
			return 0, b.fail("ConvertConstant: nil tensor")
		}
	default:
		return 0, b.fail("ConvertConstant: unsupported constant type %s", TypeName(v))
	}
	h := constHash(v)
	for _, i := range b.dedup[h] {
		if constEqual(b.constants[i], v) {
			return bytecode.ConstIdx(int64(i)), nil
		}
	}
	i := len(b.constants)
	b.constants = append(b.constants, v)
	b.dedup[h] = append(b.dedup[h], i)
	return bytecode.ConstIdx(int64(i)), nil
}

func constHash(v Value) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	put := func(x uint64) {
		binary.LittleEndian.PutUint64(buf[:], x)
		h.Write(buf[:])
	}
	switch x := v.(type) {
	case int64:
		h.Write([]byte{'i'})
		put(uint64(x))
	case float64:
		h.Write([]byte{'f'})
		put(math.Float64bits(x))
	case string:
		h.Write([]byte{'s'})
		h.Write([]byte(x))
	case DataType:
		h.Write([]byte{'d', x.Code, x.Bits, byte(x.Lanes), byte(x.Lanes >> 8)})
	case Shape:
		h.Write([]byte{'S'})
		for _, d := range x {
			put(uint64(d))
		}
	case *Tensor:
		h.Write([]byte{'T', x.dtype.Code, x.dtype.Bits, byte(x.dtype.Lanes), byte(x.dtype.Lanes >> 8)})
		for _, d := range x.shape {
			put(uint64(d))
		}
		h.Write(x.data)
	}
	return h.Sum64()
}

// constEqual is structural equality of constant-pool values (floats compare
// by bits, so NaN constants de-duplicate and 0.0 and -0.0 stay distinct).
func constEqual(a, b Value) bool {
	switch x := a.(type) {
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case string:
		y, ok := b.(string)
		return ok && x == y
	case DataType:
		y, ok := b.(DataType)
		return ok && x == y
	case Shape:
		y, ok := b.(Shape)
		return ok && x.Equal(y)
	case *Tensor:
		y, ok := b.(*Tensor)
		return ok && x.dtype == y.dtype && Shape(x.shape).Equal(Shape(y.shape)) && bytes.Equal(x.data, y.data)
	}
	return false
}

// formalize renumbers the registers of every VM function in order of first
// appearance as a Call destination, starting after the parameters, and sets
// register_file_size (TVM's execBuilder::Formalize).
func formalize(funcs []FuncInfo, instrOffset, instrData []execWord) {
	n := int64(len(instrOffset))
	for fi := range funcs {
		f := &funcs[fi]
		if f.Kind != FuncKindVM || f.StartInstr < 0 || f.EndInstr > n || f.NumArgs < 0 {
			continue
		}
		next := f.NumArgs
		remap := map[int64]int64{}
		for pc := f.StartInstr; pc < f.EndInstr; pc++ {
			off := instrOffset[pc]
			if _, err := bytecode.InstrWords(instrData, off); err != nil {
				continue
			}
			switch bytecode.Opcode(instrData[off]) {
			case bytecode.OpCall:
				na := instrData[off+3]
				for i := int64(0); i < na; i++ {
					a := bytecode.Arg(instrData[off+4+i])
					if a.Kind() != bytecode.ArgRegister {
						continue
					}
					if r, ok := remap[a.Value()]; ok && a.Value() >= f.NumArgs && a.Value() < bytecode.BeginSpecialReg {
						instrData[off+4+i] = int64(bytecode.Reg(r))
					}
				}
				dst := instrData[off+1]
				if dst >= f.NumArgs && dst < bytecode.BeginSpecialReg {
					if r, ok := remap[dst]; ok {
						instrData[off+1] = r
					} else {
						instrData[off+1] = next
						remap[dst] = next
						next++
					}
				}
			case bytecode.OpRet:
				if r, ok := remap[instrData[off+1]]; ok {
					instrData[off+1] = r
				}
			case bytecode.OpIf:
				if r, ok := remap[instrData[off+1]]; ok {
					instrData[off+1] = r
				}
			}
		}
		f.RegisterFileSize = next
	}
}

// Get finishes the executable: it formalizes register numbers, then checks
// that every register is defined before use and that indices, offsets and
// register files are valid. Errors name the function and the instruction.
// The builder stays usable; later changes do not affect the result.
func (b *execBuilder) Get() (*Executable, error) {
	if b.err != nil {
		return nil, b.err
	}
	e := &Executable{
		funcs:       make([]FuncInfo, len(b.funcs)),
		funcMap:     make(map[string]int, len(b.funcs)),
		constants:   append([]Value(nil), b.constants...),
		instrOffset: append([]execWord(nil), b.instrOffset...),
		instrData:   append([]execWord(nil), b.instrData...),
	}
	for i, f := range b.funcs {
		e.funcs[i] = f.clone()
		e.funcMap[f.Name] = i
	}
	for idx, s := range b.scopes {
		e.scopes = append(e.scopes, MemoryScope{ConstIndex: idx, Scope: s})
	}
	sort.Slice(e.scopes, func(i, j int) bool { return e.scopes[i].ConstIndex < e.scopes[j].ConstIndex })
	formalize(e.funcs, e.instrOffset, e.instrData)
	for _, f := range e.funcs {
		if f.Kind == FuncKindVM && f.NumArgs >= 0 && (f.StartInstr >= f.EndInstr) {
			return nil, fmt.Errorf("runtime: %w: function %q has no instructions (EndFunction not called?)", ErrInvalidExecutable, f.Name)
		}
	}
	if err := e.validateShape(); err != nil {
		return nil, err
	}
	if err := e.checkDefUse(); err != nil {
		return nil, err
	}
	if err := e.validate(); err != nil {
		return nil, err
	}
	return e, nil
}

// validateShape checks only that instructions decode and function ranges are
// in bounds, so checkDefUse can walk them safely.
func (e *Executable) validateShape() error {
	for i, off := range e.instrOffset {
		if _, err := bytecode.InstrWords(e.instrData, off); err != nil {
			return invalidf("instruction %d: %v", i, err)
		}
	}
	n := int64(len(e.instrOffset))
	for _, f := range e.funcs {
		if f.Kind == FuncKindVM && (f.StartInstr < 0 || f.EndInstr > n || f.StartInstr > f.EndInstr) {
			return invalidf("function %q: instruction range [%d, %d) outside the %d instructions", f.Name, f.StartInstr, f.EndInstr, n)
		}
	}
	return nil
}
