package freelist

import (
	"runtime"
	"sync"
	"testing"
)

// freeLister is what List and Affine share, for the tests both take.
type freeLister[T any] interface {
	Get() T
	Put(T)
	Len() int
}

// lists makes a List and an Affine with New and Max.
func lists[T any](newFn func() T, max int) map[string]freeLister[T] {
	return map[string]freeLister[T]{
		"List":   &List[T]{New: newFn, Max: max},
		"Affine": &Affine[T]{New: newFn, Max: max},
	}
}

func TestKeepsAcrossGC(t *testing.T) {
	made := 0
	for name, l := range lists(func() *[]byte { made++; b := make([]byte, 64); return &b }, 0) {
		made = 0
		a := l.Get()
		l.Put(a)
		runtime.GC()
		runtime.GC() // sync.Pool would have dropped a by now
		if b := l.Get(); b != a || made != 1 {
			t.Fatalf("%s: after two collections Get returned %p (made %d), want the object put, %p (made 1)", name, b, made, a)
		}
	}
}

// TestBounds runs on one processor, so that an Affine's Puts all go to
// one list.
func TestBounds(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	tests := []struct{ max, put, want int }{
		{0, DefaultMax + 5, DefaultMax},
		{3, 10, 3},
		{3, 2, 2},
	}
	for _, tc := range tests {
		for name, l := range lists[int](nil, tc.max) {
			for i := range tc.put {
				l.Put(i)
			}
			if got := l.Len(); got != tc.want {
				t.Errorf("%s: Max %d, %d put: Len %d, want %d", name, tc.max, tc.put, got, tc.want)
			}
			// Last in, first out: the most recently used object is warmest.
			if got := l.Get(); got != tc.want-1 {
				t.Errorf("%s: Max %d: Get %d, want %d", name, tc.max, got, tc.want-1)
			}
		}
	}
}

func TestZeroWithoutNew(t *testing.T) {
	for name, l := range lists[*int](nil, 0) {
		if p := l.Get(); p != nil {
			t.Fatalf("empty %s without New: Get %v, want nil", name, p)
		}
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
	a := Affine[*int]{New: func() *int { return new(int) }}
	p := sync.Pool{New: func() any { return new(int) }}
	for _, c := range []struct {
		name string
		fn   func()
	}{
		{"List", func() { l.Put(l.Get()) }},
		{"Affine", func() { a.Put(a.Get()) }},
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
