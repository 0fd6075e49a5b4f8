package freelist

import (
	"runtime"
	"sync"
	"testing"
)

func TestListKeepsAcrossGC(t *testing.T) {
	made := 0
	l := List[*[]byte]{New: func() *[]byte { made++; b := make([]byte, 64); return &b }}
	a := l.Get()
	l.Put(a)
	runtime.GC()
	runtime.GC() // sync.Pool would have dropped a by now
	if b := l.Get(); b != a || made != 1 {
		t.Fatalf("after two collections Get returned %p (made %d), want the object put, %p (made 1)", b, made, a)
	}
}

func TestListBounds(t *testing.T) {
	tests := []struct{ max, put, want int }{
		{0, DefaultMax + 5, DefaultMax},
		{3, 10, 3},
		{3, 2, 2},
	}
	for _, tc := range tests {
		l := List[int]{Max: tc.max}
		for i := range tc.put {
			l.Put(i)
		}
		if got := l.Len(); got != tc.want {
			t.Errorf("Max %d, %d put: Len %d, want %d", tc.max, tc.put, got, tc.want)
		}
		// Last in, first out: the most recently used object is warmest.
		if got := l.Get(); got != tc.want-1 {
			t.Errorf("Max %d: Get %d, want %d", tc.max, got, tc.want-1)
		}
	}
}

func TestListZeroWithoutNew(t *testing.T) {
	var l List[*int]
	if p := l.Get(); p != nil {
		t.Fatalf("empty List without New: Get %v, want nil", p)
	}
}

func TestListConcurrent(t *testing.T) {
	l := List[*int]{New: func() *int { return new(int) }}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				p := l.Get()
				*p++
				l.Put(p)
			}
		}()
	}
	wg.Wait()
	if l.Len() > DefaultMax {
		t.Fatalf("Len %d > %d", l.Len(), DefaultMax)
	}
}

// BenchmarkGetPut times a Get and a Put against sync.Pool's, from one
// goroutine and from GOMAXPROCS at once (the kernels take a few of each
// per operator).
func BenchmarkGetPut(b *testing.B) {
	l := List[*int]{New: func() *int { return new(int) }}
	p := sync.Pool{New: func() any { return new(int) }}
	for _, c := range []struct {
		name string
		fn   func()
	}{
		{"List", func() { l.Put(l.Get()) }},
		{"sync.Pool", func() { p.Put(p.Get()) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c.fn()
			}
		})
		b.Run(c.name+"/parallel", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					c.fn()
				}
			})
		})
	}
}
