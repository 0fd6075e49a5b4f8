package onnx

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/ir/onnx/onnxpb"
)

// Control flow: If becomes the chosen branch when its condition is known at
// import time, else a Relax If (the function then has no dataflow block).
// Loop and Scan are refused (no converter).

func init() {
	Register("If", 1, convIf)
}

// subgraph converts a branch graph in a child scope of the node's and
// returns its outputs.
func (c *Ctx) subgraph(n *Node, g *onnxpb.GraphProto) ([]*Value, error) {
	if g == nil {
		return nil, n.unsupported("missing branch graph")
	}
	scope := make(map[string]*Value, len(n.scope))
	for k, v := range n.scope {
		scope[k] = v
	}
	if len(g.Input) > 0 {
		return nil, n.unsupported("branch graphs with inputs")
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
	if err := needInputs(n, 1); err != nil {
		return nil, err
	}
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
