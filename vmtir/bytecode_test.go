package vmtir

import (
	"testing"

	"github.com/relaxgo/relaxgo/internal/builtin"
	"github.com/relaxgo/relaxgo/internal/bytecode"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestBytecodeConstMapping checks that the mapping Bytecode returns is the
// one the executable uses: small integers become immediates, other constants
// index the pool (equal constants share an entry).
func TestBytecodeConstMapping(t *testing.T) {
	shape := runtime.Shape{2, 3}
	p := &Program{
		Funcs: []*Func{
			{Name: builtin.MakeTuple, Kind: runtime.FuncKindPacked},
			{Name: "main", Kind: runtime.FuncKindVM, NumArgs: 1, ParamNames: []string{"x"}, NumRegs: 2, Instrs: []Instr{
				{Op: bytecode.OpCall, Dst: 1, Func: 0, Args: []Arg{Reg(0), Const(0), Const(1), Const(2), Const(3)}},
				{Op: bytecode.OpRet, Reg: 1},
			}},
		},
		Consts: []runtime.Value{int64(7), shape, "s", runtime.Shape{2, 3}},
	}
	exec, consts, err := Bytecode(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(consts) != len(p.Consts) {
		t.Fatalf("%d mappings for %d constants", len(consts), len(p.Consts))
	}
	if consts[0] != Imm(7) {
		t.Errorf("int64 7 went to %+v, want an immediate", consts[0])
	}
	pool := exec.Constants()
	for i := 1; i < len(consts); i++ {
		c := consts[i]
		if c.Kind != ArgConst || c.Value < 0 || int(c.Value) >= len(pool) {
			t.Fatalf("constant %d went to %+v, want a pool index below %d", i, c, len(pool))
		}
		if !runtime.ValuesEqual(pool[c.Value], p.Consts[i]) {
			t.Errorf("constant %d: pool entry %d is %v, want %v", i, c.Value, pool[c.Value], p.Consts[i])
		}
	}
	if consts[1] != consts[3] {
		t.Errorf("equal shapes went to %+v and %+v, want one pool entry", consts[1], consts[3])
	}
}

// TestExecBuilderReportsFirstError checks that Get reports a builder error.
func TestExecBuilderReportsFirstError(t *testing.T) {
	b := NewExecBuilder()
	if err := b.DeclareFunction("f", runtime.FuncKind(99)); err == nil {
		t.Fatal("declaring a function of kind 99: no error")
	}
	if _, err := b.Get(); err == nil {
		t.Fatal("Get after a failed call: no error")
	}
}
