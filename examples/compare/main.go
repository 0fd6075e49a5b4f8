// Command compare times every example model in bytecode and compiled mode
// and prints median latency, allocations per call and the ratio.
//
//	go run ./examples/compare [-n calls] [-threads N]
package main

import (
	"flag"
	"fmt"
	"log"
	goruntime "runtime"
	"sort"
	"time"

	cnn "github.com/relaxgo/relaxgo/examples/cnn/model"
	control "github.com/relaxgo/relaxgo/examples/control/model"
	dynamic "github.com/relaxgo/relaxgo/examples/dynamic/model"
	encoder "github.com/relaxgo/relaxgo/examples/encoder/model"
	"github.com/relaxgo/relaxgo/examples/internal/demo"
	mlp "github.com/relaxgo/relaxgo/examples/mlp/model"
	tirmodel "github.com/relaxgo/relaxgo/examples/tirmodel/model"
	transformer "github.com/relaxgo/relaxgo/examples/transformer/model"
	"github.com/relaxgo/relaxgo/kernels"
	"github.com/relaxgo/relaxgo/runtime"
)

type example struct {
	name string
	load func() (demo.VMMaker, error)
	args []runtime.Value
}

func main() {
	n := flag.Int("n", 2000, "timed calls per mode")
	threads := flag.Int("threads", 1, "kernel threads")
	flag.Parse()
	kernels.SetNumThreads(*threads)
	examples := []example{
		{"control", func() (demo.VMMaker, error) { return control.New() }, []runtime.Value{demo.Input(4), runtime.Scalar(int64(3))}},
		{"mlp", func() (demo.VMMaker, error) { return mlp.New() }, []runtime.Value{demo.Input(4, 64)}},
		{"encoder (from ONNX)", func() (demo.VMMaker, error) { return encoder.New() }, []runtime.Value{demo.Input(1, 32, 128)}},
		{"dynamic (n=64)", func() (demo.VMMaker, error) { return dynamic.New() }, []runtime.Value{demo.Input(64, 16)}},
		{"cnn", func() (demo.VMMaker, error) { return cnn.New() }, []runtime.Value{demo.Input(1, 3, 16, 16)}},
		{"transformer", func() (demo.VMMaker, error) { return transformer.New() }, []runtime.Value{demo.Input(1, 8, 32)}},
		{"tirmodel (n=64)", func() (demo.VMMaker, error) { return tirmodel.New() }, []runtime.Value{demo.Input(64, 8), demo.Input(8)}},
	}
	fmt.Printf("%d calls per mode, %d kernel thread(s), GOMAXPROCS=%d\n", *n, *threads, goruntime.GOMAXPROCS(0))
	fmt.Printf("%-16s %12s %12s %10s %10s %8s\n", "example", "bytecode", "compiled", "allocs bc", "allocs cc", "speedup")
	for _, e := range examples {
		m, err := e.load()
		if err != nil {
			log.Fatal(err)
		}
		bvm, err := m.NewVM()
		if err != nil {
			log.Fatal(err)
		}
		cvm, err := m.NewCompiledVM()
		if err != nil {
			log.Fatal(err)
		}
		bt, ba := timeCalls(bvm, e.args, *n)
		ct, ca := timeCalls(cvm, e.args, *n)
		fmt.Printf("%-16s %12s %12s %10.1f %10.1f %7.2fx\n", e.name, bt, ct, ba, ca, float64(bt)/float64(ct))
	}
}

// timeCalls returns the median latency of n calls of main after warm-up and
// the allocations per call.
func timeCalls(vm *runtime.VM, args []runtime.Value, n int) (time.Duration, float64) {
	for range 50 {
		if _, err := vm.Invoke("main", args...); err != nil {
			log.Fatal(err)
		}
	}
	samples := make([]time.Duration, n)
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	for i := range samples {
		start := time.Now()
		if _, err := vm.Invoke("main", args...); err != nil {
			log.Fatal(err)
		}
		samples[i] = time.Since(start)
	}
	goruntime.ReadMemStats(&after)
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	return samples[n/2], float64(after.Mallocs-before.Mallocs) / float64(n)
}
