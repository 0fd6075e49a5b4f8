// Command relaxgo compiles Apache TVM Relax modules (TVMScript) to Go.
//
// Usage:
//
//	relaxgo <command> [flags] [arguments]
//
// Each subcommand lives in its own file and registers itself with register.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
)

// command is one subcommand of the CLI.
type command struct {
	name    string
	summary string
	// run executes the command with its arguments (after the command name)
	// and returns the process exit status.
	run func(args []string, stdout, stderr io.Writer) int
}

// stdin is where commands read "-" from (tests replace it).
var stdin io.Reader = os.Stdin

var commands = map[string]*command{}

// builtinCommands are relaxgo's commands; each runX is in its x.go.
var builtinCommands = []*command{
	{name: "bench", summary: "time a function in bytecode and/or compiled mode", run: runBench},
	{name: "build", summary: "compile a module to a bytecode executable (.vmexec)", run: runBuild},
	{name: "gen", summary: "generate a Go package for a model (for go:generate)", run: runGen},
	{name: "import", summary: "convert an ONNX model to TVMScript (model.py) and weights (params.safetensors)", run: runImport},
	{name: "inspect", summary: "print an executable as text, as Python, or its statistics", run: runInspect},
	{name: "print", summary: "parse a TVMScript module, check it, and print it normalized", run: runPrint},
	{name: "profile", summary: "time each operator of a function (bytecode mode)", run: runProfile},
	{name: "run", summary: "compile and run a function on inputs from an .npz file", run: runRun},
	{name: "version", summary: "print relaxgo's version, the Go version and the SIMD level in use", run: runVersion},
}

func init() {
	for _, c := range builtinCommands {
		register(c)
	}
}

// register adds a subcommand; call it from an init function.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("relaxgo: duplicate command " + c.name)
	}
	commands[c.name] = c
}

func main() {
	os.Exit(runProtected(os.Args[1:], os.Stdout, os.Stderr))
}

// runProtected is run, except that a panic (a bug in relaxgo) is reported
// as an internal error with its stack and exit status 3, so that it never
// looks like a usage mistake (2) or an ordinary failure (1).
func runProtected(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "relaxgo: internal error (please report it): %v\n%s", r, debug.Stack())
			code = exitCrash
		}
	}()
	return run(args, stdout, stderr)
}

// run dispatches to a subcommand and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 2 {
			fmt.Fprintln(stderr, "relaxgo help: want at most one command name")
			return exitUsage
		}
		if len(args) == 2 {
			c, ok := commands[args[1]]
			if !ok {
				fmt.Fprintf(stderr, "relaxgo help: unknown command %q; run 'relaxgo help' for the list\n", args[1])
				return exitUsage
			}
			return c.run([]string{"-h"}, stdout, stderr)
		}
		usage(stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "relaxgo: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: relaxgo <command> [flags] [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'relaxgo help <command>' for a command's flags.")
}
