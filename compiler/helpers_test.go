package compiler_test

import (
	"testing"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/internal/conformance"
	"github.com/relaxgo/relaxgo/runtime"
)

// caseVM compiles a corpus case (with its params) and returns a bytecode VM
// for it. Cases with TIR functions are skipped: those run only as generated
// code (cmd/relaxgo's corpus test covers them).
func caseVM(tb testing.TB, c *conformance.Case) *runtime.VM {
	tb.Helper()
	opt := compiler.Options{}
	if p := c.ParamsPath(); p != "" {
		var err error
		if opt.Params, err = compiler.LoadParams(p); err != nil {
			tb.Fatal(err)
		}
	}
	res, err := compiler.CompileFile(c.ModulePath(), opt)
	if err != nil {
		tb.Fatal(err)
	}
	if len(res.Lowered.PrimFuncs()) > 0 {
		tb.Skip("TIR functions run only as generated code")
	}
	vm, err := runtime.NewVM(res.Exec)
	if err != nil {
		tb.Fatal(err)
	}
	return vm
}
