package main

import (
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/examples/internal/demo"
	"github.com/relaxgo/relaxgo/examples/mlp/model"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestBadInputs checks that the generated API refuses bad arguments with the
// same clear error in both modes, never a panic.
func TestBadInputs(t *testing.T) {
	m := demo.Load(t, model.Default)
	vm, err := m.NewVM()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		x    *runtime.Tensor
		want string
	}{
		{"nil", nil, "got nil Tensor"},
		{"dtype", runtime.MustNewTensor([]int64{4, 64}, runtime.Int32), "dtype mismatch: expected float32, got int32"},
		{"rank", runtime.MustNewTensor([]int64{4, 64, 1}, runtime.Float32), "ndim"},
		{"shape", runtime.MustNewTensor([]int64{4, 63}, runtime.Float32), "shape mismatch at dim 1: expected 64, got 63"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, cerr := model.Main(tc.x)
			_, berr := vm.Invoke("main", tc.x)
			if cerr == nil || berr == nil {
				t.Fatalf("accepted: compiled %v, bytecode %v", cerr, berr)
			}
			if !strings.Contains(cerr.Error(), tc.want) || cerr.Error() != berr.Error() {
				t.Errorf("compiled: %v\nbytecode: %v\nwant both to contain %q and agree", cerr, berr, tc.want)
			}
		})
	}
}
