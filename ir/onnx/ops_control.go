package onnx

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/ir/onnx/onnxpb"
	"github.com/relaxgo/relaxgo/runtime"
)

// Control flow: If becomes the chosen branch when its condition is known at
// import time, else a Relax If (the function then has no dataflow block).
// Scan (static length) and Loop (known trip count and conditions) are
// unrolled; others are refused.

// maxUnroll bounds the iterations of an unrolled Scan or Loop.
const maxUnroll = 4096

// subgraph converts a branch graph in a child scope of the node's and
// returns its outputs.
func (c *Ctx) subgraph(n *Node, g *onnxpb.GraphProto, inputs ...*Value) ([]*Value, error) {
	if g == nil {
		return nil, n.unsupported("missing subgraph")
	}
	scope := make(map[string]*Value, len(n.scope))
	for k, v := range n.scope {
		scope[k] = v
	}
	if len(g.Input) != len(inputs) {
		return nil, fmt.Errorf("subgraph has %d inputs, %d given", len(g.Input), len(inputs))
	}
	for i, in := range g.Input {
		v := *inputs[i]
		v.Name = in.GetName()
		scope[n.prefix+in.GetName()] = &v
	}
	for _, tp := range g.Initializer {
		t, err := TensorFromProto(tp, c.opt.Dir)
		if err != nil {
			return nil, err
		}
		scope[n.prefix+tp.GetName()] = c.Const(t)
	}
	if err := c.convertNodes(g.Node, scope, n.callAttrs, n.prefix); err != nil {
		return nil, err
	}
	var outs []*Value
	for _, o := range g.Output {
		v, ok := scope[n.prefix+o.GetName()]
		if !ok {
			return nil, fmt.Errorf("branch output %q is not produced", o.GetName())
		}
		outs = append(outs, v)
	}
	return outs, nil
}

func (n *Node) graphAttr(name string) *onnxpb.GraphProto {
	if a := n.attr(name, onnxpb.AttributeProto_GRAPH); a != nil {
		return a.GetG()
	}
	return nil
}

func convIf(c *Ctx, n *Node) ([]*Value, error) {
	cond := n.In[0]
	thenG, elseG := n.graphAttr("then_branch"), n.graphAttr("else_branch")
	if n.err != nil {
		return nil, n.err
	}
	if b, ok := cond.Ints(); ok && len(b) == 1 {
		g := elseG
		if b[0] != 0 {
			g = thenG
		}
		return c.subgraph(n, g)
	}
	if cond.Info() == nil || cond.Info().Shape == nil {
		return nil, n.unsupported("condition of unknown shape")
	}
	ce := cond.Expr
	if cond.Rank() != 0 {
		r, err := c.Emit("relax.reshape", []ir.Expr{cond.Expr, shapeExpr(nil)})
		if err != nil {
			return nil, err
		}
		ce = r.Expr
	}
	saved := c.bindings
	branch := func(g *onnxpb.GraphProto) (*ir.SeqExpr, []*Value, error) {
		c.bindings = nil
		outs, err := c.subgraph(n, g)
		if err != nil {
			return nil, nil, err
		}
		seq := &ir.SeqExpr{}
		if len(c.bindings) > 0 {
			seq.Blocks = []*ir.BindingBlock{{Bindings: c.bindings}}
		}
		if len(outs) == 1 {
			seq.Body = outs[0].Expr
		} else {
			t := &ir.Tuple{}
			var fs []ir.StructInfo
			for _, o := range outs {
				t.Fields = append(t.Fields, o.Expr)
				fs = append(fs, o.Expr.SInfo())
			}
			t.SetSInfo(&ir.TupleSInfo{Fields: fs})
			seq.Body = t
		}
		seq.SetSInfo(seq.Body.SInfo())
		return seq, outs, nil
	}
	thenS, thenOuts, err := branch(thenG)
	if err != nil {
		c.bindings = saved
		return nil, err
	}
	elseS, elseOuts, err := branch(elseG)
	c.bindings = saved
	if err != nil {
		return nil, err
	}
	if len(thenOuts) != len(elseOuts) {
		return nil, fmt.Errorf("branches have %d and %d outputs", len(thenOuts), len(elseOuts))
	}
	iff := &ir.If{Cond: ce, Then: thenS, Else: elseS}
	s := ir.SInfoJoin(thenS.SInfo(), elseS.SInfo())
	iff.SetSInfo(s)
	v := &ir.Var{Name: c.varName("if_result")}
	v.SetSInfo(s)
	c.bindings = append(c.bindings, &ir.VarBinding{Var: v, Value: iff})
	c.hasIf = true
	res := &Value{Expr: v}
	if len(thenOuts) == 1 {
		return []*Value{res}, nil
	}
	out := make([]*Value, len(thenOuts))
	for i := range out {
		out[i] = c.Item(res, i)
	}
	return out, nil
}

// clearDataflow turns every binding (including inside If branches) into an
// ordinary one: Relax If may not appear in a dataflow block.
func clearDataflow(bs []ir.Binding) {
	for _, b := range bs {
		b.BoundVar().Dataflow = false
		if iff, ok := b.BoundValue().(*ir.If); ok {
			for _, br := range []*ir.SeqExpr{iff.Then, iff.Else} {
				for _, blk := range br.Blocks {
					blk.Dataflow = false
					clearDataflow(blk.Bindings)
				}
			}
		}
	}
}

// sliceAt takes index i of axis (dropping it) from a static-shaped value.
func (c *Ctx) sliceAt(v *Value, axis int, i int64) (*Value, error) {
	s, err := c.Emit("relax.strided_slice", []ir.Expr{v.Expr, primInts(int64(axis)), primInts(i), primInts(i + 1), primInts(1)})
	if err != nil {
		return nil, err
	}
	return c.Un("relax.squeeze", s, Attr("axis", []any{int64(axis)}))
}

// stackAt stacks per-iteration values along axis.
func (c *Ctx) stackAt(vs []*Value, axis int64) (*Value, error) {
	t := &ir.Tuple{}
	for _, v := range vs {
		t.Fields = append(t.Fields, v.Expr)
	}
	return c.Emit("relax.stack", []ir.Expr{t}, Attr("axis", axis))
}

// convScan unrolls a Scan whose scan length is static.
func convScan(c *Ctx, n *Node) ([]*Value, error) {
	body := n.graphAttr("body")
	if n.err != nil {
		return nil, n.err
	}
	if body == nil {
		return nil, n.unsupported("missing body")
	}
	m := int(n.Int("num_scan_inputs", 0))
	if m < 1 || m > len(n.In) {
		return nil, fmt.Errorf("num_scan_inputs=%d with %d inputs", m, len(n.In))
	}
	for i, v := range n.In {
		if v == nil || v.Info() == nil {
			return nil, n.unsupported("input %d is missing or not a tensor", i)
		}
	}
	nState := len(n.In) - m
	inAxes := n.Ints("scan_input_axes", make([]int64, m))
	inDirs := n.Ints("scan_input_directions", make([]int64, m))
	if len(inAxes) != m || len(inDirs) != m {
		return nil, fmt.Errorf("scan_input_axes/directions have the wrong length")
	}
	nScanOut := len(body.Output) - nState
	if nScanOut < 0 {
		return nil, fmt.Errorf("body has %d outputs for %d states", len(body.Output), nState)
	}
	outAxes := n.Ints("scan_output_axes", make([]int64, nScanOut))
	outDirs := n.Ints("scan_output_directions", make([]int64, nScanOut))
	if len(outAxes) != nScanOut || len(outDirs) != nScanOut {
		return nil, fmt.Errorf("scan_output_axes/directions have the wrong length")
	}
	return scanUnrolled(c, n, body, n.In[:nState], n.In[nState:], inAxes, inDirs, outAxes, outDirs)
}

// scanUnrolled runs body over the scan inputs' slices along their axes.
func scanUnrolled(c *Ctx, n *Node, body *onnxpb.GraphProto, state0, scans []*Value, inAxes, inDirs, outAxes, outDirs []int64) ([]*Value, error) {
	m, nState, nScanOut := len(scans), len(state0), len(outAxes)
	state := append([]*Value{}, state0...)
	T := int64(-1)
	axes := make([]int, m)
	for i, v := range scans {
		d, ok := v.StaticDims()
		if !ok {
			return nil, n.unsupported("scan inputs must have static shapes")
		}
		a, err := normAxis(n, inAxes[i], len(d))
		if err != nil {
			return nil, err
		}
		axes[i] = a
		if T >= 0 && d[a] != T {
			return nil, fmt.Errorf("scan inputs have different lengths")
		}
		T = d[a]
	}
	if T > maxUnroll {
		return nil, n.unsupported("scan of %d steps (unrolled up to %d)", T, maxUnroll)
	}
	if m == 0 || len(body.Output) != nState+nScanOut {
		return nil, fmt.Errorf("body has %d outputs for %d states and %d scan outputs", len(body.Output), nState, nScanOut)
	}
	outs := make([][]*Value, nScanOut)
	for t := int64(0); t < T; t++ {
		ins := append([]*Value{}, state...)
		for i, v := range scans {
			idx := t
			if inDirs[i] != 0 {
				idx = T - 1 - t
			}
			s, err := c.sliceAt(v, axes[i], idx)
			if err != nil {
				return nil, err
			}
			ins = append(ins, s)
		}
		res, err := c.subgraph(n, body, ins...)
		if err != nil {
			return nil, err
		}
		state = res[:nState]
		for k := 0; k < nScanOut; k++ {
			outs[k] = append(outs[k], res[nState+k])
		}
	}
	result := append([]*Value{}, state...)
	for k, vs := range outs {
		if len(vs) == 0 {
			return nil, n.unsupported("a scan of length 0")
		}
		if outDirs[k] != 0 {
			for i, j := 0, len(vs)-1; i < j; i, j = i+1, j-1 {
				vs[i], vs[j] = vs[j], vs[i]
			}
		}
		a := outAxes[k]
		if a < 0 {
			a += int64(vs[0].Rank() + 1)
		}
		y, err := c.stackAt(vs, a)
		if err != nil {
			return nil, err
		}
		result = append(result, y)
	}
	return result, nil
}

// convLoop unrolls a Loop whose trip count and conditions are known at import time.
func convLoop(c *Ctx, n *Node) ([]*Value, error) {
	body := n.graphAttr("body")
	if n.err != nil {
		return nil, n.err
	}
	if body == nil {
		return nil, n.unsupported("missing body")
	}
	trip := int64(maxUnroll + 1)
	if v := n.Input(0); v != nil {
		m, ok := v.Ints()
		if !ok || len(m) != 1 {
			return nil, n.unsupported("the trip count must be known at import time")
		}
		trip = m[0]
	}
	cond := true
	if v := n.Input(1); v != nil {
		b, ok := v.Ints()
		if !ok || len(b) != 1 {
			return nil, n.unsupported("the condition must be known at import time")
		}
		cond = b[0] != 0
	}
	var state []*Value
	for i := 2; i < len(n.In); i++ {
		if n.In[i] == nil {
			return nil, n.unsupported("optional loop-carried values")
		}
		state = append(state, n.In[i])
	}
	nScanOut := len(body.Output) - 1 - len(state)
	if nScanOut < 0 {
		return nil, fmt.Errorf("body has %d outputs for %d loop-carried values", len(body.Output), len(state))
	}
	outs := make([][]*Value, nScanOut)
	condV, err := c.Scalar(1, runtime.Bool)
	if err != nil {
		return nil, err
	}
	it := int64(0)
	for ; it < trip && cond; it++ {
		if it >= maxUnroll {
			return nil, n.unsupported("a loop of more than %d iterations (unrolled)", maxUnroll)
		}
		iv, err := c.Scalar(float64(it), runtime.Int64)
		if err != nil {
			return nil, err
		}
		res, err := c.subgraph(n, body, append([]*Value{iv, condV}, state...)...)
		if err != nil {
			return nil, err
		}
		b, ok := res[0].Ints()
		if !ok || len(b) != 1 {
			return nil, n.unsupported("the loop condition must be known at import time")
		}
		cond = b[0] != 0
		condV = res[0]
		state = res[1 : 1+len(state)]
		for k := 0; k < nScanOut; k++ {
			outs[k] = append(outs[k], res[1+len(state)+k])
		}
	}
	result := append([]*Value{}, state...)
	for _, vs := range outs {
		if len(vs) == 0 {
			return nil, n.unsupported("a loop with no iterations and scan outputs")
		}
		y, err := c.stackAt(vs, 0)
		if err != nil {
			return nil, err
		}
		result = append(result, y)
	}
	return result, nil
}

// convScan8 is Scan before opset 9: every state and scan input has a batch
// axis first (the scan axis is 1); each batch entry is scanned on its own and
// the results stacked. sequence_lens must be absent or the full length.
func convScan8(c *Ctx, n *Node) ([]*Value, error) {
	body := n.graphAttr("body")
	if n.err != nil {
		return nil, n.err
	}
	if body == nil {
		return nil, n.unsupported("missing body")
	}
	m := int(n.Int("num_scan_inputs", 0))
	if len(n.In) < 1 || m < 1 || m > len(n.In)-1 {
		return nil, fmt.Errorf("num_scan_inputs=%d with %d inputs", m, len(n.In))
	}
	ins := n.In[1:]
	for i, v := range ins {
		if v == nil || v.Info() == nil {
			return nil, n.unsupported("input %d is missing or not a tensor", i+1)
		}
	}
	nState := len(ins) - m
	nScanOut := len(body.Output) - nState
	if nScanOut < 0 {
		return nil, fmt.Errorf("body has %d outputs for %d states", len(body.Output), nState)
	}
	d0, ok := ins[0].StaticDims()
	if !ok || len(d0) < 1 {
		return nil, n.unsupported("inputs must have static shapes with a batch axis")
	}
	B := d0[0]
	var T int64 = -1
	for _, v := range ins {
		d, ok := v.StaticDims()
		if !ok || len(d) < 1 || d[0] != B {
			return nil, n.unsupported("inputs must have static shapes with the same batch size")
		}
	}
	for _, v := range ins[nState:] {
		d, _ := v.StaticDims()
		if len(d) < 2 {
			return nil, n.unsupported("scan inputs need a sequence axis")
		}
		T = d[1]
	}
	if sl := n.In[0]; sl != nil {
		lens, ok := sl.Ints()
		if !ok {
			return nil, n.unsupported("sequence_lens must be known at import time")
		}
		for _, l := range lens {
			if l != T {
				return nil, n.unsupported("sequence_lens %v shorter than the sequence (%d)", lens, T)
			}
		}
	}
	if B < 1 || B*T > maxUnroll {
		return nil, n.unsupported("scan of %d x %d steps (unrolled up to %d)", B, T, maxUnroll)
	}
	dirs := n.Ints("directions", make([]int64, m))
	if len(dirs) != m {
		return nil, fmt.Errorf("directions has the wrong length")
	}
	per := make([][]*Value, len(body.Output))
	for b := int64(0); b < B; b++ {
		var state, scans []*Value
		for i, v := range ins {
			s, err := c.sliceAt(v, 0, b)
			if err != nil {
				return nil, err
			}
			if i < nState {
				state = append(state, s)
			} else {
				scans = append(scans, s)
			}
		}
		res, err := scanUnrolled(c, n, body, state, scans, make([]int64, m), dirs, make([]int64, nScanOut), make([]int64, nScanOut))
		if err != nil {
			return nil, err
		}
		for k, r := range res {
			per[k] = append(per[k], r)
		}
	}
	out := make([]*Value, len(per))
	for k, vs := range per {
		y, err := c.stackAt(vs, 0)
		if err != nil {
			return nil, err
		}
		out[k] = y
	}
	return out, nil
}
