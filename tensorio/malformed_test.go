package tensorio

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// stFile assembles a safetensors file from a header and a data buffer.
func stFile(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	b = append(b, header...)
	return append(b, data...)
}

// npyFile assembles a .npy file of the given major version from a header
// dict and data.
func npyFile(major byte, header string, data []byte) []byte {
	b := []byte(npyMagic)
	b = append(b, major, 0)
	if major == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(header)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(header)))
	}
	b = append(b, header...)
	return append(b, data...)
}

func npyHdr(descr, fortran, shape string) string {
	return fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }\n", descr, fortran, shape)
}

type zipEntry struct {
	name   string
	data   []byte
	method uint16
}

// zipFile builds a zip archive of the given entries.
func zipFile(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func f32le(vs ...float32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// manyEmpty returns n safetensors header entries of empty tensors.
func manyEmpty(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(`"t%d":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}`, i)
	}
	return out
}

// badFile is a malformed file and the text its error must contain.
type badFile struct {
	name string
	file []byte
	want string
}

// expectArchiveErrors checks that read refuses every file with its error,
// and that the message stays short whatever the file holds.
func expectArchiveErrors(t *testing.T, read func(io.ReaderAt, int64) (*Archive, error), tests []badFile) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := read(bytes.NewReader(tc.file), int64(len(tc.file)))
			if err == nil {
				t.Fatalf("no error; read %q", a.Names())
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %.300q does not contain %q", err, tc.want)
			}
			if len(err.Error()) > 4096 {
				t.Fatalf("error message of %d bytes", len(err.Error()))
			}
		})
	}
}

func TestSafetensorsMalformed(t *testing.T) {
	okData := f32le(1, 2)
	tensor := func(name, dtype, shape, offs string) string {
		return fmt.Sprintf(`%q:{"dtype":%q,"shape":%s,"data_offsets":%s}`, name, dtype, shape, offs)
	}
	obj := func(parts ...string) string { return "{" + strings.Join(parts, ",") + "}" }
	hugeLen := binary.LittleEndian.AppendUint64(nil, 1<<63)
	tests := []badFile{
		{"empty file", nil, "too short"},
		{"truncated length", []byte{1, 0, 0}, "too short"},
		{"header past end", append(binary.LittleEndian.AppendUint64(nil, 1000), "{}"...), "exceeds the 2 bytes"},
		{"huge header length", append(hugeLen, "{}"...), "exceeds the limit"},
		{"header over 100MB", append(binary.LittleEndian.AppendUint64(nil, 200_000_000), "{}"...), "exceeds the limit"},
		{"bad JSON", stFile(`{"a":`, nil), "bad header entry"},
		{"bad JSON key", stFile(`{1:2}`, nil), "bad JSON header"},
		{"not an object", stFile(`[1]`, nil), "not a JSON object"},
		{"empty header", stFile(``, nil), "not a JSON object"},
		{"not UTF-8", stFile("{\"\xff\":1}", nil), "UTF-8"},
		{"trailing text", stFile(`{} x`, nil), "trailing data"},
		{"unclosed", stFile(`{ `, nil), "bad JSON header"},
		{"entry not object", stFile(`{"a":5}`, nil), `tensor "a": bad header entry`},
		{"missing dtype", stFile(`{"a":{"shape":[2],"data_offsets":[0,8]}}`, okData), "missing dtype"},
		{"missing shape", stFile(`{"a":{"dtype":"F32","data_offsets":[0,8]}}`, okData), "missing shape"},
		{"null shape", stFile(`{"a":{"dtype":"F32","shape":null,"data_offsets":[0,8]}}`, okData), "missing shape"},
		{"missing offsets", stFile(`{"a":{"dtype":"F32","shape":[2]}}`, okData), "missing data_offsets"},
		{"unknown dtype", stFile(obj(tensor("a", "F8_E4M3", "[8]", "[0,8]")), okData), `unsupported dtype "F8_E4M3"`},
		{"lowercase dtype", stFile(obj(tensor("a", "f32", "[2]", "[0,8]")), okData), "unsupported dtype"},
		{"negative dim", stFile(obj(tensor("a", "F32", "[-2]", "[0,8]")), okData), "negative dimension"},
		{"fractional dim", stFile(obj(tensor("a", "F32", "[2.5]", "[0,8]")), okData), "bad header entry"},
		{"dim overflow", stFile(obj(tensor("a", "F32", "[4294967296,4294967296]", "[0,8]")), okData), "overflow"},
		{"three offsets", stFile(obj(tensor("a", "F32", "[2]", "[0,8,8]")), okData), "has 3 values"},
		{"negative offset", stFile(obj(tensor("a", "F32", "[2]", "[-8,0]")), okData), "bad header entry"},
		{"offsets reversed", stFile(obj(tensor("a", "F32", "[0]", "[8,0]")), okData), "end before they begin"},
		{"size mismatch", stFile(obj(tensor("a", "F32", "[3]", "[0,8]")), okData), "hold 8 bytes, but shape [3] of F32 needs 12"},
		{"offsets out of range", stFile(obj(tensor("a", "F32", "[2]", "[4,12]")), okData), "out of range"},
		{"huge offsets", stFile(obj(tensor("a", "U8", "[8]", "[18446744073709551600,18446744073709551608]")), okData), "out of range"},
		{"overlap", stFile(obj(tensor("a", "F32", "[2]", "[0,8]"), tensor("b", "F32", "[1]", "[4,8]")), okData), "overlap"},
		{"gap", stFile(obj(tensor("a", "F32", "[1]", "[0,4]"), tensor("b", "F32", "[0]", "[8,8]")), okData), "gap"},
		{"trailing bytes", stFile(obj(tensor("a", "F32", "[1]", "[0,4]")), okData), "cover 4 bytes, but the data buffer holds 8"},
		{"duplicate name", stFile(obj(tensor("a", "F32", "[1]", "[0,4]"), tensor("a", "F32", "[1]", "[4,8]")), okData), `"a" twice`},
		{"empty name", stFile(obj(tensor("", "F32", "[2]", "[0,8]")), okData), "empty name"},
		{"bad metadata", stFile(`{"__metadata__":{"a":1}}`, nil), "__metadata__"},
		{"huge claimed shape", stFile(obj(tensor("a", "F32", "[1000000000000]", "[0,4000000000000]")), okData), "too large"},
		{"huge claimed shape 2", stFile(obj(tensor("a", "F32", "[100000000000]", "[0,400000000000]")), okData), "out of range"},
		{"huge name", stFile(obj(tensor(strings.Repeat("n", 1<<20), "F32", "[2]", "[0,8]")), okData), "tensor name of 1048576 bytes"},
		{"many empty tensors", stFile(obj(manyEmpty(maxSafetensorsTensors+1)...), nil), "more than 262144 tensors"},
	}
	expectArchiveErrors(t, ReadSafetensors, tests)
}

func TestSafetensorsAccepted(t *testing.T) {
	// The reference implementation orders data by dtype, so header order and
	// data order may differ; names keep header order. Unknown entry fields
	// and a null __metadata__ are tolerated, and bools are normalised.
	data := append(f32le(7), 0, 2)
	h := `{"__metadata__":null,"flag":{"dtype":"BOOL","shape":[2],"data_offsets":[4,6]},` +
		`"w":{"dtype":"F32","shape":[],"data_offsets":[0,4],"extra":1}}   `
	a, err := ReadSafetensors(bytes.NewReader(stFile(h, data)), int64(len(stFile(h, data))))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Names(); len(got) != 2 || got[0] != "flag" || got[1] != "w" {
		t.Fatalf("names %q, want header order [flag w]", got)
	}
	w, _ := a.Get("w")
	f, _ := a.Get("flag")
	if w.Float32s()[0] != 7 || len(w.Shape()) != 0 {
		t.Errorf("w = %s %v", w, w.Float32s())
	}
	if !bytes.Equal(f.Bytes(), []byte{0, 1}) {
		t.Errorf("flag bytes %v, want [0 1]", f.Bytes())
	}
	if a.Metadata != nil {
		t.Errorf("metadata %v, want nil", a.Metadata)
	}
}

func TestNPYMalformed(t *testing.T) {
	f4 := f32le(1, 2, 3)
	tests := []badFile{
		{"empty", nil, "reading magic"},
		{"bad magic", append([]byte("\x93NUMPZ\x01\x00"), 0, 0), "bad magic"},
		{"zip file", []byte("PK\x03\x04\x14\x00\x00\x00\x00\x00"), "bad magic"},
		{"version 4", npyFile(4, npyHdr("<f4", "False", "(3,)"), f4), "version 4.0"},
		{"version 1.1", append([]byte(npyMagic), 1, 1, 0, 0), "version 1.1"},
		{"truncated length", []byte(npyMagic + "\x01\x00\x05"), "reading header length"},
		{"header past end", append([]byte(npyMagic+"\x01\x00"), 0xff, 0xff, '{'), "header"},
		{"v2 huge header", append([]byte(npyMagic+"\x02\x00"), 0xff, 0xff, 0xff, 0xff, '{'), "exceeds the limit"},
		{"not a dict", npyFile(1, "['descr']\n", nil), "bad header"},
		{"unclosed dict", npyFile(1, "{'descr': '<f4', \n", nil), "bad header"},
		{"unterminated string", npyFile(1, "{'descr: \n", nil), "unterminated"},
		{"text after dict", npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), } x\n", f4), "after the dict"},
		{"missing shape", npyFile(1, "{'descr': '<f4', 'fortran_order': False}\n", f4), "exactly the keys"},
		{"extra key", npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}\n", f4), "exactly the keys"},
		{"duplicate key", npyFile(1, "{'descr': '<f4', 'descr': '<f4', 'shape': (3,)}\n", f4), "duplicate key"},
		{"complex descr", npyFile(1, npyHdr("<c8", "False", "(3,)"), f4), `unsupported descr "<c8"`},
		{"odd float size", npyFile(1, npyHdr("<f3", "False", "(3,)"), f4), "unsupported descr"},
		{"string descr", npyFile(1, npyHdr("<U10", "False", "(3,)"), f4), "unsupported descr"},
		{"object descr", npyFile(1, npyHdr("|O", "False", "(3,)"), f4), "unsupported descr"},
		{"no byte order", npyFile(1, npyHdr("f4", "False", "(3,)"), f4), "unsupported descr"},
		{"native order", npyFile(1, npyHdr("=f4", "False", "(3,)"), f4), "native byte order"},
		{"pipe multi-byte", npyFile(1, npyHdr("|f4", "False", "(3,)"), f4), "only for one-byte"},
		{"bad size", npyFile(1, npyHdr("<fx", "False", "(3,)"), f4), "bad size"},
		{"structured descr", npyFile(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }\n", f4), "structured"},
		{"descr not string", npyFile(1, "{'descr': 4, 'fortran_order': False, 'shape': (3,), }\n", f4), "structured"},
		{"fortran not bool", npyFile(1, npyHdr("<f4", "1", "(3,)"), f4), "fortran_order"},
		{"shape list", npyFile(1, npyHdr("<f4", "False", "[3]"), f4), "not supported"},
		{"shape int", npyFile(1, npyHdr("<f4", "False", "3"), f4), "want a tuple"},
		{"shape (3)", npyFile(1, npyHdr("<f4", "False", "(3)"), f4), "not a tuple"},
		{"shape float", npyFile(1, npyHdr("<f4", "False", "(3.0,)"), f4), "tuple"},
		{"negative dim", npyFile(1, npyHdr("<f4", "False", "(-3,)"), f4), "negative dimension"},
		{"dim overflow int64", npyFile(1, npyHdr("<f4", "False", "(99999999999999999999,)"), f4), "bad integer"},
		{"shape overflow", npyFile(1, npyHdr("<f4", "False", "(4294967296, 4294967296)"), f4), "overflow"},
		{"escape in string", npyFile(1, "{'descr': '<f\\4'}\n", f4), "escapes"},
		{"truncated data", npyFile(1, npyHdr("<f4", "False", "(4,)"), f4), "needs 16 bytes of data, but 12 follow"},
		{"huge claimed shape", npyFile(1, npyHdr("<f4", "False", "(1000000000000,)"), f4), "too large"},
		{"big claimed shape", npyFile(1, npyHdr("|u1", "False", "(100000000000,)"), f4), "needs 100000000000 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := ReadNPY(bytes.NewReader(tc.file))
			if err == nil {
				t.Fatalf("no error; read %s", x)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
			// A reader that cannot tell its length must fail too.
			if x, err := ReadNPY(struct{ io.Reader }{bytes.NewReader(tc.file)}); err == nil {
				t.Fatalf("unsized reader: no error; read %s", x)
			}
			// So must the same bytes as an npz entry, naming the entry.
			z := zipFile(t, zipEntry{name: "bad.npy", data: tc.file})
			if _, err := ReadNPZ(bytes.NewReader(z), int64(len(z))); err == nil || !strings.Contains(err.Error(), `entry "bad.npy"`) {
				t.Fatalf("npz: error %v does not name the entry", err)
			}
		})
	}
}

func TestNPYVariants(t *testing.T) {
	be := func(vs ...uint32) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.BigEndian.AppendUint32(b, v)
		}
		return b
	}
	tests := []struct {
		name  string
		file  []byte
		dt    runtime.DataType
		shape []int64
		data  []byte // little-endian, C order
	}{
		{"v1", npyFile(1, npyHdr("<f4", "False", "(3,)"), f32le(1, 2, 3)), runtime.Float32, []int64{3}, f32le(1, 2, 3)},
		{"v2", npyFile(2, npyHdr("<f4", "False", "(3,)"), f32le(1, 2, 3)), runtime.Float32, []int64{3}, f32le(1, 2, 3)},
		{"v3", npyFile(3, npyHdr("<f4", "False", "(3,)"), f32le(1, 2, 3)), runtime.Float32, []int64{3}, f32le(1, 2, 3)},
		{"scalar", npyFile(1, npyHdr("<i8", "False", "()"), []byte{5, 0, 0, 0, 0, 0, 0, 0}), runtime.Int64, []int64{}, []byte{5, 0, 0, 0, 0, 0, 0, 0}},
		{"empty", npyFile(1, npyHdr("<f8", "False", "(0, 3)"), nil), runtime.Float64, []int64{0, 3}, nil},
		{"big-endian f4", npyFile(1, npyHdr(">f4", "False", "(2,)"), be(math.Float32bits(1.5), math.Float32bits(-2))), runtime.Float32, []int64{2}, f32le(1.5, -2)},
		{"big-endian i2", npyFile(1, npyHdr(">i2", "False", "(2,)"), []byte{0x01, 0x02, 0xff, 0xfe}), runtime.Int16, []int64{2}, []byte{0x02, 0x01, 0xfe, 0xff}},
		{"big-endian u8", npyFile(1, npyHdr(">u8", "False", "(1,)"), []byte{1, 2, 3, 4, 5, 6, 7, 8}), runtime.UInt64, []int64{1}, []byte{8, 7, 6, 5, 4, 3, 2, 1}},
		{"big-endian f2", npyFile(1, npyHdr(">f2", "False", "(1,)"), []byte{0x3c, 0x00}), runtime.Float16, []int64{1}, []byte{0x00, 0x3c}},
		{"bool normalised", npyFile(1, npyHdr("|b1", "False", "(3,)"), []byte{0, 1, 7}), runtime.Bool, []int64{3}, []byte{0, 1, 1}},
		{"<u1 and <i1", npyFile(1, npyHdr("<i1", "False", "(2,)"), []byte{0xff, 1}), runtime.Int8, []int64{2}, []byte{0xff, 1}},
		{"fortran 2x3", npyFile(1, npyHdr("<f4", "True", "(2, 3)"), f32le(1, 4, 2, 5, 3, 6)), runtime.Float32, []int64{2, 3}, f32le(1, 2, 3, 4, 5, 6)},
		{"fortran 1-d", npyFile(1, npyHdr("<f4", "True", "(3,)"), f32le(1, 2, 3)), runtime.Float32, []int64{3}, f32le(1, 2, 3)},
		{"fortran 2x3x2", npyFile(1, npyHdr("|u1", "True", "(2, 3, 2)"),
			// element (i,j,k) = 100*i+10*j+k at i + 2*j + 6*k
			[]byte{0, 100, 10, 110, 20, 120, 1, 101, 11, 111, 21, 121}),
			runtime.UInt8, []int64{2, 3, 2}, []byte{0, 1, 10, 11, 20, 21, 100, 101, 110, 111, 120, 121}},
		{"fortran big-endian", npyFile(1, npyHdr(">u2", "True", "(2, 2)"), []byte{0, 1, 0, 3, 0, 2, 0, 4}), runtime.UInt16, []int64{2, 2}, []byte{1, 0, 2, 0, 3, 0, 4, 0}},
		{"python 2 header", npyFile(1, "{\"descr\": \"<u2\", \"fortran_order\": False, \"shape\": (1L, 2L)}", []byte{1, 0, 2, 0}), runtime.UInt16, []int64{1, 2}, []byte{1, 0, 2, 0}},
		{"no trailing comma or newline", npyFile(1, "{'descr':'<i4','fortran_order':False,'shape':(1,)}", []byte{9, 0, 0, 0}), runtime.Int32, []int64{1}, []byte{9, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, err := runtime.NewTensor(tc.shape, tc.dt)
			if err != nil {
				t.Fatal(err)
			}
			copy(want.Bytes(), tc.data)
			for _, r := range []io.Reader{bytes.NewReader(tc.file), struct{ io.Reader }{bytes.NewReader(tc.file)}} {
				got, err := ReadNPY(r)
				if err != nil {
					t.Fatal(err)
				}
				sameTensor(t, tc.name, got, want)
			}
		})
	}
}

func TestNPYStream(t *testing.T) {
	// Arrays written one after another can be read back one by one, from a
	// sized and from an unsized reader.
	var b bytes.Buffer
	xs := []*runtime.Tensor{filled(t, []int64{3}, runtime.Int32, 1), filled(t, []int64{}, runtime.Bool, 2), filled(t, []int64{2, 2}, runtime.Float64, 3)}
	for _, x := range xs {
		if err := WriteNPY(&b, x); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []io.Reader{bytes.NewReader(b.Bytes()), struct{ io.Reader }{bytes.NewReader(b.Bytes())}} {
		for i, x := range xs {
			got, err := ReadNPY(r)
			if err != nil {
				t.Fatalf("array %d: %v", i, err)
			}
			sameTensor(t, fmt.Sprint(i), got, x)
		}
		if _, err := ReadNPY(r); err == nil {
			t.Fatal("read past the last array")
		}
	}
}

func TestNPZ(t *testing.T) {
	good := npyFile(1, npyHdr("<f4", "False", "(3,)"), f32le(1, 2, 3))
	// Deflated entries (numpy.savez_compressed) and directories are read.
	z := zipFile(t, zipEntry{name: "dir/"}, zipEntry{name: "dir/a.npy", data: good, method: zip.Deflate}, zipEntry{name: "b.npy", data: good})
	a, err := ReadNPZ(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Names(); len(got) != 2 || got[0] != "dir/a" || got[1] != "b" {
		t.Fatalf("names %q", got)
	}
	x, _ := a.Get("dir/a")
	if x.Float32s()[2] != 3 {
		t.Errorf("dir/a = %v", x.Float32s())
	}

	corrupt := bytes.Clone(zipFile(t, zipEntry{name: "a.npy", data: good}))
	corrupt[bytes.Index(corrupt, f32le(3))] ^= 0xff

	// A deflated entry that claims to expand a thousandfold more than DEFLATE can.
	var bomb bytes.Buffer
	zw := zip.NewWriter(&bomb)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "a.npy", Method: zip.Deflate, CompressedSize64: 2, UncompressedSize64: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte{3, 0})
	zw.Close()
	var lying bytes.Buffer
	zw = zip.NewWriter(&lying)
	w, _ = zw.CreateRaw(&zip.FileHeader{Name: "a.npy", Method: zip.Store, CompressedSize64: uint64(len(good)), UncompressedSize64: 1 << 30})
	w.Write(good)
	zw.Close()
	huge := npyFile(1, npyHdr("<f4", "False", "(100000000000,)"), f32le(1))

	tests := []badFile{
		{"not a zip", good, "npz: zip: not a valid zip file"},
		{"empty", nil, "not a valid zip"},
		{"truncated", z[:len(z)-10], "not a valid zip"},
		{"not npy", zipFile(t, zipEntry{name: "a.txt", data: good}), `entry "a.txt" is not a .npy file`},
		{"duplicate", zipFile(t, zipEntry{name: "a.npy", data: good}, zipEntry{name: "a.npy", data: good}), `duplicate tensor name "a"`},
		{"trailing data", zipFile(t, zipEntry{name: "a.npy", data: append(bytes.Clone(good), 0)}), "needs 12 bytes of data, but 13 follow"},
		{"short data", zipFile(t, zipEntry{name: "a.npy", data: good[:len(good)-1]}), "needs 12 bytes of data, but 11 follow"},
		{"bad crc", corrupt, "checksum"},
		{"deflate bomb", bomb.Bytes(), "implausible"},
		{"stored size lie", lying.Bytes(), "stored entry has compressed size"},
		{"huge claimed shape", zipFile(t, zipEntry{name: "h.npy", data: huge}), `entry "h.npy": npy: shape [100000000000] of <f4 needs 400000000000 bytes`},
		{"huge claimed shape deflated", zipFile(t, zipEntry{name: "h.npy", data: huge, method: zip.Deflate}), `needs 400000000000 bytes`},
		{"empty name", zipFile(t, zipEntry{name: ".npy", data: good}), "empty tensor name"},
		{"overlapping entries", overlappingZip(t, zipFile(t, zipEntry{name: "xx.npy", data: good, method: zip.Deflate}), 64), "overlap in the archive"},
	}
	expectArchiveErrors(t, ReadNPZ, tests)
}

// overlappingZip rewrites a one-entry zip so that its central directory
// lists the entry n times under different names, every copy pointing at the
// same local header and data: the layout of an overlapping-entry zip bomb.
func overlappingZip(t *testing.T, z []byte, n int) []byte {
	t.Helper()
	cd := bytes.Index(z, []byte("PK\x01\x02"))
	eocd := bytes.LastIndex(z, []byte("PK\x05\x06"))
	if cd < 0 || eocd < cd {
		t.Fatal("no central directory")
	}
	rec := z[cd:eocd]
	nameLen := int(binary.LittleEndian.Uint16(rec[28:30]))
	out := bytes.Clone(z[:cd])
	for i := range n {
		r := bytes.Clone(rec)
		// Keep the name length: vary its first byte.
		r[46] = 'a' + byte(i%26)
		if nameLen > 1 {
			r[47] = 'a' + byte(i/26%26)
		}
		out = append(out, r...)
	}
	end := bytes.Clone(z[eocd:])
	binary.LittleEndian.PutUint16(end[8:10], uint16(n))
	binary.LittleEndian.PutUint16(end[10:12], uint16(n))
	binary.LittleEndian.PutUint32(end[12:16], uint32(n*len(rec)))
	binary.LittleEndian.PutUint32(end[16:20], uint32(cd))
	return append(out, end...)
}

// allocated returns the bytes allocated while running f.
func allocated(f func()) uint64 {
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	f()
	goruntime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestNoHugeAllocation checks that small inputs claiming huge tensors fail
// without allocating anything like the claimed size.
func TestNoHugeAllocation(t *testing.T) {
	const limit = 4 << 20
	claims := []struct {
		shape, descr, code string
		elem               int64
	}{
		{"100000000000", "|u1", "U8", 1},
		{"1000000000000", "<f4", "F32", 4},
		{"250000000000", "<f4", "F32", 4}, // 1 TB: just under runtime's allocation cap
		{"20000000", "<f4", "F32", 4},     // 80 MB
	}
	for _, c := range claims {
		npy := npyFile(1, npyHdr(c.descr, "False", "("+c.shape+",)"), make([]byte, 64))
		n, _ := strconv.ParseInt(c.shape, 10, 64)
		st := stFile(fmt.Sprintf(`{"a":{"dtype":%q,"shape":[%s],"data_offsets":[0,%d]}}`, c.code, c.shape, n*c.elem), make([]byte, 64))
		npz := zipFile(t, zipEntry{name: "a.npy", data: npy, method: zip.Deflate})
		for name, read := range map[string]func() error{
			"npy":          func() error { _, err := ReadNPY(bytes.NewReader(npy)); return err },
			"npy unsized":  func() error { _, err := ReadNPY(struct{ io.Reader }{bytes.NewReader(npy)}); return err },
			"safetensors":  func() error { _, err := ReadSafetensors(bytes.NewReader(st), int64(len(st))); return err },
			"npz deflated": func() error { _, err := ReadNPZ(bytes.NewReader(npz), int64(len(npz))); return err },
		} {
			var err error
			if got := allocated(func() { err = read() }); got > limit {
				t.Errorf("%s claiming (%s) %s: allocated %d bytes", name, c.shape, c.descr, got)
			}
			if err == nil {
				t.Errorf("%s claiming (%s) %s: no error", name, c.shape, c.descr)
			}
		}
	}
}
