package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/kernels"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// runRun is `relaxgo run --mode=bytecode [--params P] [--func main] --inputs IN.npz [--output OUT.npz] MODULE.py`.
func runRun(args []string, stdout, stderr io.Writer) int {
	fs, cf := newCompileFlags("run", stderr,
		"usage: relaxgo run --mode=bytecode|compiled [--params P] [--go FILE.go] [--func main] --inputs IN.npz [--output OUT.npz] MODULE.py",
	)
	mode := fs.String("mode", "bytecode", "execution mode: bytecode (the VM, in process) or compiled (generated Go, built and run)")
	var extra multiFlag
	fs.Var(&extra, "go", "a Go file compiled into the runner (both modes), e.g. registering packed functions the model calls (repeatable)")
	fn := fs.String("func", "main", "function to call")
	inputs := fs.String("inputs", "", "arguments (.npz): matched to parameters by name, else by position")
	output := fs.String("output", "", "write the flattened results here (.npz, entries out_0..out_k)")
	file, code := parseOne(fs, args, stdout, stderr, "MODULE.py")
	if code >= 0 {
		return code
	}
	if *mode != "bytecode" && *mode != "compiled" {
		return usageError(fs, stderr, "unknown --mode=%s (want bytecode or compiled)", *mode)
	}
	cf.inputs = *inputs
	res, err := cf.compile(file, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "relaxgo run:", err)
		return 1
	}
	var out *tensorio.Archive
	if *mode == "compiled" || len(res.Lowered.PrimFuncs()) > 0 || len(extra) > 0 {
		// TIR functions exist only as generated Go, and --go files can only
		// be compiled in: bytecode then runs on the generated package's VM.
		out, err = runGenerated(res, file, *fn, *mode, *inputs, extra)
	} else {
		out, err = runBytecode(res, *fn, *inputs)
	}
	if err != nil {
		fmt.Fprintln(stderr, "relaxgo run:", err)
		return 1
	}
	if *output != "" {
		if err := tensorio.WriteNPZFile(*output, out); err != nil {
			fmt.Fprintln(stderr, "relaxgo run:", err)
			return 1
		}
		return 0
	}
	for _, n := range out.Names() {
		t, _ := out.Get(n)
		fmt.Fprintf(stdout, "%s: %s %s\n", n, t, preview(t, 16))
	}
	return 0
}

// readArgs loads the arguments of fn from an .npz file: by parameter name
// when every parameter has an entry, else by position.
func readArgs(exec *runtime.Executable, fn, path string) ([]runtime.Value, error) {
	i, ok := exec.FuncIndex(fn)
	if !ok {
		return nil, fmt.Errorf("no function %q", fn)
	}
	info, _ := exec.Func(i)
	if path == "" {
		if info.NumArgs == 0 {
			return nil, nil
		}
		return nil, fmt.Errorf("%s takes %d arguments (%s): give them with --inputs", fn, info.NumArgs, strings.Join(info.ParamNames, ", "))
	}
	a, err := tensorio.ReadFile(path)
	if err != nil {
		return nil, err
	}
	args := make([]runtime.Value, 0, len(info.ParamNames))
	byName := true
	var missing []string
	for _, p := range info.ParamNames {
		t, ok := a.Get(p)
		if !ok && onnxInputNames[p] != "" {
			t, ok = a.Get(onnxInputNames[p]) // an ONNX model's graph-input name
		}
		if !ok {
			byName = false
			missing = append(missing, p)
			continue
		}
		args = append(args, t)
	}
	if byName {
		return args, nil
	}
	if len(missing) < len(info.ParamNames) {
		// Some entries are named after parameters: the file means to pass
		// arguments by name, and some are missing.
		return nil, fmt.Errorf("%s: no entry named %s (the parameters of %s are %s; the file has %s)", path,
			strings.Join(missing, ", "), fn, strings.Join(info.ParamNames, ", "), strings.Join(a.Names(), ", "))
	}
	// By position: the entries named in_0, in_1, ... (the corpus convention,
	// whose files also hold expected outputs), else all entries in order.
	names := a.Names()
	var ins []string
	for i := 0; ; i++ {
		if _, ok := a.Get(fmt.Sprintf("in_%d", i)); !ok {
			break
		}
		ins = append(ins, fmt.Sprintf("in_%d", i))
	}
	if len(ins) > 0 {
		names = ins
	}
	if len(names) != len(info.ParamNames) {
		return nil, fmt.Errorf("%s: no entry named %s, and the file's %d entries (%s) cannot be taken in order for the %d parameters of %s",
			path, strings.Join(info.ParamNames, ", "), len(names), strings.Join(names, ", "), len(info.ParamNames), fn)
	}
	args = args[:0]
	for _, n := range names {
		t, _ := a.Get(n)
		args = append(args, t)
	}
	return args, nil
}

func runBytecode(res *compiler.Result, fn, inputs string) (*tensorio.Archive, error) {
	args, err := readArgs(res.Exec, fn, inputs)
	if err != nil {
		return nil, err
	}
	kernels.RegisterConstants(res.Exec)
	vm, err := runtime.NewVM(res.Exec)
	if err != nil {
		return nil, err
	}
	v, err := vm.Invoke(fn, args...)
	if err != nil {
		return nil, err
	}
	return tensorio.FromResult(v)
}

// multiFlag is a repeatable string flag.
type multiFlag []string

// String implements flag.Value.
func (m *multiFlag) String() string { return strings.Join(*m, ",") }

// Set implements flag.Value: each use of the flag adds a value.
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// writeArgsTemp makes a temporary directory (pattern as os.MkdirTemp's)
// and writes a function's arguments there as in.npz, the generated runner's
// input; the caller removes dir.
func writeArgsTemp(pattern string, args []runtime.Value) (dir, inPath string, err error) {
	in, err := tensorio.FromValues(args)
	if err != nil {
		return "", "", err
	}
	dir, err = os.MkdirTemp("", pattern)
	if err != nil {
		return "", "", err
	}
	inPath = filepath.Join(dir, "in.npz")
	if err := tensorio.WriteNPZFile(inPath, in); err != nil {
		os.RemoveAll(dir)
		return "", "", err
	}
	return dir, inPath, nil
}

// runGenerated runs fn through the generated Go package, in mode.
func runGenerated(res *compiler.Result, module, fn, mode, inputs string, extra []string) (*tensorio.Archive, error) {
	args, err := readArgs(res.Exec, fn, inputs)
	if err != nil {
		return nil, err
	}
	dir, inPath, err := writeArgsTemp("relaxgo-io-*", args)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	outPath := filepath.Join(dir, "out.npz")
	if err := runCompiled(res, module, fn, mode, inPath, outPath, extra); err != nil {
		return nil, err
	}
	return tensorio.ReadNPZFile(outPath)
}

// preview renders up to max leading values of a tensor. Only those
// values are converted, however large the tensor.
func preview(t *runtime.Tensor, max int) string {
	n := t.NumElements()
	head := t
	if n > int64(max) && t.NBytes() > 0 {
		h, err := runtime.NewTensor([]int64{int64(max)}, t.DType())
		if err != nil {
			return ""
		}
		copy(h.Bytes(), t.Bytes())
		head = h
	}
	vals := tensorio.AsFloat64s(head)
	if vals == nil {
		return ""
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range vals {
		if i == max {
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		if t.DType() == runtime.Float32 {
			fmt.Fprint(&b, float32(v))
		} else {
			fmt.Fprint(&b, v)
		}
	}
	if n > int64(max) {
		fmt.Fprintf(&b, " ... (%d values)", n)
	}
	b.WriteByte(']')
	return b.String()
}
