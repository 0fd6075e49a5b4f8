package rtimpl

import (
	"errors"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestCallStagesArguments(t *testing.T) {
	window := make([]runtime.Value, 2)
	var got []runtime.Value
	f := runtime.PackedFunc(func(args []runtime.Value) (runtime.Value, error) {
		got = args
		return int64(len(args)), nil
	})
	v, err := Call(f, window, int64(1), "two")
	if err != nil || v != int64(2) {
		t.Fatalf("Call = %v, %v", v, err)
	}
	if &got[0] != &window[0] || got[0] != int64(1) || got[1] != "two" {
		t.Errorf("callee saw %v, not the staged window", got)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = Call(f, window, int64(1), "two") }); n != 0 {
		t.Errorf("Call allocates %v times", n)
	}
}

func TestCallErr(t *testing.T) {
	base := errors.New("boom")
	err := CallErr(3, "kernels.add", base)
	var cl *runtime.CallError
	if !errors.Is(err, base) || !errors.As(err, &cl) || cl.Instr != 3 || cl.Callee != "kernels.add" || cl.Func != "" {
		t.Errorf("CallErr = %#v, want a CallError at instruction 3 calling kernels.add, function left for the caller", err)
	}
	// An inner call's error already has its context: it passes unchanged,
	// as in bytecode mode, so recursion does not grow the message.
	cl.Func = "inner"
	if got := CallErr(7, "outer_callee", err); got != err {
		t.Errorf("an inner CallError came back as %v, want it unchanged", got)
	}
	ce := &runtime.CheckError{}
	if got := CallErr(3, "vm.builtin.check_tensor_info", ce); got != error(ce) {
		t.Errorf("a *CheckError came back as %v, want it unchanged", got)
	}
}

func TestValueHelpers(t *testing.T) {
	if ok, err := IfCond(true); !ok || err != nil {
		t.Errorf("IfCond(true) = %v, %v", ok, err)
	}
	if ok, err := IfCond(int64(0)); ok || err != nil {
		t.Errorf("IfCond(0) = %v, %v", ok, err)
	}
	if _, err := IfCond("x"); err == nil {
		t.Error("IfCond(string): no error")
	}
	x := runtime.MustNewTensor([]int64{2, 3}, runtime.Float32)
	if s, ok := ValueShape(x); !ok || len(s) != 2 || s[1] != 3 {
		t.Errorf("ValueShape(tensor) = %v, %v", s, ok)
	}
	if s, ok := ValueShape(runtime.Shape{4}); !ok || s[0] != 4 {
		t.Errorf("ValueShape(shape) = %v, %v", s, ok)
	}
	if _, ok := ValueShape(int64(1)); ok {
		t.Error("ValueShape(int) ok")
	}
	heap := runtime.MustNewTensor([]int64{3}, runtime.Int64)
	if h, ok := ShapeHeap(heap); !ok || len(h) != 3 {
		t.Errorf("ShapeHeap = %v, %v", h, ok)
	}
	if _, ok := ShapeHeap(x); ok {
		t.Error("ShapeHeap(float32 tensor) ok")
	}
}

func TestResolveFuncsNamesMissing(t *testing.T) {
	_, err := ResolveFuncs("rtimpl.test.missing.a", "rtimpl.test.missing.b")
	if err == nil || !strings.Contains(err.Error(), "rtimpl.test.missing.a, rtimpl.test.missing.b") {
		t.Errorf("ResolveFuncs = %v", err)
	}
}

func TestLoadModelRejectsBadExecutable(t *testing.T) {
	if _, err := LoadModel(ModelSpec{Name: "bad", Executable: []byte("not an executable")}); err == nil {
		t.Error("LoadModel accepted garbage")
	}
}

// TestDirectFlags checks that a function registered once may be called
// directly and one whose registration was overridden may not, and that
// unknown names are direct (they fail to resolve anyway).
func TestDirectFlags(t *testing.T) {
	noop := func([]runtime.Value) (runtime.Value, error) { return nil, nil }
	if err := runtime.Register("test.rtimpl.direct_once", noop, false); err != nil {
		t.Fatal(err)
	}
	if err := runtime.Register("test.rtimpl.direct_over", noop, false); err != nil {
		t.Fatal(err)
	}
	if err := runtime.Register("test.rtimpl.direct_over", noop, true); err != nil {
		t.Fatal(err)
	}
	got := DirectFlags("test.rtimpl.direct_once", "test.rtimpl.direct_over", "test.rtimpl.absent")
	if want := []bool{true, false, true}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("DirectFlags = %v, want %v", got, want)
	}
}
