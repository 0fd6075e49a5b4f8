package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/gen"
)

// repoRoot finds the relaxgo checkout that generated code is built against:
// $RELAXGO_ROOT, else the module root this binary was built from.
func repoRoot() (string, error) {
	if r := os.Getenv("RELAXGO_ROOT"); r != "" {
		return r, nil
	}
	_, file, _, ok := goruntime.Caller(0)
	if ok {
		root := filepath.Join(filepath.Dir(file), "..", "..")
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			return filepath.Abs(root)
		}
	}
	return "", errors.New("cannot find the relaxgo source tree for building generated code; set RELAXGO_ROOT")
}

// runnerMain is the program that runs a generated model: one call writing
// its results (-out), or a timing run (-bench N) printing one JSON line per mode.
const runnerMain = `package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/relaxgo/relaxgo/kernels"
	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/tensorio"

	"relaxgorun/model"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	fn := flag.String("fn", "main", "function")
	mode := flag.String("mode", "compiled", "compiled or bytecode (comma-separated with -bench)")
	inputs := flag.String("in", "", "ordered arguments (.npz)")
	output := flag.String("out", "", "results (.npz)")
	bench := flag.Int("bench", 0, "timed calls per mode (0: run once)")
	threads := flag.Int("threads", 0, "kernel threads (0: GOMAXPROCS)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the timed calls (-bench) to this file")
	memprofile := flag.String("memprofile", "", "record every allocation and write the allocs profile to this file after the timed calls (-bench)")
	flag.Parse()
	if *memprofile != "" {
		// Every allocation, from the start: exact counts, loading included
		// (under its own stacks), at some cost to allocating code's timing.
		goruntime.MemProfileRate = 1
	}
	kernels.SetNumThreads(*threads)
	m, err := model.New()
	if err != nil {
		return err
	}
	// Weights are constants: matmuls use their packed forms, made once.
	kernels.RegisterConstants(m.Executable())
	var args []runtime.Value
	if *inputs != "" {
		a, err := tensorio.ReadNPZFile(*inputs)
		if err != nil {
			return err
		}
		for _, n := range a.Names() {
			t, _ := a.Get(n)
			args = append(args, t)
		}
	}
	invoker := func(mode string) (func(string, ...runtime.Value) (runtime.Value, error), error) {
		if mode == "bytecode" {
			vm, err := m.NewVM()
			if err != nil {
				return nil, err
			}
			return vm.Invoke, nil
		}
		vm, err := m.NewCompiledVM()
		if err != nil {
			return nil, err
		}
		return vm.Invoke, nil
	}
	if *bench > 0 {
		modes := splitModes(*mode)
		timers := make([]*modeTimer, len(modes))
		for i, md := range modes {
			invoke, err := invoker(md)
			if err != nil {
				return err
			}
			if timers[i], err = warmTimer(md, invoke, *fn, args, *bench); err != nil {
				return err
			}
		}
		// With a profile (one mode's at a time) each mode is timed in one
		// run; else the modes take turns, a fifth of the calls a turn, so
		// that a slow minute of a shared machine (or the collection of the
		// loading's garbage, early on) falls on both.
		rounds := 5
		if *cpuprofile != "" || *memprofile != "" || len(timers) == 1 {
			rounds = 1
		}
		for _, t := range timers {
			t.samples = make([]float64, 0, t.nsamples)
		}
		for r := range rounds {
			for _, t := range timers {
				n := t.nsamples*(r+1)/rounds - t.nsamples*r/rounds
				if *cpuprofile != "" { // rounds is 1
					f, err := os.Create(profilePath(*cpuprofile, t.mode, *mode))
					if err != nil {
						return err
					}
					defer f.Close()
					if err := pprof.StartCPUProfile(f); err != nil {
						return err
					}
				}
				goruntime.GC()
				if err := t.time(*fn, args, n); err != nil {
					return err
				}
				if *memprofile != "" {
					goruntime.GC() // the profile reflects allocations as of the last GC
					f, err := os.Create(profilePath(*memprofile, t.mode, *mode))
					if err != nil {
						return err
					}
					err = pprof.Lookup("allocs").WriteTo(f, 0)
					if cerr := f.Close(); err == nil {
						err = cerr
					}
					if err != nil {
						return err
					}
				}
				if *cpuprofile != "" {
					pprof.StopCPUProfile()
				}
			}
		}
		for _, t := range timers {
			sort.Float64s(t.samples)
			calls := float64(len(t.samples) * t.batch)
			res := map[string]any{"mode": t.mode, "median_ns": t.samples[len(t.samples)/2], "min_ns": t.samples[0],
				"allocs": float64(t.mallocs) / calls, "bytes": float64(t.bytes) / calls}
			b, _ := json.Marshal(res)
			fmt.Println(string(b))
		}
		return nil
	}
	invoke, err := invoker(*mode)
	if err != nil {
		return err
	}
	v, err := invoke(*fn, args...)
	if err != nil {
		return err
	}
	out, err := tensorio.FromResult(v)
	if err != nil {
		return err
	}
	return tensorio.WriteNPZFile(*output, out)
}

// profilePath is the CPU profile file of one mode: the path as given when
// one mode is timed, else with the mode before its extension (p.bytecode.pprof).
func profilePath(path, mode, modes string) string {
	if len(splitModes(modes)) < 2 {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + mode + ext
}

func splitModes(s string) []string {
	if s == "both" {
		return []string{"bytecode", "compiled"}
	}
	return []string{s}
}

// modeTimer times one mode's calls: nsamples batches of calls lasting
// about 20µs (one call if a call is longer), the allocations counted across
// them.
type modeTimer struct {
	mode            string
	invoke          func(string, ...runtime.Value) (runtime.Value, error)
	batch, nsamples int
	samples         []float64
	mallocs, bytes  uint64
}

// warmTimer makes invoke's timer after warm-up calls (at least 3, a tenth
// of bench), which also size its batches: reading the clock twice costs
// ~40ns here, a fifth of a sub-microsecond call.
func warmTimer(mode string, invoke func(string, ...runtime.Value) (runtime.Value, error), fn string, args []runtime.Value, bench int) (*modeTimer, error) {
	warm := time.Now()
	nwarm := 0
	for ; nwarm < 3 || nwarm < bench/10; nwarm++ {
		if _, err := invoke(fn, args...); err != nil {
			return nil, err
		}
	}
	batch := int(20000 / max(1, float64(time.Since(warm).Nanoseconds())/float64(nwarm)))
	batch = min(max(batch, 1), max(bench/10, 1))
	return &modeTimer{mode: mode, invoke: invoke, batch: batch, nsamples: max(bench/batch, 1)}, nil
}

// time adds n samples of t.batch calls each.
func (t *modeTimer) time(fn string, args []runtime.Value, n int) error {
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	for range n {
		start := time.Now()
		for range t.batch {
			if _, err := t.invoke(fn, args...); err != nil {
				return err
			}
		}
		t.samples = append(t.samples, float64(time.Since(start).Nanoseconds())/float64(t.batch))
	}
	goruntime.ReadMemStats(&after)
	t.mallocs += after.Mallocs - before.Mallocs
	t.bytes += after.TotalAlloc - before.TotalAlloc
	return nil
}
`

// runCompiled generates the model package into a temporary module, builds
// the runner with the extra Go files (e.g. packed functions the model calls),
// and runs fn in mode ("compiled", or "bytecode" on the package's VM) on the
// ordered inputs, writing the results to output.
func runCompiled(res *compiler.Result, module, fn, mode, orderedInputs, output string, extra []string) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	bin, cleanup, err := buildRunner(res, root, module, extra)
	if err != nil {
		return err
	}
	defer cleanup()
	run := exec.Command(bin, "-fn", fn, "-mode", mode, "-in", orderedInputs, "-out", output)
	var errOut bytes.Buffer
	run.Stderr = &errOut
	if err := run.Run(); err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return errors.New(msg)
	}
	return nil
}

// buildRunner generates the model package and builds the runner program.
// With $RELAXGO_RUN_CACHE set, runners are kept there keyed by a hash of
// their sources, so repeated runs of one model build once.
func buildRunner(res *compiler.Result, root, module string, extra []string) (string, func(), error) {
	files, err := gen.Package(gen.Input{Lowered: res.Lowered, Program: res.Program, Exec: res.Exec, Consts: res.Consts, Package: "model", Source: filepath.Base(module)})
	if err != nil {
		return "", nil, err
	}
	gomod := fmt.Sprintf("module relaxgorun\n\ngo 1.24\n\nrequire github.com/relaxgo/relaxgo v0.0.0\n\nreplace github.com/relaxgo/relaxgo => %s\n", root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return "", nil, err
	}
	all := map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": []byte(runnerMain)}
	for n, b := range files {
		all["model/"+n] = b
	}
	for _, e := range extra {
		b, err := os.ReadFile(e)
		if err != nil {
			return "", nil, err
		}
		all["extra_"+filepath.Base(e)] = b
	}
	tags := buildTags()
	h := sha256.New()
	fmt.Fprintf(h, "tags=%s\x00", tags)
	for _, n := range sortedNames(all) {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(all[n]))
		h.Write(all[n])
	}
	key := hex.EncodeToString(h.Sum(nil))[:24]
	cache := os.Getenv("RELAXGO_RUN_CACHE")
	if cache != "" {
		bin := filepath.Join(cache, key)
		if _, err := os.Stat(bin); err == nil {
			return bin, func() {}, nil
		}
	}
	dir, err := os.MkdirTemp("", "relaxgo-run-*")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	for _, n := range sortedNames(all) {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			cleanup()
			return "", nil, err
		}
		if err := os.WriteFile(p, all[n], 0o644); err != nil {
			cleanup()
			return "", nil, err
		}
	}
	bin := filepath.Join(dir, "runner")
	if cache != "" {
		if err := os.MkdirAll(cache, 0o755); err != nil {
			cleanup()
			return "", nil, err
		}
		bin = filepath.Join(cache, key)
	}
	build := exec.Command("go", "build", "-tags", tags, "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("building the generated package: %v\n%s", err, out)
	}
	return bin, cleanup, nil
}

func sortedNames(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// buildTags returns the build tags this binary was built with (e.g. noasm),
// so generated code runs on the same kernel variants as the bytecode VM here.
func buildTags() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-tags" {
				return s.Value
			}
		}
	}
	return ""
}
