package runtime

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestTensorAllocations pins the allocations behind a tensor: a storage
// carries its first tensor header, and the VM's views share their immutable
// shape, so an output tensor costs its storage and its bytes.
func TestTensorAllocations(t *testing.T) {
	shape := Shape{3, 4}
	for _, c := range []struct {
		name string
		max  float64
		f    func()
	}{
		{"NewTensor (storage+header, bytes, shape copy)", 3, func() { _, _ = NewTensor(shape, Float32) }},
		{"storage + VM view (storage+header, bytes)", 2, func() {
			s, _ := NewStorage(48, CPU)
			_, _ = s.viewTensor(0, shape, Float32)
		}},
		{"storage + AllocTensor (storage+header, bytes, shape copy)", 3, func() {
			s, _ := NewStorage(48, CPU)
			_, _ = s.AllocTensor(0, shape, Float32)
		}},
	} {
		if got := testing.AllocsPerRun(100, c.f); got > c.max {
			t.Errorf("%s: %v allocations, want at most %v", c.name, got, c.max)
		}
	}
}

// TestStorageViews checks that a storage's first view uses the embedded
// header and later views get their own, all over the right bytes, and that
// AllocTensor copies the shape while the VM's view shares it.
func TestStorageViews(t *testing.T) {
	s, err := NewStorage(64, CPU)
	if err != nil {
		t.Fatal(err)
	}
	shape := Shape{2, 2}
	a, err := s.viewTensor(0, shape, Float32)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.AllocTensor(16, shape, Float32)
	if err != nil {
		t.Fatal(err)
	}
	if a != &s.first || b == a {
		t.Fatalf("first view %p (storage header %p), second %p", a, &s.first, b)
	}
	a.Float32s()[3] = 7
	b.Float32s()[0] = 9
	if got := s.Bytes()[12:16]; got[3] != 0x40 || got[2] != 0xe0 {
		t.Errorf("first view's last element lands at bytes %x, want 7.0 (0x40e00000)", got)
	}
	if b.Float32s()[0] != 9 || a.Float32s()[3] != 7 {
		t.Error("views overlap")
	}
	if &a.Shape()[0] != &shape[0] {
		t.Error("the VM's view copied its immutable shape")
	}
	if &b.Shape()[0] == &shape[0] {
		t.Error("AllocTensor shares the caller's shape slice")
	}
	if _, err := s.viewTensor(60, shape, Float32); err == nil {
		t.Error("a view past the storage's end was accepted")
	}
}

// TestAllocationLimit checks that NewTensor and NewStorage refuse a single
// allocation past the default memory limit (a terabyte here) with ErrLimit
// instead of attempting it.
func TestAllocationLimit(t *testing.T) {
	if _, err := NewTensor([]int64{1 << 19, 1 << 19}, Float32); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "(524288, 524288)") {
		t.Errorf("NewTensor of 1 TiB: %v, want ErrLimit naming the shape", err)
	}
	if _, err := NewStorage(1<<40, CPU); !errors.Is(err, ErrLimit) {
		t.Errorf("NewStorage of 1 TiB: %v, want ErrLimit", err)
	}
	if l := defaultMemoryLimit(); l <= 0 || l >= 1<<40 {
		t.Errorf("default memory limit %d", l)
	}
}

// TestPooledViewsReused checks that a pooled storage hosting many tensors
// in one lease (a real network's plan puts dozens on one storage, several at
// the same offset and shape) hands their headers out again in later leases:
// after the first lease, a lease allocates nothing.
func TestPooledViewsReused(t *testing.T) {
	a, err := NewAllocator(PooledAllocator)
	if err != nil {
		t.Fatal(err)
	}
	shapes := []Shape{{2, 2}, {4}, {1, 4}}
	lease := func() {
		s, err := a.Alloc(4096, CPU)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 120; i++ { // more than the 32 an earlier cache held
			if _, err := s.viewTensor(int64(i%20)*16, shapes[i%3], Float32); err != nil {
				t.Fatal(err)
			}
		}
		a.Free(s)
	}
	lease()
	if got := testing.AllocsPerRun(20, lease); got != 0 {
		t.Errorf("a later lease allocated %v times, want 0", got)
	}
}

// TestPooledViewsAnyOrder checks the header cache whatever order a lease
// asks in (the lookup starts past its last hit, Storage.next): each lease
// gets distinct headers with the offsets and shapes it asked for, and no
// lease after the first allocates, in the order of the first lease, in
// reverse, rotated, and with 256 headers (the cursor wraps).
func TestPooledViewsAnyOrder(t *testing.T) {
	shapes := []Shape{{2, 2}, {4}, {1, 4}}
	for _, c := range []struct {
		name  string
		n     int
		order func(i, n int) int
	}{
		{"same", 120, func(i, n int) int { return i }},
		{"reversed", 120, func(i, n int) int { return n - 1 - i }},
		{"rotated", 120, func(i, n int) int { return (i + 37) % n }},
		{"full", maxCachedViews, func(i, n int) int { return (i + 200) % n }},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := NewAllocator(PooledAllocator)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[*Tensor]bool{}
			lease := func(order func(i, n int) int) {
				s, err := a.Alloc(8192, CPU)
				if err != nil {
					t.Fatal(err)
				}
				clear(seen)
				for i := 0; i < c.n; i++ {
					k := order(i, c.n)
					off, sh := int64(k%20)*16, shapes[k%3]
					v, err := s.viewTensor(off, sh, Float32)
					if err != nil {
						t.Fatal(err)
					}
					if v.offset != off || !Shape(v.shape).Equal(sh) || seen[v] {
						t.Fatalf("view %d: offset %d shape %v (reused %v), want offset %d shape %v", k, v.offset, v.shape, seen[v], off, sh)
					}
					seen[v] = true
				}
				a.Free(s)
			}
			lease(func(i, n int) int { return i })
			if got := testing.AllocsPerRun(10, func() { lease(c.order) }); got != 0 {
				t.Errorf("a later lease allocated %v times, want 0", got)
			}
		})
	}
}

// TestNewViewSetsEveryField: newView sets a header's fields one by one
// (not a struct store, which takes the collector's bulk barrier), so a
// field added to Tensor must be set there too; and a view on a storage
// whose first header was used before is still the tensor it asks for.
func TestNewViewSetsEveryField(t *testing.T) {
	if n := reflect.TypeOf(Tensor{}).NumField(); n != 7 {
		t.Fatalf("Tensor has %d fields; newView sets 7 one by one: set the new ones there and update this count", n)
	}
	s, err := NewStorage(256, CPU)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		off   int64
		shape []int64
		dt    DataType
	}{{0, []int64{2, 3}, Float32}, {64, []int64{5}, Int64}} {
		v, err := s.newView(c.off, c.shape, c.dt)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := NumBytes(c.shape, c.dt)
		want := Tensor{dtype: c.dt, shape: c.shape, data: s.data[c.off : c.off+n : c.off+n], storage: s, offset: c.off, device: s.device}
		if !reflect.DeepEqual(*v, want) {
			t.Errorf("view %d: %+v, want %+v", i, *v, want)
		}
	}
}
