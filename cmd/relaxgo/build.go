package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/lower"
)

// compileFlags are the flags shared by build, run and gen.
type compileFlags struct {
	params       string
	allowMissing bool
	dumpAfter    string
	// inputs is the .npz a run or bench will call the model with: an ONNX
	// model that needs some input values at import time is specialized to
	// them (see compileONNX).
	inputs string
}

// newCompileFlags is newFlags for the commands that compile a model: the
// flag set carries the compile flags, parsed into the returned compileFlags.
func newCompileFlags(name string, stderr io.Writer, usage ...string) (*flag.FlagSet, *compileFlags) {
	fs := newFlags(name, stderr, usage...)
	cf := &compileFlags{}
	cf.register(fs)
	return fs, cf
}

func (c *compileFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.params, "params", "", "weights (.safetensors or .npz) bound to parameters after num_input, by name")
	fs.BoolVar(&c.allowMissing, "allow-missing-params", false, "keep weight parameters missing from --params as run-time arguments instead of failing")
	fs.StringVar(&c.dumpAfter, "dump-after", "", "print the module after these passes (comma-separated; \"all\"); passes: "+strings.Join(lower.PassNames(), ", "))
}

func (c *compileFlags) compile(path string, stderr io.Writer) (*compiler.Result, error) {
	opt := compiler.Options{}
	if c.params != "" {
		p, err := compiler.LoadParams(c.params)
		if err != nil {
			return nil, err
		}
		opt.Params = p
		opt.AllowMissingParams = c.allowMissing
	}
	if c.dumpAfter != "" {
		opt.DumpAfter = strings.Split(c.dumpAfter, ",")
		opt.Dump = stderr
	}
	if isONNX(path) {
		return compileONNX(path, opt, c.inputs, stderr)
	}
	return compiler.CompileFile(path, opt)
}

// runBuild is `relaxgo build [--params P] -o OUT.vmexec MODULE.py`.
func runBuild(args []string, stdout, stderr io.Writer) int {
	fs, cf := newCompileFlags("build", stderr,
		"usage: relaxgo build [--params P] [--dump-after PASSES] -o OUT.vmexec MODULE.py",
	)
	out := fs.String("o", "", "output executable file (TVM \"0.14\" format)")
	file, code := parseOne(fs, args, stdout, stderr, "MODULE.py")
	if code >= 0 {
		return code
	}
	if *out == "" {
		return usageError(fs, stderr, "no output file: pass -o OUT.vmexec")
	}
	res, err := cf.compile(file, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "relaxgo build:", err)
		return 1
	}
	if err := writeExec(*out, res); err != nil {
		fmt.Fprintln(stderr, "relaxgo build:", err)
		return 1
	}
	return 0
}

func writeExec(path string, res *compiler.Result) error {
	if err := res.Exec.SaveToFile(path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
