package runtime

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/internal/builtin"
	"github.com/relaxgo/relaxgo/internal/bytecode"

	goldenfile "github.com/relaxgo/relaxgo/internal/golden"
)

// goldenExec is a hand-built program exercising every constant type, every
// opcode, special registers, function references, a compiled entry and a
// memory scope.
func goldenExec(t testing.TB) *Executable {
	return build(t, func(b *execBuilder) {
		c := func(v Value) bytecode.Arg { return must[bytecode.Arg](t)(b.ConvertConstant(v)) }
		w := must[*Tensor](t)(FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3))
		cw := c(w)
		noErr(t, b.SaveMemoryScope(cw, "global"))
		cs := c(Shape{2, 3})
		cstr := c("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((2, 3), dtype=\"float32\"))")
		cbig := c(int64(1) << 60)
		cf := c(0.5)
		cdt := c(Float32)
		scalar := c(Scalar(int64(7)))

		b.DeclareFunction("helper", FuncKindVM)
		b.DeclareFunction("compiled", FuncKindVMTIR)
		b.EmitFunction("main", 2, []string{"x", "flag"}, FuncKindVM, 0)
		b.EmitCall("vm.builtin.check_tensor_info", []bytecode.Arg{bytecode.Reg(0), bytecode.Imm(2), cdt, cstr}, bytecode.VoidRegister)
		b.EmitCall("vm.builtin.alloc_shape_heap", []bytecode.Arg{bytecode.VMReg(), bytecode.Imm(2)}, 10)
		b.EmitCall("vm.builtin.match_shape", []bytecode.Arg{bytecode.Reg(0), bytecode.Reg(10), bytecode.Imm(2), bytecode.Imm(builtin.MatchStoreToHeap), bytecode.Imm(0), bytecode.Imm(builtin.MatchAssertEqualToImm), bytecode.Imm(3), cstr}, bytecode.VoidRegister)
		b.EmitCall("vm.builtin.read_if_cond", []bytecode.Arg{bytecode.Reg(1)}, 11)
		b.EmitIf(bytecode.Reg(11), 3)
		b.EmitCall("helper", []bytecode.Arg{bytecode.Reg(0), cw}, 12)
		b.EmitGoto(2)
		b.EmitCall("vm.builtin.copy", []bytecode.Arg{bytecode.Reg(0)}, 12)
		b.EmitCall("vm.builtin.make_tuple", []bytecode.Arg{bytecode.Reg(12), cs, cbig, cf, scalar, bytecode.Imm(-42)}, 13)
		b.EmitRet(bytecode.Reg(13))
		b.EndFunction("main")

		b.EmitFunction("helper", 2, []string{"a", "b"}, FuncKindVM, 0)
		b.EmitCall("vm.builtin.make_closure", []bytecode.Arg{must[bytecode.Arg](t)(b.GetFunction("compiled")), bytecode.Reg(1)}, 5)
		b.EmitCall("vm.builtin.invoke_closure", []bytecode.Arg{bytecode.VMReg(), bytecode.Reg(5), bytecode.Reg(0)}, 6)
		b.EmitRet(bytecode.Reg(6))
		b.EndFunction("helper")

		b.EmitFunction("compiled", 2, []string{"p", "q"}, FuncKindVMTIR, 5)
		b.EndFunction("compiled")
	})
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

func TestGoldenFiles(t *testing.T) {
	e := goldenExec(t)
	data := must[[]byte](t)(e.SaveToBytes())
	golden(t, "golden.exec", data)
	golden(t, "golden.txt", []byte(e.AsText()))
	golden(t, "golden.py", []byte(e.AsPython()))
	golden(t, "golden.stats", []byte(e.Stats()))
}

func TestRoundTripByteForByte(t *testing.T) {
	for name, e := range map[string]*Executable{
		"golden": goldenExec(t), "addmul": addMulExec(t), "if": ifExec(t),
		"recursion": recursionExec(t), "storage": storageExec(t),
	} {
		data := must[[]byte](t)(e.SaveToBytes())
		back, err := LoadExecutable(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		again := must[[]byte](t)(back.SaveToBytes())
		if !bytes.Equal(data, again) {
			t.Errorf("%s: round trip changed the bytes", name)
		}
		if back.AsText() != e.AsText() || back.AsPython() != e.AsPython() || back.Stats() != e.Stats() {
			t.Errorf("%s: round trip changed the text", name)
		}
	}
	// The loaded executable runs.
	back := must[*Executable](t)(LoadExecutable(must[[]byte](t)(recursionExec(t).SaveToBytes())))
	if got := must[Value](t)(newVM(t, back).Invoke("sum", int64(4))); got != int64(10) {
		t.Errorf("loaded sum(4) = %v", got)
	}
}

func TestSaveLoadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.exec")
	noErr(t, goldenExec(t).SaveToFile(path))
	e := must[*Executable](t)(LoadExecutableFile(path))
	if !e.HasFunction("helper") || e.NumFuncs() != goldenExec(t).NumFuncs() {
		t.Error("loaded file lacks functions")
	}
	if _, err := LoadExecutableFile(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing file loaded")
	}
}

func TestLoadHeaderLayout(t *testing.T) {
	data := must[[]byte](t)(addMulExec(t).SaveToBytes())
	if binary.LittleEndian.Uint64(data) != 0xD225DE2F4214151E {
		t.Errorf("magic %#x", binary.LittleEndian.Uint64(data))
	}
	if binary.LittleEndian.Uint64(data[8:]) != 4 || string(data[16:20]) != "0.14" {
		t.Errorf("version bytes %q", data[8:20])
	}
}

func TestAsTextMatchesTVM(t *testing.T) {
	want := `@main:
  If    %0, 3
  call  test.vm.add      in: %1, %2       dst: %3
  goto  2
  call  test.vm.mul      in: %1, %2       dst: %3
  ret   %3

@test.vm.add packed_func;

@test.vm.mul packed_func;

`
	if got := ifExec(t).AsText(); got != want {
		t.Errorf("AsText:\n%q\nwant\n%q", got, want)
	}
	wantPy := `ib = rx.Builder()
with ib.function("main", num_inputs=3):
    ib.emit_if(ib.r(0), 3)
    ib.emit_call("test.vm.add", args=[ib.r(1), ib.r(2)], dst=ib.r(3))
    ib.emit_goto(2)
    ib.emit_call("test.vm.mul", args=[ib.r(1), ib.r(2)], dst=ib.r(3))
    ib.emit_ret(ib.r(3))
`
	if got := ifExec(t).AsPython(); got != wantPy {
		t.Errorf("AsPython:\n%s\nwant\n%s", got, wantPy)
	}
}

func TestStatsFormat(t *testing.T) {
	e := build(t, func(b *execBuilder) {
		for _, v := range []Value{MustNewTensor([]int64{3, 4}, Float32), Scalar(float32(1)), Shape{1, 2}, Shape{}, "s", int64(1) << 60, Int8} {
			must[bytecode.Arg](t)(b.ConvertConstant(v))
		}
		fn(b, "main", 1, func() { b.EmitRet(bytecode.Reg(0)) })
	})
	want := "Relax VM executable statistics:\n" +
		"  Constant pool (# 7): [[3, 4], scalar, shapetuple[1, 2], shapetupl], \"s\", 1152921504606846976, int8]\n" +
		"  Globals (#1): [main]\n"
	if got := e.Stats(); got != want {
		t.Errorf("Stats:\n%q\nwant\n%q", got, want)
	}
	empty := build(t, func(b *execBuilder) {})
	if got := empty.Stats(); got != "Relax VM executable statistics:\n  Constant pool (# 0): []\n  Globals (#0): []\n" {
		t.Errorf("empty Stats %q", got)
	}
}

// TestLoadRejects corrupts a valid file in targeted ways.
func TestLoadRejects(t *testing.T) {
	good := must[[]byte](t)(goldenExec(t).SaveToBytes())
	le := binary.LittleEndian
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	funcCountAt := 8 + 8 + 4
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "truncated magic"},
		{"bad magic", mut(func(b []byte) []byte { b[0] ^= 1; return b }), "bad magic"},
		{"bad version", mut(func(b []byte) []byte { b[18] = '9'; return b }), "version"},
		{"huge function count", mut(func(b []byte) []byte { le.PutUint64(b[funcCountAt:], 1<<62); return b }), "function count"},
		{"truncated", good[:len(good)-3], "left"},
		{"trailing", append(append([]byte(nil), good...), 0), "trailing"},
		{"huge string", mut(func(b []byte) []byte { le.PutUint64(b[funcCountAt+8+4:], 1<<40); return b }), "length"},
	}
	for _, tc := range tests {
		_, err := LoadExecutable(tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
		}
		if err != nil && !errors.Is(err, ErrFormat) && !errors.Is(err, ErrInvalidExecutable) {
			t.Errorf("%s: err %v wraps neither ErrFormat nor ErrInvalidExecutable", tc.name, err)
		}
	}
	// A 100-byte file claiming huge counts everywhere must fail fast without
	// allocating.
	small := make([]byte, 100)
	le.PutUint64(small, execMagic)
	le.PutUint64(small[8:], 4)
	copy(small[16:], "0.14")
	for i := 20; i+8 <= 100; i += 8 {
		le.PutUint64(small[i:], 1<<60)
	}
	allocs := testing.AllocsPerRun(10, func() { LoadExecutable(small) })
	if allocs > 20 {
		t.Errorf("loading 100 hostile bytes made %v allocations", allocs)
	}
}

// TestLoadValidates feeds structurally parseable but invalid programs.
func TestLoadValidates(t *testing.T) {
	base := func() *Executable { return addMulExec(t) }
	tests := []struct {
		name string
		edit func(e *Executable)
		want string
	}{
		{"callee index", func(e *Executable) { e.instrData[2] = 99 }, "callee index 99"},
		{"register beyond file", func(e *Executable) { e.instrData[4] = int64(bytecode.Reg(77)) }, "register 77"},
		{"const index", func(e *Executable) { e.instrData[4] = int64(bytecode.ConstIdx(3)) }, "constant index 3"},
		{"bad arg kind", func(e *Executable) { e.instrData[4] = int64(9) << 56 }, "argument kind 9"},
		{"bad opcode", func(e *Executable) { e.instrData[0] = 17 }, "unknown opcode 17"},
		{"offset outside", func(e *Executable) { e.instrOffset[1] = 1000 }, "outside instruction data"},
		{"range", func(e *Executable) { e.funcs[0].EndInstr = 50 }, "instruction range"},
		{"falls off", func(e *Executable) { e.funcs[0].EndInstr = 1 }, "falls off"},
		{"kind", func(e *Executable) { e.funcs[0].Kind = 7 }, "unknown kind 7"},
		{"registers", func(e *Executable) { e.funcs[0].RegisterFileSize = 1 << 40 }, "exceeds the limit"},
		{"duplicate name", func(e *Executable) { e.funcs[1].Name = e.funcs[0].Name }, "both named"},
		{"param names", func(e *Executable) { e.funcs[0].ParamNames = []string{"x"} }, "parameter names"},
		{"num args", func(e *Executable) { e.funcs[0].NumArgs = -1 }, "negative number"},
	}
	for _, tc := range tests {
		e := base()
		tc.edit(e)
		data := must[[]byte](t)(e.SaveToBytes())
		_, err := LoadExecutable(data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}
