package ir

func init() {
	for _, n := range []string{"add", "subtract", "multiply", "less_equal"} {
		reg("relax."+n, true, nil, args(arg("x1"), arg("x2")))
	}
	reg("relax.negative", true, nil, args(arg("x")))
	reg("relax.nn.relu", true, nil, args(arg("data")))
	reg("relax.nn.gelu", true, nil, args(arg("data")))
	reg("relax.nn.softmax", true, nil, args(arg("data")), attrI("axis", -1))
	reg("relax.matmul", true, nil, args(arg("x1"), arg("x2")), attrDT("out_dtype"))
	reg("relax.permute_dims", true, nil, args(arg("x")), attrOptInts("axes"))
	reg("relax.reshape", true, nil, args(arg("x"), argK("shape", ArgShape)))
}
