package main

import (
	"sync"
	"testing"

	"github.com/relaxgo/relaxgo/examples/internal/demo"
	"github.com/relaxgo/relaxgo/examples/transformer/model"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestConcurrentCalls shares one Model between goroutines (each call runs on
// a pooled VM, and the kernels share the worker pool) and checks every
// result against a call made alone.
func TestConcurrentCalls(t *testing.T) {
	m := demo.Load(t, model.New)
	x := demo.Input(1, 8, 32)
	want, err := m.Main(x)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				got, err := m.Main(x)
				if err != nil {
					errs <- err.Error()
					return
				}
				if !runtime.ValuesEqual(got, want) {
					errs <- "a concurrent call gave a different result"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
