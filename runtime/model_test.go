package runtime

import (
	"errors"
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/relaxgo/relaxgo/internal/bytecode"
	"github.com/relaxgo/relaxgo/internal/rtlink"
)

// modelSpec is planExec's main (x + x + x over float64) as a model package
// would hand it over, with a hand-written compiled twin of main and a PrimFunc.
func modelSpec(t *testing.T) rtlink.ModelSpec {
	data, err := planExec(t).SaveToBytes()
	if err != nil {
		t.Fatal(err)
	}
	return rtlink.ModelSpec{
		Name:       "testmodel",
		Executable: data,
		Compiled: map[string]rtlink.CompiledFunc{"main": {RegisterFileSize: 2, Func: func(vm *VM, r []Value) error {
			x, ok := r[0].(*Tensor)
			if !ok {
				return errors.New("x is not a tensor")
			}
			out, err := NewTensor(x.Shape(), Float64)
			if err != nil {
				return err
			}
			o := out.Float64s()
			for i, v := range x.Float64s() {
				o[i] = v + v + v
			}
			r[1] = out
			return nil
		}}},
		PrimFuncs: map[string]func([]any) (any, error){"unused_prim": func([]Value) (Value, error) { return nil, nil }},
	}
}

func TestLoadModel(t *testing.T) {
	if _, err := loadModel(rtlink.ModelSpec{Name: "bad", Executable: []byte("not an executable")}); err == nil {
		t.Fatal("corrupt executable accepted")
	}
	spec := modelSpec(t)
	spec.Compiled["nope"] = spec.Compiled["main"]
	if _, err := loadModel(spec); err == nil {
		t.Fatal("compiled function missing from the executable accepted")
	}
	m, err := loadModel(modelSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	x, _ := FromSlice([]float64{1, 2, 3}, 3)
	bvm, err := m.NewVM()
	if err != nil {
		t.Fatal(err)
	}
	want, err := bvm.Invoke("main", x)
	if err != nil {
		t.Fatal(err)
	}
	// Many goroutines share the Model; each Invoke runs on a pooled VM.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				got, err := m.Invoke("main", x)
				if err != nil {
					errs <- err
					return
				}
				if !ValuesEqual(got, want) {
					errs <- errors.New("compiled and bytecode results differ")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if _, err := m.Invoke("main"); err == nil {
		t.Fatal("missing argument accepted")
	}
}

func TestCompareModesAndSampleTensor(t *testing.T) {
	m, err := loadModel(modelSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	x, err := SampleTensor([]int64{5}, Float64, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, c, berr, cerr := m.CompareModes("main", x)
	if berr != nil || cerr != nil || !ValuesEqual(b, c) {
		t.Fatalf("modes: %v %v, errors %v %v", b, c, berr, cerr)
	}
	// Sample data is deterministic and varies with the seed.
	y, _ := SampleTensor([]int64{5}, Float64, 2)
	z, _ := SampleTensor([]int64{5}, Float64, 3)
	if !ValuesEqual(x, y) || ValuesEqual(x, z) {
		t.Error("SampleTensor is not a deterministic function of its seed")
	}
	// A model calling an unregistered function reports ErrMissingFunction.
	spec := modelSpec(t)
	b2 := newExecBuilder()
	if err := b2.EmitFunction("main", 1, []string{"x"}, FuncKindVM, 0); err != nil {
		t.Fatal(err)
	}
	b2.EmitCall("test.nowhere", []bytecode.Arg{bytecode.Reg(0)}, 1)
	b2.EmitRet(bytecode.Reg(1))
	b2.EndFunction("main")
	exec, err := b2.Get()
	if err != nil {
		t.Fatal(err)
	}
	if spec.Executable, err = exec.SaveToBytes(); err != nil {
		t.Fatal(err)
	}
	missing, err := loadModel(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, berr, _ := missing.CompareModes("main", x); !errors.Is(berr, ErrMissingFunction) {
		t.Errorf("missing function: %v", berr)
	}
}

// TestModelKeepsVMsAcrossGC checks that a Model's idle VMs (and with them
// their storage pools) survive garbage collections: a program that
// allocates results collects every few dozen calls, and a sync.Pool would
// make a new VM, and all its storage, after each.
func TestModelKeepsVMsAcrossGC(t *testing.T) {
	for _, mode := range []Mode{Compiled, Bytecode} {
		t.Run(mode.String(), func(t *testing.T) {
			base, err := loadModel(modelSpec(t))
			if err != nil {
				t.Fatal(err)
			}
			m := base.WithMode(mode)
			x, _ := FromSlice([]float64{1, 2, 3}, 3)
			if _, err := m.Invoke("main", x); err != nil {
				t.Fatal(err)
			}
			vm := m.pool.Get()
			if vm == nil {
				t.Fatal("no idle VM after a call")
			}
			m.pool.Put(vm)
			goruntime.GC()
			goruntime.GC()
			if got := m.pool.Get(); got != vm {
				t.Fatalf("after two collections the pool gave %p, want the idle VM %p", got, vm)
			}
		})
	}
}

// TestModelVMPoolBound checks that at most GOMAXPROCS idle VMs are kept.
func TestModelVMPoolBound(t *testing.T) {
	m, err := loadModel(modelSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	procs := goruntime.GOMAXPROCS(0)
	var vms []*VM
	for range procs + 3 {
		vm, err := m.getVM()
		if err != nil {
			t.Fatal(err)
		}
		vms = append(vms, vm)
	}
	for _, vm := range vms {
		m.pool.Put(vm)
	}
	if n := m.pool.Len(); n != procs {
		t.Fatalf("%d idle VMs kept, want GOMAXPROCS = %d", n, procs)
	}
}
