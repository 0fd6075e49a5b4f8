package kernels

import (
	"fmt"
	"sort"

	"github.com/relaxgo/relaxgo/runtime"
)

// AllClassNMS is Relax vision.all_class_non_max_suppression as TVM's topi
// computes it, per batch and class: the boxes sorted by score, descending
// (ties in box order); the leading boxes scoring above score_threshold
// considered in turn; a box not yet suppressed is selected (at most
// maxPerClass per class) and suppresses the later boxes whose score is still
// positive and whose IoU with it is >= iou_threshold. Boxes are corners in
// either order ([y1, x1, y2, x2] or swapped), float32; an IoU with an empty
// union is 0; iou_threshold <= 0 selects nothing (TVM's rule).
//
// outs are (selected int64 (batch*classes*boxes, 3) rows [batch, class, box],
// total int64 (1,)) for "onnx", or (indices int64 (batch, classes*boxes, 2)
// rows [class, box], scores float32 (batch, classes*boxes), counts int64
// (batch,)) for "tensorflow". Rows past the selections are zeros.
func AllClassNMS(outs []*runtime.Tensor, boxes, scores *runtime.Tensor, maxPerClass int64, iouThr, scoreThr float32, format string) error {
	const name = "vision.all_class_non_max_suppression"
	if err := checkRank(name, boxes, scores); err != nil {
		return err
	}
	bs, ss := boxes.Shape(), scores.Shape()
	if boxes.DType() != runtime.Float32 || scores.DType() != runtime.Float32 {
		return fmt.Errorf("%s: boxes and scores must be float32, got %s and %s", name, boxes.DType(), scores.DType())
	}
	if len(bs) != 3 || bs[2] != 4 || len(ss) != 3 || ss[0] != bs[0] || ss[2] != bs[1] {
		return fmt.Errorf("%s: want boxes (batch, n, 4) and scores (batch, classes, n), got %s and %s", name, boxes, scores)
	}
	nb, nc, n := int(bs[0]), int(ss[1]), int(bs[1])
	var want [][]int64
	var dts []runtime.DataType
	switch format {
	case "onnx":
		want = [][]int64{{int64(nb * nc * n), 3}, {1}}
		dts = []runtime.DataType{runtime.Int64, runtime.Int64}
	case "tensorflow":
		want = [][]int64{{int64(nb), int64(nc * n), 2}, {int64(nb), int64(nc * n)}, {int64(nb)}}
		dts = []runtime.DataType{runtime.Int64, runtime.Float32, runtime.Int64}
	default:
		return fmt.Errorf("%s: output_format must be onnx or tensorflow, got %q", name, format)
	}
	if len(outs) != len(want) {
		return fmt.Errorf("%s: %s format has %d outputs, got %d", name, format, len(want), len(outs))
	}
	for i, o := range outs {
		if err := checkOut(name, o, want[i], dts[i]); err != nil {
			return err
		}
		clear(o.Bytes())
	}
	bx, sc := boxes.Float32s(), scores.Float32s()
	order := make([]int, n)
	cur := make([]float32, n)
	var total int64
	for b := 0; b < nb; b++ {
		var batchCount int64
		for c := 0; c < nc; c++ {
			row := sc[(b*nc+c)*n : (b*nc+c+1)*n]
			for i := range order {
				order[i] = i
			}
			sort.SliceStable(order, func(i, j int) bool { return row[order[i]] > row[order[j]] })
			for i, o := range order {
				cur[i] = row[o]
			}
			// TVM's binary search for the scores above the threshold.
			lo, hi := 0, n
			for lo < hi {
				if mid := (lo + hi) >> 1; cur[mid] > scoreThr {
					lo = mid + 1
				} else {
					hi = mid
				}
			}
			valid := lo
			var count int64
			if iouThr > 0 && valid > 0 {
				bb := bx[b*n*4 : (b+1)*n*4]
				for j := 0; j < valid; j++ {
					if !(cur[j] > -1 && count < maxPerClass && cur[j] > scoreThr) {
						continue
					}
					box := int64(order[j])
					switch format {
					case "onnx":
						sel := outs[0].Int64s()[(total+count)*3:]
						sel[0], sel[1], sel[2] = int64(b), int64(c), box
					default:
						idx := outs[0].Int64s()[(int64(b*nc*n)+batchCount+count)*2:]
						idx[0], idx[1] = int64(c), box
						outs[1].Float32s()[int64(b*nc*n)+batchCount+count] = cur[j]
					}
					count++
					for k := j + 1; k < valid; k++ {
						if cur[k] > 0 && boxIoU(bb[order[j]*4:], bb[order[k]*4:]) >= iouThr {
							cur[k] = -1
						}
					}
				}
			}
			total += count
			batchCount += count
		}
		if format == "tensorflow" {
			outs[2].Int64s()[b] = batchCount
		}
	}
	if format == "onnx" {
		outs[1].Int64s()[0] = total
	}
	return nil
}

// boxIoU is topi's calculate_overlap in float32.
func boxIoU(a, b []float32) float32 {
	al, at, ar, ab := min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
	bl, bt, br, bb := min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])
	w := max(0, min(ar, br)-max(al, bl))
	h := max(0, min(ab, bb)-max(at, bt))
	area := float32(h * w)
	u := float32(float32((ar-al)*(ab-at))+float32((br-bl)*(bb-bt))) - area
	if u <= 0 {
		return 0
	}
	return area / u
}

func init() {
	register("vision.all_class_non_max_suppression",
		"boxes, scores, max_output_boxes_per_class (int64 tensor), iou_threshold (float32 tensor), score_threshold (float32 tensor), output_format (string: onnx, tensorflow), out... (onnx: selected, total; tensorflow: indices, scores, counts)",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"vision.all_class_non_max_suppression", args)
			if !p.atLeast(8) {
				return nil, p.err
			}
			boxes, scores, maxPer, iouThr, scoreThr, format := p.tensor(0), p.tensor(1), p.int(2), p.float(3), p.float(4), p.string(5)
			var outs []*runtime.Tensor
			for i := 6; i < len(args); i++ {
				outs = append(outs, p.tensor(i))
			}
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(AllClassNMS(outs, boxes, scores, maxPer, float32(iouThr), float32(scoreThr), format))
		})
}
