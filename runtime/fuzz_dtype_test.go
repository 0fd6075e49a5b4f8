package runtime

import "testing"

// FuzzParseDataType: any string parses or fails without panicking, and a
// parsed type prints as a string that parses back to the same type.
func FuzzParseDataType(f *testing.F) {
	for _, s := range []string{"float32", "int64", "bool", "float16", "bfloat16", "uint8", "float32x4", "int4", "e4m3_float8", "handle", "void", "", "float", "int0", "uint99999999999999999999", "float32x-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dt, err := ParseDataType(s)
		if err != nil {
			return
		}
		back, err := ParseDataType(dt.String())
		if err != nil || back != dt {
			t.Fatalf("%q parses to %v, which prints as %q and parses back to %v, %v", s, dt, dt.String(), back, err)
		}
		_ = dt.ElemBytes()
	})
}
