package conformance

import (
	"fmt"
	"sync"

	"github.com/relaxgo/relaxgo/runtime"
)

// Packed implements the packed functions that corpus cases name (their
// case.json "packed" field), with the semantics stated there.
var Packed = map[string]runtime.PackedFunc{
	// "returns a new float32 tensor: its argument times 3"
	"corpus.scale3": func(args []runtime.Value) (runtime.Value, error) {
		if len(args) != 1 {
			return nil, fmt.Errorf("corpus.scale3: want 1 argument, got %d", len(args))
		}
		x, ok := args[0].(*runtime.Tensor)
		if !ok || x.DType() != runtime.Float32 {
			return nil, fmt.Errorf("corpus.scale3: want a float32 tensor, got %s", runtime.TypeName(args[0]))
		}
		out, err := runtime.NewTensor(x.Shape(), runtime.Float32)
		if err != nil {
			return nil, err
		}
		o := out.Float32s()
		for i, v := range x.Float32s() {
			o[i] = 3 * v
		}
		return out, nil
	},
}

var registerOnce sync.Once

// RegisterPacked registers Packed in the global function registry (once).
func RegisterPacked() {
	registerOnce.Do(func() {
		for name, f := range Packed {
			runtime.MustRegister(name, f)
		}
	})
}
