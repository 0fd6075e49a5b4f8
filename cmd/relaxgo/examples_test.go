package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generateArgs reads the relaxgo gen arguments from a //go:generate line
// (nil when the file has none, as examples/compare).
func generateArgs(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const prefix = "//go:generate go run github.com/relaxgo/relaxgo/cmd/relaxgo gen "
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, prefix) {
			return strings.Fields(strings.TrimPrefix(line, prefix))
		}
	}
	return nil
}

// TestExamplesFresh regenerates every example package from its go:generate
// line and fails when a checked-in file differs (run go generate ./examples/...).
func TestExamplesFresh(t *testing.T) {
	mains, err := filepath.Glob("../../examples/*/main.go")
	if err != nil || len(mains) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	for _, main := range mains {
		dir := filepath.Dir(main)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			args := generateArgs(t, main)
			if args == nil {
				t.Skip("no generated package")
			}
			out := t.TempDir()
			// Run in the example directory, as go generate does, writing elsewhere.
			for i, a := range args {
				if a == "-o" && i+1 < len(args) {
					args[i+1] = filepath.Join(out, args[i+1])
				}
			}
			wd, _ := os.Getwd()
			if err := os.Chdir(dir); err != nil {
				t.Fatal(err)
			}
			defer os.Chdir(wd)
			var stdout, stderr bytes.Buffer
			if code := runGen(args, &stdout, &stderr); code != 0 {
				t.Fatalf("relaxgo gen %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
			}
			gen, _ := filepath.Glob(filepath.Join(out, "*", "*"))
			if len(gen) == 0 {
				t.Fatal("nothing generated")
			}
			for _, g := range gen {
				rel, _ := filepath.Rel(out, g)
				want, err := os.ReadFile(rel)
				if err != nil {
					t.Errorf("%s: missing from the checked-in package (run go generate ./examples/...)", rel)
					continue
				}
				got, _ := os.ReadFile(g)
				if !bytes.Equal(got, want) {
					t.Errorf("%s: stale (run go generate ./examples/...)", rel)
				}
			}
		})
	}
}
