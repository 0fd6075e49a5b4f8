package kernels

import (
	"github.com/relaxgo/relaxgo/runtime"
)

// Conv1DTranspose computes the NCW/IOW transposed 1-D convolution of x
// (N, Cin, W) with w (Cin, O/groups, K) into out (N, O, OW), as Relax
// nn.conv1d_transpose: Conv2DTranspose over height-1 views. The attributes
// hold 1-D values (padding 1 or 2 values: left, right).
func Conv1DTranspose(out, x, w *runtime.Tensor, attrs Conv2DTransposeAttrs) error {
	return conv1dAs2D("conv1d_transpose", "IOW", out, x, w, attrs, true, func(o4, x4, w4 *runtime.Tensor, a2 Conv2DTransposeAttrs) error {
		return Conv2DTranspose(o4, x4, w4, a2)
	})
}
