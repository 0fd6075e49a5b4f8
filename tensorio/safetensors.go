package tensorio

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/relaxgo/relaxgo/runtime"
)

// maxSafetensorsHeader bounds the JSON header, as the reference
// implementation does (100 MB).
const maxSafetensorsHeader = 100_000_000

// metadataKey is the reserved header key holding free-form metadata.
const metadataKey = "__metadata__"

// safetensorsDTypes maps safetensors dtype codes to runtime data types.
var safetensorsDTypes = []struct {
	code string
	dt   runtime.DataType
}{
	{"BOOL", runtime.Bool},
	{"U8", runtime.UInt8},
	{"I8", runtime.Int8},
	{"I16", runtime.Int16},
	{"U16", runtime.UInt16},
	{"F16", runtime.Float16},
	{"BF16", runtime.BFloat16},
	{"I32", runtime.Int32},
	{"U32", runtime.UInt32},
	{"F32", runtime.Float32},
	{"F64", runtime.Float64},
	{"I64", runtime.Int64},
	{"U64", runtime.UInt64},
}

func safetensorsDType(code string) (runtime.DataType, bool) {
	for _, e := range safetensorsDTypes {
		if e.code == code {
			return e.dt, true
		}
	}
	return runtime.DataType{}, false
}

func safetensorsCode(dt runtime.DataType) (string, bool) {
	for _, e := range safetensorsDTypes {
		if e.dt == dt {
			return e.code, true
		}
	}
	return "", false
}

// stEntry is one tensor described by a safetensors header.
type stEntry struct {
	name       string
	dt         runtime.DataType
	shape      []int64
	begin, end int64
}

// ReadSafetensorsFile reads the safetensors file at path.
func ReadSafetensorsFile(path string) (*Archive, error) {
	return readArchiveFile(path, ReadSafetensors)
}

// ReadSafetensors reads a safetensors file of size bytes from r.
//
// The header is validated as the reference implementation does: its length
// is at most 100 MB and within the file, it is a UTF-8 JSON object, every
// tensor has a known dtype, non-negative dimensions and data_offsets whose
// extent is exactly the tensor's byte size, and the tensors' extents tile
// the data buffer with no gap, overlap or trailing bytes. Names are returned
// in header order, and "__metadata__" becomes Archive.Metadata.
func ReadSafetensors(r io.ReaderAt, size int64) (*Archive, error) {
	if size < 8 {
		return nil, fmt.Errorf("safetensors: file of %d bytes is too short for the 8-byte header length", size)
	}
	var lb [8]byte
	if err := readAtFull(r, lb[:], 0); err != nil {
		return nil, fmt.Errorf("safetensors: reading header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(lb[:])
	if n > maxSafetensorsHeader {
		return nil, fmt.Errorf("safetensors: header length %d exceeds the limit of %d bytes", n, maxSafetensorsHeader)
	}
	if n > uint64(size-8) {
		return nil, fmt.Errorf("safetensors: header length %d exceeds the %d bytes that follow it", n, size-8)
	}
	hdr := make([]byte, n)
	if err := readAtFull(r, hdr, 8); err != nil {
		return nil, fmt.Errorf("safetensors: reading %d-byte header: %w", n, err)
	}
	entries, meta, err := parseSafetensorsHeader(hdr)
	if err != nil {
		return nil, err
	}
	start := 8 + int64(n)
	bufLen := size - start
	if err := checkSafetensorsLayout(entries, bufLen); err != nil {
		return nil, err
	}
	a := &Archive{Metadata: meta}
	for _, e := range entries {
		t, err := runtime.NewTensor(e.shape, e.dt)
		if err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: %w", e.name, err)
		}
		if err := readAtFull(r, t.Bytes(), start+e.begin); err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: reading data: %w", e.name, err)
		}
		if e.dt == runtime.Bool {
			normalizeBools(t.Bytes())
		}
		if err := a.Add(e.name, t); err != nil {
			return nil, fmt.Errorf("safetensors: %w", err)
		}
	}
	return a, nil
}

// parseSafetensorsHeader decodes the JSON header, keeping the order of its
// keys, and checks each entry on its own.
func parseSafetensorsHeader(hdr []byte) ([]stEntry, map[string]string, error) {
	if !utf8.Valid(hdr) {
		return nil, nil, errors.New("safetensors: header is not valid UTF-8")
	}
	if len(hdr) == 0 || hdr[0] != '{' {
		return nil, nil, errors.New("safetensors: header is not a JSON object (does not start with '{')")
	}
	dec := json.NewDecoder(bytes.NewReader(hdr))
	if _, err := dec.Token(); err != nil {
		return nil, nil, fmt.Errorf("safetensors: bad JSON header: %w", err)
	}
	var (
		entries []stEntry
		meta    map[string]string
		seen    = map[string]bool{}
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("safetensors: bad JSON header: %w", err)
		}
		name, ok := tok.(string)
		if !ok {
			return nil, nil, fmt.Errorf("safetensors: bad JSON header: unexpected %v", tok)
		}
		if len(name) > maxSafetensorsName {
			return nil, nil, fmt.Errorf("safetensors: header has a tensor name of %d bytes (%.40q...), over the limit of %d", len(name), name, maxSafetensorsName)
		}
		if len(seen) >= maxSafetensorsTensors {
			return nil, nil, fmt.Errorf("safetensors: header lists more than %d tensors", maxSafetensorsTensors)
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("safetensors: header lists %q twice", name)
		}
		seen[name] = true
		if name == metadataKey {
			if err := dec.Decode(&meta); err != nil {
				return nil, nil, fmt.Errorf("safetensors: %s is not a map of strings to strings: %w", metadataKey, err)
			}
			continue
		}
		var info struct {
			DType       *string   `json:"dtype"`
			Shape       *[]int64  `json:"shape"`
			DataOffsets *[]uint64 `json:"data_offsets"`
		}
		if err := dec.Decode(&info); err != nil {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: bad header entry: %w", name, err)
		}
		e, err := checkSafetensorsEntry(name, info.DType, info.Shape, info.DataOffsets)
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, e)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, fmt.Errorf("safetensors: bad JSON header: %w", err)
	}
	for _, c := range hdr[dec.InputOffset():] {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return nil, nil, fmt.Errorf("safetensors: bad JSON header: trailing data after the object at byte %d", dec.InputOffset())
		}
	}
	return entries, meta, nil
}

func checkSafetensorsEntry(name string, dtype *string, shape *[]int64, offsets *[]uint64) (stEntry, error) {
	e := stEntry{name: name}
	if name == "" {
		return e, errors.New("safetensors: header has a tensor with an empty name")
	}
	if dtype == nil {
		return e, fmt.Errorf("safetensors: tensor %q: missing dtype", name)
	}
	if shape == nil {
		return e, fmt.Errorf("safetensors: tensor %q: missing shape", name)
	}
	if offsets == nil {
		return e, fmt.Errorf("safetensors: tensor %q: missing data_offsets", name)
	}
	dt, ok := safetensorsDType(*dtype)
	if !ok {
		return e, fmt.Errorf("safetensors: tensor %q: unsupported dtype %q", name, *dtype)
	}
	nbytes, err := runtime.NumBytes(*shape, dt)
	if err != nil {
		return e, fmt.Errorf("safetensors: tensor %q: shape %s: %w", name, shapeString(*shape), err)
	}
	if len(*offsets) != 2 {
		return e, fmt.Errorf("safetensors: tensor %q: data_offsets has %d values, want 2", name, len(*offsets))
	}
	begin, end := (*offsets)[0], (*offsets)[1]
	if begin > end {
		return e, fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] end before they begin", name, begin, end)
	}
	if end-begin != uint64(nbytes) {
		return e, fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] hold %d bytes, but shape %s of %s needs %d",
			name, begin, end, end-begin, shapeString(*shape), *dtype, nbytes)
	}
	if end > maxSafetensorsBuffer {
		return e, fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] out of range", name, begin, end)
	}
	e.dt, e.shape, e.begin, e.end = dt, *shape, int64(begin), int64(end)
	return e, nil
}

// maxSafetensorsTensors and maxSafetensorsName bound what a header may list,
// so that a small file of many empty tensors (each costing a tensor header
// in memory) or one huge name (repeated in error messages) stays cheap. The
// largest published checkpoints hold a few thousand tensors per file, with
// names under 200 bytes.
const (
	maxSafetensorsTensors = 1 << 18
	maxSafetensorsName    = 1024
)

// maxSafetensorsBuffer keeps offsets representable as int64 file positions.
const maxSafetensorsBuffer = 1 << 62

// checkSafetensorsLayout checks that the tensors' extents lie in the data
// buffer and tile it exactly, so that no tensor reads another's bytes or
// bytes that are not there.
func checkSafetensorsLayout(entries []stEntry, bufLen int64) error {
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := entries[order[i]], entries[order[j]]
		if a.begin != b.begin {
			return a.begin < b.begin
		}
		return a.end < b.end
	})
	var pos int64
	for _, i := range order {
		e := entries[i]
		if e.end > bufLen {
			return fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] out of range of the %d-byte data buffer", e.name, e.begin, e.end, bufLen)
		}
		if e.begin < pos {
			return fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] overlap another tensor's data (ending at %d)", e.name, e.begin, e.end, pos)
		}
		if e.begin > pos {
			return fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] leave a gap after byte %d of the data buffer", e.name, e.begin, e.end, pos)
		}
		pos = e.end
	}
	if pos != bufLen {
		return fmt.Errorf("safetensors: tensors cover %d bytes, but the data buffer holds %d", pos, bufLen)
	}
	return nil
}

// WriteSafetensors writes a in safetensors format. Tensors are written in
// a's order (Names), both in the header and in the data buffer, so reading
// the file back gives the same order; unlike the reference implementation it
// does not sort them by dtype and name. The header is padded with spaces to a
// multiple of 8 bytes, and Metadata, when non-empty, is written first as
// "__metadata__" with its keys sorted. All runtime dtypes with a safetensors
// code are supported (bool, int8-64, uint8-64, float16/32/64, bfloat16).
func WriteSafetensors(w io.Writer, a *Archive) error {
	var hb bytes.Buffer
	hb.WriteByte('{')
	if len(a.Metadata) > 0 {
		keys := make([]string, 0, len(a.Metadata))
		for k := range a.Metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !utf8.ValidString(k) || !utf8.ValidString(a.Metadata[k]) {
				return fmt.Errorf("safetensors: metadata %q: not valid UTF-8", k)
			}
		}
		hb.WriteString(`"` + metadataKey + `":{`)
		for i, k := range keys {
			if i > 0 {
				hb.WriteByte(',')
			}
			writeJSONString(&hb, k)
			hb.WriteByte(':')
			writeJSONString(&hb, a.Metadata[k])
		}
		hb.WriteByte('}')
	}
	var off int64
	for i, name := range a.names {
		t := a.tensor[name]
		if name == metadataKey {
			return fmt.Errorf("safetensors: tensor name %q is reserved", name)
		}
		if !utf8.ValidString(name) {
			return fmt.Errorf("safetensors: tensor name %q is not valid UTF-8", name)
		}
		code, ok := safetensorsCode(t.DType())
		if !ok {
			return fmt.Errorf("safetensors: tensor %q: dtype %s has no safetensors code", name, t.DType())
		}
		if err := checkTensor(t); err != nil {
			return fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		if i > 0 || len(a.Metadata) > 0 {
			hb.WriteByte(',')
		}
		writeJSONString(&hb, name)
		hb.WriteString(`:{"dtype":"` + code + `","shape":[`)
		for j, d := range t.Shape() {
			if j > 0 {
				hb.WriteByte(',')
			}
			hb.WriteString(strconv.FormatInt(d, 10))
		}
		n := int64(len(t.Bytes()))
		fmt.Fprintf(&hb, `],"data_offsets":[%d,%d]}`, off, off+n)
		off += n
	}
	hb.WriteByte('}')
	for (8+hb.Len())%8 != 0 {
		hb.WriteByte(' ')
	}
	if hb.Len() > maxSafetensorsHeader {
		return fmt.Errorf("safetensors: header of %d bytes exceeds the limit of %d", hb.Len(), maxSafetensorsHeader)
	}
	var lb [8]byte
	binary.LittleEndian.PutUint64(lb[:], uint64(hb.Len()))
	if _, err := w.Write(lb[:]); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	if _, err := w.Write(hb.Bytes()); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	for _, name := range a.names {
		if _, err := w.Write(a.tensor[name].Bytes()); err != nil {
			return fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
	}
	return nil
}

// readAtFull fills p from r at off, accepting the io.EOF that ReaderAt may
// return along with a full read at the end of the input.
func readAtFull(r io.ReaderAt, p []byte, off int64) error {
	if len(p) == 0 {
		return nil
	}
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// writeJSONString appends s as a JSON string literal.
func writeJSONString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // marshalling a string cannot fail
	b.Write(enc)
}
