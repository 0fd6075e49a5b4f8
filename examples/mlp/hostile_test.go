package main

import (
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"github.com/relaxgo/relaxgo/examples/internal/demo"
	"github.com/relaxgo/relaxgo/examples/mlp/model"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestMutatedExecutableSizes rewrites, one at a time, every 8-byte field of
// the model's executable that holds 512 (the byte size of its first
// storage) into 2^40, and runs each mutant that still loads: none may
// allocate a terabyte; the one whose storage grew must fail with the
// memory-limit error.
func TestMutatedExecutableSizes(t *testing.T) {
	orig, err := os.ReadFile("model/model.vmexec")
	if err != nil {
		t.Fatal(err)
	}
	x := demo.Input(4, 64)
	mutants, limited := 0, 0
	for off := 0; off+8 <= len(orig); off++ {
		if binary.LittleEndian.Uint64(orig[off:]) != 512 {
			continue
		}
		b := append([]byte(nil), orig...)
		binary.LittleEndian.PutUint64(b[off:], 1<<40)
		exec, err := runtime.LoadExecutable(b)
		if err != nil {
			continue
		}
		vm, err := runtime.NewVM(exec)
		if err != nil {
			continue
		}
		mutants++
		if _, err := vm.Invoke("main", x); errors.Is(err, runtime.ErrLimit) {
			limited++
		}
	}
	if mutants == 0 || limited == 0 {
		t.Fatalf("%d mutants loaded, %d hit the memory limit; want at least one of each", mutants, limited)
	}
}

// TestMemoryLimitOption checks WithMemoryLimit in both modes: a limit below
// what one call needs fails with ErrLimit, one above it lets every call of
// a long run through (the count restarts with each call).
func TestMemoryLimitOption(t *testing.T) {
	m := demo.Load(t, model.New)
	x := demo.Input(4, 64)
	for _, newVM := range []func(...runtime.VMOption) (*runtime.VM, error){m.NewVM, m.NewCompiledVM} {
		small, err := newVM(runtime.WithMemoryLimit(100))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := small.Invoke("main", x); !errors.Is(err, runtime.ErrLimit) {
			t.Errorf("limit 100 bytes: error %v, want ErrLimit", err)
		}
		enough, err := newVM(runtime.WithMemoryLimit(64 << 10))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			if _, err := enough.Invoke("main", x); err != nil {
				t.Fatalf("call %d under a 64 KiB limit: %v", i, err)
			}
		}
	}
}
