// Package compiler drives relaxgo's compilation: TVMScript source and weights
// in, a lowered module, its register program and the bytecode executable out.
// It is what the CLI and the code generator call.
package compiler

import (
	"fmt"
	"io"
	"os"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/ir/tvmscript"
	"github.com/relaxgo/relaxgo/lower"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
	"github.com/relaxgo/relaxgo/vmtir"

	_ "github.com/relaxgo/relaxgo/kernels" // the kernel library: legalization targets
)

// Options configure a compilation.
type Options struct {
	// Params are weights bound to parameters after num_input, by name.
	Params map[string]*runtime.Tensor
	// AllowMissingParams leaves weight parameters that Params lacks as
	// run-time arguments instead of failing.
	AllowMissingParams bool
	// Passes replaces the default pass list when non-nil.
	Passes []lower.Pass
	// DumpAfter names passes after which the module is printed to Dump ("all" for every pass).
	DumpAfter []string
	// Dump receives the dumps (default: none).
	Dump io.Writer
}

// Result is everything a compilation produces.
type Result struct {
	// Source is the parsed, normalized module.
	Source *ir.Module
	// Lowered is the VM-ready module after the pass pipeline.
	Lowered *ir.Module
	// Program is the register program both backends read.
	Program *vmtir.Program
	// Exec is the bytecode executable.
	Exec *runtime.Executable
	// Consts is where each of Program's constants went in Exec (for gen.Input).
	Consts []vmtir.Arg
}

// LoadParams reads weights from a .safetensors or .npz file.
func LoadParams(path string) (map[string]*runtime.Tensor, error) {
	a, err := tensorio.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*runtime.Tensor, a.Len())
	for _, n := range a.Names() {
		t, _ := a.Get(n)
		out[n] = t
	}
	return out, nil
}

// CompileFile compiles the TVMScript module in path.
func CompileFile(path string, opt Options) (*Result, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Compile(path, src, opt)
}

// Parse parses and normalizes a module without lowering it.
func Parse(filename string, src []byte) (*ir.Module, error) {
	m, err := tvmscript.Parse(filename, src, nil)
	if err != nil {
		return nil, err
	}
	if err := ir.Normalize(m); err != nil {
		return nil, err
	}
	if err := ir.WellFormed(m); err != nil {
		return nil, err
	}
	return m, nil
}

// Compile parses src (named filename in messages), binds weights, runs the
// pass pipeline and builds the program and the executable.
func Compile(filename string, src []byte, opt Options) (*Result, error) {
	m, err := Parse(filename, src)
	if err != nil {
		return nil, err
	}
	return CompileModule(m, opt)
}

// CompileModule compiles a parsed module.
func CompileModule(m *ir.Module, opt Options) (*Result, error) {
	passes := opt.Passes
	if passes == nil {
		passes = lower.DefaultPasses()
	}
	if len(opt.Params) > 0 {
		bind := lower.BindParams(opt.Params)
		if opt.AllowMissingParams {
			bind = lower.BindParamsAllowMissing(opt.Params)
		}
		passes = append([]lower.Pass{bind}, passes...)
	}
	lowered, err := lower.Run(m, passes, lower.Options{Dump: opt.Dump, DumpAfter: opt.DumpAfter, Printer: func(m *ir.Module) string {
		return tvmscript.PrintWith(m, tvmscript.Current, tvmscript.PrintOptions{ElideConstantsOver: 16})
	}})
	if err != nil {
		return nil, err
	}
	prog, err := vmtir.Lower(lowered)
	if err != nil {
		return nil, err
	}
	exec, consts, err := vmtir.Bytecode(prog)
	if err != nil {
		return nil, fmt.Errorf("building the executable: %w", err)
	}
	return &Result{Source: m, Lowered: lowered, Program: prog, Exec: exec, Consts: consts}, nil
}
