// Package conformance reads the conformance corpus (TVMScript modules with
// inputs and expected outputs computed outside this project; internal/corpus
// finds it) and checks results against it. It is test harness, not API.
package conformance

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/internal/corpus"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// Case is one corpus directory.
type Case struct {
	Name        string            `json:"-"`
	Dir         string            `json:"-"`
	Description string            `json:"description"`
	Module      string            `json:"module"`
	RTol        float64           `json:"rtol"`
	ATol        float64           `json:"atol"`
	Params      string            `json:"params"`
	Packed      map[string]string `json:"packed"`
	Calls       []Call            `json:"calls"`
}

// Call is one invocation of a case.
type Call struct {
	Func    string   `json:"func"`
	IO      string   `json:"io"`
	Inputs  []Input  `json:"inputs"`
	Outputs []Output `json:"outputs"`
	// Error is "shape", "dtype" or "ndim" when the call must fail.
	Error string `json:"error"`
}

// Input describes one argument.
type Input struct {
	Name  string  `json:"name"`
	NPZ   string  `json:"npz"`
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

// Output describes one flattened result: a tensor stored under NPZ, or (when
// NPZ is empty) a shape value given inline in Shape.
type Output struct {
	NPZ   string  `json:"npz"`
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

// Cases loads every corpus case for a test that needs the corpus (skipped,
// or failed when CI=true, without one; see internal/corpus) and registers
// the packed functions the cases call.
func Cases(t testing.TB) []*Case {
	t.Helper()
	cases, err := Load(corpus.Dir(t))
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	RegisterPacked()
	return cases
}

// Load reads every case under dir, sorted by name.
func Load(dir string) ([]*Case, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	var out []*Case
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		c, err := LoadCase(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// LoadCase reads one case directory.
func LoadCase(dir string) (*Case, error) {
	b, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	c := &Case{Name: filepath.Base(dir), Dir: dir}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "case.json"), err)
	}
	if c.Module == "" {
		c.Module = "module.py"
	}
	return c, nil
}

// ModulePath is the case's TVMScript file.
func (c *Case) ModulePath() string { return filepath.Join(c.Dir, c.Module) }

// ParamsPath is the case's weights file, or "".
func (c *Case) ParamsPath() string {
	if c.Params == "" {
		return ""
	}
	return filepath.Join(c.Dir, c.Params)
}

// Inputs reads a call's arguments in parameter order.
func (c *Case) Inputs(call Call) ([]runtime.Value, *tensorio.Archive, error) {
	a, err := tensorio.ReadNPZFile(filepath.Join(c.Dir, call.IO))
	if err != nil {
		return nil, nil, err
	}
	args := make([]runtime.Value, len(call.Inputs))
	for i, in := range call.Inputs {
		t, ok := a.Get(in.NPZ)
		if !ok {
			return nil, nil, fmt.Errorf("%s: %s has no entry %q", c.Name, call.IO, in.NPZ)
		}
		args[i] = t
	}
	return args, a, nil
}

// Flatten lists a result's leaves depth-first (a tuple contributes its fields).
func Flatten(v runtime.Value) []runtime.Value {
	if t, ok := v.(runtime.Tuple); ok {
		var out []runtime.Value
		for _, f := range t {
			out = append(out, Flatten(f)...)
		}
		return out
	}
	return []runtime.Value{v}
}

// Check compares a call's result with the expected outputs.
func (c *Case) Check(call Call, io *tensorio.Archive, result runtime.Value) error {
	got := Flatten(result)
	if len(got) != len(call.Outputs) {
		return fmt.Errorf("got %d outputs, want %d", len(got), len(call.Outputs))
	}
	for i, want := range call.Outputs {
		if want.NPZ == "" {
			s, ok := got[i].(runtime.Shape)
			if !ok {
				return fmt.Errorf("output %d: got %s, want a shape", i, runtime.TypeName(got[i]))
			}
			if !s.Equal(runtime.Shape(want.Shape)) {
				return fmt.Errorf("output %d: got shape %s, want %s", i, s, runtime.Shape(want.Shape))
			}
			continue
		}
		wt, ok := io.Get(want.NPZ)
		if !ok {
			return fmt.Errorf("output %d: %s has no entry %q", i, call.IO, want.NPZ)
		}
		gt, ok := got[i].(*runtime.Tensor)
		if !ok {
			return fmt.Errorf("output %d: got %s, want a tensor", i, runtime.TypeName(got[i]))
		}
		if err := Compare(gt, wt, c.RTol, c.ATol); err != nil {
			return fmt.Errorf("output %d: %w", i, err)
		}
	}
	return nil
}

// CheckError verifies that a call expected to fail failed with a message
// naming the problem kind ("shape", "dtype" or "ndim").
func CheckError(call Call, err error) error {
	if err == nil {
		return fmt.Errorf("call succeeded, want a %s error", call.Error)
	}
	if !strings.Contains(strings.ToLower(err.Error()), call.Error) {
		return fmt.Errorf("error %q does not mention %q", err, call.Error)
	}
	return nil
}

// Compare checks got against want: same dtype and shape; floats within
// atol + rtol*|want|, everything else exactly.
func Compare(got, want *runtime.Tensor, rtol, atol float64) error {
	if got.DType() != want.DType() {
		return fmt.Errorf("dtype %s, want %s", got.DType(), want.DType())
	}
	if !runtime.Shape(got.Shape()).Equal(runtime.Shape(want.Shape())) {
		return fmt.Errorf("shape %s, want %s", runtime.Shape(got.Shape()), runtime.Shape(want.Shape()))
	}
	exact := !got.DType().IsFloat()
	if exact && string(got.Bytes()) == string(want.Bytes()) {
		return nil
	}
	g, w := tensorio.AsFloat64s(got), tensorio.AsFloat64s(want)
	if g == nil {
		return fmt.Errorf("%s values differ", got.DType())
	}
	bad, worst, worstAt := 0, 0.0, -1
	for i := range g {
		d := math.Abs(g[i] - w[i])
		ok := d == 0 || (!exact && d <= atol+rtol*math.Abs(w[i]))
		if math.IsNaN(w[i]) {
			ok = math.IsNaN(g[i])
		}
		if !ok {
			bad++
			if d > worst || worstAt < 0 {
				worst, worstAt = d, i
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d values differ; worst at %d: got %v, want %v", bad, len(g), worstAt, g[worstAt], w[worstAt])
	}
	return nil
}
