package main

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/relaxgo/relaxgo/internal/corpus"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/ir/onnx"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

func onnxNodeDir(t *testing.T) string { return corpus.SharedDir(t, filepath.Join("onnx", "node")) }

// runONNX runs `relaxgo run` on an .onnx model in one mode and returns the outputs.
func runONNX(t *testing.T, model, in, mode string, extra ...string) *tensorio.Archive {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.npz")
	args := append([]string{"--mode=" + mode, "--inputs", in, "--output", out}, extra...)
	var stdout, stderr bytes.Buffer
	if code := runRun(append(args, model), &stdout, &stderr); code != 0 {
		t.Fatalf("%s: exit %d: %s", mode, code, stderr.String())
	}
	a, err := tensorio.ReadNPZFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// sameArchives checks that bytecode's outputs a and compiled mode's b are
// the same, bit for bit, naming the first element that differs.
func sameArchives(t *testing.T, a, b *tensorio.Archive) {
	t.Helper()
	if fmt.Sprint(a.Names()) != fmt.Sprint(b.Names()) {
		t.Fatalf("outputs %v vs %v", a.Names(), b.Names())
	}
	for _, n := range a.Names() {
		x, _ := a.Get(n)
		y, _ := b.Get(n)
		if err := bitEqual(x, y); err != nil {
			t.Fatalf("%s: bytecode and compiled modes differ: %v", n, err)
		}
	}
}

// bitEqual reports the first element where two float32 tensors differ in
// their bits, with its index per axis.
func bitEqual(a, b *runtime.Tensor) error {
	if runtime.ValuesEqual(a, b) {
		return nil
	}
	if a.DType() != runtime.Float32 || b.DType() != runtime.Float32 || fmt.Sprint(a.Shape()) != fmt.Sprint(b.Shape()) {
		return fmt.Errorf("%s vs %s", a, b)
	}
	x, y := a.Float32s(), b.Float32s()
	for i := range x {
		if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
			return fmt.Errorf("element %d %v: %v vs %v", i, unravel(i, a.Shape()), x[i], y[i])
		}
	}
	return fmt.Errorf("%s vs %s", a, b)
}

// TestONNXBothModes runs a deterministic subset of the ONNX node tests that
// pass in ir/onnx (every Nth, N = $RELAXGO_ONNX_EVERY, default 12; 40 with
// -short) through `relaxgo run` in bytecode and compiled mode: both must
// match the expected outputs and agree bit for bit.
func TestONNXBothModes(t *testing.T) {
	dir := onnxNodeDir(t)
	every := 12
	if testing.Short() {
		every = 40
	}
	if s := os.Getenv("RELAXGO_ONNX_EVERY"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			every = n
		}
	}
	f, err := os.Open(filepath.Join("..", "..", "ir", "onnx", "testdata", "node_status.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names, specialized []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) >= 4 && p[1] == "pass" {
			if strings.HasPrefix(p[3], "specialized") {
				specialized = append(specialized, p[0])
			} else {
				names = append(names, p[0])
			}
		}
	}
	for i := 0; i < len(names); i += every {
		t.Run(names[i], func(t *testing.T) { runNodeTest(t, dir, names[i]) })
	}
	// Models that need some input values at import time: relaxgo run
	// specializes them to the inputs file's values (compileONNX).
	for i := 0; i < len(specialized); i += every {
		t.Run("specialized/"+specialized[i], func(t *testing.T) { runNodeTest(t, dir, specialized[i]) })
	}
}

// runNodeTest runs one ONNX node test through `relaxgo run` in both modes:
// the modes must agree bit for bit and match the expected outputs.
func runNodeTest(t *testing.T, dir, name string) {
	test := filepath.Join(dir, name)
	model := filepath.Join(test, "model.onnx")
	m, err := onnx.ReadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	inits := map[string]bool{}
	for _, x := range m.Graph.Initializer {
		inits[x.GetName()] = true
	}
	in := &tensorio.Archive{}
	k := 0
	for _, gi := range m.Graph.Input {
		if inits[gi.GetName()] {
			continue
		}
		x, _, err := onnx.ReadTensorFile(filepath.Join(test, "test_data_set_0", fmt.Sprintf("input_%d.pb", k)))
		if err != nil {
			t.Fatal(err)
		}
		k++
		if err := in.Add(gi.GetName(), x); err != nil {
			t.Fatal(err)
		}
	}
	inPath := filepath.Join(t.TempDir(), "in.npz")
	if err := tensorio.WriteNPZFile(inPath, in); err != nil {
		t.Fatal(err)
	}
	bc := runONNX(t, model, inPath, "bytecode")
	cc := runONNX(t, model, inPath, "compiled")
	sameArchives(t, bc, cc)
	for j, n := range bc.Names() {
		want, _, err := onnx.ReadTensorFile(filepath.Join(test, "test_data_set_0", fmt.Sprintf("output_%d.pb", j)))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := bc.Get(n)
		if err := closeTo(got, want); err != nil {
			t.Fatalf("output %d: %v", j, err)
		}
	}
}

func closeTo(got, want *runtime.Tensor) error {
	if got.DType() != want.DType() || fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) {
		return fmt.Errorf("got %s, want %s", got, want)
	}
	if !got.DType().IsFloat() {
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			return fmt.Errorf("values differ")
		}
		return nil
	}
	g, _ := onnx.TensorFloats(got)
	w, _ := onnx.TensorFloats(want)
	for i := range w {
		if g[i] == w[i] || math.IsNaN(g[i]) && math.IsNaN(w[i]) {
			continue
		}
		if math.Abs(g[i]-w[i]) > 1e-7+1e-3*math.Abs(w[i]) {
			return fmt.Errorf("element %d: %v, want %v", i, g[i], w[i])
		}
	}
	return nil
}

// TestONNXImportCLI imports a small CNN with `relaxgo import`, then runs the
// written model.py + params.safetensors and the .onnx file directly (inputs by
// graph-input name, "input.1"), in both modes: all four results must agree.
func TestONNXImportCLI(t *testing.T) {
	model := filepath.Join("..", "..", "ir", "onnx", "testdata", "tiny_cnn.onnx")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := runImport([]string{"-o", out, model}, &stdout, &stderr); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr.String())
	}
	src, err := os.ReadFile(filepath.Join(out, "model.py"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `R.Tensor(("batch", 3, 8, 8), dtype="float32")`) {
		t.Fatalf("model.py:\n%s", src)
	}
	x := runtime.MustNewTensor([]int64{2, 3, 8, 8}, runtime.Float32)
	for i := range x.Float32s() {
		x.Float32s()[i] = float32(i%13) / 13
	}
	in := &tensorio.Archive{}
	if err := in.Add("input.1", x); err != nil {
		t.Fatal(err)
	}
	inPath := filepath.Join(t.TempDir(), "in.npz")
	if err := tensorio.WriteNPZFile(inPath, in); err != nil {
		t.Fatal(err)
	}
	direct := runONNX(t, model, inPath, "bytecode")
	sameArchives(t, direct, runONNX(t, model, inPath, "compiled"))
	// model.py names the input input_1; by position works too.
	py := filepath.Join(out, "model.py")
	params := filepath.Join(out, "params.safetensors")
	sameArchives(t, direct, runONNX(t, py, inPath, "bytecode", "--params", params))
	// gen writes a package from the .onnx file.
	if code := runGen([]string{"-o", filepath.Join(t.TempDir(), "tinycnn"), model}, &stdout, &stderr); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr.String())
	}
}

// TestONNXErrors: a corrupt file is one clear error.
func TestONNXErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.onnx")
	if err := os.WriteFile(bad, []byte("\x0a\xff\xff"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := runImport([]string{"-o", t.TempDir(), bad}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "decoding the model") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}
