package runtime

import (
	"math"
	"testing"
)

type celsius float64
type id int32

// TestNamedElementTypes checks that named element types map by their
// underlying type (a named int32 used to become float32).
func TestNamedElementTypes(t *testing.T) {
	if dt := DataTypeOf[celsius](); dt != Float64 {
		t.Errorf("celsius: %s", dt)
	}
	if dt := DataTypeOf[id](); dt != Int32 {
		t.Errorf("id: %s", dt)
	}
	x, err := FromSlice([]id{1, 2, 3}, 3)
	if err != nil || x.DType() != Int32 || x.Int32s()[2] != 3 {
		t.Fatalf("FromSlice of a named int32: %v %v", x, err)
	}
}

// TestWrap checks that Wrap views the caller's slice without copying.
func TestWrap(t *testing.T) {
	data := []float32{1, 2, 3, 4, 5, 6}
	x, err := Wrap(data, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if x.DType() != Float32 || x.NumElements() != 6 {
		t.Fatalf("wrapped %v", x)
	}
	data[4] = 50
	if x.Float32s()[4] != 50 {
		t.Error("Wrap copied the data")
	}
	x.Float32s()[0] = -1
	if data[0] != -1 {
		t.Error("writes through the tensor do not reach the slice")
	}
	if n := testing.AllocsPerRun(10, func() { _, _ = Wrap(data, 6) }); n > 4 { // headers only, never the data
		t.Errorf("Wrap allocates %v times", n)
	}
	if _, err := Wrap(data, 4); err == nil {
		t.Error("Wrap accepted a shape that does not match the data")
	}
	if e, err := Wrap([]bool{}, 0); err != nil || e.NumElements() != 0 {
		t.Errorf("empty: %v %v", e, err)
	}
}

// TestNumElementsOverflow checks NumElements' products and its overflow
// and negative-axis errors at the int64 boundary, where the check is by a
// 128-bit product: exact fits pass, one past fails, zero axes never
// overflow.
func TestNumElementsOverflow(t *testing.T) {
	const max = math.MaxInt64
	for _, c := range []struct {
		shape []int64
		want  int64
		err   bool
	}{
		{nil, 1, false},
		{[]int64{3, 4}, 12, false},
		{[]int64{0, max}, 0, false},
		{[]int64{max, 0, max}, 0, false},
		{[]int64{max}, max, false},
		{[]int64{max, 1}, max, false},
		{[]int64{max, 2}, 0, true},
		{[]int64{1 << 31, 1 << 31, 1}, 1 << 62, false},
		{[]int64{1 << 31, 1 << 31, 2}, 0, true},
		{[]int64{1 << 31, 1 << 32}, 0, true},
		{[]int64{3037000499, 3037000499}, 3037000499 * 3037000499, false}, // ⌊√max⌋²
		{[]int64{3037000500, 3037000500}, 0, true},
		{[]int64{max / 3, 3}, max / 3 * 3, false},
		{[]int64{max/3 + 1, 3}, 0, true},
		{[]int64{2, -1}, 0, true},
	} {
		got, err := NumElements(c.shape)
		if (err != nil) != c.err || (!c.err && got != c.want) {
			t.Errorf("NumElements(%v) = %d, %v; want %d, error %v", c.shape, got, err, c.want, c.err)
		}
	}
}
