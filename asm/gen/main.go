// Command gen generates relaxgo's amd64 SIMD kernels (package asm) with avo.
//
// Run it from this directory (or `make asm` at the repository root):
//
//	go run . -out ../kernels_amd64.s -stubs ../stubs_amd64.go -pkg asm
//
// Every kernel comes in an AVX-512 (zmm, 16 lanes) and an AVX2+FMA (ymm, 8
// lanes) flavour. Apart from the SGEMM micro-kernels, the kernels perform
// exactly the float32 operations of their pure-Go twins in asm/twins.go (no
// FMA contraction), so their results are bit-identical to the twins.
package main

import (
	"fmt"
	"math"
	"math/bits"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// isa describes one vector flavour.
type isa struct {
	suffix string // function name suffix
	lanes  int    // float32 lanes per vector
	bytes  int    // bytes per vector
	avx512 bool
}

var (
	avx512 = isa{"AVX512", 16, 64, true}
	avx2   = isa{"AVX2", 8, 32, false}
	// avx512y is AVX-512 on 8-lane (YMM) vectors: opmasks and embedded
	// broadcasts at half the width (AVX512VL).
	avx512y = isa{"AVX512Y", 8, 32, true}
)

func (s isa) vec() reg.VecVirtual {
	if s.avx512 && s.bytes == 64 {
		return ZMM()
	}
	return YMM()
}

// Constant operands. The linker aligns a read-only symbol to at most 32
// bytes, so a 64-byte table is split across two cache lines wherever the
// linker happens to put it at an odd 32 bytes: every AVX-512 read of it is
// then a split load. That made kernels' speed depend on where unrelated code
// landed (the chain kernel 34% slower after a kernel was added elsewhere).
// So AVX-512 reads a 4-byte constant with an embedded broadcast, and AVX2 a
// 32-byte table (one aligned line).
var (
	consts4  = map[uint32]Mem{}
	consts32 = map[uint32]Mem{}
)

// c4 is the 4-byte read-only constant bits.
func c4(bits uint32) Mem {
	if m, ok := consts4[bits]; ok {
		return m
	}
	m := GLOBL(fmt.Sprintf("c4_%08x", bits), RODATA|NOPTR)
	DATA(0, U32(bits))
	consts4[bits] = m
	return m
}

// c32 is the 32-byte read-only table holding bits eight times.
func c32(bits uint32) Mem {
	if m, ok := consts32[bits]; ok {
		return m
	}
	m := GLOBL(fmt.Sprintf("c32_%08x", bits), RODATA|NOPTR)
	for i := 0; i < 8; i++ {
		DATA(4*i, U32(bits))
	}
	consts32[bits] = m
	return m
}

// kinst is an instruction taking a constant memory operand: its plain form
// (AVX2, the 32-byte table) and its embedded-broadcast form (AVX-512, the
// 4-byte constant).
type kinst struct{ plain, bcst func(...Op) }

var (
	kADDPS     = kinst{VADDPS, VADDPS_BCST}
	kMULPS     = kinst{VMULPS, VMULPS_BCST}
	kANDPS     = kinst{VANDPS, VANDPS_BCST}
	kXORPS     = kinst{VXORPS, VXORPS_BCST}
	kPADDD     = kinst{VPADDD, VPADDD_BCST}
	kCMPPS     = kinst{VCMPPS, VCMPPS_BCST}
	kPTERNLOGD = kinst{VPTERNLOGD, VPTERNLOGD_BCST}
	// The fused multiply-adds, the constant the first operand:
	// kFMADD213 c = b*c + k, kFMADD231 and kFNMADD231 c = ±(k*b) + c.
	kFMADD213  = kinst{VFMADD213PS, VFMADD213PS_BCST}
	kFMADD231  = kinst{VFMADD231PS, VFMADD231PS_BCST}
	kFNMADD231 = kinst{VFNMADD231PS, VFNMADD231PS_BCST}
)

// k emits the instruction at level s with the constant bits as its memory
// operand, which goes first, or after an immediate (VCMPPS, VPTERNLOGD).
func (i kinst) k(s isa, bits uint32, ops ...Op) {
	m, f := c32(bits), i.plain
	if s.avx512 {
		m, f = c4(bits), i.bcst
	}
	at := 0
	if len(ops) > 0 {
		if _, imm := ops[0].(U8); imm {
			at = 1
		}
	}
	all := append(append(append([]Op{}, ops[:at]...), m), ops[at:]...)
	f(all...)
}

// kf is k with a float32 constant.
func (i kinst) kf(s isa, v float32, ops ...Op) { i.k(s, math.Float32bits(v), ops...) }

// loadK broadcasts the float32 constant v into every lane of dst.
func loadK(v float32, dst reg.VecVirtual) { VBROADCASTSS(c4(math.Float32bits(v)), dst) }

// text starts a NOSPLIT kernel. Every kernel is marked //go:noescape: none
// retains its pointer arguments, so callers' stack buffers (reduction
// accumulators, GEMM edge tiles, scratch chunks) stay on the stack.
func text(name, signature string) {
	TEXT(name, NOSPLIT, signature)
	Pragma("noescape")
}

func main() {
	ConstraintExpr("!noasm")
	for _, s := range []isa{avx512, avx2} {
		binaryKernels(s)
		scalarKernels(s)
		maddScalarKernels(s)
		tapSumKernels(s)
		tapMaxKernels(s)
		chainKernels(s)
		chainRowsKernels(s)
		dwPlanarKernels(s)
		if s.avx512 {
			dwPlanarRowsKernels(s)
		} else {
			dwPlanarRowsAVX2Kernels(s)
		}
		scaleMulAddKernels(s)
		winogradKernels(s)
		winograd6Kernels(s)
		unaryKernels(s)
		reductionKernels(s)
		maxRowKernels(s)
		maxPool2Kernels(s)
		maxPool2CheckedKernel(s)
		avgPool2Kernels(s)
		maxPool3Kernels(s)
		maxPool3S1Kernel(s)
		avgPool3S1Kernel(s)
		tapSumChainKernels(s)
		dwNCKernels(s)
		dwNC3x3Kernels(s)
		chainColsKernels(s)
	}
	for _, s := range []isa{avx512, avx512y, avx2} {
		softmaxSmallKernels(s)
	}
	for _, s := range []isa{avx512, avx2} {
		copyRowsKernels(s)
		sgemmNarrowKernels(s)
		epilogueRowsKernels(s)
	}
	interleave2AVX2()
	softmaxRowsKernels(avx512)
	softmaxRowsKernels(avx2)
	dot8AVX2()
	sum8RowsAVX2()
	combine64AVX2()
	deinterleave2RowsAVX2()
	deinterleave2RowsAVX512()
	layerNormShortAVX2()
	packAAVX2(8)
	packAAVX2(4)
	transposeAVX2()
	transposeAVX512()
	for _, k := range append(withRowA(withEpi(withWarm(gemmKernels))), avx2RowKernels()...) {
		k.emit()
	}
	for _, t := range directTiles {
		sgemmDirectAVX2(t[0], t[1], false)
		if t[0] > 1 {
			sgemmDirectAVX2(t[0], t[1], true)
		}
	}
	Generate()
	alignOutput()
}

// loop emits a loop over n elements (n a multiple of s.lanes), calling body
// with unroll vectors at byte offsets off*bytes from the current pointers,
// first unroll-wide, then one vector at a time. ptrs are advanced.
func loop(s isa, name string, n reg.GPVirtual, ptrs []reg.GPVirtual, unroll int, body func(off int)) {
	loopN(s, name, n, ptrs, unroll, func(us []int) {
		for _, u := range us {
			body(u)
		}
	})
}

// loopN is loop with a body that emits all of an iteration's unrolled
// vectors at once (offsets us), so that it can interleave them.
func loopN(s isa, name string, n reg.GPVirtual, ptrs []reg.GPVirtual, unroll int, body func(us []int)) {
	big := unroll * s.lanes
	Label(name + "_big")
	CMPQ(n, U32(big))
	JL(LabelRef(name + "_one"))
	us := make([]int, unroll)
	for u := range us {
		us[u] = u
	}
	body(us)
	for _, p := range ptrs {
		ADDQ(U32(unroll*s.bytes), p)
	}
	SUBQ(U32(big), n)
	JMP(LabelRef(name + "_big"))
	Label(name + "_one")
	CMPQ(n, U32(0))
	JE(LabelRef(name + "_done"))
	body([]int{0})
	for _, p := range ptrs {
		ADDQ(U32(s.bytes), p)
	}
	SUBQ(U32(s.lanes), n)
	JMP(LabelRef(name + "_one"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

func mem(p reg.GPVirtual, off int) Mem { return Mem{Base: p, Disp: off} }

var binOps = []struct {
	name string
	doc  string
	emit func(y, x, dst Op) // dst = x op y (Go operand order)
}{
	{"add", "x[i] + y[i]", func(y, x, d Op) { VADDPS(y, x, d) }},
	{"sub", "x[i] - y[i]", func(y, x, d Op) { VSUBPS(y, x, d) }},
	{"mul", "x[i] * y[i]", func(y, x, d Op) { VMULPS(y, x, d) }},
	{"div", "x[i] / y[i]", func(y, x, d Op) { VDIVPS(y, x, d) }},
}

// emitGoMin sets out = min(a, b) lane-wise with Go's float semantics, by the
// sequence the Go compiler emits for min on amd64 (so the twins' min gives
// the same bits): m1 = a < b ? a : b (b when either is NaN), m2 = m1 < a ?
// m1 : a, out = m1 | m2 (a NaN wins, -0 beats +0).
func emitGoMin(s isa, a, b, out reg.Register) {
	m1 := s.vec()
	VMINPS(b, a, m1)
	m2 := s.vec()
	VMINPS(a, m1, m2)
	VORPS(m1, m2, out)
}

// emitGoMax sets out = max(a, b) lane-wise with Go's float semantics: the Go
// compiler's sequence, min of the negated operands, negated (a NaN wins, +0
// beats -0). At AVX-512 the negations fold away: the two VMINPS on negated
// operands are two VMAXPS (m1 = a > b ? a : b, b on a NaN; m2 = m1 > a ? m1
// : a, a on a NaN), and the negated OR of the negations is one VPTERNLOGD
// (sign bit: m1 AND m2; the other bits: m1 OR m2) into out: three
// operations instead of six, the same bits (the max kernels', chains' and
// tap-max tests compare NaN payloads and signed zeros with the twins).
func emitGoMax(s isa, a, b, out reg.Register) {
	if s.avx512 {
		m1 := s.vec()
		VMAXPS(b, a, m1)
		VMAXPS(a, m1, out) // m2, in out (a is read first)
		// out = sign bit ? m1&m2 : m1|m2 (truth table over (m2, m1, sign)
		// = 0xD4, symmetric in m1 and m2)
		kPTERNLOGD.k(s, 0x80000000, U8(0xD4), m1, out)
		return
	}
	na, nb := s.vec(), s.vec()
	kXORPS.k(s, 0x80000000, a, na)
	kXORPS.k(s, 0x80000000, b, nb)
	r := s.vec()
	emitGoMin(s, na, nb, r)
	kXORPS.k(s, 0x80000000, r, out)
}

// emitMaxNaN sets out = b if b is NaN, else max(a, b) with Go's semantics:
// the running maximum of max pooling, where a NaN tap replaces whatever came
// before it bit for bit (kernels' maxNaN). Go's max (emitGoMax), then the NaN
// tap by blend (AVX2) or mask (AVX-512): five operations at AVX-512.
func emitMaxNaN(s isa, a, b, out reg.VecVirtual) {
	r := s.vec()
	emitGoMax(s, a, b, r)
	if !s.avx512 {
		m := s.vec()
		VCMPPS(U8(3), b, b, m)
		VBLENDVPS(m, b, r, out) // out = m ? b : r
		return
	}
	k := K()
	VCMPPS(U8(3), b, b, k) // unordered: b is NaN
	VMOVAPS(b, k, r)
	VMOVAPS(r, out)
}

// minMaxOps are the binary max/min kernels (Go's semantics); their scalar
// forms are in scalarOps.
var minMaxOps = []struct {
	name string
	emit func(s isa, a, b, out reg.Register)
}{
	{"max", emitGoMax},
	{"min", emitGoMin},
}

func binaryKernels(s isa) {
	for _, o := range minMaxOps {
		name := o.name + "F32" + s.suffix
		text(name, "func(dst, x, y *float32, n int)")
		Doc(fmt.Sprintf("%s computes dst[i] = %s(x[i], y[i]) (Go's %s: NaNs and signed zeros as the twin) for i < n; n is a multiple of %d.", name, o.name, o.name, s.lanes))
		dst := Load(Param("dst"), GP64()).(reg.GPVirtual)
		x := Load(Param("x"), GP64()).(reg.GPVirtual)
		y := Load(Param("y"), GP64()).(reg.GPVirtual)
		n := Load(Param("n"), GP64()).(reg.GPVirtual)
		loop(s, name, n, []reg.GPVirtual{dst, x, y}, 2, func(u int) {
			v, w := s.vec(), s.vec()
			VMOVUPS(mem(x, u*s.bytes), v)
			VMOVUPS(mem(y, u*s.bytes), w)
			r := s.vec()
			o.emit(s, v, w, r)
			VMOVUPS(r, mem(dst, u*s.bytes))
		})
	}
	for _, o := range binOps {
		name := o.name + "F32" + s.suffix
		text(name, "func(dst, x, y *float32, n int)")
		Doc(fmt.Sprintf("%s computes dst[i] = %s for i < n; n is a multiple of %d.", name, o.doc, s.lanes))
		dst := Load(Param("dst"), GP64()).(reg.GPVirtual)
		x := Load(Param("x"), GP64()).(reg.GPVirtual)
		y := Load(Param("y"), GP64()).(reg.GPVirtual)
		n := Load(Param("n"), GP64()).(reg.GPVirtual)
		loop(s, name, n, []reg.GPVirtual{dst, x, y}, 4, func(u int) {
			v := s.vec()
			VMOVUPS(mem(x, u*s.bytes), v)
			o.emit(mem(y, u*s.bytes), v, v)
			VMOVUPS(v, mem(dst, u*s.bytes))
		})
	}
}

var scalarOps = []struct {
	name string
	doc  string
	emit func(s isa, sv, xv reg.VecVirtual) // xv = xv op sv
}{
	{"addScalar", "x[i] + s", func(_ isa, sv, xv reg.VecVirtual) { VADDPS(sv, xv, xv) }},
	{"subScalar", "x[i] - s", func(_ isa, sv, xv reg.VecVirtual) { VSUBPS(sv, xv, xv) }},
	{"rsubScalar", "s - x[i]", func(_ isa, sv, xv reg.VecVirtual) { VSUBPS(xv, sv, xv) }},
	{"mulScalar", "x[i] * s", func(_ isa, sv, xv reg.VecVirtual) { VMULPS(sv, xv, xv) }},
	{"divScalar", "x[i] / s", func(_ isa, sv, xv reg.VecVirtual) { VDIVPS(sv, xv, xv) }},
	{"rdivScalar", "s / x[i]", func(_ isa, sv, xv reg.VecVirtual) { VDIVPS(xv, sv, xv) }},
	{"maxScalar", "max(x[i], s) (Go's max)", func(s isa, sv, xv reg.VecVirtual) { emitGoMax(s, xv, sv, xv) }},
	{"minScalar", "min(x[i], s) (Go's min)", func(s isa, sv, xv reg.VecVirtual) { emitGoMin(s, xv, sv, xv) }},
	{"leakyRelu", "x[i] if x[i] > 0, else x[i] * s (NaN: x[i] * s)", func(s isa, sv, xv reg.VecVirtual) {
		t, z := s.vec(), s.vec()
		VMULPS(sv, xv, t)
		VXORPS(z, z, z)
		if s.avx512 {
			k := K()
			VCMPPS(U8(0x1e), z, xv, k) // x > 0 (ordered)
			VMOVAPS(xv, k, t)
			VMOVAPS(t, xv)
			return
		}
		m := s.vec()
		VCMPPS(U8(0x1e), z, xv, m) // x > 0 (ordered)
		VBLENDVPS(m, xv, t, xv)    // x = m ? x : x*s
	}},
}

// chainOps are the steps of scalarChainF32, in the order of asm's Chain*
// codes: each is the scalar kernel's (or relu's) own instruction sequence,
// so a chain gives the bits of the separate kernels run one after another;
// the last, ChainMaxZero, is Go's max(x, +0) in two instructions.
var chainOps = []chainOp{
	func(_ isa, sv, xv reg.Register) { VADDPS(sv, xv, xv) },
	func(_ isa, sv, xv reg.Register) { VSUBPS(sv, xv, xv) },
	func(_ isa, sv, xv reg.Register) { VSUBPS(xv, sv, xv) },
	func(_ isa, sv, xv reg.Register) { VMULPS(sv, xv, xv) },
	func(_ isa, sv, xv reg.Register) { VDIVPS(sv, xv, xv) },
	func(_ isa, sv, xv reg.Register) { VDIVPS(xv, sv, xv) },
	func(s isa, sv, xv reg.Register) { emitGoMax(s, xv, sv, xv) },
	func(s isa, sv, xv reg.Register) { emitGoMin(s, xv, sv, xv) },
	func(s isa, _, xv reg.Register) {
		z := s.vec()
		VXORPS(z, z, z)
		VMAXPS(xv, z, xv) // 0 > x ? 0 : x
	},
	func(s isa, _, xv reg.Register) { // ChainMaxZero: |0 > x ? 0 : x|, Go's max(x, +0)
		z := s.vec()
		VXORPS(z, z, z)
		VMAXPS(xv, z, xv)
		kANDPS.k(s, 0x7fffffff, xv, xv)
	},
}

// chainKernels emits dst[i] = f_k(...f_1(src[i])), step t being chainOps[codes[t]]
// with the scalar s[t]: a chain of per-channel operations (batch norm, then
// ReLU6) in one pass. Blocks of 8 vectors stay in registers through every
// step (one dispatch per step per block), then single vectors.
func chainKernels(s isa) {
	name := "scalarChainF32" + s.suffix
	text(name, "func(dst, src *float32, codes *uint8, sc *float32, nsteps, n int)")
	Doc(fmt.Sprintf("%s computes dst[i] = the chain of steps codes[t] with scalars sc[t] applied to src[i], t < nsteps, for i < n; n is a multiple of %d and every code is below %d.", name, s.lanes, len(chainOps)))
	p := loadParams("dst", "src", "codes", "sc", "nsteps", "n")
	dst, src, codes, sc, nt, n := p[0], p[1], p[2], p[3], p[4], p[5]
	big := 8
	if s.avx512 {
		big = 16 // half the dispatches; 16 data vectors fit the 32 registers
	}
	vecBlocks(s, name, n, []reg.GPVirtual{src, dst}, big, func(u int, lbl string) {
		chainBody(s, u, lbl, dst, src, codes, sc, nt)
	})
}

// chainBody emits the chain on u vectors from src to dst: loaded, put
// through every step (chainSteps), stored. lbl prefixes its labels.
func chainBody(s isa, u int, lbl string, dst, src, codes, sc reg.GPVirtual, nt Op) {
	vs := make([]reg.VecVirtual, u)
	for i := range vs {
		vs[i] = s.vec()
		VMOVUPS(mem(src, i*s.bytes), vs[i])
	}
	chainSteps(s, lbl, vs, codes, sc, nt, false)
	for i := range vs {
		VMOVUPS(vs[i], mem(dst, i*s.bytes))
	}
}

// chainSteps emits the chain's steps t < nt on the vectors vs in place, one
// dispatch on the step's code (codes[t], scalar sc[t]) per step; with
// perLane, step t's operand is the vector at sc+t*s.bytes (one operand per
// lane) instead of sc[t] broadcast. lbl prefixes its labels.
func chainSteps(s isa, lbl string, vs []reg.VecVirtual, codes, sc reg.GPVirtual, nt Op, perLane bool) {
	sv := s.vec()
	chainLoop(lbl, codes, nt, func(t reg.GPVirtual) {
		if perLane {
			o := GP64()
			MOVQ(t, o)
			SHLQ(U8(bits.TrailingZeros(uint(s.bytes))), o)
			VMOVUPS(Mem{Base: sc, Index: o, Scale: 1}, sv)
		} else {
			VBROADCASTSS(Mem{Base: sc, Index: t, Scale: 4}, sv)
		}
	}, func(emit chainOp) {
		for i := range vs {
			emit(s, sv, vs[i])
		}
	}, func() {})
}

// chainOp is one of chainOps: xv = xv op sv.
type chainOp = func(s isa, sv, xv reg.Register)

// chainLoop emits the loop over a chain's steps t < nt: step t's code
// codes[t], then pre(t) (nil: nothing), one jump to the code's block, which
// op emits with the code's chainOps entry, then post and the next step.
// The loop ends at the label lbl+"_store". lbl prefixes its labels.
func chainLoop(lbl string, codes reg.GPVirtual, nt Op, pre func(t reg.GPVirtual), op func(emit chainOp), post func()) {
	t := GP64()
	XORQ(t, t)
	Label(lbl + "_step")
	CMPQ(t, nt)
	JGE(LabelRef(lbl + "_store"))
	code := GP64()
	MOVBQZX(Mem{Base: codes, Index: t, Scale: 1}, code)
	if pre != nil {
		pre(t)
	}
	for k := range chainOps {
		CMPQ(code, U32(k))
		JE(LabelRef(fmt.Sprintf("%s_op%d", lbl, k)))
	}
	JMP(LabelRef(lbl + "_next"))
	for k, emit := range chainOps {
		Label(fmt.Sprintf("%s_op%d", lbl, k))
		op(emit)
		JMP(LabelRef(lbl + "_next"))
	}
	Label(lbl + "_next")
	post()
	INCQ(t)
	JMP(LabelRef(lbl + "_step"))
	Label(lbl + "_store")
}

// winoInParams loads the Winograd input transforms' parameters (v,
// vstride, p, psub, wq, n), the strides scaled to bytes.
func winoInParams() (v, vs, p, psub, wq, n reg.GPVirtual) {
	r := loadParams("v", "vstride", "p", "psub", "wq", "n")
	for _, x := range []reg.GPVirtual{r[1], r[3], r[4]} {
		SHLQ(U8(2), x)
	}
	return r[0], r[1], r[2], r[3], r[4], r[5]
}

// winoOutParams loads the Winograd output transforms' parameters (y,
// ystride, m, mstride, n), the strides scaled to bytes.
func winoOutParams() (y, ys, mp, ms, n reg.GPVirtual) {
	r := loadParams("y", "ystride", "m", "mstride", "n")
	SHLQ(U8(2), r[1])
	SHLQ(U8(2), r[3])
	return r[0], r[1], r[2], r[3], r[4]
}

// loadParams loads the named integer or pointer parameters into registers,
// in order.
func loadParams(names ...string) []reg.GPVirtual {
	rs := make([]reg.GPVirtual, len(names))
	for i, name := range names {
		rs[i] = Load(Param(name), GP64()).(reg.GPVirtual)
	}
	return rs
}

// paramAddr is the memory operand of the current function's parameter
// name, for arguments read where they are used.
func paramAddr(name string) Mem {
	b, err := Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// rowLoop emits the loop of the row kernels over rows rows of n outputs
// (n at least one vector), the source scale times as wide as the output:
// each row in blocks of big, big/2 ... 1 vectors, body(u, lbl, ptrs)
// handling u vectors at the row's current pointers (ptrs[0] the output,
// the others read scale times as far), which then advance; then, when n is
// not a whole number of vectors, the vector ending at n, which recomputes
// outputs from the source (so the source must not overlap the output);
// then next advances the row pointers to the next row.
func rowLoop(s isa, name string, rows reg.GPVirtual, n Op, rowPtrs []reg.GPVirtual, big, scale int, body func(u int, lbl string, ptrs []reg.GPVirtual), next func()) {
	Label(name + "_row")
	CMPQ(rows, Imm(0))
	JLE(LabelRef(name + "_done"))
	ptrs := make([]reg.GPVirtual, len(rowPtrs))
	for i, r := range rowPtrs {
		ptrs[i] = GP64()
		MOVQ(r, ptrs[i])
	}
	k := GP64()
	MOVQ(n, k)
	// factor is how far pointer i moves per output element.
	factor := func(i int) int {
		if i == 0 {
			return 1
		}
		return scale
	}
	for u := big; u >= 1; u /= 2 {
		lbl := fmt.Sprintf("%s_u%d", name, u)
		nextLbl := fmt.Sprintf("%s_u%d", name, u/2)
		if u == 1 {
			nextLbl = name + "_tail"
		}
		Label(lbl)
		CMPQ(k, U32(u*s.lanes))
		JL(LabelRef(nextLbl))
		body(u, lbl, ptrs)
		for i, p := range ptrs {
			ADDQ(U32(factor(i)*u*s.bytes), p)
		}
		SUBQ(U32(u*s.lanes), k)
		JMP(LabelRef(lbl))
	}
	Label(name + "_tail")
	TESTQ(k, k)
	JZ(LabelRef(name + "_next"))
	// The vector ending at n: back off by lanes-k outputs.
	NEGQ(k)
	ADDQ(U32(s.lanes), k)
	SHLQ(U8(2), k)
	for i, p := range ptrs {
		for range factor(i) {
			SUBQ(k, p)
		}
	}
	body(1, name+"_t", ptrs)
	Label(name + "_next")
	next()
	DECQ(rows)
	JMP(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// chainRowsKernels emits the chain on rows rows of n elements (n at least
// one vector), rows dstStride and srcStride bytes apart, in rowLoop's
// blocks of 4, 2 and 1 vectors and the vector ending at n (dst and src
// must not overlap).
func chainRowsKernels(s isa) {
	name := "scalarChainRowsF32" + s.suffix
	text(name, "func(dst *float32, dstStride int, src *float32, srcStride int, rows, n int, codes *uint8, sc *float32, nsteps, scStride int)")
	Doc(fmt.Sprintf("%s computes, for r < rows, the chain of steps codes[t] with scalars sc[t] (t < nsteps; sc advancing scStride bytes a row) on the n elements at src+r*srcStride bytes into dst+r*dstStride bytes; n >= %d, every code is below %d, and dst and src do not overlap.", name, s.lanes, len(chainOps)))
	p := loadParams("dst", "src", "rows", "n", "codes", "sc")
	dst, src, rows, n, codes, sc := p[0], p[1], p[2], p[3], p[4], p[5]
	nt := paramAddr("nsteps")
	rowLoop(s, name, rows, n, []reg.GPVirtual{dst, src}, 4, 1, func(u int, lbl string, p []reg.GPVirtual) {
		chainBody(s, u, lbl, p[0], p[1], codes, sc, nt)
	}, func() {
		ADDQ(paramAddr("dstStride"), dst)
		ADDQ(paramAddr("srcStride"), src)
		ADDQ(paramAddr("scStride"), sc)
	})
}

// maxPool2Kernels emits the 2x2, stride-2 max pooling of rows pairs of
// source rows (n >= one vector of outputs per row; strides in bytes, the
// source's between its rows, so an output row reads two of them): a
// vector's four taps (even and odd columns of the upper row, then of the
// lower) come from two shuffles of each row's two source vectors, which
// leave the outputs in a fixed lane order; they fold from lo in tap order
// (emitMaxNaN, TapMaxF32's step) and one permutation puts the lanes in
// order. Rows run in rowLoop (a row's last partial vector recomputes
// outputs from src; dst and src do not overlap).
func maxPool2Kernels(s isa) {
	name := "maxPool2F32" + s.suffix
	dst, src, ss, rows, n, lov := poolKernel(s, name, "elements 2k and 2k+1 of the source rows at src+2r*srcStride and src+(2r+1)*srcStride bytes")
	poolRowsLoop(s, name, dst, src, ss, rows, n, func(x reg.GPVirtual, off int) reg.VecVirtual {
		taps := pool2Taps(s, x, ss, off, nil)
		acc := s.vec()
		emitMaxNaN(s, lov, taps[0], acc)
		for _, t := range taps[1:] {
			emitMaxNaN(s, acc, t, acc)
		}
		return acc
	})
}

// pool2Taps loads the two source rows of a block of 2x2/2 windows at x+off
// bytes and x+ss+off (two vectors each) and returns the four taps, the
// upper row's even and odd columns, then the lower row's, in the even/odd
// split's lane order (see poolRowsLoop); loaded, when set, first sees the
// loaded vectors (upper row's pair, then the lower's).
func pool2Taps(s isa, x, ss reg.GPVirtual, off int, loaded func(a, b, c, e reg.VecVirtual)) [4]reg.VecVirtual {
	a, b, c, e := s.vec(), s.vec(), s.vec(), s.vec()
	VMOVUPS(mem(x, off), a)
	VMOVUPS(mem(x, off+s.bytes), b)
	VMOVUPS(Mem{Base: x, Index: ss, Scale: 1, Disp: off}, c)
	VMOVUPS(Mem{Base: x, Index: ss, Scale: 1, Disp: off + s.bytes}, e)
	if loaded != nil {
		loaded(a, b, c, e)
	}
	taps := [4]reg.VecVirtual{s.vec(), s.vec(), s.vec(), s.vec()}
	VSHUFPS(U8(0x88), b, a, taps[0]) // upper row, even columns
	VSHUFPS(U8(0xDD), b, a, taps[1]) // upper row, odd columns
	VSHUFPS(U8(0x88), e, c, taps[2])
	VSHUFPS(U8(0xDD), e, c, taps[3])
	return taps
}

// avgPool2Kernels emits the 2x2/2 average pooling of rows pairs of source
// rows in place (maxPool2Kernels' loads, shuffles, lane order and row
// walk): each output the sum from +0 of its four taps in the window's
// order (upper row's even and odd column, then the lower row's), one
// VADDPS each with the running sum as the first operand, divided by 4
// (VDIVPS): the float32 average pooling's arithmetic (avgRun,
// asm.TapSumChainF32 with unit weights and a division), bit for bit.
func avgPool2Kernels(s isa) {
	name := "avgPool2F32" + s.suffix
	text(name, "func(dst *float32, dstStride int, src *float32, srcStride int, rows, n int)")
	Doc(fmt.Sprintf("%s computes, for r < rows and k < n, element k of the output row at dst+r*dstStride bytes: the sum from +0 of elements 2k and 2k+1 of the source rows at src+2r*srcStride and src+(2r+1)*srcStride bytes, in that order, divided by 4; n >= %d and dst and src do not overlap.", name, s.lanes))
	p := loadParams("dst", "src", "srcStride", "rows", "n")
	dst, src, ss, rows, n := p[0], p[1], p[2], p[3], p[4]
	four := s.vec()
	loadK(4, four)
	poolRowsLoop(s, name, dst, src, ss, rows, n, func(x reg.GPVirtual, off int) reg.VecVirtual {
		taps := pool2Taps(s, x, ss, off, nil)
		acc := s.vec()
		VXORPS(acc, acc, acc)
		for _, t := range taps {
			VADDPS(t, acc, acc)
		}
		VDIVPS(four, acc, acc)
		return acc
	})
}

// avx2PoolCheck is the AVX2 checking pool kernels' test of their source
// for the values on which VMAXPS differs from Go's max in some order of the
// taps: an unordered comparison ORed into nan for NaNs, and the running
// unsigned minimum of the values with their sign flipped, zero only after a
// negative zero, in zmin.
type avx2PoolCheck struct{ sign, nan, zmin reg.VecVirtual }

// newAVX2PoolCheck sets up the check's registers.
func newAVX2PoolCheck(s isa) avx2PoolCheck {
	c := avx2PoolCheck{s.vec(), s.vec(), s.vec()}
	loadK(float32(math.Copysign(0, -1)), c.sign) // the sign bit
	VXORPS(c.nan, c.nan, c.nan)
	VPCMPEQD(c.zmin, c.zmin, c.zmin) // all ones: the largest unsigned value
	return c
}

// values checks the vectors a and b.
func (c avx2PoolCheck) values(s isa, a, b reg.VecVirtual) {
	t := s.vec()
	VCMPPS(U8(3), b, a, t) // unordered: a NaN in a or b
	VORPS(t, c.nan, c.nan)
	VPXOR(c.sign, a, t)
	VPMINUD(t, c.zmin, c.zmin)
	VPXOR(c.sign, b, t)
	VPMINUD(t, c.zmin, c.zmin)
}

// store stores to the *uint32 parameter flag whether the check met a NaN
// or a negative zero.
func (c avx2PoolCheck) store(s isa, flag string) {
	z := s.vec()
	VPXOR(z, z, z)
	VPCMPEQD(z, c.zmin, z) // lanes whose minimum is 0: a -0 met
	VORPS(c.nan, z, z)
	m := GP32()
	VMOVMSKPS(z, m)
	storeFlag(flag, m)
}

// maxPool2CheckedKernel emits the 2x2/2 max pooling of maxPool2Kernels
// with one instruction a tap whose maximum is Go's on the values it meets
// (VRANGEPS at AVX-512 where no NaN is among them, maxPool3RangeKernel's;
// VMAXPS at AVX2 where no NaN and no negative zero is, as
// maxPool3CheckedKernel), so that the taps' order does not matter. It
// checks the two source vectors of each row it loads (every element of
// the rows once) and sets *bad to 1 when it met such a value, for the
// caller to pool again with the exact kernel; the flag is stored after
// each row, the checks accumulating over all of them.
func maxPool2CheckedKernel(s isa) {
	name := "maxPool2CheckedF32" + s.suffix
	how := "by VRANGEPS; it sets *bad to 1 when the source holds a NaN"
	if !s.avx512 {
		how = "by VMAXPS; it sets *bad to 1 when the source holds a NaN or a negative zero"
	}
	text(name, "func(dst *float32, dstStride int, src *float32, srcStride int, rows, n int, lo float32, bad *uint32)")
	Doc(fmt.Sprintf("%s computes, for r < rows and k < n, element k of the output row at dst+r*dstStride bytes: the maximum of lo and elements 2k and 2k+1 of the source rows at src+2r*srcStride and src+(2r+1)*srcStride bytes, %s, else 0; n >= %d and dst and src do not overlap.", name, how, s.lanes))
	p := loadParams("dst", "src", "srcStride", "rows", "n")
	dst, src, ss, rows, n := p[0], p[1], p[2], p[3], p[4]
	lov := s.vec()
	VBROADCASTSS(paramAddr("lo"), lov)
	const rangeMax = 0x05
	var kn reg.OpmaskVirtual
	var chk avx2PoolCheck
	if s.avx512 {
		kn = K()
		KXORW(kn, kn, kn)
	} else {
		chk = newAVX2PoolCheck(s)
	}
	vmax := func(a, b, out reg.VecVirtual) {
		if s.avx512 {
			VRANGEPS(U8(rangeMax), a, b, out)
		} else {
			VMAXPS(a, b, out)
		}
	}
	// check notes a NaN (and at AVX2 a negative zero) in a or b.
	check := func(a, b reg.VecVirtual) {
		if s.avx512 {
			kt := K()
			VCMPPS(U8(3), b, a, kt) // unordered: a NaN in a or b
			KORW(kt, kn, kn)
			return
		}
		chk.values(s, a, b)
	}
	poolRowsLoopAfter(s, name, dst, src, ss, rows, n, func(x reg.GPVirtual, off int) reg.VecVirtual {
		taps := pool2Taps(s, x, ss, off, func(a, b, c, e reg.VecVirtual) {
			check(a, b)
			check(c, e)
		})
		acc, acc2 := s.vec(), s.vec()
		vmax(taps[0], taps[1], acc)
		vmax(taps[2], taps[3], acc2)
		vmax(acc2, acc, acc)
		vmax(lov, acc, acc)
		return acc
	}, func() {
		if !s.avx512 {
			chk.store(s, "bad")
			return
		}
		f := GP32()
		KMOVW(kn, f)
		storeFlag("bad", f)
	})
}

// poolKernel starts an in-place max pooling kernel whose output element k
// is the maximum over taps (the doc's words) in order: its signature, doc
// and parameters (dst, src, srcStride, rows, n, and lo broadcast).
func poolKernel(s isa, name, taps string) (dst, src, ss, rows, n reg.GPVirtual, lo reg.VecVirtual) {
	return poolKernelDoc(s, name, fmt.Sprintf("%s computes, for r < rows and k < n, element k of the output row at dst+r*dstStride bytes: the running maximum from lo (a NaN tap replaces it, else Go's max) of %s, in that order; n >= %d and dst and src do not overlap.", name, taps, s.lanes))
}

// poolKernelDoc is poolKernel with the kernel's doc comment doc.
func poolKernelDoc(s isa, name, doc string) (dst, src, ss, rows, n reg.GPVirtual, lo reg.VecVirtual) {
	text(name, "func(dst *float32, dstStride int, src *float32, srcStride int, rows, n int, lo float32)")
	Doc(doc)
	p := loadParams("dst", "src", "srcStride", "rows", "n")
	lo = s.vec()
	VBROADCASTSS(paramAddr("lo"), lo)
	return p[0], p[1], p[2], p[3], p[4], lo
}

// poolRowsLoop emits the row loop of the in-place pooling kernels: output
// row r reads the source from src + 2r*srcStride; for each output vector,
// window(x, off) folds the window's taps, read from x+off bytes on, into an
// accumulator whose lanes are in the order the even/odd VSHUFPS split
// leaves (64-bit pairs from the two source vectors alternating within each
// 128-bit lane: at AVX-512 pairs 0 2 4 6 are the first vector's, 1 3 5 7
// the second's); one permutation restores the order, and the vector is
// stored.
func poolRowsLoop(s isa, name string, dst, src, ss, rows, n reg.GPVirtual, window func(x reg.GPVirtual, off int) reg.VecVirtual) {
	poolRowsLoopAfter(s, name, dst, src, ss, rows, n, window, nil)
}

// poolRowsLoopAfter is poolRowsLoop with after, when set, emitted after
// each row.
func poolRowsLoopAfter(s isa, name string, dst, src, ss, rows, n reg.GPVirtual, window func(x reg.GPVirtual, off int) reg.VecVirtual, after func()) {
	var idx reg.VecVirtual
	if s.avx512 {
		idx = s.vec()
		VPMOVZXBQ(pairOrder(), idx)
	}
	rowLoop(s, name, rows, n, []reg.GPVirtual{dst, src}, 2, 2, func(u int, _ string, p []reg.GPVirtual) {
		for v := 0; v < u; v++ {
			acc := window(p[1], 2*v*s.bytes)
			if s.avx512 {
				VPERMPD(acc, idx, acc)
			} else {
				VPERMPD(U8(0xD8), acc, acc) // 64-bit pairs 0 2 1 3
			}
			VMOVUPS(acc, mem(p[0], v*s.bytes))
		}
	}, func() {
		ADDQ(paramAddr("dstStride"), dst)
		ADDQ(ss, src)
		ADDQ(ss, src)
		if after != nil {
			after()
		}
	})
}

// maxPool3Kernels emits the 3x3, stride-2 max pooling of rows output rows
// (n >= one vector of outputs per row; strides in bytes, the source rows
// of output row r at src+2r*srcStride, +srcStride and +2*srcStride) read in
// place: per source row, the even columns 2k, the odd ones 2k+1 and the
// even ones two further on (2k+2) come from two shuffles of two vectors
// each (maxPool2Kernels' even/odd split; the window's second pair of
// vectors starts two columns on and its last lane, one column past the
// window, is not loaded). The nine taps go through TapMaxF32's step in
// row-major order in the shuffled lane order, which one permutation then
// restores. Rows run in rowLoop (a row's last partial vector recomputes
// outputs from src; dst and src do not overlap).
//
// maxPool3CheckedKernel (AVX2) and maxPool3RangeKernel (AVX-512) take
// fewer operations a tap and check their source for the values on which
// they would differ from TapMaxF32; the exact kernel (maxPool3Kernel) pools
// a plane holding any.
func maxPool3Kernels(s isa) {
	maxPool3Kernel(s)
	if s.avx512 {
		maxPool3RangeKernel(s)
	} else {
		maxPool3CheckedKernel(s)
	}
}

// maxPool3CheckedKernel emits the AVX2 ordered 3x3/2 max pooling that
// checks its own source instead of a separate scan: one VMAXPS a tap,
// exact on every source with no NaN and no negative zero (every order of
// the taps and VMAXPS's choice among equal values then give Go's max). As
// it folds a source row's taps (pool3Taps' loads) it also tests the two
// vectors it loaded at columns 2k0 ... 2k0+15 (every column but the rows'
// last, 2n, which the caller checks): one unordered comparison for NaNs,
// ORed into a mask, and for negative zeros the running unsigned minimum of
// the values XORed with the sign bit (-0 alone gives 0). It sets *bad to 1
// when it met either, for the caller to pool the plane again with the
// exact kernel. Each source row's block is prefetched 16 rows ahead of the
// walk: the column walk reads a few lines of every row, which the plane of
// an earlier layer, not in cache, delivers slowly (the separate scan it
// replaces streamed the plane in first).
func maxPool3CheckedKernel(s isa) {
	name := "maxPool3CheckedF32" + s.suffix
	dst, src, ss, rows, n, lov := pool3CheckedStart(s, name, "bad", "one VMAXPS a tap; it sets *bad to 1 when a source element before column 2n is a NaN or a negative zero (pool again with the exact kernel), else to 0")
	taps3 := pool3Taps(s)
	chk := newAVX2PoolCheck(s)
	// hmax folds the three taps of the source row at x+off bytes and
	// checks its columns 2k0 ... 2k0+15.
	hmax := func(x reg.GPVirtual, off int, h reg.VecVirtual) {
		taps, a, b := taps3(func(disp int) Mem { return Mem{Base: x, Disp: off + disp} })
		chk.values(s, a, b)
		VMAXPS(taps[1], taps[0], h)
		VMAXPS(taps[2], h, h)
	}
	ahead := GP64()
	MOVQ(ss, ahead)
	SHLQ(U8(4), ahead) // 16 source rows down
	walk := pool3Walk{s: s, rows: rows, ss: ss, hmax: hmax, ahead: ahead,
		out: func(prev, h1, h2 reg.VecVirtual, at Mem) {
			acc := s.vec()
			VMAXPS(h1, prev, acc)
			VMAXPS(h2, acc, acc)
			VMAXPS(lov, acc, acc)
			VPERMPD(U8(0xD8), acc, acc) // 64-bit pairs 0 2 1 3
			VMOVUPS(acc, at)
		}}
	walk.run(name, n, dst, src, func() { chk.store(s, "bad") })
}

// pool3CheckedStart starts a 3x3/2 max pooling kernel that reports through
// a last parameter flag (*uint32) what it found in its source: its text
// and doc (how is how it pools and what the flag says), its parameters
// and lo broadcast.
func pool3CheckedStart(s isa, name, flag, how string) (dst, src, ss, rows, n reg.GPVirtual, lov reg.VecVirtual) {
	text(name, "func(dst *float32, dstStride int, src *float32, srcStride int, rows, n int, lo float32, "+flag+" *uint32)")
	Doc(fmt.Sprintf("%s computes, for r < rows and k < n, element k of the output row at dst+r*dstStride bytes: the maximum of lo and elements 2k, 2k+1 and 2k+2 of the source rows at src+(2r+i)*srcStride bytes, i = 0, 1, 2, %s; n >= %d and dst and src do not overlap.", name, how, s.lanes))
	p := loadParams("dst", "src", "srcStride", "rows", "n")
	lov = s.vec()
	VBROADCASTSS(paramAddr("lo"), lov)
	return p[0], p[1], p[2], p[3], p[4], lov
}

// storeFlag stores 1 to the *uint32 parameter flag when r is not zero,
// else 0.
func storeFlag(flag string, r reg.GPVirtual) {
	fp := Load(Param(flag), GP64())
	t := GP32()
	XORL(t, t)
	TESTL(r, r)
	SETNE(t.As8())
	MOVL(t, Mem{Base: fp})
}

// pool3Index returns the VPERMT2PS index vectors that pick a source row's
// even columns 0, 2, ... 30 and odd ones 1, 3, ... 31 from the two vectors
// holding its columns 0-15 and 16-31.
func pool3Index(s isa) (even, odd reg.VecVirtual) {
	if pool3IndexMem == nil {
		m := GLOBL("pool3Index", RODATA|NOPTR)
		for i := 0; i < 32; i++ {
			DATA(i, U8(2*(i%16)+i/16)) // bytes 0..15 even, 16..31 odd
		}
		pool3IndexMem = &m
	}
	even, odd = s.vec(), s.vec()
	VPMOVZXBD(*pool3IndexMem, even)
	VPMOVZXBD(pool3IndexMem.Offset(16), odd)
	return even, odd
}

var pool3IndexMem *Mem

// maxPool3RangeKernel emits the AVX-512 3x3/2 max pooling that needs no
// separate scan of its source: VRANGEPS's maximum (imm 0x05: the larger
// value, its sign from the comparison, -0 below +0) is Go's max on every
// pair without a NaN, so the taps in any order give TapMaxF32's bits
// unless a window holds a NaN. VRANGEPS drops a quiet NaN against a number
// (IEEE maxNum), so the kernel looks for NaNs itself: one unordered
// comparison of each source row's even and odd columns as it folds them
// (columns 2k0 ... 2k0+31 of each block, so every column but the rows'
// last, 2n, which the caller checks), setting *nan to 1 for the caller to
// pool the plane again with the exact kernel. A source row's taps come in
// natural lane order:
// two loads (columns 2k0 ... 2k0+31) and a broadcast of column 2k0+32;
// VPERMT2PS picks the even and odd columns, VALIGND shifts the even ones
// one column on with the broadcast in the last lane. The column blocks
// walk down the rows as maxPool3CheckedKernel's do (pool3Walk).
func maxPool3RangeKernel(s isa) {
	name := "maxPool3RangeF32" + s.suffix
	dst, src, ss, rows, n, lov := pool3CheckedStart(s, name, "nan", "by VRANGEPS; it sets *nan to 1 when a source element before column 2n is a NaN (pool again with the exact kernel)")
	idxE, idxO := pool3Index(s)
	const rangeMax = 0x05    // the larger value (bits 1:0), with its own sign (bits 3:2)
	var kn reg.OpmaskVirtual // the block's NaN lanes
	// hmax folds the three taps of the source row at x+off bytes.
	hmax := func(x reg.GPVirtual, off int, h reg.VecVirtual) {
		a, b, c, e, o, e2 := s.vec(), s.vec(), s.vec(), s.vec(), s.vec(), s.vec()
		kt := K()
		VMOVUPS(Mem{Base: x, Disp: off}, a)
		VMOVUPS(Mem{Base: x, Disp: off + s.bytes}, b)
		VBROADCASTSS(Mem{Base: x, Disp: off + 2*s.bytes}, c)
		VMOVAPS(a, e)
		VPERMT2PS(b, idxE, e) // columns 2k
		VMOVAPS(a, o)
		VPERMT2PS(b, idxO, o)    // columns 2k+1
		VALIGND(U8(1), e, c, e2) // columns 2k+2
		VCMPPS(U8(3), o, e, kt)  // unordered: a NaN among columns 2k0 ... 2k0+31
		KORW(kt, kn, kn)
		VRANGEPS(U8(rangeMax), o, e, h)
		VRANGEPS(U8(rangeMax), e2, h, h)
	}
	flag := GP32()
	XORL(flag, flag)
	walk := pool3Walk{s: s, rows: rows, ss: ss, hmax: hmax,
		start: func() {
			kn = K()
			KXORW(kn, kn, kn)
		},
		out: func(prev, h1, h2 reg.VecVirtual, at Mem) {
			acc := s.vec()
			VRANGEPS(U8(rangeMax), h1, prev, acc)
			VRANGEPS(U8(rangeMax), h2, acc, acc)
			VRANGEPS(U8(rangeMax), lov, acc, acc)
			VMOVUPS(acc, at)
		},
		end: func() {
			t := GP32()
			KMOVW(kn, t)
			ORL(t, flag)
		}}
	walk.run(name, n, dst, src, func() { storeFlag("nan", flag) })
}

// maxPool3S1Kernel emits the 3x3 max pooling at stride 1 with one row and
// column of -Inf padding on every side (GoogLeNet's and Inception's branch
// pools), planes planes of h x w read in place, one instruction a tap
// whose maximum is Go's where the taps hold no NaN (VRANGEPS at AVX-512,
// as maxPool3RangeKernel) and, at AVX2, no negative zero either (VMAXPS,
// as maxPool3CheckedKernel): then the taps' order does not change a bit.
// Each column block of a plane (a vector of output columns, masks from the
// table at masks: for block v, the loads of columns x-1, x and x+1, the
// middle one also the store's; at AVX-512 a uint16 each, at AVX2 a vector
// of int32 lanes) walks down the rows: a row's three taps are folded once
// and each output row takes the fold of the row above, its own and the one
// below (-Inf past the plane), then lo. The middle loads, which hold every
// element of the plane once, are checked for the values that would make
// the order matter; *bad is set to 1 when there was one, and the caller
// pools those planes again with an exact kernel.
func maxPool3S1Kernel(s isa) {
	name := "maxPool3S1F32" + s.suffix
	how, maskT := "VRANGEPS; it sets *bad to 1 when the source holds a NaN", "*uint16"
	if !s.avx512 {
		how, maskT = "VMAXPS; it sets *bad to 1 when the source holds a NaN or a negative zero", "*int32"
	}
	text(name, "func(dst, src *float32, planes, h, w, nv int, masks "+maskT+", lo float32, bad *uint32)")
	Doc(fmt.Sprintf("%s pools planes planes of h x w at dst from src (3x3 window, stride 1, padding 1, by %s) with nv column blocks of masks at masks: see maxPool3S1Kernel in asm/gen. h, w, nv, planes >= 1; dst and src do not overlap.", name, how))
	const rangeMax = 0x05
	p := loadParams("dst", "src", "planes", "masks")
	dst, src, planes, masks := p[0], p[1], p[2], p[3]
	lov, ninf := s.vec(), s.vec()
	VBROADCASTSS(paramAddr("lo"), lov)
	loadK(float32(math.Inf(-1)), ninf)
	rowB := GP64() // a row's bytes
	MOVQ(paramAddr("w"), rowB)
	SHLQ(U8(2), rowB)
	var kn reg.OpmaskVirtual
	var badv, nzero reg.VecVirtual
	if s.avx512 {
		kn = K()
		KXORW(kn, kn, kn)
	} else {
		badv, nzero = s.vec(), s.vec()
		VXORPS(badv, badv, badv)
		loadK(float32(math.Copysign(0, -1)), nzero)
	}
	m := newS1Masks(s)
	vmax := func(a, b, out reg.VecVirtual) {
		if s.avx512 {
			VRANGEPS(U8(rangeMax), a, b, out)
		} else {
			VMAXPS(a, b, out)
		}
	}
	// load loads x's columns at disp under the block's mask k (AVX-512) or
	// m (AVX2), -Inf outside it.
	load := func(x reg.GPVirtual, disp int, k reg.OpmaskVirtual, m, out reg.VecVirtual) {
		at := Mem{Base: x, Disp: disp}
		if s.avx512 {
			VMOVAPS(ninf, out)
			VMOVUPS(at, k, out)
			return
		}
		VMASKMOVPS(at, m, out)
		VBLENDVPS(m, out, ninf, out) // out = m ? out : -Inf
	}
	// hrow folds the row at x (the block's first column): columns x-1, x,
	// x+1, and checks the middle ones.
	hrow := func(x reg.GPVirtual, h reg.VecVirtual) {
		a, b, c := s.vec(), s.vec(), s.vec()
		load(x, -4, m.kl, m.ml, a)
		load(x, 0, m.kc, m.mc, b)
		load(x, 4, m.kr, m.mr, c)
		if s.avx512 {
			kt := K()
			VCMPPS(U8(3), b, b, kt) // unordered: a NaN
			KORW(kt, kn, kn)
		} else {
			t, z := s.vec(), s.vec()
			VCMPPS(U8(3), b, b, t) // unordered: a NaN
			VPCMPEQD(nzero, b, z)  // a negative zero
			VORPS(t, badv, badv)
			VORPS(z, badv, badv)
		}
		vmax(a, b, h)
		vmax(c, h, h)
	}
	Label(name + "_plane")
	// The blocks from the last: at AVX2 a row's store of the last, partial
	// block writes whole vectors into the next rows' first columns, which
	// the blocks after it write again (or, where it is the only block, the
	// walk down).
	v, mt, col := m.lastBlock(s, masks)
	Label(name + "_block")
	m.load(s, mt)
	x, y, r, end := s1Pointers(s, src, dst, col, rowB)
	prev, cur := s.vec(), s.vec()
	VMOVAPS(ninf, prev)
	hrow(x, cur)
	MOVQ(paramAddr("h"), r)
	Label(name + "_row")
	next := s.vec()
	DECQ(r)
	JZ(LabelRef(name + "_last"))
	ADDQ(rowB, x)
	hrow(x, next)
	JMP(LabelRef(name + "_out"))
	Label(name + "_last")
	VMOVAPS(ninf, next)
	Label(name + "_out")
	acc := s.vec()
	vmax(prev, cur, acc)
	vmax(next, acc, acc)
	vmax(lov, acc, acc)
	s1Store(s, name, acc, y, end, m.kc, m.mc)
	ADDQ(rowB, y)
	VMOVAPS(cur, prev)
	VMOVAPS(next, cur)
	TESTQ(r, r)
	JNZ(LabelRef(name + "_row"))
	m.nextBlock(s, v, mt, col, name+"_block")
	s1NextPlane(rowB, src, dst, planes, name+"_plane")
	f := GP32()
	if s.avx512 {
		KMOVW(kn, f)
	} else {
		VMOVMSKPS(badv, f)
	}
	storeFlag("bad", f)
	VZEROUPPER()
	RET()
}

// avgPool3S1Kernel emits the 3x3 average pooling at stride 1 with one row
// and column of padding on every side (Inception's branch pools), planes
// planes of h x w read in place: each output the sum from +0 of its taps
// inside the plane in the window's order (rows, then columns), one VADDPS
// each with the running sum as the first operand, divided (VDIVPS) by the
// divisor from the table at divs: the float32 average pooling's
// arithmetic (avgWindow, asm.TapSumChainF32 with unit weights over a
// zero-padded plane), bit for bit. Padding taps need no skipping: a
// masked load's zero lanes and a zero row add +0, which changes no sum
// that starts from +0 (such a sum is never -0). A column block (the mask
// table of maxPool3S1Kernel) walks down the rows: each source row's three
// taps are added to the sums of the output rows below, at and above it,
// the last of which is then complete and stored. The table holds four
// vectors of divisors a block: for the plane's first row, the middle
// rows, the last row and a plane of one row.
func avgPool3S1Kernel(s isa) {
	name := "avgPool3S1F32" + s.suffix
	maskT := "*uint16"
	if !s.avx512 {
		maskT = "*int32"
	}
	text(name, "func(dst, src *float32, planes, h, w, nv int, masks "+maskT+", divs *float32)")
	Doc(fmt.Sprintf("%s average-pools planes planes of h x w at dst from src (3x3 window, stride 1, padding 1; each sum from +0 in the window's order, divided by the divisor from divs) with nv column blocks of masks at masks and divisors at divs: see avgPool3S1Kernel in asm/gen. h, w, nv, planes >= 1; dst and src do not overlap.", name))
	p := loadParams("dst", "src", "planes", "masks", "divs")
	dst, src, planes, masks, divs := p[0], p[1], p[2], p[3], p[4]
	zero := s.vec()
	VXORPS(zero, zero, zero)
	rowB := GP64() // a row's bytes
	MOVQ(paramAddr("w"), rowB)
	SHLQ(U8(2), rowB)
	m := newS1Masks(s)
	// taps loads the row at x's columns x-1, x and x+1 of the block
	// (zeros outside the plane).
	taps := func(x reg.GPVirtual) [3]reg.VecVirtual {
		t := [3]reg.VecVirtual{s.vec(), s.vec(), s.vec()}
		for i, k := range []reg.OpmaskVirtual{m.kl, m.kc, m.kr} {
			at := Mem{Base: x, Disp: 4 * (i - 1)}
			if s.avx512 {
				VMOVUPS_Z(at, k, t[i])
			} else {
				VMASKMOVPS(at, []reg.VecVirtual{m.ml, m.mc, m.mr}[i], t[i])
			}
		}
		return t
	}
	add := func(t [3]reg.VecVirtual, acc reg.VecVirtual) {
		for _, v := range t {
			VADDPS(v, acc, acc)
		}
	}
	Label(name + "_plane")
	v, mt, col := m.lastBlock(s, masks)
	dt := GP64() // the block's divisors
	MOVQ(col, dt)
	SHLQ(U8(2), dt)
	ADDQ(divs, dt)
	Label(name + "_block")
	m.load(s, mt)
	x, y, r, end := s1Pointers(s, src, dst, col, rowB)
	store := func(label string, acc reg.VecVirtual, div Op) {
		q := s.vec()
		VDIVPS(div, acc, q)
		s1Store(s, label, q, y, end, m.kc, m.mc)
		ADDQ(rowB, y)
	}
	// Source row 0: the first output row's sum (its row above is
	// padding) and the second's start alike.
	prev, cur := s.vec(), s.vec()
	VMOVAPS(zero, prev)
	add(taps(x), prev)
	MOVQ(paramAddr("h"), r)
	DECQ(r)
	JZ(LabelRef(name + "_single"))
	VMOVAPS(prev, cur)
	div := s.vec() // the next store's divisors
	VMOVUPS(Mem{Base: dt}, div)
	Label(name + "_row")
	ADDQ(rowB, x)
	t := taps(x)
	add(t, prev) // the output row above this one: complete
	store(name+"_in", prev, div)
	VMOVUPS(Mem{Base: dt, Disp: s.bytes}, div) // the middle rows' from the second store on
	add(t, cur)
	next := s.vec()
	VADDPS(t[0], zero, next)
	VADDPS(t[1], next, next)
	VADDPS(t[2], next, next)
	VMOVAPS(cur, prev)
	VMOVAPS(next, cur)
	DECQ(r)
	JNZ(LabelRef(name + "_row"))
	store(name+"_end", prev, Mem{Base: dt, Disp: 2 * s.bytes}) // the last row: its row below is padding
	JMP(LabelRef(name + "_nextblock"))
	Label(name + "_single")
	store(name+"_one", prev, Mem{Base: dt, Disp: 3 * s.bytes})
	Label(name + "_nextblock")
	SUBQ(U32(4*s.bytes), dt)
	m.nextBlock(s, v, mt, col, name+"_block")
	s1NextPlane(rowB, src, dst, planes, name+"_plane")
	VZEROUPPER()
	RET()
}

// s1Masks is a 3x3/1 pooling kernel's column block masks: the loads of
// columns x-1, x and x+1, the middle one also the store's (opmasks at
// AVX-512, vectors of int32 lanes at AVX2), entry bytes a block in the
// table (asm's s1Masks512 and s1Masks256 fill it).
type s1Masks struct {
	kl, kc, kr reg.OpmaskVirtual
	ml, mc, mr reg.VecVirtual
	entry      int
}

// newS1Masks allocates the masks' registers.
func newS1Masks(s isa) s1Masks {
	if s.avx512 {
		return s1Masks{kl: K(), kc: K(), kr: K(), entry: 6}
	}
	return s1Masks{ml: s.vec(), mc: s.vec(), mr: s.vec(), entry: 3 * s.bytes}
}

// lastBlock sets v to the last column block (the blocks are walked from
// the last), mt to its entry in the table at masks and col to its first
// column's byte offset.
func (m s1Masks) lastBlock(s isa, masks reg.GPVirtual) (v, mt, col reg.GPVirtual) {
	v, mt, col = GP64(), GP64(), GP64()
	MOVQ(paramAddr("nv"), v)
	DECQ(v)
	IMUL3Q(U32(m.entry), v, mt)
	ADDQ(masks, mt)
	MOVQ(v, col)
	SHLQ(U8(bits.TrailingZeros(uint(s.bytes))), col)
	return v, mt, col
}

// load loads the masks of the block whose table entry is at mt.
func (m s1Masks) load(s isa, mt reg.GPVirtual) {
	if s.avx512 {
		KMOVW(Mem{Base: mt}, m.kl)
		KMOVW(Mem{Base: mt, Disp: 2}, m.kc)
		KMOVW(Mem{Base: mt, Disp: 4}, m.kr)
		return
	}
	VMOVDQU(Mem{Base: mt}, m.ml)
	VMOVDQU(Mem{Base: mt, Disp: s.bytes}, m.mc)
	VMOVDQU(Mem{Base: mt, Disp: 2 * s.bytes}, m.mr)
}

// nextBlock steps v, mt and col to the block before and jumps to block
// while there is one.
func (m s1Masks) nextBlock(s isa, v, mt, col reg.GPVirtual, block string) {
	SUBQ(U8(m.entry), mt)
	SUBQ(U8(s.bytes), col)
	DECQ(v)
	JGE(LabelRef(block))
}

// s1NextPlane moves src and dst a plane (h rows of rowB bytes) on and
// jumps to plane while planes, counted down, is not 0.
func s1NextPlane(rowB, src, dst, planes reg.GPVirtual, plane string) {
	t := GP64()
	MOVQ(paramAddr("h"), t)
	IMULQ(rowB, t)
	ADDQ(t, src)
	ADDQ(t, dst)
	DECQ(planes)
	JNZ(LabelRef(plane))
}

// s1Pointers returns a column block's source and output pointers (the
// plane's first row at byte offset col), a register r for the row count
// and, at AVX2, the plane's end in dst (h rows of rowB bytes; s1Store's).
func s1Pointers(s isa, src, dst, col, rowB reg.GPVirtual) (x, y, r, end reg.GPVirtual) {
	x, y, r = GP64(), GP64(), GP64()
	MOVQ(src, x)
	ADDQ(col, x)
	MOVQ(dst, y)
	ADDQ(col, y)
	if !s.avx512 {
		end = GP64()
		MOVQ(paramAddr("h"), end)
		IMULQ(rowB, end)
		ADDQ(dst, end)
	}
	return x, y, r, end
}

// s1Store stores the output vector acc of a 3x3/1 pooling kernel's column
// block at y under the block's store mask (kc at AVX-512, mc at AVX2).
// At AVX2 a vector that ends inside the plane (end: the plane's end in
// dst) is stored whole (VMASKMOVPS's store is slow on AMD's cores): lanes
// past a partial block's row land in later rows, which the walk down and
// the blocks after this one (the blocks go from the last) write again.
// label names the store's jump targets (unique in the kernel).
func s1Store(s isa, label string, acc reg.VecVirtual, y, end reg.GPVirtual, kc reg.OpmaskVirtual, mc reg.VecVirtual) {
	if s.avx512 {
		VMOVUPS(acc, kc, Mem{Base: y})
		return
	}
	t := GP64()
	MOVQ(y, t)
	ADDQ(U8(s.bytes), t)
	CMPQ(t, end)
	JA(LabelRef(label + "_mstore"))
	VMOVUPS(acc, Mem{Base: y})
	JMP(LabelRef(label + "_stored"))
	Label(label + "_mstore")
	VMASKMOVPS(acc, mc, Mem{Base: y})
	Label(label + "_stored")
}

// pool3Taps returns a 3x3/2 pooling kernel's window taps of one source row:
// given the row's memory operand at a displacement, the even columns 2k,
// the odd ones 2k+1 and the even ones two further on, in the even/odd
// split's lane order (see poolRowsLoop), and the two vectors of columns
// 2k0 ... loaded for them (a self-checking kernel tests those). The second
// pair's last lane, one column past the window, is not loaded.
func pool3Taps(s isa) func(at func(disp int) Mem) (taps [3]reg.VecVirtual, a, b reg.VecVirtual) {
	var lastOut reg.VecVirtual
	var kLast reg.OpmaskVirtual
	if s.avx512 {
		kLast = K()
		m := GP32()
		MOVL(U32(0x7fff), m)
		KMOVW(m, kLast)
	} else {
		lastOut = lanesBelow(U32(7)) // lanes 0-6: the last is one column past the window
	}
	return func(at func(disp int) Mem) ([3]reg.VecVirtual, reg.VecVirtual, reg.VecVirtual) {
		a, b, c, e := s.vec(), s.vec(), s.vec(), s.vec()
		VMOVUPS(at(0), a)
		VMOVUPS(at(s.bytes), b)
		VMOVUPS(at(8), c)
		if s.avx512 {
			VMOVUPS_Z(at(s.bytes+8), kLast, e)
		} else {
			VMASKMOVPS(at(s.bytes+8), lastOut, e)
		}
		taps := [3]reg.VecVirtual{s.vec(), s.vec(), s.vec()}
		VSHUFPS(U8(0x88), b, a, taps[0]) // columns 2k
		VSHUFPS(U8(0xDD), b, a, taps[1]) // columns 2k+1
		VSHUFPS(U8(0x88), e, c, taps[2]) // columns 2k+2
		return taps, a, b
	}
}

// pool3Walk is the column-block walk of the 3x3/2 pooling kernels: u
// vectors of outputs side by side walk down the rows from the output d and
// the source sp, each source row's taps folded once (hmax, into a vector)
// and used by the two output rows that read it; out combines the previous
// row's, the two new rows' folds into the output vector at at. start and
// end, when set, run before and after a walk.
type pool3Walk struct {
	s          isa
	rows, ss   reg.GPVirtual
	hmax       func(x reg.GPVirtual, off int, h reg.VecVirtual)
	out        func(prev, h1, h2 reg.VecVirtual, at Mem)
	start, end func()
	// ahead, when set, is a distance in bytes down the source at which
	// each source row's block is prefetched as the walk reaches the row.
	ahead reg.GPVirtual
}

// run emits kernel name's column blocks as rowLoop's vectors of one row
// (two at a time, then one, then the vector ending at n, which recomputes
// outputs from src; dst does not overlap it), each walking all rows from
// dst and src, then last (the flag's store, before rowLoop returns).
func (w pool3Walk) run(name string, n, dst, src reg.GPVirtual, last func()) {
	one := GP64()
	MOVQ(U32(1), one)
	rowLoop(w.s, name, one, n, []reg.GPVirtual{dst, src}, 2, 2, func(u int, lbl string, p []reg.GPVirtual) {
		w.emit(lbl+"_rows", u, p[0], p[1])
	}, last)
}

// emit emits one walk of u vectors (labels prefixed lbl).
func (w pool3Walk) emit(lbl string, u int, d, sp reg.GPVirtual) {
	s := w.s
	r, x, y := GP64(), GP64(), GP64()
	MOVQ(w.rows, r)
	MOVQ(sp, x)
	MOVQ(d, y)
	if w.start != nil {
		w.start()
	}
	prev := make([]reg.VecVirtual, u)
	for v := range u {
		prev[v] = s.vec()
		w.hmax(x, 2*v*s.bytes, prev[v])
	}
	Label(lbl)
	h1, h2 := make([]reg.VecVirtual, u), make([]reg.VecVirtual, u)
	prefetch := func() {
		if w.ahead == nil {
			return
		}
		for off := 0; off < 2*u*s.bytes+8; off += 64 {
			PREFETCHT0(Mem{Base: x, Index: w.ahead, Scale: 1, Disp: off})
		}
	}
	ADDQ(w.ss, x)
	prefetch()
	for v := range u {
		h1[v] = s.vec()
		w.hmax(x, 2*v*s.bytes, h1[v])
	}
	ADDQ(w.ss, x)
	prefetch()
	for v := range u {
		h2[v] = s.vec()
		w.hmax(x, 2*v*s.bytes, h2[v])
	}
	for v := range u {
		w.out(prev[v], h1[v], h2[v], Mem{Base: y, Disp: v * s.bytes})
		VMOVAPS(h2[v], prev[v])
	}
	ADDQ(paramAddr("dstStride"), y)
	DECQ(r)
	JNZ(LabelRef(lbl))
	if w.end != nil {
		w.end()
	}
}

func maxPool3Kernel(s isa) {
	name := "maxPool3F32" + s.suffix
	dst, src, ss, rows, n, lov := poolKernel(s, name, "elements 2k, 2k+1 and 2k+2 of the source rows at src+(2r+i)*srcStride bytes, i = 0, 1, 2")
	taps3 := pool3Taps(s)
	poolRowsLoop(s, name, dst, src, ss, rows, n, func(x reg.GPVirtual, off int) reg.VecVirtual {
		acc := s.vec()
		VMOVAPS(lov, acc)
		for i := 0; i < 3; i++ {
			taps, _, _ := taps3(func(disp int) Mem {
				m := Mem{Base: x, Disp: off + disp}
				if i > 0 {
					m.Index, m.Scale = ss, uint8(i)
				}
				return m
			})
			for _, t := range taps {
				emitMaxNaN(s, acc, t, acc)
			}
		}
		return acc
	})
}

var pairOrderMem *Mem

// pairOrder is the 64-bit lane index table {0, 2, 4, 6, 1, 3, 5, 7}, as
// eight bytes for VPMOVZXBQ: a 64-byte table could straddle a cache line
// (see c4).
func pairOrder() Mem {
	if pairOrderMem == nil {
		m := GLOBL("pairOrder", RODATA|NOPTR)
		DATA(0, U64(0x0705030106040200)) // bytes 0 2 4 6 1 3 5 7, lowest first
		pairOrderMem = &m
	}
	return *pairOrderMem
}

// vecBlocks emits the loop of a kernel over n elements (a multiple of
// s.lanes) in blocks of big vectors (a power of two), then of big/2, big/4
// ... down to single vectors, so that a short rest still keeps several
// independent vectors in flight: body(u, lbl) handles
// u vectors at the pointers (lbl prefixes its own labels), which then
// advance; after the last block the kernel returns.
func vecBlocks(s isa, name string, n reg.GPVirtual, ptrs []reg.GPVirtual, big int, body func(u int, lbl string)) {
	blockLoop(s, name, n, ptrs, big, name+"_done", body)
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// blockLoop is vecBlocks' loop, jumping to the label end when fewer than
// one vector is left (the caller places end).
func blockLoop(s isa, name string, n reg.GPVirtual, ptrs []reg.GPVirtual, big int, end string, body func(u int, lbl string)) {
	for u := big; u >= 1; u /= 2 {
		lbl := fmt.Sprintf("%s_u%d", name, u)
		next := fmt.Sprintf("%s_u%d", name, u/2)
		if u == 1 {
			next = end
		}
		Label(lbl)
		CMPQ(n, U32(u*s.lanes))
		JL(LabelRef(next))
		body(u, lbl)
		for _, p := range ptrs {
			ADDQ(U32(u*s.bytes), p)
		}
		SUBQ(U32(u*s.lanes), n)
		JMP(LabelRef(lbl))
	}
}

// maddScalarKernels emits dst[i] += x[i]*s with the product rounded first
// (VMULPS then VADDPS, as the twin's explicit conversion does), the inner
// loop of a depthwise convolution.
func maddScalarKernels(s isa) {
	name := "maddScalarF32" + s.suffix
	text(name, "func(dst, x *float32, s float32, n int)")
	Doc(fmt.Sprintf("%s computes dst[i] += float32(x[i] * s) for i < n; n is a multiple of %d.", name, s.lanes))
	dst := Load(Param("dst"), GP64()).(reg.GPVirtual)
	x := Load(Param("x"), GP64()).(reg.GPVirtual)
	n := Load(Param("n"), GP64()).(reg.GPVirtual)
	sv := s.vec()
	VBROADCASTSS(NewParamAddr("s", 16), sv)
	loop(s, name, n, []reg.GPVirtual{dst, x}, 4, func(u int) {
		v, d := s.vec(), s.vec()
		VMULPS(mem(x, u*s.bytes), sv, v)
		VMOVUPS(mem(dst, u*s.bytes), d)
		VADDPS(v, d, d)
		VMOVUPS(d, mem(dst, u*s.bytes))
	})
}

// tapSumKernels emits dst[i] = sum over t of float32(base[offs[t]+i] * w[t]),
// summed in tap order from +0 with each product rounded first (VMULPS then
// VADDPS): a depthwise convolution over a padded plane, one call per plane.
// Blocks of 8 vectors keep 8 independent sums in flight, then single vectors.
func tapSumKernels(s isa) {
	name := "tapSumF32" + s.suffix
	text(name, "func(dst, base *float32, offs *int, w *float32, ntaps, n int)")
	Doc(fmt.Sprintf("%s computes dst[i] = sum over t < ntaps of float32(base[offs[t]+i] * w[t]), summed in order from +0, for i < n; n is a multiple of %d and ntaps >= 1.", name, s.lanes))
	tapSumLoop(s, name, nil)
}

// tapSumChainKernels emits tapSumKernels' sums put through the elementwise
// chain (chainSteps, one dispatch per step and block of vectors) before the
// store: a depthwise convolution and the chain fused into it in one pass.
func tapSumChainKernels(s isa) {
	name := "tapSumChainF32" + s.suffix
	text(name, "func(dst, base *float32, offs *int, w *float32, ntaps, n int, codes *uint8, sc *float32, nsteps int)")
	Doc(fmt.Sprintf("%s computes dst[i] = the chain of steps codes[t] with scalars sc[t] (t < nsteps) on the sum over t < ntaps of float32(base[offs[t]+i] * w[t]), summed in order from +0, for i < n; n is a multiple of %d, ntaps >= 1 and every code is below %d.", name, s.lanes, len(chainOps)))
	tapSumLoop(s, name, func(lbl string, accs []reg.VecVirtual) {
		codes, sc := GP64(), GP64()
		MOVQ(paramAddr("codes"), codes)
		MOVQ(paramAddr("sc"), sc)
		chainSteps(s, lbl+"_c", accs, codes, sc, paramAddr("nsteps"), false)
	})
}

// dwNC3x3Kernels emits dwNCKernels' kernels for the undilated 3x3
// window, the depthwise convolution of nearly every network: the nine taps
// unrolled, tap (i, k) at src + i*rstride + k*s.bytes (rstride the padded
// plane's row in bytes), with the weights held in registers at AVX-512
// (32 of them) and read from memory at AVX2 (16).
func dwNC3x3Kernels(s isa) {
	for _, sw := range []int{1, 2} {
		dwNC3x3Kernel(s, sw, false)
		if !s.avx512 {
			dwNC3x3Kernel(s, sw, true)
		}
	}
}

// dwNC3x3Kernel emits dwNC3S<sw>F32 (see dwNC3x3Kernels); with sevens, the
// AVX2 form for rows of a multiple of 7 positions, in blocks of 7
// (dwNCSevens).
func dwNC3x3Kernel(s isa, sw int, sevens bool) {
	name := fmt.Sprintf("dwNC3S%dF32%s", sw, s.suffix)
	doc := fmt.Sprintf("%s is dwNCS%dF32%s for the nine taps (i, k) of a 3x3 window at src+r*srcStride+i*rstride+k*%d bytes (offsets in bytes), weights the vectors at w+(3i+k)*%d bytes.",
		name, sw, s.suffix, s.bytes, s.bytes)
	blocks := dwNCBlocks(s)
	if sevens {
		base := name
		name = fmt.Sprintf("dwNC3S%dSevensF32%s", sw, s.suffix)
		doc = fmt.Sprintf("%s is %s for n a multiple of 7, in blocks of 7 positions.", name, base)
		blocks = dwNCSevens
	}
	text(name, "func(dst *float32, dstStride int, src *float32, srcStride int, rstride int, w *float32, rows, n int, codes *uint8, sc *float32, nsteps int)")
	Doc(doc)
	p := loadParams("dst", "src", "rstride", "w", "rows")
	dst, src, rs, w, rows := p[0], p[1], p[2], p[3], p[4]
	var wr [9]reg.VecVirtual
	if s.avx512 {
		for t := range wr {
			wr[t] = s.vec()
			VMOVUPS(mem(w, t*s.bytes), wr[t])
		}
	}
	dwNCLoop(s, name, sw, dst, src, rows, blocks, func(lbl string, b reg.GPVirtual, accs []reg.VecVirtual) {
		for t := 0; t < 9; t++ {
			ti, tk := t/3, t%3
			wv := wr[t]
			if !s.avx512 {
				wv = s.vec()
				VMOVUPS(mem(w, t*s.bytes), wv)
			}
			for i := range accs {
				x := Mem{Base: b, Disp: tk*s.bytes + i*sw*s.bytes}
				if ti > 0 {
					x.Index, x.Scale = rs, uint8(ti)
				}
				v := s.vec()
				VMULPS(x, wv, v)
				VADDPS(v, accs[i], accs[i])
			}
		}
	})
}

// dwPlanarKernels emits the depthwise 3x3 convolution of one channel's
// plane read in place (NCHW, no scratch plane and no transposes), output
// row by output row, column stride sw in {1, 2}: output row r's three
// input rows start at src + roffs[3r+i] bytes (i = 0, 1, 2), or at the zero
// row zrow where roffs[3r+i] < 0 (padding); output vector v (s.lanes
// outputs) reads tap (i, k) at input column v*s.lanes*sw + k plus the byte
// offset col (the left padding, negative) in the row. The first and the
// last vector of a row go through masks (the table at masks: for the
// first, then the last, the load masks and the store mask), the others,
// whose every tap is inside the row, without. At stride 2 a vector's taps
// come from two pairs of vectors split into even and odd columns
// (maxPool3Kernels' shuffles) and one permutation restores the order before
// the store. Each output is the sum over taps in row-major order of
// float32(x*w) from +0 (VMULPS then VADDPS: TapSumF32's order, so the bits
// are those of the other depthwise paths; a padding tap adds a zero
// product, which changes no bit of a sum that starts at +0 when the weights
// are finite). The chain, if any, runs after, on the whole plane
// (asm.ScalarChainF32): dispatching its steps once a plane costs less than
// once a row's few vectors.
// dwPlanarPrefetchRows is how many output rows ahead the planar kernels
// prefetch their input, every line of the last input row the output row
// reads (0: not at all). A network's activations can be out of cache when
// the layer runs, and the planes' rows then arrived slower than the
// hardware prefetcher fetched them: MobileNetV2's 96-channel 3x3/2 on 112²
// with the caches flushed before each call (go test ./kernels -run xxx
// -bench Conv2DDepthwiseCold) 451-461 -> 314-347 µs two rows ahead, 288-338
// four; warm and in the model (a quiet machine, where it ran warm) within
// noise.
const dwPlanarPrefetchRows = 4

func dwPlanarKernels(s isa) {
	for _, sw := range []int{1, 2} {
		dwPlanarKernel(s, sw)
	}
}

func dwPlanarKernel(s isa, sw int) {
	name := fmt.Sprintf("dwPlanar3S%dF32%s", sw, s.suffix)
	maskT := "*uint16"
	if !s.avx512 {
		maskT = "*int32"
	}
	text(name, "func(dst *float32, dstRow int, src *float32, roffs *int, zrow *float32, w *float32, masks "+maskT+", rows, nv, col int)")
	Doc(fmt.Sprintf("%s computes rows output rows (dstRow bytes apart) of nv vectors of a 3x3 depthwise convolution at column stride %d read in place: see dwPlanarKernels in asm/gen; rows, nv >= 1 and the nine weights at w are finite.", name, sw))
	wr := dwWeights(s)
	var idx reg.VecVirtual
	if sw == 2 && s.avx512 {
		idx = s.vec()
		VPMOVZXBQ(pairOrder(), idx)
	}
	// A mask table entry: at AVX-512 one uint16 per mask, at AVX2 one
	// vector of int32 lanes. Stride 1 has three load masks (one per tap
	// column), stride 2 four (the vectors at 0, s.bytes, 8 and s.bytes+8
	// bytes from the vector's first column); then the store mask.
	nload := 3
	if sw == 2 {
		nload = 4
	}
	msize := 2
	if !s.avx512 {
		msize = s.bytes
	}
	entry := (nload + 1) * msize
	roffs := Load(Param("roffs"), GP64())
	rowPtr := [3]reg.GPVirtual{GP64(), GP64(), GP64()}
	y, yv := GP64(), GP64() // the output row, and the current vector in it
	MOVQ(paramAddr("dst"), y)
	r := GP64()
	XORQ(r, r)
	Label(name + "_row")
	CMPQ(r, paramAddr("rows"))
	JGE(LabelRef(name + "_done"))
	for i := range rowPtr {
		MOVQ(Mem{Base: roffs, Disp: 8 * i}, rowPtr[i])
		TESTQ(rowPtr[i], rowPtr[i])
		JL(LabelRef(fmt.Sprintf("%s_zero%d", name, i)))
		ADDQ(paramAddr("src"), rowPtr[i])
		JMP(LabelRef(fmt.Sprintf("%s_at%d", name, i)))
		Label(fmt.Sprintf("%s_zero%d", name, i))
		MOVQ(paramAddr("zrow"), rowPtr[i])
		Label(fmt.Sprintf("%s_at%d", name, i))
		ADDQ(paramAddr("col"), rowPtr[i])
	}
	if dwPlanarPrefetchRows > 0 {
		// The last input row of the output row dwPlanarPrefetchRows
		// ahead, every line of it.
		skip := name + "_nopf"
		t, p := GP64(), GP64()
		MOVQ(r, t)
		ADDQ(U8(dwPlanarPrefetchRows), t)
		CMPQ(t, paramAddr("rows"))
		JGE(LabelRef(skip))
		MOVQ(Mem{Base: roffs, Disp: 24*dwPlanarPrefetchRows + 16}, p)
		TESTQ(p, p)
		JL(LabelRef(skip))
		ADDQ(paramAddr("src"), p)
		ADDQ(paramAddr("col"), p)
		MOVQ(paramAddr("nv"), t)
		if lines := sw * s.bytes / 64; lines > 1 {
			SHLQ(U8(bits.TrailingZeros(uint(lines))), t)
		} else if sw*s.bytes < 64 {
			INCQ(t)
			SHRQ(U8(1), t)
		}
		Label(name + "_pf")
		PREFETCHT0(Mem{Base: p})
		ADDQ(U8(64), p)
		DECQ(t)
		JNZ(LabelRef(name + "_pf"))
		Label(skip)
	}
	ADDQ(U32(24), roffs)
	// vec computes u vectors from the row pointers' current position, with
	// masks from table entry e (-1: none), stores them at yv and advances.
	vec := func(lbl string, u, e int) {
		accs := make([]reg.VecVirtual, u)
		for j := range accs {
			accs[j] = s.vec()
			VXORPS(accs[j], accs[j], accs[j])
		}
		var mt reg.GPVirtual
		var ks []reg.OpmaskVirtual
		if e >= 0 {
			mt = GP64()
			MOVQ(paramAddr("masks"), mt)
			if s.avx512 {
				ks = make([]reg.OpmaskVirtual, nload+1)
				for m := range ks {
					ks[m] = K()
					KMOVW(Mem{Base: mt, Disp: e*entry + m*msize}, ks[m])
				}
			}
		}
		// move loads x from at (store: stores x at at) under mask m of
		// the entry, or unmasked.
		move := func(x reg.VecVirtual, at Mem, m int, store bool) {
			switch {
			case e < 0 && store:
				VMOVUPS(x, at)
			case e < 0:
				VMOVUPS(at, x)
			case s.avx512 && store:
				VMOVUPS(x, ks[m], at)
			case s.avx512:
				VMOVUPS_Z(at, ks[m], x)
			default:
				mk := s.vec()
				VMOVDQU(Mem{Base: mt, Disp: e*entry + m*msize}, mk)
				if store {
					VMASKMOVPS(x, mk, at)
				} else {
					VMASKMOVPS(at, mk, x)
				}
			}
		}
		load := func(at Mem, m int, x reg.VecVirtual) { move(x, at, m, false) }
		madd := func(x reg.VecVirtual, t int, acc reg.VecVirtual) {
			VMULPS(x, wr[t], x)
			VADDPS(x, acc, acc)
		}
		for i := 0; i < 3; i++ {
			for j, acc := range accs {
				base := j * sw * s.bytes
				if sw == 1 {
					for k := 0; k < 3; k++ {
						x := s.vec()
						load(Mem{Base: rowPtr[i], Disp: base + 4*k}, k, x)
						madd(x, 3*i+k, acc)
					}
					continue
				}
				a, b := s.vec(), s.vec()
				load(Mem{Base: rowPtr[i], Disp: base}, 0, a)
				load(Mem{Base: rowPtr[i], Disp: base + s.bytes}, 1, b)
				t0, t1 := s.vec(), s.vec()
				VSHUFPS(U8(0x88), b, a, t0) // columns 2c
				VSHUFPS(U8(0xDD), b, a, t1) // columns 2c+1
				madd(t0, 3*i, acc)
				madd(t1, 3*i+1, acc)
				c, d := s.vec(), s.vec()
				load(Mem{Base: rowPtr[i], Disp: base + 8}, 2, c)
				load(Mem{Base: rowPtr[i], Disp: base + s.bytes + 8}, 3, d)
				t2 := s.vec()
				VSHUFPS(U8(0x88), d, c, t2) // columns 2c+2
				madd(t2, 3*i+2, acc)
			}
		}
		if sw == 2 {
			for _, acc := range accs {
				if s.avx512 {
					VPERMPD(acc, idx, acc)
				} else {
					VPERMPD(U8(0xD8), acc, acc) // 64-bit pairs 0 2 1 3
				}
			}
		}
		for j, acc := range accs {
			move(acc, Mem{Base: yv, Disp: j * s.bytes}, nload, true)
		}
		for i := range rowPtr {
			ADDQ(U32(u*sw*s.bytes), rowPtr[i])
		}
		ADDQ(U32(u*s.bytes), yv)
	}
	MOVQ(y, yv)
	vec(name+"_first", 1, 0)
	m := GP64()
	MOVQ(paramAddr("nv"), m)
	SUBQ(U8(2), m)
	JL(LabelRef(name + "_next")) // one vector: the first was the last
	blocks := []int{4, 2, 1}
	if !s.avx512 {
		blocks = []int{2, 1}
	}
	for _, u := range blocks {
		lbl := fmt.Sprintf("%s_mid%d", name, u)
		Label(lbl)
		CMPQ(m, U8(u))
		JL(LabelRef(fmt.Sprintf("%s_end%d", name, u)))
		vec(lbl+"_v", u, -1)
		SUBQ(U8(u), m)
		JMP(LabelRef(lbl))
		Label(fmt.Sprintf("%s_end%d", name, u))
	}
	vec(name+"_last", 1, 1)
	Label(name + "_next")
	ADDQ(paramAddr("dstRow"), y)
	INCQ(r)
	JMP(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// dwPlanarRowsMaxVecs is the widest row, in vectors, the blocked planar
// kernels (dwPlanarRowsKernels) are emitted for.
const dwPlanarRowsMaxVecs = 8

// dwPlanarRowsR is how many output rows a blocked planar kernel of m
// vectors a row computes at a time: its accumulators fill eight vectors.
func dwPlanarRowsR(m int) int { return max(1, 8/m) }

// dwPlanarRowsKernels emits the 3x3 depthwise convolution of one plane at
// stride 1 in blocks of output rows (AVX-512), one kernel per row width m
// (in vectors, up to dwPlanarRowsMaxVecs) and left padding pl (0 or 1).
// The per-row kernel (dwPlanarKernels) loaded each tap's vector from
// memory, nine loads an output vector, most across a cache line, and its
// edge vectors' masked loads waited behind the stores before them
// (BenchmarkDepthwisePlanarL1). These load each input row once, as m
// vectors from the row's first column (the last under the mask lmask of
// the columns present), make the taps one column left and right of them
// with VALIGND (zeros shifted in past the row's ends: the padding), and
// add each input row's products to every output row of the block that
// reads it, the block's input rows in order, so that each output's taps
// still come in row-major order: the same sum from +0 of float32(x*w) as
// the per-row kernel's, the same bits. Input row q reads the zero row where
// q < 0 or q >= h (unsigned compare). The stores of each output row's
// last vector go under smask.
//
// The stride-2 kernels (dwPlanarRows2Kernel) follow the stride-1 ones.
func dwPlanarRowsKernels(s isa) {
	for _, kernel := range []func(isa, int, int){dwPlanarRowsKernel, dwPlanarRows2Kernel} {
		for pl := 0; pl <= 1; pl++ {
			for m := 1; m <= dwPlanarRowsMaxVecs; m++ {
				kernel(s, m, pl)
			}
		}
	}
}

func dwPlanarRowsKernel(s isa, m, pl int) {
	r := dwPlanarRowsR(m)
	name := fmt.Sprintf("dwPlanarRows%dP%dF32%s", m, pl, s.suffix)
	text(name, "func(dst *float32, dstRow int, src *float32, srcRow int, zrow *float32, w *float32, h, q0, blocks int, lmask, smask uint16)")
	Doc(fmt.Sprintf("%s computes blocks blocks of %d output rows (dstRow bytes apart, %d vectors each, the last under smask) of a 3x3 depthwise convolution at stride 1 with left padding %d of input rows srcRow bytes apart (each %d vectors, the last under lmask), block b's first output row reading input rows q0+%d*b .. q0+%d*b+2 (the zero row zrow where outside [0, h)): see dwPlanarRowsKernels in asm/gen.", name, r, m, pl, m, r, r))
	wr := dwWeights(s)
	zero := s.vec()
	VXORPS(zero, zero, zero)
	lk, sk := K(), K()
	KMOVW(paramAddr("lmask"), lk)
	KMOVW(paramAddr("smask"), sk)
	dst, q, n, accs := dwRowsBlockStart(s, name, r, m)
	for qi := 0; qi < r+2; qi++ {
		t := GP64()
		MOVQ(q, t)
		if qi > 0 {
			ADDQ(U8(qi), t)
		}
		p := dwRowPtr(t)
		dwRowsPrefetch(t, dwRowsPrefetchRows, m)
		v := make([]reg.VecVirtual, m)
		for j := range v {
			v[j] = s.vec()
			at := Mem{Base: p, Disp: j * s.bytes}
			if j == m-1 {
				VMOVUPS_Z(at, lk, v[j])
			} else {
				VMOVUPS(at, v[j])
			}
		}
		uses := dwRowUses(qi, r, 1)
		for j := 0; j < m; j++ {
			// taps[k]: input columns k-pl from output vector j's first.
			var taps [3]reg.VecVirtual
			for k := 0; k < 3; k++ {
				switch d := k - pl; {
				case d == 0:
					taps[k] = v[j]
				case d > 0:
					hi := zero
					if j+1 < m {
						hi = v[j+1]
					}
					taps[k] = s.vec()
					VALIGND(U8(d), v[j], hi, taps[k])
				default:
					lo := zero
					if j > 0 {
						lo = v[j-1]
					}
					taps[k] = s.vec()
					VALIGND(U8(s.lanes+d), lo, v[j], taps[k])
				}
			}
			dwRowsMadd(s, taps, wr, uses, accs, j)
		}
	}
	dwRowsBlockEnd(s, name, accs, dst, q, n, sk, r)
}

// dwPlanarRowsAVX2R is the output rows a block of the AVX2 blocked planar
// kernels (dwPlanarRowsAVX2Kernels) computes.
const dwPlanarRowsAVX2R = 4

// dwPlanarRowsAVX2Kernels emits the AVX2 form of the blocked planar
// kernels (dwPlanarRowsKernels): at stride 1 one for each left padding pl
// (0 or 1) and whole or partial last vectors, at stride 2 one for each pl
// (dwPlanarRows2AVX2Kernel). Sixteen ymm registers do not hold an input
// row of several vectors with a block's accumulators, so these go down a
// column strip of one vector at a time: for each output vector of the
// block's rows they clear dwPlanarRowsAVX2R accumulators, load the three
// taps of each of the block's input rows at that vector (unaligned, one
// column apart), one at a time, and add each tap's products to every
// output row of the block that reads the row, input rows in order and a
// row's taps in order: each output's taps in row-major order, float32(x*w)
// then the add, the per-row kernel's sum and bits. Each input row is
// loaded once a block of four output rows instead of once an output row
// (4.5 loads an output vector instead of nine). The nine weights stay in
// registers, which caps the block at four rows (nine weights, four
// accumulators, a tap, a product, a mask); with eight rows and the
// weights read from the frame as memory operands the kernel ran slower
// than the per-row one (14 loads an output vector). The block's input row
// pointers (the zero row outside [0, h)) are computed once a block into
// the frame. A row's first
// vector at left padding 1 loads its left tap under the masks table's
// first entry (lane 0, column -1, off), its last vector all three taps
// and its store under the second (the columns inside the row, the outputs
// inside it): the table of dwPlanarKernels' AVX2 kernel, whose two entries
// are a row's first and last vectors; a row of one vector is its last.
//
// The kernels with whole last vectors (whole: rows of a multiple of eight
// outputs whose last vector's left and middle taps read inside the row)
// mask only the last vector's right tap and store it whole: fewer masked
// moves (BenchmarkConv2DChain, fused, RELAXGO_ISA=avx2, five alternated
// runs, min / median µs: 144 channels on 56² 177 / 177 -> 170 / 170, 32 on
// 112² 149 / 150 -> 147 / 149).
func dwPlanarRowsAVX2Kernels(s isa) {
	for _, whole := range []bool{false, true} {
		for pl := 0; pl <= 1; pl++ {
			dwPlanarRowsAVX2Kernel(s, pl, whole)
		}
	}
	for pl := 0; pl <= 1; pl++ {
		dwPlanarRows2AVX2Kernel(s, pl)
	}
}

// dwPlanarRows2AVX2Kernel emits the AVX2 blocked planar kernel at stride 2
// (both ways) for left padding pl (0 or 1): dwPlanarRowsAVX2Kernel's column
// strips, an output vector's taps made as the per-row kernel makes them
// (dwPlanarKernel): the vectors at columns 0 and 8 from its first input
// column split into even (tap 0) and odd (tap 1) columns with VSHUFPS,
// those at 2 and 10 into the even ones (tap 2), in the lane order of
// VSHUFPS's 128-bit halves, which VPERMPD undoes on the accumulators
// before the store. A block's four output rows read its nine input rows;
// each input row's taps go to every output row that reads it, in order.
// The first vector at left padding 1 loads its first vector under the
// masks table's first entry, the last vector all four under the second
// entry's and stores under its store mask (dwPlanarKernel's AVX2 table at
// stride 2).
func dwPlanarRows2AVX2Kernel(s isa, pl int) {
	const r = dwPlanarRowsAVX2R
	name := fmt.Sprintf("dwPlanarRowsS2P%dF32%s", pl, s.suffix)
	text(name, "func(dst *float32, dstRow int, src *float32, srcRow int, zrow *float32, w *float32, h, q0, blocks, nv int, masks *int32)")
	Doc(fmt.Sprintf("%s computes blocks blocks of %d output rows (dstRow bytes apart, nv vectors each) of a 3x3 depthwise convolution at stride 2 with left padding %d of input rows srcRow bytes apart, block b's first output row reading input rows q0+%d*b .. q0+%d*b+2 (the zero row zrow where outside [0, h)), the edge vectors under masks: see dwPlanarRows2AVX2Kernel in asm/gen.", name, r, pl, 2*r, 2*r))
	rl := AllocLocal(8 * (4*r + 1))
	wr := dwWeights(s)
	mt := Load(Param("masks"), GP64())
	dst, q, n := dwRowsLoopOpen(name)
	// The block's input rows, then the next block's new ones (prefetched).
	dwRowsTable(rl, q, 4*r+1)
	col, ocol, left := GP64(), GP64(), GP64() // the input and output byte offsets of the vector, the vectors left
	XORQ(col, col)
	XORQ(ocol, ocol)
	MOVQ(paramAddr("nv"), left)
	const entry = 5 // masks an entry: four loads, then the store
	loads := [4]int{0, s.bytes, 8, s.bytes + 8}
	body := func(e int) {
		accs := dwZeroVecs(s, r)
		load := func(p reg.GPVirtual, ld int) reg.VecVirtual {
			at := Mem{Base: p, Index: col, Scale: 1, Disp: loads[ld] - 4*pl}
			return dwMaskLoad(s, at, mt, (e*entry+ld)*s.bytes, e == 1 || (e == 0 && ld == 0))
		}
		dwRowsAVX2Prefetch(rl, 2*r+1, 2*r, col)
		for qi := 0; qi < 2*r+1; qi++ {
			p := GP64()
			MOVQ(rl.Offset(8*qi), p)
			uses := dwRowUses(qi, r, 2)
			a := load(p, 0)
			b := load(p, 1)
			t0, t1 := s.vec(), s.vec()
			VSHUFPS(U8(0x88), b, a, t0) // columns 2c
			VSHUFPS(U8(0xDD), b, a, t1) // columns 2c+1
			dwTapMadd(s, t0, wr, 0, uses, accs)
			dwTapMadd(s, t1, wr, 1, uses, accs)
			c := load(p, 2)
			d := load(p, 3)
			t2 := s.vec()
			VSHUFPS(U8(0x88), d, c, t2) // columns 2c+2
			dwTapMadd(s, t2, wr, 2, uses, accs)
		}
		dwRowsAVX2Store(s, accs, dst, ocol, mt, (e*entry+4)*s.bytes, e == 1, true)
		ADDQ(U8(2*s.bytes), col)
		ADDQ(U8(s.bytes), ocol)
		DECQ(left)
	}
	dwRowsStrips(name, pl, left, body)
	dwRowsAVX2BlockEnd(name, dst, q, n, r, 2*r)
}

func dwPlanarRowsAVX2Kernel(s isa, pl int, whole bool) {
	const r = dwPlanarRowsAVX2R
	name := fmt.Sprintf("dwPlanarRowsS1P%dF32%s", pl, s.suffix)
	if whole {
		name = fmt.Sprintf("dwPlanarRowsS1P%dWholeF32%s", pl, s.suffix)
	}
	text(name, "func(dst *float32, dstRow int, src *float32, srcRow int, zrow *float32, w *float32, h, q0, blocks, nv int, masks *int32)")
	Doc(fmt.Sprintf("%s computes blocks blocks of %d output rows (dstRow bytes apart, nv vectors each) of a 3x3 depthwise convolution at stride 1 with left padding %d of input rows srcRow bytes apart, block b's first output row reading input rows q0+%d*b .. q0+%d*b+2 (the zero row zrow where outside [0, h)), the edge vectors under masks: see dwPlanarRowsAVX2Kernels in asm/gen.", name, r, pl, r, r))
	rl := AllocLocal(8 * (r + 2))
	wr := dwWeights(s)
	mt := Load(Param("masks"), GP64())
	dst, q, n := dwRowsLoopOpen(name)
	dwRowsTable(rl, q, r+2)
	col, left := GP64(), GP64() // the vector's byte offset in its row, the vectors left
	XORQ(col, col)
	MOVQ(paramAddr("nv"), left)
	// body computes the block's output rows at the vector col: the loads
	// under entry e's masks of the masks table where e is 1 (tap 0 only
	// where e is 0), the stores under its store mask where e is 1.
	const entry = 4 // masks an entry: three loads, then the store
	body := func(e int) {
		accs := dwZeroVecs(s, r)
		for qi := 0; qi < r+2; qi++ {
			p := GP64()
			MOVQ(rl.Offset(8*qi), p)
			uses := dwRowUses(qi, r, 1)
			for k := 0; k < 3; k++ {
				// Tap k of the input row, then its product with the tap
				// row's weight into each output row it feeds: each
				// output's products still arrive tap row by tap row, and
				// in a row k by k.
				at := Mem{Base: p, Index: col, Scale: 1, Disp: 4 * (k - pl)}
				masked := (e == 1 && (!whole || k == 2)) || (e == 0 && k == 0)
				tp := dwMaskLoad(s, at, mt, (e*entry+k)*s.bytes, masked)
				dwTapMadd(s, tp, wr, k, uses, accs)
			}
		}
		dwRowsAVX2Store(s, accs, dst, col, mt, (e*entry+3)*s.bytes, e == 1 && !whole, false)
		ADDQ(U8(s.bytes), col)
		DECQ(left)
	}
	dwRowsStrips(name, pl, left, body)
	dwRowsAVX2BlockEnd(name, dst, q, n, r, r)
}

// dwRowsTable writes into the frame's row table rl the pointers of input
// rows q .. q+rows-1 (dwRowPtr: the zero row outside the plane).
func dwRowsTable(rl Mem, q reg.GPVirtual, rows int) {
	for qi := 0; qi < rows; qi++ {
		t := GP64()
		MOVQ(q, t)
		if qi > 0 {
			ADDQ(U8(qi), t)
		}
		MOVQ(dwRowPtr(t), rl.Offset(8*qi))
	}
}

// dwZeroVecs returns n vectors set to zero.
func dwZeroVecs(s isa, n int) []reg.VecVirtual {
	v := make([]reg.VecVirtual, n)
	for i := range v {
		v[i] = s.vec()
		VXORPS(v[i], v[i], v[i])
	}
	return v
}

// dwMaskLoad loads a vector from at: under the AVX2 mask at disp bytes into
// the masks table mt where masked (masked-off lanes zero, not read), else
// whole.
func dwMaskLoad(s isa, at Mem, mt reg.Register, disp int, masked bool) reg.VecVirtual {
	x := s.vec()
	if masked {
		mk := s.vec()
		VMOVDQU(Mem{Base: mt, Disp: disp}, mk)
		VMASKMOVPS(at, mk, x)
	} else {
		VMOVUPS(at, x)
	}
	return x
}

// dwTapMadd adds tap k of an input row (tp) times the weight of each use's
// tap row (float32(x*w), then the add) to the accumulator of each output
// row the input row feeds: an AVX2 blocked kernel's one-vector strip.
func dwTapMadd(s isa, tp reg.VecVirtual, wr [9]reg.VecVirtual, k int, uses []dwRowUse, accs []reg.VecVirtual) {
	for _, us := range uses {
		x := s.vec()
		VMULPS(tp, wr[3*us.i+k], x)
		VADDPS(x, accs[us.rr], accs[us.rr])
	}
}

// dwRowsAVX2Store stores an AVX2 blocked kernel's block of output rows
// (accs, dstRow bytes apart) at the byte offset off from dst: whole, or
// under the store mask at disp bytes into the masks table mt where masked;
// with permute, each accumulator's 64-bit pairs put back in order first
// (the stride-2 kernel's VSHUFPS lane order).
func dwRowsAVX2Store(s isa, accs []reg.VecVirtual, dst, off reg.GPVirtual, mt reg.Register, disp int, masked, permute bool) {
	y := GP64()
	MOVQ(dst, y)
	ADDQ(off, y)
	var sm reg.VecVirtual
	if masked {
		sm = s.vec()
		VMOVDQU(Mem{Base: mt, Disp: disp}, sm)
	}
	for rr, acc := range accs {
		if permute {
			VPERMPD(U8(0xD8), acc, acc) // 64-bit pairs 0 2 1 3
		}
		if masked {
			VMASKMOVPS(acc, sm, Mem{Base: y})
		} else {
			VMOVUPS(acc, Mem{Base: y})
		}
		if rr < len(accs)-1 {
			ADDQ(paramAddr("dstRow"), y)
		}
	}
}

// dwRowsStrips emits an AVX2 blocked planar kernel's walk along a block's
// rows, left vectors to go: body(0) for the first vector at left padding
// 1 (its left tap masked), body(-1) for each vector up to the last, body(1)
// for the last (masked).
func dwRowsStrips(name string, pl int, left reg.GPVirtual, body func(e int)) {
	CMPQ(left, U8(1))
	JE(LabelRef(name + "_last"))
	if pl == 1 {
		body(0)
	}
	Label(name + "_mid")
	CMPQ(left, U8(1))
	JE(LabelRef(name + "_last"))
	body(-1)
	JMP(LabelRef(name + "_mid"))
	Label(name + "_last")
	body(1)
}

// dwRowsAVX2BlockEnd moves an AVX2 blocked planar kernel's output on by
// its block's r rows (a power of two), its first input row on by step, and
// closes the loop over the blocks.
func dwRowsAVX2BlockEnd(name string, dst, q, n reg.GPVirtual, r, step int) {
	t := GP64()
	MOVQ(paramAddr("dstRow"), t)
	SHLQ(U8(bits.TrailingZeros(uint(r))), t)
	ADDQ(t, dst)
	dwRowsLoopClose(name, q, n, step)
}

// dwRowsAVX2Prefetch prefetches, at the column offset col, the rows whose
// pointers sit at slots from .. from+rows-1 of the frame's row table rl:
// the AVX2 stride-2 blocked kernel's next block's new input rows, a block
// ahead of their use. The 96-channel 3x3/2 on 112² with the caches flushed
// (BenchmarkConv2DDepthwiseCold, RELAXGO_ISA=avx2, five alternated runs,
// min / median µs) ran 491 / 507 without, 364 / 398 with it (the per-row
// kernel's 362 / 392). The stride-1 kernel has none: with it MobileNetV2's
// 192-channel 28² and 144-channel 56² layers ran 5-15% slower in the model
// (`relaxgo profile --by shape`, three alternated runs), though the
// 32-channel 112² one ran 20% faster with the caches flushed.
func dwRowsAVX2Prefetch(rl Mem, from, rows int, col reg.GPVirtual) {
	for i := 0; i < rows; i++ {
		p := GP64()
		MOVQ(rl.Offset(8*(from+i)), p)
		PREFETCHT0(Mem{Base: p, Index: col, Scale: 1})
	}
}

// dwRowUse is an output row of a block (rr) that an input row feeds as
// its tap row i.
type dwRowUse struct{ rr, i int }

// dwRowUses lists the output rows of a block of r that the block's input
// row qi feeds at stride sh (output row rr reads input rows sh*rr ..
// sh*rr+2), in output row order.
func dwRowUses(qi, r, sh int) []dwRowUse {
	var uses []dwRowUse
	for rr := 0; rr < r; rr++ {
		if i := qi - sh*rr; i >= 0 && i <= 2 {
			uses = append(uses, dwRowUse{rr, i})
		}
	}
	return uses
}

// dwRowsMadd adds output vector j's three taps of one input row times the
// weights of tap row i (float32(x*w), then the add) to the accumulator of
// each output row the input row feeds.
func dwRowsMadd(s isa, taps [3]reg.VecVirtual, wr [9]reg.VecVirtual, uses []dwRowUse, accs [][]reg.VecVirtual, j int) {
	for _, us := range uses {
		for k := 0; k < 3; k++ {
			x := s.vec()
			VMULPS(taps[k], wr[3*us.i+k], x)
			VADDPS(x, accs[us.rr][j], accs[us.rr][j])
		}
	}
}

// dwRowsPrefetchRows is how many output rows ahead the blocked planar
// kernels prefetch their input rows (dwRowsPrefetch): a layer's input is
// often out of cache, and without it MobileNetV2's 96-channel 3x3/2 on
// 112² with the caches flushed ran slower on the blocked kernel than on
// the per-row one, which prefetches (BenchmarkConv2DDepthwiseCold).
const dwRowsPrefetchRows = 4

// dwRowsPrefetch prefetches input row t+ahead (t a register; nothing past
// the plane: the zero row then) of a blocked planar kernel, whose row
// spans vecs vectors: every line from the row's first element to its last.
func dwRowsPrefetch(t reg.GPVirtual, ahead, vecs int) {
	t2 := GP64()
	MOVQ(t, t2)
	ADDQ(U8(ahead), t2)
	p2 := dwRowPtr(t2)
	for k := 0; k < vecs; k++ {
		PREFETCHT0(Mem{Base: p2, Disp: 64 * k})
	}
	// The row's last line where the row does not start on a line.
	u2 := GP64()
	MOVQ(paramAddr("srcRow"), u2)
	PREFETCHT0(Mem{Base: p2, Index: u2, Scale: 1, Disp: -4})
}

// dwWeights broadcasts the nine weights at the parameter w, one vector each.
func dwWeights(s isa) [9]reg.VecVirtual {
	var wr [9]reg.VecVirtual
	w := Load(Param("w"), GP64())
	for t := range wr {
		wr[t] = s.vec()
		VBROADCASTSS(Mem{Base: w, Disp: 4 * t}, wr[t])
	}
	return wr
}

// dwRowPtr returns input row t's first element for a blocked planar kernel
// (t a register): src + t*srcRow where 0 <= t < h (one unsigned compare),
// else the zero row.
func dwRowPtr(t reg.GPVirtual) reg.GPVirtual {
	u, p := GP64(), GP64()
	MOVQ(t, u)
	IMULQ(paramAddr("srcRow"), u)
	ADDQ(paramAddr("src"), u)
	MOVQ(paramAddr("zrow"), p)
	CMPQ(t, paramAddr("h"))
	CMOVQCS(u, p)
	return p
}

// dwRowsBlockStart opens a blocked planar kernel's loop over its blocks
// (the parameter blocks of them): the output, the block's first input row
// (from q0) and the count in registers, and the block's r x m accumulators
// cleared.
func dwRowsBlockStart(s isa, name string, r, m int) (dst, q, n reg.GPVirtual, accs [][]reg.VecVirtual) {
	dst, q, n = dwRowsLoopOpen(name)
	accs = make([][]reg.VecVirtual, r)
	for rr := range accs {
		accs[rr] = make([]reg.VecVirtual, m)
		for j := range accs[rr] {
			accs[rr][j] = s.vec()
			VXORPS(accs[rr][j], accs[rr][j], accs[rr][j])
		}
	}
	return dst, q, n, accs
}

// dwRowsBlockEnd closes the loop dwRowsBlockStart opened: stores the
// block's output rows (dstRow bytes apart, each row's last vector under
// sk), moves the output on to the next block and the first input row on
// by step rows, and returns.
func dwRowsBlockEnd(s isa, name string, accs [][]reg.VecVirtual, dst, q, n reg.GPVirtual, sk reg.OpmaskVirtual, step int) {
	y := GP64()
	MOVQ(dst, y)
	for _, row := range accs {
		for j, acc := range row {
			at := Mem{Base: y, Disp: j * s.bytes}
			if j == len(row)-1 {
				VMOVUPS(acc, sk, at)
			} else {
				VMOVUPS(acc, at)
			}
		}
		ADDQ(paramAddr("dstRow"), y)
	}
	MOVQ(y, dst)
	dwRowsLoopClose(name, q, n, step)
}

// dwRowsLoopOpen opens a blocked planar kernel's loop over its blocks (the
// parameter blocks of them): the output, the block's first input row (from
// q0) and the count in registers.
func dwRowsLoopOpen(name string) (dst, q, n reg.GPVirtual) {
	dst, q, n = GP64(), GP64(), GP64()
	MOVQ(paramAddr("dst"), dst)
	MOVQ(paramAddr("q0"), q)
	MOVQ(paramAddr("blocks"), n)
	Label(name + "_block")
	TESTQ(n, n)
	JLE(LabelRef(name + "_done"))
	return dst, q, n
}

// dwRowsLoopClose closes the loop dwRowsLoopOpen opened: the first input
// row on by step rows, the next block, and the return.
func dwRowsLoopClose(name string, q, n reg.GPVirtual, step int) {
	ADDQ(U8(step), q)
	DECQ(n)
	JMP(LabelRef(name + "_block"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// dwPlanarRows2Kernel emits dwPlanarRowsKernels' blocked kernel at
// stride 2 (in both directions) for output rows of m vectors (up to
// dwPlanarRowsMaxVecs) and left padding pl (0 or 1). An input row's
// vectors come in pairs (columns 32j .. 32j+31 for output vector j), the
// pair split into its even and odd columns (VPERMT2PS); the taps are the
// odd columns shifted one on (pl 1: columns 2c-1, the previous pair's last
// odd one shifted in), the even and the odd ones (pl 0: the even ones
// shifted one back, the next pair's first even one shifted in). The input
// row is loaded as 2m+1-pl vectors, the last three under the masks
// m1, m2, m3 (a mask of no lanes: past the row, zero, nothing read). Block
// b's output rows read input rows q0+2r*b .. q0+2r*b+2r; each input row's
// products go to every output row of the block that reads it, in order,
// so each output's sum is the per-row kernel's.
func dwPlanarRows2Kernel(s isa, m, pl int) {
	r := dwPlanarRowsR(m)
	name := fmt.Sprintf("dwPlanarRows%dS2P%dF32%s", m, pl, s.suffix)
	text(name, "func(dst *float32, dstRow int, src *float32, srcRow int, zrow *float32, w *float32, h, q0, blocks int, m1, m2, m3, smask uint16)")
	Doc(fmt.Sprintf("%s computes blocks blocks of %d output rows (dstRow bytes apart, %d vectors each, the last under smask) of a 3x3 depthwise convolution at stride 2 with left padding %d of input rows srcRow bytes apart (%d vectors each, the last three under m1, m2, m3), block b's first output row reading input rows q0+%d*b .. q0+%d*b+2 (the zero row zrow where outside [0, h)): see dwPlanarRows2Kernel in asm/gen.", name, r, m, pl, 2*m+1-pl, 2*r, 2*r))
	wr := dwWeights(s)
	zero := s.vec()
	VXORPS(zero, zero, zero)
	idxE, idxO := pool3Index(s)
	slots := 2*m + 1 - pl // input vectors a row
	var mk [3]reg.OpmaskVirtual
	for i, nm := range []string{"m1", "m2", "m3"} {
		mk[i] = K()
		KMOVW(paramAddr(nm), mk[i])
	}
	sk := K()
	KMOVW(paramAddr("smask"), sk)
	dst, q, n, accs := dwRowsBlockStart(s, name, r, m)
	for qi := 0; qi <= 2*r; qi++ {
		uses := dwRowUses(qi, r, 2)
		if len(uses) == 0 {
			continue
		}
		t := GP64()
		MOVQ(q, t)
		if qi > 0 {
			ADDQ(U8(qi), t)
		}
		p := dwRowPtr(t)
		dwRowsPrefetch(t, 2*dwRowsPrefetchRows, slots)
		// load returns input vector slot k of the row (zero past the slots).
		load := func(k int) reg.VecVirtual {
			if k >= slots {
				return zero
			}
			x := s.vec()
			at := Mem{Base: p, Disp: k * s.bytes}
			if i := k - (slots - 3); i >= 0 {
				VMOVUPS_Z(at, mk[i], x)
			} else {
				VMOVUPS(at, x)
			}
			return x
		}
		// pair returns the even and odd columns of slots 2j and 2j+1.
		pair := func(j int) (reg.VecVirtual, reg.VecVirtual) {
			a, b := load(2*j), load(2*j+1)
			e, o := s.vec(), s.vec()
			VMOVAPS(a, e)
			VPERMT2PS(b, idxE, e)
			VMOVAPS(a, o)
			VPERMT2PS(b, idxO, o)
			return e, o
		}
		e, o := pair(0)
		prevO := zero
		for j := 0; j < m; j++ {
			var taps [3]reg.VecVirtual
			var ne, no reg.VecVirtual
			if pl == 1 {
				taps[0] = s.vec()
				VALIGND(U8(s.lanes-1), prevO, o, taps[0])
				taps[1], taps[2] = e, o
			} else {
				// (Slots 2j+2 and 2j+3: past the last slot, 2m, a zero.)
				ne, no = pair(j + 1)
				taps[0], taps[1] = e, o
				taps[2] = s.vec()
				VALIGND(U8(1), e, ne, taps[2])
			}
			dwRowsMadd(s, taps, wr, uses, accs, j)
			if j+1 < m {
				if pl == 1 {
					prevO = o
					e, o = pair(j + 1)
				} else {
					e, o = ne, no
				}
			}
		}
	}
	dwRowsBlockEnd(s, name, accs, dst, q, n, sk, 2*r)
}

// dwNCKernels emits the depthwise convolution of one block of s.lanes
// channels kept channel-minor (position p's channels are the vector at
// p*s.bytes), one kernel per column stride sw in {1, 2}: for r < rows and
// i < n, the vector at dst + r*dstStride + i*s.bytes is the per-lane chain
// (operand vectors sc[t*lanes:]) of the sum over taps t of float32(x * w)
// with x the vector at src + r*srcStride + 4*offs[t] + i*sw*s.bytes and w
// the vector at w + t*s.bytes, summed in tap order from +0 (VMULPS then
// VADDPS, TapSumF32's order per lane).
func dwNCKernels(s isa) {
	for _, sw := range []int{1, 2} {
		name := fmt.Sprintf("dwNCS%dF32%s", sw, s.suffix)
		text(name, "func(dst *float32, dstStride int, src *float32, srcStride int, offs *int, w *float32, ntaps, rows, n int, codes *uint8, sc *float32, nsteps int)")
		Doc(fmt.Sprintf("%s computes, for r < rows and i < n, the %d lanes at dst+r*dstStride+i*%d bytes: the per-lane chain of steps codes[t] (operands the vectors at sc+t*%d bytes, t < nsteps) on the sum over t < ntaps of float32(x*w), x the vector at src+r*srcStride+4*offs[t]+i*%d bytes and w the one at w+t*%d bytes, summed in order from +0; rows, n, ntaps >= 1 and every code is below %d.",
			name, s.lanes, s.bytes, s.bytes, sw*s.bytes, s.bytes, len(chainOps)))
		p := loadParams("dst", "src", "offs", "rows")
		dst, src, offs, rows := p[0], p[1], p[2], p[3]
		dwNCLoop(s, name, sw, dst, src, rows, dwNCBlocks(s), func(lbl string, b reg.GPVirtual, accs []reg.VecVirtual) {
			t, wp := GP64(), GP64()
			XORQ(t, t)
			MOVQ(paramAddr("w"), wp)
			Label(lbl + "_tap")
			off, q := GP64(), GP64()
			MOVQ(Mem{Base: offs, Index: t, Scale: 8}, off)
			LEAQ(Mem{Base: b, Index: off, Scale: 4}, q)
			wv := s.vec()
			VMOVUPS(Mem{Base: wp}, wv)
			for i := range accs {
				v := s.vec()
				VMULPS(mem(q, i*sw*s.bytes), wv, v)
				VADDPS(v, accs[i], accs[i])
			}
			ADDQ(U32(s.bytes), wp)
			INCQ(t)
			CMPQ(t, paramAddr("ntaps"))
			JL(LabelRef(lbl + "_tap"))
		})
	}
}

// chainColsKernels emits the chain with an operand per column on a
// row-major matrix in place (a GEMM's output whose columns are channels):
// column block b (s.lanes columns) takes its steps' operand vectors at sc +
// (b*nsteps+t)*s.bytes, the blocked layout of the depthwise kernels'; per
// block, rows go in groups of 8, 4, 2 and 1 vectors, one dispatch per step
// and group.
func chainColsKernels(s isa) {
	name := "chainColsF32" + s.suffix
	text(name, "func(x *float32, ld int, rows, blocks int, codes *uint8, sc *float32, nsteps int)")
	Doc(fmt.Sprintf("%s applies, for r < rows and column blocks b < blocks, the per-lane chain of steps codes[t] (operands the vectors at sc+(b*nsteps+t)*%d bytes) to the %d lanes at x+r*ld+b*%d bytes, in place; every code is below %d.",
		name, s.bytes, s.lanes, s.bytes, len(chainOps)))
	p := loadParams("x", "ld", "blocks", "codes", "sc")
	x, ld, blocks, codes, sc := p[0], p[1], p[2], p[3], p[4]
	stepBytes := GP64() // nsteps*s.bytes: the operands of one block
	MOVQ(paramAddr("nsteps"), stepBytes)
	SHLQ(U8(bits.TrailingZeros(uint(s.bytes))), stepBytes)
	Label(name + "_block")
	CMPQ(blocks, Imm(0))
	JLE(LabelRef(name + "_done"))
	q, k := GP64(), GP64()
	MOVQ(x, q)
	MOVQ(paramAddr("rows"), k)
	countBlocks(name, k, name+"_next", func(u int, lbl string) {
		vs := make([]reg.VecVirtual, u)
		r := GP64()
		MOVQ(q, r)
		for i := range vs {
			vs[i] = s.vec()
			VMOVUPS(Mem{Base: r}, vs[i])
			ADDQ(ld, r)
		}
		chainSteps(s, lbl+"_c", vs, codes, sc, paramAddr("nsteps"), true)
		for i := range vs {
			VMOVUPS(vs[i], Mem{Base: q})
			ADDQ(ld, q)
		}
	})
	Label(name + "_next")
	ADDQ(U32(s.bytes), x)
	ADDQ(stepBytes, sc)
	DECQ(blocks)
	JMP(LabelRef(name + "_block"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// halvingBlocks are blocks of 8, 4, 2 and 1 units, countBlocks' sizes.
var halvingBlocks = []int{8, 4, 2, 1}

// countBlocks emits blocks of 8, 4, 2 and 1 units over the count k: while
// k holds at least u units, body(u, lbl) runs (lbl prefixes its labels)
// and k drops by u; then the code goes on at the label end.
func countBlocks(name string, k reg.GPVirtual, end string, body func(u int, lbl string)) {
	countBlocksOf(name, halvingBlocks, k, end, body)
}

// countBlocksOf is countBlocks with the block sizes sizes, largest first,
// the last 1.
func countBlocksOf(name string, sizes []int, k reg.GPVirtual, end string, body func(u int, lbl string)) {
	for i, u := range sizes {
		lbl := fmt.Sprintf("%s_u%d", name, u)
		next := end
		if i+1 < len(sizes) {
			next = fmt.Sprintf("%s_u%d", name, sizes[i+1])
		}
		Label(lbl)
		CMPQ(k, U32(u))
		JL(LabelRef(next))
		body(u, lbl)
		SUBQ(U32(u), k)
		JMP(LabelRef(lbl))
	}
}

// dwNCBlocks are the blocked depthwise kernels' blocks of positions: at
// AVX-512 also a row of 14 or 7 (MobileNet's 14² and 7² planes) in one
// block, so that the chain's steps are dispatched once a row instead of
// three times (8, 4 and 2) and no short block's sums wait on each other;
// 14 accumulators with the nine weights fit the 32 registers. The chain
// after each block had taken more time than the taps' products and sums
// (pprof by source line of MobileNetV2's 576-channel layer on 14²: 500 and
// 410 ms). BenchmarkConv2DChain, 1 thread, twelve alternated runs, medians
// µs: dw384x14x14 117 -> 101, dw576x14x14 173 -> 153, dw960x7x7 124 -> 98,
// dw144x56x56 560 -> 547 (minimums 0.88-1.04 of the old).
func dwNCBlocks(s isa) []int {
	if s.avx512 {
		return []int{14, 8, 7, 4, 2, 1}
	}
	return halvingBlocks
}

// dwNCSevens are the blocks of the AVX2 3x3 kernels' Sevens forms, for
// rows of a multiple of 7 positions (MobileNet's 7², 14², 28² and 56²
// planes): 14 accumulators do not fit AVX2's 16 registers, but blocks of 7
// make a 14-wide row two blocks instead of three (8, 4 and 2), whose 2-block
// sums wait on one another. BenchmarkConv2DChain at RELAXGO_ISA=avx2, 1
// thread, ten alternated runs with blocks of 7 for every width, medians
// µs: dw384x14x14 254 -> 234, dw576x14x14 400 -> 368, dw960x7x7 291 -> 212;
// but dw192x28x28 394 -> 417 (four blocks of 7 against three of 8 and one
// of 4), hence for 7² and 14² only (asmDepthwiseNC3x3); with that rule,
// ten more runs: dw384x14x14 224 -> 199, dw576x14x14 333 -> 296,
// dw960x7x7 233 -> 181, dw192x28x28 334 -> 334.
var dwNCSevens = []int{7, 1}

// dwNCLoop emits the loop the blocked depthwise kernels share: rows rows
// (dst and src advanced by the dstStride and srcStride parameters), each
// of the n parameter's positions in blocks of the sizes blocks. For a
// block, the accumulators start at +0, taps adds the window's products
// (b is the block's first input position, lbl prefixes its labels), then
// the chain (codes, sc, nsteps parameters; one operand vector per lane)
// runs and the block is stored.
func dwNCLoop(s isa, name string, sw int, dst, src, rows reg.GPVirtual, blocks []int, taps func(lbl string, b reg.GPVirtual, accs []reg.VecVirtual)) {
	Label(name + "_row")
	CMPQ(rows, Imm(0))
	JLE(LabelRef(name + "_done"))
	d, b, k := GP64(), GP64(), GP64()
	MOVQ(dst, d)
	MOVQ(src, b)
	MOVQ(paramAddr("n"), k)
	countBlocksOf(name, blocks, k, name+"_next", func(u int, lbl string) {
		accs := make([]reg.VecVirtual, u)
		for i := range accs {
			accs[i] = s.vec()
			VXORPS(accs[i], accs[i], accs[i])
		}
		taps(lbl, b, accs)
		codes, sc := GP64(), GP64()
		MOVQ(paramAddr("codes"), codes)
		MOVQ(paramAddr("sc"), sc)
		chainSteps(s, lbl+"_c", accs, codes, sc, paramAddr("nsteps"), true)
		for i := range accs {
			VMOVUPS(accs[i], mem(d, i*s.bytes))
		}
		ADDQ(U32(u*s.bytes), d)
		ADDQ(U32(u*sw*s.bytes), b)
	})
	Label(name + "_next")
	ADDQ(paramAddr("dstStride"), dst)
	ADDQ(paramAddr("srcStride"), src)
	DECQ(rows)
	JMP(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// tapSumLoop is the body of the tap-sum kernels, fin as tapLoop's.
func tapSumLoop(s isa, name string, fin func(lbl string, accs []reg.VecVirtual)) {
	p := loadParams("dst", "base", "offs", "w", "ntaps", "n")
	dst, base, offs, w, nt, n := p[0], p[1], p[2], p[3], p[4], p[5]
	tapLoop(s, name, dst, base, offs, nt, n, 8,
		func(acc reg.VecVirtual) { VXORPS(acc, acc, acc) },
		func(t reg.GPVirtual) func(acc reg.VecVirtual, x Mem) {
			wv := s.vec()
			VBROADCASTSS(Mem{Base: w, Index: t, Scale: 4}, wv)
			return func(acc reg.VecVirtual, x Mem) {
				v := s.vec()
				VMULPS(x, wv, v)
				VADDPS(v, acc, acc)
			}
		}, fin)
}

// tapLoop emits the loop the tap kernels share: blocks of big vectors, then
// single ones, each with accumulators set by init; for each tap t < nt,
// tap(t) is emitted once (it may load the tap's weight) and the step it
// returns runs on every accumulator with the base vector at offs[t]; fin,
// when not nil, then runs on the accumulators (lbl prefixes its labels),
// which are stored to dst.
func tapLoop(s isa, name string, dst, base, offs, nt, n reg.GPVirtual, big int, init func(acc reg.VecVirtual), tap func(t reg.GPVirtual) func(acc reg.VecVirtual, x Mem), fin func(lbl string, accs []reg.VecVirtual)) {
	vecBlocks(s, name, n, []reg.GPVirtual{dst, base}, big, func(u int, lbl string) {
		accs := make([]reg.VecVirtual, u)
		for i := range accs {
			accs[i] = s.vec()
			init(accs[i])
		}
		t := GP64()
		XORQ(t, t)
		Label(lbl + "_tap")
		off := GP64()
		MOVQ(Mem{Base: offs, Index: t, Scale: 8}, off)
		step := tap(t)
		p := GP64()
		LEAQ(Mem{Base: base, Index: off, Scale: 4}, p)
		for i := range accs {
			step(accs[i], mem(p, i*s.bytes))
		}
		INCQ(t)
		CMPQ(t, nt)
		JL(LabelRef(lbl + "_tap"))
		if fin != nil {
			fin(lbl, accs)
		}
		for i := range accs {
			VMOVUPS(accs[i], mem(dst, i*s.bytes))
		}
	})
}

// winogradKernels emits the input and output transforms of the Winograd
// convolution F(2x2, 3x3), elementwise over flat tile indices k (tile row
// ty, column tx at k = ty*wq + tx), in a fixed order of float32 adds and
// subtracts (the Go twins' order):
//
// In: the tile's 4x4 input patch d[i][j] is phase plane (i%2, j%2) of
// the padded channel (the planes psub floats apart, rows wq apart) at k +
// (i/2)*wq + j/2; u_s[i] = d[i]·B (s=0: d0-d2, 1: d1+d2, 2: d2-d1, 3:
// d1-d3), then v[4r+s] = B^T·u_s (r=0: u0-u2, 1: u1+u2, 2: u2-u1, 3:
// u1-u3), stored at v + (4r+s)*vstride + k.
//
// Out: m[ξ] at m + ξ*mstride + k; t_b[r] = (m[4r]+m[4r+1])+m[4r+2] (b=0),
// (m[4r+1]-m[4r+2])-m[4r+3] (b=1); y[a][b] = (t_b[0]+t_b[1])+t_b[2]
// (a=0), (t_b[1]-t_b[2])-t_b[3] (a=1), stored at y + (2a+b)*ystride + k.
func winogradKernels(s isa) {
	name := "winoInF32" + s.suffix
	text(name, "func(v *float32, vstride int, p *float32, psub, wq, n int)")
	Doc(fmt.Sprintf("%s is the Winograd F(2x2,3x3) input transform of n tiles (a multiple of %d): see winogradKernels in asm/gen.", name, s.lanes))
	v, vs, p, psub, wq, n := winoInParams()
	// The four phase planes' bases (row parity a, column parity b: plane 2a+b).
	planes := [4]reg.GPVirtual{p, GP64(), GP64(), GP64()}
	for q := 1; q < 4; q++ {
		MOVQ(planes[q-1], planes[q])
		ADDQ(psub, planes[q])
	}
	d := func(i, j int) Mem {
		m := Mem{Base: planes[(i%2)*2+j%2], Disp: 4 * (j / 2)}
		if i/2 == 1 {
			m.Index, m.Scale = wq, 1
		}
		return m
	}
	tileLoopHead(name, n)
	out := GP64()
	for sIdx := 0; sIdx < 4; sIdx++ {
		var u [4]reg.VecVirtual
		for i := 0; i < 4; i++ {
			u[i] = s.vec()
			a, b := s.vec(), s.vec()
			switch sIdx {
			case 0: // d0 - d2
				VMOVUPS(d(i, 0), a)
				VMOVUPS(d(i, 2), b)
				VSUBPS(b, a, u[i])
			case 1: // d1 + d2
				VMOVUPS(d(i, 1), a)
				VMOVUPS(d(i, 2), b)
				VADDPS(b, a, u[i])
			case 2: // d2 - d1
				VMOVUPS(d(i, 2), a)
				VMOVUPS(d(i, 1), b)
				VSUBPS(b, a, u[i])
			case 3: // d1 - d3
				VMOVUPS(d(i, 1), a)
				VMOVUPS(d(i, 3), b)
				VSUBPS(b, a, u[i])
			}
		}
		stridedStores(out, v, vs, sIdx, 4, 4, func(r int) reg.VecVirtual {
			t := s.vec()
			switch r {
			case 0:
				VSUBPS(u[2], u[0], t)
			case 1:
				VADDPS(u[2], u[1], t)
			case 2:
				VSUBPS(u[1], u[2], t)
			case 3:
				VSUBPS(u[3], u[1], t)
			}
			return t
		})
	}
	tileLoopEnd(name, s, n, planes[0], planes[1], planes[2], planes[3], v)

	name = "winoOutF32" + s.suffix
	text(name, "func(y *float32, ystride int, m *float32, mstride, n int)")
	Doc(fmt.Sprintf("%s is the Winograd F(2x2,3x3) output transform of n tiles (a multiple of %d): see winogradKernels in asm/gen.", name, s.lanes))
	y, ys, mp, ms, n := winoOutParams()
	tileLoopHead(name, n)
	src := GP64()
	// m[ξ] = src after ξ strides; t[b][r] for the 4 rows r.
	var tv [2][4]reg.VecVirtual
	MOVQ(mp, src)
	for r := 0; r < 4; r++ {
		var mv [4]reg.VecVirtual
		for c := 0; c < 4; c++ {
			mv[c] = s.vec()
			VMOVUPS(Mem{Base: src}, mv[c])
			ADDQ(ms, src)
		}
		tv[0][r], tv[1][r] = s.vec(), s.vec()
		VADDPS(mv[1], mv[0], tv[0][r])
		VADDPS(mv[2], tv[0][r], tv[0][r])
		VSUBPS(mv[2], mv[1], tv[1][r])
		VSUBPS(mv[3], tv[1][r], tv[1][r])
	}
	dst := GP64()
	MOVQ(y, dst)
	for a := 0; a < 2; a++ {
		for b := 0; b < 2; b++ {
			t := tv[b]
			o := s.vec()
			if a == 0 {
				VADDPS(t[1], t[0], o)
				VADDPS(t[2], o, o)
			} else {
				VSUBPS(t[2], t[1], o)
				VSUBPS(t[3], o, o)
			}
			VMOVUPS(o, Mem{Base: dst})
			ADDQ(ys, dst)
		}
	}
	tileLoopEnd(name, s, n, y, mp)
}

// tapMaxKernels emits dst[i] = the running maximum (emitMaxNaN: a NaN tap
// replaces what came before, else Go's max) over t of base[offs[t]+i],
// from lo: a max pooling over a padded plane, one call per plane.
func tapMaxKernels(s isa) {
	name := "tapMaxF32" + s.suffix
	text(name, "func(dst, base *float32, offs *int, lo float32, ntaps, n int)")
	Doc(fmt.Sprintf("%s computes dst[i] = the running maximum from lo over t < ntaps of base[offs[t]+i] (a NaN tap replaces the maximum, else Go's max), for i < n; n is a multiple of %d and ntaps >= 1.", name, s.lanes))
	dst := Load(Param("dst"), GP64()).(reg.GPVirtual)
	base := Load(Param("base"), GP64()).(reg.GPVirtual)
	offs := Load(Param("offs"), GP64()).(reg.GPVirtual)
	nt := Load(Param("ntaps"), GP64()).(reg.GPVirtual)
	n := Load(Param("n"), GP64()).(reg.GPVirtual)
	// Blocks of 4 at AVX2, whose 16 registers emitMaxNaN's temporaries
	// fill; 8 at AVX-512, where a block of 4 left the running maxima's
	// chains (a max, a max, a ternary logic and a masked move a tap)
	// waiting on each other: BenchmarkOpMaxPool2D, 1 thread, six
	// alternated runs, medians, µs: GoogLeNet's 3x3/1 pools on 192x28²
	// 94.4 -> 87.3, 512x14² 72.8 -> 65.7, 832x7² 46.6 -> 44.4 (the same
	// bits: each lane's operations are unchanged).
	big := 4
	if s.avx512 {
		big = 8
	}
	tapLoop(s, name, dst, base, offs, nt, n, big,
		func(acc reg.VecVirtual) { VBROADCASTSS(NewParamAddr("lo", 24), acc) },
		func(reg.GPVirtual) func(acc reg.VecVirtual, x Mem) {
			return func(acc reg.VecVirtual, x Mem) {
				v := s.vec()
				VMOVUPS(x, v)
				emitMaxNaN(s, acc, v, acc)
			}
		}, nil)
}

// scaleMulAddKernels emits dst[i] = (x[i]*s)*g[i] + b[i], each operation
// rounded and in the operand order of MulScalarF32, MulF32 and AddF32 run
// one after another (a layer norm's last three steps, in one pass).
func scaleMulAddKernels(s isa) {
	name := "scaleMulAddF32" + s.suffix
	// (Not "g": the Go assembler's name of the goroutine register.)
	text(name, "func(dst, x *float32, s float32, gain, bias *float32, n int)")
	Doc(fmt.Sprintf("%s computes dst[i] = (x[i]*s)*gain[i] + bias[i], each operation rounded, for i < n; n is a multiple of %d.", name, s.lanes))
	p := loadParams("dst", "x", "gain", "bias", "n")
	dst, x, g, b, n := p[0], p[1], p[2], p[3], p[4]
	sv := s.vec()
	VBROADCASTSS(NewParamAddr("s", 16), sv)
	loop(s, name, n, []reg.GPVirtual{dst, x, g, b}, 4, func(u int) {
		v := s.vec()
		VMOVUPS(mem(x, u*s.bytes), v)
		VMULPS(sv, v, v)                // x * s
		VMULPS(mem(g, u*s.bytes), v, v) // * g
		VADDPS(mem(b, u*s.bytes), v, v) // + b
		VMOVUPS(v, mem(dst, u*s.bytes))
	})
}

// dot8AVX2 emits dot8F32AVX2: acc[i%8] += x[i]*y[i] (the product rounded
// first) for i < n, a multiple of 8, in index order: one 8-lane
// accumulator, so each lane adds its products in the order of dot32's
// eight partial sums; the twin fixes the NaN precedence of its operand
// order (acc + p; x * y). Short rows (a layer norm's 128) are where the Go
// loop was slow; AVX-512 uses it too.
func dot8AVX2() {
	name := "dot8F32AVX2"
	text(name, "func(x, y *float32, n int, acc *[8]float32)")
	Doc(name + " adds x[i]*y[i] (rounded) into acc[i%8] for i < n in index order; n is a multiple of 8.")
	p := loadParams("x", "y", "n", "acc")
	x, y, n, accp := p[0], p[1], p[2], p[3]
	a := YMM()
	VMOVUPS(Mem{Base: accp}, a)
	Label(name + "_loop")
	CMPQ(n, U32(8))
	JL(LabelRef(name + "_done"))
	v := YMM()
	VMOVUPS(Mem{Base: x}, v)
	VMULPS(Mem{Base: y}, v, v) // x * y
	VADDPS(v, a, a)            // acc + p
	ADDQ(U32(32), x)
	ADDQ(U32(32), y)
	SUBQ(U32(8), n)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	VMOVUPS(a, Mem{Base: accp})
	VZEROUPPER()
	RET()
}

// combine64AVX2 emits combine64F32AVX2: the 64 partial sums of the
// reductions folded pairwise, for w := 32; w >= 1; w /= 2 { acc[i] +=
// acc[i+w] for i < w }, each add with the lower half as its first operand
// (the twin's lo[i] += hi[i], whose NaN an add of two NaNs keeps), in
// registers: eight vectors, then halves of one. The Go loop (63 scalar
// adds with their loads and stores) was about half of a short reduction's
// time (BenchmarkReduceRow32: a sum of 64 elements 52 -> 26 ns, of 768 64
// -> 35) and 29% of a layer norm's profile on rows of 256. AVX-512 runs
// it too.
func combine64AVX2() {
	name := "combine64F32AVX2"
	text(name, "func(acc *[64]float32) float32")
	Doc(name + " returns the sum of acc's 64 partial sums folded pairwise (sumCombine64's order).")
	p := loadParams("acc")
	accp := p[0]
	v := make([]reg.VecVirtual, 8)
	for i := range v {
		v[i] = YMM()
		VMOVUPS(Mem{Base: accp, Disp: 32 * i}, v[i])
	}
	for w := 4; w >= 1; w /= 2 { // w vectors of 8: acc[i] += acc[i+8w]
		for i := 0; i < w; i++ {
			VADDPS(v[i+w], v[i], v[i]) // v[i] + v[i+w]
		}
	}
	lo, hi := v[0].AsX(), XMM()
	VEXTRACTF128(U8(1), v[0], hi)
	VADDPS(hi, lo, lo) // w=4
	VMOVHLPS(lo, lo, hi)
	VADDPS(hi, lo, lo) // w=2: lanes 0, 1 += lanes 2, 3
	VMOVSHDUP(lo, hi)
	VADDSS(hi, lo, lo) // w=1: lane 0 += lane 1
	ret, err := ReturnIndex(0).Resolve()
	if err != nil {
		panic(err)
	}
	VMOVSS(lo, ret.Addr) // (VEX: Store's MOVSS is SSE)
	VZEROUPPER()
	RET()
}

// sum8RowsAVX2 emits sum8RowsF32AVX2: for each of rows rows (stride floats
// apart) acc[8r+l] = the sum of x[r*stride+8i+l] over i < n/8, in index
// order from +0: the eight interleaved partial sums of kernels.sum32 for a
// short row, one 8-lane accumulator a row. Rows go four at a time, so four
// independent chains of adds cover the add latency that keeps one row's
// chain (or sum32's Go loop) at a quarter of the adder's rate: a global
// average pool's or a mean's many short planes. The sum is acc + x (the
// Go loop's operand order, so its NaN). AVX-512 uses it too.
func sum8RowsAVX2() {
	name := "sum8RowsF32AVX2"
	text(name, "func(x *float32, stride, rows, n int, acc *float32)")
	Doc(name + " sets acc[8r+l] to the sum of x[r*stride+8i+l] over i < n/8 in index order, for r < rows; n is a multiple of 8.")
	p := loadParams("x", "stride", "rows", "n", "acc")
	x, stride, rows, n, acc := p[0], p[1], p[2], p[3], p[4]
	SHLQ(U8(2), stride) // bytes
	nb := GP64()
	MOVQ(n, nb)
	SHLQ(U8(2), nb)                          // a row's bytes
	r2, row1, row3 := GP64(), GP64(), GP64() // rows 2, 1 and 3 of the four
	i := GP64()
	a := []reg.VecVirtual{YMM(), YMM(), YMM(), YMM()}
	Label(name + "_four")
	CMPQ(rows, U32(4))
	JL(LabelRef(name + "_one"))
	LEAQ(Mem{Base: x, Index: stride, Scale: 2}, r2)
	LEAQ(Mem{Base: x, Index: stride, Scale: 1}, row1)
	LEAQ(Mem{Base: r2, Index: stride, Scale: 1}, row3)
	for _, v := range a {
		VXORPS(v, v, v)
	}
	XORQ(i, i)
	Label(name + "_four_loop")
	CMPQ(i, nb)
	JGE(LabelRef(name + "_four_done"))
	VADDPS(Mem{Base: x, Index: i, Scale: 1}, a[0], a[0])
	VADDPS(Mem{Base: row1, Index: i, Scale: 1}, a[1], a[1])
	VADDPS(Mem{Base: r2, Index: i, Scale: 1}, a[2], a[2])
	VADDPS(Mem{Base: row3, Index: i, Scale: 1}, a[3], a[3])
	ADDQ(U32(32), i)
	JMP(LabelRef(name + "_four_loop"))
	Label(name + "_four_done")
	for k, v := range a {
		VMOVUPS(v, Mem{Base: acc, Disp: 32 * k})
	}
	ADDQ(U32(128), acc)
	LEAQ(Mem{Base: r2, Index: stride, Scale: 2}, x)
	SUBQ(U32(4), rows)
	JMP(LabelRef(name + "_four"))
	Label(name + "_one")
	CMPQ(rows, U32(0))
	JE(LabelRef(name + "_done"))
	VXORPS(a[0], a[0], a[0])
	XORQ(i, i)
	Label(name + "_one_loop")
	CMPQ(i, nb)
	JGE(LabelRef(name + "_one_done"))
	VADDPS(Mem{Base: x, Index: i, Scale: 1}, a[0], a[0])
	ADDQ(U32(32), i)
	JMP(LabelRef(name + "_one_loop"))
	Label(name + "_one_done")
	VMOVUPS(a[0], Mem{Base: acc})
	ADDQ(U32(32), acc)
	ADDQ(stride, x)
	DECQ(rows)
	JMP(LabelRef(name + "_one"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// loop8 emits the loop of a pair-moving kernel: body, which moves 8 pairs
// and advances its pointers and n, runs while n >= 8; then the kernel
// returns.
func loop8(name string, n reg.GPVirtual, body func()) {
	Label(name + "_loop")
	CMPQ(n, U32(8))
	JL(LabelRef(name + "_done"))
	body()
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// interleave2AVX2 is the inverse of deinterleave2RowsAVX2 on one row: dst[2k] = even[k],
// dst[2k+1] = odd[k] (the Winograd convolution's output columns). Pure
// data movement, so the AVX-512 level uses it too.
func interleave2AVX2() {
	name := "interleave2F32AVX2"
	text(name, "func(dst, even, odd *float32, n int)")
	Doc(name + " sets dst[2k] = even[k] and dst[2k+1] = odd[k] for k < n; n is a multiple of 8.")
	dst := Load(Param("dst"), GP64()).(reg.GPVirtual)
	even := Load(Param("even"), GP64()).(reg.GPVirtual)
	odd := Load(Param("odd"), GP64()).(reg.GPVirtual)
	n := Load(Param("n"), GP64()).(reg.GPVirtual)
	loop8(name, n, func() {
		e, o, lo, hi := YMM(), YMM(), YMM(), YMM()
		VMOVUPS(Mem{Base: even}, e)
		VMOVUPS(Mem{Base: odd}, o)
		VUNPCKLPS(o, e, lo) // e0 o0 e1 o1 | e4 o4 e5 o5
		VUNPCKHPS(o, e, hi) // e2 o2 e3 o3 | e6 o6 e7 o7
		a, b := YMM(), YMM()
		VPERM2F128(U8(0x20), hi, lo, a) // e0 o0 e1 o1 e2 o2 e3 o3
		VPERM2F128(U8(0x31), hi, lo, b) // e4 o4 ... e7 o7
		VMOVUPS(a, Mem{Base: dst})
		VMOVUPS(b, Mem{Base: dst, Disp: 32})
		ADDQ(U32(32), even)
		ADDQ(U32(32), odd)
		ADDQ(U32(64), dst)
		SUBQ(U32(8), n)
	})
}

// deinterleave2RowsAVX2 splits pairs by column parity over rows: row r reads src
// + r*srcStride and writes even/odd + r*dstStride (strides in elements),
// n pairs per row, the last n%8 with scalar moves.
func deinterleave2RowsAVX2() {
	name := "deinterleave2RowsAVX2"
	text(name, "func(even, odd, src *float32, n, rows, dstStride, srcStride int)")
	Doc(name + " sets even[r*dstStride+k] = src[r*srcStride+2k] and odd[r*dstStride+k] = src[r*srcStride+2k+1] for r < rows, k < n.")
	even := Load(Param("even"), GP64()).(reg.GPVirtual)
	odd := Load(Param("odd"), GP64()).(reg.GPVirtual)
	src := Load(Param("src"), GP64()).(reg.GPVirtual)
	rows := Load(Param("rows"), GP64()).(reg.GPVirtual)
	ds := Load(Param("dstStride"), GP64()).(reg.GPVirtual)
	ss := Load(Param("srcStride"), GP64()).(reg.GPVirtual)
	SHLQ(U8(2), ds)
	SHLQ(U8(2), ss)
	e, o, s, k := GP64(), GP64(), GP64(), GP64()
	Label(name + "_row")
	CMPQ(rows, U32(0))
	JE(LabelRef(name + "_done"))
	MOVQ(even, e)
	MOVQ(odd, o)
	MOVQ(src, s)
	Load(Param("n"), k)
	Label(name + "_vec")
	CMPQ(k, U32(8))
	JL(LabelRef(name + "_four"))
	deinterleave8(e, o, s, k)
	JMP(LabelRef(name + "_vec"))
	Label(name + "_four")
	CMPQ(k, U32(4))
	JL(LabelRef(name + "_tail"))
	{
		a, ev, od := YMM(), YMM(), YMM()
		VMOVUPS(mem(s, 0), a)
		VSHUFPS(U8(0x88), a, a, ev) // a0 a2 a0 a2 | a4 a6 a4 a6
		VSHUFPS(U8(0xDD), a, a, od)
		VPERMPD(U8(0x08), ev, ev) // qwords 0, 2
		VPERMPD(U8(0x08), od, od)
		VMOVUPS(ev.AsX(), mem(e, 0))
		VMOVUPS(od.AsX(), mem(o, 0))
		ADDQ(U32(32), s)
		ADDQ(U32(16), e)
		ADDQ(U32(16), o)
		SUBQ(U32(4), k)
	}
	Label(name + "_tail")
	CMPQ(k, U32(0))
	JE(LabelRef(name + "_next"))
	t := GP32()
	MOVL(mem(s, 0), t)
	MOVL(t, mem(e, 0))
	MOVL(mem(s, 4), t)
	MOVL(t, mem(o, 0))
	ADDQ(U32(8), s)
	ADDQ(U32(4), e)
	ADDQ(U32(4), o)
	DECQ(k)
	JMP(LabelRef(name + "_tail"))
	Label(name + "_next")
	ADDQ(ds, even)
	ADDQ(ds, odd)
	ADDQ(ss, src)
	DECQ(rows)
	JMP(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// deinterleave2RowsAVX512 is deinterleave2RowsAVX2 at 16 pairs a step
// for rows of at least 16 pairs: two shuffles split a step's 32 values by
// parity with 64-bit pairs of the two source vectors alternating, and a
// permutation of each puts them in order. Rows run in rowLoop, the odd
// outputs addressed at their fixed distance from the even ones; a row's
// last partial step moves some pairs again (the destinations do not
// overlap the source).
func deinterleave2RowsAVX512() {
	name := "deinterleave2RowsAVX512"
	text(name, "func(even, odd, src *float32, n, rows, dstStride, srcStride int)")
	Doc(name + " sets, for r < rows and k < n, element k of the rows at even and odd plus r*dstStride bytes to elements 2k and 2k+1 of the row at src plus r*srcStride bytes; n >= 16 and the destinations do not overlap src.")
	p := loadParams("even", "odd", "src", "n", "rows")
	even, odd, src, n, rows := p[0], p[1], p[2], p[3], p[4]
	idx := ZMM()
	VPMOVZXBQ(pairOrder(), idx)
	step := func(e, delta, x reg.GPVirtual) {
		a, b, ev, od := ZMM(), ZMM(), ZMM(), ZMM()
		VMOVUPS(mem(x, 0), a)
		VMOVUPS(mem(x, 64), b)
		VSHUFPS(U8(0x88), b, a, ev)
		VSHUFPS(U8(0xDD), b, a, od)
		VPERMPD(ev, idx, ev)
		VPERMPD(od, idx, od)
		VMOVUPS(ev, mem(e, 0))
		VMOVUPS(od, Mem{Base: e, Index: delta, Scale: 1})
	}
	// The odd outputs sit a fixed distance from the even ones.
	delta := GP64()
	MOVQ(odd, delta)
	SUBQ(even, delta)
	rowLoop(avx512, name, rows, n, []reg.GPVirtual{even, src}, 1, 2, func(_ int, _ string, p []reg.GPVirtual) {
		step(p[0], delta, p[1])
	}, func() {
		ADDQ(paramAddr("dstStride"), even)
		ADDQ(paramAddr("srcStride"), src)
	})
}

// packAAVX2 emits packA{rows}AVX2, the transposing copy of a GEMM's A
// panel: dst[p*mr+i] = src[i*lda+p] for i < rows (8 or 4) and p < kc, kc a
// multiple of 8 (strides in elements), one 8x8 (or 4x8) transpose per
// eight depth steps: unpack pairs of rows, shuffle pairs of pairs, swap
// 128-bit halves.
func packAAVX2(rows int) {
	name := fmt.Sprintf("packA%dAVX2", rows)
	text(name, "func(dst, src *float32, mr, lda, kc int)")
	Doc(fmt.Sprintf("%s sets dst[p*mr+i] = src[i*lda+p] for i < %d, p < kc; kc is a multiple of 8.", name, rows))
	dst := Load(Param("dst"), GP64()).(reg.GPVirtual)
	src := Load(Param("src"), GP64()).(reg.GPVirtual)
	mr := Load(Param("mr"), GP64()).(reg.GPVirtual)
	lda := Load(Param("lda"), GP64()).(reg.GPVirtual)
	kc := Load(Param("kc"), GP64()).(reg.GPVirtual)
	SHLQ(U8(2), mr)
	SHLQ(U8(2), lda)
	// Row pointers: rows 0-3 from src (index lda*{0,1,2}, and 3 = 2+1),
	// rows 4-7 from src+4*lda.
	lda3 := GP64()
	LEAQ(Mem{Base: lda, Index: lda, Scale: 2}, lda3)
	src4 := GP64()
	step := GP64() // 8*mr bytes: the destination's advance per 8 steps
	MOVQ(mr, step)
	SHLQ(U8(3), step)
	Label(name + "_loop")
	CMPQ(kc, U32(8))
	JL(LabelRef(name + "_done"))
	r := make([]reg.VecVirtual, rows)
	for i := range r {
		r[i] = YMM()
	}
	VMOVUPS(Mem{Base: src}, r[0])
	VMOVUPS(Mem{Base: src, Index: lda, Scale: 1}, r[1])
	VMOVUPS(Mem{Base: src, Index: lda, Scale: 2}, r[2])
	VMOVUPS(Mem{Base: src, Index: lda3, Scale: 1}, r[3])
	if rows == 8 {
		LEAQ(Mem{Base: src, Index: lda, Scale: 4}, src4)
		VMOVUPS(Mem{Base: src4}, r[4])
		VMOVUPS(Mem{Base: src4, Index: lda, Scale: 1}, r[5])
		VMOVUPS(Mem{Base: src4, Index: lda, Scale: 2}, r[6])
		VMOVUPS(Mem{Base: src4, Index: lda3, Scale: 1}, r[7])
	}
	d := GP64()
	MOVQ(dst, d)
	if rows == 8 {
		cols := transpose8x8(r)
		for c := 0; c < 8; c++ {
			VMOVUPS(cols[c], Mem{Base: d})
			ADDQ(mr, d)
		}
	} else {
		u := transposeQuad(r)
		for c := 0; c < 4; c++ {
			VMOVUPS(u[c].AsX(), Mem{Base: d})
			ADDQ(mr, d)
		}
		for c := 0; c < 4; c++ {
			VEXTRACTF128(U8(1), u[c], Mem{Base: d})
			ADDQ(mr, d)
		}
	}
	ADDQ(step, dst)
	ADDQ(U32(32), src)
	SUBQ(U32(8), kc)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// transposeQuad transposes the rows r[0..3] of eight floats: u[c] holds
// column c in its low half and column c+4 in its high half (unpack pairs of
// rows, shuffle pairs of pairs).
func transposeQuad(r []reg.VecVirtual) [4]reg.VecVirtual {
	t := [4]reg.VecVirtual{YMM(), YMM(), YMM(), YMM()}
	VUNPCKLPS(r[1], r[0], t[0])
	VUNPCKHPS(r[1], r[0], t[1])
	VUNPCKLPS(r[3], r[2], t[2])
	VUNPCKHPS(r[3], r[2], t[3])
	u := [4]reg.VecVirtual{YMM(), YMM(), YMM(), YMM()}
	VSHUFPS(U8(0x44), t[2], t[0], u[0])
	VSHUFPS(U8(0xEE), t[2], t[0], u[1])
	VSHUFPS(U8(0x44), t[3], t[1], u[2])
	VSHUFPS(U8(0xEE), t[3], t[1], u[3])
	return u
}

// transpose8x8 returns the columns of the 8x8 block whose rows are r: two
// quads transposed, then their 128-bit halves swapped.
func transpose8x8(r []reg.VecVirtual) [8]reg.VecVirtual {
	lo, hi := transposeQuad(r[:4]), transposeQuad(r[4:])
	var cols [8]reg.VecVirtual
	for c := 0; c < 4; c++ {
		cols[c], cols[c+4] = YMM(), YMM()
		VPERM2F128(U8(0x20), hi[c], lo[c], cols[c])
		VPERM2F128(U8(0x31), hi[c], lo[c], cols[c+4])
	}
	return cols
}

// loadRows emits the loads of a transpose block's n rows, the first at q
// and each lds bytes after the last (q advances): with full every row,
// else only rows < rows (a register), jumping to the label done after the
// last present one (the others keep what they held); load(i, at) loads row
// i from at.
func loadRows(n int, full bool, rows, q, lds reg.GPVirtual, done string, load func(i int, at Mem)) {
	for i := 0; i < n; i++ {
		if !full && i > 0 {
			CMPQ(rows, U32(i))
			JLE(LabelRef(done))
		}
		load(i, Mem{Base: q})
		if i < n-1 {
			ADDQ(lds, q)
		}
	}
	Label(done)
}

// transposeAVX2 emits transposeAVX2, batch matrix transposes in 8x8 blocks
// (transpose8x8): dst[b*dstep+c*ldd+r] = src[b*sstep+r*lds+c] for b <
// batch, r < rows and c < cols, strides in elements. The last row block's missing rows are not loaded and
// its columns are stored under a mask of the rows present (VMASKMOVPS); the
// last column block's rows are loaded under a mask of the columns present
// and only those columns stored. It moves a block of channel planes to and
// from the channel-minor layout of the blocked depthwise convolution, one
// call each way (the way in a batch of rows, one per row of the planes).
func transposeAVX2() {
	name := "transposeAVX2"
	text(name, "func(dst *float32, ldd int, src *float32, lds int, rows, cols, batch, dstep, sstep int)")
	Doc(fmt.Sprintf("%s sets dst[b*dstep+c*ldd+r] = src[b*sstep+r*lds+c] for b < batch, r < rows, c < cols (strides in elements), in 8x8 blocks, the partial ones under masks.", name))
	p := loadParams("ldd", "lds")
	ldd, lds := p[0], p[1]
	dst, src, rows := GP64(), GP64(), GP64()
	SHLQ(U8(2), ldd)
	SHLQ(U8(2), lds)
	var rm, cm reg.VecVirtual
	// block emits the row block at src/dst: every row present (full) or
	// the rows < rows (< 8) only.
	block := func(lbl string, full bool) {
		sp, dp, k := GP64(), GP64(), GP64()
		MOVQ(src, sp)
		MOVQ(dst, dp)
		MOVQ(paramAddr("cols"), k)
		load := func(tail bool) []reg.VecVirtual {
			r := make([]reg.VecVirtual, 8)
			q := GP64()
			MOVQ(sp, q)
			for i := range r {
				r[i] = YMM()
				VXORPS(r[i], r[i], r[i])
			}
			loadRows(8, full, rows, q, lds, fmt.Sprintf("%s_%v_loaded", lbl, tail), func(i int, at Mem) {
				if tail {
					VMASKMOVPS(at, cm, r[i])
				} else {
					VMOVUPS(at, r[i])
				}
			})
			return r
		}
		store := func(col reg.VecVirtual, q reg.GPVirtual) {
			if full {
				VMOVUPS(col, Mem{Base: q})
			} else {
				VMASKMOVPS(col, rm, Mem{Base: q})
			}
		}
		Label(lbl + "_cols")
		CMPQ(k, U32(8))
		JL(LabelRef(lbl + "_ctail"))
		cols := transpose8x8(load(false))
		for c := range cols {
			store(cols[c], dp)
			ADDQ(ldd, dp) // after eight, the next column block
		}
		ADDQ(U32(32), sp)
		SUBQ(U32(8), k)
		JMP(LabelRef(lbl + "_cols"))
		Label(lbl + "_ctail")
		TESTQ(k, k)
		JZ(LabelRef(lbl + "_end"))
		cols = transpose8x8(load(true))
		for c := range cols {
			if c > 0 {
				CMPQ(k, U32(c))
				JLE(LabelRef(lbl + "_end"))
			}
			store(cols[c], dp)
			ADDQ(ldd, dp)
		}
		Label(lbl + "_end")
	}
	transposeLoops(name, 8, dst, src, lds, rows, func() {
		rm, cm = lanesBelow(rows), lanesBelow(paramAddr("cols"))
	}, block)
}

// transpose16x16 transposes the 16x16 block whose rows are in Z0-Z15 and
// hands emit its columns in order: pairs of rows interleaved by 32 bits,
// then by 64 (a 4x4 transpose in each 128-bit lane), then the lanes gathered
// across groups of four rows in two VSHUFF32X4 steps: 64 shuffles for 256
// floats (AVX2's 8x8 blocks take 96). Physical registers, alternating
// between Z0-Z15 and Z16-Z31 from stage to stage (each stage's inputs are
// dead once it is done), so the allocator has nothing to fit.
func transpose16x16(emit func(c int, col reg.VecPhysical)) {
	lo := func(i int) reg.VecPhysical { return zmms[i] }
	hi := func(i int) reg.VecPhysical { return zmms[16+i] }
	for i := 0; i < 8; i++ { // t = hi
		VUNPCKLPS(lo(2*i+1), lo(2*i), hi(2*i))
		VUNPCKHPS(lo(2*i+1), lo(2*i), hi(2*i+1))
	}
	for j := 0; j < 4; j++ { // u = lo
		VUNPCKLPD(hi(4*j+2), hi(4*j), lo(4*j))
		VUNPCKHPD(hi(4*j+2), hi(4*j), lo(4*j+1))
		VUNPCKLPD(hi(4*j+3), hi(4*j+1), lo(4*j+2))
		VUNPCKHPD(hi(4*j+3), hi(4*j+1), lo(4*j+3))
	}
	// u[4j+m]'s 128-bit lane L holds rows 4j..4j+3 of column 4L+m: gather
	// lanes L/2*2 and L/2*2+1 of the groups into x (rows 0-7, hi 4m+h) and
	// y (rows 8-15, hi 4m+2+h), then column c = 4L+m from lanes L%2 and
	// L%2+2 of x and y.
	for m := 0; m < 4; m++ {
		for h, imm := range []U8{0x44, 0xEE} {
			VSHUFF32X4(imm, lo(4+m), lo(m), hi(4*m+h))
			VSHUFF32X4(imm, lo(12+m), lo(8+m), hi(4*m+2+h))
		}
	}
	for c := 0; c < 16; c++ {
		L, m := c/4, c%4
		imm := U8(0x88)
		if L%2 == 1 {
			imm = U8(0xDD)
		}
		VSHUFF32X4(imm, hi(4*m+2+L/2), hi(4*m+L/2), lo(c))
		emit(c, lo(c))
	}
}

// transposeAVX512 is transposeAVX2 in 16x16 blocks (transpose16x16): the
// last row block's missing rows are not loaded and its columns are stored
// under the mask rmask of the rows present; the last column block's rows
// are loaded under the mask cmask of the columns present and only those
// columns stored.
func transposeAVX512() {
	name := "transposeAVX512"
	text(name, "func(dst *float32, ldd int, src *float32, lds int, rows, cols, batch, dstep, sstep int, rmask, cmask uint16)")
	Doc(fmt.Sprintf("%s sets dst[b*dstep+c*ldd+r] = src[b*sstep+r*lds+c] for b < batch, r < rows, c < cols (strides in elements), in 16x16 blocks, the partial ones under the masks rmask (rows%%16 low bits) and cmask (cols%%16 low bits).", name))
	p := loadParams("ldd", "lds")
	ldd, lds := p[0], p[1]
	dst, src := GP64(), GP64()
	SHLQ(U8(2), ldd)
	SHLQ(U8(2), lds)
	rk, ck := K(), K()
	KMOVW(paramAddr("rmask"), rk)
	KMOVW(paramAddr("cmask"), ck)
	rows := GP64()
	block := func(lbl string, full bool) {
		sp, dp, k := GP64(), GP64(), GP64()
		MOVQ(src, sp)
		MOVQ(dst, dp)
		MOVQ(paramAddr("cols"), k)
		// load reads the block's rows into Z0-Z15 (transpose16x16's).
		load := func(tail bool) {
			q := GP64()
			MOVQ(sp, q)
			if !full {
				for i := 0; i < 16; i++ {
					VPXORD(zmms[i], zmms[i], zmms[i])
				}
			}
			loadRows(16, full, rows, q, lds, fmt.Sprintf("%s_%v_loaded", lbl, tail), func(i int, at Mem) {
				if tail {
					VMOVUPS_Z(at, ck, zmms[i])
				} else {
					VMOVUPS(at, zmms[i])
				}
			})
		}
		store := func(col reg.VecPhysical, q reg.GPVirtual) {
			if full {
				VMOVUPS(col, Mem{Base: q})
			} else {
				VMOVUPS(col, rk, Mem{Base: q})
			}
		}
		Label(lbl + "_cols")
		CMPQ(k, U32(16))
		JL(LabelRef(lbl + "_ctail"))
		load(false)
		transpose16x16(func(c int, col reg.VecPhysical) {
			store(col, dp)
			ADDQ(ldd, dp) // after sixteen, the next column block
		})
		ADDQ(U32(64), sp)
		SUBQ(U32(16), k)
		JMP(LabelRef(lbl + "_cols"))
		Label(lbl + "_ctail")
		TESTQ(k, k)
		JZ(LabelRef(lbl + "_end"))
		// The last columns: those c < k stored.
		load(true)
		transpose16x16(func(c int, col reg.VecPhysical) {
			if c > 0 {
				CMPQ(k, U32(c))
				JLE(LabelRef(lbl + "_end"))
			}
			store(col, dp)
			ADDQ(ldd, dp)
		})
		Label(lbl + "_end")
	}
	transposeLoops(name, 16, dst, src, lds, rows, func() {}, block)
}

// transposeLoops emits the batch and row-block loops of the transpose
// kernels around block(lbl, full), which transposes the bs rows at src into
// dst (full) or the last rows < bs of an entry: per batch entry, rows comes
// from its parameter and dst and src from their argument slots, which the
// entry's end advances by dstep and sstep (the 16x16 kernel has no
// register to spare for the entry's start); start runs once an entry,
// before its blocks (the AVX2 kernel's masks of its partial block). lds is
// in bytes.
func transposeLoops(name string, bs int, dst, src, lds, rows reg.GPVirtual, start func(), block func(lbl string, full bool)) {
	Label(name + "_batch")
	CMPQ(paramAddr("batch"), Imm(0))
	JLE(LabelRef(name + "_done"))
	MOVQ(paramAddr("rows"), rows)
	MOVQ(paramAddr("dst"), dst)
	MOVQ(paramAddr("src"), src)
	start()
	Label(name + "_rows")
	CMPQ(rows, U32(bs))
	JL(LabelRef(name + "_rtail"))
	block(name+"_f", true)
	t := GP64()
	MOVQ(lds, t)
	SHLQ(U8(bits.TrailingZeros(uint(bs))), t)
	ADDQ(t, src) // bs rows on
	ADDQ(U32(4*bs), dst)
	SUBQ(U32(bs), rows)
	JMP(LabelRef(name + "_rows"))
	Label(name + "_rtail")
	TESTQ(rows, rows)
	JZ(LabelRef(name + "_nextb"))
	block(name+"_p", false)
	Label(name + "_nextb")
	MOVQ(paramAddr("dstep"), dst)
	SHLQ(U8(2), dst)
	ADDQ(dst, paramAddr("dst"))
	MOVQ(paramAddr("sstep"), src)
	SHLQ(U8(2), src)
	ADDQ(src, paramAddr("src"))
	DECQ(paramAddr("batch"))
	JMP(LabelRef(name + "_batch"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// lanesBelow returns the AVX2 mask (VMASKMOVPS's) of the lanes i < n%8.
func lanesBelow(n Op) reg.VecVirtual {
	k := GP64()
	MOVQ(n, k)
	ANDQ(U32(7), k)
	return laneMask(k)
}

// laneMask returns the AVX2 mask of the lanes i < n (n <= 8, a register).
func laneMask(n reg.Register) reg.VecVirtual {
	x, m := XMM(), YMM()
	// VMOVQ, not MOVQ: an SSE-encoded instruction while the upper halves
	// are dirty cost hundreds of cycles each on an AVX2-only AMD EPYC
	// (Zen 3): the small transposes of the channel-blocked depthwise path,
	// which build two masks a batch entry, spent 66% of their layer there
	// (pprof of BenchmarkConv2DChain/dw960x7x7, 375 -> 149 µs without).
	VMOVQ(n, x)
	VPBROADCASTD(x, m)
	VPCMPGTD(iota32(), m, m) // lane i: n > i
	return m
}

// tailMask returns the mask of the lanes i < n (n <= s.lanes, a register):
// an opmask at AVX-512, a vector mask (VMASKMOVPS's) at AVX2.
func tailMask(s isa, n reg.GPVirtual) (reg.OpmaskVirtual, reg.VecVirtual) {
	if s.avx512 {
		return opmaskBelow(n.As32()), nil
	}
	return nil, laneMask(n)
}

// rowAt is row r (0-3) of rows stride bytes apart from base: base,
// base+stride, base+2*stride or base+stride3 (stride3 = 3*stride).
func rowAt(base, stride, stride3 reg.Register, r int) Mem {
	switch r {
	case 0:
		return Mem{Base: base}
	case 3:
		return Mem{Base: base, Index: stride3, Scale: 1}
	}
	return Mem{Base: base, Index: stride, Scale: uint8(r)}
}

// opmaskTail returns the opmask of a row's last n%s.lanes lanes (n a
// register, s an AVX-512 level).
func opmaskTail(s isa, n reg.GPVirtual) reg.OpmaskVirtual {
	t := GP32()
	MOVL(n.As32(), t)
	ANDL(U32(s.lanes-1), t)
	return opmaskBelow(t)
}

// opmaskBelow returns the opmask of the lanes i < n (n <= 16, a 32-bit
// register).
func opmaskBelow(n reg.Register) reg.OpmaskVirtual {
	all, m := GP32(), GP32()
	MOVL(U32(0xffff), all)
	BZHIL(n, all, m)
	k := K()
	KMOVW(m, k)
	return k
}

// iota32 is the 32-byte read-only table of the int32s 0..7.
func iota32() Mem {
	if iotaTab == nil {
		m := GLOBL("iota32", RODATA|NOPTR)
		for i := 0; i < 8; i++ {
			DATA(4*i, U32(i))
		}
		iotaTab = &m
	}
	return *iotaTab
}

var iotaTab *Mem

// deinterleave8 emits one step of the deinterleave loops: 16 floats at
// src split into 8 even ones at even and 8 odd ones at odd; the pointers
// advance and n drops by 8.
func deinterleave8(even, odd, src, n reg.GPVirtual) {
	a, b, e, o := YMM(), YMM(), YMM(), YMM()
	VMOVUPS(mem(src, 0), a)
	VMOVUPS(mem(src, 32), b)
	VSHUFPS(U8(0x88), b, a, e) // a0 a2 b0 b2 | a4 a6 b4 b6
	VSHUFPS(U8(0xDD), b, a, o) // a1 a3 b1 b3 | a5 a7 b5 b7
	VPERMPD(U8(0xD8), e, e)    // 64-bit chunks 0 2 1 3
	VPERMPD(U8(0xD8), o, o)
	VMOVUPS(e, mem(even, 0))
	VMOVUPS(o, mem(odd, 0))
	ADDQ(U32(64), src)
	ADDQ(U32(32), even)
	ADDQ(U32(32), odd)
	SUBQ(U32(8), n)
}

func scalarKernels(s isa) {
	for _, o := range scalarOps {
		name := o.name + "F32" + s.suffix
		text(name, "func(dst, x *float32, s float32, n int)")
		Doc(fmt.Sprintf("%s computes dst[i] = %s for i < n; n is a multiple of %d.", name, o.doc, s.lanes))
		dst := Load(Param("dst"), GP64()).(reg.GPVirtual)
		x := Load(Param("x"), GP64()).(reg.GPVirtual)
		n := Load(Param("n"), GP64()).(reg.GPVirtual)
		sv := s.vec()
		VBROADCASTSS(NewParamAddr("s", 16), sv)
		loop(s, name, n, []reg.GPVirtual{dst, x}, 4, func(u int) {
			v := s.vec()
			VMOVUPS(mem(x, u*s.bytes), v)
			o.emit(s, sv, v)
			VMOVUPS(v, mem(dst, u*s.bytes))
		})
	}
}

// emitExp sets out = expOne(x) lane-wise (see asm/twins.go); x is preserved.
func emitExp(s isa, x, out reg.VecVirtual) {
	emitExpN(s, []reg.VecVirtual{x}, []reg.VecVirtual{out})
}

// emitExpN is emitExp on several vectors at once, their instructions
// interleaved step by step: one vector's exp is a chain of ~30 dependent
// instructions, and emitted one after another the chains filled the
// out-of-order window with instructions waiting on their predecessors.
// Each lane's operations are emitExp's, so the bits are the same.
func emitExpN(s isa, xs, outs []reg.VecVirtual) {
	each, vecs := lanesOf(s, len(xs))
	t, k, nn, r := vecs(), vecs(), vecs(), vecs()
	each(func(i int) { loadK(-105, t[i]) })
	each(func(i int) { VMAXPS(xs[i], t[i], outs[i]) }) // out = lo > x ? lo : x
	each(func(i int) { loadK(89, t[i]) })
	each(func(i int) { VMINPS(outs[i], t[i], outs[i]) }) // out = hi < out ? hi : out
	xc := outs
	each(func(i int) { kMULPS.kf(s, 1.44269504088896341, xc[i], t[i]) })
	each(func(i int) { VCVTPS2DQ(t[i], k[i]) }) // round to nearest even
	each(func(i int) { VCVTDQ2PS(k[i], nn[i]) })
	// The reduction and the polynomial in fused multiply-adds (each one
	// rounding): 8 instructions a vector where there were 16 multiplies
	// and adds. BenchmarkTranscendentalL1, AMD EPYC (Zen 5) VM, three
	// alternated runs, Gelem/s: exp 4.36-4.66 -> 5.83-6.07, sigmoid
	// 3.80-4.01 -> 4.73-5.14, softmax rows 2.32-2.39 -> 2.95-3.01; at AVX2
	// exp 2.32-2.39 -> 2.89-3.19.
	each(func(i int) { VMOVAPS(xc[i], r[i]) })
	each(func(i int) { kFNMADD231.kf(s, 0.693359375, nn[i], r[i]) })  // r = x - n*C1
	each(func(i int) { kFMADD231.kf(s, 2.12194440e-4, nn[i], r[i]) }) // r = r + n*C2
	z := nn
	each(func(i int) { VMULPS(r[i], r[i], z[i]) })
	y := t
	each(func(i int) { loadK(1.9875691500e-4, y[i]) })
	for _, c := range []float32{1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1} {
		each(func(i int) { kFMADD213.kf(s, c, r[i], y[i]) }) // y = y*r + c
	}
	each(func(i int) { VFMADD213PS(r[i], z[i], y[i]) }) // y = y*z + r
	each(func(i int) { kADDPS.kf(s, 1, y[i], y[i]) })
	// k1 = k >> 1, k2 = k - k1; y = (y * 2^k1) * 2^k2
	k1 := r
	each(func(i int) { VPSRAD(U8(1), k[i], k1[i]) })
	each(func(i int) { VPSUBD(k1[i], k[i], k[i]) })
	each(func(i int) { kPADDD.k(s, 127, k1[i], k1[i]) })
	each(func(i int) { VPSLLD(U8(23), k1[i], k1[i]) })
	each(func(i int) { kPADDD.k(s, 127, k[i], k[i]) })
	each(func(i int) { VPSLLD(U8(23), k[i], k[i]) })
	each(func(i int) { VMULPS(k1[i], y[i], y[i]) })
	each(func(i int) { VMULPS(k[i], y[i], outs[i]) })
}

// emitTanhN sets outs[i] = tanhOne(xs[i]) lane-wise, the vectors' steps
// interleaved as emitExpN's.
func emitTanhN(s isa, xs, outs []reg.VecVirtual) {
	each, vecs := lanesOf(s, len(xs))
	a, z, p := vecs(), vecs(), vecs()
	each(func(i int) { kANDPS.k(s, 0x7fffffff, xs[i], a[i]) })
	// small branch: (p*z)*x + x, the Horner steps and the last in fused
	// multiply-adds (one rounding each)
	each(func(i int) { VMULPS(xs[i], xs[i], z[i]) })
	each(func(i int) { loadK(-5.70498872745e-3, p[i]) })
	for _, c := range []float32{2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1} {
		each(func(i int) { kFMADD213.kf(s, c, z[i], p[i]) }) // p = p*z + c
	}
	each(func(i int) { VMULPS(z[i], p[i], p[i]) })
	each(func(i int) { VFMADD213PS(xs[i], xs[i], p[i]) }) // p = p*x + x
	// large branch: 1 - 2/(exp(2a)+1) with x's sign
	a2 := z
	each(func(i int) { VADDPS(a[i], a[i], a2[i]) })
	e := vecs()
	emitExpN(s, a2, e)
	each(func(i int) { kADDPS.kf(s, 1, e[i], e[i]) })
	each(func(i int) { loadK(2, a2[i]) })
	each(func(i int) { VDIVPS(e[i], a2[i], e[i]) }) // 2/(s+1)
	each(func(i int) { loadK(1, a2[i]) })
	each(func(i int) { VSUBPS(e[i], a2[i], e[i]) }) // 1 - ...
	sign := a2
	each(func(i int) { kANDPS.k(s, 0x80000000, xs[i], sign[i]) })
	each(func(i int) { VORPS(sign[i], e[i], e[i]) })
	// select: a > 0.625 ? large : small
	if s.avx512 {
		each(func(i int) {
			m := K()
			kCMPPS.kf(s, 0.625, U8(0x1e), a[i], m) // a > 0.625 (ordered)
			VMOVAPS(e[i], m, p[i])
			VMOVAPS(p[i], outs[i])
		})
	} else {
		each(func(i int) {
			m := a2[i]
			kCMPPS.kf(s, 0.625, U8(0x1e), a[i], m)
			VBLENDVPS(m, e[i], p[i], outs[i]) // out = m ? e : p
		})
	}
}

// emitErfN sets outs[i] = erfOne(xs[i]) lane-wise, the vectors' steps
// interleaved as emitExpN's.
func emitErfN(s isa, xs, outs []reg.VecVirtual) {
	each, vecs := lanesOf(s, len(xs))
	t, xc, z, p := vecs(), vecs(), vecs(), vecs()
	each(func(i int) { loadK(-4, t[i]) })
	each(func(i int) { VMAXPS(xs[i], t[i], xc[i]) })
	each(func(i int) { loadK(4, t[i]) })
	each(func(i int) { VMINPS(xc[i], t[i], xc[i]) })
	each(func(i int) { VMULPS(xc[i], xc[i], z[i]) })
	// Horner steps in fused multiply-adds (each one rounding), the two
	// polynomials' alternating (independent chains).
	q := t
	each(func(i int) { loadK(-2.72614225801306e-10, p[i]) })
	each(func(i int) { loadK(-1.45660718464996e-05, q[i]) })
	pc := []float32{2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02}
	qc := []float32{-2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03, -1.42647390514189e-02}
	for j := 0; j < len(pc); j++ {
		each(func(i int) { kFMADD213.kf(s, pc[j], z[i], p[i]) }) // p = p*z + c
		if j < len(qc) {
			each(func(i int) { kFMADD213.kf(s, qc[j], z[i], q[i]) })
		}
	}
	each(func(i int) { VMULPS(xc[i], p[i], p[i]) })
	each(func(i int) { VDIVPS(q[i], p[i], outs[i]) })
}

// lanesOf returns, for n vectors emitted together, a function running a
// step on each in turn and one allocating a register for each.
func lanesOf(s isa, n int) (each func(func(int)), vecs func() []reg.VecVirtual) {
	each = func(f func(int)) {
		for i := 0; i < n; i++ {
			f(i)
		}
	}
	vecs = func() []reg.VecVirtual {
		v := make([]reg.VecVirtual, n)
		for i := range v {
			v[i] = s.vec()
		}
		return v
	}
	return each, vecs
}

// emitSigmoidN sets outs[i] = 1 / (1 + expOne(-xs[i])) lane-wise, the
// vectors' steps interleaved.
func emitSigmoidN(s isa, xs, outs []reg.VecVirtual) {
	each, vecs := lanesOf(s, len(xs))
	nx, e := vecs(), vecs()
	each(func(i int) { kXORPS.k(s, 0x80000000, xs[i], nx[i]) })
	emitExpN(s, nx, e)
	each(func(i int) { kADDPS.kf(s, 1, e[i], e[i]) })
	each(func(i int) { loadK(1, nx[i]) })
	each(func(i int) { VDIVPS(e[i], nx[i], outs[i]) })
}

func unaryKernels(s isa) {
	// one makes a one-vector emitter an emitter of several, one after
	// another.
	one := func(f func(x, out reg.VecVirtual)) func(xs, outs []reg.VecVirtual) {
		return func(xs, outs []reg.VecVirtual) {
			for i := range xs {
				f(xs[i], outs[i])
			}
		}
	}
	// The transcendental ones interleave their unrolled vectors (see
	// emitExpN): as many as AVX2's 16 registers hold without one of
	// Y16-Y31 (which only an EVEX encoding reaches; the assembler refuses
	// VBLENDVPS on them, and TestKernelsRequireTheirLevel any other). Each
	// vector's exp is a chain of ~30 dependent steps, so the more chains
	// in flight the better: exp, sigmoid and erf 4 (from 3, 2 and 2),
	// GELU 3 (from 2); tanh, with both its branches live, stays at 2.
	// BenchmarkTranscendentalL1, AVX2 AMD EPYC (Zen 3), medians of six
	// alternated runs, Gelem/s: sigmoid 1.09 -> 1.33, erf 1.58 -> 1.86,
	// exp 1.45 -> 1.62, GELU 1.35 -> 1.47. The bits are the same (each
	// lane's operations are unchanged).
	ops := []struct {
		name, doc string
		unroll    int
		emit      func(xs, outs []reg.VecVirtual)
	}{
		{"relu", "reluGo", 4, one(func(x, out reg.VecVirtual) {
			z := s.vec()
			VXORPS(z, z, z)
			VMAXPS(x, z, out) // 0 > x ? 0 : x
		})},
		{"exp", "expOne", 4, func(xs, outs []reg.VecVirtual) { emitExpN(s, xs, outs) }},
		{"tanh", "tanhOne", 2, func(xs, outs []reg.VecVirtual) { emitTanhN(s, xs, outs) }},
		{"erf", "erfOne", 4, func(xs, outs []reg.VecVirtual) { emitErfN(s, xs, outs) }},
		{"sigmoid", "sigmoidOne", 4, func(xs, outs []reg.VecVirtual) { emitSigmoidN(s, xs, outs) }},
		// SiLU in one pass, the product's operands in MulF32's order (the
		// first is the instruction's first source, whose NaN a product of
		// two NaNs keeps): silu is MulF32(dst, sigmoid, x), kernels'
		// nn.silu; xSigmoid MulF32(dst, x, sigmoid), an exported x *
		// sigmoid(x). Apart, the sigmoid's pass and the product's cost
		// SiLU a third more than the sigmoid alone.
		{"silu", "siluOne", 4, func(xs, outs []reg.VecVirtual) {
			emitSigmoidN(s, xs, outs)
			for i := range xs {
				VMULPS(xs[i], outs[i], outs[i]) // sigmoid * x
			}
		}},
		{"xSigmoid", "xSigmoidOne", 4, func(xs, outs []reg.VecVirtual) {
			emitSigmoidN(s, xs, outs)
			for i := range xs {
				VMULPS(outs[i], xs[i], outs[i]) // x * sigmoid
			}
		}},
		{"gelu", "geluOne", 3, func(xs, outs []reg.VecVirtual) {
			// kernels' erf GELU, x*(0.5+0.5*erf(x*sqrt(1/2))), as the
			// scalar, erf and binary kernels compute it one pass each.
			each, vecs := lanesOf(s, len(xs))
			t, e := vecs(), vecs()
			each(func(i int) { kMULPS.kf(s, float32(math.Sqrt2/2), xs[i], t[i]) })
			emitErfN(s, t, e)
			each(func(i int) { kMULPS.kf(s, 0.5, e[i], e[i]) })
			each(func(i int) { kADDPS.kf(s, 0.5, e[i], e[i]) })
			each(func(i int) { VMULPS(xs[i], e[i], outs[i]) }) // e*x
		}},
	}
	for _, o := range ops {
		name := o.name + "F32" + s.suffix
		text(name, "func(dst, x *float32, n int)")
		Doc(fmt.Sprintf("%s computes dst[i] = %s(x[i]) for i < n (the twin's exact float32 operations); n is a multiple of %d.", name, o.doc, s.lanes))
		dst := Load(Param("dst"), GP64()).(reg.GPVirtual)
		x := Load(Param("x"), GP64()).(reg.GPVirtual)
		n := Load(Param("n"), GP64()).(reg.GPVirtual)
		loopN(s, name, n, []reg.GPVirtual{dst, x}, o.unroll, func(us []int) {
			vs, rs := make([]reg.VecVirtual, len(us)), make([]reg.VecVirtual, len(us))
			for i, u := range us {
				vs[i], rs[i] = s.vec(), s.vec()
				VMOVUPS(mem(x, u*s.bytes), vs[i])
			}
			o.emit(vs, rs)
			for i, u := range us {
				VMOVUPS(rs[i], mem(dst, u*s.bytes))
			}
		})
	}
}

// reductionKernels emits sum, dot and max over blocks of 64 floats, into 64
// partial results acc[i%64] (64/lanes vector accumulators).
// maxRowKernels emits the maximum of a short row (a softmax row): four
// accumulators of VMAXPS, folded and reduced across lanes in registers, so
// a row of a few vectors costs a few nanoseconds (the 64-partial reduction
// has a fixed ~45 ns). NaN elements are skipped and reported; which zero a
// maximum of zeros comes out as is not fixed.
func maxRowKernels(s isa) {
	name := "maxRowF32" + s.suffix
	text(name, "func(x *float32, n int, m *float32) int")
	Doc(fmt.Sprintf("%s sets *m to the maximum of the non-NaN x[i] for i < n (-Inf if none; a maximum of zeros may come out as either zero) and returns nonzero when some x[i] is NaN; n is a positive multiple of %d.", name, s.lanes))
	p := loadParams("x", "n")
	x, n := p[0], p[1]
	accs := make([]reg.VecVirtual, 4)
	for i := range accs {
		accs[i] = s.vec()
		loadK(float32(math.Inf(-1)), accs[i])
	}
	nan := newNaNFlag(s)
	step := func(acc reg.VecVirtual, at Mem) {
		v := s.vec()
		VMOVUPS(at, v)
		nan.note(v)
		VMAXPS(acc, v, acc) // v > acc ? v : acc (a NaN v leaves acc)
	}
	Label(name + "_four")
	CMPQ(n, U32(4*s.lanes))
	JL(LabelRef(name + "_one"))
	for i := range accs {
		step(accs[i], mem(x, i*s.bytes))
	}
	ADDQ(U32(4*s.bytes), x)
	SUBQ(U32(4*s.lanes), n)
	JMP(LabelRef(name + "_four"))
	Label(name + "_one")
	CMPQ(n, U32(0))
	JE(LabelRef(name + "_fold"))
	step(accs[0], mem(x, 0))
	ADDQ(U32(s.bytes), x)
	SUBQ(U32(s.lanes), n)
	JMP(LabelRef(name + "_one"))
	Label(name + "_fold")
	VMAXPS(accs[1], accs[0], accs[0])
	VMAXPS(accs[3], accs[2], accs[2])
	VMAXPS(accs[2], accs[0], accs[0])
	m := hmax(s, accs[0])
	mp := Load(Param("m"), GP64()).(reg.GPVirtual)
	VMOVSS(m, Mem{Base: mp})
	nan.ret()
	VZEROUPPER()
	RET()
}

// hmax returns an XMM holding in lane 0 the maximum of v's lanes (v is left
// as it is): the upper half folded onto the lower, then 4, 2 and 1 lanes,
// each VMAXPS taking the lower part first (a NaN lane is not reported here;
// a maximum of zeros may come out as either zero).
func hmax(s isa, v reg.VecVirtual) reg.VecVirtual {
	y := v
	if s.bytes == 64 {
		y = YMM()
		VEXTRACTF32X8(U8(1), v, y)
		VMAXPS(y, v.AsY(), y)
	}
	mx, h := XMM(), XMM()
	VEXTRACTF128(U8(1), y, h)
	VMAXPS(h, y.AsX(), mx)
	VMOVHLPS(mx, h, h) // h[0:2] = mx[2:4]
	VMAXPS(h, mx, mx)
	VMOVSHDUP(mx, h) // h[0] = mx[1]
	VMAXSS(h, mx, mx)
	return mx
}

// nanFlag accumulates whether any lane of the vectors it notes was NaN: an
// opmask at AVX-512, a vector mask at AVX2.
type nanFlag struct {
	s isa
	k reg.OpmaskVirtual
	v reg.VecVirtual
}

// newNaNFlag emits a cleared flag.
func newNaNFlag(s isa) nanFlag {
	f := nanFlag{s: s}
	if s.avx512 {
		f.k = K()
		KXORW(f.k, f.k, f.k)
	} else {
		f.v = s.vec()
		VXORPS(f.v, f.v, f.v)
	}
	return f
}

// note emits: the flag |= some lane of x is NaN.
func (f nanFlag) note(x reg.VecVirtual) {
	if f.s.avx512 {
		k := K()
		VCMPPS(U8(3), x, x, k) // unordered
		KORW(k, f.k, f.k)
		return
	}
	t := f.s.vec()
	VCMPPS(U8(3), x, x, t)
	VORPS(t, f.v, f.v)
}

// jumpIfSet emits a jump to the label when the flag is set.
func (f nanFlag) jumpIfSet(label string) {
	if f.s.avx512 {
		KORTESTW(f.k, f.k)
	} else {
		m := GP32()
		VMOVMSKPS(f.v, m)
		TESTL(m, m)
	}
	JNZ(LabelRef(label))
}

// ret emits the function's int result: nonzero when the flag is set.
func (f nanFlag) ret() {
	r := GP64()
	if f.s.avx512 {
		KMOVW(f.k, r.As32())
	} else {
		VMOVMSKPS(f.v, r.As32())
	}
	Store(r, ReturnIndex(0))
}

func reductionKernels(s isa) {
	nacc := 64 / s.lanes
	for _, kind := range []string{"sum", "dot", "max"} {
		name := kind + "Blocks" + s.suffix
		switch kind {
		case "dot":
			text(name, "func(x, y *float32, nblk int, acc *[64]float32)")
			Doc(name + " computes acc[i%64] += x[i]*y[i] (product rounded first) for i < 64*nblk.")
		case "sum":
			text(name, "func(x *float32, nblk int, acc *[64]float32)")
			Doc(name + " computes acc[i%64] += x[i] for i < 64*nblk.")
		default:
			text(name, "func(x *float32, nblk int, acc *[64]float32) int")
			Doc(name+" computes acc[i%64] = x[i] if x[i] > acc[i%64] for i < 64*nblk,",
				"returning nonzero when some x[i] is NaN.")
		}
		x := Load(Param("x"), GP64()).(reg.GPVirtual)
		var y reg.GPVirtual
		if kind == "dot" {
			y = Load(Param("y"), GP64()).(reg.GPVirtual)
		}
		nblk := Load(Param("nblk"), GP64()).(reg.GPVirtual)
		accp := Load(Param("acc"), GP64()).(reg.GPVirtual)
		accs := make([]reg.VecVirtual, nacc)
		for i := range accs {
			accs[i] = s.vec()
			VMOVUPS(mem(accp, i*s.bytes), accs[i])
		}
		var nan nanFlag
		if kind == "max" {
			nan = newNaNFlag(s)
		}
		Label(name + "_loop")
		CMPQ(nblk, U32(0))
		JE(LabelRef(name + "_done"))
		for i := range accs {
			switch kind {
			case "sum":
				VADDPS(mem(x, i*s.bytes), accs[i], accs[i])
			case "dot":
				t := s.vec()
				VMOVUPS(mem(x, i*s.bytes), t)
				VMULPS(mem(y, i*s.bytes), t, t)
				VADDPS(t, accs[i], accs[i])
			case "max":
				v := s.vec()
				VMOVUPS(mem(x, i*s.bytes), v)
				nan.note(v)
				VMAXPS(accs[i], v, accs[i]) // v > acc ? v : acc
			}
		}
		ADDQ(U32(256), x)
		if kind == "dot" {
			ADDQ(U32(256), y)
		}
		DECQ(nblk)
		JMP(LabelRef(name + "_loop"))
		Label(name + "_done")
		for i := range accs {
			VMOVUPS(accs[i], mem(accp, i*s.bytes))
		}
		if kind == "max" {
			nan.ret()
		}
		VZEROUPPER()
		RET()
	}
}

// gemmKernel describes one SGEMM micro-kernel: its mr x nr tile, its vector
// flavour, whether B comes through a table of row offsets (indirect: the
// implicit GEMM of a convolution reading its patches in place) and the
// registers beside the accumulators (B vectors, two broadcast registers).
type gemmKernel struct {
	name, doc          string
	mr, nr             int
	avx512             bool
	prefetch, indirect bool // sgemmBodyPrefetch, sgemmBodyIndirect
	strided            bool // sgemmBodyStridedA
	rowA               bool // sgemmBodyRowA: A read in place, row-major: A[i][p] = a[i*lda+p]
	gatherSW           int  // sgemmBodyGatherA: A rows at offsets, positions this far apart (1 or 2)
	gatherSplit        int  // sgemmBodyGatherSplit: with gatherSW, the rows from this one on at the second base (0: one base)
	chain              bool // sgemmBodyChain: a chain on the tile's rows before the store
	scatter            bool // sgemmBodyScatter: stores through a table of offsets and masks
	pfOut              int  // sgemmBodyScatterPrefetch: with scatter, the rows' prefetch distance in bytes (0: none)
	pfB                int  // sgemmBodyPrefetchB: B prefetch distance in bytes (0: none; an indirect tile's each step's row, kstepIndirect)
	pfA                int  // sgemmBodyPrefetchA: A prefetch distance in bytes (0: none)
	pfNext             bool // sgemmBodyPrefetchNext: prefetch the next B panel (kc steps ahead)
	colEpi             bool // sgemmBodyColEpi: a product's column bias, residual and relu before the store
	// warm, when not "", is the asm function whose prefetch argument picks
	// this kernel or its form without B prefetches (withWarm), emitted
	// after it as name+"Warm".
	warm    string
	memB    bool // sgemmBodyMemB: the last B vector from memory, one broadcast register
	aStride int  // sgemmBodyAStride: floats of packed A a step (0: mr)
	b       []reg.VecPhysical
	a0, a1  reg.VecPhysical
}

// gemmKernels are the SGEMM micro-kernels, in the order they are emitted:
// the 14x32 AVX-512 tile (28 zmm accumulators); the 4x32 one for products
// with few rows, where 14 rows would mostly compute padding; the 6x16
// AVX2+FMA tile (12 ymm accumulators); the 8x48 AVX-512 tile (24
// accumulators, 3 B vectors), whose rows divide the sizes networks use
// (64, 128, ...), which the 14-row tile covers 91% of, with 24 FMAs per 11
// loads instead of 28 per 16; and the indirect forms of the 14x32, 8x48
// and 6x16 tiles.
var gemmKernels = []gemmKernel{
	{name: "sgemmKernelAVX512", doc: "is the 14x32 SGEMM micro-kernel (see asm.SgemmKernel).", mr: 14, nr: 32, avx512: true, pfA: gemmPrefetchA,
		b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmKernelAVX512Small", doc: "is the 4x32 SGEMM micro-kernel (see asm.SgemmKernelSmall).", mr: 4, nr: 32, avx512: true, pfA: gemmPrefetchA, pfB: gemmPrefetchB,
		b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmKernelAVX2", doc: "is the 6x16 SGEMM micro-kernel (see asm.SgemmKernel).", mr: 6, nr: 16, prefetch: true,
		b: []reg.VecPhysical{reg.Y12, reg.Y13}, a0: reg.Y14, a1: reg.Y15},
	{name: "sgemmKernelAVX512Wide", doc: "is the 8x48 SGEMM micro-kernel (see asm.SgemmKernelWide).", mr: 8, nr: 48, avx512: true, pfA: gemmPrefetchA,
		b: []reg.VecPhysical{reg.Z24, reg.Z25, reg.Z26}, a0: reg.Z27, a1: reg.Z28},
	{name: "sgemmKernelAVX512Mid", doc: "is the 8x32 SGEMM micro-kernel (see asm.SgemmKernelMid).", mr: 8, nr: 32, avx512: true, pfA: gemmPrefetchA,
		b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	// The AVX-512 tiles prefetching the next B panel, for a panel's first
	// row tile on a pre-packed weight (see asm.SgemmKernelNext).
	{name: "sgemmKernelAVX512Next", doc: "is sgemmKernelAVX512 prefetching the next B panel (see asm.SgemmKernelNext).", mr: 14, nr: 32, avx512: true, pfA: gemmPrefetchA, pfNext: true,
		b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmKernelAVX512MidNext", doc: "is sgemmKernelAVX512Mid prefetching the next B panel (see asm.SgemmKernelNext).", mr: 8, nr: 32, avx512: true, pfA: gemmPrefetchA, pfNext: true,
		b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmKernelAVX512WideNext", doc: "is sgemmKernelAVX512Wide prefetching the next B panel (see asm.SgemmKernelNext).", mr: 8, nr: 48, avx512: true, pfA: gemmPrefetchA, pfNext: true,
		b: []reg.VecPhysical{reg.Z24, reg.Z25, reg.Z26}, a0: reg.Z27, a1: reg.Z28},
	// The half-width tiles: one vector of columns, for a product's last
	// column panel when it holds at most a vector (see asm.SgemmHalfWidth).
	// (A 4x16 and an AVX2 6x8 one measured no faster than their full-width
	// tiles: too few accumulators to cover the FMA latency.)
	{name: "sgemmHalfAVX512", doc: "is the 14x16 SGEMM micro-kernel (see asm.SgemmKernelHalf).", mr: 14, nr: 16, avx512: true, pfA: gemmPrefetchA,
		b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmHalfAVX512Mid", doc: "is the 8x16 SGEMM micro-kernel (see asm.SgemmKernelHalf).", mr: 8, nr: 16, avx512: true, pfA: gemmPrefetchA,
		b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	// The indirect tiles prefetch A (a convolution's weight) as the packed
	// kernels do: a deep layer's weight is read from memory when the model
	// has evicted it, and its row tiles' panels are consecutive.
	// BenchmarkConvColdWeights (1 thread, caches flushed before each call),
	// three alternated runs, µs: SqueezeNet's 512->64 1x1 on 13² 115-124 ->
	// 103-113, 384->64 on 13² 89-108 -> 81-88, unchanged warm (67-74, 49-56);
	// a second set, noisier, 110-119 -> 101-126 for the first. The model
	// (`relaxgo bench --threads 1 -n 40`, four alternated pairs): fastest
	// calls 4.03-4.11 -> 4.00-4.03 ms, medians within noise. The scattering
	// tiles (one depth block, its layers' weights small) gained nothing
	// (256->32 on 27² 112-125 -> 118-127) and keep none.
	{name: "sgemmIndirectAVX512", doc: "is the 14x32 SGEMM micro-kernel with B rows at b[offs[p]] (see asm.SgemmKernelIndirect).",
		mr: 14, nr: 32, avx512: true, pfA: gemmPrefetchA, indirect: true, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmIndirectAVX512Wide", doc: "is the 8x48 SGEMM micro-kernel with B rows at b[offs[p]] (see asm.SgemmKernelIndirect).",
		mr: 8, nr: 48, avx512: true, pfA: gemmPrefetchA, indirect: true, b: []reg.VecPhysical{reg.Z24, reg.Z25, reg.Z26}, a0: reg.Z27, a1: reg.Z28},
	{name: "sgemmIndirectAVX512WideChain", doc: "is sgemmIndirectAVX512Wide with a chain on the tile's rows before the store (see asm.SgemmKernelIndirectChain).",
		mr: 8, nr: 48, avx512: true, pfA: gemmPrefetchA, indirect: true, chain: true, b: []reg.VecPhysical{reg.Z24, reg.Z25, reg.Z26}, a0: reg.Z27, a1: reg.Z28},
	// The narrow indirect tiles: a tile's first 16 or 32 columns, for a
	// convolution's panel of flat columns or pixels that holds no more
	// (a layer of 13² pixels on 32-column panels computed 192 columns for
	// 169, with the 14x16 last panel 176; see
	// asm.SgemmKernelIndirectNarrowUnchecked).
	{name: "sgemmIndirectAVX512Half", doc: "is sgemmIndirectAVX512 on the tile's first 16 columns (see asm.SgemmKernelIndirectNarrowUnchecked).",
		mr: 14, nr: 16, avx512: true, pfA: gemmPrefetchA, indirect: true, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmIndirectAVX512WideMid", doc: "is sgemmIndirectAVX512Wide on the tile's first 32 columns (see asm.SgemmKernelIndirectNarrowUnchecked).",
		mr: 8, nr: 32, avx512: true, pfA: gemmPrefetchA, indirect: true, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmIndirectAVX512WideMidChain", doc: "is sgemmIndirectAVX512WideChain on the tile's first 32 columns (see asm.SgemmKernelIndirectNarrowUnchecked).",
		mr: 8, nr: 32, avx512: true, pfA: gemmPrefetchA, indirect: true, chain: true, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmIndirectAVX512WideHalf", doc: "is sgemmIndirectAVX512Wide on the tile's first 16 columns (see asm.SgemmKernelIndirectNarrowUnchecked).",
		mr: 8, nr: 16, avx512: true, pfA: gemmPrefetchA, indirect: true, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmIndirectAVX512WideHalfChain", doc: "is sgemmIndirectAVX512WideChain on the tile's first 16 columns (see asm.SgemmKernelIndirectNarrowUnchecked).",
		mr: 8, nr: 16, avx512: true, pfA: gemmPrefetchA, indirect: true, chain: true, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmIndirectAVX512WideMidChainScatter", doc: "is sgemmIndirectAVX512WideChainScatter on the tile's first 32 columns (see asm.SgemmKernelIndirectChainScatterNarrowUnchecked).",
		mr: 8, nr: 32, avx512: true, indirect: true, chain: true, scatter: true, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmIndirectAVX512WideHalfChainScatter", doc: "is sgemmIndirectAVX512WideChainScatter on the tile's first 16 columns (see asm.SgemmKernelIndirectChainScatterNarrowUnchecked).",
		mr: 8, nr: 16, avx512: true, indirect: true, chain: true, scatter: true, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmIndirectAVX512WideChainScatter", doc: "is sgemmIndirectAVX512WideChain storing each vector of the tile's rows under two masks at two offsets from a table (see asm.SgemmKernelIndirectChainScatter).",
		mr: 8, nr: 48, avx512: true, indirect: true, chain: true, scatter: true, b: []reg.VecPhysical{reg.Z24, reg.Z25, reg.Z26}, a0: reg.Z27, a1: reg.Z28},
	{name: "sgemmIndirectAVX512WideChainScatterPrefetch", doc: "is sgemmIndirectAVX512WideChainScatter prefetching each row's next panels after its stores (see asm.SgemmKernelIndirectChainScatter).",
		mr: 8, nr: 48, avx512: true, indirect: true, chain: true, scatter: true, pfOut: scatterPrefetch, b: []reg.VecPhysical{reg.Z24, reg.Z25, reg.Z26}, a0: reg.Z27, a1: reg.Z28},
	{name: "sgemmIndirectAVX512WideChainScatterPrefetchIn", doc: "is sgemmIndirectAVX512WideChainScatterPrefetch also prefetching, each depth step, every line of its B row four panels on (see asm.SgemmKernelIndirectChainScatter).",
		mr: 8, nr: 48, avx512: true, indirect: true, chain: true, scatter: true, pfOut: scatterPrefetch, pfB: scatterPrefetchIn, b: []reg.VecPhysical{reg.Z24, reg.Z25, reg.Z26}, a0: reg.Z27, a1: reg.Z28},
	{name: "sgemmIndirectAVX2", doc: "is the 6x16 SGEMM micro-kernel with B rows at b[offs[p]] (see asm.SgemmKernelIndirect).",
		mr: 6, nr: 16, prefetch: true, indirect: true, pfB: indirectPrefetchB, b: []reg.VecPhysical{reg.Y12, reg.Y13}, a0: reg.Y14, a1: reg.Y15},
	{name: "sgemmIndirectAVX2Chain", doc: "is sgemmIndirectAVX2 with a chain on the tile's rows before the store (see asm.SgemmKernelIndirectChain).",
		mr: 6, nr: 16, prefetch: true, indirect: true, chain: true, pfB: indirectPrefetchB, b: []reg.VecPhysical{reg.Y12, reg.Y13}, a0: reg.Y14, a1: reg.Y15},
	{name: "sgemmStridedAVX512", doc: "is the 7x32 SGEMM micro-kernel with A read in place, A[i][p] = a[p*lda+i] (see asm.SgemmKernelStrided).",
		warm: "SgemmKernelStridedUnchecked", mr: 7, nr: 32, avx512: true, strided: true, pfB: gemmPrefetchB, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmGatherS1AVX512", doc: "is the 7x32 SGEMM micro-kernel with A[i][p] = a[offs[p]+i] (see asm.SgemmKernelGather).",
		warm: "SgemmKernelGatherUnchecked", mr: 7, nr: 32, avx512: true, gatherSW: 1, pfB: gemmPrefetchB, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmGatherS2AVX512", doc: "is the 7x32 SGEMM micro-kernel with A[i][p] = a[offs[p]+2i] (see asm.SgemmKernelGather).",
		warm: "SgemmKernelGatherUnchecked", mr: 7, nr: 32, avx512: true, gatherSW: 2, pfB: gemmPrefetchB, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	// The 14-row forms: two 7-position tiles at once, 28 accumulators, so
	// that each B vector loaded serves 14 rows instead of 7 (a deep
	// layer's 32 KB panel block does not stay in L1; its B streams from
	// L2 once a tile pair instead of once a tile). The gathering ones read
	// rows 7 to 13 at a second base, delta floats from the first (the next
	// tile's positions, which may start another output row).
	{name: "sgemmStrided14AVX512", doc: "is the 14x32 SGEMM micro-kernel with A read in place, A[i][p] = a[p*lda+i] (see asm.SgemmKernelStrided14).",
		warm: "SgemmKernelStrided14Unchecked", mr: 14, nr: 32, avx512: true, strided: true, pfB: gemmPrefetchB, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmGather14S1AVX512", doc: "is the 14x32 SGEMM micro-kernel with A[i][p] = a[offs[p]+i] for i < 7 and a[delta+offs[p]+i-7] after (see asm.SgemmKernelGather14).",
		warm: "SgemmKernelGather14Unchecked", mr: 14, nr: 32, avx512: true, gatherSW: 1, gatherSplit: 7, pfB: gemmPrefetchB, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	{name: "sgemmGather14S2AVX512", doc: "is the 14x32 SGEMM micro-kernel with A[i][p] = a[offs[p]+2i] for i < 7 and a[delta+offs[p]+2(i-7)] after (see asm.SgemmKernelGather14).",
		warm: "SgemmKernelGather14Unchecked", mr: 14, nr: 32, avx512: true, gatherSW: 2, gatherSplit: 7, pfB: gemmPrefetchB, b: []reg.VecPhysical{reg.Z28, reg.Z29}, a0: reg.Z30, a1: reg.Z31},
	// The 6x16 AVX2 tile with a chain on its rows before the store: a
	// convolution's bias and clip while the tile is in registers, not in
	// a pass over the output after the product.
	{name: "sgemmKernelAVX2Chain", doc: "is sgemmKernelAVX2 with a chain on the tile's rows before the store (see asm.SgemmKernelChain).", mr: 6, nr: 16, prefetch: true, chain: true,
		b: []reg.VecPhysical{reg.Y12, reg.Y13}, a0: reg.Y14, a1: reg.Y15},
	{name: "sgemmKernelAVX2Next", doc: "is sgemmKernelAVX2 prefetching the next B panel (see asm.SgemmKernelNext).", mr: 6, nr: 16, prefetch: true, pfNext: true,
		b: []reg.VecPhysical{reg.Y12, reg.Y13}, a0: reg.Y14, a1: reg.Y15},
	{name: "sgemmKernelAVX2ChainNext", doc: "is sgemmKernelAVX2Chain prefetching the next B panel (see asm.SgemmKernelNext).", mr: 6, nr: 16, prefetch: true, chain: true, pfNext: true,
		b: []reg.VecPhysical{reg.Y12, reg.Y13}, a0: reg.Y14, a1: reg.Y15},
	// The AVX2 forms of the three: 7x16, 14 accumulators (Y0-Y13), one B
	// vector in Y14, the other read by its FMAs from memory, one
	// broadcast register (sgemmBodyMemB).
	{name: "sgemmStridedAVX2", doc: "is the 7x16 SGEMM micro-kernel with A read in place, A[i][p] = a[p*lda+i] (see asm.SgemmKernelStrided).",
		warm: "SgemmKernelStridedUnchecked", mr: 7, nr: 16, strided: true, memB: true, pfB: gemmPrefetchB, b: []reg.VecPhysical{reg.Y14}, a0: reg.Y15, a1: reg.Y15},
	{name: "sgemmGatherS1AVX2", doc: "is the 7x16 SGEMM micro-kernel with A[i][p] = a[offs[p]+i] (see asm.SgemmKernelGather).",
		warm: "SgemmKernelGatherUnchecked", mr: 7, nr: 16, gatherSW: 1, memB: true, pfB: gemmPrefetchB, b: []reg.VecPhysical{reg.Y14}, a0: reg.Y15, a1: reg.Y15},
	{name: "sgemmGatherS2AVX2", doc: "is the 7x16 SGEMM micro-kernel with A[i][p] = a[offs[p]+2i] (see asm.SgemmKernelGather).",
		warm: "SgemmKernelGatherUnchecked", mr: 7, nr: 16, gatherSW: 2, memB: true, pfB: gemmPrefetchB, b: []reg.VecPhysical{reg.Y14}, a0: reg.Y15, a1: reg.Y15},
}

// withWarm is ks with, after each kernel that names a warm function, its
// form without B prefetches (pfB 0), named name+"Warm": the position path's
// strided and gathering kernels prefetch their panel on a run's first tile
// only, where the weight may come from memory (see asm.SgemmKernelStridedUnchecked).
func withWarm(ks []gemmKernel) []gemmKernel {
	var all []gemmKernel
	for _, k := range ks {
		all = append(all, k)
		if k.warm != "" {
			w := k
			w.name, w.pfB, w.warm = k.name+"Warm", 0, ""
			w.doc = fmt.Sprintf("is %s without its B prefetches, for the tiles after a panel's first (see asm.%s).", k.name, k.warm)
			all = append(all, w)
		}
	}
	return all
}

// avx2RowKernels are the AVX2 6x16 tiles' first 1 to 5 rows on their
// 6-row A panels (sgemmBodyAStride), for a product's last row tile when
// its rows are not a multiple of 6 (a sequence of 32 tokens: 2 rows; 32,
// 64 or 16 output channels), straight into C instead of 6 rows into a
// scratch tile: of sgemmKernelAVX2 (asm.SgemmKernelRows) and of
// sgemmIndirectAVX2 and its chain form (asm.SgemmKernelIndirectRows).
func avx2RowKernels() []gemmKernel {
	var ks []gemmKernel
	for _, base := range []struct {
		name, of, api   string
		indirect, chain bool
		pfB             int
	}{
		{"sgemmKernelAVX2", "sgemmKernelAVX2", "SgemmKernelRows", false, false, 0},
		{"sgemmIndirectAVX2", "sgemmIndirectAVX2", "SgemmKernelIndirectRows", true, false, indirectPrefetchB},
		{"sgemmIndirectAVX2Chain", "sgemmIndirectAVX2Chain", "SgemmKernelIndirectRows", true, true, indirectPrefetchB},
	} {
		for r := 1; r <= 5; r++ {
			rows := "row"
			if r > 1 {
				rows = fmt.Sprintf("%d rows", r)
			}
			ks = append(ks, gemmKernel{
				name: fmt.Sprintf("%sR%d", base.name, r),
				doc:  fmt.Sprintf("is %s on the first %s of its A panel (see asm.%s).", base.of, rows, base.api),
				mr:   r, nr: 16, aStride: 6, prefetch: true, indirect: base.indirect, chain: base.chain, pfB: base.pfB,
				b: []reg.VecPhysical{reg.Y12, reg.Y13}, a0: reg.Y14, a1: reg.Y15,
			})
		}
	}
	return ks
}

// emit generates the kernel.
func (k gemmKernel) emit() {
	if k.pfNext && (k.indirect || k.strided || k.gatherSW > 0) {
		// Only a packed B panel (kc steps of nr floats) has a next one.
		panic(k.name + ": pfNext needs a packed B panel")
	}
	sig := "func(kc int, a, b, c *float32, ldc int, alpha, beta float32)"
	if k.indirect {
		sig = "func(kc int, a, b *float32, offs *int, c *float32, ldc int, alpha, beta float32)"
		if k.chain {
			sig = "func(kc int, a, b *float32, offs *int, c *float32, ldc int, alpha, beta float32, codes *uint8, sc *float32, nsteps int)"
		}
		if k.scatter {
			sig = "func(kc int, a, b *float32, offs *int, c *float32, ldc int, alpha, beta float32, codes *uint8, sc *float32, nsteps int, st *int64, res *float32, rat, rrev, tiles int)"
		}
	}
	if k.strided {
		sig = "func(kc int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32)"
	}
	if k.chain && !k.indirect {
		sig = "func(kc int, a, b, c *float32, ldc int, alpha, beta float32, codes *uint8, sc *float32, nsteps int)"
	}
	if k.colEpi {
		if k.chain || k.indirect || k.strided || k.gatherSW > 0 || k.memB {
			panic(k.name + ": colEpi needs a plain packed kernel")
		}
		sig = "func(kc int, a, b, c *float32, ldc int, alpha, beta float32, cb, res *float32, ldr, flags int)"
	}
	if k.rowA {
		if k.chain || k.indirect || k.strided || k.gatherSW > 0 || k.memB || k.mr != 8 {
			panic(k.name + ": rowA needs a plain packed 8-row kernel")
		}
		sig = "func(kc int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32)"
		if k.colEpi {
			sig = "func(kc int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32, cb, res *float32, ldr, flags int)"
		}
	}
	if k.gatherSW > 0 {
		sig = "func(kc int, a *float32, offs *int, b, c *float32, ldc int, alpha, beta float32)"
		if k.gatherSplit > 0 {
			sig = "func(kc int, a *float32, delta int, offs *int, b, c *float32, ldc int, alpha, beta float32)"
		}
	}
	text(k.name, sig)
	Doc(k.name + " " + k.doc)
	acc, lanes, vbytes := func(i int) reg.VecPhysical { return ymms[i] }, 8, 32
	if k.memB {
		acc = func(i int) reg.VecPhysical { return allYmms[i] }
	}
	if k.avx512 {
		acc, lanes, vbytes = func(i int) reg.VecPhysical { return zmms[i] }, 16, 64
	}
	sgemmBodyPrefetch, sgemmBodyIndirect, sgemmBodyStridedA, sgemmBodyGatherA, sgemmBodyChain, sgemmBodyScatter = k.prefetch, k.indirect, k.strided, k.gatherSW, k.chain, k.scatter
	sgemmBodyPrefetchB, sgemmBodyPrefetchA, sgemmBodyScatterPrefetch = k.pfB, k.pfA, k.pfOut
	sgemmBodyMemB = k.memB
	sgemmBodyGatherSplit = k.gatherSplit
	sgemmBodyAStride = k.aStride
	sgemmBodyPrefetchNext = k.pfNext
	sgemmBodyPrefetchC = k.avx512 && !k.scatter && !k.strided && k.gatherSW == 0
	sgemmBodyColEpi = k.colEpi
	sgemmBodyRowA = k.rowA
	sgemmBody(k.mr, k.nr, lanes, vbytes, acc, k.b, k.a0, k.a1)
	sgemmBodyRowA = false
	sgemmBodyPrefetchC = false
	sgemmBodyColEpi = false
	sgemmBodyPrefetchNext = false
	sgemmBodyMemB = false
	sgemmBodyGatherSplit = 0
	sgemmBodyAStride = 0
	sgemmBodyScatterPrefetch = 0
	sgemmBodyPrefetch, sgemmBodyIndirect, sgemmBodyStridedA, sgemmBodyGatherA, sgemmBodyChain, sgemmBodyScatter = false, false, false, 0, false, false
	sgemmBodyPrefetchB, sgemmBodyPrefetchA = 0, 0
}

// sgemmBodyColEpi makes sgemmBody run a product's epilogue on the tile in
// registers before its store (colEpiTile): the column bias, the residual,
// relu, as flags (asm.Epi*) select.
var sgemmBodyColEpi bool

// sgemmBodyRowA makes sgemmBody read A in place, row-major (A[i][p] =
// a[i*lda+p], parameter lda after a): step p broadcasts each row's p-th
// value from its row (rows 0-3 from a, 4-7 from a+4*lda), so a product's
// A needs no packing; the arithmetic is the packed kernel's.
var sgemmBodyRowA bool

// sgemmBodyPrefetch selects sgemmBody's AVX2 loop shape (C prefetch, A
// prefetch, one branch per unrolled iteration); the AVX-512 kernels keep
// theirs.
var sgemmBodyPrefetch bool

// sgemmBodyPrefetchC makes sgemmBody's AVX-512 loop prefetch the C tile's
// rows (every cache line of each) before the products, as the AVX2 loop
// shape does: the tile's read-back and store after its depth block then
// find them in L1. A product whose C outgrows the L2 reads its tiles back
// from L3 or memory once a depth block; 1024³, B packed per call, 1 thread,
// AMD EPYC (Zen 5) VM, five alternated runs: medians 11.78 -> 11.02 ms.
// The packed kernels on A and B panels have it, and the indirect ones
// whose tiles a deep convolution reads back from its scratch after each
// depth block (Inception-v3's 768->192 1x1 on 17², three blocks deep:
// BenchmarkConvPaths indirect-wide 537 -> 505 µs, 64->256 3x3 on 13² 297
// -> 288, medians of three alternated runs); not the scattering, strided
// or gathering kernels, whose tiles are stored once, to scattered rows.
var sgemmBodyPrefetchC bool

// prefetchTileRows prefetches the bytes at disps in each of the mr rows of
// the kernel's C tile (parameters c and ldc, in floats).
func prefetchTileRows(mr int, disps []int) {
	pc := Load(Param("c"), GP64())
	pld := Load(Param("ldc"), GP64())
	SHLQ(U8(2), pld)
	for i := 0; i < mr; i++ {
		for _, d := range disps {
			PREFETCHT0(Mem{Base: pc, Disp: d})
		}
		if i < mr-1 {
			ADDQ(pld, pc)
		}
	}
}

// sgemmBodyPrefetchB, when not 0, makes sgemmBody's unrolled loop prefetch
// the packed B panel this many bytes ahead of the rows it reads, every cache
// line of them. A constant weight that has fallen out of the caches (a
// model whose weights outgrow the L3, which each call streams through
// again) then arrives from memory while the tile computes, instead of one
// page at a time behind the hardware prefetcher: ResNet-18's 512x512 3x3
// convolution with its weight evicted took 1.40 ms against 1.03 warm
// (BenchmarkConvColdWeights). Past the panel's end the prefetch runs into
// the next panel's rows of the same depth block, which the next panel reads.
var sgemmBodyPrefetchB int

// sgemmBodyPrefetchNext makes sgemmBody's AVX2 loop prefetch, a cache line
// a step, the packed B panel after its own (kc steps of nr floats on): run
// on a panel's first row tile, it fetches the next panel from memory while
// the panel's other row tiles compute. A product of few rows against a
// weight that is not in cache otherwise waits on each panel in turn.
var sgemmBodyPrefetchNext bool

// sgemmBodyPrefetchA, when not 0, makes sgemmBody's unrolled loop prefetch
// the packed A panel this many bytes ahead, every cache line: the next
// panel of the A block, which the next row tile reads. A convolution's
// weight is A (its output channels the rows): SqueezeNet's 512 -> 1000
// classifier on 13x13 read its 2 MB weight from memory each call at 1.10
// ms against 0.87 warm (BenchmarkConvColdWeights).
var sgemmBodyPrefetchA int

// gemmPrefetchA is the A prefetch distance of the packed AVX-512 kernels:
// one 8-row panel of a 256-deep block.
const gemmPrefetchA = 8192

// gemmPrefetchB is the B prefetch distance of the kernels that have one:
// far enough ahead to cover a memory access at a step's few cycles. The
// 4x32 tile has it for products of one to four rows against a pre-packed
// weight (a classifier's GEMV), which stream the weight once: MobileNetV2's
// 1x1280x1000 with the caches flushed 30 -> 35-42 GB/s
// (BenchmarkMatmulColdWeights; 16 KiB measured the same).
const gemmPrefetchB = 8192

// indirectPrefetchB is the B prefetch distance of the AVX2 indirect tiles
// (a convolution's): each step prefetches its B row 256 bytes on, where
// the tile four panels later reads it. A pointwise layer's B rows are its
// input planes, a 3x3 layer's its phase planes' rows: as many read
// streams as input channels (taps), more than the hardware prefetchers
// follow when the input is not in cache, as in a network (BenchmarkConvColdOutput,
// AVX2 AMD EPYC (Zen 3), 1 thread, medians of six alternated runs:
// MobileNetV2's 32->16 1x1 on 112² 1227 -> 792 µs, 3->32 3x3/2 on 224²
// 1515 -> 1355, 16->96 1x1 on 112² 2119 -> 2034; 1024 bytes on:
// 855, 1323, 2007). Warm (BenchmarkConv2DChainLayers) the prefetch costs
// nothing measurable: one load-port µop in a step of twelve FMAs (64->64
// 3x3 on 56² 2121 -> 2209, 32->16 1x1 on 112² 398 -> 343, cnn_64x64's
// two 184 -> 176 and 189 -> 204, medians of six on a noisy machine). It
// goes to L2 (PREFETCHT1), as the AVX-512 scattering kernel's does
// (scatterPrefetchIn): the row tiles of a panel all read its rows, and a
// deep layer's four panels ahead, fetched into L1, evicted them
// (RELAXGO_ISA=avx2 on an AVX-512 Intel Xeon, BenchmarkConv2DChainLayers,
// medians of ten alternated runs: cnn_64x64's 32->64 3x3/2 on 32² 199 ->
// 172 µs, 192->32 on 28² 190 -> 180, 16->96 on 112² 1293 -> 1221; 3->32
// 3x3 on 64² and 3->64 3x3/2 on 224², whose 27 rows fit L1, 174 -> 176
// and 1245 -> 1242).
const indirectPrefetchB = 256

// sgemmBodyMemB makes sgemmBody keep only B's first vector in a register
// (bv has one) and feed the FMAs of the others from memory, with one
// broadcast register (a0): a 7x16 AVX2 tile's 14 accumulators leave two of
// the 16 registers. 15 loads a step for 14 FMAs (the 6x16 tile: 8 for 12).
// The epilogue scales the whole tile by alpha before adding beta*C, the
// alpha register then free for C's products: each element's operations
// are the other kernels', so are its bits.
var sgemmBodyMemB bool

// sgemmBodyAStride, when not 0, is the floats of packed A per step in
// place of mr: a kernel of fewer rows than the panel's (mr of its
// sgemmBodyAStride rows, the first ones), for a product's last row tile,
// whose rows past the product's would be computed for nothing and stored
// through a scratch tile. Each element's operations are the full tile's.
var sgemmBodyAStride int

// sgemmBodyIndirect makes sgemmBody read B row p at b + 4*offs[p] (an
// offsets table, parameter offs) instead of from a packed panel; the
// arithmetic is unchanged, so the bits are those of the packed kernel.
var sgemmBodyIndirect bool

// sgemmBodyStridedA makes sgemmBody read A in place instead of from a
// packed panel: step p's mr values are consecutive at a, which then
// advances by the lda parameter (elements), so that a matrix stored
// depth-major (an activation's channels, positions consecutive) is A
// without packing. The arithmetic is unchanged.
var sgemmBodyStridedA bool

// sgemmBodyGatherA, when not 0, makes sgemmBody read step p's A values at
// a + 4*offs[p] + 4*i*sgemmBodyGatherA (an offsets table, parameter offs,
// advancing 8 bytes a step): an implicit-GEMM convolution with the output
// positions of one row as A's rows (a tile of 7 positions sgemmBodyGatherA
// columns apart in the padded input) and the patch offsets as the depth.
var sgemmBodyGatherA int

// sgemmBodyGatherSplit, when not 0 (with sgemmBodyGatherA), makes rows from
// this one on read at a second base: row i at a + 4*delta + 4*offs[p] +
// 4*(i-split)*sgemmBodyGatherA (parameter delta, elements, after a), two
// tiles of a row's positions at once.
var sgemmBodyGatherSplit int

// sgemmBodyChain makes sgemmBody run a chain on the tile before storing it
// (parameters codes, sc, nsteps): step t is chainOps[codes[t]] with row i's
// scalar sc[t*mr+i] (a step-major table), after alpha and beta, on every
// row's vectors, one dispatch per step for the whole tile. The step's
// operations are the chain kernels', so each element gets the bits
// scalarChainF32 gives it.
var sgemmBodyChain bool

// sgemmBodyScatter makes sgemmBody store the tile through a table (parameter
// st): for each vector v of a row, st[3v] and st[3v+1] are byte offsets from
// the row's start and st[3v+2] holds two 16-bit lane masks; the vector is
// stored at the first offset under the low mask and at the second under the
// high one. So a tile of flat columns (an indirect convolution's, which
// include each output row's padding columns) lands in the output rows
// directly, its padding lanes dropped, instead of through a scratch tile
// and a copy. The tile is not read (beta must be 0); alpha applies.
var sgemmBodyScatter bool

// sgemmBodyScatterPrefetch, when not 0, makes a scatter kernel prefetch
// each of its rows this many bytes past the tile's store offsets after
// storing (scatterPrefetch).
var sgemmBodyScatterPrefetch int

// scatterPrefetch is how far past a scatter tile's store offsets, in
// bytes, the prefetching kernel prefetches each of its rows: where the
// row's next panels will store. The tiles of an output of many channels
// are as many store streams (64 planes for SqueezeNet's first layer),
// more than the hardware prefetchers follow, so a store to a line out of
// cache waited for it. BenchmarkConvColdOutput, an AVX-512 AMD EPYC, µs
// without -> 384 / 768 / 1536 bytes ahead: 3->64 3x3/2 on 224² 481-495 ->
// 314-356 / 309-317 / 308-330, 16->96 1x1 on 112² 503-548 -> 367-444 /
// 365-367 / 377-389. Warm, the prefetches cost a layer of little depth a
// few percent (cnn_64x64's 3->32 on 64², 512 KB of output: 36.0-36.4 ->
// 37.0-37.8 µs), so the kernels use the prefetching tile for outputs
// larger than the L2 only (kernels.scatterPrefetchMinBytes).
const scatterPrefetch = 768

// scatterPrefetchIn is how far past a step's B row, in bytes, the
// input-prefetching scatter kernel prefetches every line of that row: four
// 48-column panels on, where the tile four panels later reads it. A
// pointwise layer's B rows are its input planes: as many read streams as
// input channels (SqueezeNet's squeeze layers: 64 to 512), more than the
// hardware prefetchers follow, so that every panel waited for its lines
// (kernels.convIndirectF32 takes the kernel for inputs larger than
// kernels.scatterPrefetchMinBytes). The prefetches go to L2 (PREFETCHT1):
// four panels of a deep layer's rows are more than L1 holds (144->24 on
// 56²: 27 KB a panel), and into L1 they evicted the rows the current
// panel's next row tiles read (BenchmarkConv2DChainLayers, 1 thread,
// medians of six alternated runs, AVX-512 Intel Xeon: 24->144 on 56² 320
// -> 302 µs, 384->48 on 13² 93 -> 83, 16->96 on 112² 779 -> 665; with the
// caches flushed 32->16 on 112² 524 -> 511).
const scatterPrefetchIn = 4 * 192

func sgemmBody(mr, nr, lanes, vbytes int, acc func(int) reg.VecPhysical, bv []reg.VecPhysical, a0, a1 reg.VecPhysical) {
	nv := nr / lanes // vectors per row (2)
	if sgemmBodyScatter {
		// The scattering kernels run tiles row tiles, one after another
		// (see the end).
		Label("tile")
	}
	kc := Load(Param("kc"), GP64())
	a := Load(Param("a"), GP64())
	b := Load(Param("b"), GP64())
	// With an offsets table, B advances through it (8 bytes a step) and
	// each step loads its row's offset first; the parameters after it sit
	// 8 bytes further on.
	var offs, lda reg.Register
	aw := aStride(mr) // packed A's floats a step
	bstep, poff, astep := nr*4, 0, aw*4
	if sgemmBodyIndirect {
		offs = Load(Param("offs"), GP64())
		bstep, poff = 8, 8
	}
	if sgemmBodyStridedA {
		lda = Load(Param("lda"), GP64())
		SHLQ(U8(2), lda)
		poff, astep = 8, 0
	}
	var l3a, a4 reg.Register
	if sgemmBodyRowA {
		lda = Load(Param("lda"), GP64())
		SHLQ(U8(2), lda)
		l3a, a4 = GP64(), GP64()
		LEAQ(Mem{Base: lda, Index: lda, Scale: 2}, l3a)
		LEAQ(Mem{Base: a, Index: lda, Scale: 4}, a4)
		poff, astep = 8, 0
	}
	var aoffs, delta reg.Register
	if sgemmBodyGatherA > 0 {
		aoffs = Load(Param("offs"), GP64())
		poff, astep = 8, 0
		if sgemmBodyGatherSplit > 0 {
			delta = Load(Param("delta"), GP64())
			SHLQ(U8(2), delta)
			poff = 16
		}
	}
	step := func(u int) {
		if sgemmBodyGatherA > 0 {
			// A's step u at a + 4*offs[u], its rows sgemmBodyGatherA apart.
			o, pa := GP64(), GP64()
			MOVQ(Mem{Base: aoffs, Disp: u * 8}, o)
			LEAQ(Mem{Base: a, Index: o, Scale: 4}, pa)
			if sgemmBodyGatherSplit > 0 {
				kstepSplit(mr, nv, vbytes, acc, pa, delta, b, bv, a0, a1, u, sgemmBodyGatherA, sgemmBodyGatherSplit)
				return
			}
			kstep(mr, nv, vbytes, acc, pa, b, bv, a0, a1, u, 0, sgemmBodyGatherA)
			return
		}
		if sgemmBodyIndirect {
			kstepIndirect(mr, nv, vbytes, acc, a, b, offs, bv, a0, a1, u)
			return
		}
		if sgemmBodyRowA {
			kstepRowA(mr, nv, vbytes, acc, a, a4, lda, l3a, b, bv, a0, a1, u)
			return
		}
		if sgemmBodyStridedA {
			// A's step u at a (advanced by lda after each step).
			kstep(mr, nv, vbytes, acc, a, b, bv, a0, a1, u, 0, 1)
			ADDQ(lda, a)
			return
		}
		kstep(mr, nv, vbytes, acc, a, b, bv, a0, a1, u, u*aw, 1)
	}
	bptr := b
	if sgemmBodyIndirect {
		bptr = offs
	}
	for i := 0; i < mr*nv; i++ {
		VXORPS(acc(i), acc(i), acc(i))
	}
	const unroll = 4
	var pnext reg.GPVirtual
	if sgemmBodyPrefetchNext {
		pnext = GP64()
		IMUL3Q(U32(bstep), kc, pnext)
		ADDQ(b, pnext)
	}
	if sgemmBodyPrefetch {
		// Touch the C tile's rows now so that the write-back does not miss,
		// and run the unrolled loop with one branch per iteration, fetching
		// the A panel a few steps ahead.
		prefetchTileRows(mr, []int{0, nr*4 - 4})
		SUBQ(U32(unroll), kc)
		JL(LabelRef("k4done"))
		Label("k4")
		PREFETCHT0(Mem{Base: a, Disp: 8 * aw * 4})
		for u := 0; u < unroll; u++ {
			step(u)
		}
		if astep > 0 {
			ADDQ(U32(unroll*astep), a)
		}
		if sgemmBodyPrefetchNext {
			for l := 0; l < unroll*bstep; l += 64 {
				PREFETCHT0(Mem{Base: pnext, Disp: l})
			}
			ADDQ(U32(unroll*bstep), pnext)
		}
		ADDQ(U32(unroll*bstep), bptr)
		SUBQ(U32(unroll), kc)
		JGE(LabelRef("k4"))
		Label("k4done")
		ADDQ(U32(unroll), kc)
	} else {
		if sgemmBodyPrefetchC {
			var lines []int // every cache line of a row
			for l := 0; l < nr*4; l += 64 {
				lines = append(lines, l)
			}
			prefetchTileRows(mr, lines)
		}
		Label("k4")
		CMPQ(kc, U32(unroll))
		JL(LabelRef("k1"))
		for u := 0; u < unroll; u++ {
			step(u)
		}
		if astep > 0 {
			ADDQ(U32(unroll*astep), a)
		}
		if sgemmBodyRowA {
			ADDQ(U32(unroll*4), a)
			ADDQ(U32(unroll*4), a4)
		}
		if sgemmBodyGatherA > 0 {
			ADDQ(U32(unroll*8), aoffs)
		}
		if sgemmBodyPrefetchA > 0 && astep > 0 {
			for l := 0; l < unroll*astep; l += 64 {
				PREFETCHT0(Mem{Base: a, Disp: sgemmBodyPrefetchA + l - unroll*astep})
			}
		}
		if sgemmBodyPrefetchB > 0 && !sgemmBodyIndirect {
			for l := 0; l < unroll*bstep; l += 64 {
				PREFETCHT0(Mem{Base: b, Disp: sgemmBodyPrefetchB + l})
			}
		}
		if sgemmBodyPrefetchNext {
			for l := 0; l < unroll*bstep; l += 64 {
				PREFETCHT0(Mem{Base: pnext, Disp: l})
			}
			ADDQ(U32(unroll*bstep), pnext)
		}
		ADDQ(U32(unroll*bstep), bptr)
		SUBQ(U32(unroll), kc)
		JMP(LabelRef("k4"))
	}
	Label("k1")
	CMPQ(kc, U32(0))
	JE(LabelRef("epilogue"))
	step(0)
	if astep > 0 {
		ADDQ(U32(astep), a)
	}
	if sgemmBodyRowA {
		ADDQ(U32(4), a)
		ADDQ(U32(4), a4)
	}
	if sgemmBodyGatherA > 0 {
		ADDQ(U32(8), aoffs)
	}
	ADDQ(U32(bstep), bptr)
	DECQ(kc)
	JMP(LabelRef("k1"))

	Label("epilogue")
	c := Load(Param("c"), GP64())
	ldc := Load(Param("ldc"), GP64())
	SHLQ(U8(2), ldc)
	var alpha, beta, tmp reg.VecPhysical
	if sgemmBodyMemB {
		alpha, beta, tmp = bv[0], a0, bv[0]
	} else {
		alpha, beta, tmp = bv[0], bv[1], a0
	}
	VBROADCASTSS(NewParamAddr("alpha", 40+poff), alpha)
	if sgemmBodyScatter {
		// beta is 0 by contract: alpha only (the tile is not read).
		alphaScale(NewParamAddr("alpha", 40+poff), alpha, mr*nv, func(i int) Op { return acc(i) }, "scaled")
		Label("scaled")
	} else {
		VBROADCASTSS(NewParamAddr("beta", 44+poff), beta)
		scaleTile(mr, nv, vbytes, acc, c, ldc, alpha, beta, tmp, poff)
	}
	var st, l3 reg.GPVirtual
	if sgemmBodyScatter {
		st = Load(Param("st"), GP64()).(reg.GPVirtual)
		l3 = GP64()
		LEAQ(Mem{Base: ldc, Index: ldc, Scale: 2}, l3)
	}
	if sgemmBodyColEpi {
		colEpiTile(mr, nv, vbytes, acc, alpha, beta)
	}
	if sgemmBodyChain {
		s := avx2
		if lanes == 16 {
			s = avx512
		}
		if sgemmBodyScatter {
			chainTileResidual(mr, nv, acc, ldc.(reg.GPVirtual), st, l3, tmp)
		} else {
			chainTile(s, mr, nv, acc)
		}
	}
	if sgemmBodyScatter {
		// Vector by vector, all rows of one store offset at a time, so
		// that a vector inside one flat row (most of them: its second mask
		// is empty) makes one store a row, not two.
		scatterVectors(nv, mr, "scatter_skip", c, st, ldc, l3, func(v int, k reg.OpmaskVirtual, at func(i int) Mem) {
			for i := 0; i < mr; i++ {
				VMOVUPS(acc(i*nv+v), k, at(i))
			}
		})
		if sgemmBodyScatterPrefetch > 0 {
			// The rows' next panels, ahead of their stores: an output of
			// many planes is many store streams at once, more than the
			// hardware prefetchers follow, and each store to a line not in
			// cache would wait for the line.
			rows := func(from reg.Register) {
				p, p4 := GP64(), GP64()
				MOVQ(from, p)
				ADDQ(Mem{Base: st}, p)
				LEAQ(Mem{Base: p, Index: ldc, Scale: 4}, p4)
				for i := 0; i < mr; i++ {
					m := tileRowAt(p, p4, ldc, l3, i)
					for l := 0; l < nr*4; l += 64 {
						m.Disp = sgemmBodyScatterPrefetch + l
						PREFETCHT0(m)
					}
				}
			}
			rows(c)
			// And the residual's, read at the same offsets.
			rat := Load(Param("rat"), GP64())
			CMPQ(rat, U32(0))
			JL(LabelRef("res_prefetched"))
			rows(Load(Param("res"), GP64()))
			Label("res_prefetched")
		}
		// The next row tile: its A panel kc*mr floats on, its rows (and
		// the residual's) mr rows down, its chain scalars nsteps*mr on;
		// the arguments are advanced in place and reloaded at the top.
		t := Load(Param("tiles"), GP64())
		DECQ(t)
		JLE(LabelRef("tiles_done"))
		Store(t, Param("tiles"))
		advance := func(name string, by reg.Register) {
			p := Load(Param(name), GP64())
			ADDQ(by, p)
			Store(p, Param(name))
		}
		d := Load(Param("kc"), GP64())
		IMUL3Q(U32(aStride(mr)*4), d, d)
		advance("a", d)
		rd := Load(Param("ldc"), GP64())
		IMUL3Q(U32(mr*4), rd, rd)
		advance("c", rd)
		ra := Load(Param("rat"), GP64())
		CMPQ(ra, U32(0))
		JL(LabelRef("res_advanced"))
		advance("res", rd)
		Label("res_advanced")
		sd := Load(Param("nsteps"), GP64())
		IMUL3Q(U32(aStride(mr)*4), sd, sd)
		advance("sc", sd)
		JMP(LabelRef("tile"))
		Label("tiles_done")
		VZEROUPPER()
		RET()
		return
	}
	for i := 0; i < mr; i++ {
		for v := 0; v < nv; v++ {
			VMOVUPS(acc(i*nv+v), Mem{Base: c, Disp: v * vbytes})
		}
		if i < mr-1 {
			ADDQ(ldc, c)
		}
	}
	VZEROUPPER()
	RET()
}

// colEpiTile emits a product's epilogue on the tile's accumulators (after
// alpha and beta), each step EpilogueRowsF32's instruction in its operand
// order, so the bits are those of that kernel run on the stored tile: per
// the parameter flags (epi*), the column bias cb's vectors added to every
// row, then the residual's rows (res, ldr floats apart) added on the
// right or, with epiResLeft, on the left, then relu. t and z are free
// vectors.
func colEpiTile(mr, nv, vbytes int, acc func(int) reg.VecPhysical, t, z reg.VecPhysical) {
	flags := Load(Param("flags"), GP64())
	TESTQ(U32(epiColBias), flags)
	JZ(LabelRef("epi_cb"))
	cb := Load(Param("cb"), GP64())
	for v := 0; v < nv; v++ {
		VMOVUPS(Mem{Base: cb, Disp: v * vbytes}, t)
		for i := 0; i < mr; i++ {
			VADDPS(t, acc(i*nv+v), acc(i*nv+v)) // row + bias
		}
	}
	Label("epi_cb")
	TESTQ(U32(epiRes), flags)
	JZ(LabelRef("epi_res"))
	TESTQ(U32(epiResLeft), flags)
	JNZ(LabelRef("epi_left"))
	rr := Load(Param("res"), GP64())
	ldr := Load(Param("ldr"), GP64())
	SHLQ(U8(2), ldr)
	for i := 0; i < mr; i++ {
		for v := 0; v < nv; v++ {
			VADDPS(Mem{Base: rr, Disp: v * vbytes}, acc(i*nv+v), acc(i*nv+v)) // row + res
		}
		if i < mr-1 {
			ADDQ(ldr, rr)
		}
	}
	JMP(LabelRef("epi_res"))
	Label("epi_left")
	rl := Load(Param("res"), GP64())
	ldl := Load(Param("ldr"), GP64())
	SHLQ(U8(2), ldl)
	for i := 0; i < mr; i++ {
		for v := 0; v < nv; v++ {
			VMOVUPS(Mem{Base: rl, Disp: v * vbytes}, t)
			VADDPS(acc(i*nv+v), t, acc(i*nv+v)) // res + row
		}
		if i < mr-1 {
			ADDQ(ldl, rl)
		}
	}
	Label("epi_res")
	TESTQ(U32(epiRelu), flags)
	JZ(LabelRef("epi_relu"))
	VXORPS(z, z, z)
	for i := 0; i < mr*nv; i++ {
		VMAXPS(acc(i), z, acc(i)) // 0 > x ? 0 : x
	}
	Label("epi_relu")
}

// withEpi is ks with, after each kernel named in epiKernels, its colEpi
// form named name+"Epi".
func withEpi(ks []gemmKernel) []gemmKernel {
	return withForm(ks, epiKernels, "Epi", "running a product's epilogue on the tile before its store (see asm.SgemmKernelEpiUnchecked)",
		func(e *gemmKernel) { e.colEpi = true })
}

// withRowA is ks with, after each kernel named in rowAKernels, its form
// reading A in place, row-major, named name+"RowA"
// (asm.SgemmKernelRowAUnchecked).
func withRowA(ks []gemmKernel) []gemmKernel {
	return withForm(ks, rowAKernels, "RowA", "reading A in place, row-major (see asm.SgemmKernelRowAUnchecked)",
		func(e *gemmKernel) { e.rowA, e.pfA = true, 0 })
}

// withForm is ks with, after each kernel named in set, a copy named
// name+suffix, documented "is name what" and changed by set.
func withForm(ks []gemmKernel, names map[string]bool, suffix, what string, set func(*gemmKernel)) []gemmKernel {
	var all []gemmKernel
	for _, k := range ks {
		all = append(all, k)
		if names[k.name] {
			e := k
			e.name, e.doc = k.name+suffix, fmt.Sprintf("is %s %s.", k.name, what)
			set(&e)
			all = append(all, e)
		}
	}
	return all
}

// rowAKernels are the kernels with a RowA form: the 8x32 AVX-512 tile's,
// plain, next-panel and epilogue forms (the pre-packed products of 64 and
// 128 rows, whose A then needs no packing).
var rowAKernels = map[string]bool{
	"sgemmKernelAVX512Mid": true, "sgemmKernelAVX512MidNext": true,
	"sgemmKernelAVX512MidEpi": true, "sgemmKernelAVX512MidNextEpi": true,
}

// epiKernels are the packed kernels with a colEpi form: the tiles the
// blocked driver runs on whole tiles (main, middle, wide, and their
// next-panel forms at AVX-512; the 6x16 one and its next-panel form at
// AVX2).
var epiKernels = map[string]bool{
	"sgemmKernelAVX512": true, "sgemmKernelAVX512Next": true,
	"sgemmKernelAVX512Mid": true, "sgemmKernelAVX512MidNext": true,
	"sgemmKernelAVX512Wide": true, "sgemmKernelAVX512WideNext": true,
	"sgemmKernelAVX2": true, "sgemmKernelAVX2Next": true,
}

// alphaScale emits the multiplication of the n accumulators acc(i) by
// alpha (a vector holding it; alphaAddr its parameter), jumping to done
// instead when alpha is 1 (x*1 is x bit for bit).
func alphaScale(alphaAddr Mem, alpha Op, n int, acc func(int) Op, done string) {
	ab := GP32()
	MOVL(alphaAddr, ab)
	CMPL(ab, U32(math.Float32bits(1)))
	JE(LabelRef(done))
	for i := 0; i < n; i++ {
		VMULPS(alpha, acc(i), acc(i))
	}
}

// scaleTile emits alpha*acc (+ beta*C when beta is not zero) on the tile's
// accumulators, C's rows at c, ldc bytes apart (c is left as it was), t a
// free vector. With beta zero and alpha 1 (every product a convolution or
// matmul asks for) the tile is left as it is, x*1 being x bit for bit.
func scaleTile(mr, nv, vbytes int, acc func(int) reg.VecPhysical, c, ldc reg.Register, alpha, beta, t reg.VecPhysical, poff int) {
	bb := GP32()
	MOVL(NewParamAddr("beta", 44+poff), bb)
	ANDL(U32(0x7fffffff), bb)
	JNE(LabelRef("beta_nonzero"))
	alphaScale(NewParamAddr("alpha", 40+poff), alpha, mr*nv, func(i int) Op { return acc(i) }, "scaled")
	JMP(LabelRef("scaled"))
	Label("beta_nonzero")
	pc := GP64()
	MOVQ(c, pc)
	if t == alpha {
		// No register to spare (sgemmBodyMemB): alpha first on the whole
		// tile, its register then C's products.
		for i := 0; i < mr*nv; i++ {
			VMULPS(alpha, acc(i), acc(i))
		}
	}
	for i := 0; i < mr; i++ {
		for v := 0; v < nv; v++ {
			r := acc(i*nv + v)
			if t != alpha {
				VMULPS(alpha, r, r)
			}
			VMULPS(Mem{Base: pc, Disp: v * vbytes}, beta, t)
			VADDPS(t, r, r)
		}
		if i < mr-1 {
			ADDQ(ldc, pc)
		}
	}
	Label("scaled")
}

// chainTile emits sgemmBodyChain's chain on the tile's accumulators: step
// t is chainOps[codes[t]] with row i's scalar sc[t*mr+i] (parameters codes,
// sc, nsteps), one dispatch per step for the whole tile.
func chainTile(s isa, mr, nv int, acc func(int) reg.VecPhysical) {
	codes := Load(Param("codes"), GP64()).(reg.GPVirtual)
	sc := Load(Param("sc"), GP64()).(reg.GPVirtual)
	nt := Load(Param("nsteps"), GP64())
	tileSteps(s, "chain", mr, nv, acc, codes, sc, nt)
}

// tileSteps emits the chain loop (labels lbl_*) of n steps from codes on
// the tile's accumulators, row i's scalar of a step at sc + 4i, sc moved
// to the next step's row after each.
func tileSteps(s isa, lbl string, mr, nv int, acc func(int) reg.VecPhysical, codes, sc reg.GPVirtual, n Op) {
	chainLoop(lbl, codes, n, nil, func(emit chainOp) {
		for i := 0; i < mr; i++ {
			sv := s.vec()
			VBROADCASTSS(Mem{Base: sc, Disp: i * 4}, sv)
			for v := 0; v < nv; v++ {
				emit(s, sv, acc(i*nv+v))
			}
		}
	}, func() {
		ADDQ(U32(aStride(mr)*4), sc) // the next step's row of the table (a panel's rows)
	})
}

// chainTileResidual is chainTile for the scattering kernels, with a
// residual step: when rat is not negative, after the chain's first rat
// steps each lane the tile stores (the scatter table st's masks and
// offsets) gets the residual's element at the same offset from res
// (row i: plus i*ldc) added, the chain value the first operand (the
// residual the first when rrev is not 0, as the elementwise add's
// operand order gives its NaN's bits), then the remaining steps run.
// Lanes no mask selects are left as they are (never stored). ldc (in
// bytes), st and l3 (3*ldc) are the scatter's registers; tmp a free
// vector.
func chainTileResidual(mr, nv int, acc func(int) reg.VecPhysical, ldc, st, l3 reg.GPVirtual, tmp reg.VecPhysical) {
	codes := Load(Param("codes"), GP64()).(reg.GPVirtual)
	sc := Load(Param("sc"), GP64()).(reg.GPVirtual)
	nt := Load(Param("nsteps"), GP64()).(reg.GPVirtual)
	rat := Load(Param("rat"), GP64()).(reg.GPVirtual)
	n1 := GP64()
	MOVQ(nt, n1)
	CMPQ(rat, U32(0))
	JL(LabelRef("chain_all"))
	MOVQ(rat, n1)
	Label("chain_all")
	tileSteps(avx512, "chain", mr, nv, acc, codes, sc, n1)
	CMPQ(rat, U32(0))
	JL(LabelRef("chain_done"))
	res := Load(Param("res"), GP64()).(reg.GPVirtual)
	rrev := Load(Param("rrev"), GP64()).(reg.GPVirtual)
	n := 0
	scatterVectors(nv, mr, "res_skip", res, st, ldc, l3, func(v int, k reg.OpmaskVirtual, at func(i int) Mem) {
		rev, done := fmt.Sprintf("res_rev_%d", n), fmt.Sprintf("res_added_%d", n)
		n++
		CMPQ(rrev, U32(0))
		JNE(LabelRef(rev))
		for i := 0; i < mr; i++ {
			VADDPS(at(i), acc(i*nv+v), k, acc(i*nv+v))
		}
		JMP(LabelRef(done))
		Label(rev)
		for i := 0; i < mr; i++ {
			VMOVUPS(at(i), k, tmp)
			VADDPS(acc(i*nv+v), tmp, k, acc(i*nv+v))
		}
		Label(done)
	})
	ADDQ(rat, codes)
	SUBQ(rat, nt)
	tileSteps(avx512, "chainpost", mr, nv, acc, codes, sc, nt)
	Label("chain_done")
}

// scatterVectors emits, for each of the tile's nv vectors and each of its
// two halves in the scatter table st (mask at st[3v+2] bits 16h..,
// offset st[3v+h] bytes), a skip when the mask is empty, else body with
// the mask and row i's address from (from plus the offset, rows ldc
// bytes apart; l3 is 3*ldc); labels skip_v_h.
func scatterVectors(nv, mr int, skip string, from, st, ldc, l3 reg.Register, body func(v int, k reg.OpmaskVirtual, at func(i int) Mem)) {
	for v := 0; v < nv; v++ {
		for h := 0; h < 2; h++ {
			lbl := fmt.Sprintf("%s_%d_%d", skip, v, h)
			k := K()
			KMOVW(Mem{Base: st, Disp: (3*v+2)*8 + 2*h}, k)
			KORTESTW(k, k)
			JZ(LabelRef(lbl))
			p, p4 := GP64(), GP64()
			MOVQ(from, p)
			ADDQ(Mem{Base: st, Disp: (3*v + h) * 8}, p)
			LEAQ(Mem{Base: p, Index: ldc, Scale: 4}, p4)
			body(v, k, func(i int) Mem { return tileRowAt(p, p4, ldc, l3, i) })
			Label(lbl)
		}
	}
}

// tileRowAt is row i (< 8) of an 8-row tile whose row 0 is at p and row 4
// at p4, rows ldc bytes apart (l3 = 3*ldc).
func tileRowAt(p, p4, ldc, l3 reg.Register, i int) Mem {
	if i >= 4 {
		return rowAt(p4, ldc, l3, i-4)
	}
	return rowAt(p, ldc, l3, i)
}

// kstep emits one k step: load the B row (nv vectors), then for each of the
// mr A values (at a + 4*(aoff+i*asw)) broadcast it and FMA into the row's
// accumulators.
func kstep(mr, nv, vbytes int, acc func(int) reg.VecPhysical, a, b reg.Register, bv []reg.VecPhysical, a0, a1 reg.VecPhysical, u, aoff, asw int) {
	nr := nv * vbytes / 4
	for v := 0; v < min(nv, len(bv)); v++ {
		VMOVUPS(Mem{Base: b, Disp: (u*nr)*4 + v*vbytes}, bv[v])
	}
	av := []reg.VecPhysical{a0, a1}
	for i := 0; i < mr; i++ {
		r := av[i%2]
		VBROADCASTSS(Mem{Base: a, Disp: (aoff + i*asw) * 4}, r)
		for v := 0; v < nv; v++ {
			if v < len(bv) {
				VFMADD231PS(bv[v], r, acc(i*nv+v))
			} else {
				// sgemmBodyMemB: the B vector from memory.
				VFMADD231PS(Mem{Base: b, Disp: (u*nr)*4 + v*vbytes}, r, acc(i*nv+v))
			}
		}
	}
}

// kstepSplit is kstep (aoff 0) with rows from split on at a + delta
// (bytes, a register): row i < split at a + 4*i*asw, row i >= split at a +
// delta + 4*(i-split)*asw.
func kstepSplit(mr, nv, vbytes int, acc func(int) reg.VecPhysical, a, delta, b reg.Register, bv []reg.VecPhysical, a0, a1 reg.VecPhysical, u, asw, split int) {
	nr := nv * vbytes / 4
	for v := 0; v < nv; v++ {
		VMOVUPS(Mem{Base: b, Disp: (u*nr)*4 + v*vbytes}, bv[v])
	}
	av := []reg.VecPhysical{a0, a1}
	for i := 0; i < mr; i++ {
		r := av[i%2]
		m := Mem{Base: a, Disp: i * asw * 4}
		if i >= split {
			m = Mem{Base: a, Index: delta, Scale: 1, Disp: (i - split) * asw * 4}
		}
		VBROADCASTSS(m, r)
		for v := 0; v < nv; v++ {
			VFMADD231PS(bv[v], r, acc(i*nv+v))
		}
	}
}

// kstepRowA is kstep with A row-major in place (sgemmBodyRowA): row i's
// step u at tileRowAt(a, a4, lda, l3, i) + 4u.
func kstepRowA(mr, nv, vbytes int, acc func(int) reg.VecPhysical, a, a4, lda, l3 reg.Register, b reg.Register, bv []reg.VecPhysical, a0, a1 reg.VecPhysical, u int) {
	nr := nv * vbytes / 4
	for v := 0; v < nv; v++ {
		VMOVUPS(Mem{Base: b, Disp: (u*nr)*4 + v*vbytes}, bv[v])
	}
	av := []reg.VecPhysical{a0, a1}
	for i := 0; i < mr; i++ {
		m := tileRowAt(a, a4, lda, l3, i)
		m.Disp += u * 4
		VBROADCASTSS(m, av[i%2])
		for v := 0; v < nv; v++ {
			VFMADD231PS(bv[v], av[i%2], acc(i*nv+v))
		}
	}
}

// kstepIndirect is kstep with the B row at b + 4*offs[u] (offs points at
// the current step's entry).
func kstepIndirect(mr, nv, vbytes int, acc func(int) reg.VecPhysical, a, b, offs reg.Register, bv []reg.VecPhysical, a0, a1 reg.VecPhysical, u int) {
	o := GP64()
	MOVQ(Mem{Base: offs, Disp: u * 8}, o)
	for v := 0; v < nv; v++ {
		VMOVUPS(Mem{Base: b, Index: o, Scale: 4, Disp: v * vbytes}, bv[v])
	}
	if sgemmBodyPrefetchB > 0 {
		// Every line of the row (the wide tile's 192 bytes are three),
		// into L2 (scatterPrefetchIn, indirectPrefetchB).
		for l := 0; l < nv*vbytes; l += 64 {
			PREFETCHT1(Mem{Base: b, Index: o, Scale: 4, Disp: sgemmBodyPrefetchB + l})
		}
	}
	av := []reg.VecPhysical{a0, a1}
	for i := 0; i < mr; i++ {
		r := av[i%2]
		VBROADCASTSS(Mem{Base: a, Disp: (u*aStride(mr) + i) * 4}, r)
		for v := 0; v < nv; v++ {
			VFMADD231PS(bv[v], r, acc(i*nv+v))
		}
	}
}

// aStride is packed A's floats a step of a kernel of mr rows:
// sgemmBodyAStride when set, else mr.
func aStride(mr int) int {
	if sgemmBodyAStride > 0 {
		return sgemmBodyAStride
	}
	return mr
}

var zmms = []reg.VecPhysical{
	reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5, reg.Z6, reg.Z7, reg.Z8, reg.Z9,
	reg.Z10, reg.Z11, reg.Z12, reg.Z13, reg.Z14, reg.Z15, reg.Z16, reg.Z17, reg.Z18, reg.Z19,
	reg.Z20, reg.Z21, reg.Z22, reg.Z23, reg.Z24, reg.Z25, reg.Z26, reg.Z27, reg.Z28, reg.Z29,
	reg.Z30, reg.Z31,
}

// allYmms are the 16 AVX2 vector registers (sgemmBodyMemB's tiles take 14
// of them as accumulators).
var allYmms = []reg.VecPhysical{
	reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7,
	reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12, reg.Y13, reg.Y14, reg.Y15,
}

var ymms = []reg.VecPhysical{
	reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7, reg.Y8, reg.Y9, reg.Y10, reg.Y11,
}

// directTiles are the rows x vectors of the AVX2 small-M kernels that read B
// in place (row stride ldb) instead of from a packed panel: 1x64, 2x32, 4x24.
var directTiles = [][2]int{{1, 8}, {2, 4}, {4, 3}}

// sgemmDirectAVX2 emits the r x 8v small-M micro-kernel: A is packed
// (a[p*r+i]), B is read in place (B[p][j] = b[p*ldb+j]). With one row, B
// feeds the FMAs straight from memory (each value is used once); with more,
// the B row is loaded into v registers and reused by the r rows. The
// arithmetic per element (FMA accumulation in p order, then the alpha/beta
// write-back) is that of sgemmKernelAVX2, so results are bit-identical.
// With prefetch (more than one row) each depth step also prefetches into L2
// the lines of the B row's next tile (directPrefetchDisps), for a B that
// comes from beyond the L2: the strip's next tile then reads it from there.
func sgemmDirectAVX2(r, v int, prefetch bool) {
	nr := 8 * v
	name := fmt.Sprintf("sgemmDirect%dx%dAVX2", r, nr)
	doc := fmt.Sprintf("%s is the %dx%d small-M SGEMM micro-kernel reading B in place (see asm.SgemmDirect).", name, r, nr)
	if prefetch {
		base := name
		name = fmt.Sprintf("sgemmDirect%dx%dPrefetchAVX2", r, nr)
		doc = fmt.Sprintf("%s is %s prefetching into L2 the next tile's part of each B row (see asm.SgemmDirectUnchecked).", name, base)
	}
	text(name, "func(kc int, a, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)")
	Doc(doc)
	all := []reg.VecPhysical{reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7,
		reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12, reg.Y13, reg.Y14, reg.Y15}
	acc := all[:r*v]
	rest := all[r*v:]
	var bregs []reg.VecPhysical
	if r > 1 {
		bregs, rest = rest[:v], rest[v:]
	}
	av := rest[0]
	kc := Load(Param("kc"), GP64())
	a := Load(Param("a"), GP64())
	b := Load(Param("b"), GP64())
	ldb := Load(Param("ldb"), GP64())
	SHLQ(U8(2), ldb)
	for _, x := range acc {
		VXORPS(x, x, x)
	}
	step := func() {
		if r > 1 {
			for u := 0; u < v; u++ {
				VMOVUPS(Mem{Base: b, Disp: u * 32}, bregs[u])
			}
		}
		for i := 0; i < r; i++ {
			VBROADCASTSS(Mem{Base: a, Disp: i * 4}, av)
			for u := 0; u < v; u++ {
				if r > 1 {
					VFMADD231PS(bregs[u], av, acc[i*v+u])
				} else {
					VFMADD231PS(Mem{Base: b, Disp: u * 32}, av, acc[i*v+u])
				}
			}
		}
		if prefetch {
			for _, d := range directPrefetchDisps(nr) {
				PREFETCHT1(Mem{Base: b, Disp: d})
			}
		}
		ADDQ(U32(r*4), a)
		ADDQ(ldb, b)
	}
	const unroll = 2
	Label("d2")
	CMPQ(kc, U32(unroll))
	JL(LabelRef("d1"))
	for u := 0; u < unroll; u++ {
		step()
	}
	SUBQ(U32(unroll), kc)
	JMP(LabelRef("d2"))
	Label("d1")
	CMPQ(kc, U32(0))
	JE(LabelRef("epilogue"))
	step()
	Label("epilogue")
	c := Load(Param("c"), GP64())
	ldc := Load(Param("ldc"), GP64())
	SHLQ(U8(2), ldc)
	// Free registers for alpha, beta and a temporary: the B registers, or
	// (one row) the broadcast register and those past the accumulators.
	free := append(append([]reg.VecPhysical{}, bregs...), all[r*v:]...)
	alpha, beta, tmp := free[0], free[1], free[2]
	VBROADCASTSS(NewParamAddr("alpha", 48), alpha)
	VBROADCASTSS(NewParamAddr("beta", 52), beta)
	bb := GP32()
	MOVL(NewParamAddr("beta", 52), bb)
	ANDL(U32(0x7fffffff), bb)
	JNE(LabelRef("beta_nonzero"))
	for i := 0; i < r; i++ {
		for u := 0; u < v; u++ {
			x := acc[i*v+u]
			VMULPS(alpha, x, x)
			VMOVUPS(x, Mem{Base: c, Disp: u * 32})
		}
		if i < r-1 {
			ADDQ(ldc, c)
		}
	}
	VZEROUPPER()
	RET()
	Label("beta_nonzero")
	for i := 0; i < r; i++ {
		for u := 0; u < v; u++ {
			x := acc[i*v+u]
			VMULPS(alpha, x, x)
			VMULPS(Mem{Base: c, Disp: u * 32}, beta, tmp)
			VADDPS(tmp, x, x)
			VMOVUPS(x, Mem{Base: c, Disp: u * 32})
		}
		if i < r-1 {
			ADDQ(ldc, c)
		}
	}
	VZEROUPPER()
	RET()
}

// directPrefetchDisps are the byte offsets from a B row's tile start whose
// lines cover the next nr-float tile of the row: every 64 bytes from nr*4,
// and its last byte.
func directPrefetchDisps(nr int) []int {
	var ds []int
	for d := nr * 4; d < 2*nr*4; d += 64 {
		ds = append(ds, d)
	}
	return append(ds, 2*nr*4-4)
}

// narrowRows are the row counts of the narrow SGEMM kernel's bodies.
var narrowRows = halvingBlocks

// sgemmNarrowKernels emits sgemmNarrow{suffix}: r rows of C (r = 8, 4, 2
// or 1, a body each), at most one vector of columns (cols <= lanes), with A
// and B both read in place (A[i][p] = a[i*lda+p], B[p][j] = b[p*ldb+j]): no
// packing at all, for products too small to repay it (attention heads,
// small linear layers). Columns past cols are neither read nor written
// (masked). Per element the arithmetic is the packed kernels' (FMA
// accumulation from zero in p order, the same operand order; then alpha and
// beta as scaleTile), so the bits are theirs.
func sgemmNarrowKernels(s isa) {
	name := "sgemmNarrow" + s.suffix
	text(name, "func(r, kc int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, cols int, alpha, beta float32)")
	Doc(fmt.Sprintf("%s computes r (8, 4, 2 or 1) rows of at most %d columns of C = alpha*A*B + beta*C with A and B in place (see asm.SgemmNarrow).", name, s.lanes))
	r := Load(Param("r"), GP64())
	for _, rows := range narrowRows[:len(narrowRows)-1] {
		CMPQ(r, U32(rows))
		JE(LabelRef(fmt.Sprintf("%s_r%d", name, rows)))
	}
	JMP(LabelRef(name + "_r1"))
	for _, rows := range narrowRows {
		sgemmNarrow(s, fmt.Sprintf("%s_r%d", name, rows), rows)
	}
}

// sgemmNarrow emits the r-row body of sgemmNarrowKernels' kernel, starting
// at label name (its labels all start with it).
func sgemmNarrow(s isa, name string, r int) {
	Label(name)
	kc := Load(Param("kc"), GP64())
	a := Load(Param("a"), GP64()).(reg.GPVirtual)
	l := Load(Param("lda"), GP64())
	SHLQ(U8(2), l)
	b := Load(Param("b"), GP64())
	ldb := Load(Param("ldb"), GP64())
	SHLQ(U8(2), ldb)
	cols := Load(Param("cols"), GP64())
	k, lanes := tailMask(s, cols.(reg.GPVirtual))
	// Row i's A element: rows 0-3 from a, rows 4-7 from a4 = a + 4*lda,
	// indexed by lda, 2*lda or 3*lda (l3).
	var a4, l3 reg.GPVirtual
	if r > 2 {
		l3 = GP64()
		LEAQ(Mem{Base: l, Index: l, Scale: 2}, l3)
	}
	if r > 4 {
		a4 = GP64()
		LEAQ(Mem{Base: a, Index: l, Scale: 4}, a4)
	}
	rowA := func(i int) Mem {
		if i >= 4 {
			return rowAt(a4, l, l3, i-4)
		}
		return rowAt(a, l, l3, i)
	}
	acc := make([]reg.VecVirtual, r)
	for i := range acc {
		acc[i] = s.vec()
		VXORPS(acc[i], acc[i], acc[i])
	}
	bv := s.vec()
	step := func() {
		if s.avx512 {
			VMOVUPS_Z(Mem{Base: b}, k, bv)
		} else {
			VMASKMOVPS(Mem{Base: b}, lanes, bv)
		}
		for i := 0; i < r; i++ {
			t := s.vec()
			VBROADCASTSS(rowA(i), t)
			VFMADD231PS(bv, t, acc[i])
		}
		ADDQ(U32(4), a)
		if r > 4 {
			ADDQ(U32(4), a4)
		}
		ADDQ(ldb, b)
	}
	Label(name + "_two")
	CMPQ(kc, U32(2))
	JL(LabelRef(name + "_one"))
	step()
	step()
	SUBQ(U32(2), kc)
	JMP(LabelRef(name + "_two"))
	Label(name + "_one")
	CMPQ(kc, U32(0))
	JE(LabelRef(name + "_epilogue"))
	step()
	Label(name + "_epilogue")
	c := Load(Param("c"), GP64())
	ldc := Load(Param("ldc"), GP64())
	SHLQ(U8(2), ldc)
	store := func(x reg.VecVirtual) {
		if s.avx512 {
			VMOVUPS(x, k, Mem{Base: c})
		} else {
			VMASKMOVPS(x, lanes, Mem{Base: c})
		}
	}
	alpha, beta := s.vec(), s.vec()
	VBROADCASTSS(NewParamAddr("alpha", 72), alpha)
	bb := GP32()
	MOVL(NewParamAddr("beta", 76), bb)
	ANDL(U32(0x7fffffff), bb)
	JNE(LabelRef(name + "_beta"))
	alphaScale(NewParamAddr("alpha", 72), alpha, r, func(i int) Op { return acc[i] }, name+"_store")
	Label(name + "_store")
	for i := 0; i < r; i++ {
		store(acc[i])
		if i < r-1 {
			ADDQ(ldc, c)
		}
	}
	VZEROUPPER()
	RET()
	Label(name + "_beta")
	VBROADCASTSS(NewParamAddr("beta", 76), beta)
	for i := 0; i < r; i++ {
		t := s.vec()
		if s.avx512 {
			VMOVUPS_Z(Mem{Base: c}, k, t)
		} else {
			VMASKMOVPS(Mem{Base: c}, lanes, t)
		}
		VMULPS(alpha, acc[i], acc[i])
		VMULPS(t, beta, t)
		VADDPS(t, acc[i], acc[i])
		store(acc[i])
		if i < r-1 {
			ADDQ(ldc, c)
		}
	}
	VZEROUPPER()
	RET()
}

// sum8 folds the eight lanes a_i of y (clobbered) as sum32 (kernels) adds
// its eight partial sums, ((a0+a1)+(a2+a3))+((a4+a5)+(a6+a7)), each add
// with the left operand first (Go's order, which picks a NaN's payload), and
// returns the sum in lane 0 of an XMM register.
func sum8(y reg.VecVirtual) reg.VecVirtual {
	q := YMM()
	VPERMILPS(U8(0xB1), y, q)
	VADDPS(q, y, y) // lane 2i: a_2i + a_2i+1
	VPERMILPS(U8(0x4E), y, q)
	VADDPS(q, y, y) // lanes 0, 4: the sums of four
	sx := XMM()
	VEXTRACTF128(U8(1), y, sx)
	VADDSS(sx, y.AsX(), sx) // (a0+a1)+(a2+a3) + (a4+a5)+(a6+a7)
	return sx
}

// invSum8 returns a vector of s's width holding 1/sum in every lane, sum
// being sum8's fold of the eight lanes of y (clobbered), the division
// rounded once as kernels' float32 1/s.
func invSum8(s isa, y reg.VecVirtual) reg.VecVirtual {
	sx := sum8(y)
	inv := XMM()
	VMOVSS(c4(math.Float32bits(1)), inv)
	VDIVSS(sx, inv, inv)
	iv := s.vec()
	VBROADCASTSS(inv, iv)
	return iv
}

// layerNormShortAVX2 emits layerNormShortF32AVX2: the layer norm of rows of
// n < 64 floats (the AVX-512 level uses it too), one call for all rows
// instead of four row kernels a row. Each step is kernels.normRowF32's with
// sum32's and dot32's short-row order: the sum in eight lane accumulators
// (the last n%8 elements into lanes 0..n%8-1) folded by sum8, mean = sum/n;
// then d = x-mean, the same accumulation of d*d (product rounded, then
// added), var = that/n; inv = float32(1/sqrt(float64(var)+eps)) in float64;
// out = ((d*inv)*g)+b, each operation rounded as there.
func layerNormShortAVX2() {
	name := "layerNormShortF32AVX2"
	text(name, "func(o, x, gain, bias *float32, rows, n int, eps float64)")
	Doc(name + " sets rows rows of n (n < 64) floats at o to the layer norm of those at x with the n-float gain and bias, as kernels.normRowF32 computes each row.")
	p := loadParams("o", "x", "gain", "bias", "rows", "n") // (g names a register)
	o, x, g, b, rows, n := p[0], p[1], p[2], p[3], p[4], p[5]
	full, tail := GP64(), GP64()
	MOVQ(n, full)
	SHRQ(U8(3), full)
	MOVQ(n, tail)
	ANDQ(U32(7), tail)
	lanes := laneMask(tail) // lane i: n%8 > i
	nf := XMM()
	VCVTSI2SSQ(n, nf, nf) // float32(n), exact
	one := XMM()
	c1 := GP64()
	MOVQ(U64(math.Float64bits(1)), c1)
	VMOVQ(c1, one)
	// pass runs body over the row's whole vectors (byte offset in off),
	// then tailBody once for its last n%8 elements if any.
	pass := func(label string, body func(off reg.GPVirtual), tailBody func(off reg.GPVirtual)) {
		off, i := GP64(), GP64()
		XORQ(off, off)
		MOVQ(full, i)
		Label(name + "_" + label)
		TESTQ(i, i)
		JZ(LabelRef(name + "_" + label + "_tail"))
		body(off)
		ADDQ(U32(32), off)
		DECQ(i)
		JMP(LabelRef(name + "_" + label))
		Label(name + "_" + label + "_tail")
		TESTQ(tail, tail)
		JZ(LabelRef(name + "_" + label + "_done"))
		tailBody(off)
		Label(name + "_" + label + "_done")
	}
	at := func(base, off reg.GPVirtual) Mem { return Mem{Base: base, Index: off, Scale: 1} }
	Label(name + "_row")
	TESTQ(rows, rows)
	JZ(LabelRef(name + "_done"))
	// The sum and the mean.
	acc := YMM()
	VXORPS(acc, acc, acc)
	pass("sum", func(off reg.GPVirtual) {
		VADDPS(at(x, off), acc, acc)
	}, func(off reg.GPVirtual) {
		t := YMM()
		VMASKMOVPS(at(x, off), lanes, t) // lanes past n: +0, which leaves a sum (never -0) as it is
		VADDPS(t, acc, acc)
	})
	mean := sum8(acc)
	VDIVSS(nf, mean, mean)
	mv := YMM()
	VBROADCASTSS(mean, mv)
	// The variance and 1/sqrt(var+eps).
	acc2 := YMM()
	VXORPS(acc2, acc2, acc2)
	pass("var", func(off reg.GPVirtual) {
		d := YMM()
		VMOVUPS(at(x, off), d)
		VSUBPS(mv, d, d)
		VMULPS(d, d, d)
		VADDPS(d, acc2, acc2)
	}, func(off reg.GPVirtual) {
		d := YMM()
		VMASKMOVPS(at(x, off), lanes, d)
		VSUBPS(mv, d, d)
		VANDPS(lanes, d, d) // lanes past n: +0
		VMULPS(d, d, d)
		VADDPS(d, acc2, acc2)
	})
	v := sum8(acc2)
	VDIVSS(nf, v, v)
	vd := XMM()
	VCVTSS2SD(v, vd, vd)
	VADDSD(NewParamAddr("eps", 48), vd, vd)
	VSQRTSD(vd, vd, vd)
	r := XMM()
	VDIVSD(vd, one, r) // 1/sqrt
	inv := XMM()
	VCVTSD2SS(r, inv, inv)
	iv := YMM()
	VBROADCASTSS(inv, iv)
	// out = ((x-mean)*inv)*g + b.
	pass("out", func(off reg.GPVirtual) {
		d := YMM()
		VMOVUPS(at(x, off), d)
		VSUBPS(mv, d, d)
		VMULPS(iv, d, d)
		VMULPS(at(g, off), d, d)
		VADDPS(at(b, off), d, d)
		VMOVUPS(d, at(o, off))
	}, func(off reg.GPVirtual) {
		d, t := YMM(), YMM()
		VMASKMOVPS(at(x, off), lanes, d)
		VSUBPS(mv, d, d)
		VMULPS(iv, d, d)
		VMASKMOVPS(at(g, off), lanes, t)
		VMULPS(t, d, d)
		VMASKMOVPS(at(b, off), lanes, t)
		VADDPS(t, d, d)
		VMASKMOVPS(d, lanes, at(o, off))
	})
	step := GP64()
	MOVQ(n, step)
	SHLQ(U8(2), step)
	ADDQ(step, x)
	ADDQ(step, o)
	DECQ(rows)
	JMP(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// softmaxSmallKernels emits softmaxSmallF32: softmax over rows of n <= lanes
// elements, one row a vector, four rows at a time (two at AVX2, for want of
// registers) so that their dependency chains overlap. Each step is
// softmaxRowsF32's (kernels): the row's maximum m, x-m, ExpF32's exp, the
// sum in sum32's order (lane i plus lane i+8, then ((a0+a1)+(a2+a3))+
// ((a4+a5)+(a6+a7))), 1/sum and the product, each rounded as there. It stops
// before a row holding a NaN or whose maximum is infinite (the caller's
// scalar path) and returns the number of rows done.
func softmaxSmallKernels(s isa) {
	name := "softmaxSmallF32" + s.suffix
	text(name, "func(o, x *float32, n, rows int) int")
	Doc(fmt.Sprintf("%s sets the rows*n floats at o to the softmax of the rows of n (1 <= n <= %d) floats at x, as kernels.softmaxRowsF32 does, stopping before the first row holding a NaN or with an infinite maximum; it returns the number of rows done.", name, s.lanes))
	p := loadParams("o", "x", "n", "rows")
	o, x, n, rows := p[0], p[1], p[2], p[3]
	done := GP64()
	XORQ(done, done)
	stride, stride3 := GP64(), GP64()
	MOVQ(n, stride)
	SHLQ(U8(2), stride)
	LEAQ(Mem{Base: stride, Index: stride, Scale: 2}, stride3)
	ninf := s.vec()
	loadK(float32(math.Inf(-1)), ninf)
	k, lanes := tailMask(s, n)
	// row r of a group of u is at byte offset r*stride from o and x.
	at := func(base reg.GPVirtual, r int) Mem { return rowAt(base, stride, stride3, r) }
	group := func(u int, bail string) {
		v := make([]reg.VecVirtual, u)
		nan := newNaNFlag(s)
		for r := range v {
			v[r] = s.vec()
			if s.avx512 {
				VMOVAPS(ninf, v[r])
				VMOVUPS(at(x, r), k, v[r]) // lanes past n stay -Inf
			} else {
				VMASKMOVPS(at(x, r), lanes, v[r])
				VBLENDVPS(lanes, v[r], ninf, v[r]) // lanes past n: -Inf
			}
			nan.note(v[r])
		}
		nan.jumpIfSet(bail)
		// each row's maximum, broadcast
		mv := make([]reg.VecVirtual, u)
		for r := range v {
			mx := hmax(s, v[r])
			mb := GP32()
			VMOVD(mx, mb)
			ANDL(U32(0x7fffffff), mb)
			CMPL(mb, U32(0x7f800000))
			JE(LabelRef(bail)) // an infinite maximum
			mv[r] = s.vec()
			VBROADCASTSS(mx, mv[r])
		}
		e := make([]reg.VecVirtual, u)
		for r := range v {
			VSUBPS(mv[r], v[r], v[r])
			e[r] = s.vec()
			emitExp(s, v[r], e[r])
			if s.avx512 {
				VMOVUPS_Z(e[r], k, e[r]) // lanes past n: 0
			} else {
				VANDPS(lanes, e[r], e[r])
			}
		}
		for r := range e {
			// the sum in sum32's order
			ey := e[r]
			if s.bytes == 64 {
				ey = YMM()
				VEXTRACTF32X8(U8(1), e[r], ey)
				VADDPS(ey, e[r].AsY(), ey) // a_i = x_i + x_{i+8}
			} else {
				t := YMM()
				VMOVAPS(ey, t)
				ey = t
			}
			iv := invSum8(s, ey)
			VMULPS(iv, e[r], e[r])
			if s.avx512 {
				VMOVUPS(e[r], k, at(o, r))
			} else {
				VMASKMOVPS(e[r], lanes, at(o, r))
			}
		}
		if u == 1 {
			ADDQ(stride, o)
			ADDQ(stride, x)
		} else {
			adv := GP64()
			MOVQ(stride, adv)
			SHLQ(U8(bits.TrailingZeros(uint(u))), adv)
			ADDQ(adv, o)
			ADDQ(adv, x)
		}
		ADDQ(U32(u), done)
	}
	u := 4
	if !s.avx512 {
		u = 2
	}
	// Groups of u rows while they are free of NaN and infinite maxima,
	// then one row (a group's rows before its special one; the rest).
	Label(name + "_group")
	left := GP64()
	MOVQ(rows, left)
	SUBQ(done, left)
	CMPQ(left, U32(u))
	JL(LabelRef(name + "_one"))
	group(u, name+"_one")
	JMP(LabelRef(name + "_group"))
	Label(name + "_one")
	CMPQ(done, rows)
	JGE(LabelRef(name + "_done"))
	group(1, name+"_done")
	JMP(LabelRef(name + "_group"))
	Label(name + "_done")
	Store(done, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// copyRowsKernels emits copyRowsF32: rows rows of n floats from src to dst
// (strides in bytes), whole vectors then the row's last n%lanes floats
// under a mask (an empty mask touches no memory): a copy of short rows
// (a padded plane's, an output plane's) without a memmove call per row or
// the chain kernel's block dispatch.
func copyRowsKernels(s isa) {
	name := "copyRowsF32" + s.suffix
	text(name, "func(dst *float32, dstStride int, src *float32, srcStride int, rows, n int)")
	Doc(fmt.Sprintf("%s copies, for r < rows, the n floats at src+r*srcStride bytes to dst+r*dstStride bytes; dst and src do not overlap.", name))
	p := loadParams("dst", "dstStride", "src", "srcStride", "rows", "n")
	dst, ds, src, ss, rows, n := p[0], p[1], p[2], p[3], p[4], p[5]
	var k reg.OpmaskVirtual
	var tailMask reg.VecVirtual
	if s.avx512 {
		k = opmaskTail(s, n)
	} else {
		tailMask = lanesBelow(n)
	}
	full := GP64()
	MOVQ(n, full)
	SHRQ(U8(bits.TrailingZeros(uint(s.lanes))), full)
	Label(name + "_row")
	CMPQ(rows, U32(0))
	JLE(LabelRef(name + "_done"))
	ps, pd, i := GP64(), GP64(), GP64()
	MOVQ(src, ps)
	MOVQ(dst, pd)
	MOVQ(full, i)
	Label(name + "_vec")
	TESTQ(i, i)
	JZ(LabelRef(name + "_tail"))
	v := s.vec()
	VMOVUPS(Mem{Base: ps}, v)
	VMOVUPS(v, Mem{Base: pd})
	ADDQ(U32(s.bytes), ps)
	ADDQ(U32(s.bytes), pd)
	DECQ(i)
	JMP(LabelRef(name + "_vec"))
	Label(name + "_tail")
	t := s.vec()
	if s.avx512 {
		VMOVUPS_Z(Mem{Base: ps}, k, t)
		VMOVUPS(t, k, Mem{Base: pd})
	} else {
		VMASKMOVPS(Mem{Base: ps}, tailMask, t)
		VMASKMOVPS(t, tailMask, Mem{Base: pd})
	}
	ADDQ(ss, src)
	ADDQ(ds, dst)
	DECQ(rows)
	JMP(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// wino6Row emits one output of the F(4x4, 3x3) six-point transform
// (B^T's row o on the input side, the rows of B^T on a row of the patch)
// into dst, reading element j with ld(j), in the twins' order of float32
// operations (winoIn6Row): o=0: (4d0-5d2)+d4, 1: (d3+d4)-4(d1+d2), 2:
// (d4-d3)+4(d1-d2), 3: (d4-d2)+2(d3-d1), 4: (d4-d2)-2(d3-d1), 5:
// (4d1-5d3)+d5. k2, k4, k5 hold 2, 4 and 5 in every lane.
func wino6Row(s isa, o int, ld func(j int) reg.VecVirtual, k2, k4, k5, dst reg.VecVirtual) {
	a, b := s.vec(), s.vec()
	switch o {
	case 0, 5:
		x, y, z := 0, 2, 4
		if o == 5 {
			x, y, z = 1, 3, 5
		}
		VMULPS(k4, ld(x), a)
		VMULPS(k5, ld(y), b)
		VSUBPS(b, a, a)
		VADDPS(ld(z), a, dst)
	case 1:
		VADDPS(ld(4), ld(3), a)
		VADDPS(ld(2), ld(1), b)
		VMULPS(k4, b, b)
		VSUBPS(b, a, dst)
	case 2:
		VSUBPS(ld(3), ld(4), a)
		VSUBPS(ld(2), ld(1), b)
		VMULPS(k4, b, b)
		VADDPS(b, a, dst)
	case 3, 4:
		VSUBPS(ld(2), ld(4), a)
		VSUBPS(ld(1), ld(3), b)
		VMULPS(k2, b, b)
		if o == 3 {
			VADDPS(b, a, dst)
		} else {
			VSUBPS(b, a, dst)
		}
	}
}

// wino6Out emits output o of F(4x4, 3x3)'s output transform (A^T's row o)
// of six values read with ld(j), in the twins' order (winoOut6Row): o=0:
// (m0+(m1+m2))+(m3+m4), 1: (m1-m2)+2(m3-m4), 2: (m1+m2)+4(m3+m4), 3:
// ((m1-m2)+8(m3-m4))+m5. k2, k4, k8 hold 2, 4 and 8.
func wino6Out(s isa, o int, ld func(j int) reg.VecVirtual, k2, k4, k8, dst reg.VecVirtual) {
	a, c := s.vec(), s.vec()
	if o == 0 || o == 2 {
		VADDPS(ld(2), ld(1), a)
		VADDPS(ld(4), ld(3), c)
	} else {
		VSUBPS(ld(2), ld(1), a)
		VSUBPS(ld(4), ld(3), c)
	}
	switch o {
	case 0:
		VADDPS(a, ld(0), a)
		VADDPS(c, a, dst)
	case 1:
		VMULPS(k2, c, c)
		VADDPS(c, a, dst)
	case 2:
		VMULPS(k4, c, c)
		VADDPS(c, a, dst)
	case 3:
		VMULPS(k8, c, c)
		VADDPS(c, a, a)
		VADDPS(ld(5), a, dst)
	}
}

// winograd6Kernels emits the input and output transforms of the Winograd
// convolution F(4x4, 3x3), elementwise over flat tile indices k (tile row
// ty, column tx at k = ty*wq + tx):
//
// In: the tile's 6x6 input patch d[i][j] is phase plane (i%4, j%4) of the
// padded channel (plane 4a+b psub floats after plane 0, rows wq apart) at
// k + (i/4)*wq + j/4; u_s[i] = wino6Row(s) of row i, then v[6r+s] =
// wino6Row(r) of u_s[0..5], stored at v + (6r+s)*vstride + k.
//
// Out: m[ξ] at m + ξ*mstride + k; t_b[r] = wino6Out(b) of m[6r..6r+5],
// y[4a+b] = wino6Out(a) of t_b[0..5], stored at y + (4a+b)*ystride + k.
func winograd6Kernels(s isa) {
	name := "wino6InF32" + s.suffix
	text(name, "func(v *float32, vstride int, p *float32, psub, wq, n int)")
	Doc(fmt.Sprintf("%s is the Winograd F(4x4,3x3) input transform of n tiles (a multiple of %d): see winograd6Kernels in asm/gen.", name, s.lanes))
	v, vs, p, psub, wq, n := winoInParams()
	psub3, psub4 := GP64(), GP64()
	LEAQ(Mem{Base: psub, Index: psub, Scale: 2}, psub3)
	MOVQ(psub, psub4)
	SHLQ(U8(2), psub4)
	k2, k4, k5 := s.vec(), s.vec(), s.vec()
	loadK(2, k2)
	loadK(4, k4)
	loadK(5, k5)
	tileLoopHead(name, n)
	rb, out := GP64(), GP64()
	for sIdx := 0; sIdx < 6; sIdx++ {
		var u [6]reg.VecVirtual
		for i := 0; i < 6; i++ {
			// Row i's base: plane row phase i%4, one plane row further for i >= 4.
			MOVQ(p, rb)
			for q := 0; q < i%4; q++ {
				ADDQ(psub4, rb)
			}
			if i >= 4 {
				ADDQ(wq, rb)
			}
			ld := func(j int) reg.VecVirtual {
				m := Mem{Base: rb, Disp: 4 * (j / 4)}
				switch j % 4 {
				case 1:
					m.Index, m.Scale = psub, 1
				case 2:
					m.Index, m.Scale = psub, 2
				case 3:
					m.Index, m.Scale = psub3, 1
				}
				x := s.vec()
				VMOVUPS(m, x)
				return x
			}
			u[i] = s.vec()
			wino6Row(s, sIdx, ld, k2, k4, k5, u[i])
		}
		stridedStores(out, v, vs, sIdx, 6, 6, func(r int) reg.VecVirtual {
			t := s.vec()
			wino6Row(s, r, func(j int) reg.VecVirtual { return u[j] }, k2, k4, k5, t)
			return t
		})
	}
	tileLoopEnd(name, s, n, p, v)

	name = "wino6OutF32" + s.suffix
	text(name, "func(y *float32, ystride int, m *float32, mstride, n int)")
	Doc(fmt.Sprintf("%s is the Winograd F(4x4,3x3) output transform of n tiles (a multiple of %d): see winograd6Kernels in asm/gen.", name, s.lanes))
	y, ys, mp, ms, n := winoOutParams()
	k2, k4, k8 := s.vec(), s.vec(), s.vec()
	loadK(2, k2)
	loadK(4, k4)
	loadK(8, k8)
	tileLoopHead(name, n)
	src, dst := GP64(), GP64()
	for b := 0; b < 4; b++ {
		var t [6]reg.VecVirtual
		MOVQ(mp, src)
		for r := 0; r < 6; r++ {
			base := GP64()
			MOVQ(src, base)
			ld := func(j int) reg.VecVirtual {
				// m[6r+j]: j strides past the row's first.
				a := GP64()
				MOVQ(base, a)
				for q := 0; q < j; q++ {
					ADDQ(ms, a)
				}
				x := s.vec()
				VMOVUPS(Mem{Base: a}, x)
				return x
			}
			t[r] = s.vec()
			wino6Out(s, b, ld, k2, k4, k8, t[r])
			if r < 5 {
				for q := 0; q < 6; q++ {
					ADDQ(ms, src)
				}
			}
		}
		stridedStores(dst, y, ys, b, 4, 4, func(a int) reg.VecVirtual {
			o := s.vec()
			wino6Out(s, a, func(j int) reg.VecVirtual { return t[j] }, k2, k4, k8, o)
			return o
		})
	}
	tileLoopEnd(name, s, n, y, mp)
}

// tileLoopHead and tileLoopEnd bracket a kernel's loop over vectors of
// tiles (the Winograd transforms'): the loop ends when n, the tiles left,
// is not positive; each pass moves ptrs one vector on and n one vector
// down; after the loop the kernel returns.
func tileLoopHead(name string, n reg.GPVirtual) {
	Label(name + "_loop")
	CMPQ(n, U32(0))
	JLE(LabelRef(name + "_done"))
}

func tileLoopEnd(name string, s isa, n reg.GPVirtual, ptrs ...reg.GPVirtual) {
	for _, p := range ptrs {
		ADDQ(U32(s.bytes), p)
	}
	SUBQ(U32(s.lanes), n)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// stridedStores emits count vectors, val(r) stored at base + (first +
// r*step)*stride (stride a byte count in a register), walking out from
// base (the transforms' writes to one matrix of each group).
func stridedStores(out, base, stride reg.GPVirtual, first, count, step int, val func(r int) reg.VecVirtual) {
	MOVQ(base, out)
	for q := 0; q < first; q++ {
		ADDQ(stride, out)
	}
	for r := 0; r < count; r++ {
		VMOVUPS(val(r), Mem{Base: out})
		if r < count-1 {
			for q := 0; q < step; q++ {
				ADDQ(stride, out)
			}
		}
	}
}

// Flags of epilogueRowsF32 (asm.Epi*): which of its steps run.
const (
	epiRowBias = 1 << iota
	epiColBias
	epiRes
	epiResLeft
	epiRelu
)

// epilogueRowsKernels emits a product's epilogue on rows rows of n outputs
// (n >= 1), in place: each output plus its row's bias, plus its column's
// bias, plus the residual (on either side), then relu, the steps that flags
// select. Each step is the instruction of the separate kernel it stands for
// (AddScalarF32, AddF32, ReluF32), so the bits are theirs run one after
// another. A row goes two vectors at a time, then one, then its last n%lanes
// outputs under a mask; the flags are tested a block at a time (the same
// branch all call long).
func epilogueRowsKernels(s isa) {
	name := "epilogueRowsF32" + s.suffix
	text(name, "func(c *float32, ldc, rows, n int, rowBias, colBias, res *float32, ldr, flags int)")
	Doc(fmt.Sprintf("%s runs, for r < rows and j < n, c[r*ldc+j] += rowBias[r] (flags&%d), += colBias[j] (flags&%d), the residual res[r*ldr+j] added (flags&%d; on the left with flags&%d), then relu (flags&%d), in place; ldc and ldr in elements.", name, epiRowBias, epiColBias, epiRes, epiResLeft, epiRelu))
	p := loadParams("c", "ldc", "rows", "rowBias", "colBias", "res", "ldr", "flags")
	c, ldc, rows, rb, cb, res, ldr, flags := p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]
	SHLQ(U8(2), ldc)
	SHLQ(U8(2), ldr)
	var k reg.OpmaskVirtual
	var tm reg.VecVirtual
	if s.avx512 {
		k = opmaskTail(s, Load(Param("n"), GP64()).(reg.GPVirtual))
	} else {
		tm = lanesBelow(paramAddr("n"))
	}
	z, sv := s.vec(), s.vec()
	VXORPS(z, z, z)
	VXORPS(sv, sv, sv)
	// ops emits the steps on vs, which load and store through ld and st
	// (plain or under the tail's mask) at cp, bp and rp's offsets.
	cp, bp, rp, left := GP64(), GP64(), GP64(), GP64()
	ops := func(lbl string, u int, ld func(m Mem, v reg.VecVirtual), st func(v reg.VecVirtual, m Mem)) {
		vs := make([]reg.VecVirtual, u)
		for i := range vs {
			vs[i] = s.vec()
			ld(mem(cp, i*s.bytes), vs[i])
		}
		step := func(flag int, tag string, emit func()) {
			TESTQ(U32(flag), flags)
			JZ(LabelRef(lbl + tag))
			emit()
			Label(lbl + tag)
		}
		step(epiRowBias, "_rb", func() {
			for _, v := range vs {
				VADDPS(sv, v, v) // AddScalarF32: x + s
			}
		})
		step(epiColBias, "_cb", func() {
			for i, v := range vs {
				t := s.vec()
				ld(mem(bp, i*s.bytes), t)
				VADDPS(t, v, v) // AddF32(row, row, bias): row + bias
			}
		})
		step(epiRes, "_res", func() {
			ts := make([]reg.VecVirtual, u)
			for i := range ts {
				ts[i] = s.vec()
				ld(mem(rp, i*s.bytes), ts[i])
			}
			TESTQ(left, left)
			JNZ(LabelRef(lbl + "_left"))
			for i, v := range vs {
				VADDPS(ts[i], v, v) // row + res
			}
			JMP(LabelRef(lbl + "_res"))
			Label(lbl + "_left")
			for i, v := range vs {
				VADDPS(v, ts[i], v) // res + row
			}
		})
		step(epiRelu, "_relu", func() {
			for _, v := range vs {
				VMAXPS(v, z, v) // ReluF32: 0 > x ? 0 : x
			}
		})
		for i, v := range vs {
			st(v, mem(cp, i*s.bytes))
		}
	}
	plainLd := func(m Mem, v reg.VecVirtual) { VMOVUPS(m, v) }
	plainSt := func(v reg.VecVirtual, m Mem) { VMOVUPS(v, m) }
	maskLd := func(m Mem, v reg.VecVirtual) {
		if s.avx512 {
			VMOVUPS_Z(m, k, v)
		} else {
			VMASKMOVPS(m, tm, v)
		}
	}
	maskSt := func(v reg.VecVirtual, m Mem) {
		if s.avx512 {
			VMOVUPS(v, k, m)
		} else {
			VMASKMOVPS(v, tm, m)
		}
	}
	MOVQ(flags, left)
	ANDQ(U32(epiResLeft), left)
	Label(name + "_row")
	CMPQ(rows, U32(0))
	JLE(LabelRef(name + "_done"))
	TESTQ(U32(epiRowBias), flags)
	JZ(LabelRef(name + "_norb"))
	VBROADCASTSS(Mem{Base: rb}, sv)
	ADDQ(U32(4), rb)
	Label(name + "_norb")
	MOVQ(c, cp)
	MOVQ(cb, bp)
	MOVQ(res, rp)
	i := GP64()
	Load(Param("n"), i)
	for _, u := range []int{2, 1} {
		lbl := fmt.Sprintf("%s_u%d", name, u)
		Label(lbl)
		CMPQ(i, U32(u*s.lanes))
		JL(LabelRef(fmt.Sprintf("%s_e%d", name, u)))
		ops(lbl, u, plainLd, plainSt)
		for _, q := range []reg.GPVirtual{cp, bp, rp} {
			ADDQ(U32(u*s.bytes), q)
		}
		SUBQ(U32(u*s.lanes), i)
		JMP(LabelRef(lbl))
		Label(fmt.Sprintf("%s_e%d", name, u))
	}
	TESTQ(i, i)
	JZ(LabelRef(name + "_next"))
	ops(name+"_t", 1, maskLd, maskSt)
	Label(name + "_next")
	ADDQ(ldc, c)
	ADDQ(ldr, res)
	DECQ(rows)
	JMP(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}
