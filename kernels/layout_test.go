package kernels

import (
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func TestLayoutTransformMalformed(t *testing.T) {
	x := fromF(t, runtime.Float32, []float64{1, 2, 3, 4}, 4)
	out := mustT(t, []int64{2, 2}, runtime.Float32)
	split := []int64{1, 2, 5, idxParam, 0, idxConst, 2, idxFloorDiv, 5, idxParam, 0, idxConst, 2, idxFloorMod}
	if err := LayoutTransform(out, x, split, nil); err != nil {
		t.Fatal(err)
	}
	if got := elems[float32](out); got[0] != 1 || got[1] != 2 || got[2] != 3 || got[3] != 4 {
		t.Fatalf("got %v", got)
	}
	for _, tc := range []struct {
		name string
		prog []int64
		want string
	}{
		{"empty", nil, "header"},
		{"length", []int64{1, 1, 9, idxParam, 0}, "length out of range"},
		{"param", []int64{1, 1, 2, idxParam, 3}, "parameter 3"},
		{"underflow", []int64{1, 1, 1, idxAdd}, "underflow"},
		{"opcode", []int64{1, 1, 1, 99}, "opcode 99"},
		{"two values", []int64{1, 1, 4, idxParam, 0, idxParam, 0}, "leaves 2 values"},
		{"trailing", []int64{1, 0, 7}, "trailing"},
		{"div zero", []int64{1, 2, 5, idxParam, 0, idxConst, 0, idxFloorDiv, 2, idxParam, 0}, "division by zero"},
		{"out of range", []int64{1, 2, 2, idxParam, 0, 2, idxConst, 0}, "maps to"},
		{"rank", []int64{2, 2, 2, idxParam, 0, 2, idxParam, 1}, "takes 2 indices"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := LayoutTransform(out, x, tc.prog, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
