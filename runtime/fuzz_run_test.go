package runtime_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/relaxgo/relaxgo/kernels" // registers the kernels the executables call
	"github.com/relaxgo/relaxgo/runtime"
)

// FuzzRunExecutable loads arbitrary bytes as an executable and, when they
// load, runs every function on small tensors under an instruction limit, a
// memory limit and a call-depth limit. Errors are expected; a panic (which
// Invoke turns into an error saying "panic") or a hang is a bug. Seeds: the
// examples' executables.
func FuzzRunExecutable(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "examples", "*", "model", "model.vmexec"))
	seeds = append(seeds, filepath.Join("testdata", "golden.exec"))
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	argSets := [][]runtime.Value{
		{runtime.MustNewTensor([]int64{4, 64}, runtime.Float32)},
		{runtime.MustNewTensor([]int64{1, 8, 32}, runtime.Float32)},
		{runtime.MustNewTensor([]int64{4}, runtime.Float32), runtime.Scalar(int64(3))},
		{runtime.MustNewTensor([]int64{1, 3, 8, 8}, runtime.Float32)},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		exec, err := runtime.LoadExecutable(data)
		if err != nil {
			return
		}
		vm, err := runtime.NewVM(exec, runtime.WithInstructionLimit(200000), runtime.WithMemoryLimit(64<<20), runtime.WithMaxCallDepth(64))
		if err != nil {
			return
		}
		for i := 0; i < exec.NumFuncs(); i++ {
			fi, _ := exec.Func(i)
			if fi.Kind != runtime.FuncKindVM {
				continue
			}
			for _, args := range argSets {
				if int64(len(args)) != fi.NumArgs {
					continue
				}
				if _, err := vm.Invoke(fi.Name, args...); err != nil && strings.Contains(err.Error(), ": panic: ") {
					t.Fatalf("%s: %v", fi.Name, err)
				}
			}
		}
	})
}
