package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// TestHelpExitsZero checks that every command's --help prints its usage to
// stdout and exits 0, as the go tool's commands do.
func TestHelpExitsZero(t *testing.T) {
	for name := range commands {
		for _, flag := range []string{"-h", "--help"} {
			var out, errb bytes.Buffer
			if rc := run([]string{name, flag}, &out, &errb); rc != exitOK {
				t.Errorf("relaxgo %s %s: exit %d (stderr %q)", name, flag, rc, errb.String())
			}
			if !strings.HasPrefix(out.String(), "usage: relaxgo "+name) || errb.Len() != 0 {
				t.Errorf("relaxgo %s %s: stdout %.60q, stderr %.60q", name, flag, out.String(), errb.String())
			}
		}
		var out, errb bytes.Buffer
		if rc := run([]string{"help", name}, &out, &errb); rc != exitOK || !strings.HasPrefix(out.String(), "usage: relaxgo "+name) {
			t.Errorf("relaxgo help %s: exit %d, stdout %.60q", name, rc, out.String())
		}
	}
}

// TestUsageErrors checks that a command-line mistake exits 2 with a first
// line "relaxgo CMD: what is wrong", followed by the usage.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args  []string
		first string
	}{
		{[]string{"bench", "--mode=xx", "m.py"}, "relaxgo bench: unknown --mode=xx (want bytecode, compiled or both)"},
		{[]string{"build", "m.py"}, "relaxgo build: no output file: pass -o OUT.vmexec"},
		{[]string{"build", "-o", "x.vmexec"}, "relaxgo build: want one MODULE.py, got 0 arguments"},
		{[]string{"inspect", "--text", "--stats", "x.vmexec"}, "relaxgo inspect: --text, --python and --stats exclude each other"},
		{[]string{"run", "--nosuch", "m.py"}, "relaxgo run: flag provided but not defined: -nosuch"},
		{[]string{"run", "--mode=fast", "m.py"}, "relaxgo run: unknown --mode=fast (want bytecode or compiled)"},
		{[]string{"gen", "a.py", "b.py"}, "relaxgo gen: want one MODULE.py, got 2 arguments"},
		{[]string{"print", "--dialect=v9", "m.py"}, "relaxgo print: "},
		{[]string{"version", "extra"}, "relaxgo version: takes no arguments"},
		{[]string{"help", "nosuch"}, `relaxgo help: unknown command "nosuch"`},
		{[]string{"nosuch"}, `relaxgo: unknown command "nosuch"`},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		rc := run(tc.args, &out, &errb)
		first, _, _ := strings.Cut(errb.String(), "\n")
		if rc != exitUsage || !strings.HasPrefix(first, tc.first) {
			t.Errorf("relaxgo %s: exit %d, first line %q; want exit 2, %q", strings.Join(tc.args, " "), rc, first, tc.first)
		}
	}
}

// TestFlagsAfterArguments checks that flags may follow the file, and that
// "--" keeps what follows positional.
func TestFlagsAfterArguments(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.py")
	if err := os.WriteFile(path, []byte(printSample), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"print", path, "--dialect=v0.23"}, &out, &errb); rc != exitOK {
		t.Fatalf("exit %d: %s", rc, errb.String())
	}
	if !strings.Contains(out.String(), "from tvm.script import tir as T") && !strings.Contains(out.String(), "R.function") {
		t.Errorf("output %q", out.String())
	}
	errb.Reset()
	if rc := run([]string{"print", "--", "--dialect=v0.23"}, &out, &errb); rc != exitFail || !strings.Contains(errb.String(), "--dialect=v0.23") {
		t.Errorf("after --: exit %d, stderr %q", rc, errb.String())
	}
}

// TestVersion checks relaxgo version's line.
func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := run([]string{"version"}, &out, &errb); rc != exitOK {
		t.Fatalf("exit %d: %s", rc, errb.String())
	}
	if s := out.String(); !strings.HasPrefix(s, "relaxgo ") || !strings.Contains(s, " go1.") || !strings.Contains(s, "isa=") {
		t.Errorf("version line %q", s)
	}
}

// TestPanicExitCode checks that a panic inside a command is reported as an
// internal error with exit status 3, distinct from usage errors.
func TestPanicExitCode(t *testing.T) {
	register(&command{name: "zz-panic", summary: "test only", run: func([]string, io.Writer, io.Writer) int { panic("boom") }})
	defer delete(commands, "zz-panic")
	var out, errb bytes.Buffer
	if rc := runProtected([]string{"zz-panic"}, &out, &errb); rc != exitCrash {
		t.Errorf("exit %d, want %d", rc, exitCrash)
	}
	if !strings.HasPrefix(errb.String(), "relaxgo: internal error (please report it): boom") {
		t.Errorf("stderr %.80q", errb.String())
	}
}

// TestInputNamingErrors checks that an inputs file whose names do not fit
// the function's parameters says which name is missing.
func TestInputNamingErrors(t *testing.T) {
	res, err := compiler.Compile("m.py", []byte(printSample), compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(names ...string) string {
		a := &tensorio.Archive{}
		for _, n := range names {
			x, _ := runtime.NewTensor([]int64{3, 4}, runtime.Float32)
			if err := a.Add(n, x); err != nil {
				t.Fatal(err)
			}
		}
		p := filepath.Join(dir, strings.Join(names, "_")+".npz")
		if err := tensorio.WriteNPZFile(p, a); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		names []string
		want  string // "" when the call must succeed
	}{
		{[]string{"x"}, ""},
		{[]string{"h"}, ""}, // one entry, one parameter: taken in order
		{[]string{"h", "a"}, "no entry named x, and the file's 2 entries (h, a) cannot be taken in order for the 1 parameters of main"},
	}
	for _, tc := range tests {
		_, err := readArgs(res.Exec, "main", write(tc.names...))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%v: %v", tc.names, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.names, err, tc.want)
		}
	}
}
