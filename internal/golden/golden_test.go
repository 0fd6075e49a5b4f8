package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFirstDiff(t *testing.T) {
	for _, c := range []struct{ want, got, has string }{
		{"a\nb\n", "a\nb\n", "identical"},
		{"a\nb\n", "a\nc\n", "line 2:\n  want: b\n  got:  c"},
		{"a\n", "a\nb", "line 2:"},
	} {
		if d := FirstDiff([]byte(c.want), []byte(c.got)); !strings.Contains(d, c.has) {
			t.Errorf("FirstDiff(%q, %q) = %q, want it to contain %q", c.want, c.got, d, c.has)
		}
	}
}

func TestCheckMatches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Check(t, path, []byte("same\n"))
}
