package main

import (
	"bytes"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
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

// TestPreviewLargeTensor checks that the run preview of a large output
// converts only the values it shows.
func TestPreviewLargeTensor(t *testing.T) {
	big, err := runtime.NewTensor([]int64{1 << 24}, runtime.Float32)
	if err != nil {
		t.Fatal(err)
	}
	copy(big.Float32s(), []float32{1.5, 2, 3})
	var got string
	allocs := testing.AllocsPerRun(1, func() { got = preview(big, 4) })
	if want := "[1.5 2 3 0 ... (16777216 values)]"; got != want {
		t.Errorf("preview = %q, want %q", got, want)
	}
	if allocs > 20 {
		t.Errorf("%v allocations", allocs)
	}
	var m1, m2 goruntime.MemStats
	goruntime.ReadMemStats(&m1)
	preview(big, 4)
	goruntime.ReadMemStats(&m2)
	if d := m2.TotalAlloc - m1.TotalAlloc; d > 1<<20 {
		t.Errorf("preview allocated %d bytes", d)
	}
	small, _ := runtime.FromSlice([]float32{1, 2}, 2)
	if got := preview(small, 4); got != "[1 2]" {
		t.Errorf("preview of a short tensor = %q", got)
	}
}
