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

// register adds a subcommand; call it from an init function.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("relaxgo: duplicate command " + c.name)
	}
	commands[c.name] = c
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.run([]string{"-h"}, stdout, stderr)
			}
		}
		usage(stdout)
		return 0
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
