package tensorio

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

var allDTypes = []runtime.DataType{
	runtime.Bool, runtime.Int8, runtime.Int16, runtime.Int32, runtime.Int64,
	runtime.UInt8, runtime.UInt16, runtime.UInt32, runtime.UInt64,
	runtime.Float16, runtime.Float32, runtime.Float64, runtime.BFloat16,
}

var testShapes = [][]int64{
	{},        // scalar
	{0},       // empty
	{3, 0, 2}, // empty, multi-dim
	{5},
	{2, 3},
	{2, 3, 4},
	{1, 1, 1, 7},
}

// filled returns a tensor of shape and dt whose bytes follow a pattern that
// depends on seed (bools are 0 or 1).
func filled(t testing.TB, shape []int64, dt runtime.DataType, seed int) *runtime.Tensor {
	t.Helper()
	x, err := runtime.NewTensor(shape, dt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range x.Bytes() {
		v := byte(i*31 + seed*7 + 1)
		if dt == runtime.Bool {
			v &= 1
		}
		x.Bytes()[i] = v
	}
	return x
}

func sameTensor(t testing.TB, what string, got, want *runtime.Tensor) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: missing tensor", what)
	}
	if got.DType() != want.DType() || !reflect.DeepEqual(got.Shape(), want.Shape()) {
		t.Fatalf("%s: got %s, want %s", what, got, want)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("%s: data differ:\n got %v\nwant %v", what, got.Bytes(), want.Bytes())
	}
}

func sameArchive(t testing.TB, got, want *Archive) {
	t.Helper()
	if !reflect.DeepEqual(got.Names(), want.Names()) {
		t.Fatalf("names: got %q, want %q", got.Names(), want.Names())
	}
	for _, n := range want.Names() {
		g, _ := got.Get(n)
		w, _ := want.Get(n)
		sameTensor(t, n, g, w)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, dt := range allDTypes {
		for _, shape := range testShapes {
			name := fmt.Sprintf("%s%s", dt, shapeString(shape))
			t.Run(name, func(t *testing.T) {
				x := filled(t, shape, dt, len(shape))
				a := &Archive{}
				if err := a.Add("x", x); err != nil {
					t.Fatal(err)
				}
				if err := a.Add("y.z/w", filled(t, []int64{2}, dt, 3)); err != nil {
					t.Fatal(err)
				}

				var st bytes.Buffer
				if err := WriteSafetensors(&st, a); err != nil {
					t.Fatal(err)
				}
				if hl := int64(st.Len()) - x.NBytes() - 2*int64(dt.ElemBytes()); hl%8 != 0 {
					t.Errorf("data buffer starts at byte %d, not a multiple of 8", hl)
				}
				b, err := ReadSafetensors(bytes.NewReader(st.Bytes()), int64(st.Len()))
				if err != nil {
					t.Fatalf("safetensors: %v", err)
				}
				sameArchive(t, b, a)

				if dt == runtime.BFloat16 {
					if err := WriteNPY(&bytes.Buffer{}, x); err == nil || !strings.Contains(err.Error(), "bfloat16") {
						t.Errorf("WriteNPY(bfloat16) = %v, want an error naming bfloat16", err)
					}
					if err := WriteNPZ(&bytes.Buffer{}, a); err == nil {
						t.Errorf("WriteNPZ(bfloat16) succeeded")
					}
					return
				}

				var npy bytes.Buffer
				if err := WriteNPY(&npy, x); err != nil {
					t.Fatal(err)
				}
				if hl := npy.Len() - len(x.Bytes()); hl%64 != 0 {
					t.Errorf("npy data starts at byte %d, not a multiple of 64", hl)
				}
				y, err := ReadNPY(bytes.NewReader(npy.Bytes()))
				if err != nil {
					t.Fatalf("npy: %v", err)
				}
				sameTensor(t, "npy", y, x)
				// A reader that does not tell its length takes another path.
				y, err = ReadNPY(struct{ *bytes.Reader }{bytes.NewReader(npy.Bytes())})
				if err != nil {
					t.Fatalf("npy (unsized reader): %v", err)
				}
				sameTensor(t, "npy (unsized reader)", y, x)

				var npz bytes.Buffer
				if err := WriteNPZ(&npz, a); err != nil {
					t.Fatal(err)
				}
				c, err := ReadNPZ(bytes.NewReader(npz.Bytes()), int64(npz.Len()))
				if err != nil {
					t.Fatalf("npz: %v", err)
				}
				sameArchive(t, c, a)
			})
		}
	}
}

func TestOrderAndMetadata(t *testing.T) {
	a := &Archive{Metadata: map[string]string{"format": "pt", "note": `quotes " and <tags> & ünïcode`}}
	for i, n := range []string{"zeta", "alpha", "mid", "__x", "ünï"} {
		dt := allDTypes[i%len(allDTypes)]
		if err := a.Add(n, filled(t, []int64{int64(i + 1), 3}, dt, i)); err != nil {
			t.Fatal(err)
		}
	}
	var st bytes.Buffer
	if err := WriteSafetensors(&st, a); err != nil {
		t.Fatal(err)
	}
	b, err := ReadSafetensors(bytes.NewReader(st.Bytes()), int64(st.Len()))
	if err != nil {
		t.Fatal(err)
	}
	sameArchive(t, b, a)
	if !reflect.DeepEqual(b.Metadata, a.Metadata) {
		t.Errorf("metadata: got %v, want %v", b.Metadata, a.Metadata)
	}

	dir := t.TempDir()
	p := filepath.Join(dir, "out.npz")
	if err := WriteNPZFile(p, a); err != nil {
		t.Fatal(err)
	}
	c, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sameArchive(t, c, a)
	if c.Metadata != nil {
		t.Errorf("npz metadata = %v, want nil", c.Metadata)
	}
	// Identical archives give identical bytes.
	var n1, n2 bytes.Buffer
	if err := WriteNPZ(&n1, a); err != nil {
		t.Fatal(err)
	}
	if err := WriteNPZ(&n2, c); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(n1.Bytes(), n2.Bytes()) {
		t.Error("WriteNPZ is not deterministic")
	}

	sp := filepath.Join(dir, "w.SafeTensors")
	if err := os.WriteFile(sp, st.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := ReadFile(sp)
	if err != nil {
		t.Fatal(err)
	}
	sameArchive(t, d, a)
}

func TestArchive(t *testing.T) {
	var a Archive
	if a.Len() != 0 || len(a.Names()) != 0 {
		t.Fatal("zero Archive not empty")
	}
	if _, ok := a.Get("x"); ok {
		t.Fatal("Get on empty archive found a tensor")
	}
	x := filled(t, []int64{2}, runtime.Float32, 0)
	if err := a.Add("x", x); err != nil {
		t.Fatal(err)
	}
	if err := a.Add("x", x); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("duplicate Add: %v", err)
	}
	if err := a.Add("", x); err == nil {
		t.Error("Add with empty name succeeded")
	}
	if err := a.Add("n", nil); err == nil {
		t.Error("Add of nil tensor succeeded")
	}
	if got, ok := a.Get("x"); !ok || got != x {
		t.Error("Get does not return the added tensor")
	}
	names := a.Names()
	names[0] = "changed"
	if a.Names()[0] != "x" || a.Len() != 1 {
		t.Error("Names aliases the archive's order")
	}
	if err := a.Add(metadataKey, x); err != nil {
		t.Fatal(err)
	}
	if err := WriteSafetensors(&bytes.Buffer{}, &a); err == nil {
		t.Error("WriteSafetensors accepted a tensor named __metadata__")
	}
}

func TestReadFileExtension(t *testing.T) {
	for _, p := range []string{"x.npy", "x.bin", "x"} {
		if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), "format") {
			t.Errorf("ReadFile(%q) = %v, want a format error", p, err)
		}
	}
	_, err := ReadFile(filepath.Join(t.TempDir(), "missing.npz"))
	if !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

// TestWriteNPZFileFailure checks that a failed write leaves no file behind.
func TestWriteNPZFileFailure(t *testing.T) {
	a := &Archive{}
	if err := a.Add("b", filled(t, []int64{2}, runtime.BFloat16, 0)); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "bad.npz")
	if err := WriteNPZFile(p, a); err == nil {
		t.Fatal("WriteNPZFile succeeded with a bfloat16 tensor")
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("partial file left behind: %v", err)
	}
}
