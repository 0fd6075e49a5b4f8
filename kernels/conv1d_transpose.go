package kernels

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
)

// Conv1DTranspose computes the NCW/IOW transposed 1-D convolution of x
// (N, Cin, W) with w (Cin, O/groups, K) into out (N, O, OW), as Relax
// nn.conv1d_transpose: Conv2DTranspose over height-1 views. The attributes
// hold 1-D values (padding 1 or 2 values: left, right).
func Conv1DTranspose(out, x, w *runtime.Tensor, attrs Conv2DTransposeAttrs) error {
	const op = "conv1d_transpose"
	if out == nil || x == nil || w == nil {
		return fmt.Errorf("%s: nil tensor", op)
	}
	if err := convLayout(op, "data_layout", attrs.DataLayout, "NCW"); err != nil {
		return err
	}
	if err := convLayout(op, "kernel_layout", attrs.KernelLayout, "IOW"); err != nil {
		return err
	}
	if err := convLayout(op, "out_layout", attrs.OutLayout, "NCW"); err != nil {
		return err
	}
	xs, ws, os := x.Shape(), w.Shape(), out.Shape()
	if len(xs) != 3 || len(ws) != 3 || len(os) != 3 {
		return fmt.Errorf("%s: data, weight and output must be 3-D, got %v, %v and %v", op, runtime.Shape(xs), runtime.Shape(ws), runtime.Shape(os))
	}
	if len(attrs.Strides) > 1 || len(attrs.Dilation) > 1 || len(attrs.OutputPadding) > 1 || len(attrs.Padding) > 2 {
		return fmt.Errorf("%s: strides, dilation and output_padding need 1 value and padding 1 or 2 (got %v, %v, %v, %v)",
			op, attrs.Strides, attrs.Dilation, attrs.OutputPadding, attrs.Padding)
	}
	a2 := Conv2DTransposeAttrs{Strides: []int64{1, 1}, Dilation: []int64{1, 1}, Padding: []int64{0, 0, 0, 0},
		OutputPadding: []int64{0, 0}, Groups: attrs.Groups, OutDType: attrs.OutDType}
	if len(attrs.Strides) == 1 {
		a2.Strides[1] = attrs.Strides[0]
	}
	if len(attrs.Dilation) == 1 {
		a2.Dilation[1] = attrs.Dilation[0]
	}
	if len(attrs.OutputPadding) == 1 {
		a2.OutputPadding[1] = attrs.OutputPadding[0]
	}
	switch len(attrs.Padding) {
	case 1:
		a2.Padding[1], a2.Padding[3] = attrs.Padding[0], attrs.Padding[0]
	case 2:
		a2.Padding[1], a2.Padding[3] = attrs.Padding[0], attrs.Padding[1]
	}
	x4, err1 := x.View([]int64{xs[0], xs[1], 1, xs[2]}, x.DType())
	w4, err2 := w.View([]int64{ws[0], ws[1], 1, ws[2]}, w.DType())
	o4, err3 := out.View([]int64{os[0], os[1], 1, os[2]}, out.DType())
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	if err := Conv2DTranspose(o4, x4, w4, a2); err != nil {
		return fmt.Errorf("conv1d_transpose (as 2-D): %w", err)
	}
	return nil
}

// packedConv1DTranspose is "kernels.nn.conv1d_transpose", with the argument
// order of kernels.nn.conv2d_transpose.
func packedConv1DTranspose(args []runtime.Value) (runtime.Value, error) {
	const op = "kernels.nn.conv1d_transpose"
	x, w, out, err := convTensors(op, args, 12)
	if err != nil {
		return nil, err
	}
	s, p, op2, d, g, dl, kl, ol, dt, err := convPackedAttrs(op, args, true)
	if err != nil {
		return nil, err
	}
	return nil, Conv1DTranspose(out, x, w, Conv2DTransposeAttrs{s, p, op2, d, g, dl, kl, ol, dt})
}

func init() { runtime.MustRegister("kernels.nn.conv1d_transpose", packedConv1DTranspose) }
