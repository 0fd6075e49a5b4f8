package onnx

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/ir/onnx/onnxpb"
	"github.com/relaxgo/relaxgo/lower"
	"github.com/relaxgo/relaxgo/runtime"
)

// Value is an ONNX value during conversion: its Relax expression and, when
// known at import time, its contents.
type Value struct {
	// Name is the ONNX value name (for messages).
	Name string
	// Expr is a Relax expression with struct info (a Var, Constant or param).
	Expr ir.Expr
	// Const is the value when known at import time (constants, initializers,
	// folded shape computations).
	Const *runtime.Tensor
	// ShapeVals, for a 1-D int64 value computed from tensor shapes, are its
	// elements, possibly symbolic (Shape of an input with a dim_param).
	ShapeVals []ir.PrimExpr
}

// Info is the value's tensor struct info (nil when it is not a tensor).
func (v *Value) Info() *ir.TensorSInfo {
	ts, _ := v.Expr.SInfo().(*ir.TensorSInfo)
	return ts
}

// DType is the element type (Void when unknown).
func (v *Value) DType() runtime.DataType {
	if ts := v.Info(); ts != nil {
		return ts.DType
	}
	return runtime.Void
}

// Rank is the number of dimensions (-1 when unknown).
func (v *Value) Rank() int {
	if ts := v.Info(); ts != nil {
		return ts.NDim
	}
	return -1
}

// Dims are the dimensions (nil when unknown).
func (v *Value) Dims() []ir.PrimExpr {
	if ts := v.Info(); ts != nil {
		return ts.Shape
	}
	return nil
}

// StaticDims returns the dimensions when all are known integers.
func (v *Value) StaticDims() ([]int64, bool) {
	if ts := v.Info(); ts != nil {
		return ts.StaticShape()
	}
	return nil, false
}

// Ints returns the value's elements as int64 when known (integer constant or
// a shape value with integer entries).
func (v *Value) Ints() ([]int64, bool) {
	if v == nil {
		return nil, false
	}
	if v.Const != nil {
		return tensorInts(v.Const)
	}
	if v.ShapeVals != nil {
		out := make([]int64, len(v.ShapeVals))
		for i, d := range v.ShapeVals {
			x, ok := ir.AsInt(d)
			if !ok {
				return nil, false
			}
			out[i] = x
		}
		return out, true
	}
	return nil, false
}

// Floats returns the value's elements as float64 when known.
func (v *Value) Floats() ([]float64, bool) {
	if v == nil || v.Const == nil {
		if is, ok := v.Ints(); ok {
			out := make([]float64, len(is))
			for i, x := range is {
				out[i] = float64(x)
			}
			return out, true
		}
		return nil, false
	}
	return tensorFloats(v.Const)
}

// shapeVals returns the elements of a 1-D integer value as PrimExprs when known.
func (v *Value) shapeVals() ([]ir.PrimExpr, bool) {
	if v.ShapeVals != nil {
		return v.ShapeVals, true
	}
	is, ok := v.Ints()
	if !ok || v.Rank() > 1 {
		return nil, false
	}
	out := make([]ir.PrimExpr, len(is))
	for i, x := range is {
		out[i] = ir.Int64(x)
	}
	return out, true
}

func tensorInts(t *runtime.Tensor) ([]int64, bool) {
	n := int(t.NumElements())
	out := make([]int64, n)
	switch t.DType() {
	case runtime.Int64:
		copy(out, t.Int64s())
	case runtime.Int32:
		for i, x := range t.Int32s() {
			out[i] = int64(x)
		}
	case runtime.Int16:
		for i, x := range t.Int16s() {
			out[i] = int64(x)
		}
	case runtime.Int8:
		for i, x := range t.Int8s() {
			out[i] = int64(x)
		}
	case runtime.UInt8:
		for i, x := range t.Uint8s() {
			out[i] = int64(x)
		}
	case runtime.UInt16:
		for i, x := range t.Uint16s() {
			out[i] = int64(x)
		}
	case runtime.UInt32:
		for i, x := range t.Uint32s() {
			out[i] = int64(x)
		}
	case runtime.UInt64:
		for i, x := range t.Uint64s() {
			out[i] = int64(x)
		}
	case runtime.Bool:
		for i, x := range t.Bytes()[:n] {
			out[i] = int64(x)
		}
	default:
		return nil, false
	}
	return out, true
}

func tensorFloats(t *runtime.Tensor) ([]float64, bool) {
	switch t.DType() {
	case runtime.Float32:
		out := make([]float64, t.NumElements())
		for i, x := range t.Float32s() {
			out[i] = float64(x)
		}
		return out, true
	case runtime.Float64:
		return append([]float64{}, t.Float64s()...), true
	case runtime.Float16, runtime.BFloat16:
		out := make([]float64, t.NumElements())
		b := t.Bytes()
		for i := range out {
			bits := uint16(b[2*i]) | uint16(b[2*i+1])<<8
			if t.DType() == runtime.BFloat16 {
				out[i] = float64(math.Float32frombits(uint32(bits) << 16))
			} else {
				out[i] = float64(halfToFloat(bits))
			}
		}
		return out, true
	}
	is, ok := tensorInts(t)
	if !ok {
		return nil, false
	}
	out := make([]float64, len(is))
	for i, x := range is {
		out[i] = float64(x)
	}
	return out, true
}

func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		f := float32(man) / 1024 / 16384
		if sign != 0 {
			return -f
		}
		return f
	case exp == 31:
		return math.Float32frombits(sign | 0xff<<23 | man<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// Node is one ONNX node being converted.
type Node struct {
	Op, Name, Domain string
	// Opset is the version of the node's domain the model imports.
	Opset int
	// In are the inputs; nil entries are absent optional inputs.
	In []*Value
	// NumOut is the number of outputs the node declares.
	NumOut int
	attrs  map[string]*onnxpb.AttributeProto
	proto  *onnxpb.NodeProto
	err    error
	// scope, prefix and callAttrs are the naming context (for subgraphs).
	scope     map[string]*Value
	prefix    string
	callAttrs map[string]*onnxpb.AttributeProto
}

// Input returns input i, or nil when absent.
func (n *Node) Input(i int) *Value {
	if i < len(n.In) {
		return n.In[i]
	}
	return nil
}

// unsupported makes an UnsupportedError for this node.
func (n *Node) unsupported(format string, a ...any) error {
	return &UnsupportedError{Op: n.Op, Node: n.Name, Domain: n.Domain, Opset: n.Opset, Reason: fmt.Sprintf(format, a...)}
}

// Unsupported refuses the node with a reason.
func (n *Node) Unsupported(format string, a ...any) error { return n.unsupported(format, a...) }

// Has reports whether attribute name is set.
func (n *Node) Has(name string) bool { _, ok := n.attrs[name]; return ok }

func (n *Node) attr(name string, want onnxpb.AttributeProto_AttributeType) *onnxpb.AttributeProto {
	a, ok := n.attrs[name]
	if !ok {
		return nil
	}
	if a.GetType() != want && a.GetType() != onnxpb.AttributeProto_UNDEFINED {
		if n.err == nil {
			n.err = n.unsupported("attribute %s has type %s, want %s", name, a.GetType(), want)
		}
		return nil
	}
	return a
}

// Int returns an INT attribute (def when absent).
func (n *Node) Int(name string, def int64) int64 {
	if a := n.attr(name, onnxpb.AttributeProto_INT); a != nil {
		return a.GetI()
	}
	return def
}

// Float returns a FLOAT attribute (def when absent).
func (n *Node) Float(name string, def float64) float64 {
	if a := n.attr(name, onnxpb.AttributeProto_FLOAT); a != nil {
		return float64(a.GetF())
	}
	return def
}

// Str returns a STRING attribute (def when absent).
func (n *Node) Str(name string, def string) string {
	if a := n.attr(name, onnxpb.AttributeProto_STRING); a != nil {
		return string(a.GetS())
	}
	return def
}

// Ints returns an INTS attribute (def when absent).
func (n *Node) Ints(name string, def []int64) []int64 {
	if a := n.attr(name, onnxpb.AttributeProto_INTS); a != nil {
		return append([]int64{}, a.GetInts()...)
	}
	return def
}

// Floats returns a FLOATS attribute (def when absent).
func (n *Node) Floats(name string, def []float64) []float64 {
	if a := n.attr(name, onnxpb.AttributeProto_FLOATS); a != nil {
		out := make([]float64, len(a.GetFloats()))
		for i, f := range a.GetFloats() {
			out[i] = float64(f)
		}
		return out
	}
	return def
}

// Strs returns a STRINGS attribute (def when absent).
func (n *Node) Strs(name string, def []string) []string {
	if a := n.attr(name, onnxpb.AttributeProto_STRINGS); a != nil {
		out := make([]string, len(a.GetStrings()))
		for i, s := range a.GetStrings() {
			out[i] = string(s)
		}
		return out
	}
	return def
}

// Tensor returns a TENSOR attribute (nil when absent).
func (n *Node) Tensor(c *Ctx, name string) (*runtime.Tensor, error) {
	a := n.attr(name, onnxpb.AttributeProto_TENSOR)
	if a == nil {
		return nil, n.err
	}
	return TensorFromProto(a.GetT(), c.opt.Dir)
}

// Const makes a constant value.
func (c *Ctx) Const(t *runtime.Tensor) *Value {
	k := &ir.Constant{Value: t, MetaIndex: -1}
	k.SetSInfo(ir.StaticTensorSInfo(t.Shape(), t.DType()))
	return &Value{Expr: k, Const: t}
}

// ConstInts makes a 1-D int64 constant.
func (c *Ctx) ConstInts(v []int64) *Value {
	t, _ := runtime.FromSlice(append([]int64{}, v...), int64(len(v)))
	return c.Const(t)
}

// Scalar makes a 0-d constant of dtype dt holding x.
func (c *Ctx) Scalar(x float64, dt runtime.DataType) (*Value, error) {
	t, err := runtime.NewTensor(nil, dt)
	if err != nil {
		return nil, err
	}
	if err := setElem(t, 0, x); err != nil {
		return nil, err
	}
	return c.Const(t), nil
}

func setElem(t *runtime.Tensor, i int, x float64) error {
	switch t.DType() {
	case runtime.Float32:
		t.Float32s()[i] = float32(x)
	case runtime.Float64:
		t.Float64s()[i] = x
	case runtime.Int64:
		t.Int64s()[i] = int64(x)
	case runtime.Int32:
		t.Int32s()[i] = int32(x)
	case runtime.Int16:
		t.Int16s()[i] = int16(x)
	case runtime.Int8:
		t.Int8s()[i] = int8(x)
	case runtime.UInt8:
		t.Uint8s()[i] = uint8(x)
	case runtime.UInt16:
		t.Uint16s()[i] = uint16(x)
	case runtime.UInt32:
		t.Uint32s()[i] = uint32(x)
	case runtime.UInt64:
		t.Uint64s()[i] = uint64(x)
	case runtime.Bool:
		if x != 0 {
			t.Bytes()[i] = 1
		} else {
			t.Bytes()[i] = 0
		}
	case runtime.Float16:
		h := floatToHalf(float32(x))
		t.Bytes()[2*i], t.Bytes()[2*i+1] = byte(h), byte(h>>8)
	case runtime.BFloat16:
		b := math.Float32bits(float32(x))
		b += 0x7fff + (b>>16)&1
		h := uint16(b >> 16)
		t.Bytes()[2*i], t.Bytes()[2*i+1] = byte(h), byte(h>>8)
	default:
		return fmt.Errorf("unsupported dtype %s", t.DType())
	}
	return nil
}

func floatToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	man := b & 0x7fffff
	switch {
	case b&0x7fffffff == 0:
		return sign
	case b>>23&0xff == 0xff:
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint(14 - exp)
		h := man >> shift
		if rem := man & (1<<shift - 1); rem > 1<<(shift-1) || rem == 1<<(shift-1) && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | man>>13
	if rem := man & 0x1fff; rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++
	}
	return sign | uint16(h)
}

// X returns the expression of v.
func X(v *Value) ir.Expr { return v.Expr }

// Attr builds an attribute.
func Attr(key string, v any) ir.Attr { return ir.Attr{Key: key, Value: v} }

// foldLimit bounds the size of results folded from initializer parameters.
const foldLimit = 1 << 16

// maxFoldElems bounds any result computed at import time.
const maxFoldElems = 1 << 24

// Emit binds a call of Relax op (e.g. "relax.add") to a new variable and
// returns it; when every argument is known at import time the call is
// evaluated instead and a constant returned.
func (c *Ctx) Emit(op string, args []ir.Expr, attrs ...ir.Attr) (*Value, error) {
	for _, a := range args {
		if v, ok := a.(*ir.Var); ok && c.virtual[v] {
			return nil, &UnsupportedError{Reason: "a shape computed from symbolic dimensions is used as tensor data"}
		}
	}
	if v, ok, err := c.emitViaFloat32(op, args, attrs); ok {
		return v, err
	}
	call := &ir.Call{Callee: &ir.Op{Name: op}, Args: args, Attrs: ir.Attrs(attrs)}
	if err := ir.CanonicalizeCall(call); err != nil {
		return nil, err
	}
	for _, a := range call.Args {
		if a != nil && a.SInfo() == nil {
			if err := inferLiteral(a); err != nil {
				return nil, err
			}
		}
	}
	s, err := ir.InferCall(call, nil)
	if err != nil {
		return nil, err
	}
	call.SetSInfo(s)
	if t := c.fold(call); t != nil {
		return c.Const(t), nil
	}
	v := &ir.Var{Name: c.varName(lastPart(op)), Dataflow: true}
	v.SetSInfo(s)
	c.bindings = append(c.bindings, &ir.VarBinding{Var: v, Value: call})
	return &Value{Expr: v}, nil
}

// Item binds field i of a tuple value.
func (c *Ctx) Item(t *Value, i int) *Value {
	ts := t.Expr.SInfo().(*ir.TupleSInfo)
	g := &ir.TupleGetItem{Tuple: t.Expr, Index: i}
	g.SetSInfo(ts.Fields[i])
	v := &ir.Var{Name: c.varName("item"), Dataflow: true}
	v.SetSInfo(ts.Fields[i])
	c.bindings = append(c.bindings, &ir.VarBinding{Var: v, Value: g})
	return &Value{Expr: v}
}

func lastPart(op string) string {
	for i := len(op) - 1; i >= 0; i-- {
		if op[i] == '.' {
			return op[i+1:]
		}
	}
	return op
}

// inferLiteral gives struct info to the literal argument forms CanonicalizeCall makes.
func inferLiteral(e ir.Expr) error {
	switch x := e.(type) {
	case *ir.PrimValue:
		x.SetSInfo(&ir.PrimSInfo{DType: x.Value.DType(), Value: x.Value})
	case *ir.ShapeExpr:
		x.SetSInfo(&ir.ShapeSInfo{Values: x.Values, NDim: len(x.Values)})
	case *ir.StringImm:
		x.SetSInfo(&ir.ObjectSInfo{})
	case *ir.DataTypeImm:
		x.SetSInfo(&ir.ObjectSInfo{})
	case *ir.Tuple:
		fs := make([]ir.StructInfo, len(x.Fields))
		for i, f := range x.Fields {
			if f.SInfo() == nil {
				if err := inferLiteral(f); err != nil {
					return err
				}
			}
			fs[i] = f.SInfo()
		}
		x.SetSInfo(&ir.TupleSInfo{Fields: fs})
	default:
		return fmt.Errorf("argument %T has no struct info", e)
	}
	return nil
}

// fold evaluates call when all its tensor arguments are known.
func (c *Ctx) fold(call *ir.Call) *runtime.Tensor {
	allConst := true
	args := make([]ir.Expr, len(call.Args))
	for i, a := range call.Args {
		e, ok, isConst := c.constExpr(a)
		if !ok {
			return nil
		}
		allConst = allConst && isConst
		args[i] = e
	}
	if ts, ok := call.SInfo().(*ir.TensorSInfo); ok {
		if shape, ok := ts.StaticShape(); ok {
			if n, err := runtime.NumElements(shape); err != nil || n > maxFoldElems {
				return nil // too big to materialize at import time
			}
		}
	}
	if !allConst {
		// Weights stay parameters: only integer (shape-like) results are
		// computed from initializer values at import time.
		ts, ok := call.SInfo().(*ir.TensorSInfo)
		if !ok || ts.DType.IsFloat() {
			return nil
		}
		shape, ok := ts.StaticShape()
		if !ok {
			return nil
		}
		if n, err := runtime.NumElements(shape); err != nil || n > foldLimit {
			return nil
		}
	}
	cp := *call
	cp.Args = args
	return lower.EvalCall(&cp)
}

// constExpr replaces known variables by constants inside an argument.
func (c *Ctx) constExpr(e ir.Expr) (out ir.Expr, ok, allConst bool) {
	switch x := e.(type) {
	case nil:
		return nil, false, false
	case *ir.Var:
		t, ok := c.known[x]
		if !ok {
			return nil, false, false
		}
		k := &ir.Constant{Value: t, MetaIndex: -1}
		k.SetSInfo(x.SInfo())
		return k, true, false
	case *ir.Tuple:
		fs := make([]ir.Expr, len(x.Fields))
		all := true
		for i, f := range x.Fields {
			g, ok, a := c.constExpr(f)
			if !ok {
				return nil, false, false
			}
			fs[i] = g
			all = all && a
		}
		t := &ir.Tuple{Fields: fs}
		t.SetSInfo(x.SInfo())
		return t, true, all
	case *ir.Constant, *ir.PrimValue, *ir.ShapeExpr, *ir.StringImm, *ir.DataTypeImm:
		return e, true, true
	}
	return nil, false, false
}

// TensorFloats returns a float tensor's (or integer tensor's) elements as float64.
func TensorFloats(t *runtime.Tensor) ([]float64, bool) { return tensorFloats(t) }
