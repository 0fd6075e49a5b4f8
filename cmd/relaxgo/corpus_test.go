package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/relaxgo/relaxgo/conformance"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

func TestMain(m *testing.M) {
	conformance.RegisterPacked()
	// Build each generated runner once per test run.
	dir, err := os.MkdirTemp("", "relaxgo-test-runners-*")
	if err != nil {
		panic(err)
	}
	os.Setenv("RELAXGO_RUN_CACHE", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func loadCorpus(t *testing.T) []*conformance.Case {
	t.Helper()
	dir := conformance.Dir()
	if dir == "" {
		t.Skip("no corpus: set RELAXGO_SHARED or put shared/ beside the repository")
	}
	cases, err := conformance.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestCorpus runs every corpus case through `relaxgo run` in both modes,
// checks the expected outputs and errors, and checks the modes agree bit for bit.
func TestCorpus(t *testing.T) {
	for _, c := range loadCorpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			for i, call := range c.Calls {
				t.Run(fmt.Sprintf("call%d", i), func(t *testing.T) {
					in := inputsFile(t, c, call)
					bc := runCase(t, c, call, in, "bytecode")
					cc := runCase(t, c, call, in, "compiled")
					if bc == nil || cc == nil {
						return
					}
					for j, n := range bc.Names() {
						a, _ := bc.Get(n)
						b, ok := cc.Get(n)
						if !ok || !runtime.ValuesEqual(a, b) {
							t.Fatalf("output %d: bytecode and compiled modes differ", j)
						}
					}
				})
			}
		})
	}
}

// runCase runs one call in one mode and checks it; it returns the outputs
// (nil for an expected error).
func runCase(t *testing.T, c *conformance.Case, call conformance.Call, in, mode string) *tensorio.Archive {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.npz")
	args := []string{"--mode=" + mode, "--func", call.Func, "--inputs", in, "--output", out, "--go", "testdata/corpus_packed.go"}
	if p := c.ParamsPath(); p != "" {
		args = append(args, "--params", p)
	}
	args = append(args, c.ModulePath())
	var stdout, stderr bytes.Buffer
	code := runRun(args, &stdout, &stderr)
	if call.Error != "" {
		if code != 1 {
			t.Fatalf("%s: exit %d, want 1 (error %q); stderr: %s", mode, code, call.Error, stderr.String())
		}
		if err := conformance.CheckError(call, errors.New(stderr.String())); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		return nil
	}
	if code != 0 {
		t.Fatalf("%s: exit %d; stderr: %s", mode, code, stderr.String())
	}
	got, err := tensorio.ReadNPZFile(out)
	if err != nil {
		t.Fatal(err)
	}
	_, io, err := c.Inputs(call)
	if err != nil {
		t.Fatal(err)
	}
	var vals runtime.Tuple
	for _, n := range got.Names() {
		v, _ := got.Get(n)
		vals = append(vals, asResult(v, len(vals), call))
	}
	if err := c.Check(call, io, vals); err != nil {
		t.Fatalf("%s: %v", mode, err)
	}
	return got
}

// asResult turns a written int64 vector back into a shape when the case
// expects a shape at that position.
func asResult(t *runtime.Tensor, i int, call conformance.Call) runtime.Value {
	if i < len(call.Outputs) && call.Outputs[i].NPZ == "" && t.DType() == runtime.Int64 && t.NDim() == 1 {
		return runtime.Shape(t.Int64s())
	}
	return t
}

// inputsFile writes the call's inputs, in parameter order, to an .npz file.
func inputsFile(t *testing.T, c *conformance.Case, call conformance.Call) string {
	t.Helper()
	args, _, err := c.Inputs(call)
	if err != nil {
		t.Fatal(err)
	}
	a := &tensorio.Archive{}
	for i, v := range args {
		if err := a.Add(call.Inputs[i].Name, v.(*runtime.Tensor)); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(t.TempDir(), "in.npz")
	if err := tensorio.WriteNPZFile(p, a); err != nil {
		t.Fatal(err)
	}
	return p
}
