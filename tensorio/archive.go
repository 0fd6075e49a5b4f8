package tensorio

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/relaxgo/relaxgo/runtime"
)

// Archive is an ordered collection of named tensors, the in-memory form of a
// safetensors or .npz file. The zero value is an empty archive ready to use.
//
// Names are kept in order: for a file that was read, the order in which the
// file lists its tensors (safetensors header order, npz entry order); for an
// archive being built, the order of the Add calls. Writers keep that order.
type Archive struct {
	// Metadata is safetensors' free-form "__metadata__" string map. It is nil
	// when a file has none; WriteSafetensors writes it when it is non-empty.
	// NPZ files have no metadata, and WriteNPZ ignores it.
	Metadata map[string]string

	names  []string
	tensor map[string]*runtime.Tensor
}

// Names returns the tensor names in order. The caller may modify the
// returned slice.
func (a *Archive) Names() []string {
	return append([]string(nil), a.names...)
}

// Get returns the tensor called name and whether there is one.
func (a *Archive) Get(name string) (*runtime.Tensor, bool) {
	t, ok := a.tensor[name]
	return t, ok
}

// Len is the number of tensors.
func (a *Archive) Len() int { return len(a.names) }

// Add appends t under name. The archive keeps t itself, not a copy. It is an
// error to add a nil tensor, an empty name or a name already present.
func (a *Archive) Add(name string, t *runtime.Tensor) error {
	if name == "" {
		return errors.New("tensorio: empty tensor name")
	}
	if t == nil {
		return fmt.Errorf("tensorio: tensor %q is nil", name)
	}
	if _, dup := a.tensor[name]; dup {
		return fmt.Errorf("tensorio: duplicate tensor name %q", name)
	}
	if a.tensor == nil {
		a.tensor = make(map[string]*runtime.Tensor)
	}
	a.tensor[name] = t
	a.names = append(a.names, name)
	return nil
}

// ReadFile reads an archive, choosing the format by the file's extension:
// ".safetensors" or ".npz" (case-insensitive). Other extensions are an error.
func ReadFile(path string) (*Archive, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".safetensors":
		return ReadSafetensorsFile(path)
	case ".npz":
		return ReadNPZFile(path)
	}
	return nil, fmt.Errorf("tensorio: %s: unknown tensor file format (want a .safetensors or .npz extension)", path)
}

// checkTensor verifies that t's data is consistent with its shape and dtype
// before a writer trusts them.
func checkTensor(t *runtime.Tensor) error {
	n, err := runtime.NumBytes(t.Shape(), t.DType())
	if err != nil {
		return err
	}
	if n != int64(len(t.Bytes())) {
		return fmt.Errorf("tensor %s holds %d bytes, want %d", t, len(t.Bytes()), n)
	}
	return nil
}

// normalizeBools maps every non-zero byte to 1, so that a bool tensor read
// from a file only ever holds valid Go bool values.
func normalizeBools(b []byte) {
	for i, v := range b {
		if v > 1 {
			b[i] = 1
		}
	}
}

// shapeString spells a shape as [2, 3].
func shapeString(s []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, d)
	}
	b.WriteByte(']')
	return b.String()
}
