package runtime

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"sort"
)

// Serialization constants of TVM's VM executable format.
const (
	// execMagicV1 heads files without the memory-scope section.
	execMagicV1 uint64 = 0xD225DE2F4214151D
	// execMagic heads files written by this package (TVM's kTVMVMBytecodeMagicV2).
	execMagic uint64 = 0xD225DE2F4214151E
	// execVersion is the VM_VERSION string the loader accepts.
	execVersion = "0.14"
	// tensorMagic heads each serialized tensor (kTVMTensorMagic).
	tensorMagic uint64 = 0xDD5E40F096B4A13F
)

// Constant-pool type tags (TVM FFI type indices).
const (
	tagInt      int32 = 1
	tagFloat    int32 = 3
	tagDataType int32 = 5
	tagStr      int32 = 65
	tagShape    int32 = 69
	tagTensor   int32 = 70
)

// maxTensorNDim bounds the rank of a serialized tensor constant.
const maxTensorNDim = 64

type encoder struct{ b []byte }

func (w *encoder) u8(v uint8)   { w.b = append(w.b, v) }
func (w *encoder) u16(v uint16) { w.b = binary.LittleEndian.AppendUint16(w.b, v) }
func (w *encoder) i32(v int32)  { w.b = binary.LittleEndian.AppendUint32(w.b, uint32(v)) }
func (w *encoder) u64(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *encoder) i64(v int64)  { w.u64(uint64(v)) }
func (w *encoder) str(s string) { w.u64(uint64(len(s))); w.b = append(w.b, s...) }
func (w *encoder) i64s(v []int64) {
	w.u64(uint64(len(v)))
	for _, x := range v {
		w.i64(x)
	}
}
func (w *encoder) dtype(t DataType) { w.u8(t.Code); w.u8(t.Bits); w.u16(t.Lanes) }

// SaveToBytes serializes e in TVM's binary layout: magic, version, function
// table, memory scopes, constants, code.
func (e *Executable) SaveToBytes() ([]byte, error) {
	w := &encoder{}
	w.u64(execMagic)
	w.str(execVersion)
	w.u64(uint64(len(e.funcs)))
	for _, f := range e.funcs {
		w.i32(int32(f.Kind))
		w.str(f.Name)
		w.i64(f.StartInstr)
		w.i64(f.EndInstr)
		w.i64(f.NumArgs)
		w.i64(f.RegisterFileSize)
		w.u64(uint64(len(f.ParamNames)))
		for _, p := range f.ParamNames {
			w.str(p)
		}
	}
	w.u64(uint64(len(e.scopes)))
	for _, s := range e.scopes {
		w.i64(s.ConstIndex)
		w.str(s.Scope)
	}
	w.u64(uint64(len(e.constants)))
	for i, c := range e.constants {
		switch x := c.(type) {
		case *Tensor:
			w.i32(tagTensor)
			w.u64(tensorMagic)
			w.u64(0)
			w.i32(deviceCPU)
			w.i32(0)
			w.i32(int32(len(x.shape)))
			w.dtype(x.dtype)
			for _, d := range x.shape {
				w.i64(d)
			}
			w.i64(int64(len(x.data)))
			w.b = append(w.b, x.data...)
		case Shape:
			w.i32(tagShape)
			w.i64s(x)
		case string:
			w.i32(tagStr)
			w.str(x)
		case int64:
			w.i32(tagInt)
			w.i64(x)
		case float64:
			w.i32(tagFloat)
			w.u64(math.Float64bits(x))
		case DataType:
			w.i32(tagDataType)
			w.dtype(x)
		default:
			return nil, fmt.Errorf("runtime: save executable: constant %d has unsupported type %s", i, TypeName(c))
		}
	}
	w.i64s(e.instrOffset)
	w.i64s(e.instrData)
	return w.b, nil
}

// SaveToFile writes SaveToBytes to path.
func (e *Executable) SaveToFile(path string) error {
	b, err := e.SaveToBytes()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("runtime: save executable: %w", err)
	}
	return nil
}

// decoder reads little-endian values; every count is checked against the
// bytes left before anything is allocated.
type decoder struct {
	b       []byte
	pos     int
	section string
}

func (r *decoder) errf(format string, args ...any) error {
	return fmt.Errorf("runtime: %w: %s section at byte %d: %s", ErrFormat, r.section, r.pos, fmt.Sprintf(format, args...))
}

func (r *decoder) left() int { return len(r.b) - r.pos }

func (r *decoder) need(n int, what string) error {
	if n < 0 || r.left() < n {
		return r.errf("truncated %s: need %d bytes, %d left", what, n, r.left())
	}
	return nil
}

func (r *decoder) i32(what string) (int32, error) {
	if err := r.need(4, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint32(r.b[r.pos:])
	r.pos += 4
	return int32(v), nil
}

func (r *decoder) u64(what string) (uint64, error) {
	if err := r.need(8, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint64(r.b[r.pos:])
	r.pos += 8
	return v, nil
}

func (r *decoder) i64(what string) (int64, error) {
	v, err := r.u64(what)
	return int64(v), err
}

// count reads a u64 element count and checks that count elements of at least
// elemSize bytes each fit in what is left.
func (r *decoder) count(what string, elemSize int) (int, error) {
	n, err := r.u64(what + " count")
	if err != nil {
		return 0, err
	}
	if n > uint64(r.left()/elemSize) {
		return 0, r.errf("%s count %d needs at least %d bytes each, only %d bytes left", what, n, elemSize, r.left())
	}
	return int(n), nil
}

func (r *decoder) str(what string) (string, error) {
	n, err := r.count(what+" length", 1)
	if err != nil {
		return "", err
	}
	s := string(r.b[r.pos : r.pos+n])
	r.pos += n
	return s, nil
}

func (r *decoder) i64s(what string) ([]int64, error) {
	n, err := r.count(what, 8)
	if err != nil {
		return nil, err
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(r.b[r.pos:]))
		r.pos += 8
	}
	return out, nil
}

func (r *decoder) dtype(what string) (DataType, error) {
	if err := r.need(4, what); err != nil {
		return DataType{}, err
	}
	t := DataType{Code: r.b[r.pos], Bits: r.b[r.pos+1], Lanes: binary.LittleEndian.Uint16(r.b[r.pos+2:])}
	r.pos += 4
	return t, nil
}

// LoadExecutable parses bytes written by SaveToBytes (or by TVM's
// VMExecutable::SaveToBytes for a CPU executable) and validates the result.
// It never allocates more than the input size justifies and returns an error,
// never panics, on malformed input.
func LoadExecutable(data []byte) (*Executable, error) {
	r := &decoder{b: data, section: "header"}
	magic, err := r.u64("magic")
	if err != nil {
		return nil, err
	}
	if magic != execMagic && magic != execMagicV1 {
		return nil, r.errf("bad magic %#x", magic)
	}
	ver, err := r.str("version")
	if err != nil {
		return nil, err
	}
	if ver != execVersion {
		return nil, r.errf("version %q, want %q", ver, execVersion)
	}
	e := &Executable{}

	r.section = "global"
	const minFuncBytes = 4 + 8 + 4*8 + 8
	nf, err := r.count("function", minFuncBytes)
	if err != nil {
		return nil, err
	}
	e.funcs = make([]FuncInfo, nf)
	e.funcMap = make(map[string]int, nf)
	for i := range e.funcs {
		f := &e.funcs[i]
		k, err := r.i32("function kind")
		if err != nil {
			return nil, err
		}
		f.Kind = FuncKind(k)
		if f.Name, err = r.str("function name"); err != nil {
			return nil, err
		}
		for _, p := range []*int64{&f.StartInstr, &f.EndInstr, &f.NumArgs, &f.RegisterFileSize} {
			if *p, err = r.i64("function field"); err != nil {
				return nil, err
			}
		}
		np, err := r.count("parameter name", 8)
		if err != nil {
			return nil, err
		}
		if np > 0 {
			f.ParamNames = make([]string, np)
			for j := range f.ParamNames {
				if f.ParamNames[j], err = r.str("parameter name"); err != nil {
					return nil, err
				}
			}
		}
		e.funcMap[f.Name] = i
	}

	if magic == execMagic {
		r.section = "memory scope"
		ns, err := r.count("memory scope", 16)
		if err != nil {
			return nil, err
		}
		byIdx := make(map[int64]string, ns)
		for i := 0; i < ns; i++ {
			idx, err := r.i64("memory scope index")
			if err != nil {
				return nil, err
			}
			s, err := r.str("memory scope")
			if err != nil {
				return nil, err
			}
			byIdx[idx] = s
		}
		for idx, s := range byIdx {
			e.scopes = append(e.scopes, MemoryScope{ConstIndex: idx, Scope: s})
		}
		sort.Slice(e.scopes, func(i, j int) bool { return e.scopes[i].ConstIndex < e.scopes[j].ConstIndex })
	}

	r.section = "constant"
	nc, err := r.count("constant", 8)
	if err != nil {
		return nil, err
	}
	e.constants = make([]Value, nc)
	for i := range e.constants {
		c, err := r.constant()
		if err != nil {
			return nil, fmt.Errorf("constant %d: %w", i, err)
		}
		e.constants[i] = c
	}

	r.section = "code"
	if e.instrOffset, err = r.i64s("instruction offset"); err != nil {
		return nil, err
	}
	if e.instrData, err = r.i64s("instruction data"); err != nil {
		return nil, err
	}
	if r.left() != 0 {
		return nil, r.errf("%d trailing bytes after the code section", r.left())
	}
	if err := e.validate(); err != nil {
		return nil, err
	}
	return e, nil
}

func (r *decoder) constant() (Value, error) {
	tag, err := r.i32("constant type tag")
	if err != nil {
		return nil, err
	}
	switch tag {
	case tagTensor:
		return r.tensor()
	case tagShape:
		s, err := r.i64s("shape")
		return Shape(s), err
	case tagStr:
		return r.str("string constant")
	case tagInt:
		return r.i64("int constant")
	case tagFloat:
		v, err := r.u64("float constant")
		return math.Float64frombits(v), err
	case tagDataType:
		return r.dtype("dtype constant")
	}
	return nil, r.errf("unsupported constant type tag %d (want Tensor 70, Shape 69, Str 65, Int 1, Float 3 or DataType 5)", tag)
}

func (r *decoder) tensor() (Value, error) {
	magic, err := r.u64("tensor magic")
	if err != nil {
		return nil, err
	}
	if magic != tensorMagic {
		return nil, r.errf("bad tensor magic %#x", magic)
	}
	if _, err := r.u64("tensor reserved"); err != nil {
		return nil, err
	}
	devType, err := r.i32("tensor device type")
	if err != nil {
		return nil, err
	}
	if _, err := r.i32("tensor device id"); err != nil {
		return nil, err
	}
	if devType != deviceCPU {
		return nil, r.errf("tensor saved on device type %d, only CPU (1) is supported", devType)
	}
	ndim, err := r.i32("tensor ndim")
	if err != nil {
		return nil, err
	}
	if ndim < 0 || ndim > maxTensorNDim {
		return nil, r.errf("tensor ndim %d out of range [0, %d]", ndim, maxTensorNDim)
	}
	dt, err := r.dtype("tensor dtype")
	if err != nil {
		return nil, err
	}
	if dt.Bits == 0 || dt.Lanes == 0 {
		return nil, r.errf("tensor dtype %s has no size", dt)
	}
	if err := r.need(8*int(ndim), "tensor shape"); err != nil {
		return nil, err
	}
	shape := make([]int64, ndim)
	for i := range shape {
		d, err := r.i64("tensor shape")
		if err != nil {
			return nil, err
		}
		shape[i] = d
	}
	nbytes, err := r.i64("tensor byte size")
	if err != nil {
		return nil, err
	}
	want, err := NumBytes(shape, dt)
	if err != nil {
		return nil, r.errf("tensor shape %s: %v", Shape(shape), err)
	}
	if nbytes != want {
		return nil, r.errf("tensor of shape %s and dtype %s has %d data bytes, want %d", Shape(shape), dt, nbytes, want)
	}
	if nbytes > int64(r.left()) {
		return nil, r.errf("tensor data of %d bytes, only %d left", nbytes, r.left())
	}
	t, err := NewTensor(shape, dt)
	if err != nil {
		return nil, r.errf("%v", err)
	}
	copy(t.data, r.b[r.pos:r.pos+int(nbytes)])
	r.pos += int(nbytes)
	return t, nil
}

// LoadExecutableFile reads and parses an executable file.
func LoadExecutableFile(path string) (*Executable, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("runtime: load executable: %w", err)
	}
	e, err := LoadExecutable(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return e, nil
}
