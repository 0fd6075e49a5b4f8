package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/internal/conformance"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

func TestMain(m *testing.M) {
	// Build each generated runner once per test run.
	dir, err := os.MkdirTemp("", "relaxgo-test-runners-*")
	if err != nil {
		panic(err)
	}
	os.Setenv("RELAXGO_RUN_CACHE", dir)
	if packedGoFile, err = writePackedGoFile(dir); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// packedGoFile is compiled into generated-code runners (relaxgo run --go):
// it registers the packed functions the corpus cases call.
var packedGoFile string

// writePackedGoFile turns internal/conformance/packed.go into a main-package
// file that registers its functions: the runner is a module of its own,
// which cannot import an internal package.
func writePackedGoFile(dir string) (string, error) {
	src, err := os.ReadFile(filepath.Join("..", "..", "internal", "conformance", "packed.go"))
	if err != nil {
		return "", fmt.Errorf("reading the corpus packed functions: %w", err)
	}
	text := strings.Replace(string(src), "package conformance\n", "package main\n", 1) + "\nfunc init() { RegisterPacked() }\n"
	path := filepath.Join(dir, "corpus_packed.go")
	return path, os.WriteFile(path, []byte(text), 0o644)
}

func loadCorpus(t *testing.T) []*conformance.Case {
	t.Helper()
	return conformance.Cases(t)
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
	args := []string{"--mode=" + mode, "--func", call.Func, "--inputs", in, "--output", out}
	if len(c.Packed) > 0 {
		// The model calls packed functions: compile their Go file into the
		// runner, in both modes.
		args = append(args, "--go", packedGoFile)
	}
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
