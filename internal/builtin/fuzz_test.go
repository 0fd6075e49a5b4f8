package builtin

import (
	"encoding/binary"
	"testing"
)

// FuzzEvalShapeProgram runs arbitrary shape programs (words read as little-
// endian int64, small values folded onto the opcodes) over a fixed heap:
// never a panic, and the same program gives the same result twice.
func FuzzEvalShapeProgram(f *testing.F) {
	word := func(ws ...int64) []byte {
		b := make([]byte, 8*len(ws))
		for i, w := range ws {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(w))
		}
		return b
	}
	f.Add(word(int64(ShapeLoad), 0, int64(ShapePush), 2, int64(ShapeMul)))
	f.Add(word(int64(ShapePush), -7, int64(ShapePush), 2, int64(ShapeFloorDiv)))
	f.Add(word(int64(ShapePush), -1<<63, int64(ShapePush), -1, int64(ShapeTruncDiv)))
	f.Add(word(int64(ShapeLoad), 9, int64(ShapeNot)))
	f.Fuzz(func(t *testing.T, data []byte) {
		heap := []int64{3, -4, 0, 1 << 40}
		prog := make([]int64, len(data)/8)
		for i := range prog {
			prog[i] = int64(binary.LittleEndian.Uint64(data[8*i:]))
		}
		v1, err1 := EvalShapeProgram(prog, heap)
		v2, err2 := EvalShapeProgram(prog, heap)
		if v1 != v2 || (err1 == nil) != (err2 == nil) {
			t.Fatalf("two runs differ: %d, %v and %d, %v", v1, err1, v2, err2)
		}
	})
}
