package runtime

import (
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/internal/bytecode"
)

func TestBuilderErrors(t *testing.T) {
	tests := []struct {
		name string
		f    func(b *execBuilder)
		want string
	}{
		{"redefined", func(b *execBuilder) {
			fn(b, "f", 0, func() { b.EmitCall("test.vm.noop", nil, 0); b.EmitRet(bytecode.Reg(0)) })
			b.EmitFunction("f", 0, nil, FuncKindVM, 0)
		}, `function "f" already defined`},
		{"kind clash", func(b *execBuilder) {
			b.DeclareFunction("f", FuncKindPacked)
			b.DeclareFunction("f", FuncKindVM)
		}, "already declared as packed_func"},
		{"param names", func(b *execBuilder) {
			b.EmitFunction("f", 2, []string{"x"}, FuncKindVM, 0)
		}, "parameter names has 1 names"},
		{"end twice", func(b *execBuilder) {
			fn(b, "f", 0, func() { b.EmitCall("test.vm.noop", nil, 0); b.EmitRet(bytecode.Reg(0)) })
			b.EndFunction("f")
		}, "can only be called once"},
		{"end unknown", func(b *execBuilder) { b.EndFunction("g") }, `unknown function "g"`},
		{"ret imm", func(b *execBuilder) { b.EmitRet(bytecode.Imm(1)) }, "ret operand must be a register"},
		{"if imm", func(b *execBuilder) { b.EmitIf(bytecode.Imm(1), 2) }, "If condition must be a register"},
		{"get unknown", func(b *execBuilder) { b.GetFunction("nope") }, `cannot find function "nope"`},
		{"declared only", func(b *execBuilder) {
			b.DeclareFunction("g", FuncKindVM)
		}, "negative number of arguments"},
		{"no end", func(b *execBuilder) {
			b.EmitFunction("f", 0, nil, FuncKindVM, 0)
		}, "EndFunction not called"},
		{"vmtir registers", func(b *execBuilder) {
			b.EmitFunction("f", 2, nil, FuncKindVMTIR, 2)
			b.EndFunction("f")
		}, "at least num_args+1 = 3"},
		{"goto zero", func(b *execBuilder) {
			fn(b, "f", 0, func() { b.EmitGoto(0); b.EmitRet(bytecode.VoidReg()) })
		}, `function "f", instruction 0: goto offset 0`},
		{"if offset", func(b *execBuilder) {
			fn(b, "f", 1, func() { b.EmitIf(bytecode.Reg(0), 1); b.EmitRet(bytecode.Reg(0)) })
		}, "false offset 1 must be greater than 1"},
		{"jump out", func(b *execBuilder) {
			fn(b, "f", 1, func() { b.EmitGoto(5); b.EmitRet(bytecode.Reg(0)) })
		}, "jumps outside the function"},
		{"const index", func(b *execBuilder) {
			fn(b, "f", 0, func() {
				b.EmitCall("test.vm.noop", []bytecode.Arg{bytecode.ConstIdx(4)}, 0)
				b.EmitRet(bytecode.Reg(0))
			})
		}, "constant index 4"},
		{"func index", func(b *execBuilder) { b.EmitCallIdx(3, nil, 0) }, "function index 3"},
		{"use before def in ret", func(b *execBuilder) {
			fn(b, "f", 0, func() { b.EmitRet(bytecode.Reg(5)) })
		}, `function "f", instruction 0: result register %5 is used before it is defined`},
	}
	for _, tc := range tests {
		b := newExecBuilder()
		tc.f(b)
		_, err := b.Get()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestBuilderGetTwiceAndSpecialRegisters(t *testing.T) {
	b := newExecBuilder()
	fn(b, "main", 0, func() {
		b.EmitCall("vm.builtin.null_value", nil, bytecode.VoidRegister)
		b.EmitCall("vm.builtin.copy", []bytecode.Arg{bytecode.VMReg()}, 7)
		b.EmitRet(bytecode.Reg(7))
	})
	e1 := must[*Executable](t)(b.Get())
	e2 := must[*Executable](t)(b.Get())
	if e1.AsText() != e2.AsText() {
		t.Error("Get is not idempotent")
	}
	if !strings.Contains(e1.AsText(), "in: %vm          dst: %0") || !strings.Contains(e1.AsText(), "dst: %void") {
		t.Errorf("AsText:\n%s", e1.AsText())
	}
	vm := newVM(t, e1)
	if got := must[Value](t)(vm.Invoke("main")); got != vm {
		t.Errorf("%%vm register read %v", got)
	}
}

func TestModuleLookup(t *testing.T) {
	lib := NewModule("lib")
	top := NewModule("top")
	top.Import(lib)
	f := PackedFunc(func([]Value) (Value, error) { return "lib", nil })
	noErr(t, lib.Register("k", f))
	if err := lib.Register("k", f); err == nil {
		t.Error("duplicate registration accepted")
	}
	if _, ok := top.GetFunction("k"); !ok {
		t.Error("imported function not found")
	}
	if _, ok := top.GetFunction("nope"); ok {
		t.Error("unknown function found")
	}
	noErr(t, lib.registerVMTIR("__vmtir__m", func(*VM, []Value) error { return nil }))
	if _, ok := top.getVMTIRFunc("__vmtir__m"); !ok {
		t.Error("imported compiled function not found")
	}
	if got := lib.ListFunctions(); strings.Join(got, ",") != "__vmtir__m,k" {
		t.Errorf("ListFunctions = %v", got)
	}
	if top.Name() != "top" || len(top.Imports()) != 1 {
		t.Error("name/imports")
	}
}
