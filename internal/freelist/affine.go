package freelist

import _ "unsafe" // go:linkname

// AffineSlots is how many lists an Affine keeps: one per processor (P) of a
// machine of up to that many threads; more processors share them.
const AffineSlots = 8

// Affine is a List per processor: Put keeps an object on the list of the
// processor (Go's P, which a running thread holds) that puts it, and Get
// looks there first, then at the other lists. Scratch buffers that the
// threads of a parallel kernel take and give back every call then stay
// with the thread, and in its core's cache, call after call; from one
// shared list a buffer went to whichever thread asked next, and its lines
// crossed between the cores each time (softmax attention's 128 KB of
// scores, 4 heads of 128 tokens at 2 threads: 91-101 µs a call through
// one List, 71-74 through an Affine, in the same hour). Like List, it
// keeps its objects across garbage collections (at most Max a processor)
// and is safe for concurrent use; the zero Affine is empty and ready.
type Affine[T any] struct {
	New func() T
	Max int

	slots [AffineSlots]affineSlot[T]
}

// affineSlot is one processor's List (its New and Max unused: Affine's
// apply), its lock on lines of its own.
type affineSlot[T any] struct {
	l List[T]
	_ [64]byte
}

// Get takes an object, from the calling processor's list if it has one,
// else from another's, else makes one with New (the zero T if New is nil).
func (a *Affine[T]) Get() T {
	s := slot()
	for i := 0; i < AffineSlots; i++ {
		if x, ok := a.slots[(s+i)%AffineSlots].l.take(); ok {
			return x
		}
	}
	return make0(a.New)
}

// Put returns x to the calling processor's list, or drops it if that list
// holds Max objects already.
func (a *Affine[T]) Put(x T) { a.slots[slot()].l.put(x, a.Max) }

// Len reports how many objects the lists hold.
func (a *Affine[T]) Len() int {
	n := 0
	for i := range a.slots {
		n += a.slots[i].l.Len()
	}
	return n
}

// slot is the calling processor's slot: its P's index (runtime.procPin,
// which sync.Pool uses for the same purpose; the runtime keeps it for
// packages that link to it, go.dev/issue/67401). A sync.Pool of slot
// tokens gave the same affinity, but a sync.Pool allocates its
// per-processor array again after every collection: an allocation a cycle
// in a loop of model calls that allocate only their results.
func slot() int {
	p := procPin()
	procUnpin()
	return p % AffineSlots
}

//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()
