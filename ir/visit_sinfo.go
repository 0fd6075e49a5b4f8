package ir

import "github.com/relaxgo/relaxgo/runtime"

// Struct-info utilities: symbolic variables, equality, base checks, join
// (least upper bound) and substitution.

// VisitSInfoPrims calls f on each expression s holds: tensor and shape
// dimensions and prim values, in nested tuples and function signatures too.
func VisitSInfoPrims(s StructInfo, f func(PrimExpr)) {
	var dims []PrimExpr
	switch x := s.(type) {
	case *PrimSInfo:
		if x.Value != nil {
			f(x.Value)
		}
	case *ShapeSInfo:
		dims = x.Values
	case *TensorSInfo:
		dims = x.Shape
	case *TupleSInfo:
		for _, y := range x.Fields {
			VisitSInfoPrims(y, f)
		}
	case *FuncSInfo:
		for _, p := range x.Params {
			VisitSInfoPrims(p, f)
		}
		VisitSInfoPrims(x.Ret, f)
	}
	for _, d := range dims {
		f(d)
	}
}

// CollectSymVars lists the symbolic variables s mentions (tensor and shape
// dimensions, prim values, nested tuples and function signatures), in
// first-appearance order.
func CollectSymVars(s StructInfo) []*PrimVar {
	var out []*PrimVar
	seen := map[*PrimVar]bool{}
	VisitSInfoPrims(s, func(e PrimExpr) {
		for _, v := range FreeVars(e) {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	})
	return out
}

// baseCheck results, as TVM's BaseCheckResult.
const (
	basePass   = iota // derived is provably an instance of base
	baseFailL1        // cannot prove it statically, but it may hold at run time
	baseFailL0        // it provably does not hold
)

func dimsCheck(base, derived []PrimExpr) int {
	if len(base) != len(derived) {
		return baseFailL0
	}
	res := basePass
	for i := range base {
		if ProveEqual(base[i], derived[i]) {
			continue
		}
		if provablyDifferent(base[i], derived[i]) {
			return baseFailL0
		}
		res = baseFailL1
	}
	return res
}

func dtypeCheck(base, derived DataType) int {
	switch {
	case base.IsVoid() || base == derived:
		return basePass
	case derived.IsVoid():
		return baseFailL1
	}
	return baseFailL0
}

func worse(a, b int) int { return max(a, b) }

// sinfoBaseCheck decides whether every value described by derived is also
// described by base.
func sinfoBaseCheck(base, derived StructInfo) int {
	if _, ok := base.(*ObjectSInfo); ok {
		return basePass
	}
	if base == nil || derived == nil {
		return baseFailL1
	}
	if _, ok := derived.(*ObjectSInfo); ok {
		return baseFailL1
	}
	switch b := base.(type) {
	case *PrimSInfo:
		d, ok := derived.(*PrimSInfo)
		if !ok {
			return baseFailL0
		}
		r := dtypeCheck(b.DType, d.DType)
		if b.Value != nil {
			switch {
			case d.Value == nil:
				r = worse(r, baseFailL1)
			case ProveEqual(b.Value, d.Value):
			case provablyDifferent(b.Value, d.Value):
				return baseFailL0
			default:
				r = worse(r, baseFailL1)
			}
		}
		return r
	case *ShapeSInfo:
		d, ok := derived.(*ShapeSInfo)
		if !ok {
			return baseFailL0
		}
		return ndimShapeCheck(b.NDim, b.Values, d.NDim, d.Values)
	case *TensorSInfo:
		d, ok := derived.(*TensorSInfo)
		if !ok {
			return baseFailL0
		}
		r := dtypeCheck(b.DType, d.DType)
		if r == baseFailL0 {
			return r
		}
		return worse(r, ndimShapeCheck(b.NDim, b.Shape, d.NDim, d.Shape))
	case *TupleSInfo:
		d, ok := derived.(*TupleSInfo)
		if !ok {
			return baseFailL0
		}
		if len(b.Fields) != len(d.Fields) {
			return baseFailL0
		}
		r := basePass
		for i := range b.Fields {
			r = worse(r, sinfoBaseCheck(b.Fields[i], d.Fields[i]))
		}
		return r
	case *FuncSInfo:
		d, ok := derived.(*FuncSInfo)
		if !ok {
			return baseFailL0
		}
		if b.Pure && !d.Pure {
			return baseFailL0
		}
		if b.Opaque {
			return basePass
		}
		if d.Opaque {
			return baseFailL1
		}
		if len(b.Params) != len(d.Params) {
			return baseFailL0
		}
		r := basePass
		for i := range b.Params {
			// Parameters are contravariant.
			r = worse(r, sinfoBaseCheck(d.Params[i], b.Params[i]))
		}
		return worse(r, sinfoBaseCheck(b.Ret, d.Ret))
	}
	return baseFailL0
}

func ndimShapeCheck(bn int, bs []PrimExpr, dn int, ds []PrimExpr) int {
	if bn >= 0 {
		if dn < 0 {
			return baseFailL1
		}
		if bn != dn {
			return baseFailL0
		}
	}
	if bs == nil {
		return basePass
	}
	if ds == nil {
		return baseFailL1
	}
	return dimsCheck(bs, ds)
}

// IsBaseOf reports whether base describes every value derived describes
// (base is equal or less specific), proving symbolic dimensions equal with
// ProveEqual.
func IsBaseOf(base, derived StructInfo) bool { return sinfoBaseCheck(base, derived) == basePass }

// MayBeBaseOf reports whether derived values could satisfy base at run time
// (IsBaseOf, or not provably contradictory: TVM accepts such annotations).
func MayBeBaseOf(base, derived StructInfo) bool { return sinfoBaseCheck(base, derived) != baseFailL0 }

// SInfoEqual reports whether a and b are equal, symbolic dimensions compared with ProveEqual.
func SInfoEqual(a, b StructInfo) bool { return IsBaseOf(a, b) && IsBaseOf(b, a) }

// SInfoJoin is the least upper bound of a and b (TVM's StructInfoLCA): the
// most specific struct info describing the values of both.
func SInfoJoin(a, b StructInfo) StructInfo {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	switch x := a.(type) {
	case *PrimSInfo:
		y, ok := b.(*PrimSInfo)
		if !ok {
			break
		}
		if x.DType != y.DType {
			return &ObjectSInfo{}
		}
		if x.Value != nil && y.Value != nil && ProveEqual(x.Value, y.Value) {
			return x
		}
		return &PrimSInfo{DType: x.DType}
	case *ShapeSInfo:
		y, ok := b.(*ShapeSInfo)
		if !ok {
			break
		}
		nd, vals := joinDims(x.NDim, x.Values, y.NDim, y.Values)
		return &ShapeSInfo{Values: vals, NDim: nd}
	case *TensorSInfo:
		y, ok := b.(*TensorSInfo)
		if !ok {
			break
		}
		dt := x.DType
		if x.DType != y.DType {
			dt = runtime.Void
		}
		nd, shape := joinDims(x.NDim, x.Shape, y.NDim, y.Shape)
		return &TensorSInfo{Shape: shape, NDim: nd, DType: dt}
	case *TupleSInfo:
		y, ok := b.(*TupleSInfo)
		if !ok || len(x.Fields) != len(y.Fields) {
			break
		}
		f := make([]StructInfo, len(x.Fields))
		for i := range f {
			f[i] = SInfoJoin(x.Fields[i], y.Fields[i])
		}
		return &TupleSInfo{f}
	case *FuncSInfo:
		y, ok := b.(*FuncSInfo)
		if !ok {
			break
		}
		if SInfoEqual(x, y) {
			return x
		}
		return &FuncSInfo{Opaque: true, Pure: x.Pure && y.Pure}
	}
	return &ObjectSInfo{}
}

func joinDims(an int, as []PrimExpr, bn int, bs []PrimExpr) (int, []PrimExpr) {
	if an != bn {
		return -1, nil
	}
	if as == nil || bs == nil || len(as) != len(bs) {
		return an, nil
	}
	for i := range as {
		if !ProveEqual(as[i], bs[i]) {
			return an, nil
		}
	}
	return an, as
}

// SubstSInfo replaces symbolic variables in s by expressions (simplified);
// it returns s itself when nothing changes.
func SubstSInfo(s StructInfo, m map[*PrimVar]PrimExpr) StructInfo {
	if len(m) == 0 || s == nil {
		return s
	}
	subst := func(ds []PrimExpr) ([]PrimExpr, bool) {
		if ds == nil {
			return nil, false
		}
		out := make([]PrimExpr, len(ds))
		changed := false
		for i, d := range ds {
			out[i] = SubstPrim(d, m)
			if out[i] != d {
				out[i] = Simplify(out[i])
				changed = true
			}
		}
		return out, changed
	}
	switch x := s.(type) {
	case *PrimSInfo:
		if x.Value == nil {
			return x
		}
		v := SubstPrim(x.Value, m)
		if v == x.Value {
			return x
		}
		return &PrimSInfo{DType: x.DType, Value: Simplify(v)}
	case *ShapeSInfo:
		if v, ok := subst(x.Values); ok {
			return &ShapeSInfo{Values: v, NDim: x.NDim}
		}
	case *TensorSInfo:
		if v, ok := subst(x.Shape); ok {
			return &TensorSInfo{Shape: v, NDim: x.NDim, DType: x.DType}
		}
	case *TupleSInfo:
		changed := false
		f := make([]StructInfo, len(x.Fields))
		for i, fi := range x.Fields {
			f[i] = SubstSInfo(fi, m)
			changed = changed || f[i] != fi
		}
		if changed {
			return &TupleSInfo{f}
		}
	case *FuncSInfo:
		changed := false
		var ps []StructInfo
		if x.Params != nil {
			ps = make([]StructInfo, len(x.Params))
		}
		for i, p := range x.Params {
			ps[i] = SubstSInfo(p, m)
			changed = changed || ps[i] != p
		}
		r := SubstSInfo(x.Ret, m)
		if changed || r != x.Ret {
			return &FuncSInfo{Params: ps, Ret: r, Pure: x.Pure, Opaque: x.Opaque}
		}
	}
	return s
}

// EraseToWellDefined drops the parts of s that mention symbolic variables
// for which defined returns false: such shapes become rank-only, such prim
// values become dtype-only. A nil defined treats every variable as undefined.
func EraseToWellDefined(s StructInfo, defined func(*PrimVar) bool) StructInfo {
	ok := func(ds ...PrimExpr) bool {
		for _, d := range ds {
			for _, v := range FreeVars(d) {
				if defined == nil || !defined(v) {
					return false
				}
			}
		}
		return true
	}
	switch x := s.(type) {
	case *PrimSInfo:
		if x.Value != nil && !ok(x.Value) {
			return &PrimSInfo{DType: x.DType}
		}
	case *ShapeSInfo:
		if x.Values != nil && !ok(x.Values...) {
			return &ShapeSInfo{NDim: x.NDim}
		}
	case *TensorSInfo:
		if x.Shape != nil && !ok(x.Shape...) {
			return &TensorSInfo{NDim: x.NDim, DType: x.DType}
		}
	case *TupleSInfo:
		changed := false
		f := make([]StructInfo, len(x.Fields))
		for i, fi := range x.Fields {
			f[i] = EraseToWellDefined(fi, defined)
			changed = changed || f[i] != fi
		}
		if changed {
			return &TupleSInfo{f}
		}
	case *FuncSInfo:
		// Function signatures bind their own symbolic variables.
	}
	return s
}
