// Package onnx imports ONNX models (ModelProto files) into relaxgo's Relax IR:
// an ir.Module whose "main" function calls high-level Relax operators, which
// the normal pipeline legalizes to kernels. The conversion follows TVM's
// relax ONNX frontend (python/tvm/relax/frontend/onnx/onnx_frontend.py).
package onnx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/relaxgo/relaxgo/ir/onnx/onnxpb"
	"github.com/relaxgo/relaxgo/runtime"
)

// Decode parses a serialized ModelProto. A corrupt or truncated file is an error.
func Decode(b []byte) (*onnxpb.ModelProto, error) {
	m := &onnxpb.ModelProto{}
	if err := (proto.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("onnx: decoding the model: %w", err)
	}
	if m.Graph == nil {
		return nil, errors.New("onnx: the model has no graph (not an ONNX model, or truncated)")
	}
	return m, nil
}

// ReadModel reads and decodes an .onnx file.
func ReadModel(path string) (*onnxpb.ModelProto, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ReadTensorFile reads a serialized TensorProto (the test_data_set_*/input_*.pb files).
func ReadTensorFile(path string) (*runtime.Tensor, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	tp := &onnxpb.TensorProto{}
	if err := proto.Unmarshal(b, tp); err != nil {
		return nil, "", fmt.Errorf("%s: decoding the tensor: %w", path, err)
	}
	t, err := TensorFromProto(tp, filepath.Dir(path))
	return t, tp.GetName(), err
}

// ONNX TensorProto.DataType codes.
const (
	tFloat      = 1
	tUint8      = 2
	tInt8       = 3
	tUint16     = 4
	tInt16      = 5
	tInt32      = 6
	tInt64      = 7
	tString     = 8
	tBool       = 9
	tFloat16    = 10
	tDouble     = 11
	tUint32     = 12
	tUint64     = 13
	tComplex64  = 14
	tComplex128 = 15
	tBFloat16   = 16
)

var elemNames = map[int32]string{1: "FLOAT", 2: "UINT8", 3: "INT8", 4: "UINT16", 5: "INT16", 6: "INT32", 7: "INT64",
	8: "STRING", 9: "BOOL", 10: "FLOAT16", 11: "DOUBLE", 12: "UINT32", 13: "UINT64", 14: "COMPLEX64",
	15: "COMPLEX128", 16: "BFLOAT16", 17: "FLOAT8E4M3FN", 18: "FLOAT8E4M3FNUZ", 19: "FLOAT8E5M2",
	20: "FLOAT8E5M2FNUZ", 21: "UINT4", 22: "INT4", 23: "FLOAT4E2M1"}

func elemName(t int32) string {
	if n, ok := elemNames[t]; ok {
		return n
	}
	return "elem_type " + strconv.Itoa(int(t))
}

// DType maps an ONNX element type to a relaxgo dtype.
func DType(elem int32) (runtime.DataType, error) {
	switch elem {
	case tFloat:
		return runtime.Float32, nil
	case tUint8:
		return runtime.UInt8, nil
	case tInt8:
		return runtime.Int8, nil
	case tUint16:
		return runtime.UInt16, nil
	case tInt16:
		return runtime.Int16, nil
	case tInt32:
		return runtime.Int32, nil
	case tInt64:
		return runtime.Int64, nil
	case tBool:
		return runtime.Bool, nil
	case tFloat16:
		return runtime.Float16, nil
	case tDouble:
		return runtime.Float64, nil
	case tUint32:
		return runtime.UInt32, nil
	case tUint64:
		return runtime.UInt64, nil
	case tBFloat16:
		return runtime.BFloat16, nil
	}
	return runtime.Void, fmt.Errorf("unsupported ONNX element type %s", elemName(elem))
}

// TensorFromProto converts a TensorProto. External data is read relative to
// baseDir (the model's directory) and must stay inside it.
func TensorFromProto(tp *onnxpb.TensorProto, baseDir string) (*runtime.Tensor, error) {
	name := tp.GetName()
	fail := func(format string, a ...any) error {
		return fmt.Errorf("onnx: tensor %q: %s", name, fmt.Sprintf(format, a...))
	}
	if tp.Segment != nil {
		return nil, fail("segmented tensors are not supported")
	}
	dt, err := DType(tp.GetDataType())
	if err != nil {
		return nil, fail("%v", err)
	}
	shape := append([]int64{}, tp.Dims...)
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return nil, fail("negative dimension %d", d)
		}
		if d != 0 && n > math.MaxInt64/d {
			return nil, fail("shape %v is too large", shape)
		}
		n *= d
	}
	esize := int64(dt.ElemBytes())
	if n > (1<<62)/max(esize, 1) {
		return nil, fail("shape %v is too large", shape)
	}
	nbytes := n * esize
	raw := tp.RawData
	if tp.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		raw, err = readExternal(tp, baseDir, nbytes)
		if err != nil {
			return nil, fail("%v", err)
		}
	}
	if raw != nil || tp.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		if int64(len(raw)) != nbytes {
			return nil, fail("raw data has %d bytes, shape %v of %s needs %d", len(raw), shape, dt, nbytes)
		}
		t, err := runtime.NewTensor(shape, dt)
		if err != nil {
			return nil, fail("%v", err)
		}
		copy(t.Bytes(), raw)
		if dt == runtime.Bool {
			for i, b := range t.Bytes() {
				if b != 0 {
					t.Bytes()[i] = 1
				}
			}
		}
		return t, nil
	}
	typed := len(tp.FloatData) + len(tp.DoubleData) + len(tp.Int64Data) + len(tp.Uint64Data) + len(tp.Int32Data)
	if int64(typed) != n {
		return nil, fail("has %d values, shape %v needs %d", typed, shape, n)
	}
	t, err := runtime.NewTensor(shape, dt)
	if err != nil {
		return nil, fail("%v", err)
	}
	b := t.Bytes()
	count := func(have int) error {
		if int64(have) != n {
			return fail("has %d values, shape %v needs %d", have, shape, n)
		}
		return nil
	}
	le := binary.LittleEndian
	switch dt {
	case runtime.Float32:
		if err := count(len(tp.FloatData)); err != nil {
			return nil, err
		}
		for i, v := range tp.FloatData {
			le.PutUint32(b[4*i:], math.Float32bits(v))
		}
	case runtime.Float64:
		if err := count(len(tp.DoubleData)); err != nil {
			return nil, err
		}
		for i, v := range tp.DoubleData {
			le.PutUint64(b[8*i:], math.Float64bits(v))
		}
	case runtime.Int64:
		if err := count(len(tp.Int64Data)); err != nil {
			return nil, err
		}
		for i, v := range tp.Int64Data {
			le.PutUint64(b[8*i:], uint64(v))
		}
	case runtime.UInt32, runtime.UInt64:
		if err := count(len(tp.Uint64Data)); err != nil {
			return nil, err
		}
		for i, v := range tp.Uint64Data {
			if dt == runtime.UInt32 {
				le.PutUint32(b[4*i:], uint32(v))
			} else {
				le.PutUint64(b[8*i:], v)
			}
		}
	default: // int32, int16, int8, uint16, uint8, bool, float16, bfloat16: int32_data
		if err := count(len(tp.Int32Data)); err != nil {
			return nil, err
		}
		for i, v := range tp.Int32Data {
			switch esize {
			case 4:
				le.PutUint32(b[4*i:], uint32(v))
			case 2:
				le.PutUint16(b[2*i:], uint16(v))
			default:
				if dt == runtime.Bool && v != 0 {
					v = 1
				}
				b[i] = byte(v)
			}
		}
	}
	return t, nil
}

// readExternal reads the bytes of an external-data tensor: key "location"
// (a path relative to the model's directory, which must not escape it),
// optional "offset" and "length".
func readExternal(tp *onnxpb.TensorProto, baseDir string, nbytes int64) ([]byte, error) {
	var loc string
	offset, length := int64(0), int64(-1)
	for _, kv := range tp.ExternalData {
		switch kv.GetKey() {
		case "location":
			loc = kv.GetValue()
		case "offset", "length":
			v, err := strconv.ParseInt(kv.GetValue(), 10, 64)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("external data %s %q is not a non-negative integer", kv.GetKey(), kv.GetValue())
			}
			if kv.GetKey() == "offset" {
				offset = v
			} else {
				length = v
			}
		}
	}
	if loc == "" {
		return nil, errors.New("external data without a location")
	}
	if baseDir == "" {
		return nil, fmt.Errorf("external data %q: the model's directory is unknown (import the model from a file)", loc)
	}
	if filepath.IsAbs(loc) || strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, `\`) || filepath.VolumeName(loc) != "" {
		return nil, fmt.Errorf("external data location %q is absolute; it must be relative to the model's directory", loc)
	}
	clean := filepath.Clean(filepath.FromSlash(loc))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("external data location %q escapes the model's directory", loc)
	}
	path := filepath.Join(baseDir, clean)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		if base, err := filepath.EvalSymlinks(baseDir); err == nil {
			if rel, err := filepath.Rel(base, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return nil, fmt.Errorf("external data location %q resolves outside the model's directory", loc)
			}
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("external data: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if length < 0 {
		length = st.Size() - offset
	}
	if length != nbytes {
		return nil, fmt.Errorf("external data %q has length %d, the tensor needs %d bytes", loc, length, nbytes)
	}
	if offset > st.Size() || length > st.Size()-offset {
		return nil, fmt.Errorf("external data %q: offset %d + length %d exceeds the file size %d", loc, offset, length, st.Size())
	}
	buf := make([]byte, length)
	if _, err := f.ReadAt(buf, offset); err != nil && !(errors.Is(err, io.EOF) && length == 0) {
		return nil, fmt.Errorf("external data %q: %w", loc, err)
	}
	return buf, nil
}
