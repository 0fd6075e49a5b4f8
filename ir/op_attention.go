package ir

// nn.attention(query, key, value, scale=None, causal_mask=None,
// window_size=None) and nn.attention_bias (the same with a bias argument), as
// TVM's Python API creates them: query (B, S, N, H), key (B, Skv, N, H),
// value (B, Skv, N, Hv) give (B, S, N, Hv).
func init() {
	attrs := []AttrDef{
		{Name: "scale", Kind: AttrFloat, Optional: true},
		{Name: "causal_mask", Kind: AttrString, Optional: true},
		attrOptI("window_size"),
	}
	reg("relax.nn.attention", true, inferAttention, args(arg("query"), arg("key"), arg("value")), attrs...)
	reg("relax.nn.attention_bias", true, inferAttention, args(arg("query"), arg("key"), arg("value"), arg("bias")), attrs...)
}

func inferAttention(c *Call, _ *InferCtx) (StructInfo, error) {
	var ts [3]*TensorSInfo
	for i := range ts {
		t, err := tensorArg(c, i, false)
		if err != nil {
			return nil, err
		}
		if t.NDim >= 0 && t.NDim != 4 {
			return nil, opErr(c, "%s must be 4-D (batch, seq, heads, dim), got rank %d", argName(c, i), t.NDim)
		}
		ts[i] = t
	}
	q, k, v := ts[0], ts[1], ts[2]
	if v, _ := c.Attrs.Get("causal_mask"); v != nil {
		if m, _ := v.(string); m != "TopLeft" && m != "BottomRight" {
			return nil, opErr(c, "causal_mask must be TopLeft or BottomRight, got %v", v)
		}
	}
	if q.Shape == nil || k.Shape == nil || v.Shape == nil {
		return unknownTensor(4, q.DType), nil
	}
	same := func(a, b PrimExpr, what string) error {
		if !ProveEqual(a, b) {
			if _, ok1 := AsInt(Simplify(a)); ok1 {
				if _, ok2 := AsInt(Simplify(b)); ok2 {
					return opErr(c, "%s do not match: %s and %s", what, ExprString(a), ExprString(b))
				}
			}
		}
		return nil
	}
	for _, chk := range []struct {
		a, b PrimExpr
		what string
	}{
		{q.Shape[0], k.Shape[0], "batch sizes of query and key"},
		{q.Shape[0], v.Shape[0], "batch sizes of query and value"},
		{q.Shape[2], k.Shape[2], "head counts of query and key"},
		{q.Shape[2], v.Shape[2], "head counts of query and value"},
		{q.Shape[3], k.Shape[3], "head dims of query and key"},
		{k.Shape[1], v.Shape[1], "sequence lengths of key and value"},
	} {
		if err := same(chk.a, chk.b, chk.what); err != nil {
			return nil, err
		}
	}
	return NewTensorSInfo([]PrimExpr{q.Shape[0], q.Shape[1], q.Shape[2], v.Shape[3]}, q.DType), nil
}
