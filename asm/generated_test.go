package asm

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedAssemblyFresh reruns the avo generator (asm/gen, a module of
// its own) into a temporary directory and fails when the committed assembly
// or stubs differ: regenerate with `make asm`.
func TestGeneratedAssemblyFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the avo generator")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	dir := t.TempDir()
	s, stubs := filepath.Join(dir, "kernels_amd64.s"), filepath.Join(dir, "stubs_amd64.go")
	cmd := exec.Command("go", "run", ".", "-out", s, "-stubs", stubs, "-pkg", "asm")
	cmd.Dir = "gen"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("running the generator: %v\n%s", err, out)
	}
	for _, f := range []struct{ got, committed string }{{s, "kernels_amd64.s"}, {stubs, "stubs_amd64.go"}} {
		got, err := os.ReadFile(f.got)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(f.committed)
		if err != nil {
			t.Fatal(err)
		}
		// The first line records the command with its output paths.
		if !bytes.Equal(afterFirstLine(got), afterFirstLine(want)) {
			t.Errorf("%s is stale: run make asm", f.committed)
		}
	}
}

func afterFirstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}

// TestKernelsRequireTheirLevel reads the "Requires:" line avo writes above
// every kernel and fails when a kernel needs an instruction set its level
// does not check for (detect): AVX2 and FMA3 for a name without AVX512,
// those and AVX-512 F, DQ, BW, VL and BMI2 for the others; and when one
// uses a legacy SSE encoding. An EVEX-only form slipped into an AVX2
// kernel runs on an AVX-512 machine even at RELAXGO_ISA=avx2, and stops an
// AVX2-only CPU with SIGILL; only this reading of the assembly catches it
// there.
func TestKernelsRequireTheirLevel(t *testing.T) {
	src, err := os.ReadFile("kernels_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	// What the AVX2 level may use: detect checks AVX2 and FMA3, which
	// imply AVX; avo names PREFETCHT0 and the like MMX+. No SSE or SSE2:
	// a legacy-encoded instruction on a vector register while the upper
	// halves are dirty cost hundreds of cycles each on an AVX2-only AMD EPYC (a
	// MOVQ into a mask's register made the depthwise transposes 66% of
	// their layer), so the kernels use the VEX forms (VMOVQ, VMOVD).
	// CMOV is in the amd64 baseline every Go program needs (GOAMD64=v1).
	allowed := map[string]bool{"AVX": true, "AVX2": true, "FMA3": true, "MMX+": true, "CMOV": true}
	avx512Allowed := map[string]bool{"AVX512F": true, "AVX512DQ": true, "AVX512BW": true, "AVX512VL": true, "BMI2": true}
	lines := strings.Split(string(src), "\n")
	checked := 0
	for i, l := range lines {
		req, ok := strings.CutPrefix(l, "// Requires: ")
		if !ok || i == 0 {
			continue
		}
		fn, ok := strings.CutPrefix(lines[i-1], "// func ")
		if !ok {
			t.Fatalf("kernels_amd64.s:%d: a Requires line not under a // func line", i+1)
		}
		name, _, _ := strings.Cut(fn, "(")
		avx512 := strings.Contains(name, "AVX512")
		if !avx512 {
			checked++
		}
		for _, f := range strings.Split(req, ", ") {
			if !allowed[f] && !(avx512 && avx512Allowed[f]) {
				t.Errorf("%s needs %s, which its level does not check for (kernels_amd64.s:%d)", name, f, i+1)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d kernels below AVX-512: the Requires lines were not found", checked)
	}
}
