package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/relaxgo/relaxgo/compiler"
	"github.com/relaxgo/relaxgo/kernels"
	"github.com/relaxgo/relaxgo/runtime"
)

// opStat is the time one called function (a kernel, a builtin, a Relax
// function) took over the profiled calls.
type opStat struct {
	name  string
	calls int
	total time.Duration
}

// runProfile is `relaxgo profile [--threads N] [--params P] [--func main] [-n N] --inputs IN.npz MODULE.py`.
func runProfile(args []string, stdout, stderr io.Writer) int {
	fs, cf := newCompileFlags("profile", stderr,
		"usage: relaxgo profile [--threads N] [--params P] [--func main] [-n N] [--top K] [--by op|shape] --inputs IN.npz MODULE.py",
		"",
		"Runs the function in bytecode mode and times every Call instruction (kernels, builtins,",
		"Relax functions; a Relax function's time includes the calls it makes), like TVM's VM profiler.",
		"Storage is recycled between calls as in an unprofiled run, so the allocation costs shown are",
		"the steady state's (-n timed calls after 3 warm-up ones).",
	)
	threads := fs.Int("threads", 0, "kernel threads (0: GOMAXPROCS)")
	fn := fs.String("func", "main", "function to profile")
	inputs := fs.String("inputs", "", "arguments (.npz): by parameter name, else by position")
	number := fs.Int("n", 20, "profiled calls (after 3 warm-up calls)")
	top := fs.Int("top", 30, "rows to print (0: all)")
	by := fs.String("by", "op", "group rows by \"op\" (the called function) or \"shape\" (the function and its tensor arguments' shapes, one row per distinct call, e.g. per layer)")
	file, code := parseOne(fs, args, stdout, stderr, "MODULE.py")
	if code >= 0 {
		return code
	}
	if *number < 1 {
		return usageError(fs, stderr, "-n must be at least 1, got %d", *number)
	}
	if *by != "op" && *by != "shape" {
		return usageError(fs, stderr, "--by must be op or shape, got %q", *by)
	}
	cf.inputs = *inputs
	res, err := cf.compile(file, stderr)
	if err == nil {
		err = profile(res, *fn, *inputs, *threads, *number, *top, *by == "shape", stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "relaxgo profile:", err)
		return 1
	}
	return 0
}

// profile runs fn number times under a timing instrument and prints the
// per-function table, most expensive first; byShape splits each function's
// row by the shapes of its tensor arguments.
func profile(res *compiler.Result, fn, inputs string, threads, number, top int, byShape bool, out io.Writer) error {
	if len(res.Lowered.PrimFuncs()) > 0 {
		return fmt.Errorf("the module has TIR functions, which run only as generated Go; profile the packed kernels with `relaxgo bench --cpuprofile` instead")
	}
	args, err := readArgs(res.Exec, fn, inputs)
	if err != nil {
		return err
	}
	defer kernels.SetNumThreads(0)
	kernels.SetNumThreads(threads)
	kernels.RegisterConstants(res.Exec)
	defer kernels.UnregisterConstants(res.Exec)
	vm, err := runtime.NewVM(res.Exec)
	if err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		if _, err := vm.Invoke(fn, args...); err != nil {
			return err
		}
	}
	stats := map[string]*opStat{}
	// Calls nest (a Relax function's calls happen between its before and
	// after), so start times are a stack.
	var starts []time.Time
	vm.SetTimingInstrument(func(_ runtime.Value, symbol string, before bool, _ runtime.Value, args []runtime.Value) runtime.InstrumentReturnKind {
		if before {
			starts = append(starts, time.Now())
			return runtime.InstrumentNoOp
		}
		d := time.Since(starts[len(starts)-1])
		starts = starts[:len(starts)-1]
		key := symbol
		if byShape {
			key = symbol + argShapes(args)
		}
		s := stats[key]
		if s == nil {
			s = &opStat{name: key}
			stats[key] = s
		}
		s.calls++
		s.total += d
		return runtime.InstrumentNoOp
	})
	start := time.Now()
	for i := 0; i < number; i++ {
		if _, err := vm.Invoke(fn, args...); err != nil {
			return err
		}
	}
	wall := time.Since(start)
	rows := make([]*opStat, 0, len(stats))
	for _, s := range stats {
		rows = append(rows, s)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].total != rows[j].total {
			return rows[i].total > rows[j].total
		}
		return rows[i].name < rows[j].name
	})
	fmt.Fprintf(out, "%s: %d calls, %v per call (threads=%d)\n", fn, number, wall/time.Duration(number), kernels.NumThreads())
	width := 48
	for i, s := range rows {
		if (top <= 0 || i < top) && len(s.name) > width {
			width = len(s.name)
		}
	}
	fmt.Fprintf(out, "%-*s %8s %12s %12s %7s\n", width, "function", "calls", "per call", "per fn call", "%")
	for i, s := range rows {
		if top > 0 && i == top {
			fmt.Fprintf(out, "(%d more)\n", len(rows)-top)
			break
		}
		fmt.Fprintf(out, "%-*s %8.1f %12v %12v %6.1f%%\n", width, s.name, float64(s.calls)/float64(number),
			(s.total / time.Duration(number)).Round(time.Nanosecond*10), (s.total / time.Duration(s.calls)).Round(time.Nanosecond*10),
			100*float64(s.total)/float64(wall))
	}
	return nil
}

// argShapes is the shapes of a call's tensor arguments, as
// " (1x3x224x224, 32x3x3x3)"; "" when it has none.
func argShapes(args []runtime.Value) string {
	var b strings.Builder
	for _, a := range args {
		t, ok := a.(*runtime.Tensor)
		if !ok {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(" (")
		} else {
			b.WriteString(", ")
		}
		for i, d := range t.Shape() {
			if i > 0 {
				b.WriteByte('x')
			}
			b.WriteString(strconv.FormatInt(d, 10))
		}
		if t.NDim() == 0 {
			b.WriteString("scalar")
		}
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteByte(')')
	return b.String()
}
