package main

import (
	"context"
	"errors"
	"testing"

	"github.com/relaxgo/relaxgo/examples/internal/demo"
	"github.com/relaxgo/relaxgo/examples/mlp/model"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestTypedModes calls the typed API in both modes (WithMode) and with
// contexts: the modes agree bit for bit, a cancelled context stops a call in
// either mode with an error wrapping context.Canceled, and a live one does not.
func TestTypedModes(t *testing.T) {
	m := demo.Load(t, model.New)
	x := demo.Input(4, 64)
	bc := m.WithMode(runtime.Bytecode)
	if m.Mode() != runtime.Compiled || bc.Mode() != runtime.Bytecode || bc.WithMode(runtime.Compiled).Mode() != runtime.Compiled {
		t.Fatalf("modes: %v, %v", m.Mode(), bc.Mode())
	}
	want, err := m.Main(x)
	if err != nil {
		t.Fatal(err)
	}
	got, err := bc.Main(x)
	if err != nil {
		t.Fatal(err)
	}
	if !runtime.ValuesEqual(got, want) {
		t.Fatal("bytecode and compiled typed calls differ")
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	live, stop := context.WithCancel(context.Background())
	defer stop()
	for _, mm := range []*model.Model{m, bc} {
		if _, err := mm.MainContext(cancelled, x); !errors.Is(err, context.Canceled) {
			t.Errorf("%v mode, cancelled context: error %v, want context.Canceled", mm.Mode(), err)
		}
		r, err := mm.MainContext(live, x)
		if err != nil || !runtime.ValuesEqual(r, want) {
			t.Errorf("%v mode, live context: %v", mm.Mode(), err)
		}
	}
	if _, err := model.MainContext(cancelled, x); !errors.Is(err, context.Canceled) {
		t.Errorf("package-level MainContext, cancelled context: error %v", err)
	}
}
