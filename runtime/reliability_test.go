package runtime

import "testing"

// TestCopyFromNil: Tensor.CopyFrom(nil) returns an error instead of panicking.
func TestCopyFromNil(t *testing.T) {
	dst, err := NewTensor(Shape{2}, Float32)
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.CopyFrom(nil); err == nil {
		t.Fatal("CopyFrom(nil) returned no error")
	}
}
