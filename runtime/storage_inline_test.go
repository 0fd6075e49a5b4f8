package runtime

import (
	"testing"
	"unsafe"
)

// TestNewStorageInline checks storages of every size class up to past a page:
// length, zeroed bytes, 64-byte alignment, bytes of their own (filled while
// all are alive, each keeps its fill), and one allocation (header and bytes
// together) where the size allows it.
func TestNewStorageInline(t *testing.T) {
	sizes := []int64{0, 1, 48, 63, 64, 65, 127, 128, 129, 256, 511, 1000, 2048, 2049, 4095, 4096, 4097, 8191}
	var kept []*Storage
	for i, n := range sizes {
		s, err := NewStorage(n, CPU)
		if err != nil {
			t.Fatal(err)
		}
		if s.Size() != n {
			t.Fatalf("NewStorage(%d).Size() = %d", n, s.Size())
		}
		b := s.Bytes()
		for i, x := range b {
			if x != 0 {
				t.Fatalf("NewStorage(%d): byte %d = %d, want 0", n, i, x)
			}
		}
		if n > 0 && uintptr(unsafe.Pointer(&b[0]))%alignment != 0 {
			t.Fatalf("NewStorage(%d): bytes at %p, not %d-byte aligned", n, &b[0], alignment)
		}
		for j := range b {
			b[j] = byte(i + 1)
		}
		kept = append(kept, s)
		want := 1.0
		if n == 0 || n > pageSize {
			want = 2
		}
		got := testing.AllocsPerRun(20, func() { _, _ = NewStorage(n, CPU) })
		if got > want {
			t.Errorf("NewStorage(%d): %.1f allocations, want %.0f", n, got, want)
		}
	}
	for i, s := range kept {
		for j, x := range s.Bytes() {
			if x != byte(i+1) {
				t.Fatalf("storage %d (%d bytes): byte %d = %d, want %d: another storage wrote it", i, sizes[i], j, x, i+1)
			}
		}
	}
	shape := []int64{3, 4}
	tt, err := NewTensor(shape, Float32)
	if err != nil {
		t.Fatal(err)
	}
	if got := testing.AllocsPerRun(20, func() { _, _ = NewTensor(shape, Float32) }); got > 2 {
		t.Errorf("NewTensor: %.1f allocations, want 2 (the shape's copy; storage, header and bytes)", got)
	}
	if len(tt.Bytes()) != 48 {
		t.Fatalf("NewTensor: %d bytes", len(tt.Bytes()))
	}
}

func BenchmarkNewStorage(b *testing.B) {
	for _, n := range []int64{64, 4096, 65536} {
		b.Run(Shape{n}.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = NewStorage(n, CPU)
			}
		})
	}
}
