package tvmscript

import "strings"

// Virtual devices. relaxgo runs every module on the CPU, so the CPU
// spellings of TVM's virtual devices are accepted and dropped: I.vdevice
// with target kind "llvm" or "c" in I.module_global_infos, a tensor's
// vdevice="llvm:0:global" annotation, and R.to_vdevice(x, "llvm") (which
// becomes x). Any other device is refused where it is named.

// cpuKinds are the TVM target kinds that run on the host CPU.
var cpuKinds = map[string]bool{"llvm": true, "c": true, "cpu": true}

// checkVDeviceString checks a vdevice annotation string, "kind[:id[:scope]]"
// (or a declared device's index into the module's vdevice list, as TVM
// prints "vdevice_index:scope").
func (p *parser) checkVDeviceString(e expr) error {
	s, ok := e.(*strLit)
	if !ok {
		if _, none := e.(*noneLit); none {
			return nil
		}
		return p.errorf(e.pos(), "vdevice must be a string such as \"llvm:0\", found %s", describeFor(e))
	}
	kind, _, _ := strings.Cut(s.v, ":")
	if cpuKinds[kind] {
		return nil
	}
	return p.errorf(e.pos(), "virtual device %q: relaxgo runs on the CPU only (llvm)", s.v)
}

// checkVDeviceDecl checks one I.vdevice(target, dev_id, memory_scope) of
// I.module_global_infos: target is a kind string or a target dict with a
// "kind" entry.
func (p *parser) checkVDeviceDecl(e expr) error {
	c, ok := p.isCall(e, "ir", "vdevice")
	if !ok {
		return p.errorf(e.pos(), "expected I.vdevice(...) in the vdevice list, found %s", describeFor(e))
	}
	if len(c.args) == 0 {
		return p.errorf(c.p, "I.vdevice needs a target")
	}
	var kind string
	switch t := c.args[0].(type) {
	case *strLit:
		// "llvm", or a target string such as "llvm -mcpu=znver3".
		if f := strings.Fields(t.v); len(f) > 0 {
			kind = f[0]
		}
	case *dictExpr:
		for i, k := range t.keys {
			if ks, ok := k.(*strLit); ok && ks.v == "kind" {
				if v, ok := t.vals[i].(*strLit); ok {
					kind = v.v
				}
			}
		}
	}
	if !cpuKinds[kind] {
		return p.errorf(c.p, "virtual device %s: relaxgo runs on the CPU only (llvm)", exprText(c))
	}
	return nil
}
