package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/examples/control/model"
	"github.com/relaxgo/relaxgo/examples/internal/demo"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestDeepRecursion runs power with n far beyond the call-depth limit: both
// modes stop at the limit with the same short error (its context is added
// once, not once per level, so a deep failure does not build a message or
// memory per level).
func TestDeepRecursion(t *testing.T) {
	m := demo.Load(t, model.New)
	x := runtime.MustNewTensor([]int64{4}, runtime.Float32)
	n, err := runtime.FromSlice([]int64{1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, newVM := range []func(...runtime.VMOption) (*runtime.VM, error){m.NewVM, m.NewCompiledVM} {
		vm, err := newVM(runtime.WithMaxCallDepth(3000))
		if err != nil {
			t.Fatal(err)
		}
		_, err = vm.Invoke("main", x, n)
		if err == nil || !strings.Contains(err.Error(), "maximum call depth 3000 exceeded") {
			t.Fatalf("error %v, want the depth limit", err)
		}
		if len(err.Error()) > 300 {
			t.Errorf("error message of %d bytes: %.300s...", len(err.Error()), err)
		}
		msgs = append(msgs, err.Error())
	}
	if msgs[0] != msgs[1] {
		t.Errorf("modes differ:\nbytecode: %s\ncompiled: %s", msgs[0], msgs[1])
	}
}

// countdownCtx is a context that reports itself cancelled from its n-th Err
// call on: a deterministic cancellation in the middle of a call.
type countdownCtx struct {
	context.Context
	n int
}

func (c *countdownCtx) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestCompiledContext checks that a compiled call stops when its context is
// cancelled during the call: power recurses 1000 times, the context cancels
// after 50 looks, and compiled functions look when they start.
func TestCompiledContext(t *testing.T) {
	m := demo.Load(t, model.New)
	vm, err := m.NewCompiledVM()
	if err != nil {
		t.Fatal(err)
	}
	x := runtime.MustNewTensor([]int64{4}, runtime.Float32)
	n, err := runtime.FromSlice([]int64{1000})
	if err != nil {
		t.Fatal(err)
	}
	ctx := &countdownCtx{Context: context.Background(), n: 50}
	_, err = vm.InvokeContext(ctx, "main", x, n)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "call stopped at power") {
		t.Fatalf("error %v, want the call stopped at power with context.Canceled", err)
	}
	if ctx.n > 0 {
		t.Errorf("the context was looked at %d times, want it to run out", 50-ctx.n)
	}
	// The VM is usable afterwards.
	if _, err := vm.Invoke("main", x, n); err != nil {
		t.Fatalf("after a cancelled call: %v", err)
	}
}
