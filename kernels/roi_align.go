package kernels

import (
	"fmt"
	"math"

	"github.com/relaxgo/relaxgo/runtime"
)

// ROIAlign is Relax vision.roi_align as TVM's topi computes it (NCHW or NHWC
// float32 or float16 data (computed in float32), rois (num_roi, 5) = batch index, x1, y1, x2, y2): each
// output bin averages (avg) or maxes (max) a grid of bilinear samples
// (sample_ratio per side, or ceil(roi size / pooled size) when <= 0); rois
// smaller than 1 are widened to 1 unless aligned (TVM does not shift by half
// a pixel); samples beyond one pixel outside the image count as 0.
func ROIAlign(out, data, rois *runtime.Tensor, pooled []int64, scale float64, sampleRatio int64, aligned bool, layout, mode string) error {
	const name = "vision.roi_align"
	if err := checkRank(name, out, data, rois); err != nil {
		return err
	}
	if data.DType() == runtime.Float16 || rois.DType() == runtime.Float16 || out.DType() == runtime.Float16 {
		return viaFloat32Multi([]*runtime.Tensor{out}, []*runtime.Tensor{data, rois}, func(o, i []*runtime.Tensor) error {
			return ROIAlign(o[0], i[0], i[1], pooled, scale, sampleRatio, aligned, layout, mode)
		})
	}
	if data.DType() != runtime.Float32 || rois.DType() != runtime.Float32 {
		return fmt.Errorf("%s: only float32 is supported, got %s and %s", name, data.DType(), rois.DType())
	}
	if mode != "avg" && mode != "max" {
		return fmt.Errorf("%s: mode must be avg or max, got %q", name, mode)
	}
	ds, rs := data.Shape(), rois.Shape()
	if len(ds) != 4 || len(rs) != 2 || rs[1] != 5 || len(pooled) != 2 {
		return fmt.Errorf("%s: want 4-D data, rois (num_roi, 5) and 2 pooled sizes, got %s, %s, %v", name, data, rois, pooled)
	}
	var c, h, w int64
	var sc, sh, sw int64 // element strides of channel, row, column within an image
	switch layout {
	case "NCHW":
		c, h, w = ds[1], ds[2], ds[3]
		sc, sh, sw = h*w, w, 1
	case "NHWC":
		h, w, c = ds[1], ds[2], ds[3]
		sc, sh, sw = 1, w*c, c
	default:
		return fmt.Errorf("%s: unknown layout %q", name, layout)
	}
	ph, pw := pooled[0], pooled[1]
	os := []int64{rs[0], c, ph, pw}
	if layout == "NHWC" {
		os = []int64{rs[0], ph, pw, c}
	}
	if err := checkOut(name, out, os, runtime.Float32); err != nil {
		return err
	}
	src, rv, dst := data.Float32s(), rois.Float32s(), out.Float32s()
	fs := float32(scale)
	hf, wf := float32(h), float32(w)
	sample := func(base int64, y, x float32) float32 {
		if y < -1 || x < -1 || y > hf || x > wf {
			return 0
		}
		y = min(max(y, 0), hf-1)
		x = min(max(x, 0), wf-1)
		yl, xl := int64(int32(float32(math.Floor(float64(y))))), int64(int32(float32(math.Floor(float64(x)))))
		wyh, wxh := y-float32(yl), x-float32(xl)
		wyl, wxl := 1-wyh, 1-wxh
		var v float32
		for _, xp := range [2]struct {
			wt float32
			p  int64
		}{{wxl, xl}, {wxh, xl + 1}} {
			for _, yp := range [2]struct {
				wt float32
				p  int64
			}{{wyl, yl}, {wyh, yl + 1}} {
				if yp.p >= 0 && yp.p <= h-1 && xp.p >= 0 && xp.p <= w-1 {
					v += xp.wt * yp.wt * src[base+yp.p*sh+xp.p*sw]
				}
			}
		}
		return v
	}
	for i := int64(0); i < rs[0]; i++ {
		roi := rv[i*5 : i*5+5]
		b := int64(int32(roi[0]))
		if b < 0 || b >= ds[0] {
			return fmt.Errorf("%s: roi %d has batch index %d outside [0, %d)", name, i, b, ds[0])
		}
		x1, y1, x2, y2 := roi[1]*fs, roi[2]*fs, roi[3]*fs, roi[4]*fs
		rh, rw := y2-y1, x2-x1
		if !aligned {
			rh, rw = max(rh, 1), max(rw, 1)
		}
		binH, binW := rh/float32(ph), rw/float32(pw)
		gh, gw := int32(sampleRatio), int32(sampleRatio)
		if sampleRatio <= 0 {
			gh = int32(float32(math.Ceil(float64(rh / float32(ph)))))
			gw = int32(float32(math.Ceil(float64(rw / float32(pw)))))
		}
		count := float32(gh * gw)
		for ch := int64(0); ch < c; ch++ {
			base := b*c*h*w + ch*sc
			for py := int64(0); py < ph; py++ {
				sy := y1 + float32(py)*binH
				for px := int64(0); px < pw; px++ {
					sx := x1 + float32(px)*binW
					var acc float32
					if mode == "max" {
						acc = float32(math.Inf(-1))
					}
					for ry := int32(0); ry < gh; ry++ {
						yy := sy + (float32(ry)+0.5)*binH/float32(gh)
						for rx := int32(0); rx < gw; rx++ {
							xx := sx + (float32(rx)+0.5)*binW/float32(gw)
							v := sample(base, yy, xx)
							if mode == "max" {
								acc = max(acc, v)
							} else {
								acc += v / count
							}
						}
					}
					k := ((i*c+ch)*ph+py)*pw + px
					if layout == "NHWC" {
						k = ((i*ph+py)*pw+px)*c + ch
					}
					dst[k] = acc
				}
			}
		}
	}
	return nil
}

func init() {
	register("vision.roi_align", "data, rois, pooled_size (Shape), spatial_scale (float64), sample_ratio (int64), aligned (bool), layout (string: NCHW, NHWC), mode (string: avg, max), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"vision.roi_align", args)
			p.count(9)
			x, r, ps, sc, sr, al, lay, m, out := p.tensor(0), p.tensor(1), p.ints(2), p.float(3), p.int(4), p.bool(5), p.string(6), p.string(7), p.tensor(8)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(ROIAlign(out, x, r, ps, sc, sr, al, lay, m))
		})
}
