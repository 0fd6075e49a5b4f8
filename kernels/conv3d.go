package kernels

import (
	"fmt"

	"github.com/relaxgo/relaxgo/internal/extent"
	"github.com/relaxgo/relaxgo/runtime"
)

// 3-D convolution and transposed convolution (Relax nn.conv3d,
// nn.conv3d_transpose) as direct loops, layouts NCDHW with OIDHW (conv3d)
// or IODHW (conv3d_transpose) weights. Products are summed in float32 for
// float32/float16 inputs (float64 otherwise) in (c, kd, kh, kw) order.

type conv3dGeom struct {
	n, ci, co, g         int64
	in, k, out, s, d, pb [3]int64
	xst, wst, ost        [5]int64
	f32                  bool
	x, w, o              *runtime.Tensor
	transposed           bool
	outPad, pa           [3]int64
	cinPerG, coutPerG    int64
	name                 string
}

func conv3dSetup(name string, out, x, w *runtime.Tensor, a Conv2DTransposeAttrs, transposed bool) (*conv3dGeom, error) {
	if err := checkRank(name, out, x, w); err != nil {
		return nil, err
	}
	kl := "OIDHW"
	if transposed {
		kl = "IODHW"
	}
	if (a.DataLayout != "" && a.DataLayout != "NCDHW") || (a.KernelLayout != "" && a.KernelLayout != kl) ||
		(a.OutLayout != "" && a.OutLayout != "NCDHW") {
		return nil, fmt.Errorf("%s: only data layout NCDHW with kernel layout %s is supported, got %s/%s/%s",
			name, kl, a.DataLayout, a.KernelLayout, a.OutLayout)
	}
	if x.NDim() != 5 || w.NDim() != 5 {
		return nil, fmt.Errorf("%s: data and weight must be 5-D, got %s and %s", name, x, w)
	}
	if x.DType() != w.DType() || !x.DType().IsFloat() {
		return nil, fmt.Errorf("%s: data and weight must share a float dtype, got %s and %s", name, x.DType(), w.DType())
	}
	g := &conv3dGeom{x: x, w: w, o: out, transposed: transposed, name: name, g: max(a.Groups, 1)}
	var err error
	s, err := triple(name, "strides", a.Strides, 1)
	if err != nil {
		return nil, err
	}
	d, err := triple(name, "dilation", a.Dilation, 1)
	if err != nil {
		return nil, err
	}
	op, err := triple(name, "output_padding", a.OutputPadding, 0)
	if err != nil {
		return nil, err
	}
	switch len(a.Padding) {
	case 0:
	case 1, 3:
		p, err := triple(name, "padding", a.Padding, 0)
		if err != nil {
			return nil, err
		}
		g.pb, g.pa = p, p
	case 6:
		g.pb = [3]int64{a.Padding[0], a.Padding[1], a.Padding[2]}
		g.pa = [3]int64{a.Padding[3], a.Padding[4], a.Padding[5]}
	default:
		return nil, fmt.Errorf("%s: padding must have 1, 3 or 6 values, got %d", name, len(a.Padding))
	}
	g.s, g.d, g.outPad = s, d, op
	xs, ws := x.Shape(), w.Shape()
	g.n, g.ci = xs[0], xs[1]
	copy(g.in[:], xs[2:])
	copy(g.k[:], ws[2:])
	for i := range 3 {
		if s[i] < 1 || d[i] < 1 || g.pb[i] < 0 || g.pa[i] < 0 || op[i] < 0 {
			return nil, fmt.Errorf("%s: strides and dilation must be >= 1, padding and output_padding >= 0 (strides %v, dilation %v, padding %v, output_padding %v)",
				name, a.Strides, a.Dilation, a.Padding, a.OutputPadding)
		}
		if !extent.ConvDimOK(g.in[i], g.k[i], s[i], d[i], g.pb[i], g.pa[i], op[i]) {
			return nil, fmt.Errorf("%s: sizes overflow (input %s, weight %s, strides %v, padding %v, dilation %v)",
				name, shapeStr(xs), shapeStr(ws), a.Strides, a.Padding, a.Dilation)
		}
	}
	if transposed {
		if ws[0] != g.ci || g.ci%g.g != 0 {
			return nil, fmt.Errorf("%s: weight %s does not match %d input channels in %d groups", name, shapeStr(ws), g.ci, g.g)
		}
		g.cinPerG, g.coutPerG = g.ci/g.g, ws[1]
		g.co = ws[1] * g.g
		for i := range g.out {
			g.out[i] = (g.in[i]-1)*s[i] - g.pb[i] - g.pa[i] + d[i]*(g.k[i]-1) + op[i] + 1
		}
	} else {
		if g.ci%g.g != 0 || ws[1] != g.ci/g.g || ws[0]%g.g != 0 {
			return nil, fmt.Errorf("%s: weight %s does not match %d input channels in %d groups", name, shapeStr(ws), g.ci, g.g)
		}
		g.cinPerG, g.co = ws[1], ws[0]
		g.coutPerG = g.co / g.g
		for i := range g.out {
			g.out[i] = (g.in[i]+g.pb[i]+g.pa[i]-d[i]*(g.k[i]-1)-1)/s[i] + 1
		}
	}
	dt := a.OutDType
	if dt.IsVoid() {
		dt = x.DType()
	}
	os := []int64{g.n, g.co, g.out[0], g.out[1], g.out[2]}
	if err := checkOut(name, out, os, dt); err != nil {
		return nil, err
	}
	stridesOf(xs, g.xst[:])
	stridesOf(ws, g.wst[:])
	stridesOf(os, g.ost[:])
	g.f32 = x.DType() != runtime.Float64
	return g, nil
}

// Conv3D is Relax nn.conv3d (NCDHW data, OIDHW weight).
func Conv3D(out, x, w *runtime.Tensor, a Conv2DTransposeAttrs) error {
	g, err := conv3dSetup("nn.conv3d", out, x, w, a, false)
	if err != nil {
		return err
	}
	var pos [5]int64
	total := prod(out.Shape())
	for o := int64(0); o < total; o++ {
		rem := o
		for i := 4; i >= 0; i-- {
			pos[i] = rem % out.Shape()[i]
			rem /= out.Shape()[i]
		}
		b, oc := pos[0], pos[1]
		grp := oc / g.coutPerG
		var acc32 float32
		var acc64 float64
		for c := int64(0); c < g.cinPerG; c++ {
			ic := grp*g.cinPerG + c
			for kd := int64(0); kd < g.k[0]; kd++ {
				z := pos[2]*g.s[0] - g.pb[0] + kd*g.d[0]
				if z < 0 || z >= g.in[0] {
					continue
				}
				for kh := int64(0); kh < g.k[1]; kh++ {
					y := pos[3]*g.s[1] - g.pb[1] + kh*g.d[1]
					if y < 0 || y >= g.in[1] {
						continue
					}
					for kw := int64(0); kw < g.k[2]; kw++ {
						xx := pos[4]*g.s[2] - g.pb[2] + kw*g.d[2]
						if xx < 0 || xx >= g.in[2] {
							continue
						}
						xv := elemFloat(x, int(b*g.xst[0]+ic*g.xst[1]+z*g.xst[2]+y*g.xst[3]+xx*g.xst[4]))
						wv := elemFloat(w, int(oc*g.wst[0]+c*g.wst[1]+kd*g.wst[2]+kh*g.wst[3]+kw*g.wst[4]))
						acc32 += float32(xv) * float32(wv)
						acc64 += xv * wv
					}
				}
			}
		}
		if g.f32 {
			acc64 = float64(acc32)
		}
		if err := storeF(out, int(o), acc64); err != nil {
			return err
		}
	}
	return nil
}

// Conv3DTranspose is Relax nn.conv3d_transpose (NCDHW data, IODHW weight):
// every input element scatters its products into the output window it maps to.
func Conv3DTranspose(out, x, w *runtime.Tensor, a Conv2DTransposeAttrs) error {
	g, err := conv3dSetup("nn.conv3d_transpose", out, x, w, a, true)
	if err != nil {
		return err
	}
	total := prod(out.Shape())
	acc32 := make([]float32, total)
	acc64 := make([]float64, total)
	for b := int64(0); b < g.n; b++ {
		for ic := int64(0); ic < g.ci; ic++ {
			grp := ic / g.cinPerG
			for z := int64(0); z < g.in[0]; z++ {
				for y := int64(0); y < g.in[1]; y++ {
					for xx := int64(0); xx < g.in[2]; xx++ {
						xv := elemFloat(x, int(b*g.xst[0]+ic*g.xst[1]+z*g.xst[2]+y*g.xst[3]+xx*g.xst[4]))
						for c := int64(0); c < g.coutPerG; c++ {
							oc := grp*g.coutPerG + c
							for kd := int64(0); kd < g.k[0]; kd++ {
								oz := z*g.s[0] - g.pb[0] + kd*g.d[0]
								if oz < 0 || oz >= g.out[0] {
									continue
								}
								for kh := int64(0); kh < g.k[1]; kh++ {
									oy := y*g.s[1] - g.pb[1] + kh*g.d[1]
									if oy < 0 || oy >= g.out[1] {
										continue
									}
									for kw := int64(0); kw < g.k[2]; kw++ {
										ox := xx*g.s[2] - g.pb[2] + kw*g.d[2]
										if ox < 0 || ox >= g.out[2] {
											continue
										}
										wv := elemFloat(w, int(ic*g.wst[0]+c*g.wst[1]+kd*g.wst[2]+kh*g.wst[3]+kw*g.wst[4]))
										k := b*g.ost[0] + oc*g.ost[1] + oz*g.ost[2] + oy*g.ost[3] + ox*g.ost[4]
										acc32[k] += float32(xv) * float32(wv)
										acc64[k] += xv * wv
									}
								}
							}
						}
					}
				}
			}
		}
	}
	for k := range acc64 {
		v := acc64[k]
		if g.f32 {
			v = float64(acc32[k])
		}
		if err := storeF(out, k, v); err != nil {
			return err
		}
	}
	return nil
}

func init() {
	register("nn.conv3d", "data, weight, strides (Shape), padding (Shape, 1, 3 or 6 values), dilation (Shape), groups (int64), data_layout (string: NCDHW), kernel_layout (string: OIDHW), out_layout (string or nil), out_dtype (DataType or nil), out",
		packedConv(Prefix+"nn.conv3d", false, Conv3D))
	register("nn.conv3d_transpose", "data, weight, strides (Shape), padding (Shape, 1, 3 or 6 values), output_padding (Shape), dilation (Shape), groups (int64), data_layout (string: NCDHW), kernel_layout (string: IODHW), out_layout (string or nil), out_dtype (DataType or nil), out",
		packedConv(Prefix+"nn.conv3d_transpose", true, Conv3DTranspose))
}
