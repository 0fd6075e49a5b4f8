package tensorio

import (
	"archive/zip"
	"cmp"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"strings"
)

// maxDeflateRatio bounds how much a deflated zip entry can expand: DEFLATE
// cannot exceed about 1032:1, so an entry claiming more is corrupt (or a
// decompression bomb) and is refused before anything is allocated.
const maxDeflateRatio = 1100

// zipEpochDate is the MS-DOS date 1980-01-01 that WriteNPZ stamps on
// entries (with time 00:00), so that the same tensors always give the same
// bytes.
const zipEpochDate = 1<<5 | 1

// ReadNPZFile reads the .npz file at path.
func ReadNPZFile(path string) (*Archive, error) { return readArchiveFile(path, ReadNPZ) }

// readArchiveFile opens the file at path and reads it with read, errors
// wrapped with the path.
func readArchiveFile(path string, read func(io.ReaderAt, int64) (*Archive, error)) (*Archive, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tensorio: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("tensorio: %w", err)
	}
	a, err := read(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("tensorio: %s: %w", path, err)
	}
	return a, nil
}

// ReadNPZ reads a .npz archive (as numpy.savez or numpy.savez_compressed
// write it) of size bytes from r: a zip file whose entries, stored or
// deflated, are .npy files. Each entry "<name>.npy" becomes the tensor
// <name>, in entry order; directory entries are skipped and any other entry
// is an error. Each entry's declared uncompressed size must match its .npy
// header and data exactly, and is checked against the compressed size
// before any tensor is allocated.
func ReadNPZ(r io.ReaderAt, size int64) (*Archive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil && !(zr != nil && errors.Is(err, zip.ErrInsecurePath)) {
		// Entry names are only used as tensor names, never as paths, so an
		// "insecure" name is harmless here.
		return nil, fmt.Errorf("npz: %w", err)
	}
	if err := checkNPZLayout(zr.File, size); err != nil {
		return nil, fmt.Errorf("npz: %w", err)
	}
	a := &Archive{}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") && f.UncompressedSize64 == 0 {
			continue
		}
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			return nil, fmt.Errorf("npz: entry %q is not a .npy file", f.Name)
		}
		if err := readNPZEntry(a, f, name, size); err != nil {
			return nil, fmt.Errorf("npz: entry %q: %w", f.Name, err)
		}
	}
	return a, nil
}

// checkNPZLayout refuses archives whose entries share bytes, before anything
// is inflated: a few hundred kilobytes of central directory can otherwise
// point many entries at one highly compressed stream, each inflating in full.
// With disjoint entries, the per-entry expansion bound of readNPZEntry also
// bounds the whole archive's.
func checkNPZLayout(files []*zip.File, size int64) error {
	type span struct {
		start, end int64
		name       string
	}
	spans := make([]span, 0, len(files))
	for _, f := range files {
		off, err := f.DataOffset()
		if err != nil {
			return fmt.Errorf("entry %q: %w", f.Name, err)
		}
		csize := f.CompressedSize64
		if off < 0 || off > size || csize > uint64(size-off) {
			return fmt.Errorf("entry %q: %d compressed bytes at offset %d exceed the %d-byte archive", f.Name, csize, off, size)
		}
		spans = append(spans, span{off, off + int64(csize), f.Name})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			return fmt.Errorf("entries %q and %q overlap in the archive", spans[i-1].name, spans[i].name)
		}
	}
	return nil
}

func readNPZEntry(a *Archive, f *zip.File, name string, size int64) error {
	usize, csize := f.UncompressedSize64, f.CompressedSize64
	if csize > uint64(size) {
		return fmt.Errorf("compressed size %d exceeds the %d-byte archive", csize, size)
	}
	switch f.Method {
	case zip.Store:
		if usize != csize {
			return fmt.Errorf("stored entry has compressed size %d but uncompressed size %d", csize, usize)
		}
	case zip.Deflate:
		if usize > csize*maxDeflateRatio+1024 {
			return fmt.Errorf("uncompressed size %d is implausible for %d compressed bytes", usize, csize)
		}
	default:
		return fmt.Errorf("unsupported compression method %d", f.Method)
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	t, err := readNPY(rc, int64(usize), true)
	if err != nil {
		return err
	}
	// Read to the end so that the zip reader verifies the CRC-32.
	var one [1]byte
	if n, err := io.ReadFull(rc, one[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.ErrUnexpectedEOF {
			err = errors.New("data after the array")
		}
		return err
	}
	return a.Add(name, t)
}

// WriteNPZ writes a as an uncompressed .npz archive (as numpy.savez does):
// one stored zip entry "<name>.npy" per tensor, in a's order, each written as
// by WriteNPY. Metadata is not written. Entry times are fixed at 1980-01-01,
// so equal archives give identical bytes.
func WriteNPZ(w io.Writer, a *Archive) error {
	zw := zip.NewWriter(w)
	for _, name := range a.names {
		t := a.tensor[name]
		pre, err := npyPrefix(t)
		if err != nil {
			return fmt.Errorf("npz: tensor %q: %w", name, err)
		}
		data := t.Bytes()
		n := uint64(len(pre) + len(data))
		fh := &zip.FileHeader{
			Name:               name + ".npy",
			Method:             zip.Store,
			ModifiedDate:       zipEpochDate,
			CRC32:              crc32.Update(crc32.ChecksumIEEE(pre), crc32.IEEETable, data),
			CompressedSize64:   n,
			UncompressedSize64: n,
		}
		ew, err := zw.CreateRaw(fh)
		if err != nil {
			return fmt.Errorf("npz: tensor %q: %w", name, err)
		}
		if _, err := ew.Write(pre); err != nil {
			return fmt.Errorf("npz: tensor %q: %w", name, err)
		}
		if _, err := ew.Write(data); err != nil {
			return fmt.Errorf("npz: tensor %q: %w", name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("npz: %w", err)
	}
	return nil
}

// WriteNPZFile writes a to path as by WriteNPZ, creating or truncating the
// file; on failure the partial file is removed.
func WriteNPZFile(path string, a *Archive) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("tensorio: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("tensorio: %s: %w", path, cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	if err := WriteNPZ(f, a); err != nil {
		return fmt.Errorf("tensorio: %s: %w", path, err)
	}
	return nil
}
