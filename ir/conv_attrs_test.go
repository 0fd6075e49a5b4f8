package ir

import "testing"

// TestConvOneValueAttrs checks that a single stride or dilation stands for
// every spatial axis, as TVM's conv constructors expand it, and that other
// lengths are refused.
func TestConvOneValueAttrs(t *testing.T) {
	fix := convFixup(3, "data_layout")
	c := &Call{Attrs: Attrs{}.Set("strides", []any{int64(2)}).Set("dilation", []any{int64(1)}).Set("data_layout", "NCDHW")}
	if err := fix(c); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"strides", "dilation"} {
		v, _ := c.Attrs.Get(k)
		if l, _ := v.([]any); len(l) != 3 || l[0] != l[1] || l[1] != l[2] {
			t.Errorf("%s = %v, want three equal values", k, v)
		}
	}
	bad := &Call{Attrs: Attrs{}.Set("strides", []any{int64(1), int64(2)})}
	if err := fix(bad); err == nil {
		t.Error("two strides for a 3-D convolution were accepted")
	}
}
