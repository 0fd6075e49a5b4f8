package asm

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedAssemblyFresh reruns the avo generator (asm/gen, a module of
// its own) into a temporary directory and fails when the committed assembly
// or stubs differ: regenerate with `make asm`.
func TestGeneratedAssemblyFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the avo generator")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	dir := t.TempDir()
	s, stubs := filepath.Join(dir, "kernels_amd64.s"), filepath.Join(dir, "stubs_amd64.go")
	cmd := exec.Command("go", "run", ".", "-out", s, "-stubs", stubs, "-pkg", "asm")
	cmd.Dir = "gen"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("running the generator: %v\n%s", err, out)
	}
	for _, f := range []struct{ got, committed string }{{s, "kernels_amd64.s"}, {stubs, "stubs_amd64.go"}} {
		got, err := os.ReadFile(f.got)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(f.committed)
		if err != nil {
			t.Fatal(err)
		}
		// The first line records the command with its output paths.
		if !bytes.Equal(afterFirstLine(got), afterFirstLine(want)) {
			t.Errorf("%s is stale: run make asm", f.committed)
		}
	}
}

func afterFirstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}
