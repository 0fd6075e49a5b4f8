// Package kernels implements relaxgo's operator library: typed,
// destination-passing Go functions for Relax operators, each also registered
// as a packed function under "kernels." + the Relax op name.
package kernels

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// The worker pool. Workers are started lazily and live for the life of the
// process, blocked on poolWork when idle. A ParallelFor call publishes one job,
// wakes at most NumThreads()-1 workers by sending the job on poolWork (never
// blocking: when the channel is full, fewer helpers join) and then claims
// chunks itself, so a call always completes even when every worker is busy,
// including calls nested inside another ParallelFor.
var (
	poolMu      sync.Mutex
	poolThreads atomic.Int32
	poolWorkers int // workers started so far (guarded by poolMu)
	poolWork    = make(chan *pjob, 256)
)

func init() {
	poolThreads.Store(int32(runtime.GOMAXPROCS(0)))
}

// SetNumThreads sets the number of threads ParallelFor uses, the calling
// goroutine included. n <= 0 restores the default, GOMAXPROCS.
func SetNumThreads(n int) {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	if n > 1024 {
		n = 1024
	}
	poolThreads.Store(int32(n))
}

// NumThreads reports the number of threads ParallelFor uses.
func NumThreads() int { return int(poolThreads.Load()) }

// pjob is one ParallelFor call: chunks [0, nchunks) of size chunk cover [0, n).
type pjob struct {
	fn      func(lo, hi int)
	n       int
	chunk   int
	nchunks int64
	next    atomic.Int64 // next chunk to claim
	done    atomic.Int64 // chunks finished
	fin     chan struct{}
	panicMu sync.Mutex
	panicV  any
}

// run claims and executes chunks until none is left.
func (j *pjob) run() {
	for {
		c := j.next.Add(1) - 1
		if c >= j.nchunks {
			return
		}
		lo := int(c) * j.chunk
		hi := lo + j.chunk
		if hi > j.n {
			hi = j.n
		}
		j.runChunk(lo, hi)
		if j.done.Add(1) == j.nchunks {
			close(j.fin)
		}
	}
}

func (j *pjob) runChunk(lo, hi int) {
	defer func() {
		if r := recover(); r != nil {
			j.panicMu.Lock()
			if j.panicV == nil {
				j.panicV = r
			}
			j.panicMu.Unlock()
		}
	}()
	j.fn(lo, hi)
}

func ensureWorkers(n int) {
	poolMu.Lock()
	for poolWorkers < n {
		poolWorkers++
		go func() {
			for j := range poolWork {
				j.run()
			}
		}()
	}
	poolMu.Unlock()
}

// ParallelFor splits [0, n) into contiguous chunks of at least grain indices
// (the last may be shorter), calls fn(lo, hi) once for each chunk on the
// persistent worker pool and the calling goroutine, and returns when all
// chunks are done. It runs fn(0, n) inline when n <= grain or NumThreads() == 1.
// Chunk boundaries depend only on n, grain and NumThreads(); fn must not rely
// on the order in which chunks run. A panic in fn is re-raised in the caller
// after the remaining chunks finish.
func ParallelFor(n, grain int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if grain < 1 {
		grain = 1
	}
	threads := NumThreads()
	if n <= grain || threads <= 1 {
		fn(0, n)
		return
	}
	// Up to 4 chunks per thread for load balance on shared cores, each at
	// least grain long.
	maxChunks := n / grain
	nch := 4 * threads
	if nch > maxChunks {
		nch = maxChunks
	}
	chunk := (n + nch - 1) / nch
	nch = (n + chunk - 1) / chunk
	if nch <= 1 {
		fn(0, n)
		return
	}
	j := &pjob{fn: fn, n: n, chunk: chunk, nchunks: int64(nch), fin: make(chan struct{})}
	helpers := threads - 1
	if helpers > nch-1 {
		helpers = nch - 1
	}
	ensureWorkers(helpers)
	for i := 0; i < helpers; i++ {
		select {
		case poolWork <- j:
		default:
		}
	}
	j.run()
	<-j.fin
	if j.panicV != nil {
		panic(fmt.Sprintf("kernels.ParallelFor: %v", j.panicV))
	}
}
