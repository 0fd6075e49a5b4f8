package main

import (
	"fmt"
	"io"

	"github.com/relaxgo/relaxgo/runtime"
)

// runInspect is `relaxgo inspect [--text|--python|--stats] FILE.vmexec`.
func runInspect(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("inspect", stderr,
		"usage: relaxgo inspect [--text|--python|--stats] FILE.vmexec",
	)
	text := fs.Bool("text", false, "print the bytecode as text (default)")
	python := fs.Bool("python", false, "print the bytecode as Python ExecBuilder calls")
	stats := fs.Bool("stats", false, "print the executable's statistics")
	file, code := parseOne(fs, args, stdout, stderr, "FILE.vmexec")
	if code >= 0 {
		return code
	}
	if b2i(*text)+b2i(*python)+b2i(*stats) > 1 {
		return usageError(fs, stderr, "--text, --python and --stats exclude each other")
	}
	exec, err := runtime.LoadExecutableFile(file)
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
