package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// TestMemoryLimit runs modules that ask for a terabyte in both modes: a
// symbolic R.zeros((n, n)) whose n comes from an empty input of shape
// (524288, 0) (a tiny .npz), and a static 524288 x 524288 tensor. Each call
// must fail with the memory-limit error before allocating, not kill the
// process.
func TestMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated runners")
	}
	for _, c := range []struct {
		module string
		shape  []int64
	}{
		{"testdata/bigzeros.py", []int64{524288, 0}},
		{"testdata/bigstatic.py", []int64{2}},
	} {
		x, err := runtime.NewTensor(c.shape, runtime.Float32)
		if err != nil {
			t.Fatal(err)
		}
		in := &tensorio.Archive{}
		if err := in.Add("x", x); err != nil {
			t.Fatal(err)
		}
		inPath := filepath.Join(t.TempDir(), "in.npz")
		if err := tensorio.WriteNPZFile(inPath, in); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"bytecode", "compiled"} {
			var stdout, stderr bytes.Buffer
			code := runRun([]string{"--mode=" + mode, "--inputs", inPath, c.module}, &stdout, &stderr)
			msg := stderr.String()
			if code != 1 || !strings.Contains(msg, "limit exceeded") || !strings.Contains(msg, "needs 1099511627776 bytes") {
				t.Errorf("%s %s: exit %d, stderr %q; want the memory limit error", c.module, mode, code, msg)
			}
		}
	}
}
