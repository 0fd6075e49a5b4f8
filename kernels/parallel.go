package kernels

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relaxgo/relaxgo/internal/freelist"
)

// The worker pool. Workers are started lazily and live for the life of the
// process, asleep on poolWake when idle. A ParallelFor call publishes its job
// on the active list, sends up to NumThreads()-1 wake-up tokens (never
// blocking) and then claims chunks itself (from the front; helpers claim
// from the back, pjob.runFrom), so a call always completes even
// when every worker is busy, including calls nested inside another
// ParallelFor. A worker that wakes joins an active job that still has
// unclaimed chunks and room for another helper, and keeps joining jobs until
// none is left before it sleeps again; a late wake-up finds nothing to do (or
// helps a newer job) instead of a stale job queued for it.
var (
	poolMu      sync.Mutex
	poolThreads atomic.Int32
	poolWorkers int          // workers started so far (guarded by poolMu)
	poolStarted atomic.Int32 // poolWorkers, readable without the lock
	poolWake    = make(chan struct{}, 1024)

	activeMu sync.Mutex
	active   []*pjob // published jobs (guarded by activeMu)
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

// pjob is one ParallelFor call: chunks [0, nchunks) cover [0, n)
// (chunkBounds).
// Jobs are pooled. refs counts the goroutines that may still touch the job
// (the caller plus every worker that joined it while it was on the active
// list); the last to let go pools it.
type pjob struct {
	fn         func(lo, hi int)
	n          int
	threads    int // the threads the chunks were made for (chunkBounds)
	nchunks    int64
	maxHelpers int          // workers allowed to join (guarded by activeMu)
	helpers    int          // workers joined so far (guarded by activeMu)
	next       atomic.Int64 // chunks claimed: from the front (low 32 bits), from the back (high 32)
	done       atomic.Int64 // chunks finished
	refs       atomic.Int32
	fin        chan struct{} // receives one value when the last chunk is done
	panicMu    sync.Mutex
	panicV     any
}

var pjobPool = freelist.List[*pjob]{New: func() *pjob { return &pjob{fin: make(chan struct{}, 1)} }}

// release drops one reference and pools the job after the last one.
func (j *pjob) release() {
	if j.refs.Add(-1) == 0 {
		j.fn, j.panicV = nil, nil
		pjobPool.Put(j)
	}
}

// claimed is the number of chunks claimed in a pjob.next value s: from the
// front (its low 32 bits) and from the back (its high ones).
func claimed(s int64) int64 { return s&0xffffffff + s>>32 }

// run is runFrom(false): the caller's claiming.
func (j *pjob) run() { j.runFrom(false) }

// runFrom claims and executes chunks until none is left: from the front
// (the caller) or, with back, from the end (a helper). next holds the
// chunks claimed from the front in its low 32 bits and from the back in
// its high ones. Each thread so runs a contiguous run of the range, the
// same one call after call while the threads stay on their processors,
// whose output lines are then in that core's cache (claiming in turn gave
// cnn_64x64's 3->32 on 64² columns to either core at random: 2 threads,
// BenchmarkConv2DChainThreads, medians of ten alternated runs, 117 -> 91
// µs).
func (j *pjob) runFrom(back bool) {
	inc := int64(1)
	if back {
		inc = 1 << 32
	}
	for {
		var c int64
		for {
			s := j.next.Load()
			if claimed(s) >= j.nchunks {
				return
			}
			if j.next.CompareAndSwap(s, s+inc) {
				c = s & 0xffffffff // the front's next chunk
				if back {
					c = j.nchunks - 1 - s>>32
				}
				break
			}
		}
		lo, hi := chunkBounds(j.n, int(j.nchunks), j.threads, int(c))
		j.runChunk(lo, hi)
		if j.done.Add(1) == j.nchunks {
			j.fin <- struct{}{}
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
	if poolStarted.Load() >= int32(n) {
		return
	}
	poolMu.Lock()
	for poolWorkers < n {
		poolWorkers++
		poolStarted.Store(int32(poolWorkers))
		go func() {
			for range poolWake {
				for {
					for j := joinJob(); j != nil; j = joinJob() {
						j.runFrom(true)
						j.release()
					}
					if !spinUntil(func() bool { return activeJobs.Load() > 0 }, workerSpin, true) {
						break
					}
				}
			}
		}()
	}
	poolMu.Unlock()
}

// Spinning. Waking a parked goroutine costs tens of microseconds on a
// virtual machine (measured 65 µs here: a 2-thread 128x784x64 GEMM took
// 160 µs against 174 µs on one thread, the helper starting its half 65 µs
// late, and the caller, parked on the job's channel, woke as late again).
// So a worker that runs out of work watches for the next job for
// workerSpin before it sleeps (a model's parallel operators come a few
// microseconds apart), and a caller whose helpers are still busy watches
// for the end of the job for callerSpin before it parks. A worker yields
// the processor between looks; the caller does only where the helpers
// would otherwise lack one (ParallelFor).
const (
	workerSpin = 100 * time.Microsecond
	callerSpin = 200 * time.Microsecond
)

// activeJobs counts the jobs on the active list, readable without the lock.
var activeJobs atomic.Int32

// spinUntil calls cond until it reports true (then true) or limit has
// passed (then false), yielding the processor between calls when yield.
func spinUntil(cond func() bool, limit time.Duration, yield bool) bool {
	start := time.Now()
	for i := 0; ; i++ {
		if cond() {
			return true
		}
		if i%16 == 15 && time.Since(start) > limit {
			return false
		}
		if yield {
			runtime.Gosched()
		}
	}
}

// joinJob returns an active job with unclaimed chunks and room for another
// helper, holding a reference to it, or nil.
func joinJob() *pjob {
	activeMu.Lock()
	defer activeMu.Unlock()
	for i := len(active) - 1; i >= 0; i-- {
		j := active[i]
		if j.helpers < j.maxHelpers && claimed(j.next.Load()) < j.nchunks {
			j.helpers++
			j.refs.Add(1)
			return j
		}
	}
	return nil
}

// chunkBounds is chunk c of [0, n) split into nch chunks for threads
// threads: sizes that differ by one at most, the longer ones at both ends
// (a thread's share of them at the front, where the caller claims, the
// rest at the back, where the helpers claim), so that threads taking the
// next chunk as they finish end with shares one index apart at most.
func chunkBounds(n, nch, threads, c int) (lo, hi int) {
	q, r := n/nch, n%nch
	rf := (r + threads - 1) / threads // the long chunks at the front
	backFrom := nch - (r - rf)        // the first long chunk at the back
	lo = c*q + min(c, rf) + max(0, c-backFrom)
	hi = lo + q
	if c < rf || c >= backFrom {
		hi++
	}
	return lo, hi
}

// ParallelFor splits [0, n) into contiguous chunks of at least grain indices,
// as even as can be, calls fn(lo, hi) once for each chunk on the
// persistent worker pool and the calling goroutine, and returns when all
// chunks are done. It runs fn(0, n) inline when n <= grain or NumThreads() == 1.
// Chunk boundaries depend only on n, grain and NumThreads(); fn must not rely
// on the order in which chunks run. A panic in fn is re-raised in the caller
// after the remaining chunks finish.
//
// n <= 0 is an empty range, as in `for i := 0; i < n; i++`: fn is not called
// and ParallelFor returns at once (a negative n is not an error; callers that
// compute n from untrusted sizes validate them first). fn returns no error:
// a job whose chunks can fail records the first error itself (under a lock,
// as matmulJob does) and the caller checks it after ParallelFor returns.
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
	nch := parallelChunks(n, grain, threads)
	if nch <= 1 {
		fn(0, n)
		return
	}
	j := pjobPool.Get()
	j.fn, j.n, j.threads, j.nchunks = fn, n, threads, int64(nch)
	j.next.Store(0)
	j.done.Store(0)
	j.refs.Store(1)
	helpers := threads - 1
	if helpers > nch-1 {
		helpers = nch - 1
	}
	ensureWorkers(helpers)
	j.maxHelpers, j.helpers = helpers, 0
	activeMu.Lock()
	active = append(active, j)
	activeJobs.Add(1)
	activeMu.Unlock()
	for i := 0; i < helpers; i++ {
		select {
		case poolWake <- struct{}{}:
		default:
		}
	}
	j.run()
	// The caller watches without yielding where its helpers have
	// processors of their own: a model's calling goroutine is wired to
	// its thread (runtime.VM.Invoke), and a wired goroutine that yields
	// hands its processor to another thread and waits to be handed one
	// back, two thread wake-ups a look. cnn_64x64 at 2 threads, per call
	// over 3000 calls, two runs: medians 273-275 µs yielding, 246-251
	// not (250-260 before the wiring).
	spinUntil(func() bool { return len(j.fin) > 0 }, callerSpin, runtime.GOMAXPROCS(0) < threads)
	<-j.fin
	activeMu.Lock()
	for i, a := range active {
		if a == j {
			last := len(active) - 1
			active[i] = active[last]
			active[last] = nil
			active = active[:last]
			activeJobs.Add(-1)
			break
		}
	}
	activeMu.Unlock()
	pv := j.panicV
	j.release()
	if pv != nil {
		panic(fmt.Sprintf("kernels.ParallelFor: %v", pv))
	}
}

// parallelChunks is how many chunks ParallelFor splits [0, n) into on
// threads threads: up to 4 a thread for load balance on shared cores, each
// at least grain long, and a multiple of threads where there are at least
// as many, so that the threads claiming them in turn end with equal shares.
// (Chunks of ceil(n/(4*threads)) with a short last one gave a caller's 10
// items 5 chunks of 2 on 2 threads, one thread 6 items and the other 4: a
// layer's 10 column chunks, cnn_64x64's 3->32 on 64², ran 1.3x faster on 2
// threads than on 1.)
func parallelChunks(n, grain, threads int) int {
	nch := min(4*threads, n/grain)
	if nch >= threads {
		nch -= nch % threads
	}
	return nch
}
