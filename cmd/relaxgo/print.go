package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/ir/tvmscript"
)

// runPrint implements `relaxgo print [--dialect=current|v0.23] FILE` ("-" reads stdin).
func runPrint(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("print", stderr,
		"usage: relaxgo print [--dialect=current|v0.23] FILE   (FILE - reads stdin)",
	)
	dialect := fs.String("dialect", "current", "TVMScript dialect to print: current or v0.23")
	file, code := parseOne(fs, args, stdout, stderr, "FILE")
	if code >= 0 {
		return code
	}
	d, err := tvmscript.ParseDialect(*dialect)
	if err != nil {
		return usageError(fs, stderr, "%v", err)
	}
	out, err := printFile(file, d, stdin)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	_, err = io.WriteString(stdout, out)
	if err != nil {
		fmt.Fprintf(stderr, "relaxgo print: %v\n", err)
		return 1
	}
	return 0
}

// printFile parses, normalizes, checks and prints one module.
func printFile(path string, d tvmscript.Dialect, stdin io.Reader) (string, error) {
	var src []byte
	var err error
	name := path
	if path == "-" {
		name = "<stdin>"
		src, err = io.ReadAll(stdin)
	} else {
		src, err = os.ReadFile(path)
	}
	if err != nil {
		return "", fmt.Errorf("relaxgo print: %w", err)
	}
	m, err := tvmscript.Parse(name, src, nil)
	if err != nil {
		return "", err
	}
	if err := ir.Normalize(m); err != nil {
		return "", withFile(name, err)
	}
	if err := ir.WellFormed(m); err != nil {
		return "", withFile(name, err)
	}
	return tvmscript.Print(m, d), nil
}

// withFile prefixes err with the file name unless its message already
// starts with a position in that file.
func withFile(name string, err error) error {
	if strings.HasPrefix(err.Error(), name+":") {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}
