// Package tirgo compiles TIR PrimFuncs to Go loop nests: one function per
// PrimFunc with packed-call semantics, emitted with jennifer (Func), and a
// slow reference interpreter with the same semantics that tests use as the
// oracle (Interpret).
//
// The code is laid out as the emitter runs: tirgo.go (entry point, emitter
// state, identifiers), types.go (TIR dtypes as Go types), function.go
// (parameter checks and the function around the loop nest), stmt.go
// (statements, loops, blocks), index.go (buffer index linearization),
// expr.go (expressions, intrinsics, casts), reduce.go (reductions kept in a
// register), eval.go (the interpreter). 16-bit floats go through
// runtime/half in both the compiler and the code it generates.
package tirgo

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/relaxgo/relaxgo/ir"
)

// Import paths of the packages generated code uses.
const (
	kernelsPkg = "github.com/relaxgo/relaxgo/kernels"
	runtimePkg = "github.com/relaxgo/relaxgo/runtime"
	halfPkg    = "github.com/relaxgo/relaxgo/runtime/half"
)

// Func emits a Go function
//
//	func <goName>(args []runtime.Value) (runtime.Value, error)
//
// implementing the TIR PrimFunc f with packed-call semantics: args are f's
// parameters in order, a *runtime.Tensor for each buffer parameter (dtype,
// rank and static dimensions are checked, symbolic dimensions are bound from
// the actual shapes on first occurrence and checked after) and an int64 (int
// and int32 accepted), float64 (or float32) or bool for each scalar
// parameter. The function returns (nil, nil), or an error naming the
// function and parameter; it does not panic on bad input (a panic inside the
// loop nest, such as an out-of-range data-dependent index, is recovered and
// returned as an error).
//
// Semantics follow TIR: block iteration variables take their bindings, a
// block's init runs when every reduction variable is at its domain minimum,
// predicates guard the block, buffers are row-major, alloc_buffer allocates
// once per call (once per chunk under a parallel loop), integer arithmetic
// wraps in its own width (int64 is Go's int, so generated code needs a
// 64-bit platform), Div/Mod truncate and FloorDiv/FloorMod floor. float32
// arithmetic is done in float32 (products are explicitly rounded so that Go
// never fuses them into FMAs); float16 and bfloat16 values are float32 in
// registers, rounded to 16 bits after every operation. Math intrinsics
// (T.exp, T.erf, ...) run in float64 and are rounded once to the argument
// type. Min/Max are a<b?a:b / a>b?a:b and float != is ordered (false on NaN),
// as TVM's LLVM backend emits them. Conversions from float to integers
// narrower than 64 bits go through int64. Parallel loops run on
// kernels.ParallelFor; vectorized and unrolled loops are plain loops.
//
// Unsupported TIR (thread bindings, vector types, unknown intrinsics,
// non-global storage scopes, explicit strides or element offsets, ...) is
// refused with an error giving the construct and its source location.
func Func(f *ir.PrimFunc, goName string) (*jen.Statement, error) {
	g := &tirGen{
		f: f, goName: goName,
		names:      map[string]bool{goName: true},
		vname:      map[*ir.PrimVar]string{},
		depth:      map[*ir.PrimVar]int{},
		subst:      map[*ir.PrimVar]ir.PrimExpr{},
		refs:       map[*ir.PrimVar]bool{},
		handles:    map[*ir.PrimVar]bool{},
		nonNegVars: map[*ir.PrimVar]bool{},
		bufs:       map[*ir.Buffer]*gbuf{},
		helpers:    map[string]string{},
		loc:        f.Loc,
	}
	for _, n := range []string{"args", "err", "math", "fmt", "runtime", "kernels", "ok", "r", "v"} {
		g.names[n] = true
	}
	code, err := g.function()
	if err != nil {
		return nil, err
	}
	return code, nil
}

const inlineDepth = 1 << 30

type gbuf struct {
	b       *ir.Buffer
	data    string
	strides []gstride
}

// gstride is a row-major stride: a constant, or a Go int variable.
type gstride struct {
	c    int64
	name string
}

type loopFrame struct {
	decls []jen.Code
	cse   map[string]string
}

type allocScope struct {
	decls []jen.Code
}

type tirGen struct {
	f      *ir.PrimFunc
	goName string
	names  map[string]bool
	vname  map[*ir.PrimVar]string
	depth  map[*ir.PrimVar]int
	// subst maps block iteration variables to their bindings (in loop
	// variables) for index linearization.
	subst map[*ir.PrimVar]ir.PrimExpr
	refs  map[*ir.PrimVar]bool
	// handles are handle parameters without a buffer (stub PrimFuncs);
	// their arguments are ignored, and a body reading one is refused.
	handles    map[*ir.PrimVar]bool
	nonNegVars map[*ir.PrimVar]bool
	bufs       map[*ir.Buffer]*gbuf
	helpers    map[string]string
	helperDecl []jen.Code
	frames     []*loopFrame
	scopes     []*allocScope
	loc        ir.Span
	// noReduce disables the register-reduction rewrite while it emits its
	// loops; acc is the accumulator standing for the reduced buffer.
	noReduce bool
	acc      *accState
}

// errorf reports unsupported or malformed TIR at the current location.
func (g *tirGen) errorf(format string, args ...any) error {
	loc := g.loc.String()
	if loc == "" {
		loc = "unknown location"
	}
	return fmt.Errorf("tirgo: TIR function %s: %s: %s", g.f.Name, loc, fmt.Sprintf(format, args...))
}

func (g *tirGen) setLoc(s ir.Span) {
	if s != (ir.Span{}) {
		g.loc = s
	}
}

var goPredeclared = map[string]bool{
	"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true, "float32": true, "float64": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true, "rune": true, "string": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true, "any": true,
	"true": true, "false": true, "iota": true, "nil": true, "append": true, "cap": true, "clear": true, "close": true,
	"complex": true, "copy": true, "delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true,
	"new": true, "panic": true, "print": true, "println": true, "real": true, "recover": true, "comparable": true,
}

// fresh returns an unused Go identifier based on base.
func (g *tirGen) fresh(base string) string {
	var b strings.Builder
	for _, r := range base {
		if r < 128 && (r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "v" + s
	}
	if s == "_" {
		s = "v_"
	}
	name := s
	for i := 2; g.names[name] || token.IsKeyword(name) || goPredeclared[name]; i++ {
		name = s + "_" + strconv.Itoa(i)
	}
	g.names[name] = true
	return name
}
