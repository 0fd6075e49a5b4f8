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
