package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/relaxgo/relaxgo/runtime"
)

func init() {
	register(&command{name: "inspect", summary: "print an executable as text, as Python, or its statistics", run: runInspect})
}

// runInspect is `relaxgo inspect [--text|--python|--stats] FILE.vmexec`.
func runInspect(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	text := fs.Bool("text", false, "print the bytecode as text (default)")
	python := fs.Bool("python", false, "print the bytecode as Python ExecBuilder calls")
	stats := fs.Bool("stats", false, "print the executable's statistics")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: relaxgo inspect [--text|--python|--stats] FILE.vmexec")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || b2i(*text)+b2i(*python)+b2i(*stats) > 1 {
		fs.Usage()
		return 2
	}
	exec, err := runtime.LoadExecutableFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "relaxgo inspect:", err)
		return 1
	}
	switch {
	case *python:
		fmt.Fprint(stdout, exec.AsPython())
	case *stats:
		fmt.Fprint(stdout, exec.Stats())
	default:
		fmt.Fprint(stdout, exec.AsText())
	}
	return 0
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
