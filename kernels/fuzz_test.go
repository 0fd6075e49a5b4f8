package kernels

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// fuzzBytes hands out values from a fuzz input, then zeros.
type fuzzBytes struct {
	b []byte
	i int
}

func (f *fuzzBytes) next() byte {
	if f.i >= len(f.b) {
		return 0
	}
	f.i++
	return f.b[f.i-1]
}

// small is an int in [lo, lo+span).
func (f *fuzzBytes) small(lo, span int) int { return lo + int(f.next())%span }

var fuzzDTypes = []runtime.DataType{runtime.Float32, runtime.Float32, runtime.Float32, runtime.Int64, runtime.Int32, runtime.Bool, runtime.Float64, runtime.Float16, runtime.UInt8}

// shape is a rank-0..4 shape of at most 4 per dim (tensors stay tiny).
func (f *fuzzBytes) shape() []int64 {
	s := make([]int64, f.small(0, 5))
	for i := range s {
		s[i] = int64(f.small(0, 5))
	}
	return s
}

// tensor is a small tensor with fuzzed dtype, shape and contents.
func (f *fuzzBytes) tensor() *runtime.Tensor {
	dt := fuzzDTypes[f.small(0, len(fuzzDTypes))]
	t, err := runtime.NewTensor(f.shape(), dt)
	if err != nil {
		return nil
	}
	b := t.Bytes()
	for i := range b {
		b[i] = f.next()
	}
	if dt == runtime.Bool {
		for i := range b {
			b[i] &= 1
		}
	}
	return t
}

// splitArgs splits an OpSpec.Args description at top-level commas.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// fuzzArg makes a value for one described argument: the hint in
// parentheses picks the kind (an int, a Shape, a bool, a string, a dtype,
// a tuple), a bare name a tensor; sometimes nil, sometimes a wrong kind.
func (f *fuzzBytes) fuzzArg(desc string) runtime.Value {
	switch f.small(0, 16) {
	case 0:
		return nil
	case 1:
		return f.tensor() // a tensor where something else may be expected
	case 2:
		return int64(f.small(-3, 8))
	}
	hint := ""
	if i := strings.Index(desc, "("); i >= 0 {
		hint = desc[i:]
	}
	switch {
	case strings.Contains(hint, "Shape"):
		s := make(runtime.Shape, f.small(0, 5))
		for i := range s {
			s[i] = int64(f.small(-2, 7))
		}
		return s
	case strings.Contains(hint, "int64"):
		return int64(f.small(-3, 10))
	case strings.Contains(hint, "float64"), strings.Contains(hint, "float"):
		return []float64{0, 1, -1, 0.5, 1e-5, math.Inf(1), math.NaN(), 3}[f.small(0, 8)]
	case strings.Contains(hint, "bool"):
		return f.next()&1 == 1
	case strings.Contains(hint, "DataType"):
		return fuzzDTypes[f.small(0, len(fuzzDTypes))]
	case strings.Contains(hint, "string"):
		if i := strings.Index(hint, "string: "); i >= 0 {
			opts := strings.Split(strings.TrimRight(hint[i+8:], ")"), ", ")
			return opts[f.small(0, len(opts))]
		}
		return []string{"", "NCHW", "NHWC", "OIHW", "linear", "nearest", "mean", "sum", "none", "x"}[f.small(0, 10)]
	case strings.Contains(hint, "Tuple"):
		t := make(runtime.Tuple, f.small(0, 4))
		for i := range t {
			t[i] = f.tensor()
		}
		return t
	}
	return f.tensor()
}

// FuzzKernels calls every registered kernel with fuzzed arguments shaped by
// its OpSpec description: tiny tensors of random dtypes and shapes, small
// attributes, nils and wrong kinds. Errors are expected; a panic is a bug.
func FuzzKernels(f *testing.F) {
	names := Names()
	for i := range names {
		f.Add([]byte{byte(i), byte(i >> 8), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
		f.Add([]byte{byte(i), byte(i >> 8), 3, 0, 2, 2, 3, 3, 0, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fb := &fuzzBytes{b: data}
		op := names[(int(fb.next())|int(fb.next())<<8)%len(names)]
		spec, _ := Lookup(op)
		fn, ok := runtime.Lookup(spec.Name)
		if !ok {
			t.Fatalf("%s is in the table but not registered", spec.Name)
		}
		var args []runtime.Value
		for _, d := range splitArgs(spec.Args) {
			args = append(args, fb.fuzzArg(d))
		}
		// Sometimes one argument too few or too many.
		switch fb.small(0, 8) {
		case 0:
			if len(args) > 0 {
				args = args[:len(args)-1]
			}
		case 1:
			args = append(args, fb.tensor())
		}
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s(%s) panicked: %v", spec.Name, describeArgs(args), r)
			}
		}()
		fn(args)
	})
}

func describeArgs(args []runtime.Value) string {
	parts := make([]string, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case *runtime.Tensor:
			if x == nil {
				parts[i] = "nil tensor"
			} else {
				parts[i] = x.String()
			}
		default:
			parts[i] = fmt.Sprintf("%T %v", a, a)
		}
	}
	return strings.Join(parts, ", ")
}
