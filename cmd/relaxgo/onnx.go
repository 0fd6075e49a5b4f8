package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/ir/onnx"
	"github.com/relaxgo/relaxgo/ir/tvmscript"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// ONNX models: `relaxgo import` converts one to TVMScript plus weights, and
// gen/build/run/bench accept a .onnx file wherever they take MODULE.py.

// isONNX reports whether path names an ONNX model.
func isONNX(path string) bool { return strings.EqualFold(filepath.Ext(path), ".onnx") }

// onnxInputNames maps the Relax parameter names of the last imported model's
// graph inputs to their ONNX names, so .npz inputs may use either.
var onnxInputNames = map[string]string{}

// runImport is `relaxgo import [-o DIR] [--const-params] model.onnx`.
func runImport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("import", stderr,
		"usage: relaxgo import [-o DIR] [--const-params] MODEL.onnx",
		"\nWrites DIR/model.py (TVMScript) and DIR/params.safetensors (the initializers, bound",
		"to the parameters after num_input; give it to gen/run with --params).",
	)
	out := fs.String("o", ".", "output directory for model.py and params.safetensors")
	constParams := fs.Bool("const-params", false, "embed the initializers as constants instead of parameters")
	file, code := parseOne(fs, args, stdout, stderr, "MODEL.onnx")
	if code >= 0 {
		return code
	}
	res, err := onnx.ImportFile(file, onnx.Options{ConstantParams: *constParams})
	if err != nil {
		fmt.Fprintln(stderr, "relaxgo import:", err)
		return 1
	}
	if err := writeImport(res, *out); err != nil {
		fmt.Fprintln(stderr, "relaxgo import:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (inputs: %s; outputs: %s; %d weights)\n", filepath.Join(*out, "model.py"),
		strings.Join(res.Inputs, ", "), strings.Join(res.Outputs, ", "), len(res.ParamNames))
	return 0
}

func writeImport(res *onnx.Result, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	src := tvmscript.Print(res.Module, tvmscript.Current)
	if err := os.WriteFile(filepath.Join(dir, "model.py"), []byte(src), 0o644); err != nil {
		return err
	}
	if len(res.ParamNames) == 0 {
		return nil
	}
	a := &tensorio.Archive{}
	for _, n := range res.ParamNames {
		if err := a.Add(n, res.Params[n]); err != nil {
			return err
		}
	}
	f, err := os.Create(filepath.Join(dir, "params.safetensors"))
	if err != nil {
		return err
	}
	if err := tensorio.WriteSafetensors(f, a); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// compileONNX imports and compiles an ONNX model; weights given with --params
// override the model's initializers of the same (Relax) name.
//
// A model that needs some graph inputs' values at import time (a Reshape's
// target shape, a Resize's scales: ONNX allows them to be inputs) is refused
// by the importer. When the caller gives the inputs it will run with
// (inputs, an .npz keyed by graph-input name), compileONNX specializes the
// model to their values, as ir/onnx's conformance test does: first the
// integer inputs, then also the bool and at most 1-D ones, then all; it says
// so on stderr. The other inputs stay parameters.
func compileONNX(path string, opt compiler.Options, inputs string, stderr io.Writer) (*compiler.Result, error) {
	res, err := onnx.ImportFile(path, onnx.Options{})
	var ue *onnx.UnsupportedError
	if err != nil && inputs != "" && errors.As(err, &ue) && needsInputValues(err) {
		res, err = importSpecialized(path, inputs, err, stderr)
	}
	if err != nil {
		return nil, err
	}
	params := map[string]*runtime.Tensor{}
	for k, v := range res.Params {
		params[k] = v
	}
	for k, v := range opt.Params {
		params[k] = v
	}
	opt.Params = params
	onnxInputNames = map[string]string{}
	for i, p := range res.InputParams {
		onnxInputNames[p] = res.Inputs[i]
	}
	return compiler.CompileModule(res.Module, opt)
}

// needsInputValues reports whether an import error is the importer asking
// for a graph input's value at import time.
func needsInputValues(err error) bool {
	return strings.Contains(err.Error(), "known at import time") || strings.Contains(err.Error(), "must be a known")
}

// importSpecialized retries an import with graph inputs bound to their
// values in the inputs file, in three widening steps (integer inputs; also
// bool and at most 1-D ones; all), returning the first import that works,
// or the original error.
func importSpecialized(path, inputs string, orig error, stderr io.Writer) (*onnx.Result, error) {
	m, err := onnx.ReadModel(path)
	if err != nil {
		return nil, err
	}
	a, err := tensorio.ReadNPZFile(inputs)
	if err != nil {
		return nil, err
	}
	inits := map[string]bool{}
	for _, t := range m.Graph.Initializer {
		inits[t.GetName()] = true
	}
	for level := 0; level < 3; level++ {
		bind := map[string]*runtime.Tensor{}
		var names []string
		for _, in := range m.Graph.Input {
			t, ok := a.Get(in.GetName())
			if inits[in.GetName()] || !ok {
				continue
			}
			dt := t.DType()
			pick := dt.IsInt() || dt.IsUInt()
			if level >= 1 {
				pick = pick || dt == runtime.Bool || t.NDim() <= 1
			}
			if level >= 2 || pick {
				bind[in.GetName()] = t
				names = append(names, in.GetName())
			}
		}
		if len(bind) == 0 {
			continue
		}
		res, err := onnx.Import(m, onnx.Options{Dir: filepath.Dir(path), BindInputs: bind})
		if err == nil {
			fmt.Fprintf(stderr, "relaxgo: %s needs some input values at import time; specialized to the values of %s in %s\n",
				filepath.Base(path), strings.Join(names, ", "), filepath.Base(inputs))
			return res, nil
		}
		if !needsInputValues(err) {
			return nil, err
		}
	}
	return nil, orig
}
