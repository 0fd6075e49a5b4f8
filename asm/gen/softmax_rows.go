package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// softmaxRowsKernels emits softmaxRowsF32: the softmax of rows of 16 to 511
// floats (an attention's score rows for that many tokens), a row at a time
// in three passes over it while it is in L1: its maximum (stopping, as
// softmaxSmallKernels do, before a row with a NaN or an infinite maximum),
// e = exp(x-m) stored and summed lane-wise in eight accumulators (element
// i into lane i%8, as kernels' sum32), the lanes folded in sum32's order
// (sum8), and e * (1/s). At AVX-512 each 16-lane vector adds its lower
// eight lanes, then its upper eight: the order of two AVX2 vectors, so
// both levels give the same bits. Kernels' row-by-row path makes the same
// float32 operations in Go loops and one ExpF32 call, four calls and three
// loops a row. A row's last n%lanes elements: the maximum reads the row's
// last whole vector again (the maximum and minimum are idempotent; n >= 16
// keeps it inside the row), the exp and the scaling load and store them
// under a lane mask, their other lanes' exps cleared before the sum
// (adding +0 to a partial of exps changes no bit, so the AVX-512 tail's
// empty upper half adds nothing).
func softmaxRowsKernels(s isa) {
	name := "softmaxRowsF32" + s.suffix
	text(name, "func(o, x *float32, n, rows int) int")
	Doc(name + " sets the rows*n floats at o to the softmax of the rows of n (16 to 511) floats at x, as kernels.softmaxRowsF32 does, stopping before the first row holding a NaN or with an infinite maximum; it returns the number of rows done.")
	p := loadParams("o", "x", "n", "rows")
	o, x, n, rows := p[0], p[1], p[2], p[3]
	vb := s.bytes
	done := GP64()
	XORQ(done, done)
	stride := GP64()
	MOVQ(n, stride)
	SHLQ(U8(2), stride)
	full := GP64() // the bytes of the row's whole vectors
	MOVQ(stride, full)
	ANDQ(U32(0x7fffffff&^(vb-1)), full)
	// The tail's lanes, n%lanes of them (AVX-512: an opmask made once).
	var tk reg.OpmaskVirtual
	if s.avx512 {
		tk = opmaskTail(s, n)
	}
	// tailLoad loads a row's tail from at, its other lanes 0 (at AVX2 it
	// makes the lane mask that the tailClear and tailStore after it use);
	// tailClear clears v's lanes past the tail; tailStore stores v's tail
	// lanes at at.
	var tailVec reg.VecVirtual
	tailLoad := func(at Mem, d reg.VecVirtual) {
		if s.avx512 {
			VMOVUPS_Z(at, tk, d)
			return
		}
		tailVec = lanesBelow(n)
		VMASKMOVPS(at, tailVec, d)
	}
	tailClear := func(v reg.VecVirtual) {
		if s.avx512 {
			VMOVAPS_Z(v, tk, v)
		} else {
			VANDPS(tailVec, v, v)
		}
	}
	tailStore := func(v reg.VecVirtual, at Mem) {
		if s.avx512 {
			VMOVUPS(v, tk, at)
		} else {
			VMASKMOVPS(v, tailVec, at)
		}
	}
	i := GP64()
	Label(name + "_row")
	CMPQ(done, rows)
	JGE(LabelRef(name + "_done"))
	// The maximum, and NaNs.
	nan := newNaNFlag(s)
	mv, mn := s.vec(), s.vec()
	VMOVUPS(Mem{Base: x}, mv)
	nan.note(mv)
	VMOVAPS(mv, mn)
	MOVQ(U32(vb), i)
	Label(name + "_max")
	CMPQ(i, full)
	JGE(LabelRef(name + "_maxTail"))
	v := s.vec()
	VMOVUPS(Mem{Base: x, Index: i, Scale: 1}, v)
	nan.note(v)
	VMAXPS(v, mv, mv)
	VMINPS(v, mn, mn)
	ADDQ(U32(vb), i)
	JMP(LabelRef(name + "_max"))
	Label(name + "_maxTail")
	CMPQ(full, stride)
	JE(LabelRef(name + "_maxed"))
	lv := s.vec()
	VMOVUPS(Mem{Base: x, Index: stride, Scale: 1, Disp: -vb}, lv) // the last vector again, with the rest
	nan.note(lv)
	VMAXPS(lv, mv, mv)
	VMINPS(lv, mn, mn)
	Label(name + "_maxed")
	nan.jumpIfSet(name + "_done")
	mx := hmax(s, mv)
	mb := GP32()
	VMOVD(mx, mb)
	ANDL(U32(0x7fffffff), mb)
	CMPL(mb, U32(0x7f800000))
	JE(LabelRef(name + "_done")) // an infinite maximum
	m := s.vec()
	VBROADCASTSS(mx, m)
	// e = exp(x-m) into o, summed lane-wise.
	// Lanes below -104 (a causal mask's -Inf) give +0, ExpF32's result
	// there. A row holding one takes a loop that takes their exp of 0
	// instead and clears it, as the scaling of an underflowing result
	// takes a microcode assist on AMD Zen 3 (twice the time of the row);
	// other rows skip the instructions a vector that costs.
	acc, lim := YMM(), s.vec()
	VXORPS(acc, acc, acc)
	loadK(-104, lim)
	lowRow := s.vec()
	VSUBPS(m, mn, lowRow)
	XORQ(i, i)
	if s.avx512 {
		lk := K()
		VCMPPS(U8(1), lim, lowRow, lk) // min-m < -104 (ordered; no NaN reaches here)
		KORTESTW(lk, lk)
	} else {
		VCMPPS(U8(1), lim, lowRow, lowRow)
		lowBits := GP32()
		VMOVMSKPS(lowRow, lowBits)
		TESTL(lowBits, lowBits)
	}
	JNZ(LabelRef(name + "_expLow"))
	// addE adds e's lanes to acc in element order: at AVX-512 its lower
	// eight, then its upper eight.
	addE := func(e reg.VecVirtual) {
		if !s.avx512 {
			VADDPS(e, acc, acc)
			return
		}
		VADDPS(e.AsY(), acc, acc)
		hi := YMM()
		VEXTRACTF32X8(U8(1), e, hi)
		VADDPS(hi, acc, acc)
	}
	// lowLanes is a vector's lanes below -104: an opmask of the others at
	// AVX-512, a vector mask of them at AVX2.
	type lowLanes struct {
		keep reg.OpmaskVirtual
		low  reg.VecVirtual
	}
	// takeZero sets d's lanes below -104 to 0 (their exp is then 1).
	takeZero := func(d reg.VecVirtual) lowLanes {
		if s.avx512 {
			k := K()
			VCMPPS(U8(13), lim, d, k) // d >= -104
			VMOVAPS_Z(d, k, d)
			return lowLanes{keep: k}
		}
		mk := s.vec()
		VCMPPS(U8(1), lim, d, mk) // d < -104
		VANDNPS(d, mk, d)
		return lowLanes{low: mk}
	}
	// clearLow clears e's lanes that were below -104.
	clearLow := func(l lowLanes, e reg.VecVirtual) {
		if s.avx512 {
			VMOVAPS_Z(e, l.keep, e)
		} else {
			VANDNPS(e, l.low, e)
		}
	}
	// One exp loop a kind of row: with low set, its lanes below -104
	// are taken on 0 and cleared.
	expLoop := func(label string, low bool) {
		// Two vectors a step while two remain (their exps interleaved,
		// summed in element order), then one.
		step := func(nv int) {
			ds, es, ls := make([]reg.VecVirtual, nv), make([]reg.VecVirtual, nv), make([]lowLanes, nv)
			for u := range ds {
				ds[u], es[u] = s.vec(), s.vec()
				VMOVUPS(Mem{Base: x, Index: i, Scale: 1, Disp: vb * u}, ds[u])
				VSUBPS(m, ds[u], ds[u])
				if low {
					ls[u] = takeZero(ds[u])
				}
			}
			emitExpN(s, ds, es)
			for u := range es {
				if low {
					clearLow(ls[u], es[u])
				}
				VMOVUPS(es[u], Mem{Base: o, Index: i, Scale: 1, Disp: vb * u})
				addE(es[u])
			}
			ADDQ(U32(vb*nv), i)
		}
		Label(label)
		end2 := GP64()
		MOVQ(full, end2)
		SUBQ(U32(vb), end2)
		Label(label + "2")
		CMPQ(i, end2)
		JGE(LabelRef(label + "1"))
		step(2)
		JMP(LabelRef(label + "2"))
		Label(label + "1")
		CMPQ(i, full)
		JGE(LabelRef(label + "end"))
		step(1)
		Label(label + "end")
		// The last n%lanes elements under a mask (i is at them).
		CMPQ(full, stride)
		JE(LabelRef(label + "tailed"))
		d, e := s.vec(), s.vec()
		tailLoad(Mem{Base: x, Index: i, Scale: 1}, d)
		VSUBPS(m, d, d)
		var l lowLanes
		if low {
			l = takeZero(d)
		}
		emitExpN(s, []reg.VecVirtual{d}, []reg.VecVirtual{e})
		if low {
			clearLow(l, e)
		}
		tailClear(e) // +0 past the row
		tailStore(e, Mem{Base: o, Index: i, Scale: 1})
		addE(e)
		Label(label + "tailed")
	}
	expLoop(name+"_exp", false)
	JMP(LabelRef(name + "_sum"))
	expLoop(name+"_expLow", true)
	Label(name + "_sum")
	iv := invSum8(s, acc)
	// scale multiplies the vector at o+i by 1/s: a whole one or the tail.
	scale := func(whole bool) {
		at, w := Mem{Base: o, Index: i, Scale: 1}, s.vec()
		if whole {
			VMOVUPS(at, w)
		} else {
			tailLoad(at, w)
		}
		VMULPS(iv, w, w)
		if whole {
			VMOVUPS(w, at)
		} else {
			tailStore(w, at)
		}
	}
	XORQ(i, i)
	Label(name + "_scale")
	CMPQ(i, full)
	JGE(LabelRef(name + "_scaleTail"))
	scale(true)
	ADDQ(U32(vb), i)
	JMP(LabelRef(name + "_scale"))
	Label(name + "_scaleTail")
	CMPQ(full, stride)
	JE(LabelRef(name + "_scaled"))
	scale(false)
	Label(name + "_scaled")
	ADDQ(stride, o)
	ADDQ(stride, x)
	INCQ(done)
	JMP(LabelRef(name + "_row"))
	Label(name + "_done")
	Store(done, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
