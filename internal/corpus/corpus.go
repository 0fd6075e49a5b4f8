// Package corpus locates the conformance corpus (TVMScript modules with
// inputs and expected outputs, kept outside this repository) for tests.
//
// The corpus is $RELAXGO_SHARED/corpus when RELAXGO_SHARED is set, else
// ../shared/corpus beside the repository root. A test that needs it calls
// Dir: in a clone without the corpus the test is skipped with a message
// saying where it looked, and when CI=true it fails instead, so that CI never
// passes by skipping.
package corpus

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Find returns the corpus directory, or "" and the places it looked.
func Find() (dir string, looked []string) { return FindShared("corpus") }

// FindShared returns the directory sub of the shared folder
// ($RELAXGO_SHARED, else ../shared beside the repository), or "" and the
// places it looked.
func FindShared(sub string) (dir string, looked []string) {
	if s := os.Getenv("RELAXGO_SHARED"); s != "" {
		d := filepath.Join(s, sub)
		if isDir(d) {
			return d, nil
		}
		return "", []string{d + " (from RELAXGO_SHARED)"}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", []string{"the working directory: " + err.Error()}
	}
	for d := wd; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.HasPrefix(string(b), "module github.com/relaxgo/relaxgo\n") {
			c := filepath.Join(filepath.Dir(d), "shared", sub)
			if isDir(c) {
				return c, nil
			}
			return "", []string{c + " (../shared/" + sub + " beside the repository; or set RELAXGO_SHARED)"}
		}
		if filepath.Dir(d) == d {
			return "", []string{"../shared/" + sub + " beside the repository root, which was not found above " + wd}
		}
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Dir returns the corpus directory for a test that needs it. Without a
// corpus the test fails when the environment has CI=true and is skipped
// otherwise; both say where the corpus was looked for.
func Dir(t testing.TB) string {
	t.Helper()
	dir, looked := Find()
	if dir == "" {
		missing(t, looked)
	}
	return dir
}

// SharedDir is Dir for another folder of the shared data, such as
// "onnx/node" (ONNX's backend node tests).
func SharedDir(t testing.TB, sub string) string {
	t.Helper()
	dir, looked := FindShared(sub)
	if dir == "" {
		missingWhat(t, sub, looked)
	}
	return dir
}

// Optional returns the corpus directory, or "" (logged, and a failure when
// CI=true) for tests that add corpus cases to their own when it is present.
func Optional(t testing.TB) string {
	t.Helper()
	dir, looked := Find()
	if dir == "" {
		msg := "conformance corpus not found at " + strings.Join(looked, ", ") + "; its cases are left out"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true requires it)")
		}
		t.Log(msg)
	}
	return dir
}

func missing(t testing.TB, looked []string) { t.Helper(); missingWhat(t, "conformance corpus", looked) }

func missingWhat(t testing.TB, what string, looked []string) {
	t.Helper()
	msg := what + " not found at " + strings.Join(looked, ", ")
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true requires it)")
		return
	}
	t.Skip("SKIP: " + msg)
}

// Modules returns the corpus's module.py files, sorted (the test needs the
// corpus, as with Dir).
func Modules(t testing.TB) []string {
	t.Helper()
	dir := Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*", "module.py"))
	if err != nil || len(files) == 0 {
		t.Fatalf("corpus %s has no */module.py (%v)", dir, err)
	}
	sort.Strings(files)
	return files
}

// EachModule runs fn as a subtest, named after the case, for every corpus
// module, with the module's path and text (the test needs the corpus, as
// with Dir).
func EachModule(t *testing.T, fn func(t *testing.T, path string, src []byte)) {
	t.Helper()
	for _, path := range Modules(t) {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, path, src)
		})
	}
}
