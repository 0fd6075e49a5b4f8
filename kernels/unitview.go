package kernels

import (
	"sync"

	"github.com/relaxgo/relaxgo/internal/freelist"
	"github.com/relaxgo/relaxgo/internal/rtlink"
	"github.com/relaxgo/relaxgo/runtime"
)

// unitView is the state of a 1-D operator that runs as its 2-D form over
// height-1 views (conv1d, conv1d_transpose, the 1-D poolings): the views'
// headers and shapes and the 2-D attributes' values, pooled, so that a call
// allocates none of them (the audio model of scripts/zoo made 47 objects a
// call through its 1-D layers' views and attribute slices).
type unitView struct {
	x, w, out               runtime.Tensor
	xs, ws, os              [4]int64
	strides, dilation, size [2]int64
	outPad                  [2]int64
	pad                     [4]int64
	pool                    Pool2DAttrs
}

var unitViews = freelist.List[*unitView]{New: func() *unitView { return new(unitView) }}

// release returns u to the pool without its views, which would keep their
// tensors' memory alive.
func (u *unitView) release() {
	u.x, u.w, u.out, u.pool = runtime.Tensor{}, runtime.Tensor{}, runtime.Tensor{}, Pool2DAttrs{}
	unitViews.Put(u)
}

// unitPair returns buf set to a 2-D attribute of a height-1 view: first for the
// height, v's one value (def when v is empty) for the width.
func unitPair(buf *[2]int64, first int64, v []int64, def int64) []int64 {
	*buf = [2]int64{first, def}
	if len(v) > 0 {
		buf[1] = v[0]
	}
	return buf[:]
}

// padding returns u.pad set to the 2-D padding (top, left, bottom, right)
// of a 1-D one, p: none, left for both sides, or left and right.
func (u *unitView) padding(p []int64) []int64 {
	u.pad = [4]int64{}
	switch len(p) {
	case 1:
		u.pad[1], u.pad[3] = p[0], p[0]
	case 2:
		u.pad[1], u.pad[3] = p[0], p[1]
	}
	return u.pad[:]
}

// view4 makes *dst a view of src with shape (d0, d1, d2, d3), held in buf.
func view4(dst, src *runtime.Tensor, buf *[4]int64, d0, d1, d2, d3 int64) (*runtime.Tensor, error) {
	*buf = [4]int64{d0, d1, d2, d3}
	if err := rtlink.ViewInto(dst, src, buf[:]); err != nil {
		return nil, err
	}
	return dst, nil
}

// constViews maps a registered constant to its registered 4-D view (see
// weightView); UnregisterConstant drops the pair.
var constViews sync.Map // *runtime.Tensor -> *runtime.Tensor

// weightView is view4 for a convolution's weight w (O, I, K) as (O, I, 1,
// K): a registered constant gets one view, made once and registered itself,
// so that the convolution's packed and transformed forms of it are cached as
// a 2-D convolution's weights are; another weight gets *dst.
func weightView(dst, w *runtime.Tensor, buf *[4]int64) (*runtime.Tensor, error) {
	s := w.Shape()
	if !IsConstant(w) {
		return view4(dst, w, buf, s[0], s[1], 1, s[2])
	}
	if v, ok := constViews.Load(w); ok {
		return v.(*runtime.Tensor), nil
	}
	v, err := w.View([]int64{s[0], s[1], 1, s[2]}, w.DType())
	if err != nil {
		return nil, err
	}
	RegisterConstant(v)
	got, _ := constViews.LoadOrStore(w, v)
	return got.(*runtime.Tensor), nil
}
