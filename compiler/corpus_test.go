package compiler_test

import (
	"fmt"
	"testing"

	"github.com/relaxgo/relaxgo/internal/conformance"
)

// TestCorpusInProcess compiles every corpus case without TIR functions and
// runs its calls on the bytecode VM in process.
func TestCorpusInProcess(t *testing.T) {
	for _, c := range conformance.Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			vm := caseVM(t, c)
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
