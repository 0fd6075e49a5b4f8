package tensorio

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/internal/corpus"
)

// corpusDir returns the corpus directory (see internal/corpus).
func corpusDir(t *testing.T) string {
	t.Helper()
	return corpus.Dir(t)
}

type corpusCase struct {
	Params string `json:"params"`
	Calls  []struct {
		IO      string         `json:"io"`
		Inputs  []corpusTensor `json:"inputs"`
		Outputs []corpusTensor `json:"outputs"`
	} `json:"calls"`
}

type corpusTensor struct {
	NPZ   string  `json:"npz"`
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

// paramRE matches a parameter annotation in TVMScript: name: R.Tensor((4, 64), dtype="float32").
var paramRE = regexp.MustCompile(`(\w+): R\.Tensor\(\(([^)]*)\), dtype="(\w+)"\)`)

// TestCorpus reads every .npz and .safetensors file of the conformance
// corpus, checks the tensors against case.json (and the parameter
// annotations in module.py), and checks that writing them back reproduces
// the files NumPy and the safetensors reference implementation wrote, byte
// for byte.
func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	cases, err := filepath.Glob(filepath.Join(dir, "*", "case.json"))
	if err != nil || len(cases) == 0 {
		t.Skipf("no cases in %s", dir)
	}
	for _, cj := range cases {
		cdir := filepath.Dir(cj)
		t.Run(filepath.Base(cdir), func(t *testing.T) {
			raw, err := os.ReadFile(cj)
			if err != nil {
				t.Fatal(err)
			}
			var c corpusCase
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatalf("%s: %v", cj, err)
			}
			for _, call := range c.Calls {
				p := filepath.Join(cdir, call.IO)
				a, err := ReadNPZFile(p)
				if err != nil {
					t.Fatal(err)
				}
				want := 0
				for _, ct := range append(append([]corpusTensor(nil), call.Inputs...), call.Outputs...) {
					if ct.NPZ == "" {
						continue // a shape result, given inline
					}
					want++
					x, ok := a.Get(ct.NPZ)
					if !ok {
						t.Fatalf("%s: no entry %q (have %q)", p, ct.NPZ, a.Names())
					}
					if x.DType().String() != ct.DType || !reflect.DeepEqual(x.Shape(), ct.Shape) && !(len(x.Shape()) == 0 && len(ct.Shape) == 0) {
						t.Errorf("%s: %s is %s, case.json says %s %v", p, ct.NPZ, x, ct.DType, ct.Shape)
					}
				}
				if a.Len() != want {
					t.Errorf("%s: %d entries %q, case.json lists %d", p, a.Len(), a.Names(), want)
				}
				checkNumPyBytes(t, p, a)
				if filepath.Base(cdir) == "add_self" { // main(x) = x + x: the data decode right
					in, _ := a.Get("in_0")
					out, _ := a.Get("out_0")
					for i, v := range in.Float32s() {
						if out.Float32s()[i] != v+v {
							t.Fatalf("%s: out_0[%d] = %v, in_0[%d] = %v", p, i, out.Float32s()[i], i, v)
						}
					}
				}
			}
			if c.Params != "" {
				checkParams(t, cdir, c.Params)
			}
		})
	}
}

// checkNumPyBytes checks that WriteNPY reproduces each entry of the .npz at
// path exactly as NumPy wrote it.
func checkNumPyBytes(t *testing.T, path string, a *Archive) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		orig, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		x, _ := a.Get(strings.TrimSuffix(f.Name, ".npy"))
		var b bytes.Buffer
		if err := WriteNPY(&b, x); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), orig) {
			t.Errorf("%s: %s: WriteNPY gives\n%q\nNumPy wrote\n%q", path, f.Name, clip(b.String()), clip(string(orig)))
		}
	}
}

// checkParams reads a safetensors file, checks its tensors against the
// parameter annotations of module.py, and checks that writing it back gives
// the original bytes (all corpus weights are float32 and stored sorted by
// name, which is the reference implementation's order and so our order).
func checkParams(t *testing.T, cdir, name string) {
	t.Helper()
	p := filepath.Join(cdir, name)
	a, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() == 0 {
		t.Fatalf("%s: no tensors", p)
	}
	mod, err := os.ReadFile(filepath.Join(cdir, "module.py"))
	if err != nil {
		t.Fatal(err)
	}
	annot := map[string][]string{}
	for _, m := range paramRE.FindAllStringSubmatch(string(mod), -1) {
		annot[m[1]] = m[2:]
	}
	for _, n := range a.Names() {
		x, _ := a.Get(n)
		an, ok := annot[n]
		if !ok {
			t.Errorf("%s: tensor %q is not a parameter of module.py", p, n)
			continue
		}
		var shape []int64
		for _, s := range strings.Split(an[0], ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			d, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("%s: parameter %q has symbolic shape %q", p, n, an[0])
			}
			shape = append(shape, d)
		}
		if x.DType().String() != an[1] || !reflect.DeepEqual(x.Shape(), shape) {
			t.Errorf("%s: %q is %s, module.py says %s %v", p, n, x, an[1], shape)
		}
	}
	orig, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteSafetensors(&b, a); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), orig) {
		n := min(len(orig), b.Len(), 400)
		t.Errorf("%s: WriteSafetensors does not reproduce the file:\n got %q\nwant %q", p, b.Bytes()[:n], orig[:n])
	}
}
