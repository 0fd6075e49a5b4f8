package compiler_test

import (
	"fmt"
	"testing"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/conformance"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestCorpusInProcess compiles every corpus case without TIR functions and
// runs its calls on the bytecode VM in process.
func TestCorpusInProcess(t *testing.T) {
	dir := conformance.Dir()
	if dir == "" {
		t.Skip("no corpus")
	}
	cases, err := conformance.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	conformance.RegisterPacked()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			opt := compiler.Options{}
			if p := c.ParamsPath(); p != "" {
				if opt.Params, err = compiler.LoadParams(p); err != nil {
					t.Fatal(err)
				}
			}
			res, err := compiler.CompileFile(c.ModulePath(), opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Lowered.PrimFuncs()) > 0 {
				t.Skip("TIR functions run only as generated code")
			}
			vm, err := runtime.NewVM(res.Exec)
			if err != nil {
				t.Fatal(err)
			}
			for i, call := range c.Calls {
				t.Run(fmt.Sprintf("call%d", i), func(t *testing.T) {
					args, io, err := c.Inputs(call)
					if err != nil {
						t.Fatal(err)
					}
					v, err := vm.Invoke(call.Func, args...)
					if call.Error != "" {
						if err := conformance.CheckError(call, err); err != nil {
							t.Fatal(err)
						}
						t.Logf("expected error: %v", err)
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if err := c.Check(call, io, v); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}
