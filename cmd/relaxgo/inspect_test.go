package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildInspect builds an executable and prints it in each format.
func TestBuildInspect(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.vmexec")
	var stdout, stderr bytes.Buffer
	if code := runBuild([]string{"-o", out, "testdata/tirvars.py"}, &stdout, &stderr); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr.String())
	}
	for _, tc := range []struct {
		flag, want string
	}{
		{"--text", "@main:"},
		{"--python", "ib = rx.Builder()"},
		{"--stats", "Relax VM executable statistics"},
	} {
		stdout.Reset()
		if code := runInspect([]string{tc.flag, out}, &stdout, &stderr); code != 0 {
			t.Fatalf("inspect %s: exit %d: %s", tc.flag, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), tc.want) {
			t.Errorf("inspect %s: output lacks %q:\n%s", tc.flag, tc.want, stdout.String())
		}
	}
	if code := runInspect([]string{"--text", "--stats", out}, &stdout, &stderr); code != 2 {
		t.Errorf("two formats: exit %d, want 2", code)
	}
	if code := runInspect([]string{"testdata/tirvars.py"}, &stdout, &stderr); code != 1 {
		t.Errorf("not an executable: exit %d, want 1", code)
	}
}
