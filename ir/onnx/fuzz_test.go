package onnx_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relaxgo/relaxgo/ir/onnx"
)

// Seeds: small models copied from ONNX's backend node tests (Apache-2.0,
// onnx/onnx v1.22.0) into testdata/seeds, plus testdata/tiny_cnn.onnx.
func addSeeds(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "seeds", "*.onnx"))
	paths = append(paths, filepath.Join("testdata", "tiny_cnn.onnx"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzDecode: any bytes decode to a model or give an error, never a panic.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = onnx.Decode(b)
	})
}

// FuzzImport: any bytes import to a module that type-checks, or give an error.
func FuzzImport(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := onnx.ImportBytes(b, onnx.Options{})
		if err == nil && res.Module == nil {
			t.Fatal("no module and no error")
		}
	})
}
