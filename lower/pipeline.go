// Package lower holds relaxgo's pass pipeline: the module-to-module
// transformations that turn a parsed Relax module into a VM-ready one.
// DefaultPasses lists them in the order of TVM's default CPU build pipeline
// (BindParams, when a module has weights, goes first; the compiler package
// adds it), and Run applies a pass list.
package lower

import (
	"fmt"
	"io"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
)

// Pass is one transformation of a module. Passes do not modify their input;
// they return a new module (sharing unchanged functions).
type Pass struct {
	// Name is how the pass is named on the command line (--dump-after NAME).
	Name string
	// Run transforms the module.
	Run func(m *ir.Module) (*ir.Module, error)
}

// Options configure Run's dumps.
type Options struct {
	// Dump, when set, receives the module printed after each pass named in DumpAfter.
	Dump io.Writer
	// DumpAfter names passes to print after; "all" prints after every pass.
	DumpAfter []string
	// Printer renders a module for dumps (the TVMScript printer; injected to
	// keep lower independent of the front end).
	Printer func(m *ir.Module) string
}

// DefaultPasses is the pass list of relaxgo's CPU pipeline, adapted from TVM's
// default_build_pipeline: legalize to library kernels, leave dataflow, make
// destination-passing calls explicit, plan memory, lower to VM builtins.
func DefaultPasses() []Pass {
	return []Pass{
		{"normalize", normalizePass},
		{"to-anf", ToANF},
		{"lambda-lift", LambdaLift},
		{"fold-constant", FoldConstant},
		{"dead-code-elimination", DeadCodeElimination},
		{"legalize", Legalize},
		{"fold-pad", FoldPad},
		{"fuse-matmul-epilogue", FuseMatmulEpilogue},
		{"fuse-attention", FuseAttention},
		{"fuse-elementwise-chains", FuseElementwiseChains},
		{"fuse-conv-chain", FuseConvChain},
		{"fold-conv-affine", FoldConvAffine},
		{"rewrite-dataflow-reshape", RewriteDataflowReshape},
		{"to-non-dataflow", ToNonDataflow},
		{"call-tir-rewrite", CallTIRRewrite},
		{"static-plan-block-memory", StaticPlanBlockMemory},
		{"lower-alloc-tensor", LowerAllocTensor},
		{"kill-after-last-use", KillAfterLastUse},
		{"vm-shape-lower", VMShapeLower},
	}
}

// PassNames lists the names of the default passes.
func PassNames() []string {
	var out []string
	for _, p := range DefaultPasses() {
		out = append(out, p.Name)
	}
	return out
}

// Run applies passes in order and prints the module after the passes
// opt.DumpAfter names. A pass error comes back wrapped with the pass name.
// Run does not re-check well-formedness between passes: the input is checked
// once when it is parsed (compiler.Parse calls ir.WellFormed), each pass
// returns a normalized module, and the pass tests check their output.
func Run(m *ir.Module, passes []Pass, opt Options) (*ir.Module, error) {
	dumpAll := false
	want := map[string]bool{}
	for _, n := range opt.DumpAfter {
		if n == "all" {
			dumpAll = true
		}
		want[n] = true
	}
	for n := range want {
		if n == "all" {
			continue
		}
		found := false
		for _, p := range passes {
			found = found || p.Name == n
		}
		if !found {
			return nil, fmt.Errorf("lower: --dump-after %q: no such pass (passes: %s)", n, strings.Join(passNames(passes), ", "))
		}
	}
	for _, p := range passes {
		out, err := p.Run(m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		m = out
		if opt.Dump != nil && opt.Printer != nil && (dumpAll || want[p.Name]) {
			fmt.Fprintf(opt.Dump, "# after pass %s\n%s\n", p.Name, opt.Printer(m))
		}
	}
	return m, nil
}

func passNames(ps []Pass) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func normalizePass(m *ir.Module) (*ir.Module, error) {
	m = m.Clone()
	if err := ir.Normalize(m); err != nil {
		return nil, err
	}
	return m, nil
}

// mapRelaxFuncs applies f to every Relax function of a copy of m.
func mapRelaxFuncs(m *ir.Module, f func(fn *ir.Function) (*ir.Function, error)) (*ir.Module, error) {
	out := m.Clone()
	for _, name := range m.Order {
		fn, ok := m.Funcs[name].(*ir.Function)
		if !ok {
			continue
		}
		nf, err := f(fn)
		if err != nil {
			return nil, fmt.Errorf("function %s: %w", name, err)
		}
		out.Funcs[name] = nf
	}
	return out, nil
}

// posErr prefixes an error with a source position when one is known.
func posErr(sp ir.Span, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if sp.Line > 0 {
		return fmt.Errorf("%s: %s", sp, msg)
	}
	return fmt.Errorf("%s", msg)
}
