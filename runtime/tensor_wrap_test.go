package runtime

import "testing"

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
