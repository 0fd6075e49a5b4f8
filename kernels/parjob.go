package kernels

import (
	"reflect"
	"sync"

	"github.com/relaxgo/relaxgo/internal/freelist"
)

// Pooled parallel jobs for generic kernels. A closure handed to ParallelFor
// escapes, so a generic kernel that builds one per call allocates on every
// parallel call; instead its arguments go in a job struct J whose run
// method is bound once (init), pooled per instantiation of J.

// parJob is what poolFor needs of a job type: init binds its run method.
type parJob[J any] interface {
	*J
	init()
}

// parJobPools maps a job type (reflect.Type) to its *freelist.List[*J].
var parJobPools sync.Map

// poolFor returns J's pool, made on first use; the lookup allocates
// nothing.
func poolFor[J any, PJ parJob[J]]() *freelist.List[PJ] {
	t := reflect.TypeFor[J]()
	if p, ok := parJobPools.Load(t); ok {
		return p.(*freelist.List[PJ])
	}
	p, _ := parJobPools.LoadOrStore(t, &freelist.List[PJ]{New: func() PJ {
		j := PJ(new(J))
		j.init()
		return j
	}})
	return p.(*freelist.List[PJ])
}

// binJob is runBin's parallel job.
type binJob[T, O any] struct {
	op   bop
	p    bplan
	o    []O
	a, b []T
	row  func(bop, []O, []T, []T)
	span bool // a single-row plan split by elements
	fn   func(lo, hi int)
}

func (j *binJob[T, O]) init() { j.fn = j.run }

func (j *binJob[T, O]) run(lo, hi int) {
	if j.span {
		binSpan(j.op, &j.p, j.o, j.a, j.b, j.row, lo, hi)
		return
	}
	binRows(j.op, &j.p, j.o, j.a, j.b, j.row, lo, hi)
}

// rowsJob is runRows' parallel job.
type rowsJob[T any] struct {
	flag     bool
	o, x     []T
	n, inner int
	f        func(bool, []T, []T, int, int, int, int)
	fn       func(lo, hi int)
}

func (j *rowsJob[T]) init() { j.fn = j.run }

func (j *rowsJob[T]) run(lo, hi int) { j.f(j.flag, j.o, j.x, j.n, j.inner, lo, hi) }

// unaryJob is runUnary's parallel job.
type unaryJob[T any] struct {
	op     uop
	o, x   []T
	pa, pb float64
	f      func(uop, []T, []T, float64, float64)
	fn     func(lo, hi int)
}

func (j *unaryJob[T]) init() { j.fn = j.run }

func (j *unaryJob[T]) run(lo, hi int) { j.f(j.op, j.o[lo:hi], j.x[lo:hi], j.pa, j.pb) }

// normJob is runNorm's parallel job.
type normJob[T floating] struct {
	rows, m    int
	eps        float64
	rms        bool
	o, x, g, b []T
	fn         func(lo, hi int)
}

func (j *normJob[T]) init() { j.fn = j.run }

func (j *normJob[T]) run(lo, hi int) {
	normRows(j.rows, j.m, j.eps, j.rms, j.o, j.x, j.g, j.b, lo, hi)
}

// reduceJob is runReduce's parallel job.
type reduceJob[T any] struct {
	op   rop
	o, x []T
	r    int
	f    func(rop, []T, []T, int, int, int)
	fn   func(lo, hi int)
}

func (j *reduceJob[T]) init() { j.fn = j.run }

func (j *reduceJob[T]) run(lo, hi int) { j.f(j.op, j.o, j.x, j.r, lo, hi) }

// padJob is padRun's parallel job.
type padJob[T uint8 | uint16 | uint32 | uint64] struct {
	g    padGeom
	o, x []T
	pv   T
	fn   func(lo, hi int)
}

func (j *padJob[T]) init() { j.fn = j.run }

func (j *padJob[T]) run(lo, hi int) { padRows(&j.g, j.o, j.x, j.pv, lo, hi) }

// poolJob is poolRun's parallel job.
type poolJob[T number] struct {
	g      pool2dGeom
	o, x   []T
	isMax  bool
	lowest T
	fn     func(lo, hi int)
}

func (j *poolJob[T]) init() { j.fn = j.run }

func (j *poolJob[T]) run(lo, hi int) { poolPlanes(&j.g, j.o, j.x, j.isMax, j.lowest, lo, hi) }

// whereJob is whereRun's parallel job.
type whereJob[T any] struct {
	p       bplan
	c       []bool
	o, x, y []T
	fn      func(lo, hi int)
}

func (j *whereJob[T]) init() { j.fn = j.run }

func (j *whereJob[T]) run(lo, hi int) { whereRows(&j.p, j.c, j.o, j.x, j.y, lo, hi) }

// gatherJob is runGather's parallel job.
type gatherJob[T any] struct {
	p    bplan
	base int
	o, x []T
	fn   func(lo, hi int)
}

func (j *gatherJob[T]) init() { j.fn = j.run }

func (j *gatherJob[T]) run(lo, hi int) { gatherRows(&j.p, j.base, j.o, j.x, lo, hi) }
