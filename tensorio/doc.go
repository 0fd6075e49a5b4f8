// Package tensorio reads and writes tensors in the file formats relaxgo
// exchanges with the rest of the world:
//
//   - safetensors (model weights), see [ReadSafetensors] and [WriteSafetensors];
//   - NumPy .npy (one tensor), see [ReadNPY] and [WriteNPY];
//   - NumPy .npz (a zip archive of .npy entries: test inputs and expected
//     outputs, and the results `relaxgo run` writes), see [ReadNPZ] and
//     [WriteNPZ].
//
// Readers treat their input as untrusted: they never panic on malformed data
// and check every declared size against the bytes actually available before
// allocating, so a small file that claims a huge tensor fails fast. Errors
// name the tensor or zip entry at fault; the *File variants prefix the path.
//
// Tensors are always returned in C (row-major) order with little-endian
// elements, as [runtime.Tensor] stores them; bool elements are normalised to
// the bytes 0 and 1.
package tensorio
