package ir

import (
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

// imap builds lambda p0..pn-1: results(params).
func imap(n int, results func(p []PrimExpr) []PrimExpr) *IndexMap {
	m := &IndexMap{}
	ps := make([]PrimExpr, n)
	for i := range ps {
		v := NewPrimVar(string(rune('i'+i)), runtime.Int64)
		m.Params = append(m.Params, v)
		ps[i] = v
	}
	m.Results = results(ps)
	return m
}

func TestInferLayoutTransform(t *testing.T) {
	split := imap(1, func(p []PrimExpr) []PrimExpr {
		return []PrimExpr{&Binary{OpFloorDiv, p[0], Int64(4)}, &Binary{OpFloorMod, p[0], Int64(4)}}
	})
	fuse := imap(2, func(p []PrimExpr) []PrimExpr {
		return []PrimExpr{&Binary{OpAdd, &Binary{OpMul, p[0], Int64(4)}, p[1]}}
	})
	perm := imap(3, func(p []PrimExpr) []PrimExpr { return []PrimExpr{p[2], p[0], p[1]} })
	cmp := imap(1, func(p []PrimExpr) []PrimExpr { return []PrimExpr{&Binary{OpLT, p[0], Int64(4)}} })
	n := NewPrimVar("n", runtime.Int64)
	runInferCases(t, []inferCase{
		{"split", "relax.layout_transform", []Expr{f32(16)}, Attrs{{"index_map", split}}, `R.Tensor((4, 4), dtype="float32")`},
		{"split padded", "relax.layout_transform", []Expr{f32(14)}, Attrs{{"index_map", split}, {"pad_value", 2.0}}, `R.Tensor((4, 4), dtype="float32")`},
		{"split short", "relax.layout_transform", []Expr{f32(3)}, Attrs{{"index_map", split}}, `R.Tensor((1, 4), dtype="float32")`},
		{"fuse", "relax.layout_transform", []Expr{f32(3, 4)}, Attrs{{"index_map", fuse}}, `R.Tensor((12,), dtype="float32")`},
		{"permute symbolic", "relax.layout_transform", []Expr{f32(n, 2, 3)}, Attrs{{"index_map", perm}}, `R.Tensor((3, n, 2), dtype="float32")`},
		{"symbolic split", "relax.layout_transform", []Expr{f32(n)}, Attrs{{"index_map", split}}, `R.Tensor(ndim=2, dtype="float32")`},
		{"rank", "relax.layout_transform", []Expr{f32(2, 3)}, Attrs{{"index_map", split}}, "error: rank 2"},
		{"not arithmetic", "relax.layout_transform", []Expr{f32(8)}, Attrs{{"index_map", cmp}}, "error: not integer arithmetic"},
		{"not a map", "relax.layout_transform", []Expr{f32(8)}, Attrs{{"index_map", int64(3)}}, "error: index_map must be"},
		{"pad", "relax.layout_transform", []Expr{f32(8)}, Attrs{{"index_map", split}, {"pad_value", "x"}}, "error: pad_value"},
	})
}

func TestIndexMapProgram(t *testing.T) {
	fuse := imap(2, func(p []PrimExpr) []PrimExpr {
		return []PrimExpr{&Binary{OpAdd, &Binary{OpMul, p[0], Int64(4)}, p[1]}}
	})
	got, err := fuse.Program()
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{2, 1, 8, IdxParam, 0, IdxConst, 4, IdxMul, IdxParam, 1, IdxAdd}
	if len(got) != len(want) {
		t.Fatalf("program %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("program %v, want %v", got, want)
		}
	}
	free := &IndexMap{Params: []*PrimVar{NewPrimVar("i", runtime.Int64)}, Results: []PrimExpr{NewPrimVar("j", runtime.Int64)}}
	if _, err := free.Program(); err == nil {
		t.Fatal("a map reading a non-parameter encoded")
	}
}
