package vmtir

import (
	"fmt"

	"github.com/relaxgo/relaxgo/internal/bytecode"
	"github.com/relaxgo/relaxgo/internal/rtlink"
	"github.com/relaxgo/relaxgo/runtime"
)

// ExecBuilder assembles a runtime.Executable instruction by instruction
// (TVM's relax.ExecBuilder, which TVM also keeps with code generation). It
// formalizes registers, deduplicates constants (small integers become
// immediates) and, in Get, checks the result with the same validation the
// loader applies to executable files. Methods return an error and also
// remember the first one, so a caller may check each call or only Get's.
//
// The builder takes ownership of the constants passed to ConvertConstant:
// tensors are not copied and must not be modified afterwards.
//
// The assembling code lives in package runtime, next to the executable's
// unexported representation and its validation, and is reached through
// internal/rtlink; runtime's public API has no builder.
type ExecBuilder struct{ b rtlink.ExecBuilder }

// NewExecBuilder returns an empty builder.
func NewExecBuilder() *ExecBuilder { return &ExecBuilder{rtlink.NewExecBuilder()} }

// DeclareFunction adds name to the function table with the given kind (a
// forward declaration). Declaring an existing name again is a no-op when the
// kind agrees and an error otherwise.
func (b *ExecBuilder) DeclareFunction(name string, kind runtime.FuncKind) error {
	return b.b.DeclareFunction(name, int32(kind))
}

// EmitFunction starts the body of a Relax function (declaring it if needed).
func (b *ExecBuilder) EmitFunction(name string, numInputs int64, paramNames []string, kind runtime.FuncKind, initRegisterSize int64) error {
	return b.b.EmitFunction(name, numInputs, paramNames, int32(kind), initRegisterSize)
}

// EndFunction ends the body of function name.
func (b *ExecBuilder) EndFunction(name string) error { return b.b.EndFunction(name) }

// EmitCallIdx emits a call of function-table entry funcIdx.
func (b *ExecBuilder) EmitCallIdx(funcIdx int64, args []bytecode.Arg, dst int64) error {
	return b.b.EmitCallIdx(funcIdx, args, dst)
}

// EmitRet emits a return of result (a register).
func (b *ExecBuilder) EmitRet(result bytecode.Arg) error { return b.b.EmitRet(result) }

// EmitGoto emits a relative jump.
func (b *ExecBuilder) EmitGoto(pcOffset int64) error { return b.b.EmitGoto(pcOffset) }

// EmitIf emits a conditional jump by falseOffset when cond (a register) is zero.
func (b *ExecBuilder) EmitIf(cond bytecode.Arg, falseOffset int64) error {
	return b.b.EmitIf(cond, falseOffset)
}

// ConvertConstant returns the argument for constant v: an immediate for an
// integer that fits, otherwise a constant-pool entry (structurally equal
// constants share one entry).
func (b *ExecBuilder) ConvertConstant(v runtime.Value) (bytecode.Arg, error) {
	return b.b.ConvertConstant(v)
}

// Get formalizes and validates the executable.
func (b *ExecBuilder) Get() (*runtime.Executable, error) {
	e, err := b.b.Get()
	if err != nil {
		return nil, err
	}
	exec, ok := e.(*runtime.Executable)
	if !ok {
		return nil, fmt.Errorf("vmtir: builder returned %T", e)
	}
	return exec, nil
}
