package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	shared := t.TempDir()
	t.Setenv("RELAXGO_SHARED", shared)
	if d, looked := Find(); d != "" || len(looked) != 1 || !strings.Contains(looked[0], shared) {
		t.Errorf("empty shared dir: Find() = %q, %q", d, looked)
	}
	if err := os.Mkdir(filepath.Join(shared, "corpus"), 0o755); err != nil {
		t.Fatal(err)
	}
	if d, _ := Find(); d != filepath.Join(shared, "corpus") {
		t.Errorf("Find() = %q, want %s/corpus", d, shared)
	}
}

// recorder notes whether a test was skipped or failed, without stopping.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()             {}
func (r *recorder) Skip(args ...any)    { r.skipped = args[0].(string) }
func (r *recorder) Fatal(args ...any)   { r.failed = args[0].(string) }
func (r *recorder) Log(args ...any)     {}
func (r *recorder) Logf(string, ...any) {}

func TestMissingCorpus(t *testing.T) {
	t.Setenv("RELAXGO_SHARED", t.TempDir())
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		r := &recorder{TB: t}
		Dir(r)
		if ci == "true" && (r.failed == "" || r.skipped != "") || ci == "" && (r.skipped == "" || r.failed != "") {
			t.Errorf("CI=%q: skipped %q, failed %q", ci, r.skipped, r.failed)
		}
		if msg := r.skipped + r.failed; !strings.Contains(msg, "RELAXGO_SHARED") {
			t.Errorf("CI=%q: message %q does not say where it looked", ci, msg)
		}
	}
}
