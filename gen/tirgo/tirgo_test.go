package tirgo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"

	"github.com/relaxgo/relaxgo/internal/corpus"
	"github.com/relaxgo/relaxgo/internal/golden"
	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/ir/tvmscript"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// tirCorpus lists the corpus modules with PrimFuncs (left out, visibly,
// when the corpus is absent).
var tirCorpus = []string{"mlp_legalized_v023", "softmax_symbolic_head"}

type tirTestFunc struct {
	file   string
	f      *ir.PrimFunc
	goName string
}

func loadTIRFuncs(t *testing.T) []tirTestFunc {
	t.Helper()
	files, err := filepath.Glob("testdata/tir/*.py")
	if err != nil {
		t.Fatal(err)
	}
	if dir := corpus.Optional(t); dir != "" {
		for _, c := range tirCorpus {
			files = append(files, filepath.Join(dir, c, "module.py"))
		}
	}
	var out []tirTestFunc
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := tvmscript.Parse(path, src, nil)
		if err != nil {
			t.Fatalf("parse %s: %v", path, err)
		}
		base := strings.TrimSuffix(filepath.Base(path), ".py")
		if base == "module" {
			base = filepath.Base(filepath.Dir(path))
		}
		for _, pf := range m.PrimFuncs() {
			out = append(out, tirTestFunc{file: path, f: pf, goName: "tir_" + identifier(base) + "_" + identifier(pf.Name)})
		}
	}
	for _, pf := range handBuiltPrimFuncs() {
		out = append(out, tirTestFunc{file: "handbuilt", f: pf, goName: "tir_hand_" + pf.Name})
	}
	return out
}

// identifier replaces the characters of s that Go identifiers cannot hold.
func identifier(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// repoRoot finds the module root (github.com/relaxgo/relaxgo) above the
// test's working directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/relaxgo/relaxgo\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("repository root not found")
		}
		dir = parent
	}
}

// handBuiltPrimFuncs covers constructs written as IR directly: Let
// expressions, Select, bfloat16, float floordiv/floormod, uint64, NaN tests.
func handBuiltPrimFuncs() []*ir.PrimFunc {
	i64 := runtime.Int64
	f32 := func(v float64) ir.PrimExpr { return &ir.FloatImm{Value: v, Type: runtime.Float32} }
	buf := func(name string, dt runtime.DataType, dims ...int64) (*ir.PrimVar, *ir.Buffer) {
		sh := make([]ir.PrimExpr, len(dims))
		for i, d := range dims {
			sh[i] = ir.Int64(d)
		}
		return ir.NewPrimVar(name, runtime.DataType{Code: runtime.CodeHandle, Bits: 64, Lanes: 1}), &ir.Buffer{Name: name, DType: dt, Shape: sh}
	}
	pa, A := buf("A", runtime.Float32, 8)
	pb, B := buf("B", runtime.Float32, 8)
	pc, C := buf("C", runtime.BFloat16, 8)
	pd, D := buf("D", runtime.Float64, 8)
	pe, E := buf("E", runtime.UInt64, 8)
	pf, F := buf("F", runtime.Bool, 8)
	i := ir.NewPrimVar("i", i64)
	x := ir.NewPrimVar("x", runtime.Float32)
	y := ir.NewPrimVar("y", runtime.Float32)
	ld := func(b *ir.Buffer) ir.PrimExpr { return &ir.BufferLoad{Buffer: b, Indices: []ir.PrimExpr{i}} }
	st := func(b *ir.Buffer, v ir.PrimExpr) ir.Stmt {
		return &ir.BufferStore{Buffer: b, Indices: []ir.PrimExpr{i}, Value: v}
	}
	bin := func(op ir.BinOp, a, b ir.PrimExpr) ir.PrimExpr { return &ir.Binary{Op: op, A: a, B: b} }
	dA := &ir.Cast{Type: runtime.Float64, Value: ld(A)}
	body := &ir.SeqStmt{Stmts: []ir.Stmt{
		st(B, &ir.Let{Var: x, Value: bin(ir.OpMul, ld(A), f32(2)), Body: &ir.Select{
			Cond:  bin(ir.OpGT, x, f32(1)),
			True:  bin(ir.OpSub, x, f32(1)),
			False: &ir.Let{Var: y, Value: bin(ir.OpAdd, x, f32(3)), Body: bin(ir.OpMul, y, y)},
		}}),
		st(C, bin(ir.OpAdd, &ir.Cast{Type: runtime.BFloat16, Value: ld(A)}, bin(ir.OpMul, ld(C), &ir.FloatImm{Value: 0.3, Type: runtime.BFloat16}))),
		st(D, bin(ir.OpAdd, bin(ir.OpFloorDiv, dA, &ir.FloatImm{Value: 0.7, Type: runtime.Float64}),
			bin(ir.OpFloorMod, dA, &ir.FloatImm{Value: -0.45, Type: runtime.Float64}))),
		st(E, bin(ir.OpAdd, bin(ir.OpMul, ld(E), &ir.IntImm{Value: -3, Type: runtime.UInt64}),
			bin(ir.OpDiv, ld(E), &ir.IntImm{Value: 7, Type: runtime.UInt64}))),
		st(F, bin(ir.OpOr, &ir.PrimCall{Op: "isnan", Args: []ir.PrimExpr{bin(ir.OpDiv, ld(A), ld(A))}, Type: runtime.Bool},
			bin(ir.OpNE, bin(ir.OpFloorMod, ld(A), f32(0.5)), f32(0.25)))),
		st(A, bin(ir.OpAdd, bin(ir.OpFloorDiv, ld(A), f32(0.3)), &ir.Cast{Type: runtime.Float32, Value: &ir.Let{
			Var: ir.NewPrimVar("u", i64), Value: i, Body: bin(ir.OpMin, i, ir.Int64(3))}})),
	}}
	f := &ir.PrimFunc{
		Name:      "let_select",
		Params:    []*ir.PrimVar{pa, pb, pc, pd, pe, pf},
		BufferMap: map[*ir.PrimVar]*ir.Buffer{pa: A, pb: B, pc: C, pd: D, pe: E, pf: F},
		Body:      &ir.For{Var: i, Min: ir.Int64(0), Extent: ir.Int64(8), Kind: ir.ForSerial, Body: body},
	}
	return []*ir.PrimFunc{f}
}

// ---- running generated code ----

type tirArg struct {
	Kind  string  `json:"kind"` // tensor, int, float, bool, nil, string
	DType string  `json:"dtype,omitempty"`
	Shape []int64 `json:"shape,omitempty"`
	File  string  `json:"file,omitempty"`
	I     int64   `json:"i,omitempty"`
	F     float64 `json:"f,omitempty"`
	B     bool    `json:"b,omitempty"`
}

type tirRun struct {
	ID   string   `json:"id"`
	Fn   string   `json:"fn"`
	Args []tirArg `json:"args"`
	// wantErr lists substrings the generated code's error must contain
	// (nil: the run must succeed).
	wantErr []string
	f       *ir.PrimFunc
	data    map[int][]byte
}

type tirResult struct {
	ID  string `json:"id"`
	Err string `json:"err"`
}

const tirDriver = `package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/relaxgo/relaxgo/runtime"
)

type arg struct {
	Kind  string  ` + "`json:\"kind\"`" + `
	DType string  ` + "`json:\"dtype\"`" + `
	Shape []int64 ` + "`json:\"shape\"`" + `
	File  string  ` + "`json:\"file\"`" + `
	I     int64   ` + "`json:\"i\"`" + `
	F     float64 ` + "`json:\"f\"`" + `
	B     bool    ` + "`json:\"b\"`" + `
}

type run struct {
	ID   string ` + "`json:\"id\"`" + `
	Fn   string ` + "`json:\"fn\"`" + `
	Args []arg  ` + "`json:\"args\"`" + `
}

type result struct {
	ID  string ` + "`json:\"id\"`" + `
	Err string ` + "`json:\"err\"`" + `
}

func main() {
	dir := os.Args[1]
	b, err := os.ReadFile(filepath.Join(dir, "spec.json"))
	if err != nil {
		panic(err)
	}
	var runs []run
	if err := json.Unmarshal(b, &runs); err != nil {
		panic(err)
	}
	var results []result
	for _, r := range runs {
		args := make([]runtime.Value, len(r.Args))
		for i, a := range r.Args {
			switch a.Kind {
			case "tensor":
				t, err := runtime.NewTensor(a.Shape, runtime.MustParseDataType(a.DType))
				if err != nil {
					panic(err)
				}
				data, err := os.ReadFile(filepath.Join(dir, a.File))
				if err != nil {
					panic(err)
				}
				copy(t.Bytes(), data)
				args[i] = t
			case "int":
				args[i] = a.I
			case "float":
				args[i] = a.F
			case "bool":
				args[i] = a.B
			case "string":
				args[i] = "oops"
			case "nil":
				args[i] = nil
			}
		}
		fn := funcs[r.Fn]
		if fn == nil {
			panic("unknown function " + r.Fn)
		}
		res := result{ID: r.ID}
		if _, err := fn(args); err != nil {
			res.Err = err.Error()
		} else {
			for i, a := range args {
				if t, ok := a.(*runtime.Tensor); ok {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("out_%s_%d.bin", r.ID, i)), t.Bytes(), 0o644); err != nil {
						panic(err)
					}
				}
			}
		}
		results = append(results, res)
	}
	out, _ := json.Marshal(results)
	if err := os.WriteFile(filepath.Join(dir, "results.json"), out, 0o644); err != nil {
		panic(err)
	}
}
`

// buildAndRun writes the generated functions and a driver into a temporary
// module that replaces github.com/relaxgo/relaxgo with this checkout, runs
// it once over all runs, and returns the results by run id.
func buildAndRun(t *testing.T, funcs []tirTestFunc, runs []*tirRun) (string, map[string]tirResult) {
	t.Helper()
	root := repoRoot(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod := "module tirtest\n\ngo 1.26\n\nrequire github.com/relaxgo/relaxgo v0.0.0\n\nreplace github.com/relaxgo/relaxgo => " + root + "\n"
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	if sum, err := os.ReadFile(filepath.Join(root, "go.sum")); err == nil {
		must(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	}
	f := jen.NewFile("main")
	dict := jen.Dict{}
	for _, tf := range funcs {
		code, err := Func(tf.f, tf.goName)
		if err != nil {
			t.Fatalf("%s: %v", tf.f.Name, err)
		}
		f.Add(code)
		f.Line()
		dict[jen.Lit(tf.goName)] = jen.Id(tf.goName)
	}
	f.Var().Id("funcs").Op("=").Map(jen.String()).Func().Params(jen.Index().Qual(runtimePkg, "Value")).
		Params(jen.Qual(runtimePkg, "Value"), jen.Error()).Values(dict)
	var src bytes.Buffer
	if err := f.Render(&src); err != nil {
		t.Fatalf("render: %v", err)
	}
	must(t, os.WriteFile(filepath.Join(dir, "tir.go"), src.Bytes(), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(tirDriver), 0o644))
	for _, r := range runs {
		for i, b := range r.data {
			if i < len(r.Args) && r.Args[i].Kind == "tensor" {
				must(t, os.WriteFile(filepath.Join(data, r.Args[i].File), b, 0o644))
			}
		}
	}
	spec, err := json.Marshal(runs)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(data, "spec.json"), spec, 0o644))
	cmd := exec.Command("go", "run", ".", data)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(data, "results.json"))
	must(t, err)
	var results []tirResult
	must(t, json.Unmarshal(b, &results))
	m := map[string]tirResult{}
	for _, r := range results {
		m[r.ID] = r
	}
	return data, m
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// ---- inputs ----

// tirIntRanges bounds random integer inputs per function and buffer
// (default [-9, 9], [0, 255] for unsigned).
var tirIntRanges = map[string][2]int64{
	"take.I": {0, 4},
}

func randomTensorBytes(rng *rand.Rand, dt runtime.DataType, n int64, rangeLo, rangeHi int64, hasRange bool) []byte {
	t, err := runtime.NewTensor([]int64{n}, dt)
	if err != nil {
		panic(err)
	}
	ri := func(lo, hi int64) int64 {
		if hasRange {
			lo, hi = rangeLo, rangeHi
		}
		return lo + rng.Int63n(hi-lo+1)
	}
	rf := func() float64 { return rng.Float64()*4 - 2 }
	for k := int64(0); k < n; k++ {
		switch {
		case dt == runtime.Float32:
			t.Float32s()[k] = float32(rf())
		case dt == runtime.Float64:
			t.Float64s()[k] = rf()
		case dt == runtime.Float16:
			t.Uint16s()[k] = half.Float32ToFloat16(float32(rf()))
		case dt == runtime.BFloat16:
			t.Uint16s()[k] = half.Float32ToBFloat16(float32(rf()))
		case dt == runtime.Bool:
			t.Bools()[k] = rng.Intn(2) == 1
		case dt == runtime.Int8:
			t.Int8s()[k] = int8(ri(-9, 9))
		case dt == runtime.Int16:
			t.Int16s()[k] = int16(ri(-9, 9))
		case dt == runtime.Int32:
			t.Int32s()[k] = int32(ri(-9, 9))
		case dt == runtime.Int64:
			t.Int64s()[k] = ri(-9, 9)
		case dt == runtime.UInt8:
			t.Uint8s()[k] = uint8(ri(0, 255))
		case dt == runtime.UInt16:
			t.Uint16s()[k] = uint16(ri(0, 255))
		case dt == runtime.UInt32:
			t.Uint32s()[k] = uint32(ri(0, 1<<20))
		case dt == runtime.UInt64:
			t.Uint64s()[k] = uint64(rng.Int63()) * 3
		default:
			panic("dtype " + dt.String())
		}
	}
	return append([]byte(nil), t.Bytes()...)
}

// randomRun makes a run of f with random inputs; symbolic dimensions take
// the value sym (or follow their expressions).
func randomRun(id string, tf tirTestFunc, rng *rand.Rand, sym int64) *tirRun {
	f := tf.f
	r := &tirRun{ID: id, Fn: tf.goName, f: f, data: map[int][]byte{}}
	env := map[*ir.PrimVar]int64{}
	for _, p := range f.Params {
		if f.BufferMap[p] == nil && !p.Type.IsFloat() && !p.Type.IsBool() {
			env[p] = rng.Int63n(7) - 3
		}
	}
	for i, p := range f.Params {
		b := f.BufferMap[p]
		if b == nil {
			switch {
			case p.Type.IsFloat():
				r.Args = append(r.Args, tirArg{Kind: "float", F: rng.Float64()*2 - 1})
			case p.Type.IsBool():
				r.Args = append(r.Args, tirArg{Kind: "bool", B: rng.Intn(2) == 1})
			default:
				r.Args = append(r.Args, tirArg{Kind: "int", I: env[p]})
			}
			continue
		}
		shape := make([]int64, len(b.Shape))
		n := int64(1)
		for d, e := range b.Shape {
			for _, v := range ir.FreeVars(e) {
				if _, ok := env[v]; !ok {
					env[v] = sym
				}
			}
			v, err := ir.EvalInt(e, env)
			if err != nil {
				panic(err)
			}
			shape[d] = v
			n *= v
		}
		rg, has := tirIntRanges[f.Name+"."+b.Name]
		r.data[i] = randomTensorBytes(rng, b.DType, n, rg[0], rg[1], has)
		r.Args = append(r.Args, tirArg{Kind: "tensor", DType: b.DType.String(), Shape: shape, File: fmt.Sprintf("in_%s_%d.bin", id, i)})
	}
	return r
}

// interpretRun runs the reference interpreter on the run's inputs and
// returns the error and the final bytes of each tensor argument.
func interpretRun(r *tirRun) (error, map[int][]byte) {
	args := make([]runtime.Value, len(r.Args))
	for i, a := range r.Args {
		switch a.Kind {
		case "tensor":
			t := runtime.MustNewTensor(a.Shape, runtime.MustParseDataType(a.DType))
			copy(t.Bytes(), r.data[i])
			args[i] = t
		case "int":
			args[i] = a.I
		case "float":
			args[i] = a.F
		case "bool":
			args[i] = a.B
		case "string":
			args[i] = "oops"
		case "nil":
			args[i] = nil
		}
	}
	err := Interpret(r.f, args)
	out := map[int][]byte{}
	for i, a := range args {
		if t, ok := a.(*runtime.Tensor); ok {
			out[i] = t.Bytes()
		}
	}
	return err, out
}

// badRuns derives runs with bad arguments from a good run.
func badRuns(base *tirRun) []*tirRun {
	var out []*tirRun
	mk := func(suffix string, want []string, edit func(r *tirRun)) {
		r := &tirRun{ID: base.ID + "_" + suffix, Fn: base.Fn, f: base.f, data: map[int][]byte{}, wantErr: want}
		r.Args = append([]tirArg(nil), base.Args...)
		for i, b := range base.data {
			r.data[i] = b
			r.Args[i].File = fmt.Sprintf("in_%s_%d.bin", r.ID, i)
		}
		edit(r)
		out = append(out, r)
	}
	name := base.f.Name
	n := len(base.Args)
	mk("count", []string{name + ": expected " + fmt.Sprint(n) + " arguments, got " + fmt.Sprint(n-1)}, func(r *tirRun) { r.Args = r.Args[:n-1] })
	first := -1
	for i, a := range base.Args {
		if a.Kind == "tensor" {
			first = i
			break
		}
	}
	if first < 0 {
		return out
	}
	p := fmt.Sprintf("parameter %d (%s)", first, base.f.BufferMap[base.f.Params[first]].Name)
	mk("string", []string{name + ": " + p + ": expected a tensor, got string"}, func(r *tirRun) { r.Args[first] = tirArg{Kind: "string"} })
	mk("nil", []string{p + ": expected a tensor, got <nil>"}, func(r *tirRun) { r.Args[first] = tirArg{Kind: "nil"} })
	a := base.Args[first]
	mk("dtype", []string{p + ": expected dtype " + a.DType + ", got uint8"}, func(r *tirRun) {
		r.Args[first].DType = "uint8"
		r.data[first] = make([]byte, len(base.data[first]))
	})
	mk("rank", []string{p + fmt.Sprintf(": expected rank %d, got %d", len(a.Shape), len(a.Shape)+1)}, func(r *tirRun) {
		r.Args[first].Shape = append(append([]int64(nil), a.Shape...), 1)
	})
	return out
}

// TestTIRGeneratedMatchesInterpreter generates Go for every test PrimFunc,
// builds and runs it in one go run, and compares the outputs with the
// reference interpreter bit for bit, plus bad-argument runs.
func TestTIRGeneratedMatchesInterpreter(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	funcs := loadTIRFuncs(t)
	if len(funcs) < 20 {
		t.Fatalf("only %d test PrimFuncs", len(funcs))
	}
	var runs []*tirRun
	byName := map[string]tirTestFunc{}
	for fi, tf := range funcs {
		byName[tf.f.Name] = tf
		rng := rand.New(rand.NewSource(int64(fi + 1)))
		for k, sym := range []int64{3, 5, 0} {
			if sym == 0 && !hasSymbolic(tf.f) {
				continue
			}
			runs = append(runs, randomRun(fmt.Sprintf("%s_%d", tf.goName, k), tf, rng, sym))
		}
		if fi%3 == 0 {
			runs = append(runs, badRuns(runs[len(runs)-1])...)
		}
	}
	runs = append(runs, specialBadRuns(t, byName)...)
	dir, results := buildAndRun(t, funcs, runs)
	for _, r := range runs {
		res, ok := results[r.ID]
		if !ok {
			t.Errorf("%s: no result", r.ID)
			continue
		}
		ierr, iout := interpretRun(r)
		if r.wantErr != nil {
			if res.Err == "" {
				t.Errorf("%s: generated code accepted bad arguments", r.ID)
			}
			for _, w := range r.wantErr {
				if !strings.Contains(res.Err, w) {
					t.Errorf("%s: error %q does not contain %q", r.ID, res.Err, w)
				}
			}
			if ierr == nil {
				t.Errorf("%s: interpreter accepted bad arguments", r.ID)
			}
			continue
		}
		if ierr != nil || res.Err != "" {
			t.Errorf("%s: interpreter error %v, generated error %q", r.ID, ierr, res.Err)
			continue
		}
		for i := range iout {
			got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out_%s_%d.bin", r.ID, i)))
			if err != nil {
				t.Errorf("%s: %v", r.ID, err)
				continue
			}
			if !bytes.Equal(got, iout[i]) {
				t.Errorf("%s: argument %d differs from the interpreter: %s", r.ID, i, describeDiff(r.Args[i].DType, got, iout[i]))
			}
		}
	}
	t.Logf("%d PrimFuncs, %d runs", len(funcs), len(runs))
}

func hasSymbolic(f *ir.PrimFunc) bool {
	for _, b := range f.BufferMap {
		for _, e := range b.Shape {
			if _, ok := e.(*ir.IntImm); !ok {
				return true
			}
		}
	}
	return false
}

func describeDiff(dt string, got, want []byte) string {
	d := runtime.MustParseDataType(dt)
	es := d.ElemBytes()
	for k := 0; k+es <= len(got) && k+es <= len(want); k += es {
		if !bytes.Equal(got[k:k+es], want[k:k+es]) {
			if d == runtime.Float32 {
				g := math.Float32frombits(uint32(got[k]) | uint32(got[k+1])<<8 | uint32(got[k+2])<<16 | uint32(got[k+3])<<24)
				w := math.Float32frombits(uint32(want[k]) | uint32(want[k+1])<<8 | uint32(want[k+2])<<16 | uint32(want[k+3])<<24)
				return fmt.Sprintf("element %d: got %v, want %v", k/es, g, w)
			}
			return fmt.Sprintf("element %d: got % x, want % x", k/es, got[k:k+es], want[k:k+es])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(got), len(want))
}

// specialBadRuns covers static and symbolic dimension mismatches, scalar
// parameter types and a data-dependent out-of-range index.
func specialBadRuns(t *testing.T, byName map[string]tirTestFunc) []*tirRun {
	var out []*tirRun
	rng := rand.New(rand.NewSource(99))
	get := func(name string) tirTestFunc {
		tf, ok := byName[name]
		if !ok {
			t.Fatalf("test PrimFunc %s missing", name)
		}
		return tf
	}
	edit := func(id, fn string, want []string, e func(r *tirRun)) {
		r := randomRun(id, get(fn), rng, 3)
		r.wantErr = want
		e(r)
		out = append(out, r)
	}
	resize := func(r *tirRun, i int, shape ...int64) {
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		r.Args[i].Shape = shape
		r.data[i] = make([]byte, n*int64(runtime.MustParseDataType(r.Args[i].DType).ElemBytes()))
	}
	edit("bad_static", "broadcast_add", []string{"broadcast_add: parameter 1 (B) dimension 0: expected 5, got 6"}, func(r *tirRun) { resize(r, 1, 6, 1) })
	edit("bad_sym", "matmul_sym", []string{"matmul_sym: parameter 2 (C) dimension 0: expected 3 (n), got 4"}, func(r *tirRun) { resize(r, 2, 4, 3) })
	edit("bad_symexpr", "concat", []string{"concat: parameter 2 (C) dimension 1: expected 6 (n * 2), got 5"}, func(r *tirRun) { resize(r, 2, 3, 5) })
	edit("bad_float", "scalar_math", []string{"scalar_math: parameter 2 (alpha): expected a float64, got int64"}, func(r *tirRun) { r.Args[2] = tirArg{Kind: "int", I: 1} })
	edit("bad_int", "scalar_math", []string{"parameter 3 (k): expected an int64, got string"}, func(r *tirRun) { r.Args[3] = tirArg{Kind: "string"} })
	edit("bad_fit", "par_offset", []string{"par_offset: parameter 2 (s): 1099511627776 does not fit int32"}, func(r *tirRun) { r.Args[2] = tirArg{Kind: "int", I: 1 << 40} })
	edit("bad_index", "take", []string{"take: ", "index out of range"}, func(r *tirRun) {
		b := r.data[1]
		b[8] = 7 // I[1] = 7, past A's first dimension
	})
	return out
}

// ---- golden files ----

var tirGoldens = []struct{ file, fn string }{
	{"testdata/tir/reduce.py", "matmul_sym"},
	{"testdata/tir/layout.py", "conv2d"},
	{"testdata/tir/elementwise.py", "half_ops"},
}

func TestTIRGolden(t *testing.T) {
	for _, gcase := range tirGoldens {
		src, err := os.ReadFile(gcase.file)
		must(t, err)
		m, err := tvmscript.Parse(gcase.file, src, nil)
		must(t, err)
		pf, ok := m.PrimFunc(gcase.fn)
		if !ok {
			t.Fatalf("%s: no PrimFunc %s", gcase.file, gcase.fn)
		}
		render := func() []byte {
			code, err := Func(pf, "tir_"+gcase.fn)
			must(t, err)
			f := jen.NewFile("golden")
			f.HeaderComment("Code generated by relaxgo. DO NOT EDIT.")
			f.Add(code)
			var buf bytes.Buffer
			must(t, f.Render(&buf))
			return buf.Bytes()
		}
		got := render()
		if !bytes.Equal(got, render()) {
			t.Errorf("%s: output is not deterministic", gcase.fn)
		}
		golden.Check(t, filepath.Join("testdata", "golden", gcase.fn+".go.golden"), got)
	}
}

// ---- refusals ----

func TestTIRUnsupported(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"thread_binding", `
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((T.int64(8),), "float32")):
        for i in T.thread_binding(T.int64(8), thread="threadIdx.x"):
            A[i] = T.float32(1)
`, []string{"TIR function f", "tb.py:6:9", "thread_binding loop over i", "threadIdx.x"}},
		{"scope", `
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((T.int64(8),), "float32")):
        with T.block("root"):
            S = T.alloc_buffer((T.int64(8),), scope="shared")
            for i in range(T.int64(8)):
                with T.block("s"):
                    vi = T.axis.spatial(T.int64(8), i)
                    S[vi] = A[vi]
`, []string{"tb.py:6:9", `storage scope "shared"`, "buffer S"}},
		{"strides", `
@I.ir_module
class Module:
    @T.prim_func
    def f(a: T.handle):
        A = T.match_buffer(a, (T.int64(8),), strides=(T.int64(2),))
        for i in range(T.int64(8)):
            A[i] = T.float32(1)
`, []string{"buffer A has explicit strides"}},
		{"intrinsic", `
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((T.int64(8),), "int32")):
        for i in range(T.int64(8)):
            A[i] = T.popcount(A[i])
`, []string{"tb.py:7:13", "unsupported intrinsic T.popcount"}},
		{"extern", `
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((T.int64(8),), "float32")):
        for i in range(T.int64(8)):
            A[i] = T.call_extern("float32", "myfn", A[i])
`, []string{"tb.py:7:13", "unsupported intrinsic T.call_extern"}},
		{"evaluate", `
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((T.int64(8),), "float32")):
        T.evaluate(T.call_extern("int32", "sync"))
`, []string{"tb.py:6:9", "T.evaluate"}},
		{"vector", `
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((T.int64(8),), "float32x4")):
        for i in range(T.int64(8)):
            A[i] = A[i]
`, []string{"unsupported dtype float32x4"}},
		{"unbound_dim", `
@I.ir_module
class Module:
    @T.prim_func
    def f(a: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n * T.int64(2),))
        for i in range(T.int64(8)):
            A[i] = T.float32(1)
`, []string{"uses n, which no earlier dimension or scalar parameter binds"}},
		{"div_zero", `
@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((T.int64(8),), "int32")):
        for i in range(T.int64(8)):
            A[i] = T.truncdiv(T.int32(4), T.int32(0))
`, []string{"tb.py:7:13", "integer division by zero"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := tvmscript.ParseString("tb.py", c.src, nil)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			var names []string
			for _, pf := range m.PrimFuncs() {
				names = append(names, pf.Name)
			}
			sort.Strings(names)
			pf, _ := m.PrimFunc(names[0])
			_, err = Func(pf, "tir_f")
			if err == nil {
				t.Fatal("Func accepted unsupported TIR")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	// Hand-built: a handle parameter with no buffer. A stub that does not
	// read it compiles (the argument is ignored); a body reading it is
	// refused with the function's position.
	h := ir.NewPrimVar("h", runtime.DataType{Code: runtime.CodeHandle, Bits: 64, Lanes: 1})
	if _, err := Func(&ir.PrimFunc{Name: "g", Params: []*ir.PrimVar{h}, BufferMap: map[*ir.PrimVar]*ir.Buffer{},
		Body: &ir.Evaluate{Value: ir.Int64(0)}, Loc: ir.Span{File: "x.py", Line: 3, Col: 5}}, "tir_g"); err != nil {
		t.Errorf("stub with an unbound handle: %v", err)
	}
	_, err := Func(&ir.PrimFunc{Name: "g", Params: []*ir.PrimVar{h}, BufferMap: map[*ir.PrimVar]*ir.Buffer{},
		Body: &ir.LetStmt{Var: ir.NewPrimVar("v", runtime.Int64), Value: &ir.Cast{Type: runtime.Int64, Value: h}, Body: &ir.Evaluate{Value: ir.Int64(0)}},
		Loc:  ir.Span{File: "x.py", Line: 3, Col: 5}}, "tir_g")
	if err == nil || !strings.Contains(err.Error(), "x.py:3:5") || !strings.Contains(err.Error(), `parameter "h" is a handle without a buffer`) {
		t.Errorf("reading a handle without buffer: %v", err)
	}
}
