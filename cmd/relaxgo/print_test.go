package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const printSample = `# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((3, 4), dtype="float32"):
        gv = R.add(x, x)
        return gv
`

func TestPrintCommand(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.py")
	if err := os.WriteFile(path, []byte(printSample), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"print", path}, &out, &errb); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errb.String())
	}
	// Normalized: the binding gets its inferred annotation.
	if !strings.Contains(out.String(), `gv: R.Tensor((3, 4), dtype="float32") = R.add(x, x)`) {
		t.Errorf("unexpected output:\n%s", out.String())
	}

	out.Reset()
	errb.Reset()
	stdin = strings.NewReader(printSample)
	defer func() { stdin = os.Stdin }()
	if rc := run([]string{"print", "--dialect=v0.23", "-"}, &out, &errb); rc != 0 {
		t.Fatalf("stdin: exit %d: %s", rc, errb.String())
	}
	if !strings.Contains(out.String(), "# from tvm.script import relax as R") {
		t.Errorf("unexpected output:\n%s", out.String())
	}
}

func TestPrintCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.py")
	if err := os.WriteFile(bad, []byte(strings.Replace(printSample, "R.add(x, x)", "R.add(x, y)", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"print", bad}, &out, &errb); rc != 1 {
		t.Fatalf("want exit 1, got %d", rc)
	}
	if !strings.Contains(errb.String(), "bad.py:8:23: undefined variable \"y\"") || out.Len() != 0 {
		t.Errorf("stderr %q stdout %q", errb.String(), out.String())
	}
	errb.Reset()
	if rc := run([]string{"print", filepath.Join(dir, "missing.py")}, &out, &errb); rc != 1 {
		t.Errorf("missing file: exit %d", rc)
	}
	if rc := run([]string{"print", "--dialect=v9", bad}, &out, &errb); rc != 2 {
		t.Errorf("bad dialect: exit %d", rc)
	}
	if rc := run([]string{"nosuchcommand"}, &out, &errb); rc != 2 {
		t.Errorf("unknown command: exit %d", rc)
	}
}
