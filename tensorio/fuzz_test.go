package tensorio

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/relaxgo/relaxgo/internal/corpus"
	"github.com/relaxgo/relaxgo/internal/golden"
	"github.com/relaxgo/relaxgo/runtime"
)

// The seed corpora live in testdata/fuzz/<Name>/ and are regenerated with
//
//	go test -run TestWriteFuzzSeeds ./tensorio/ -update
//
// Crashers found by fuzzing are committed there as well, under names that
// start with "crash-" (never overwritten by the generator).

// rewriteArchive reads data; when that succeeds it writes the archive, reads
// it back and checks the two agree. It returns both archives (nil when data
// does not read).
func rewriteArchive(t *testing.T, data []byte, read func(io.ReaderAt, int64) (*Archive, error), write func(io.Writer, *Archive) error) (*Archive, *Archive) {
	t.Helper()
	a, err := read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil
	}
	var b bytes.Buffer
	if err := write(&b, a); err != nil {
		t.Fatalf("read %q but cannot write it: %v", a.Names(), err)
	}
	a2, err := read(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatalf("cannot read what was written: %v", err)
	}
	sameArchive(t, a2, a)
	return a, a2
}

func FuzzReadSafetensors(f *testing.F) {
	for _, s := range safetensorsSeeds(f) {
		f.Add(s.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, a2 := rewriteArchive(t, data, ReadSafetensors, WriteSafetensors)
		if a != nil && len(a.Metadata) > 0 && !reflect.DeepEqual(a.Metadata, a2.Metadata) {
			t.Fatalf("metadata %v became %v", a.Metadata, a2.Metadata)
		}
	})
}

func FuzzReadNPY(f *testing.F) {
	for _, s := range npySeeds(f) {
		f.Add(s.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := ReadNPY(bytes.NewReader(data))
		y, err2 := ReadNPY(struct{ io.Reader }{bytes.NewReader(data)})
		if (err == nil) != (err2 == nil) {
			t.Fatalf("sized and unsized readers disagree: %v / %v", err, err2)
		}
		if err != nil {
			return
		}
		sameTensor(t, "unsized", y, x)
		var b bytes.Buffer
		if err := WriteNPY(&b, x); err != nil {
			t.Fatalf("read %s but cannot write it: %v", x, err)
		}
		z, err := ReadNPY(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("cannot read what WriteNPY wrote: %v", err)
		}
		sameTensor(t, "rewritten", z, x)
	})
}

func FuzzReadNPZ(f *testing.F) {
	for _, s := range npzSeeds(f) {
		f.Add(s.data)
	}
	for _, s := range npySeeds(f) {
		f.Add(s.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The CRC-32 makes mutated entry contents hard to reach through the
		// zip itself, so data is also tried as the contents of a stored
		// entry: it must read as ReadNPY reads it, when nothing trails it.
		z := zipFile(t, zipEntry{name: "x.npy", data: data})
		if a, err := ReadNPZ(bytes.NewReader(z), int64(len(z))); err == nil {
			x, _ := a.Get("x")
			y, err := ReadNPY(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("entry reads as %s, but ReadNPY fails: %v", x, err)
			}
			sameTensor(t, "entry", x, y)
		}

		rewriteArchive(t, data, ReadNPZ, WriteNPZ)
	})
}

type seed struct {
	name string
	data []byte
}

// seedArchive is a small archive of several dtypes and shapes.
func seedArchive(t testing.TB, dts []runtime.DataType) *Archive {
	a := &Archive{}
	shapes := [][]int64{{}, {3}, {2, 2}, {0, 2}}
	for i, dt := range dts {
		if err := a.Add(fmt.Sprintf("t%d_%s", i, dt), filled(t, shapes[i%len(shapes)], dt, i)); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

func safetensorsSeeds(t testing.TB) []seed {
	var out []seed
	a := seedArchive(t, allDTypes)
	a.Metadata = map[string]string{"format": "pt"}
	var b bytes.Buffer
	if err := WriteSafetensors(&b, a); err != nil {
		t.Fatal(err)
	}
	out = append(out, seed{"all-dtypes", b.Bytes()})
	for _, dt := range []runtime.DataType{runtime.Float32, runtime.BFloat16, runtime.Bool} {
		b := &bytes.Buffer{}
		if err := WriteSafetensors(b, seedArchive(t, []runtime.DataType{dt, dt})); err != nil {
			t.Fatal(err)
		}
		out = append(out, seed{"two-" + dt.String(), b.Bytes()})
	}
	out = append(out,
		seed{"empty", stFile("{}      ", nil)},
		seed{"out-of-order", stFile(`{"b":{"dtype":"U8","shape":[1],"data_offsets":[4,5]},"a":{"dtype":"I32","shape":[],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4, 5})},
		seed{"overlap", stFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, make([]byte, 8))},
		seed{"huge-shape", stFile(`{"a":{"dtype":"F32","shape":[100000000000],"data_offsets":[0,400000000000]}}`, make([]byte, 8))},
	)
	return out
}

func npySeeds(t testing.TB) []seed {
	var out []seed
	for i, dt := range allDTypes {
		if dt == runtime.BFloat16 {
			continue
		}
		var b bytes.Buffer
		if err := WriteNPY(&b, filled(t, [][]int64{{}, {3}, {2, 2}, {0, 2}}[i%4], dt, i)); err != nil {
			t.Fatal(err)
		}
		out = append(out, seed{dt.String(), b.Bytes()})
	}
	out = append(out,
		seed{"v2-big-endian", npyFile(2, npyHdr(">i4", "False", "(2,)"), []byte{0, 0, 0, 1, 0, 0, 0, 2})},
		seed{"v3-fortran", npyFile(3, npyHdr("<u2", "True", "(2, 3)"), make([]byte, 12))},
		seed{"python2", npyFile(1, "{\"descr\": \"|b1\", \"fortran_order\": False, \"shape\": (2L,)}", []byte{0, 3})},
		seed{"huge-shape", npyFile(1, npyHdr("|u1", "False", "(100000000000,)"), make([]byte, 8))},
		seed{"structured", npyFile(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }\n", make([]byte, 4))},
	)
	return out
}

func npzSeeds(t testing.TB) []seed {
	var out []seed
	var dts []runtime.DataType
	for _, dt := range allDTypes {
		if dt != runtime.BFloat16 {
			dts = append(dts, dt)
		}
	}
	var b bytes.Buffer
	if err := WriteNPZ(&b, seedArchive(t, dts)); err != nil {
		t.Fatal(err)
	}
	out = append(out, seed{"all-dtypes", b.Bytes()})
	good := npyFile(1, npyHdr("<f4", "False", "(3,)"), f32le(1, 2, 3))
	out = append(out,
		seed{"deflated", zipFile(t, zipEntry{name: "x.npy", data: good, method: zip.Deflate}, zipEntry{name: "d/"})},
		seed{"huge-shape", zipFile(t, zipEntry{name: "h.npy", data: npyFile(1, npyHdr("<f4", "False", "(100000000000,)"), nil), method: zip.Deflate})},
	)
	// A few real corpus files, when present.
	dir, _ := corpus.Find()
	for _, p := range []string{"if_branch/call0.npz", "recursion/call0.npz"} {
		if data, err := os.ReadFile(filepath.Join(dir, p)); dir != "" && err == nil {
			out = append(out, seed{"corpus-" + filepath.Dir(p), data})
		}
	}
	return out
}

// TestWriteFuzzSeeds regenerates the seed corpora under testdata/fuzz
// (with -update).
func TestWriteFuzzSeeds(t *testing.T) {
	if !golden.Updating() {
		t.Skip("run with -update to regenerate testdata/fuzz")
	}
	for name, seeds := range map[string][]seed{
		"FuzzReadSafetensors": safetensorsSeeds(t),
		"FuzzReadNPY":         npySeeds(t),
		"FuzzReadNPZ":         npzSeeds(t),
	} {
		for _, s := range seeds {
			golden.WriteFuzzSeed(t, name, "seed-"+s.name, s.data)
		}
	}
}
