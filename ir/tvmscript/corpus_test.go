package tvmscript

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir locates the shared directory (corpus) from RELAXGO_SHARED or ../../shared.
func sharedDir() string {
	if d := os.Getenv("RELAXGO_SHARED"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared")
}

func corpusFiles(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join(sharedDir(), "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not found at %s", dir)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*", "module.py"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus modules under %s", dir)
	}
	return files
}

func TestCorpusParse(t *testing.T) {
	for _, f := range corpusFiles(t) {
		name := filepath.Base(filepath.Dir(f))
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Parse(f, src, nil); err != nil {
				t.Fatalf("parse: %v", err)
			}
		})
	}
}
