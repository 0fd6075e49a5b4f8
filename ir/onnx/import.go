package onnx

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/ir/onnx/onnxpb"
	"github.com/relaxgo/relaxgo/runtime"
)

// Options configure an import.
type Options struct {
	// ConstantParams makes initializers constants of the module instead of
	// function parameters after the graph inputs.
	ConstantParams bool
	// Dir is the model's directory (for external data); ImportFile sets it.
	Dir string
	// FuncName names the Relax function (default "main").
	FuncName string
	// BindInputs specializes the model: graph inputs named here become
	// constants with the given values and are no longer parameters (for
	// inputs that feed shapes, axes or counts, which the importer needs to
	// know; compare onnx-simplifier's --overwrite-input-shape).
	BindInputs map[string]*runtime.Tensor
}

// Result is an imported model.
type Result struct {
	// Module holds one Relax function (Options.FuncName) taking the graph
	// inputs, then (unless ConstantParams) the initializers, with
	// R.func_attr({"num_input": number of graph inputs}).
	Module *ir.Module
	// Inputs are the ONNX names of the graph inputs, in parameter order.
	Inputs []string
	// InputParams are the Relax parameter names of the graph inputs.
	InputParams []string
	// Outputs are the ONNX names of the graph outputs; more than one makes the
	// function return a tuple.
	Outputs []string
	// Params holds the initializer values by Relax parameter name (empty with ConstantParams).
	Params map[string]*runtime.Tensor
	// ParamNames lists Params' keys in parameter order.
	ParamNames []string
}

// MinOpset and MaxOpset bound the default-domain opset versions accepted.
const (
	MinOpset = 1
	MaxOpset = 27
)

// UnsupportedError reports something the importer refuses: an operator, an
// attribute value, a dtype or a graph feature.
type UnsupportedError struct {
	Op, Node, Domain string
	Opset            int
	Reason           string
}

func (e *UnsupportedError) Error() string {
	if e.Op == "" {
		return "onnx: unsupported: " + e.Reason
	}
	dom := e.Domain
	if dom == "" {
		dom = "ai.onnx"
	}
	name := ""
	if e.Node != "" {
		name = fmt.Sprintf(" (node %q)", e.Node)
	}
	return fmt.Sprintf("onnx: %s%s, domain %s opset %d: %s", e.Op, name, dom, e.Opset, e.Reason)
}

// ImportFile reads and imports an .onnx file; external data is read from its directory.
func ImportFile(path string, opt Options) (*Result, error) {
	m, err := ReadModel(path)
	if err != nil {
		return nil, err
	}
	if opt.Dir == "" {
		opt.Dir = filepath.Dir(path)
	}
	return Import(m, opt)
}

// ImportBytes decodes and imports a serialized model (no external data unless opt.Dir is set).
func ImportBytes(b []byte, opt Options) (*Result, error) {
	m, err := Decode(b)
	if err != nil {
		return nil, err
	}
	return Import(m, opt)
}

// Import converts a decoded model.
func Import(m *onnxpb.ModelProto, opt Options) (res *Result, err error) {
	if opt.FuncName == "" {
		opt.FuncName = "main"
	}
	c := &Ctx{opt: opt, names: map[string]int{}, sym: map[string]*ir.PrimVar{}, known: map[*ir.Var]*runtime.Tensor{}, virtual: map[*ir.Var]bool{},
		opsets: map[string]int{}, funcs: map[string]*onnxpb.FunctionProto{}}
	for _, o := range m.OpsetImport {
		c.opsets[normDomain(o.GetDomain())] = int(o.GetVersion())
	}
	v, ok := c.opsets[""]
	if !ok {
		if m.GetIrVersion() >= 3 || len(m.OpsetImport) > 0 {
			return nil, &UnsupportedError{Reason: "the model imports no opset of the default domain (ai.onnx)"}
		}
		v = 1
		c.opsets[""] = 1
	}
	if v < MinOpset || v > MaxOpset {
		return nil, &UnsupportedError{Reason: fmt.Sprintf("default-domain opset %d (supported: %d to %d)", v, MinOpset, MaxOpset)}
	}
	for _, f := range m.Functions {
		c.funcs[normDomain(f.GetDomain())+"::"+f.GetName()] = f
	}
	return c.importGraph(m.Graph)
}

func normDomain(d string) string {
	if d == "ai.onnx" {
		return ""
	}
	return d
}

// Ctx is the state of one conversion; converters emit Relax calls through it.
type Ctx struct {
	opt      Options
	opsets   map[string]int
	funcs    map[string]*onnxpb.FunctionProto
	bindings []ir.Binding
	names    map[string]int
	sym      map[string]*ir.PrimVar
	known    map[*ir.Var]*runtime.Tensor
	virtual  map[*ir.Var]bool
	hasIf    bool
	nsym     int
	depth    int
}

// Opset is the model's default-domain opset version.
func (c *Ctx) Opset() int { return c.opsets[""] }

// varName makes a unique, identifier-safe variable name from an ONNX name.
func (c *Ctx) varName(onnxName string) string {
	var b strings.Builder
	for _, r := range onnxName {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), "_")
	if s == "" {
		s = "v"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "v" + s
	}
	switch s {
	case "R", "T", "I", "Module", "metadata", "cls", "lambda", "def", "class", "return", "if", "else", "for", "in",
		"and", "or", "not", "is", "None", "True", "False", "with", "as", "from", "import", "pass", "while", "del",
		"global", "try", "except", "finally", "raise", "yield", "assert", "break", "continue", "elif", "nonlocal", "async", "await":
		s += "_"
	}
	base := s
	for {
		n := c.names[base]
		c.names[base] = n + 1
		if n == 0 {
			if base != s {
				c.names[s]++
			}
			return s
		}
		s = fmt.Sprintf("%s_%d", base, n)
		if c.names[s] == 0 {
			c.names[s] = 1
			return s
		}
	}
}

// symVar returns the symbolic dimension named name (one per name per model).
func (c *Ctx) symVar(name string) *ir.PrimVar {
	if v, ok := c.sym[name]; ok {
		return v
	}
	v := ir.NewPrimVar(c.varName(name), runtime.Int64)
	c.sym[name] = v
	return v
}

// valueInfoSInfo converts a graph input/output type.
func (c *Ctx) valueInfoSInfo(vi *onnxpb.ValueInfoProto) (*ir.TensorSInfo, error) {
	t := vi.GetType()
	if t == nil {
		return nil, &UnsupportedError{Reason: fmt.Sprintf("graph value %q has no type", vi.GetName())}
	}
	tt := t.GetTensorType()
	if tt == nil {
		kind := "non-tensor"
		switch {
		case t.GetSequenceType() != nil:
			kind = "sequence"
		case t.GetMapType() != nil:
			kind = "map"
		case t.GetOptionalType() != nil:
			kind = "optional"
		case t.GetSparseTensorType() != nil:
			kind = "sparse tensor"
		}
		return nil, &UnsupportedError{Reason: fmt.Sprintf("graph value %q has a %s type", vi.GetName(), kind)}
	}
	dt, err := DType(tt.GetElemType())
	if err != nil {
		return nil, &UnsupportedError{Reason: fmt.Sprintf("graph value %q: %v", vi.GetName(), err)}
	}
	if tt.Shape == nil {
		return &ir.TensorSInfo{NDim: -1, DType: dt}, nil
	}
	dims := make([]ir.PrimExpr, len(tt.Shape.Dim))
	for i, d := range tt.Shape.Dim {
		switch x := d.Value.(type) {
		case *onnxpb.TensorShapeProto_Dimension_DimValue:
			if x.DimValue < 0 {
				return nil, fmt.Errorf("onnx: graph value %q: negative dimension %d", vi.GetName(), x.DimValue)
			}
			dims[i] = ir.Int64(x.DimValue)
		case *onnxpb.TensorShapeProto_Dimension_DimParam:
			if x.DimParam == "" {
				dims[i] = c.freshSym()
			} else {
				dims[i] = c.symVar(x.DimParam)
			}
		default:
			dims[i] = c.freshSym()
		}
	}
	return ir.NewTensorSInfo(dims, dt), nil
}

func (c *Ctx) freshSym() *ir.PrimVar {
	for {
		name := fmt.Sprintf("dim%d", c.nsym)
		c.nsym++
		if _, ok := c.sym[name]; !ok {
			return c.symVar(name)
		}
	}
}

func (c *Ctx) importGraph(g *onnxpb.GraphProto) (*Result, error) {
	res := &Result{Params: map[string]*runtime.Tensor{}}
	vals := map[string]*Value{}
	inits := map[string]*onnxpb.TensorProto{}
	for _, t := range g.Initializer {
		inits[t.GetName()] = t
	}
	if len(g.SparseInitializer) > 0 {
		return nil, &UnsupportedError{Reason: "sparse initializers"}
	}
	var params []*ir.Var
	for _, in := range g.Input {
		if _, isInit := inits[in.GetName()]; isInit {
			continue // an initializer listed as an input (IR < 4): a weight
		}
		if _, dup := vals[in.GetName()]; dup {
			return nil, fmt.Errorf("onnx: graph input %q is listed twice", in.GetName())
		}
		s, err := c.valueInfoSInfo(in)
		if err != nil {
			return nil, err
		}
		if t, ok := c.opt.BindInputs[in.GetName()]; ok {
			if t.DType() != s.DType || s.Shape != nil && len(s.Shape) != t.NDim() {
				return nil, fmt.Errorf("onnx: bound input %q is %s%v, the graph declares %s", in.GetName(), t.DType(), t.Shape(), ir.SInfoString(s))
			}
			vals[in.GetName()] = c.Const(t)
			continue
		}
		v := &ir.Var{Name: c.varName(in.GetName())}
		v.SetSInfo(s)
		params = append(params, v)
		vals[in.GetName()] = &Value{Name: in.GetName(), Expr: v}
		res.Inputs = append(res.Inputs, in.GetName())
		res.InputParams = append(res.InputParams, v.Name)
	}
	numInput := len(params)
	for _, tp := range g.Initializer {
		if tp.GetName() == "" {
			return nil, errors.New("onnx: an initializer has no name")
		}
		t, err := TensorFromProto(tp, c.opt.Dir)
		if err != nil {
			return nil, err
		}
		if c.opt.ConstantParams {
			vals[tp.GetName()] = c.Const(t)
			continue
		}
		v := &ir.Var{Name: c.varName(tp.GetName())}
		v.SetSInfo(ir.StaticTensorSInfo(t.Shape(), t.DType()))
		params = append(params, v)
		c.known[v] = t
		vals[tp.GetName()] = &Value{Name: tp.GetName(), Expr: v, Const: t}
		res.Params[v.Name] = t
		res.ParamNames = append(res.ParamNames, v.Name)
	}
	if err := c.convertNodes(g.Node, vals, nil, ""); err != nil {
		return nil, err
	}
	var outs []ir.Expr
	for _, o := range g.Output {
		v, ok := vals[o.GetName()]
		if !ok || v == nil {
			return nil, fmt.Errorf("onnx: graph output %q is produced by no node", o.GetName())
		}
		if o.GetType() != nil && o.GetType().GetTensorType() == nil {
			if _, err := c.valueInfoSInfo(o); err != nil {
				return nil, err
			}
		}
		res.Outputs = append(res.Outputs, o.GetName())
		outs = append(outs, v.Expr)
	}
	if len(outs) == 0 {
		return nil, errors.New("onnx: the graph has no outputs")
	}
	var body ir.Expr
	if len(outs) == 1 {
		body = outs[0]
	} else {
		t := &ir.Tuple{Fields: outs}
		fs := make([]ir.StructInfo, len(outs))
		for i, o := range outs {
			fs[i] = o.SInfo()
		}
		t.SetSInfo(&ir.TupleSInfo{Fields: fs})
		body = t
	}
	// The result is an ordinary (non-dataflow) variable bound at the end of the block.
	gv := &ir.Var{Name: c.varName("gv")}
	gv.SetSInfo(body.SInfo())
	c.bindings = append(c.bindings, &ir.VarBinding{Var: gv, Value: body})
	params = c.pruneParams(params, numInput, gv, res)
	block := &ir.BindingBlock{Dataflow: true, Bindings: c.bindings}
	if c.hasIf {
		block.Dataflow = false
		clearDataflow(c.bindings)
	}
	fn := &ir.Function{Name: c.opt.FuncName, Params: params, Pure: true,
		Body: &ir.SeqExpr{Blocks: []*ir.BindingBlock{block}, Body: gv}}
	if !c.opt.ConstantParams && len(res.ParamNames) > 0 {
		fn.Attrs = ir.Attrs{{Key: "num_input", Value: int64(numInput)}}
	}
	mod := ir.NewModule()
	if err := mod.Add(fn.Name, fn); err != nil {
		return nil, err
	}
	if err := ir.Normalize(mod); err != nil {
		return nil, fmt.Errorf("onnx: the imported module does not type-check: %w", err)
	}
	if err := ir.WellFormed(mod); err != nil {
		return nil, fmt.Errorf("onnx: the imported module is malformed: %w", err)
	}
	res.Module = mod
	return res, nil
}

// convertNodes converts nodes in order. rename maps names inside an inlined
// function body to the caller's names; attrs are the calling node's attributes
// (for ref_attr_name); prefix makes the function's internal names unique.
func (c *Ctx) convertNodes(nodes []*onnxpb.NodeProto, vals map[string]*Value, callAttrs map[string]*onnxpb.AttributeProto, prefix string) error {
	for _, np := range nodes {
		dom := normDomain(np.GetDomain())
		opset, ok := c.opsets[dom]
		if f, isFunc := c.funcs[dom+"::"+np.GetOpType()]; isFunc {
			if err := c.inline(f, np, vals, callAttrs, prefix); err != nil {
				return err
			}
			continue
		}
		if !ok {
			return &UnsupportedError{Op: np.GetOpType(), Node: np.GetName(), Domain: np.GetDomain(),
				Reason: fmt.Sprintf("operator domain %q is not supported (no opset import for it)", np.GetDomain())}
		}
		n := &Node{Op: np.GetOpType(), Name: np.GetName(), Domain: dom, Opset: opset, NumOut: len(np.Output),
			attrs: map[string]*onnxpb.AttributeProto{}, proto: np, scope: vals, prefix: prefix, callAttrs: callAttrs}
		for _, a := range np.Attribute {
			if a.GetRefAttrName() != "" {
				ref, ok := callAttrs[a.GetRefAttrName()]
				if !ok {
					continue // the caller did not set it: the default applies
				}
				cp := proto.Clone(ref).(*onnxpb.AttributeProto)
				cp.Name = a.Name
				n.attrs[a.GetName()] = cp
				continue
			}
			n.attrs[a.GetName()] = a
		}
		for _, in := range np.Input {
			if in == "" {
				n.In = append(n.In, nil)
				continue
			}
			v, ok := vals[prefix+in]
			if !ok {
				return fmt.Errorf("onnx: node %q (%s): input %q is not defined before it", np.GetName(), np.GetOpType(), in)
			}
			n.In = append(n.In, v)
		}
		if dom != "" {
			return n.unsupported("operator domain %q is not supported", np.GetDomain())
		}
		outs, err := c.convertNode(n)
		if err != nil {
			return err
		}
		for i, o := range np.Output {
			if o == "" {
				continue
			}
			if i >= len(outs) || outs[i] == nil {
				return n.unsupported("output %d (%q) is not produced by the converter", i, o)
			}
			if outs[i].Name == "" {
				outs[i].Name = o
			}
			vals[prefix+o] = outs[i]
		}
	}
	return nil
}

// inline expands a model-local function call.
func (c *Ctx) inline(f *onnxpb.FunctionProto, np *onnxpb.NodeProto, vals map[string]*Value, callAttrs map[string]*onnxpb.AttributeProto, prefix string) error {
	if c.depth > 32 {
		return &UnsupportedError{Op: np.GetOpType(), Node: np.GetName(), Domain: np.GetDomain(), Reason: "model-local functions nest too deeply (recursive?)"}
	}
	c.depth++
	defer func() { c.depth-- }()
	for _, o := range f.OpsetImport {
		d := normDomain(o.GetDomain())
		if have, ok := c.opsets[d]; ok && have != int(o.GetVersion()) && d == "" {
			// The function body is written against its own opset; use the model's for dispatch.
			continue
		} else if !ok {
			c.opsets[d] = int(o.GetVersion())
		}
	}
	inner := fmt.Sprintf("%s%s#%d/", prefix, f.GetName(), len(c.bindings))
	sub := map[string]*Value{}
	for i, formal := range f.Input {
		if i < len(np.Input) && np.Input[i] != "" {
			v, ok := vals[prefix+np.Input[i]]
			if !ok {
				return fmt.Errorf("onnx: node %q (%s): input %q is not defined before it", np.GetName(), np.GetOpType(), np.Input[i])
			}
			sub[inner+formal] = v
		}
	}
	attrs := map[string]*onnxpb.AttributeProto{}
	for _, a := range np.Attribute {
		if a.GetRefAttrName() != "" {
			if ref, ok := callAttrs[a.GetRefAttrName()]; ok {
				attrs[a.GetName()] = ref
			}
			continue
		}
		attrs[a.GetName()] = a
	}
	if err := c.convertNodes(f.Node, sub, attrs, inner); err != nil {
		return err
	}
	for i, formal := range f.Output {
		if i < len(np.Output) && np.Output[i] != "" {
			v, ok := sub[inner+formal]
			if !ok {
				return fmt.Errorf("onnx: function %s: output %q is not produced", f.GetName(), formal)
			}
			vals[prefix+np.Output[i]] = v
		}
	}
	return nil
}

// convertNode dispatches on op type and opset version.
func (c *Ctx) convertNode(n *Node) ([]*Value, error) {
	entries := converters[n.Op]
	if len(entries) == 0 {
		return nil, n.unsupported("operator is not supported by the importer")
	}
	var pick *convEntry
	for i := range entries {
		if entries[i].since <= n.Opset && (pick == nil || entries[i].since > pick.since) {
			pick = &entries[i]
		}
	}
	if pick == nil {
		return nil, n.unsupported("operator versions before opset %d are not supported", entries[0].since)
	}
	if err := needInputs(n, pick.inputs); err != nil {
		return nil, err
	}
	outs, err := pick.fn(c, n)
	if err != nil {
		var ue *UnsupportedError
		if errors.As(err, &ue) {
			if ue.Op == "" {
				ue.Op, ue.Node, ue.Domain, ue.Opset = n.Op, n.Name, n.Domain, n.Opset
			}
			return nil, err
		}
		return nil, fmt.Errorf("onnx: %s (node %q): %w", n.Op, n.Name, err)
	}
	if n.err != nil {
		return nil, n.err
	}
	return outs, nil
}

// ConvFunc converts one node: it reads n's inputs and attributes, emits Relax
// calls through c, and returns one Value per node output (trailing optional
// outputs may be omitted when the node does not use them).
type ConvFunc func(c *Ctx, n *Node) ([]*Value, error)

// convEntry is one registered converter (see builtinConverters).
type convEntry struct {
	op     string
	since  int
	inputs int
	fn     ConvFunc
}

var converters = map[string][]convEntry{}

func init() {
	for _, e := range builtinConverters {
		register(e)
	}
}

// Register adds the converter of default-domain op opType for opset versions
// since and later (until a later registration of the same op takes over),
// beside the built-in ones (builtinConverters); call it before importing,
// e.g. from an init function.
func Register(opType string, since int, fn ConvFunc) {
	register(convEntry{op: opType, since: since, fn: fn})
}

// registerN registers a built-in converter that needs its first inputs
// present (convertNode checks them).
func registerN(opType string, since, inputs int, fn ConvFunc) {
	register(convEntry{op: opType, since: since, inputs: inputs, fn: fn})
}

func register(e convEntry) {
	list := append(converters[e.op], e)
	sort.Slice(list, func(i, j int) bool { return list[i].since < list[j].since })
	converters[e.op] = list
}

// SupportedOps lists the op types with a converter, sorted.
func SupportedOps() []string {
	out := make([]string, 0, len(converters))
	for k := range converters {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// pruneParams drops initializer parameters nothing uses (those only read at
// import time, e.g. shapes and axes).
func (c *Ctx) pruneParams(params []*ir.Var, numInput int, result *ir.Var, res *Result) []*ir.Var {
	used := map[*ir.Var]bool{}
	var walk func(e ir.Expr)
	walk = func(e ir.Expr) {
		switch x := e.(type) {
		case *ir.Var:
			used[x] = true
		case *ir.Call:
			for _, a := range x.Args {
				if a != nil {
					walk(a)
				}
			}
		case *ir.Tuple:
			for _, f := range x.Fields {
				walk(f)
			}
		case *ir.TupleGetItem:
			walk(x.Tuple)
		}
	}
	for _, b := range c.bindings {
		walk(b.BoundValue())
	}
	out := params[:numInput:numInput]
	res.ParamNames = nil
	for _, p := range params[numInput:] {
		if used[p] {
			out = append(out, p)
			res.ParamNames = append(res.ParamNames, p.Name)
		} else {
			delete(res.Params, p.Name)
		}
	}
	return out
}
