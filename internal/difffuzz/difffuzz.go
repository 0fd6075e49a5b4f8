// Package difffuzz generates small random Relax modules that are well typed
// by construction, for differential testing: the same module must give the
// same results (or the same error) in bytecode and compiled mode and at every
// SIMD level. Generation is driven by a byte string (a fuzz input or a
// seeded random source), so a failing module is reproduced from its bytes.
package difffuzz

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/relaxgo/relaxgo/runtime"
)

// Source hands out the bytes that drive generation, then zeros.
type Source struct {
	b []byte
	i int
}

// NewSource returns a Source reading b.
func NewSource(b []byte) *Source { return &Source{b: b} }

func (s *Source) byte() int {
	if s.i >= len(s.b) {
		return 0
	}
	s.i++
	return int(s.b[s.i-1])
}

// pick returns an int in [0, n).
func (s *Source) pick(n int) int { return s.byte() % n }

// value is a bound Relax variable and its static shape.
type value struct {
	name  string
	shape []int64
}

type fn struct {
	src     *Source
	name    string
	params  []value
	weights []value // parameters a model's weights would be: after the inputs
	vals    []value
	bound   []value // the values body binds, in its order
	body    []string
	n       int
}

func shapeText(s []int64) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	if len(s) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func tensorType(s []int64) string {
	return fmt.Sprintf("R.Tensor(%s, dtype=\"float32\")", shapeText(s))
}

func (f *fn) param(shape []int64) value {
	v := value{fmt.Sprintf("x%d", len(f.params)), shape}
	f.params = append(f.params, v)
	f.vals = append(f.vals, v)
	return v
}

// weight makes a weight parameter (a matmul's or a convolution's weight, a
// channel bias), named after the function so that names are unique in the
// module.
func (f *fn) weight(shape []int64) value {
	v := value{fmt.Sprintf("%s_w%d", f.name, len(f.weights)), shape}
	f.weights = append(f.weights, v)
	f.vals = append(f.vals, v)
	return v
}

func (f *fn) bind(shape []int64, expr string, args ...any) value {
	v := value{fmt.Sprintf("v%d", f.n), shape}
	f.n++
	f.body = append(f.body, fmt.Sprintf("%s: %s = %s", v.name, tensorType(shape), fmt.Sprintf(expr, args...)))
	f.vals = append(f.vals, v)
	f.bound = append(f.bound, v)
	return v
}

func (f *fn) randShape() []int64 {
	s := make([]int64, 1+f.src.pick(3))
	for i := range s {
		s[i] = int64(1 + f.src.pick(5))
	}
	return s
}

// operand picks an existing value, or makes a parameter of a fresh shape.
func (f *fn) operand() value {
	if len(f.vals) == 0 || f.src.pick(6) == 0 {
		return f.param(f.randShape())
	}
	return f.vals[f.src.pick(len(f.vals))]
}

// sameShape finds a value of shape s, or makes a parameter of it.
func (f *fn) sameShape(s []int64) value {
	var c []value
	for _, v := range f.vals {
		if slices.Equal(v.shape, s) {
			c = append(c, v)
		}
	}
	if len(c) == 0 || f.src.pick(4) == 0 {
		return f.param(s)
	}
	return c[f.src.pick(len(c))]
}

var unary = []string{"R.exp", "R.tanh", "R.sigmoid", "R.nn.relu", "R.negative", "R.abs", "R.sin", "R.cos", "R.floor", "R.nn.gelu", "R.nn.silu", "R.square", "R.sqrt", "R.log"}
var binary = []string{"R.add", "R.subtract", "R.multiply", "R.divide", "R.maximum", "R.minimum", "R.power"}
var reduce = []string{"R.sum", "R.max", "R.min", "R.mean", "R.prod"}

// step binds one more operation.
func (f *fn) step() {
	x := f.operand()
	r := len(x.shape)
	if r == 0 {
		// A scalar: elementwise only.
		if f.src.pick(2) == 0 {
			f.bindAny(nil, "%s(%s)", unary[f.src.pick(len(unary))], x.name)
		} else {
			f.bindAny(nil, "%s(%s, R.const(0.5, \"float32\"))", binary[f.src.pick(len(binary))], x.name)
		}
		return
	}
	switch f.src.pick(12) {
	case 0, 1:
		f.bind(x.shape, "%s(%s)", unary[f.src.pick(len(unary))], x.name)
	case 2, 3:
		// Broadcast against the same shape, a suffix of it, or a scalar constant.
		op := binary[f.src.pick(len(binary))]
		switch f.src.pick(3) {
		case 0:
			f.bind(x.shape, "%s(%s, %s)", op, x.name, f.sameShape(x.shape).name)
		case 1:
			y := f.sameShape(x.shape[r-1:])
			f.bind(x.shape, "%s(%s, %s)", op, x.name, y.name)
		default:
			f.bind(x.shape, "%s(%s, R.const(%s, \"float32\"))", op, x.name, []string{"0.5", "2.0", "-1.0", "0.0", "3.0"}[f.src.pick(5)])
		}
	case 4:
		axis := f.src.pick(r)
		keep := f.src.pick(2) == 0
		out := make([]int64, 0, r)
		for i, d := range x.shape {
			switch {
			case i != axis:
				out = append(out, d)
			case keep:
				out = append(out, 1)
			}
		}
		if len(out) == 0 {
			out = nil
		}
		k := "False"
		if keep {
			k = "True"
		}
		f.bindAny(out, "%s(%s, axis=[%d], keepdims=%s)", reduce[f.src.pick(len(reduce))], x.name, axis, k)
	case 5:
		f.bind(x.shape, "R.nn.softmax(%s, axis=%d)", x.name, f.src.pick(r))
	case 6:
		// matmul (..., m, k) @ (k, n).
		k := x.shape[r-1]
		n := int64(1 + f.src.pick(5))
		w := f.weight([]int64{k, n})
		out := append(append([]int64(nil), x.shape[:r-1]...), n)
		f.bind(out, "R.matmul(%s, %s)", x.name, w.name)
	case 7:
		out := make([]int64, r)
		axes := make([]string, r)
		for i := range out {
			out[i] = x.shape[r-1-i]
			axes[i] = fmt.Sprint(r - 1 - i)
		}
		f.bind(out, "R.permute_dims(%s, axes=[%s])", x.name, strings.Join(axes, ", "))
	case 8:
		f.pool()
	case 9:
		f.conv()
	case 10:
		f.more(x)
	default:
		n := int64(1)
		for _, d := range x.shape {
			n *= d
		}
		f.bind([]int64{n}, "R.reshape(%s, R.shape([%d]))", x.name, n)
	}
}

// pool binds a max or average 2-D pooling (NCHW) of a rank-4 value
// (rank4), with a random window (1 to 5 a side), stride (1 to 3),
// dilation (1 or 2), padding (up to half the window a side), ceil mode and
// count_include_pad; when the geometry leaves no output, an elementwise
// step instead.
func (f *fn) pool() {
	x := f.rank4()
	ks := []int{1, 2, 3, 3, 5}
	kh, kw := ks[f.src.pick(len(ks))], ks[f.src.pick(len(ks))]
	if f.src.pick(2) == 0 {
		kw = kh
	}
	sh, sw := 1+f.src.pick(3), 1+f.src.pick(3)
	dh, dw := 1, 1
	if f.src.pick(6) == 0 {
		dh, dw = 2, 1+f.src.pick(2)
	}
	pad := [4]int{f.src.pick(kh/2 + 1), f.src.pick(kw/2 + 1), f.src.pick(kh/2 + 1), f.src.pick(kw/2 + 1)}
	if f.src.pick(2) == 0 {
		// The networks' geometries, which take the fast paths: 2x2/2,
		// 3x3/2 without and with padding 1, 3x3/1 with padding 1.
		g := [][4]int{{2, 2, 0}, {3, 2, 0}, {3, 2, 1}, {3, 1, 1}}[f.src.pick(4)]
		kh, kw, sh, sw, dh, dw = g[0], g[0], g[1], g[1], 1, 1
		pad = [4]int{g[2], g[2], g[2], g[2]}
	}
	ceil, incl := f.src.pick(2) == 0, f.src.pick(2) == 0
	oh := poolOut(int(x.shape[2]), kh, sh, dh, pad[0], pad[2], ceil)
	ow := poolOut(int(x.shape[3]), kw, sw, dw, pad[1], pad[3], ceil)
	if oh < 1 || ow < 1 {
		f.bind(x.shape, "R.nn.relu(%s)", x.name)
		return
	}
	op := "R.nn.max_pool2d"
	if f.src.pick(2) == 0 {
		op = "R.nn.avg_pool2d"
	}
	f.bind([]int64{x.shape[0], x.shape[1], int64(oh), int64(ow)},
		"%s(%s, pool_size=[%d, %d], strides=[%d, %d], dilation=[%d, %d], padding=[%d, %d, %d, %d], ceil_mode=%s, count_include_pad=%s, layout=\"NCHW\", out_layout=\"NCHW\")",
		op, x.name, kh, kw, sh, sw, dh, dw, pad[0], pad[1], pad[2], pad[3], pyBool(ceil), pyBool(incl))
}

// more binds one of the operators the other steps leave out: concat,
// strided_slice, layer_norm, log_softmax, cumsum, adaptive_avg_pool2d or a
// 1-D pool, on x (of rank 1 or more) or a value or parameter it needs.
func (f *fn) more(x value) {
	r := len(x.shape)
	axis := f.src.pick(r)
	switch f.src.pick(9) {
	case 8:
		f.attention()
	case 7:
		f.convTranspose()
	case 0:
		y := append([]int64(nil), x.shape...)
		y[axis] = int64(1 + f.src.pick(5))
		yv := f.sameShape(y)
		out := append([]int64(nil), x.shape...)
		out[axis] += y[axis]
		f.bind(out, "R.concat((%s, %s), axis=%d)", x.name, yv.name, axis)
	case 1:
		n := int(x.shape[axis])
		b := f.src.pick(n)
		e := b + 1 + f.src.pick(n-b)
		st := 1 + f.src.pick(3)
		out := append([]int64(nil), x.shape...)
		out[axis] = int64((e - b + st - 1) / st)
		f.bind(out, "R.strided_slice(%s, axes=[%d], begin=[%d], end=[%d], strides=[%d])", x.name, axis, b, e, st)
	case 2:
		g, b := f.weight(x.shape[r-1:]), f.weight(x.shape[r-1:])
		f.bind(x.shape, "R.nn.layer_norm(%s, %s, %s, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)", x.name, g.name, b.name)
	case 3:
		f.bind(x.shape, "R.nn.log_softmax(%s, axis=%d)", x.name, axis)
	case 4:
		f.bind(x.shape, "R.cumsum(%s, axis=%d, dtype=\"float32\", exclusive=%s)", x.name, axis, pyBool(f.src.pick(2) == 0))
	case 5:
		x := f.rank4()
		oh, ow := 1+f.src.pick(int(x.shape[2])+2), 1+f.src.pick(int(x.shape[3])+2)
		f.bind([]int64{x.shape[0], x.shape[1], int64(oh), int64(ow)}, "R.nn.adaptive_avg_pool2d(%s, output_size=[%d, %d], layout=\"NCHW\", out_layout=\"NCHW\")", x.name, oh, ow)
	default:
		x := f.param([]int64{int64(1 + f.src.pick(2)), int64(1 + f.src.pick(6)), int64(1 + f.src.pick(40))})
		k := []int{1, 2, 3, 5}[f.src.pick(4)]
		st, d := 1+f.src.pick(3), 1+f.src.pick(2)
		p0, p1 := f.src.pick(k/2+1), f.src.pick(k/2+1)
		ceil := f.src.pick(2) == 0
		ow := poolOut(int(x.shape[2]), k, st, d, p0, p1, ceil)
		if ow < 1 {
			f.bind(x.shape, "R.nn.relu(%s)", x.name)
			return
		}
		op := "R.nn.max_pool1d"
		if f.src.pick(2) == 0 {
			op = "R.nn.avg_pool1d"
		}
		f.bind([]int64{x.shape[0], x.shape[1], int64(ow)}, "%s(%s, pool_size=[%d], strides=[%d], dilation=[%d], padding=[%d, %d], ceil_mode=%s, count_include_pad=%s, layout=\"NCW\", out_layout=\"NCW\")",
			op, x.name, k, st, d, p0, p1, pyBool(ceil), pyBool(f.src.pick(2) == 0))
	}
}

// convTranspose binds a 2-D transposed convolution (NCHW, IOHW weight) of
// a rank-4 value: window 1 to 4 a side, stride 1 to 3, dilation 1 or 2,
// padding below the window's reach, output padding below the stride, one
// group or as many as the channels when they divide the output's.
func (f *fn) convTranspose() {
	x := f.rank4()
	c := int(x.shape[1])
	g, og := 1, 1+f.src.pick(8) // groups, output channels a group
	if f.src.pick(3) == 0 {
		g = c
	}
	kh, kw := 1+f.src.pick(4), 1+f.src.pick(4)
	sh, sw := 1+f.src.pick(3), 1+f.src.pick(3)
	dh, dw := 1+f.src.pick(2), 1
	pad := [4]int{f.src.pick(dh*(kh-1) + 1), f.src.pick(kw), f.src.pick(dh*(kh-1) + 1), f.src.pick(kw)}
	oph, opw := f.src.pick(max(sh, dh)), f.src.pick(max(sw, dw))
	oh := (int(x.shape[2])-1)*sh - pad[0] - pad[2] + dh*(kh-1) + oph + 1
	ow := (int(x.shape[3])-1)*sw - pad[1] - pad[3] + dw*(kw-1) + opw + 1
	if oh < 1 || ow < 1 {
		f.bind(x.shape, "R.nn.relu(%s)", x.name)
		return
	}
	w := f.weight([]int64{int64(c), int64(og), int64(kh), int64(kw)})
	f.bind([]int64{x.shape[0], int64(g * og), int64(oh), int64(ow)},
		"R.nn.conv2d_transpose(%s, %s, strides=[%d, %d], padding=[%d, %d, %d, %d], output_padding=[%d, %d], dilation=[%d, %d], groups=%d, data_layout=\"NCHW\", kernel_layout=\"IOHW\", out_layout=\"NCHW\", out_dtype=\"void\")",
		x.name, w.name, sh, sw, pad[0], pad[1], pad[2], pad[3], oph, opw, dh, dw, g)
}

// attention binds nn.attention of fresh query (B, S, N, H), key (B, Skv,
// N, H) and value (B, Skv, N, Hv) parameters, at times with a bias (B, N,
// S, Skv), a scale and a causal mask.
func (f *fn) attention() {
	b, sq, skv, n := int64(1+f.src.pick(2)), int64(1+f.src.pick(20)), int64(1+f.src.pick(20)), int64(1+f.src.pick(4))
	h, hv := int64(1+f.src.pick(40)), int64(1+f.src.pick(40))
	q, k, v := f.param([]int64{b, sq, n, h}), f.param([]int64{b, skv, n, h}), f.param([]int64{b, skv, n, hv})
	args := q.name + ", " + k.name + ", " + v.name
	if f.src.pick(3) == 0 {
		args += ", " + f.sameShape([]int64{b, n, sq, skv}).name
	}
	if f.src.pick(2) == 0 {
		args += ", scale=" + []string{"0.5", "0.125", "2.0"}[f.src.pick(3)]
	}
	if m := f.src.pick(3); m > 0 {
		args += fmt.Sprintf(", causal_mask=%q", []string{"TopLeft", "BottomRight"}[m-1])
	}
	f.bind([]int64{b, sq, n, hv}, "R.nn.attention(%s)", args)
}

// rank4 picks an existing rank-4 value or makes a parameter of a random
// image shape (planes up to 24x40, so that rows fill vectors).
func (f *fn) rank4() value {
	var c []value
	for _, v := range f.vals {
		if len(v.shape) == 4 {
			c = append(c, v)
		}
	}
	if len(c) == 0 || f.src.pick(3) == 0 {
		return f.param([]int64{int64(1 + f.src.pick(2)), int64(1 + f.src.pick(6)), int64(1 + f.src.pick(24)), int64(1 + f.src.pick(40))})
	}
	return c[f.src.pick(len(c))]
}

// conv binds a 2-D convolution (NCHW, OIHW) of a rank-4 value with a weight
// parameter: a random window (1 to 7 a side), stride (1 to 3), dilation (1
// or 2), padding (up to the window less one a side) and grouping (one
// group, depthwise with a channel multiplier of 1 or 2, or groups dividing
// the channels), up to 24 output channels; then, at times, a bias of one
// value a channel and a ReLU, which the compiler fuses into the
// convolution's call. When the geometry leaves no output, an elementwise
// step instead.
func (f *fn) conv() {
	if f.src.pick(4) == 0 {
		f.wideConv()
		return
	}
	x := f.rank4()
	c := int(x.shape[1])
	g, o := 1, 1+f.src.pick(24)
	switch f.src.pick(3) {
	case 0: // depthwise
		g = c
		o = c * (1 + f.src.pick(2))
	case 1:
		for _, d := range []int{4, 3, 2} {
			if c%d == 0 && f.src.pick(2) == 0 {
				g = d
				break
			}
		}
		o = g * (1 + f.src.pick(24/g))
	}
	ks := []int{1, 1, 2, 3, 3, 5, 7}
	kh, kw := ks[f.src.pick(len(ks))], ks[f.src.pick(len(ks))]
	if f.src.pick(2) == 0 {
		kw = kh
	}
	sh, sw := 1+f.src.pick(3), 1+f.src.pick(3)
	if f.src.pick(2) == 0 {
		sw = sh
	}
	dh, dw := 1, 1
	if f.src.pick(6) == 0 {
		dh, dw = 2, 1+f.src.pick(2)
	}
	pad := [4]int{f.src.pick(kh), f.src.pick(kw), f.src.pick(kh), f.src.pick(kw)}
	oh := (int(x.shape[2])+pad[0]+pad[2]-dh*(kh-1)-1)/sh + 1
	ow := (int(x.shape[3])+pad[1]+pad[3]-dw*(kw-1)-1)/sw + 1
	if int(x.shape[2])+pad[0]+pad[2] < dh*(kh-1)+1 || int(x.shape[3])+pad[1]+pad[3] < dw*(kw-1)+1 {
		f.bind(x.shape, "R.nn.relu(%s)", x.name)
		return
	}
	w := f.weight([]int64{int64(o), int64(c / g), int64(kh), int64(kw)})
	out := []int64{x.shape[0], int64(o), int64(oh), int64(ow)}
	v := f.bind(out, "%s", conv2dExpr(x, w, sh, sw, pad, dh, dw, g))
	if f.src.pick(2) == 0 {
		b := f.weight([]int64{1, int64(o), 1, 1})
		v = f.bind(out, "R.add(%s, %s)", v.name, b.name)
		if f.src.pick(2) == 0 {
			f.bind(out, "R.nn.relu(%s)", v.name)
		}
	}
}

// wideConv binds a dense 1x1 or 3x3 convolution of a fresh input of 16 to
// 48 channels on planes of 8x8 to 24x40 into 32 to 96 channels, with a
// channel bias: the sizes the blocked paths take (whole channel panels for
// the positions path, enough channels and tiles for Winograd).
func (f *fn) wideConv() {
	c, o := 16*(1+f.src.pick(3)), 32*(1+f.src.pick(3))
	x := f.param([]int64{1, int64(c), int64(8 + f.src.pick(17)), int64(8 + f.src.pick(33))})
	k, s := 1+2*f.src.pick(2), 1+f.src.pick(2)
	p := k / 2
	oh := (int(x.shape[2])+2*p-k)/s + 1
	ow := (int(x.shape[3])+2*p-k)/s + 1
	w := f.weight([]int64{int64(o), int64(c), int64(k), int64(k)})
	b := f.weight([]int64{1, int64(o), 1, 1})
	out := []int64{1, int64(o), int64(oh), int64(ow)}
	v := f.bind(out, "%s", conv2dExpr(x, w, s, s, [4]int{p, p, p, p}, 1, 1, 1))
	f.bind(out, "R.add(%s, %s)", v.name, b.name)
}

// conv2dExpr is an NCHW/OIHW R.nn.conv2d of x with the weight w.
func conv2dExpr(x, w value, sh, sw int, pad [4]int, dh, dw, g int) string {
	return fmt.Sprintf("R.nn.conv2d(%s, %s, strides=[%d, %d], padding=[%d, %d, %d, %d], dilation=[%d, %d], groups=%d, data_layout=\"NCHW\", kernel_layout=\"OIHW\", out_layout=\"NCHW\", out_dtype=\"void\")",
		x.name, w.name, sh, sw, pad[0], pad[1], pad[2], pad[3], dh, dw, g)
}

// poolOut is TVM's pooled extent of an input of n with a window of k at
// stride s, dilation d and paddings p0 and p1: in ceil mode the last
// window must start inside the input or its head padding.
func poolOut(n, k, s, d, p0, p1 int, ceil bool) int {
	num := n + p0 + p1 - d*(k-1) - 1
	if num < 0 {
		return 0
	}
	if ceil {
		num += s - 1
	}
	out := num/s + 1
	if ceil && (out-1)*s >= n+p0 {
		out--
	}
	return out
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// bindAny binds a value whose shape may be rank 0 (nil).
func (f *fn) bindAny(shape []int64, expr string, args ...any) {
	if shape != nil {
		f.bind(shape, expr, args...)
		return
	}
	v := value{fmt.Sprintf("v%d", f.n), []int64{}}
	f.n++
	f.body = append(f.body, fmt.Sprintf("%s: R.Tensor((), dtype=\"float32\") = %s", v.name, fmt.Sprintf(expr, args...)))
	f.vals = append(f.vals, v)
	f.bound = append(f.bound, v)
}

// Function writes one random Relax function named name with up to steps
// operations; it returns the function's TVMScript (indented for a class body).
// Its weights (matmul and convolution weights, channel biases) are
// parameters after its inputs.
func Function(src *Source, name string, steps int) string {
	text, _ := function(src, name, steps, false)
	return text
}

// function writes one random function; with consts, its weight parameters
// follow a num_input attribute, to be bound to constants (compiler.Options'
// Params), and their shapes are returned by name.
func function(src *Source, name string, steps int, consts bool) (string, map[string][]int64) {
	f := &fn{src: src, name: name}
	n := 1 + src.pick(steps)
	for i := 0; i < n; i++ {
		f.step()
	}
	// The function returns every bound value no later step reads (one, or
	// a tuple of them), so that no operation is dead code the compiler
	// drops.
	var leaves []value
	for i, v := range f.bound {
		used := false
		for _, later := range f.body[i+1:] {
			if usesName(later[strings.Index(later, "="):], v.name) {
				used = true
				break
			}
		}
		if !used {
			leaves = append(leaves, v)
		}
	}
	var b strings.Builder
	var params []string
	for _, p := range append(append([]value(nil), f.params...), f.weights...) {
		params = append(params, fmt.Sprintf("%s: %s", p.name, tensorType(p.shape)))
	}
	last := leaves[len(leaves)-1]
	ret := retType(last.shape)
	if len(leaves) > 1 {
		types, names := make([]string, len(leaves)), make([]string, len(leaves))
		for i, l := range leaves {
			types[i], names[i] = retType(l.shape), l.name
		}
		ret = "R.Tuple(" + strings.Join(types, ", ") + ")"
		f.body = append(f.body, fmt.Sprintf("out: %s = (%s,)", ret, strings.Join(names, ", ")))
		last = value{name: "out"}
	}
	fmt.Fprintf(&b, "    @R.function\n    def %s(%s) -> %s:\n", name, strings.Join(params, ", "), ret)
	var weights map[string][]int64
	if consts && len(f.weights) > 0 {
		fmt.Fprintf(&b, "        R.func_attr({\"num_input\": %d})\n", len(f.params))
		weights = make(map[string][]int64, len(f.weights))
		for _, w := range f.weights {
			weights[w.name] = w.shape
		}
	}
	for _, l := range f.body {
		fmt.Fprintf(&b, "        %s\n", l)
	}
	fmt.Fprintf(&b, "        return %s\n", last.name)
	return b.String(), weights
}

// usesName reports whether expr reads the variable name (a whole word).
func usesName(expr, name string) bool {
	for i := strings.Index(expr, name); i >= 0; {
		end := i + len(name)
		before := i == 0 || !isIdent(expr[i-1])
		after := end == len(expr) || !isIdent(expr[end])
		if before && after {
			return true
		}
		j := strings.Index(expr[i+1:], name)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// retType is a value's type as a return or tuple field.
func retType(shape []int64) string {
	if len(shape) == 0 {
		return "R.Tensor((), dtype=\"float32\")"
	}
	return tensorType(shape)
}

// Module writes a module of nfuncs random functions f0, f1, ... of up to
// steps operations each, driven by src.
func Module(src *Source, nfuncs, steps int) string {
	text, _ := module(src, nfuncs, steps, false)
	return text
}

// ModuleWeights is Module with each function's weights (matmul and
// convolution weights, channel biases) after a num_input attribute, to be
// bound to constants, as a model's are; it returns their shapes by name
// (unique in the module).
func ModuleWeights(src *Source, nfuncs, steps int) (string, map[string][]int64) {
	return module(src, nfuncs, steps, true)
}

// SampleWeights makes ModuleWeights' weights: runtime.SampleTensor of each
// shape, seeds from 100 in name order, so every harness binds the same.
func SampleWeights(shapes map[string][]int64) (map[string]*runtime.Tensor, error) {
	ws := make(map[string]*runtime.Tensor, len(shapes))
	for i, name := range slices.Sorted(maps.Keys(shapes)) {
		w, err := runtime.SampleTensor(shapes[name], runtime.Float32, 100+i)
		if err != nil {
			return nil, fmt.Errorf("weight %s: %w", name, err)
		}
		ws[name] = w
	}
	return ws, nil
}

func module(src *Source, nfuncs, steps int, consts bool) (string, map[string][]int64) {
	var b strings.Builder
	weights := map[string][]int64{}
	b.WriteString("# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n")
	for i := 0; i < nfuncs; i++ {
		if i > 0 {
			b.WriteString("\n")
		}
		text, w := function(src, fmt.Sprintf("f%d", i), steps, consts)
		b.WriteString(text)
		for k, v := range w {
			weights[k] = v
		}
	}
	return b.String(), weights
}
