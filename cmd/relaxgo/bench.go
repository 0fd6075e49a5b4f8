package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// benchResult is one mode's timing, as the runner prints it.
type benchResult struct {
	Mode     string  `json:"mode"`
	MedianNs float64 `json:"median_ns"`
	MinNs    float64 `json:"min_ns"`
	Allocs   float64 `json:"allocs"`
	Bytes    float64 `json:"bytes"`
}

// runBench is `relaxgo bench --mode=bytecode|compiled|both [--threads N] [--params P] [--func main] --inputs IN.npz MODULE.py`.
func runBench(args []string, stdout, stderr io.Writer) int {
	fs, cf := newCompileFlags("bench", stderr,
		"usage: relaxgo bench --mode=bytecode|compiled|both [--threads N] [--params P] [--func main] --inputs IN.npz MODULE.py",
	)
	mode := fs.String("mode", "both", "bytecode, compiled or both (both: the modes take turns, five rounds each, unless profiled)")
	threads := fs.Int("threads", 0, "kernel threads (0: GOMAXPROCS)")
	fn := fs.String("func", "main", "function to time")
	inputs := fs.String("inputs", "", "arguments (.npz): by parameter name, else by position")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the timed calls to this file (with --mode=both, one per mode: FILE.bytecode.ext, FILE.compiled.ext)")
	memprofile := fs.String("memprofile", "", "record every allocation (exact counts, loading included; slows code that allocates) and write the allocation profile (pprof allocs; go tool pprof -sample_index=alloc_objects) to this file; per mode as --cpuprofile")
	number := fs.Int("n", 0, "timed calls per mode (0: as many as fit in about a second, at least 10)")
	var extra multiFlag
	fs.Var(&extra, "go", "a Go file compiled into the runner, e.g. registering packed functions (repeatable)")
	file, code := parseOne(fs, args, stdout, stderr, "MODULE.py")
	if code >= 0 {
		return code
	}
	if *mode != "bytecode" && *mode != "compiled" && *mode != "both" {
		return usageError(fs, stderr, "unknown --mode=%s (want bytecode, compiled or both)", *mode)
	}
	for _, path := range []*string{cpuprofile, memprofile} {
		if *path != "" {
			p, err := filepath.Abs(*path)
			if err != nil {
				fmt.Fprintln(stderr, "relaxgo bench:", err)
				return 1
			}
			*path = p
		}
	}
	results, err := bench(cf, file, *fn, *mode, *inputs, *threads, *number, benchProfiles{*cpuprofile, *memprofile}, extra, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "relaxgo bench:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s %s (threads=%d)\n", filepath.Base(file), *fn, *threads)
	fmt.Fprintf(stdout, "%-9s %14s %14s %12s %12s\n", "mode", "median", "min", "allocs/op", "B/op")
	for _, r := range results {
		fmt.Fprintf(stdout, "%-9s %14s %14s %12.1f %12.0f\n", r.Mode, time.Duration(r.MedianNs), time.Duration(r.MinNs), r.Allocs, r.Bytes)
	}
	if len(results) == 2 && results[1].MedianNs > 0 {
		fmt.Fprintf(stdout, "compiled/bytecode median ratio: %.2f (compiled is %.2fx faster)\n",
			results[1].MedianNs/results[0].MedianNs, results[0].MedianNs/results[1].MedianNs)
	}
	return 0
}

// benchProfiles names the profiles a bench run writes ("" for none).
type benchProfiles struct{ cpu, mem string }

// bench builds the runner and times fn in the requested modes.
func bench(cf *compileFlags, module, fn, mode, inputs string, threads, number int, profiles benchProfiles, extra []string, stderr io.Writer) ([]benchResult, error) {
	cf.inputs = inputs
	res, err := cf.compile(module, stderr)
	if err != nil {
		return nil, err
	}
	args, err := readArgs(res.Exec, fn, inputs)
	if err != nil {
		return nil, err
	}
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	bin, cleanup, err := buildRunner(res, root, module, extra)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	dir, inPath, err := writeArgsTemp("relaxgo-bench-*", args)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	runner := func(n int, profiles benchProfiles) ([]benchResult, error) {
		cmd := exec.Command(bin, "-fn", fn, "-mode", mode, "-in", inPath, "-bench", strconv.Itoa(n), "-threads", strconv.Itoa(threads),
			"-cpuprofile", profiles.cpu, "-memprofile", profiles.mem)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%v: %s", err, errOut.String())
		}
		var rs []benchResult
		dec := json.NewDecoder(&out)
		for dec.More() {
			var r benchResult
			if err := dec.Decode(&r); err != nil {
				return nil, err
			}
			rs = append(rs, r)
		}
		return rs, nil
	}
	if number <= 0 {
		// Calibrate: a short run, then enough calls for about a second per mode.
		probe, err := runner(10, benchProfiles{})
		if err != nil {
			return nil, err
		}
		number = 10
		for _, r := range probe {
			if r.MedianNs > 0 {
				number = max(number, min(int(1e9/r.MedianNs), 1_000_000))
			}
		}
	}
	return runner(number, profiles)
}
