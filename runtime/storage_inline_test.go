package runtime

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestNewStorageInline checks storages of every size class up to past a page:
// length, zeroed bytes, 64-byte alignment, bytes of their own (filled while
// all are alive, each keeps its fill), and one allocation (header and bytes
// together) where the size allows it.
func TestNewStorageInline(t *testing.T) {
	sizes := []int64{0, 1, 48, 63, 64, 65, 127, 128, 129, 256, 511, 1000, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 1 << 20, 3<<20 + 5}
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
		if n == 0 {
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

// TestLargeStorageGC keeps storages over a page alive only through their
// bytes (a slice into the object's byte array, as a tensor view holds) or
// only through their header, collects garbage between allocations, and
// requires every byte and header field to survive: the one-object large
// storages must be kept whole by either kind of pointer and never scanned
// as pointers in their bytes.
func TestLargeStorageGC(t *testing.T) {
	var bytesOnly [][]byte
	var headers []*Storage
	for i := 0; i < 40; i++ {
		n := int64(pageSize + 1 + i*3001)
		s, err := NewStorage(n, CPU)
		if err != nil {
			t.Fatal(err)
		}
		b := s.Bytes()
		for j := range b {
			b[j] = byte(i*7 + j) // values that look like nothing in particular
		}
		if i%2 == 0 {
			bytesOnly = append(bytesOnly, b[len(b)/2:])
		} else {
			headers = append(headers, s)
		}
		_ = make([]byte, 1<<16) // garbage between them
		if i%8 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	runtime.GC()
	for k, b := range bytesOnly {
		i := 2 * k
		off := (pageSize + 1 + i*3001) / 2
		for j := range b {
			if b[j] != byte(i*7+off+j) {
				t.Fatalf("storage %d, held by its bytes: byte %d changed", i, off+j)
			}
		}
	}
	for k, s := range headers {
		i := 2*k + 1
		if s.Size() != int64(pageSize+1+i*3001) || s.Device() != CPU {
			t.Fatalf("storage %d, held by its header: size %d, device %v", i, s.Size(), s.Device())
		}
		for j, x := range s.Bytes() {
			if x != byte(i*7+j) {
				t.Fatalf("storage %d, held by its header: byte %d changed", i, j)
			}
		}
	}
}
