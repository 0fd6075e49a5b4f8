package freelist

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestAffineSlotStable: one processor keeps its slot from call to call.
func TestAffineSlotStable(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	s := slot()
	for range 1000 {
		if got := slot(); got != s {
			t.Fatalf("slot %d, then %d, on one processor", s, got)
		}
	}
}

// TestAffineTakesFromOtherSlots: an object put by another processor is
// still handed out before New makes one.
func TestAffineTakesFromOtherSlots(t *testing.T) {
	for i := range AffineSlots {
		a := Affine[*int]{New: func() *int { t.Fatal("New called with an object on a list"); return nil }}
		p := new(int)
		a.slots[i].l.Put(p)
		if got := a.Get(); got != p {
			t.Fatalf("object on slot %d: Get %p, want %p", i, got, p)
		}
	}
}

// TestAffineConcurrent checks that no object is handed to two holders at
// once, from goroutines on every processor.
func TestAffineConcurrent(t *testing.T) {
	type obj struct{ held atomic.Bool }
	a := Affine[*obj]{New: func() *obj { return new(obj) }}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				o := a.Get()
				if !o.held.CompareAndSwap(false, true) {
					t.Error("an object handed out twice at once")
					return
				}
				runtime.Gosched()
				o.held.Store(false)
				a.Put(o)
			}
		}()
	}
	wg.Wait()
	if n := a.Len(); n > AffineSlots*DefaultMax {
		t.Fatalf("Len %d > %d", n, AffineSlots*DefaultMax)
	}
}
