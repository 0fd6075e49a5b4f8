package onnx

// CausalConvWithState (opset 27): a depthwise causal 1-D convolution carrying
// the last kernel_size-1 time steps as state. Expanded as its ONNX function
// body: concatenate past_state (or zeros) before the input along time, Conv
// with group = channels, optional SiLU, and present_state = the last K-1
// steps of the padded input.

func convCausalConvWithState(c *Ctx, n *Node) ([]*Value, error) {
	x, w := n.In[0], n.In[1]
	xd, ok := x.StaticDims()
	wd, ok2 := w.StaticDims()
	if !ok || !ok2 || len(xd) != 3 || len(wd) != 3 {
		return nil, n.unsupported("only 3-D input and weight with static shapes are supported")
	}
	if wd[0] != xd[1] || wd[1] != 1 || wd[2] < 1 {
		return nil, n.unsupported("weight shape %v does not match a depthwise kernel for %d channels", wd, xd[1])
	}
	act := n.Str("activation", "none")
	switch act {
	case "none", "silu", "swish":
	default:
		return nil, n.unsupported("activation=%q", act)
	}
	b := newBody(c, n)
	km1 := wd[2] - 1
	var padded string
	if past := n.Input(3); past != nil {
		padded = b.op("Concat", []string{b.in(past), b.in(x)}, aInt("axis", 2))
	} else {
		zeros := b.op("ConstantOfShape", []string{b.in(c.ConstInts([]int64{xd[0], xd[1], km1}))})
		zc := b.op("CastLike", []string{zeros, b.in(x)})
		padded = b.op("Concat", []string{zc, b.in(x)}, aInt("axis", 2))
	}
	convIn := []string{padded, b.in(w)}
	if bias := n.Input(2); bias != nil {
		convIn = append(convIn, b.in(bias))
	}
	out := b.op("Conv", convIn, aInt("group", xd[1]))
	if act != "none" {
		f := b.op("Cast", []string{out}, aInt("to", 1))
		s := b.op("Sigmoid", []string{f})
		m := b.op("Mul", []string{f, s})
		out = b.op("CastLike", []string{m, out})
	}
	L := xd[2] + km1
	state := b.op("Slice", []string{padded, b.in(c.ConstInts([]int64{L - km1})), b.in(c.ConstInts([]int64{L})), b.in(c.ConstInts([]int64{2}))})
	return b.run(out, state)
}
