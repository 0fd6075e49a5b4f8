// Package freelist holds List, a bounded free list of reusable objects that,
// unlike sync.Pool, keeps them across garbage collections, and Affine, a
// List per processor for buffers that should stay with the thread (and
// core) that used them last.
package freelist

import "sync"

// DefaultMax is how many objects a List keeps when its Max is 0: a few per
// worker of a two- to eight-core machine, nested calls included.
const DefaultMax = 16

// List is a free list of objects (pointers) that are costly to make again:
// kernel jobs, scratch buffers, VMs with their storage pools. A sync.Pool
// drops its objects at every garbage collection, and a program that
// allocates a model's results collects every few dozen calls (a 128 KB
// result on a few MB of live heap); every pooled object was then made, and
// every scratch buffer cleared, again. A List keeps at most Max objects
// (DefaultMax if Max is 0) and drops what is put beyond that. Get makes an
// object with New when the list is empty (the zero T if New is nil). It is
// safe for concurrent use; the zero List is empty and ready.
type List[T any] struct {
	New func() T
	Max int

	mu   sync.Mutex
	free []T
}

// Get takes an object from the list, or makes one.
func (l *List[T]) Get() T {
	if x, ok := l.take(); ok {
		return x
	}
	return make0(l.New)
}

// take takes the object put last, if any.
func (l *List[T]) take() (T, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var zero T
	n := len(l.free)
	if n == 0 {
		return zero, false
	}
	x := l.free[n-1]
	l.free[n-1] = zero
	l.free = l.free[:n-1]
	return x, true
}

// make0 is newFn's object, or the zero T if newFn is nil.
func make0[T any](newFn func() T) T {
	if newFn == nil {
		var zero T
		return zero
	}
	return newFn()
}

// Put returns x to the list, unless it already holds its maximum.
func (l *List[T]) Put(x T) { l.put(x, l.Max) }

// put is Put with the maximum max (DefaultMax if max <= 0).
func (l *List[T]) put(x T, max int) {
	if max <= 0 {
		max = DefaultMax
	}
	l.mu.Lock()
	if len(l.free) < max {
		l.free = append(l.free, x)
	}
	l.mu.Unlock()
}

// Len is the number of objects waiting in the list.
func (l *List[T]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.free)
}
