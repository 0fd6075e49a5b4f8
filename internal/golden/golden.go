// Package golden compares test output with golden files, and rewrites them
// when the test binary runs with -update (go test ./pkg -update). Every
// golden-file test in the module uses it, so the flag means the same
// everywhere.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files (and other generated test data) instead of comparing")

// Updating reports whether the test runs with -update.
func Updating() bool { return *update }

// Check compares got with the golden file at path. With -update it writes
// got to path (creating directories) instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden: %v (run go test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (check the change, then run go test with -update): %s", path, FirstDiff(want, got))
	}
}

// FirstDiff describes the first line where want and got differ.
func FirstDiff(want, got []byte) string {
	w, g := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b []byte
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if !bytes.Equal(a, b) {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, a, b)
		}
	}
	return "identical"
}

// WriteFuzzSeed writes data as a seed of fuzz target (a []byte input) to
// testdata/fuzz/target/name, in the go test fuzz v1 format. Seed-writing
// tests call it only with -update (see Updating).
func WriteFuzzSeed(t testing.TB, target, name string, data []byte) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("golden: %v", err)
	}
	content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatalf("golden: %v", err)
	}
}
