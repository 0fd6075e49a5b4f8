package runtime

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/relaxgo/relaxgo/internal/bytecode"
)

// TestTupleValue checks the one-allocation tuples (newTupleValue and a
// Storage's tuple room) against ordinary ones: the same elements through a
// type assertion, a type switch and reflect, capacity equal to length (an
// append copies instead of writing into the box), and that a tuple kept in
// a storage does not change when the storage is freed to the pool and
// handed out again while the tuple is unreachable to the VM.
func TestTupleValue(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 8, 9} {
		args := make([]Value, n)
		for i := range args {
			args[i] = int64(i + 1)
		}
		v := newTupleValue(args)
		tup, ok := v.(Tuple)
		if !ok || len(tup) != n || cap(tup) != n {
			t.Fatalf("n=%d: %T len %d cap %d", n, v, len(tup), cap(tup))
		}
		for i, e := range tup {
			if e != args[i] {
				t.Errorf("n=%d: element %d = %v, want %v", n, i, e, args[i])
			}
		}
		if rv := reflect.ValueOf(v); rv.Kind() != reflect.Slice || rv.Len() != n {
			t.Errorf("n=%d: reflect sees %v of %d", n, rv.Kind(), rv.Len())
		}
		switch x := v.(type) {
		case Tuple:
			if fmt.Sprint(x) != fmt.Sprint(Tuple(args)) {
				t.Errorf("n=%d: %v, want %v", n, x, args)
			}
		default:
			t.Errorf("n=%d: type switch took %T", n, x)
		}
		if n > 0 {
			args[0] = int64(-1) // the box's elements are its own
		}
		if n > 0 && tup[0] != int64(1) {
			t.Errorf("n=%d: tuple changed with its arguments", n)
		}
		if grown := append(tup, int64(99)); n > 0 && &grown[0] == &tup[0] {
			t.Errorf("n=%d: append wrote into the box", n)
		}
	}

}

// TestReturnedTupleSurvivesCalls: a returned tuple kept in its first
// tensor's storage keeps its elements and values through later calls that
// reuse the pool (the storage escaped with the tuple), and costs no
// allocation of its own.
func TestReturnedTupleSurvivesCalls(t *testing.T) {
	exec := build(t, func(b *execBuilder) {
		c := func(v Value) bytecode.Arg { return must[bytecode.Arg](t)(b.ConvertConstant(v)) }
		b.EmitFunction("main", 1, []string{"x"}, FuncKindVM, 0)
		b.EmitCall("vm.builtin.alloc_storage", []bytecode.Arg{bytecode.VMReg(), c(Shape{24}), bytecode.Imm(0), c(Float64), c("global")}, 1)
		b.EmitCall("vm.builtin.alloc_tensor", []bytecode.Arg{bytecode.Reg(1), bytecode.Imm(0), c(Shape{3}), c(Float64)}, 2)
		b.EmitCall("test.vm.add_into", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(0), bytecode.Reg(2)}, bytecode.VoidRegister)
		b.EmitCall("vm.builtin.make_tuple", []bytecode.Arg{bytecode.Reg(2), bytecode.Reg(0)}, 3)
		b.EmitRet(bytecode.Reg(3))
		b.EndFunction("main")
	})
	vm := newVM(t, exec)
	first := must[Value](t)(vm.Invoke("main", vec(1, 2, 3))).(Tuple)
	if len(first) != 2 {
		t.Fatalf("result %v", first)
	}
	want := floats(t, first[0])
	for i := 0; i < 5; i++ {
		must[Value](t)(vm.Invoke("main", vec(10, 20, 30)))
	}
	if got := floats(t, first[0]); !slices.Equal(got, want) || want[2] != 6 {
		t.Errorf("first result's tensor %v, want %v", got, want)
	}
	if s := first[0].(*Tensor).Storage(); !s.tupleUsed || &s.tuple.elems[0] != &first[0] {
		t.Error("the result tuple is not the one kept in its tensor's storage")
	}
	x := vec(1, 2, 3)
	if n := testing.AllocsPerRun(50, func() { vm.Invoke("main", x) }); n > 1 {
		t.Errorf("%v allocations per call, want 1 (the result's storage; the tuple in it)", n)
	}
}

// TestIntoResults checks the order and checks of InvokeInto's copy: a
// nested tuple's tensors depth first, and a result that is not made of
// tensors, or destinations of another count, shape or dtype, refused
// before any is written.
func TestIntoResults(t *testing.T) {
	r := func(v ...float32) *Tensor { return must[*Tensor](t)(FromSlice(v, int64(len(v)))) }
	res := Tuple{r(1), Tuple{r(2, 3), r(4)}}
	dst := []*Tensor{MustNewTensor([]int64{1}, Float32), MustNewTensor([]int64{2}, Float32), MustNewTensor([]int64{1}, Float32)}
	if n, err := intoResults(dst, res, 0, false); n != 3 || err != nil {
		t.Fatalf("check: %d, %v", n, err)
	}
	if _, err := intoResults(dst, res, 0, true); err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]float32{{1}, {2, 3}, {4}} {
		if got := dst[i].Float32s(); !slices.Equal(got, want) {
			t.Errorf("dst[%d] = %v, want %v", i, got, want)
		}
	}
	for _, c := range []struct {
		name string
		res  Value
		dst  []*Tensor
	}{
		{"not a tensor", Tuple{r(1), int64(3)}, dst[:2]},
		{"shape", res, []*Tensor{dst[0], dst[0], dst[2]}},
		{"dtype", Tuple{r(1)}, []*Tensor{MustNewTensor([]int64{1}, Float64)}},
		{"nil destination", Tuple{r(1)}, []*Tensor{nil}},
		{"nil result", Tuple{(*Tensor)(nil)}, dst[:1]},
	} {
		if _, err := intoResults(c.dst, c.res, 0, false); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	if n, err := intoResults(dst[:1], res, 0, false); err != nil || n != 3 {
		t.Errorf("too few destinations: counted %d (%v), want 3", n, err)
	}
}
