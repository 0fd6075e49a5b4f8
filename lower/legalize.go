package lower

import (
	"fmt"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// KernelPrefix prefixes a Relax op's name (without "relax.") to form the name
// of the library kernel that implements it: relax.nn.conv2d -> kernels.nn.conv2d.
const KernelPrefix = "kernels."

// structural ops are lowered by later passes or by code generation, not by
// calling a library kernel.
var structural = map[string]bool{
	"relax.call_tir":              true,
	"relax.call_tir_inplace":      true,
	"relax.call_dps_packed":       true,
	"relax.call_pure_packed":      true,
	"relax.call_builtin_with_ctx": true,
	"relax.make_closure":          true,
	"relax.invoke_closure":        true,
	"relax.invoke_pure_closure":   true,
	"relax.null_value":            true,
	"relax.shape_of":              true,
	"relax.builtin.alloc_tensor":  true,
	"relax.memory.alloc_storage":  true,
	"relax.memory.alloc_tensor":   true,
	"relax.memory.kill_storage":   true,
	"relax.memory.kill_tensor":    true,
	"relax.vm.alloc_storage":      true,
	"relax.vm.alloc_tensor":       true,
	"relax.vm.kill_object":        true,
}

// identityOps are identities at inference and are legalized to their input,
// as TVM's LegalizeOps does (gradient-checkpoint markers).
var identityOps = map[string]bool{
	"relax.grad.start_checkpoint": true,
	"relax.grad.end_checkpoint":   true,
}

// KernelName is the registered name of the library kernel for a Relax op.
func KernelName(op string) string { return KernelPrefix + strings.TrimPrefix(op, "relax.") }

// Legalize turns every call of a Relax operator into a destination-passing
// call of its library kernel: `y = R.op(a, b, attr=v)` becomes
// `y = R.call_dps_packed("kernels.op", (a, b, v), out_sinfo=<y's type>)`.
// Attributes become trailing arguments in the op's attribute order. An op with
// no registered kernel is refused with its name and source location.
func Legalize(m *ir.Module) (*ir.Module, error) {
	return mapRelaxFuncs(m, func(fn *ir.Function) (*ir.Function, error) {
		return rewriteCalls(fn, func(vb *ir.VarBinding, c *ir.Call, emit func(ir.Binding)) error {
			if c.OpName() == "" || structural[c.OpName()] {
				emit(vb)
				return nil
			}
			if fn, ok := packedOps[c.OpName()]; ok {
				emit(&ir.VarBinding{Var: vb.Var, Value: legalizePacked(c, vb.Var, fn), Loc: vb.Loc})
				return nil
			}
			if identityOps[c.OpName()] && len(c.Args) == 1 {
				emit(&ir.VarBinding{Var: vb.Var, Value: c.Args[0], Loc: vb.Loc})
				return nil
			}
			nc, err := legalizeCall(c, vb.Var)
			if err != nil {
				return err
			}
			emit(&ir.VarBinding{Var: vb.Var, Value: nc, Loc: vb.Loc})
			return nil
		})
	})
}

// kernelArgs flattens an op call into the kernel's argument list: the
// expression arguments, then each attribute converted to a value expression.
func kernelArgs(c *ir.Call) ([]ir.Expr, error) {
	args := make([]ir.Expr, len(c.Args))
	for i, a := range c.Args {
		args[i] = intTupleAsShape(a)
	}
	for _, a := range c.Attrs {
		v := a.Value
		if a.Key == "roi" && zeroRoiOps[c.OpName()] && allZero(v) {
			// The kernels read no roi as zeros: a null value, where a
			// tuple of the zeros would be built on every call.
			v = nil
		}
		e, err := attrExpr(v)
		if err != nil {
			return nil, posErr(c.Pos(), "%s: attribute %s: %v", c.OpName(), a.Key, err)
		}
		args = append(args, e)
	}
	return args, nil
}

// zeroRoiOps are the operators whose kernels take a null roi for one of
// zeros (the attribute's default, which ONNX imports and TVM print).
var zeroRoiOps = map[string]bool{"relax.image.resize2d": true, "relax.image.resize3d": true}

// allZero reports whether v is a list of numbers that are all zero.
func allZero(v any) bool {
	list, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range list {
		switch x := e.(type) {
		case float64:
			if x != 0 {
				return false
			}
		case int64:
			if x != 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func legalizeCall(c *ir.Call, v *ir.Var) (*ir.Call, error) {
	name := KernelName(c.OpName())
	if _, ok := runtime.Lookup(name); !ok {
		return nil, posErr(c.Pos(), "operator %s is not supported: no kernel %q is registered", c.OpName(), name)
	}
	out := c.SInfo()
	if out == nil {
		out = v.Info
	}
	if err := checkAllocatable(out); err != nil {
		return nil, posErr(c.Pos(), "%s: %v", c.OpName(), err)
	}
	args, err := kernelArgs(c)
	if err != nil {
		return nil, err
	}
	if flatTupleKernels[c.OpName()] {
		// The tensors of a literal tuple are passed themselves, so that no
		// tuple is built on every call (the kernels take both forms).
		if t, ok := args[0].(*ir.Tuple); ok && len(t.Fields) > 0 {
			args = append(append([]ir.Expr{}, t.Fields...), args[1:]...)
		}
	}
	return dpsCall(name, tupleExpr(args), out, c.Loc), nil
}

// flatTupleKernels are the operators whose kernels take their leading
// tuple of tensors flattened (tensors..., attribute, out).
var flatTupleKernels = map[string]bool{"relax.concat": true, "relax.stack": true}

// dpsCall is R.call_dps_packed(symbol, args) writing a result of struct
// info out, at loc.
func dpsCall(symbol string, args *ir.Tuple, out ir.StructInfo, loc ir.Span) *ir.Call {
	c := &ir.Call{Callee: &ir.Op{Name: "relax.call_dps_packed"}, Args: []ir.Expr{externFunc(symbol), args}, SInfoArgs: []ir.StructInfo{out}}
	c.Info, c.Loc = out, loc
	return c
}

// checkAllocatable reports whether outputs of this type can be preallocated:
// tensors (or tuples of tensors) with known rank and dtype and a shape.
func checkAllocatable(s ir.StructInfo) error {
	switch x := s.(type) {
	case *ir.TensorSInfo:
		if x.Shape == nil {
			return fmt.Errorf("output shape %s is not known before the call", ir.SInfoString(s))
		}
		if x.DType.IsVoid() {
			return fmt.Errorf("output dtype of %s is not known", ir.SInfoString(s))
		}
		return nil
	case *ir.TupleSInfo:
		for _, f := range x.Fields {
			if err := checkAllocatable(f); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("output type %s is not a tensor", ir.SInfoString(s))
}

// attrExpr converts an attribute value to the expression passed to kernels:
// ints and bools as int64 PrimValues, floats as float64 PrimValues, strings,
// dtypes, int lists as shapes, other lists as tuples, None as a null value.
func attrExpr(v any) (ir.Expr, error) {
	switch x := v.(type) {
	case nil:
		return opCall("relax.null_value", &ir.ObjectSInfo{}, ir.Span{}), nil
	case int64:
		return primInt(x), nil
	case int:
		return primInt(int64(x)), nil
	case bool:
		if x {
			return primInt(1), nil
		}
		return primInt(0), nil
	case float64:
		p := &ir.PrimValue{Value: &ir.FloatImm{Value: x, Type: runtime.Float64}}
		p.Info = &ir.PrimSInfo{DType: runtime.Float64, Value: p.Value}
		return p, nil
	case string:
		return strImm(x), nil
	case ir.DataType:
		return dtypeImm(x), nil
	case *ir.IndexMap:
		prog, err := x.Program()
		if err != nil {
			return nil, err
		}
		dims := make([]ir.PrimExpr, len(prog))
		for i, t := range prog {
			dims[i] = ir.Int64(t)
		}
		return shapeExpr(dims), nil
	case ir.PrimExpr:
		p := &ir.PrimValue{Value: x}
		p.Info = &ir.PrimSInfo{DType: x.DType(), Value: x}
		return p, nil
	case ir.Expr:
		return x, nil
	case []any:
		ints := true
		for _, e := range x {
			if _, ok := e.(int64); !ok {
				ints = false
			}
		}
		if ints {
			dims := make([]ir.PrimExpr, len(x))
			for i, e := range x {
				dims[i] = ir.Int64(e.(int64))
			}
			return shapeExpr(dims), nil
		}
		fields := make([]ir.Expr, len(x))
		for i, e := range x {
			f, err := attrExpr(e)
			if err != nil {
				return nil, err
			}
			fields[i] = f
		}
		return tupleExpr(fields), nil
	}
	return nil, fmt.Errorf("unsupported attribute value %v (%T)", v, v)
}

// intTupleAsShape passes a tuple of integer prim values (strided_slice's
// axes/begin/end in recent TVM) as a shape value, the form kernels read int
// lists in; symbolic entries are computed by shape lowering.
func intTupleAsShape(e ir.Expr) ir.Expr {
	t, ok := e.(*ir.Tuple)
	if !ok || len(t.Fields) == 0 {
		return e
	}
	dims := make([]ir.PrimExpr, len(t.Fields))
	for i, f := range t.Fields {
		p, ok := f.(*ir.PrimValue)
		if !ok || !(p.Value.DType().IsInt() || p.Value.DType().IsUInt()) {
			return e
		}
		dims[i] = p.Value
		if p.Value.DType() != runtime.Int64 {
			dims[i] = &ir.Cast{Type: runtime.Int64, Value: p.Value}
		}
	}
	return shapeExpr(dims)
}
