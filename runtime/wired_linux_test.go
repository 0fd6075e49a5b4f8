package runtime

import (
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/relaxgo/relaxgo/internal/bytecode"
)

func init() { MustRegister("test.vm.thread_hops", threadHops) }

// threadHops (test.vm.thread_hops) yields the processor many times and
// returns how often it came back on another OS thread.
func threadHops([]Value) (Value, error) {
	tid, hops := syscall.Gettid(), int64(0)
	for range 2000 {
		goruntime.Gosched()
		if t := syscall.Gettid(); t != tid {
			tid, hops = t, hops+1
		}
	}
	return hops, nil
}

// TestInvokeWiresThread checks that a top-level call runs on one OS thread
// from start to end (wireThread), however often its goroutine is
// descheduled, while other goroutines keep the other processors busy (an
// unwired goroutine then resumes on whichever thread finds it first).
func TestInvokeWiresThread(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(4))
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				goruntime.Gosched()
			}
		}()
	}
	defer wg.Wait()
	defer stop.Store(true)
	e := build(t, func(b *execBuilder) {
		fn(b, "main", 0, func() {
			b.EmitCall("test.vm.thread_hops", nil, 0)
			b.EmitRet(bytecode.Reg(0))
		})
	})
	vm := newVM(t, e)
	for range 3 {
		if hops := must[Value](t)(vm.Invoke("main")); hops != int64(0) {
			t.Fatalf("Invoke: the call moved between OS threads %v times, want 0", hops)
		}
		hops := must[Value](t)(vm.InvokeClosure(threadHops))
		if hops != int64(0) {
			t.Fatalf("InvokeClosure: the call moved between OS threads %v times, want 0", hops)
		}
	}
}
