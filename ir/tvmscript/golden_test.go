package tvmscript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/internal/golden"
)

// TestGolden prints each testdata/golden/*.py in both dialects and compares
// with the .current.golden / .v023.golden files (go test -update rewrites them).
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "golden", "*.py"))
	if err != nil || len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, in := range inputs {
		base := strings.TrimSuffix(in, ".py")
		t.Run(filepath.Base(base), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Parse(in, src, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []struct {
				d    Dialect
				suff string
			}{{Current, ".current.golden"}, {V023, ".v023.golden"}} {
				got := roundTrip(t, m, d.d, nil)
				golden.Check(t, base+d.suff, []byte(got))
			}
		})
	}
}
