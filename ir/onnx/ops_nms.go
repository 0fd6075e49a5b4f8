package onnx

import (
	"sort"

	"github.com/relaxgo/relaxgo/runtime"
)

// NonMaxSuppression (opset 10/11): the number of selected boxes depends on
// the data, so the boxes and scores must be known at import time; the
// selection is then computed there, in float32 as onnxruntime does.

func convNMS(c *Ctx, n *Node) ([]*Value, error) {
	boxes, scores := n.In[0], n.In[1]
	if boxes.Const == nil || scores.Const == nil {
		return nil, n.unsupported("boxes and scores must be known at import time (the output shape depends on them)")
	}
	bd, sd := boxes.Const.Shape(), scores.Const.Shape()
	if len(bd) != 3 || bd[2] != 4 || len(sd) != 3 || sd[0] != bd[0] || sd[2] != bd[1] {
		return nil, n.unsupported("boxes %v and scores %v", bd, sd)
	}
	if boxes.Const.NumElements() > knownLimit || scores.Const.NumElements() > knownLimit {
		return nil, n.unsupported("inputs too large to evaluate at import time")
	}
	bv, ok1 := tensorFloats(boxes.Const)
	sv, ok2 := tensorFloats(scores.Const)
	if !ok1 || !ok2 {
		return nil, n.unsupported("dtypes %s, %s", boxes.DType(), scores.DType())
	}
	maxOut := int64(0)
	if v := n.Input(2); v != nil {
		m, ok := v.Ints()
		if !ok || len(m) != 1 {
			return nil, n.unsupported("max_output_boxes_per_class must be known at import time")
		}
		maxOut = m[0]
	}
	scalarF := func(i int) (float32, bool, error) {
		v := n.Input(i)
		if v == nil {
			return 0, false, nil
		}
		f, ok := v.Floats()
		if !ok || len(f) != 1 {
			return 0, false, n.unsupported("input %d must be a known scalar at import time", i)
		}
		return float32(f[0]), true, nil
	}
	iouT, _, err := scalarF(3)
	if err != nil {
		return nil, err
	}
	scoreT, hasScoreT, err := scalarF(4)
	if err != nil {
		return nil, err
	}
	center := n.Int("center_point_box", 0) != 0
	B, S, C := bd[0], bd[1], sd[1]
	corners := func(b, i int64) (y1, x1, y2, x2 float32) {
		p := bv[(b*S+i)*4 : (b*S+i)*4+4]
		a, bb, cc, d := float32(p[0]), float32(p[1]), float32(p[2]), float32(p[3])
		if center { // [x_center, y_center, width, height]
			return bb - d/2, a - cc/2, bb + d/2, a + cc/2
		}
		return min(a, cc), min(bb, d), max(a, cc), max(bb, d)
	}
	suppress := func(b, i, j int64) bool {
		ay1, ax1, ay2, ax2 := corners(b, i)
		by1, bx1, by2, bx2 := corners(b, j)
		areaA, areaB := (ay2-ay1)*(ax2-ax1), (by2-by1)*(bx2-bx1)
		if areaA <= 0 || areaB <= 0 {
			return false
		}
		iy1, ix1, iy2, ix2 := max(ay1, by1), max(ax1, bx1), min(ay2, by2), min(ax2, bx2)
		if iy2 <= iy1 || ix2 <= ix1 {
			return false
		}
		inter := (iy2 - iy1) * (ix2 - ix1)
		return inter/(areaA+areaB-inter) > iouT
	}
	var sel []int64
	if maxOut > 0 {
		for b := int64(0); b < B; b++ {
			for cl := int64(0); cl < C; cl++ {
				var cand []int64
				for i := int64(0); i < S; i++ {
					if !hasScoreT || float32(sv[(b*C+cl)*S+i]) > scoreT {
						cand = append(cand, i)
					}
				}
				sort.SliceStable(cand, func(x, y int) bool {
					return float32(sv[(b*C+cl)*S+cand[x]]) > float32(sv[(b*C+cl)*S+cand[y]])
				})
				var picked []int64
				for _, i := range cand {
					if int64(len(picked)) >= maxOut {
						break
					}
					keep := true
					for _, j := range picked {
						if suppress(b, i, j) {
							keep = false
							break
						}
					}
					if keep {
						picked = append(picked, i)
						sel = append(sel, b, cl, i)
					}
				}
			}
		}
	}
	t, err := runtime.FromSlice(sel, int64(len(sel)/3), 3)
	if err != nil {
		return nil, err
	}
	return []*Value{c.Const(t)}, nil
}
