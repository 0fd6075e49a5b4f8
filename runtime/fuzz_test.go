package runtime

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/relaxgo/relaxgo/internal/bytecode"
	goldenfile "github.com/relaxgo/relaxgo/internal/golden"
)

// FuzzLoadExecutable: loading arbitrary bytes never panics; whatever loads
// saves again, reloads, and saves to the same bytes; a VM can be created from
// it when its packed functions exist.
func FuzzLoadExecutable(f *testing.F) {
	for _, e := range []*Executable{goldenExec(f), addMulExec(f), ifExec(f), recursionExec(f), storageExec(f)} {
		data, err := e.SaveToBytes()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := LoadExecutable(data)
		if err != nil {
			return
		}
		out, err := e.SaveToBytes()
		if err != nil {
			t.Fatalf("loaded executable does not save: %v", err)
		}
		e2, err := LoadExecutable(out)
		if err != nil {
			t.Fatalf("saved executable does not load: %v", err)
		}
		out2, err := e2.SaveToBytes()
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("save/load/save is not stable")
		}
		_ = e.AsText()
		_ = e.AsPython()
		_ = e.Stats()
		NewVM(e) // may fail for unknown packed functions, must not panic
	})
}

// FuzzCheckInstructions: the instruction checker never panics on arbitrary
// function tables and words, and accepted programs run without panicking.
func FuzzCheckInstructions(f *testing.F) {
	for _, e := range []*Executable{addMulExec(f), ifExec(f), recursionExec(f)} {
		f.Add(encodeCheckInput(e))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		funcs, nconst, offs, words, ok := decodeCheckInput(data)
		if !ok {
			return
		}
		if err := checkInstructions(funcs, nconst, offs, words); err != nil {
			return
		}
		// Accepted: executing it with int arguments must not panic (errors
		// are fine). Packed functions are bound to no-ops.
		e := &Executable{funcs: funcs, funcMap: map[string]int{}, constants: make([]Value, nconst), instrOffset: offs, instrData: words}
		m := NewModule("fuzz")
		for i, fi := range funcs {
			e.funcMap[fi.Name] = i
			if fi.Kind == FuncKindPacked {
				m.Register(fi.Name, func([]Value) (Value, error) { return int64(0), nil })
			}
			if fi.Kind == FuncKindVMTIR {
				m.registerVMTIR(vmtirFuncPrefix+fi.Name, func(*VM, []Value) error { return nil })
			}
		}
		vm, err := NewVM(e, WithImports(m), WithMaxCallDepth(20))
		if err != nil {
			return
		}
		for _, fi := range funcs {
			if fi.Kind != FuncKindVM || fi.NumArgs > 8 {
				continue
			}
			args := make([]Value, fi.NumArgs)
			for i := range args {
				args[i] = int64(1)
			}
			// Bound the work: programs may loop forever, so run only those
			// without backward jumps.
			if hasBackwardJump(e, fi) {
				continue
			}
			vm.Invoke(fi.Name, args...)
		}
	})
}

func hasBackwardJump(e *Executable, f FuncInfo) bool {
	for pc := f.StartInstr; pc < f.EndInstr; pc++ {
		in := bytecode.DecodeAt(e.instrData, e.instrOffset[pc])
		if in.Op == bytecode.OpGoto && in.PCOffset < 0 {
			return true
		}
		if in.Op == bytecode.OpCall && in.FuncIdx >= 0 && in.FuncIdx < int64(len(e.funcs)) && e.funcs[in.FuncIdx].Kind != FuncKindPacked {
			return true // calls may recurse
		}
	}
	return false
}

// The checker's fuzz input: u8 nfuncs, per function (u8 kind, i8 start, i8
// end, u8 nargs, u8 regs), u8 nconst, u8 ninstr offsets (u8 each), then words
// as little-endian i64.
func encodeCheckInput(e *Executable) []byte {
	var b []byte
	b = append(b, byte(len(e.funcs)))
	for _, f := range e.funcs {
		b = append(b, byte(f.Kind), byte(f.StartInstr), byte(f.EndInstr), byte(f.NumArgs), byte(f.RegisterFileSize))
	}
	b = append(b, byte(len(e.constants)), byte(len(e.instrOffset)))
	for _, o := range e.instrOffset {
		b = append(b, byte(o))
	}
	for _, w := range e.instrData {
		b = binary.LittleEndian.AppendUint64(b, uint64(w))
	}
	return b
}

func decodeCheckInput(b []byte) (funcs []FuncInfo, nconst int, offs, words []int64, ok bool) {
	if len(b) < 1 {
		return
	}
	nf := int(b[0])
	b = b[1:]
	if len(b) < nf*5+2 {
		return
	}
	for i := 0; i < nf; i++ {
		p := b[i*5:]
		funcs = append(funcs, FuncInfo{
			Kind: FuncKind(p[0] % 4), Name: string(rune('a'+i%26)) + string(rune('0'+i/26)),
			StartInstr: int64(int8(p[1])), EndInstr: int64(int8(p[2])),
			NumArgs: int64(int8(p[3])), RegisterFileSize: int64(p[4]),
		})
	}
	b = b[nf*5:]
	nconst = int(b[0])
	no := int(b[1])
	b = b[2:]
	if len(b) < no {
		return
	}
	for i := 0; i < no; i++ {
		offs = append(offs, int64(b[i]))
	}
	b = b[no:]
	for len(b) >= 8 {
		words = append(words, int64(binary.LittleEndian.Uint64(b)))
		b = b[8:]
	}
	return funcs, nconst, offs, words, true
}

// TestWriteFuzzSeeds keeps the seed corpora under testdata/fuzz current
// (written with -update; read by go test and go test -fuzz).
func TestWriteFuzzSeeds(t *testing.T) {
	if !goldenfile.Updating() {
		t.Skip("run with -update to rewrite the fuzz seeds")
	}
	write := func(target, name string, data []byte) { goldenfile.WriteFuzzSeed(t, target, name, data) }
	for name, e := range map[string]*Executable{"golden": goldenExec(t), "addmul": addMulExec(t), "if": ifExec(t), "recursion": recursionExec(t)} {
		data := must[[]byte](t)(e.SaveToBytes())
		write("FuzzLoadExecutable", "seed-"+name, data)
		write("FuzzLoadExecutable", "seed-"+name+"-truncated", data[:len(data)/2])
		write("FuzzCheckInstructions", "seed-"+name, encodeCheckInput(e))
	}
}
