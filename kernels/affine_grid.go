package kernels

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
)

// AffineGrid is Relax image.affine_grid as TVM's topi computes it: for every
// output position the normalized coordinates (start + i * step per spatial
// dim; with align_corners start -1 and step (2 - 1e-7) / (s - 1), else start
// -1 + 1/s and step 2/s) are transformed by the (k, k+1) matrix; channel j of
// the (batch, k, *size) output is row j of the matrix applied to (x, y[, z], 1)
// (the last spatial dim is x). Arithmetic is float32 for float32/float16.
func AffineGrid(out, data *runtime.Tensor, size []int64, alignCorners bool) error {
	const name = "image.affine_grid"
	if err := checkRank(name, out, data); err != nil {
		return err
	}
	k := len(size)
	ds := data.Shape()
	if (k != 2 && k != 3) || len(ds) != 3 || ds[1] != int64(k) || ds[2] != int64(k+1) || !data.DType().IsFloat() {
		return fmt.Errorf("%s: want float data (batch, %d, %d) and a 2 or 3-dim size, got %s and %v", name, k, k+1, data, size)
	}
	os := append([]int64{ds[0], int64(k)}, size...)
	if err := checkOut(name, out, os, data.DType()); err != nil {
		return err
	}
	var start, step [3]float32
	for r, s := range size {
		if alignCorners {
			if s <= 1 {
				return fmt.Errorf("%s: spatial sizes must be > 1 with align_corners, got %v", name, size)
			}
			start[r], step[r] = -1, float32((2.0-1e-7)/float64(s-1))
		} else {
			start[r], step[r] = float32(-1.0+1.0/float64(s)), float32(2.0/float64(s))
		}
	}
	sp := prod(size)
	var coords [3]int64
	for b := int64(0); b < ds[0]; b++ {
		for j := 0; j < k; j++ {
			row := (b*int64(k) + int64(j)) * int64(k+1)
			for p := int64(0); p < sp; p++ {
				rem := p
				for r := k - 1; r >= 0; r-- {
					coords[r] = rem % size[r]
					rem /= size[r]
				}
				v := float32(elemFloat(data, int(row+int64(k))))
				for r := 0; r < k; r++ {
					c := start[r] + float32(coords[r])*step[r]
					v += float32(elemFloat(data, int(row+int64(k-1-r)))) * c
				}
				setFloat(out, int((b*int64(k)+int64(j))*sp+p), float64(v))
			}
		}
	}
	return nil
}

func init() {
	register("image.affine_grid", "data, size (Shape), align_corners (bool), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"image.affine_grid", args)
		p.count(4)
		data, size, ac, out := p.tensor(0), p.ints(1), p.bool(2), p.tensor(3)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(AffineGrid(out, data, size, ac))
	})
}
