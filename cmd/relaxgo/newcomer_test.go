package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/internal/conformance"
	"github.com/relaxgo/relaxgo/internal/corpus"
	"github.com/relaxgo/relaxgo/runtime"
)

// newcomerMain is what a user writes: a go:generate line and a call.
const newcomerMain = `package main

//go:generate go tool relaxgo gen --params mlp.safetensors --pkg mlp -o mlp model.py

import (
	"fmt"
	"os"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"

	"newcomer/mlp"
)

func main() {
	in, err := tensorio.ReadNPZFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	x, _ := in.Get("in_0")
	y, err := mlp.Main(x)
	if err != nil {
		panic(err)
	}
	for _, v := range y.Float32s() {
		fmt.Println(v)
	}
	_ = runtime.Float32
}
`

// TestNewcomer plays a new user following README's "Using it in your
// module" literally: a module outside the repository, `go get -tool`, a
// go:generate line running `go tool relaxgo`, then go generate, go mod
// tidy, a static CGO_ENABLED=0 build, go vet, go test, and tidy and
// generate again (which must change nothing); the binary's output must
// match the corpus's expected values.
//
// The relaxgo module is this checkout (a replace directive): as it is not
// published, `go get -tool` runs with GOPROXY=off, or the go command would
// ask the proxy whether github.com/relaxgo/relaxgo/cmd/relaxgo is a module
// of its own. Every other step runs in the environment as it is (module
// cache, proxy), without -mod=mod.
func TestNewcomer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go tool")
	}
	c, err := conformance.LoadCase(filepath.Join(corpus.Dir(t), "mlp_highlevel"))
	if err != nil {
		t.Fatal(err)
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	copyFile(t, c.ModulePath(), filepath.Join(work, "model.py"))
	copyFile(t, c.ParamsPath(), filepath.Join(work, "mlp.safetensors"))
	copyFile(t, filepath.Join(root, "go.sum"), filepath.Join(work, "go.sum"))
	write(t, filepath.Join(work, "go.mod"), "module newcomer\n\ngo 1.24\n\nrequire github.com/relaxgo/relaxgo v0.0.0\n\nreplace github.com/relaxgo/relaxgo => "+root+"\n")
	write(t, filepath.Join(work, "main.go"), newcomerMain)
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GOFLAGS=") {
			env = append(env, e)
		}
	}
	env = append(env, "CGO_ENABLED=0")
	goCmd := func(extraEnv []string, args ...string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = work, append(env, extraEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	goCmd([]string{"GOPROXY=off"}, "get", "-tool", "github.com/relaxgo/relaxgo/cmd/relaxgo")
	for _, args := range [][]string{
		{"generate", "./..."}, {"mod", "tidy"}, {"build", "-o", "newcomer", "."}, {"vet", "./..."}, {"test", "./..."},
	} {
		goCmd(nil, args...)
	}
	snapshot := func() string {
		var b strings.Builder
		for _, f := range []string{"go.mod", "go.sum", "mlp/model.relaxgo.go", "mlp/model.relaxgo_test.go"} {
			data, err := os.ReadFile(filepath.Join(work, f))
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
		}
		return b.String()
	}
	before := snapshot()
	if !strings.Contains(before, "tool github.com/relaxgo/relaxgo/cmd/relaxgo") {
		t.Error("go.mod has no tool directive for relaxgo")
	}
	goCmd(nil, "mod", "tidy")
	goCmd(nil, "generate", "./...")
	if snapshot() != before {
		t.Error("go mod tidy and go generate again changed go.mod, go.sum or the generated package")
	}
	bin := filepath.Join(work, "newcomer")
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary is dynamically linked (has an ELF interpreter)")
		}
	}
	f.Close()
	out, err := exec.Command(bin, filepath.Join(c.Dir, c.Calls[0].IO)).Output()
	if err != nil {
		t.Fatalf("running the binary: %v", err)
	}
	_, io, err := c.Inputs(c.Calls[0])
	if err != nil {
		t.Fatal(err)
	}
	want, _ := io.Get(c.Calls[0].Outputs[0].NPZ)
	var got []float32
	for _, line := range strings.Fields(string(out)) {
		v, err := strconv.ParseFloat(line, 32)
		if err != nil {
			t.Fatalf("bad output %q", line)
		}
		got = append(got, float32(v))
	}
	gt, err := runtime.FromSlice(got, want.Shape()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := conformance.Compare(gt, want, c.RTol, c.ATol); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	write(t, to, string(b))
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
