package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/relaxgo/relaxgo/internal/bytecode"
)

// TestCopyFromNil: Tensor.CopyFrom(nil) returns an error instead of panicking.
func TestCopyFromNil(t *testing.T) {
	dst, err := NewTensor(Shape{2}, Float32)
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.CopyFrom(nil); err == nil {
		t.Fatal("CopyFrom(nil) returned no error")
	}
}

// spinExec is a program that never returns (`goto 1; goto -1`), which
// validation accepts.
func spinExec(t *testing.T) *Executable {
	return build(t, func(b *execBuilder) {
		fn(b, "main", 1, func() {
			b.EmitGoto(1)
			b.EmitGoto(-1)
			b.EmitRet(bytecode.Reg(0))
		})
	})
}

// TestInvokeContextStopsLoop checks that a bytecode loop that never ends
// is stopped by InvokeContext's deadline and by an instruction limit, with
// errors wrapping context.DeadlineExceeded and ErrLimit.
func TestInvokeContextStopsLoop(t *testing.T) {
	e := spinExec(t)
	vm, err := NewVM(e)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := vm.InvokeContext(ctx, "main", int64(1)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("InvokeContext: %v, want context.DeadlineExceeded", err)
	}
	done, stop := context.WithCancel(context.Background())
	stop()
	if _, err := vm.InvokeContext(done, "main", int64(1)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	limited, err := NewVM(e, WithInstructionLimit(100000))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the count starts again at every call
		if _, err := limited.Invoke("main", int64(1)); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "more than 100000 instructions") {
			t.Errorf("instruction limit: %v", err)
		}
	}
}
