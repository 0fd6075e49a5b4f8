package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relaxgo/relaxgo/ir/onnx"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"
)

// TestONNXRecurrent runs the RNN/GRU/LSTM fixtures of ir/onnx/testdata/rnn
// (one folder per case: model.onnx with one node, inputs.npz by graph input
// name, expected.npz by graph output name; written by scripts/rnn_fixtures.py
// from a float64 NumPy reference of the operator spec) straight from their
// .onnx files in bytecode and compiled mode: every output must be within
// 1e-4 + 1e-4·|want| of the reference in both modes, and the modes must
// agree bit for bit. The cases cover what ONNX's node tests do not: GRU
// linear_before_reset=1, B as a graph input, bidirectional with layout=1,
// initial_h/initial_c with layout=1, peepholes with two directions.
//
// Nearly all of its time is compiled mode building each case's runner (about
// a second a case). One model holding every case's node was no faster: its
// compiled run took ~19 s, the Go compiler on one 20,000-line function.
// With -short (the noasm run of make test) it runs every fourth case.
func TestONNXRecurrent(t *testing.T) {
	const atol, rtol = 1e-4, 1e-4
	root := filepath.Join("..", "..", "ir", "onnx", "testdata", "rnn")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, e := range entries {
		if e.IsDir() {
			cases = append(cases, e.Name())
		}
	}
	if len(cases) < 12 {
		t.Fatalf("%s: %d case folders, want at least 12 (regenerate with scripts/rnn_fixtures.py)", root, len(cases))
	}
	modes := []string{"bytecode", "compiled"}
	for i, name := range cases {
		if testing.Short() && i%4 != 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			model, in := filepath.Join(dir, "model.onnx"), filepath.Join(dir, "inputs.npz")
			m, err := onnx.ReadModel(model)
			if err != nil {
				t.Fatal(err)
			}
			want, err := tensorio.ReadNPZFile(filepath.Join(dir, "expected.npz"))
			if err != nil {
				t.Fatal(err)
			}
			outs := m.Graph.Output
			if len(outs) != want.Len() {
				t.Fatalf("expected.npz has %q, the graph has %d outputs", want.Names(), len(outs))
			}
			got := map[string]*tensorio.Archive{}
			for _, mode := range modes {
				got[mode] = runONNX(t, model, in, mode)
				if got[mode].Len() != len(outs) {
					t.Fatalf("%s: %d outputs %q, want %d", mode, got[mode].Len(), got[mode].Names(), len(outs))
				}
			}
			sameArchives(t, got["bytecode"], got["compiled"])
			// relaxgo run writes the results as out_0..out_k, in the graph's output order.
			for i, o := range outs {
				w, ok := want.Get(o.GetName())
				if !ok || w.DType() != runtime.Float32 {
					t.Fatalf("expected.npz has %q, want a float32 %s", want.Names(), o.GetName())
				}
				for _, mode := range modes {
					g, _ := got[mode].Get(got[mode].Names()[i])
					if _, err := withinTolerance(g, w, atol, rtol); err != nil {
						t.Errorf("%s: output %s %v: %v", mode, o.GetName(), w.Shape(), err)
					}
				}
			}
		})
	}
}
