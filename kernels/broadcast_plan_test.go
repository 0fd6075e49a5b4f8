package kernels

import "testing"

// TestMakePlanSameShape checks makePlan's same-shape shortcut against the
// general construction, and that mixed shapes still take the general path.
func TestMakePlanSameShape(t *testing.T) {
	for _, c := range []struct {
		out []int64
		ins [][]int64
	}{
		{[]int64{3, 4}, [][]int64{{3, 4}, {3, 4}}},
		{[]int64{1, 5, 1, 7}, [][]int64{{1, 5, 1, 7}, {1, 5, 1, 7}, {1, 5, 1, 7}}},
		{[]int64{2}, [][]int64{{2}}},
		{[]int64{1, 1}, [][]int64{{1, 1}, {1, 1}}},
		{[]int64{0, 3}, [][]int64{{0, 3}, {0, 3}}},
		{[]int64{3, 4}, [][]int64{{3, 4}, {4}}},
		{[]int64{3, 4}, [][]int64{{3, 1}, {3, 4}}},
		{[]int64{2, 3, 4}, [][]int64{{2, 3, 4}, {1, 3, 4}}},
	} {
		got, want := makePlan(c.out, c.ins...), makePlanGeneral(c.out, c.ins...)
		if got != want {
			t.Errorf("makePlan(%v, %v) = %+v, general construction %+v", c.out, c.ins, got, want)
		}
	}
}

// TestMakePlanCoalesces checks that runs of dimensions every input walks
// alike (contiguously, or not at all) merge into one, however long the run:
// a tensor times a scalar is one row, not a row per last dimension.
func TestMakePlanCoalesces(t *testing.T) {
	for _, c := range []struct {
		out       []int64
		ins       [][]int64
		nd, inner int
	}{
		{[]int64{1, 4, 8, 8}, [][]int64{{1, 4, 8, 8}, {}}, 1, 256},
		{[]int64{2, 3, 4, 5}, [][]int64{{2, 3, 4, 5}, {1, 1, 1, 1}}, 1, 120},
		{[]int64{2, 3, 4, 5}, [][]int64{{2, 3, 4, 5}, {2, 1, 1, 1}}, 2, 60},
		{[]int64{2, 3, 4, 5}, [][]int64{{2, 3, 4, 5}, {5}}, 2, 5},
		{[]int64{2, 3, 4, 5}, [][]int64{{2, 3, 4, 5}, {4, 5}}, 2, 20},
		{[]int64{6, 2, 3, 4}, [][]int64{{1, 2, 3, 4}, {6, 1, 1, 1}}, 2, 24},
	} {
		p := makePlanGeneral(c.out, c.ins...)
		if p.nd != c.nd || p.inner != c.inner {
			t.Errorf("makePlan(%v, %v): %d dims, rows of %d; want %d dims, rows of %d", c.out, c.ins, p.nd, p.inner, c.nd, c.inner)
		}
	}
}
