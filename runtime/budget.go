package runtime

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// WithMemoryLimit bounds the bytes one call on the VM may allocate (storage
// for its tensors, in both modes); a request past it fails with an error
// naming the request, the bytes already allocated in the call and the limit,
// wrapping ErrLimit, before anything is allocated. n <= 0 keeps the default:
// half of the machine's physical memory (or the Go memory limit set with
// debug.SetMemoryLimit / GOMEMLIMIT, if lower), 8 GiB where the physical
// memory cannot be read. The same default bounds every single tensor or
// storage made with NewTensor or NewStorage (kernels use them for outputs
// whose shapes depend on values).
func WithMemoryLimit(n int64) VMOption { return func(c *vmConfig) { c.memLimit = n } }

// defaultMemoryLimit is WithMemoryLimit's default (see there).
var defaultMemoryLimit = sync.OnceValue(func() int64 {
	limit := int64(8 << 30)
	if total, ok := physicalMemory(); ok {
		limit = total / 2
	}
	if g := debug.SetMemoryLimit(-1); g > 0 && g < math.MaxInt64 && g < limit {
		limit = g
	}
	return min(limit, maxAlloc)
})

// physicalMemory reads MemTotal from /proc/meminfo (Linux).
func physicalMemory() (int64, bool) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || kb <= 0 || kb > math.MaxInt64/1024 {
			return 0, false
		}
		return kb * 1024, true
	}
	return 0, false
}

// reserve checks that n more bytes for what fit the VM's per-call memory
// limit. The VM counts a storage when it is allocated (account) and
// uncounts it when the call frees it back to the pool, so the limit bounds
// what a call holds at once.
func (vm *VM) reserve(n int64, shape []int64, dt DataType) error {
	if n >= 0 && n <= vm.memLimit-vm.callBytes {
		return nil
	}
	what := "a storage"
	if shape != nil {
		what = fmt.Sprintf("a storage of shape %s and dtype %s", Shape(shape), dt)
	}
	return fmt.Errorf("%s needs %d bytes, but %d bytes are already allocated in this call and the limit is %d bytes (runtime.WithMemoryLimit): %w",
		what, n, vm.callBytes, vm.memLimit, ErrLimit)
}

// account counts a storage allocated for the running call.
func (vm *VM) account(s *Storage) { vm.callBytes += s.Size() }

// checkAllocLimit bounds a single tensor or storage made outside a VM's
// accounting (NewTensor, NewStorage) by the default memory limit.
func checkAllocLimit(n int64, what func() string) error {
	if limit := defaultMemoryLimit(); n < 0 || n > limit {
		return fmt.Errorf("runtime: %s needs %d bytes, more than the limit of %d bytes for one allocation (half the machine's memory): %w", what(), n, limit, ErrLimit)
	}
	return nil
}
