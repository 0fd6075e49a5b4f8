package freelist

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

func TestAffineKeepsAcrossGC(t *testing.T) {
	made := 0
	a := Affine[*[]byte]{New: func() *[]byte { made++; b := make([]byte, 64); return &b }}
	x := a.Get()
	a.Put(x)
	runtime.GC()
	runtime.GC()
	if y := a.Get(); y != x || made != 1 {
		t.Fatalf("after two collections Get returned %p (made %d), want the object put, %p (made 1)", y, made, x)
	}
}

// TestAffineBounds runs on one processor, so every Put goes to one list.
func TestAffineBounds(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, tc := range []struct{ max, put, want int }{
		{0, DefaultMax + 5, DefaultMax},
		{3, 10, 3},
		{3, 2, 2},
	} {
		a := Affine[int]{Max: tc.max}
		for i := range tc.put {
			a.Put(i)
		}
		if got := a.Len(); got != tc.want {
			t.Errorf("Max %d, %d put: Len %d, want %d", tc.max, tc.put, got, tc.want)
		}
		if got := a.Get(); got != tc.want-1 {
			t.Errorf("Max %d: Get %d, want %d (last in, first out)", tc.max, got, tc.want-1)
		}
	}
}

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
	var a Affine[*int]
	if p := a.Get(); p != nil {
		t.Fatalf("empty Affine without New: Get %v, want nil", p)
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

// BenchmarkAffineGetPut is BenchmarkGetPut's List case on an Affine.
func BenchmarkAffineGetPut(b *testing.B) {
	a := Affine[*int]{New: func() *int { return new(int) }}
	b.Run("Affine", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			a.Put(a.Get())
		}
	})
	b.Run("Affine/parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				a.Put(a.Get())
			}
		})
	})
}
