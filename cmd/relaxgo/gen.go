package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/gen"
)

func init() {
	register(&command{name: "gen", summary: "generate a Go package for a model (for go:generate)", run: runGen})
}

// runGen is `relaxgo gen [--params P] [--pkg NAME] [-o DIR] MODULE.py`.
func runGen(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf compileFlags
	cf.register(fs)
	pkg := fs.String("pkg", "", "Go package name (default: the output directory's name)")
	out := fs.String("o", ".", "output directory")
	setUsage(fs,
		"usage: relaxgo gen [--params P] [--pkg NAME] [-o DIR] MODULE.py",
		"\nWrites the model's Go package into DIR (MODULE.py is TVMScript; MODEL.onnx works too).",
		"In a go:generate line, after `go get -tool github.com/relaxgo/relaxgo/cmd/relaxgo`:",
		"\t//go:generate go tool relaxgo gen --params weights.safetensors -o model --pkg model model.py",
	)
	file, code := parseOne(fs, args, stdout, stderr, "MODULE.py")
	if code >= 0 {
		return code
	}
	if err := generate(&cf, file, *out, *pkg, stderr); err != nil {
		fmt.Fprintln(stderr, "relaxgo gen:", err)
		return 1
	}
	return 0
}

// generate compiles a module and writes its package into dir.
func generate(cf *compileFlags, module, dir, pkg string, stderr io.Writer) error {
	if pkg == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		pkg = filepath.Base(abs)
	}
	res, err := cf.compile(module, stderr)
	if err != nil {
		return err
	}
	return generateFrom(res, module, dir, pkg)
}

// generateFrom writes the package of a compiled module into dir.
func generateFrom(res *compiler.Result, module, dir, pkg string) error {
	files, err := gen.Package(gen.Input{Lowered: res.Lowered, Program: res.Program, Exec: res.Exec, Consts: res.Consts, Package: pkg, Source: filepath.Base(module)})
	if err != nil {
		return err
	}
	return writeFiles(dir, files)
}

// writeFiles writes generated files, leaving unchanged files untouched.
func writeFiles(dir string, files gen.Files) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if old, err := os.ReadFile(p); err == nil && string(old) == string(files[n]) {
			continue
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}
