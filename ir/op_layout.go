package ir

import "fmt"

// relax.layout_transform(x, index_map, pad_value=None), as in TVM
// (LayoutTransformAttrs): the element at index i of x moves to index
// index_map(i) of the result; positions no input index maps to (padding)
// hold pad_value, or 0 when it is None (TVM's legalization uses 0 then).
// index_map is an *IndexMap (a lambda or T.index_map(lambda ...)).
func init() {
	d := reg("relax.layout_transform", true, inferLayoutTransform, args(arg("x")),
		AttrDef{Name: "index_map", Kind: AttrAny, Required: true}, AttrDef{Name: "pad_value", Kind: AttrAny, Optional: true})
	// Releases before 0.20 printed axis_separators and input_axis_separators;
	// empty ones mean nothing and are dropped.
	d.Prep = func(c *Call) error {
		kept := c.Attrs[:0:0]
		for _, a := range c.Attrs {
			if a.Key == "axis_separators" || a.Key == "input_axis_separators" {
				v, err := toPlain(a.Value)
				if err != nil {
					return err
				}
				if l, ok := v.([]any); v != nil && (!ok || len(l) > 0) {
					return fmt.Errorf("%s %v is not supported (it only matters to non-flat memory)", a.Key, v)
				}
				continue
			}
			kept = append(kept, a)
		}
		c.Attrs = kept
		return nil
	}
	d.Fixup = func(c *Call) error {
		switch x := mustGet(c.Attrs, "pad_value").(type) {
		case *IntImm:
			c.Attrs = c.Attrs.Set("pad_value", x.Value)
		case *FloatImm:
			c.Attrs = c.Attrs.Set("pad_value", x.Value)
		}
		return nil
	}
}

func mustGet(a Attrs, key string) any {
	v, _ := a.Get(key)
	return v
}

// LayoutIndexMap returns a layout_transform call's index map.
func LayoutIndexMap(c *Call) (*IndexMap, error) {
	v, _ := c.Attrs.Get("index_map")
	m, ok := v.(*IndexMap)
	if !ok {
		return nil, opErr(c, "index_map must be a lambda or T.index_map(lambda ...), got %s", valueDesc(v))
	}
	return m, nil
}

func inferLayoutTransform(c *Call, _ *InferCtx) (StructInfo, error) {
	x, err := tensorArg(c, 0, false)
	if err != nil {
		return nil, err
	}
	m, err := LayoutIndexMap(c)
	if err != nil {
		return nil, err
	}
	if _, err := m.Program(); err != nil {
		return nil, opErr(c, "%v", err)
	}
	if pv, _ := c.Attrs.Get("pad_value"); pv != nil {
		switch pv.(type) {
		case int64, float64, bool:
		default:
			return nil, opErr(c, "pad_value must be a number, got %s", valueDesc(pv))
		}
	}
	if x.NDim >= 0 && x.NDim != len(m.Params) {
		return nil, opErr(c, "the index map takes %d indices, the input has rank %d", len(m.Params), x.NDim)
	}
	if x.Shape == nil {
		return unknownTensor(len(m.Results), x.DType), nil
	}
	out, ok, err := m.MapShape(x.Shape)
	if err != nil {
		return nil, opErr(c, "%v", err)
	}
	if !ok {
		return unknownTensor(len(m.Results), x.DType), nil
	}
	return &TensorSInfo{Shape: out, NDim: len(out), DType: x.DType}, nil
}
