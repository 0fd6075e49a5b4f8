package tensorio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/relaxgo/relaxgo/runtime"
)

// npyMagic starts every .npy file.
const npyMagic = "\x93NUMPY"

// maxNPYHeader bounds the header dictionary of a .npy file. NumPy's own
// reader refuses headers over 10000 bytes by default; the dtypes read here
// are simple, so only absurd ranks come near this limit.
const maxNPYHeader = 1 << 20

// npyDirectRead is the largest tensor ReadNPY allocates at once when it
// cannot tell how many bytes its reader holds; larger ones are read in
// growing chunks first, so that memory follows the bytes actually present.
const npyDirectRead = 1 << 20

// npyHeader is the decoded header of a .npy file.
type npyHeader struct {
	dt        runtime.DataType
	bigEndian bool
	fortran   bool
	shape     []int64
	descr     string
}

// ReadNPY reads one .npy tensor (format version 1.0, 2.0 or 3.0) from r,
// consuming exactly the header and the tensor's data, so consecutive arrays
// can be read from one stream.
//
// Supported descrs are bool ('|b1'), signed and unsigned integers of 1, 2, 4
// and 8 bytes and floats of 2, 4 and 8 bytes, little-endian ('<', or '|' for
// one-byte types) or big-endian ('>', converted to little-endian). Arrays in
// Fortran order are transposed into C order. Structured dtypes, objects and
// the native byte order '=' are refused.
//
// When r reveals how many bytes remain (a Len method, as bytes.Reader has, or
// an io.Seeker such as *os.File), a data size larger than that fails before
// anything is allocated; otherwise large tensors are read in chunks before
// being assembled, so memory never runs ahead of the input.
func ReadNPY(r io.Reader) (*runtime.Tensor, error) {
	return readNPY(r, remaining(r), false)
}

// remaining returns how many bytes r still holds, or -1 when it cannot say.
func remaining(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len())
	case io.Seeker:
		cur, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		end, err := v.Seek(0, io.SeekEnd)
		if err != nil {
			return -1
		}
		if _, err := v.Seek(cur, io.SeekStart); err != nil || end < cur {
			return -1
		}
		return end - cur
	}
	return -1
}

// readNPY reads a .npy tensor from r. avail is the number of bytes r holds
// (-1 when unknown); exact requires the data to end exactly there.
func readNPY(r io.Reader, avail int64, exact bool) (*runtime.Tensor, error) {
	var pre [12]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil {
		return nil, fmt.Errorf("npy: reading magic: %w", eofIsUnexpected(err))
	}
	if string(pre[:6]) != npyMagic {
		return nil, fmt.Errorf("npy: bad magic %q, want %q", pre[:6], npyMagic)
	}
	major, minor := pre[6], pre[7]
	var prefix, hlen int64
	switch {
	case major == 1 && minor == 0:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", eofIsUnexpected(err))
		}
		prefix, hlen = 10, int64(binary.LittleEndian.Uint16(pre[8:10]))
	case (major == 2 || major == 3) && minor == 0:
		if _, err := io.ReadFull(r, pre[8:12]); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", eofIsUnexpected(err))
		}
		prefix, hlen = 12, int64(binary.LittleEndian.Uint32(pre[8:12]))
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d", major, minor)
	}
	if hlen > maxNPYHeader {
		return nil, fmt.Errorf("npy: header length %d exceeds the limit of %d bytes", hlen, maxNPYHeader)
	}
	if avail >= 0 && hlen > avail-prefix {
		return nil, fmt.Errorf("npy: header length %d exceeds the %d bytes that follow it", hlen, max(avail-prefix, 0))
	}
	hdr, err := io.ReadAll(io.LimitReader(r, hlen))
	if err != nil {
		return nil, fmt.Errorf("npy: reading header: %w", err)
	}
	if int64(len(hdr)) != hlen {
		return nil, fmt.Errorf("npy: header truncated: %d of %d bytes", len(hdr), hlen)
	}
	h, err := parseNPYHeader(string(hdr))
	if err != nil {
		return nil, err
	}
	nbytes, err := runtime.NumBytes(h.shape, h.dt)
	if err != nil {
		return nil, fmt.Errorf("npy: shape %s: %w", shapeString(h.shape), err)
	}
	if avail >= 0 {
		rem := avail - prefix - hlen
		if nbytes > rem || (exact && nbytes != rem) {
			return nil, fmt.Errorf("npy: shape %s of %s needs %d bytes of data, but %d follow the header",
				shapeString(h.shape), h.descr, nbytes, rem)
		}
	}
	var t *runtime.Tensor
	if avail >= 0 || nbytes <= npyDirectRead {
		if t, err = runtime.NewTensor(h.shape, h.dt); err != nil {
			return nil, fmt.Errorf("npy: %w", err)
		}
		if _, err := io.ReadFull(r, t.Bytes()); err != nil {
			return nil, fmt.Errorf("npy: reading %d bytes of data for shape %s of %s: %w", nbytes, shapeString(h.shape), h.descr, eofIsUnexpected(err))
		}
	} else {
		if t, err = readChunked(r, h, nbytes); err != nil {
			return nil, err
		}
	}
	data := t.Bytes()
	if eb := h.dt.ElemBytes(); h.bigEndian && eb > 1 {
		swapBytes(data, eb)
	}
	if h.fortran && len(h.shape) > 1 {
		fortranToC(data, h.shape, h.dt.ElemBytes())
	}
	if h.dt == runtime.Bool {
		normalizeBools(data)
	}
	return t, nil
}

// readChunked reads nbytes of tensor data from a reader of unknown length in
// chunks of growing size, allocating the tensor only once all of them are in.
func readChunked(r io.Reader, h npyHeader, nbytes int64) (*runtime.Tensor, error) {
	var chunks [][]byte
	size := int64(npyDirectRead)
	for left := nbytes; left > 0; {
		c := make([]byte, min(size, left))
		if n, err := io.ReadFull(r, c); err != nil {
			return nil, fmt.Errorf("npy: reading %d bytes of data for shape %s of %s: only %d present: %w",
				nbytes, shapeString(h.shape), h.descr, nbytes-left+int64(n), eofIsUnexpected(err))
		}
		chunks = append(chunks, c)
		left -= int64(len(c))
		size = min(2*size, 64<<20)
	}
	t, err := runtime.NewTensor(h.shape, h.dt)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	off := 0
	for _, c := range chunks {
		off += copy(t.Bytes()[off:], c)
	}
	return t, nil
}

func eofIsUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// swapBytes reverses the byte order of each eb-byte element of b.
func swapBytes(b []byte, eb int) {
	for i := 0; i+eb <= len(b); i += eb {
		e := b[i : i+eb]
		for j, k := 0, eb-1; j < k; j, k = j+1, k-1 {
			e[j], e[k] = e[k], e[j]
		}
	}
}

// fortranToC rearranges data, holding an array of shape in Fortran
// (column-major) order, into C (row-major) order.
func fortranToC(data []byte, shape []int64, eb int) {
	if len(data) == 0 {
		return
	}
	src := append([]byte(nil), data...)
	nd := len(shape)
	stride := make([]int64, nd) // Fortran strides, in elements
	s := int64(1)
	for k := 0; k < nd; k++ {
		stride[k] = s
		s *= shape[k]
	}
	idx := make([]int64, nd)
	var off int64 // source element offset of idx
	for dst := 0; dst < len(data); dst += eb {
		copy(data[dst:dst+eb], src[off*int64(eb):])
		// Advance the C-order index (last axis fastest).
		for k := nd - 1; k >= 0; k-- {
			idx[k]++
			off += stride[k]
			if idx[k] < shape[k] {
				break
			}
			off -= stride[k] * idx[k]
			idx[k] = 0
		}
	}
}

// parseNPYHeader decodes the Python dict literal of a .npy header.
func parseNPYHeader(s string) (npyHeader, error) {
	var h npyHeader
	p := &pyParser{s: s}
	d, err := p.dict()
	if err != nil {
		return h, fmt.Errorf("npy: bad header %q: %w", clip(s), err)
	}
	if len(d) != 3 || d["descr"] == nil || d["fortran_order"] == nil || d["shape"] == nil {
		return h, fmt.Errorf("npy: header %q must have exactly the keys 'descr', 'fortran_order' and 'shape'", clip(s))
	}
	descr, ok := d["descr"].(string)
	if !ok {
		return h, fmt.Errorf("npy: unsupported descr %v (structured dtypes are not supported)", d["descr"])
	}
	h.descr = descr
	if h.dt, h.bigEndian, err = parseDescr(descr); err != nil {
		return h, err
	}
	if h.fortran, ok = d["fortran_order"].(bool); !ok {
		return h, fmt.Errorf("npy: fortran_order is %v, want True or False", d["fortran_order"])
	}
	if h.shape, ok = d["shape"].([]int64); !ok {
		return h, fmt.Errorf("npy: shape is %v, want a tuple of integers", d["shape"])
	}
	for i, dim := range h.shape {
		if dim < 0 {
			return h, fmt.Errorf("npy: shape %s has negative dimension at axis %d", shapeString(h.shape), i)
		}
	}
	return h, nil
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// parseDescr decodes a NumPy type string such as '<f4' or '|b1'.
func parseDescr(descr string) (dt runtime.DataType, bigEndian bool, err error) {
	bad := func(why string) error { return fmt.Errorf("npy: unsupported descr %q: %s", descr, why) }
	if len(descr) < 3 {
		return dt, false, bad("want a byte order, a kind and a size, as in '<f4'")
	}
	size, perr := strconv.Atoi(descr[2:])
	if perr != nil {
		return dt, false, bad("bad size")
	}
	switch kind := descr[1]; {
	case kind == 'b' && size == 1:
		dt = runtime.Bool
	case kind == 'i' && size == 1:
		dt = runtime.Int8
	case kind == 'i' && size == 2:
		dt = runtime.Int16
	case kind == 'i' && size == 4:
		dt = runtime.Int32
	case kind == 'i' && size == 8:
		dt = runtime.Int64
	case kind == 'u' && size == 1:
		dt = runtime.UInt8
	case kind == 'u' && size == 2:
		dt = runtime.UInt16
	case kind == 'u' && size == 4:
		dt = runtime.UInt32
	case kind == 'u' && size == 8:
		dt = runtime.UInt64
	case kind == 'f' && size == 2:
		dt = runtime.Float16
	case kind == 'f' && size == 4:
		dt = runtime.Float32
	case kind == 'f' && size == 8:
		dt = runtime.Float64
	default:
		return dt, false, bad("want bool (b1), int (i1, i2, i4, i8), unsigned (u1, u2, u4, u8) or float (f2, f4, f8)")
	}
	switch descr[0] {
	case '<':
	case '>':
		bigEndian = true
	case '|':
		if size != 1 {
			return dt, false, bad("byte order '|' is only for one-byte types")
		}
	case '=':
		return dt, false, bad("native byte order '=' does not say which order the file uses")
	default:
		return dt, false, bad("byte order must be '<', '>' or '|'")
	}
	return dt, bigEndian, nil
}

// npyDescr is the little-endian descr WriteNPY uses for dt.
func npyDescr(dt runtime.DataType) (string, bool) {
	switch dt {
	case runtime.Bool:
		return "|b1", true
	case runtime.Int8:
		return "|i1", true
	case runtime.UInt8:
		return "|u1", true
	case runtime.Int16:
		return "<i2", true
	case runtime.Int32:
		return "<i4", true
	case runtime.Int64:
		return "<i8", true
	case runtime.UInt16:
		return "<u2", true
	case runtime.UInt32:
		return "<u4", true
	case runtime.UInt64:
		return "<u8", true
	case runtime.Float16:
		return "<f2", true
	case runtime.Float32:
		return "<f4", true
	case runtime.Float64:
		return "<f8", true
	}
	return "", false
}

// npyPrefix returns the magic, version, header length and padded header of
// a .npy file holding t.
func npyPrefix(t *runtime.Tensor) ([]byte, error) {
	descr, ok := npyDescr(t.DType())
	if !ok {
		return nil, fmt.Errorf("npy: dtype %s has no NumPy equivalent", t.DType())
	}
	if err := checkTensor(t); err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, pyTuple(t.Shape()))
	build := func(lenBytes int) []byte {
		pre := 8 + lenBytes
		pad := (64 - (pre+len(dict)+1)%64) % 64
		var b bytes.Buffer
		b.WriteString(npyMagic)
		hlen := len(dict) + pad + 1
		if lenBytes == 2 {
			b.Write([]byte{1, 0, byte(hlen), byte(hlen >> 8)})
		} else {
			b.Write([]byte{2, 0})
			b.Write(binary.LittleEndian.AppendUint32(nil, uint32(hlen)))
		}
		b.WriteString(dict)
		b.WriteString(strings.Repeat(" ", pad))
		b.WriteByte('\n')
		return b.Bytes()
	}
	if b := build(2); len(b)-10 <= 0xffff {
		return b, nil
	}
	// Only absurd ranks get here; NumPy switches to version 2.0 likewise.
	if len(dict) > maxNPYHeader-64 {
		return nil, fmt.Errorf("npy: header for shape of rank %d is too long", len(t.Shape()))
	}
	return build(4), nil
}

// pyTuple spells a shape as a Python tuple: (), (5,), (3, 4).
func pyTuple(shape []int64) string {
	switch len(shape) {
	case 0:
		return "()"
	case 1:
		return "(" + strconv.FormatInt(shape[0], 10) + ",)"
	}
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// WriteNPY writes t as a .npy file, format version 1.0 (2.0 only if the
// header would not fit, as NumPy does), with a little-endian descr, C order,
// and the header padded with spaces so that the data starts at a multiple of
// 64 bytes. bfloat16 and vector dtypes have no NumPy descr and are refused.
func WriteNPY(w io.Writer, t *runtime.Tensor) error {
	if t == nil {
		return errors.New("npy: nil tensor")
	}
	pre, err := npyPrefix(t)
	if err != nil {
		return err
	}
	if _, err := w.Write(pre); err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	if _, err := w.Write(t.Bytes()); err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	return nil
}

// pyParser reads the small subset of Python literals found in .npy headers:
// a dict with string keys whose values are strings, True/False, integers or
// tuples of integers.
type pyParser struct {
	s string
	i int
}

func (p *pyParser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *pyParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *pyParser) expect(c byte) error {
	p.ws()
	if p.peek() != c {
		return p.errorf("expected %q", c)
	}
	p.i++
	return nil
}

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

// dict parses the whole input as a dict followed only by whitespace.
func (p *pyParser) dict() (map[string]any, error) {
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	d := map[string]any{}
	for {
		p.ws()
		if p.peek() == '}' {
			p.i++
			break
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		if _, dup := d[k]; dup {
			return nil, p.errorf("duplicate key %q", k)
		}
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		d[k] = v
		p.ws()
		if p.peek() == ',' {
			p.i++
			continue
		}
		if err := p.expect('}'); err != nil {
			return nil, err
		}
		break
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, p.errorf("unexpected text after the dict")
	}
	return d, nil
}

func (p *pyParser) str() (string, error) {
	p.ws()
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errorf("expected a string")
	}
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", p.errorf("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	if strings.ContainsRune(v, '\\') {
		return "", p.errorf("escapes in strings are not supported")
	}
	p.i += end + 2
	return v, nil
}

func (p *pyParser) value() (any, error) {
	p.ws()
	switch c := p.peek(); {
	case c == '\'' || c == '"':
		return p.str()
	case c == '(':
		return p.tuple()
	case c == '[':
		return nil, p.errorf("lists (structured dtypes) are not supported")
	case strings.HasPrefix(p.s[p.i:], "True"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "False"):
		p.i += 5
		return false, nil
	case c == '-' || c == '+' || (c >= '0' && c <= '9'):
		return p.int()
	}
	return nil, p.errorf("unexpected value")
}

func (p *pyParser) int() (int64, error) {
	p.ws()
	start := p.i
	if c := p.peek(); c == '-' || c == '+' {
		p.i++
	}
	for c := p.peek(); c >= '0' && c <= '9'; c = p.peek() {
		p.i++
	}
	v, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
	if err != nil {
		return 0, p.errorf("bad integer %q", p.s[start:p.i])
	}
	if p.peek() == 'L' { // Python 2 long literal
		p.i++
	}
	return v, nil
}

func (p *pyParser) tuple() ([]int64, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	out := []int64{}
	for {
		p.ws()
		if p.peek() == ')' {
			p.i++
			return out, nil
		}
		v, err := p.int()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.ws()
		switch p.peek() {
		case ',':
			p.i++
		case ')':
			if len(out) == 1 {
				return nil, p.errorf("(n) is not a tuple; a one-element shape is written (n,)")
			}
			p.i++
			return out, nil
		default:
			return nil, p.errorf("expected ',' or ')' in tuple")
		}
	}
}
