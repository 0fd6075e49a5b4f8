package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// The CLI follows the go tool's conventions:
//   - "relaxgo CMD --help" prints the command's usage to stdout, exit 0;
//   - a usage mistake prints "relaxgo CMD: what is wrong", then the usage,
//     to stderr, exit 2;
//   - a failure of the work itself prints "relaxgo CMD: error", exit 1;
//   - an internal error (a panic) exits 3, never 2 (see main).
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
	exitCrash = 3
)

// parseFlags parses a command's arguments. Flags may come before or after
// the positional arguments (relaxgo run model.py --mode=compiled), as for
// the go tool; "--" ends the flags. It returns the positional arguments,
// and code >= 0 when the command must stop with that exit status (help
// printed, or a usage error reported).
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (positional []string, code int) {
	fs.SetOutput(io.Discard) // errors are reported below, in our words
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return nil, exitOK
		}
		if err != nil {
			return nil, usageError(fs, stderr, "%v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		// fs.Parse stops at the first non-flag; "--" is consumed by it, so
		// everything after a literal "--" must stay positional.
		if consumedDashDash(args, rest) {
			positional = append(positional, rest...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	fs.SetOutput(stderr)
	return positional, -1
}

// consumedDashDash reports whether fs.Parse stopped at a "--" in args
// (rest being what it left).
func consumedDashDash(args, rest []string) bool {
	i := len(args) - len(rest) - 1
	return i >= 0 && args[i] == "--"
}

// usageError reports a command-line mistake: "relaxgo CMD: message", then
// the command's usage, on stderr. It returns the exit status to use.
func usageError(fs *flag.FlagSet, stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "relaxgo %s: %s\n", fs.Name(), fmt.Sprintf(format, args...))
	fs.SetOutput(stderr)
	fs.Usage()
	return exitUsage
}

// newFlags makes command name's flag set, writing to stderr, whose usage
// prints the usage lines, then the flags.
func newFlags(name string, stderr io.Writer, usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		for _, l := range usage {
			fmt.Fprintln(fs.Output(), l)
		}
		fs.PrintDefaults()
	}
	return fs
}

// parseOne is parseFlags for commands that take exactly one file, named
// what in the usage error.
func parseOne(fs *flag.FlagSet, args []string, stdout, stderr io.Writer, what string) (file string, code int) {
	args, code = parseFlags(fs, args, stdout, stderr)
	if code >= 0 {
		return "", code
	}
	if len(args) != 1 {
		return "", usageError(fs, stderr, "want one %s, got %d arguments", what, len(args))
	}
	return args[0], -1
}
