package onnx

import (
	"fmt"

	"github.com/relaxgo/relaxgo/ir/onnx/onnxpb"
	"google.golang.org/protobuf/proto"
)

// body builds an ONNX subgraph (like a schema's function body) that a
// converter expands through the other converters, as the importer inlines
// model-local functions.
type body struct {
	c     *Ctx
	n     *Node
	nodes []*onnxpb.NodeProto
	vals  map[string]*Value
	pre   string
	tmp   int
}

func newBody(c *Ctx, n *Node) *body {
	return &body{c: c, n: n, vals: map[string]*Value{}, pre: fmt.Sprintf("%s%s#%d/", n.prefix, n.Op, len(c.bindings))}
}

// in names a known value inside the body.
func (b *body) in(v *Value) string {
	b.tmp++
	name := fmt.Sprintf("in%d", b.tmp)
	b.vals[b.pre+name] = v
	return name
}

// op appends a node with one output and returns the output's name.
func (b *body) op(opType string, ins []string, attrs ...*onnxpb.AttributeProto) string {
	return b.opN(opType, 1, ins, attrs...)[0]
}

// opN appends a node with k outputs.
func (b *body) opN(opType string, k int, ins []string, attrs ...*onnxpb.AttributeProto) []string {
	outs := make([]string, k)
	for i := range outs {
		b.tmp++
		outs[i] = fmt.Sprintf("t%d", b.tmp)
	}
	b.nodes = append(b.nodes, &onnxpb.NodeProto{OpType: proto.String(opType), Input: ins, Output: outs, Attribute: attrs})
	return outs
}

func aInt(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func aInts(name string, v ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

// run converts the body and returns the named values.
func (b *body) run(outs ...string) ([]*Value, error) {
	if err := b.c.convertNodes(b.nodes, b.vals, nil, b.pre); err != nil {
		return nil, err
	}
	res := make([]*Value, len(outs))
	for i, o := range outs {
		v, ok := b.vals[b.pre+o]
		if !ok {
			return nil, fmt.Errorf("body output %q is not produced", o)
		}
		res[i] = v
	}
	return res, nil
}
