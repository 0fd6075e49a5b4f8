package runtime

import (
	"errors"
	"strings"
	"testing"
)

func TestArgsDecodes(t *testing.T) {
	x := MustNewTensor([]int64{2}, Float32)
	a := Args{Func: "f", Values: []Value{x, int64(3), 2.5, true, Shape{1, 2}, "s", "float16", Tuple{x, x}, nil}}
	if !a.Count(9, 9) || a.Tensor(0) != x || a.Int(1) != 3 || a.Float(2) != 2.5 || !a.Bool(3) ||
		len(a.Shape(4)) != 2 || a.String(5) != "s" || a.DType(6) != Float16 || len(a.Tensors(7)) != 2 ||
		a.DType(8) != Void || a.Ints(8) != nil || a.Float(1) != 3 || len(a.Ints(4)) != 2 || a.Err() != nil {
		t.Fatalf("decoding failed: %v", a.Err())
	}
}

func TestArgsErrors(t *testing.T) {
	cases := []struct {
		name string
		f    func(a *Args)
		want string
	}{
		{"count", func(a *Args) { a.Count(3, 3) }, "f: bad builtin arguments: expects 3 arguments, got 2"},
		{"at least", func(a *Args) { a.Count(3, -1) }, "expects at least 3 arguments, got 2"},
		{"range", func(a *Args) { a.Count(3, 4) }, "expects 3 to 4 arguments, got 2"},
		{"tensor", func(a *Args) { a.Tensor(0) }, "argument 0 must be a Tensor, got int"},
		{"int", func(a *Args) { a.Int(1) }, "argument 1 must be an int, got str"},
		{"missing", func(a *Args) { a.Int(5) }, "missing argument 5"},
		{"dtype", func(a *Args) { a.DType(1) }, "argument 1: "},
		{"sticky", func(a *Args) { a.Tensor(0); a.Int(1) }, "argument 0 must be a Tensor"},
	}
	for _, c := range cases {
		a := Args{Func: "f", Values: []Value{int64(1), "x"}}
		c.f(&a)
		err := a.Err()
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrBuiltinArgs) {
			t.Errorf("%s: error %v, want one containing %q and wrapping ErrBuiltinArgs", c.name, err, c.want)
		}
	}
	a := Args{Func: "f"}
	a.Fail("window %d not supported", 3)
	if err := a.Err(); err == nil || err.Error() != "f: window 3 not supported" || errors.Is(err, ErrBuiltinArgs) {
		t.Errorf("Fail recorded %v", err)
	}
}

func TestArgsDoNotAllocate(t *testing.T) {
	x := MustNewTensor([]int64{2}, Float32)
	vals := []Value{x, int64(3), 1.5}
	n := testing.AllocsPerRun(100, func() {
		a := Args{Func: "f", Values: vals}
		_, _, _ = a.Tensor(0), a.Int(1), a.Float(2)
		if a.Err() != nil {
			panic(a.Err())
		}
	})
	if n != 0 {
		t.Errorf("decoding allocates %v times", n)
	}
}
