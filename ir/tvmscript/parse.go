package tvmscript

import (
	"fmt"
	"strings"

	"github.com/relaxgo/relaxgo/ir"
	"github.com/relaxgo/relaxgo/runtime"
)

// Options configures Parse.
type Options struct {
	// Constants backs metadata["relax.expr.Constant"][i] references: TVM
	// prints large constants that way and omits the table itself unless
	// asked (show_meta=True). Entry i answers index i; a reference to an
	// index without an entry is an error.
	Constants []*runtime.Tensor
}

// Parse parses TVMScript module text (the output of TVM's mod.script(), in
// either dialect) into a module. file names the source in error messages.
// opts may be nil. Errors are *Error values carrying file:line:col and the
// offending source line. Struct info is recorded only where the text
// annotates it; ir.Normalize infers the rest.
func Parse(file string, src []byte, opts *Options) (*ir.Module, error) {
	p := &parser{src: newSource(file, src), alias: map[string]string{"I": "ir", "R": "relax", "T": "tir"}}
	if opts != nil {
		p.opts = *opts
	}
	toks, headers, _, err := lex(p.src, string(src))
	if err != nil {
		return nil, err
	}
	for _, h := range headers {
		p.bindAlias(h)
	}
	pp := &pyParser{src: p.src, toks: toks}
	stmts, err := pp.parseFile()
	if err != nil {
		return nil, err
	}
	return p.module(stmts)
}

// ParseString is Parse on a string.
func ParseString(file, src string, opts *Options) (*ir.Module, error) {
	return Parse(file, []byte(src), opts)
}

type parser struct {
	src   *source
	opts  Options
	alias map[string]string // alias -> "ir" | "relax" | "tir"
	mod   *ir.Module
	// className is the module class's name; clsNames are names bound to it.
	className string
	clsNames  map[string]bool
	funcNames map[string]bool
}

func (p *parser) bindAlias(a importAlias) {
	switch a.module {
	case "ir":
		p.alias[a.alias] = "ir"
	case "relax":
		p.alias[a.alias] = "relax"
	case "tir", "tirx":
		p.alias[a.alias] = "tir"
	}
}

func (p *parser) errorf(pos ir.Span, format string, args ...any) error {
	return p.src.errorf(pos, format, args...)
}

// ns splits a dotted name into its namespace (by alias) and the rest:
// R.nn.conv2d -> ("relax", "nn.conv2d").
func (p *parser) ns(e expr) (kind, rest string) {
	d, ok := dotted(e)
	if !ok {
		return "", ""
	}
	if long, ok := strings.CutPrefix(d, "tvm.script."); ok {
		return longForm(long)
	}
	base, rest, _ := strings.Cut(d, ".")
	return p.alias[base], rest
}

// longForm resolves the spellings TVM's own tests use without import
// aliases, after "tvm.script.": ir_module (the decorator re-exported at the
// top), ir.X, relax.X, tir.X and tirx.X.
func longForm(d string) (kind, rest string) {
	if d == "ir_module" {
		return "ir", d
	}
	base, rest, ok := strings.Cut(d, ".")
	if !ok {
		return "", ""
	}
	switch base {
	case "ir", "relax":
		return base, rest
	case "tir", "tirx":
		return "tir", rest
	}
	return "", ""
}

// callee returns the namespace and name of a call's function.
func (p *parser) isCall(e expr, kind string, names ...string) (*callExpr, bool) {
	c, ok := e.(*callExpr)
	if !ok {
		return nil, false
	}
	k, rest := p.ns(c.fn)
	if k != kind {
		return nil, false
	}
	for _, n := range names {
		if rest == n {
			return c, true
		}
	}
	return nil, false
}

func (p *parser) module(stmts []stmt) (*ir.Module, error) {
	var cls *classDef
	var loose []*funcDef
	for _, s := range stmts {
		switch x := s.(type) {
		case *importStmt:
			for _, a := range x.aliases {
				p.bindAlias(a)
			}
		case *classDef:
			if cls != nil {
				return nil, p.errorf(x.p, "more than one module class (the first is %q)", cls.name)
			}
			if len(x.decorators) == 0 {
				return nil, p.errorf(x.p, "class %q is not decorated with @I.ir_module", x.name)
			}
			cls = x
		case *funcDef:
			loose = append(loose, x)
		case *passStmt:
		case *assignStmt:
			if n, ok := x.target.(*nameExpr); ok && n.name == "metadata" {
				return nil, p.errorf(x.p, "metadata tables (show_meta=True) are not supported; pass constants with Options.Constants")
			}
			return nil, p.errorf(x.p, "unexpected statement at top level; expected an @I.ir_module class")
		case *exprStmt:
			if _, ok := x.x.(*strLit); ok {
				continue // docstring
			}
			return nil, p.errorf(x.p, "unexpected statement at top level; expected an @I.ir_module class")
		default:
			return nil, p.errorf(s.pos(), "unexpected statement at top level; expected an @I.ir_module class")
		}
	}
	p.mod = ir.NewModule()
	p.clsNames = map[string]bool{}
	p.funcNames = map[string]bool{}
	if cls == nil {
		if len(loose) == 0 {
			return nil, p.errorf(ir.Span{File: p.src.file, Line: 1, Col: 1}, "no @I.ir_module class found")
		}
		// A script holding bare functions: treat them as one module.
		body := make([]stmt, len(loose))
		for i, f := range loose {
			body[i] = f
		}
		cls = &classDef{p: loose[0].p, name: "Module", body: body}
	} else {
		if len(loose) > 0 {
			return nil, p.errorf(loose[0].p, "function %q outside the module class", loose[0].name)
		}
		if err := p.moduleDecorator(cls); err != nil {
			return nil, err
		}
	}
	p.className = cls.name
	p.clsNames[cls.name] = true
	for _, s := range cls.body {
		if f, ok := s.(*funcDef); ok {
			if p.funcNames[f.name] {
				return nil, p.errorf(f.p, "duplicate function %q in module", f.name)
			}
			p.funcNames[f.name] = true
		}
	}
	for _, s := range cls.body {
		switch x := s.(type) {
		case *funcDef:
			if err := p.moduleFunc(x); err != nil {
				return nil, err
			}
		case *exprStmt:
			if _, ok := x.x.(*strLit); ok {
				continue
			}
			if c, ok := p.isCall(x.x, "ir", "module_attrs"); ok {
				if len(c.args) != 1 || len(c.kw) != 0 {
					return nil, p.errorf(c.p, "I.module_attrs takes one dict argument")
				}
				a, err := p.attrDict(c.args[0], false)
				if err != nil {
					return nil, err
				}
				p.mod.Attrs = append(p.mod.Attrs, a...)
				continue
			}
			if c, ok := p.isCall(x.x, "ir", "module_global_infos"); ok {
				if len(c.args) != 1 || len(c.kw) != 0 {
					return nil, p.errorf(c.p, "I.module_global_infos takes one dict argument")
				}
				d, ok := c.args[0].(*dictExpr)
				if !ok {
					return nil, p.errorf(c.args[0].pos(), "I.module_global_infos expects a dict")
				}
				for i, k := range d.keys {
					ks, ok := k.(*strLit)
					if !ok {
						return nil, p.errorf(k.pos(), "global info keys must be strings")
					}
					if ks.v == "vdevice" {
						l, ok := d.vals[i].(*listExpr)
						if !ok {
							return nil, p.errorf(d.vals[i].pos(), "the vdevice global info must be a list of I.vdevice(...)")
						}
						for _, e := range l.elts {
							if err := p.checkVDeviceDecl(e); err != nil {
								return nil, err
							}
						}
					}
					p.mod.GlobalInfos = append(p.mod.GlobalInfos, ir.Attr{Key: ks.v, Value: exprText(d.vals[i])})
				}
				continue
			}
			return nil, p.errorf(x.p, "unexpected statement in module class; expected a function, I.module_attrs or I.module_global_infos")
		case *passStmt:
		default:
			return nil, p.errorf(s.pos(), "unexpected statement in module class; expected a function definition")
		}
	}
	return p.mod, nil
}

func (p *parser) moduleDecorator(cls *classDef) error {
	if len(cls.decorators) != 1 {
		return p.errorf(cls.p, "module class %q must have exactly one decorator, @I.ir_module", cls.name)
	}
	d := cls.decorators[0]
	if k, rest := p.ns(d); k == "ir" && rest == "ir_module" {
		return nil
	}
	c, ok := p.isCall(d, "ir", "ir_module")
	if !ok {
		return p.errorf(d.pos(), "expected @I.ir_module, found @%s", exprText(d))
	}
	if len(c.args) > 0 {
		return p.errorf(c.args[0].pos(), "@I.ir_module takes keyword arguments only")
	}
	for _, k := range c.kw {
		switch k.name {
		case "s_tir":
			b, ok := k.val.(*boolLit)
			if !ok {
				return p.errorf(k.val.pos(), "s_tir must be True or False")
			}
			p.mod.STIR = b.v
		case "check_well_formed":
		default:
			return p.errorf(k.p, "unknown argument %q of @I.ir_module", k.name)
		}
	}
	return nil
}

// decorator classifies a function decorator: "relax" for @R.function,
// "tir" for @T.prim_func, with its keyword arguments.
func (p *parser) decorator(f *funcDef) (string, []kwarg, error) {
	if len(f.decorators) != 1 {
		return "", nil, p.errorf(f.p, "function %q must have exactly one decorator (@R.function or @T.prim_func)", f.name)
	}
	d := f.decorators[0]
	var kws []kwarg
	if c, ok := d.(*callExpr); ok {
		if len(c.args) > 0 {
			return "", nil, p.errorf(c.args[0].pos(), "the decorator takes keyword arguments only")
		}
		d, kws = c.fn, c.kw
	}
	k, rest := p.ns(d)
	switch {
	case k == "relax" && rest == "function":
		return "relax", kws, nil
	case k == "tir" && rest == "prim_func":
		return "tir", kws, nil
	}
	if k, rest := p.ns(d); k == "ir" && rest == "pyfunc" {
		return "", nil, p.errorf(d.pos(), "@I.pyfunc (a Python function in the module) is not supported: relaxgo compiles Relax and TIR functions only")
	}
	return "", nil, p.errorf(d.pos(), "unsupported decorator @%s; expected @R.function or @T.prim_func", exprText(d))
}

func (p *parser) moduleFunc(f *funcDef) error {
	kind, kws, err := p.decorator(f)
	if err != nil {
		return err
	}
	var fn ir.BaseFunc
	if kind == "relax" {
		fn, err = p.relaxFunc(f, kws, nil, nil)
	} else {
		fn, err = p.primFunc(f, kws)
	}
	if err != nil {
		return err
	}
	if err := p.mod.Add(f.name, fn); err != nil {
		return p.errorf(f.p, "%v", err)
	}
	return nil
}

func boolKw(p *parser, k kwarg) (bool, error) {
	b, ok := k.val.(*boolLit)
	if !ok {
		return false, p.errorf(k.val.pos(), "%s must be True or False", k.name)
	}
	return b.v, nil
}

// attrDict converts a dict literal of attributes. tir selects TIR
// conventions (tirx.* keys become tir.*).
func (p *parser) attrDict(e expr, tir bool) (ir.Attrs, error) {
	d, ok := e.(*dictExpr)
	if !ok {
		return nil, p.errorf(e.pos(), "expected a dict of attributes")
	}
	var out ir.Attrs
	for i, k := range d.keys {
		ks, ok := k.(*strLit)
		if !ok {
			return nil, p.errorf(k.pos(), "attribute names must be strings")
		}
		key := ks.v
		if tir && strings.HasPrefix(key, "tirx.") {
			key = "tir." + strings.TrimPrefix(key, "tirx.")
		}
		v, err := p.attrValue(d.vals[i], tir)
		if err != nil {
			return nil, err
		}
		out = append(out, ir.Attr{Key: key, Value: v})
	}
	return out, nil
}

// literalValue is the Go value of a literal (int64, float64, bool, string,
// or nil for None); ok is false for any other expression.
func literalValue(e expr) (v any, ok bool) {
	switch x := e.(type) {
	case *intLit:
		return x.v, true
	case *floatLit:
		return x.v, true
	case *boolLit:
		return x.v, true
	case *strLit:
		return x.v, true
	case *noneLit:
		return nil, true
	}
	return nil, false
}

// attrValue converts a literal attribute value to a plain Go value.
func (p *parser) attrValue(e expr, tir bool) (any, error) {
	if v, ok := literalValue(e); ok {
		return v, nil
	}
	switch x := e.(type) {
	case *listExpr:
		return p.attrList(x.elts, tir)
	case *tupleExpr:
		return p.attrList(x.elts, tir)
	case *dictExpr:
		return p.attrDict(x, tir)
	case *callExpr:
		if k, rest := p.ns(x.fn); k == "tir" {
			if rest == "bool" && len(x.args) == 1 {
				if b, ok := x.args[0].(*boolLit); ok {
					return b.v, nil
				}
			}
			v, err := p.tirConst(x)
			if err != nil {
				return nil, err
			}
			return v, nil
		}
	}
	return nil, p.errorf(e.pos(), "unsupported attribute value %s", exprText(e))
}

func (p *parser) attrList(es []expr, tir bool) ([]any, error) {
	out := make([]any, len(es))
	for i, x := range es {
		v, err := p.attrValue(x, tir)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// tirConst converts a typed literal call such as T.int64(3) to a PrimExpr.
func (p *parser) tirConst(c *callExpr) (ir.PrimExpr, error) {
	pc := &primCtx{p: p, intType: runtime.Int32, floatType: runtime.Float32, lookup: func(string) (any, bool) { return nil, false }}
	v, err := pc.conv(c)
	if err != nil {
		return nil, err
	}
	switch v.e.(type) {
	case *ir.IntImm, *ir.FloatImm:
		return v.e, nil
	}
	return nil, p.errorf(c.p, "expected a literal, found %s", exprText(c))
}

// parseDType parses a dtype string literal.
func (p *parser) parseDType(e expr) (runtime.DataType, error) {
	s, ok := e.(*strLit)
	if !ok {
		if _, ok := e.(*noneLit); ok {
			return runtime.Void, nil
		}
		// T.float32 used as a dtype.
		if k, rest := p.ns(e); k == "tir" {
			if dt, err := runtime.ParseDataType(rest); err == nil {
				return dt, nil
			}
		}
		return runtime.DataType{}, p.errorf(e.pos(), "expected a dtype string, found %s", exprText(e))
	}
	dt, err := runtime.ParseDataType(s.v)
	if err != nil {
		return runtime.DataType{}, p.errorf(e.pos(), "invalid dtype %q", s.v)
	}
	return dt, nil
}

// args maps positional and keyword arguments of a call onto parameter
// names. It reports unknown keywords and surplus positional arguments.
func (p *parser) args(c *callExpr, what string, names ...string) (map[string]expr, error) {
	out := map[string]expr{}
	if len(c.args) > len(names) {
		return nil, p.errorf(c.args[len(names)].pos(), "too many arguments to %s (at most %d)", what, len(names))
	}
	for i, a := range c.args {
		out[names[i]] = a
	}
	for _, k := range c.kw {
		if !contains(names, k.name) {
			return nil, p.errorf(k.p, "unexpected keyword argument %q to %s", k.name, what)
		}
		if _, dup := out[k.name]; dup {
			return nil, p.errorf(k.p, "argument %q of %s given twice", k.name, what)
		}
		out[k.name] = k.val
	}
	return out, nil
}

func describeFor(e expr) string {
	s := exprText(e)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return fmt.Sprintf("%q", s)
}
