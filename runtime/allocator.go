package runtime

import (
	"fmt"
	"sync"
	"weak"
)

// AllocatorType selects a VM's memory allocator, numbered as TVM's AllocatorType.
type AllocatorType int

// Allocator types.
const (
	// NaiveAllocator allocates every storage fresh and leaves freeing to the GC.
	NaiveAllocator AllocatorType = 1
	// PooledAllocator rounds a request under a 4096-byte page up to a
	// multiple of 64 bytes and a larger one up to whole pages (TVM rounds
	// every request to pages), and recycles freed storages by exact rounded
	// size (TVM's default allocator).
	PooledAllocator AllocatorType = 2
)

// String names the allocator type.
func (t AllocatorType) String() string {
	switch t {
	case NaiveAllocator:
		return "naive"
	case PooledAllocator:
		return "pooled"
	}
	return fmt.Sprintf("allocator(%d)", int(t))
}

// pageSize is the pooled allocator's rounding granularity for requests of a
// page or more (TVM's rounding).
const pageSize = 4096

// Allocator hands out aligned storages. Storages are returned with Free when
// the VM knows they are dead; Clear drops everything cached.
type Allocator interface {
	// Alloc returns a storage of at least nbytes on dev. Pooled storages may
	// hold stale data.
	Alloc(nbytes int64, dev Device) (*Storage, error)
	// Free returns s to the allocator; s must not be used afterwards.
	Free(s *Storage)
	// Clear releases every cached storage.
	Clear()
	// UsedMemory is the number of bytes allocated and not released by Clear.
	UsedMemory() int64
	// Type is the allocator's kind.
	Type() AllocatorType
}

// NewAllocator returns a fresh allocator of type t.
func NewAllocator(t AllocatorType) (Allocator, error) {
	switch t {
	case NaiveAllocator:
		return &naiveAllocator{}, nil
	case PooledAllocator:
		p := &pooledAllocator{pool: map[int64][]*Storage{}}
		livePools.Lock()
		livePools.list = append(livePools.list, weak.Make(p))
		livePools.Unlock()
		return p, nil
	}
	return nil, fmt.Errorf("runtime: unknown allocator type %d (want 1 naive or 2 pooled)", int(t))
}

type naiveAllocator struct {
	mu   sync.Mutex
	used int64
}

// Alloc implements Allocator.
func (a *naiveAllocator) Alloc(nbytes int64, dev Device) (*Storage, error) {
	s, err := NewStorage(nbytes, dev)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.used += nbytes
	a.mu.Unlock()
	return s, nil
}

// Free implements Allocator.
func (a *naiveAllocator) Free(s *Storage) {
	if s == nil {
		return
	}
	a.mu.Lock()
	a.used -= s.Size()
	a.mu.Unlock()
}

// Clear implements Allocator.
func (a *naiveAllocator) Clear() {}

// UsedMemory implements Allocator.
func (a *naiveAllocator) UsedMemory() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.used
}

// Type implements Allocator.
func (a *naiveAllocator) Type() AllocatorType { return NaiveAllocator }

type pooledAllocator struct {
	mu   sync.Mutex
	pool map[int64][]*Storage // free storages by rounded size
	used int64
}

// roundPage rounds a request to the pool's size classes: a multiple of
// pageSize from one page up, as TVM does, and a multiple of alignment below,
// so a small result does not allocate and clear a whole page per call.
func roundPage(n int64) int64 {
	if n < pageSize {
		return (n + alignment - 1) / alignment * alignment
	}
	return (n + pageSize - 1) / pageSize * pageSize
}

// Alloc implements Allocator.
func (a *pooledAllocator) Alloc(nbytes int64, dev Device) (*Storage, error) {
	if nbytes < 0 || nbytes > maxAlloc {
		return nil, fmt.Errorf("runtime: storage size %d out of range", nbytes)
	}
	size := roundPage(nbytes)
	a.mu.Lock()
	if l := a.pool[size]; len(l) > 0 {
		s := l[len(l)-1]
		l[len(l)-1] = nil
		a.pool[size] = l[:len(l)-1]
		a.mu.Unlock()
		s.device = dev
		s.pooled = true
		s.lease++
		return s, nil
	}
	// A miss (a call's results, which the caller keeps, always miss):
	// count the new storage under the same lock, and take it back if it
	// cannot be made.
	a.used += size
	a.mu.Unlock()
	s, err := NewStorage(size, dev)
	if err != nil {
		a.mu.Lock()
		a.used -= size
		a.mu.Unlock()
		return nil, err
	}
	s.owner = a
	s.pooled = true
	return s, nil
}

// Free implements Allocator.
func (a *pooledAllocator) Free(s *Storage) {
	if s == nil || s.owner != a || !s.pooled {
		return
	}
	s.pooled = false // guards against double free
	// A tuple kept in the storage died with the activation that freed it.
	clearValues(s.tuple.elems[:])
	s.tuple.hdr, s.tupleUsed = nil, false
	a.mu.Lock()
	a.pool[s.Size()] = append(a.pool[s.Size()], s)
	a.mu.Unlock()
}

// Clear implements Allocator.
func (a *pooledAllocator) Clear() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for size, l := range a.pool {
		a.used -= size * int64(len(l))
	}
	clear(a.pool)
}

// UsedMemory implements Allocator.
func (a *pooledAllocator) UsedMemory() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.used
}

// Type implements Allocator.
func (a *pooledAllocator) Type() AllocatorType { return PooledAllocator }

// cached is the number of storages waiting in the free lists.
func (a *pooledAllocator) cached() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, l := range a.pool {
		n += len(l)
	}
	return n
}

// livePools tracks pooled allocators weakly so vm.builtin.memory_manager.clear
// can clear them all, as TVM's MemoryManager::Clear does.
var livePools struct {
	sync.Mutex
	list []weak.Pointer[pooledAllocator]
}

// clearAllocators releases the cached memory of every live pooled allocator
// (vm.builtin.memory_manager.clear).
func clearAllocators() {
	livePools.Lock()
	live := livePools.list[:0]
	var todo []*pooledAllocator
	for _, w := range livePools.list {
		if p := w.Value(); p != nil {
			live = append(live, w)
			todo = append(todo, p)
		}
	}
	clear(livePools.list[len(live):])
	livePools.list = live
	livePools.Unlock()
	for _, p := range todo {
		p.Clear()
	}
}
