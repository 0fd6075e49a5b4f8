package kernels

import (
	"fmt"
	"slices"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// roundAs rounds a float32 value to dt's precision (float16 only).
func roundAs(dt runtime.DataType, v float32) float32 {
	if dt == runtime.Float16 {
		return half.RoundFloat16(v)
	}
	return v
}

// NLLLoss is Relax nn.nll_loss as TVM's topi computes it: per position the
// loss is -predictions[b, target, ...] * weights[target] (0 where target ==
// ignore_index); "none" keeps them (targets' shape), "sum" adds them, "mean"
// divides the sum by the sum of the weights used. weights may be nil (ones).
// Arithmetic is in float32 (float16 results rounded per step).
func NLLLoss(out, pred, targets, weights *runtime.Tensor, reduction string, ignoreIndex int64) error {
	const name = "nn.nll_loss"
	if err := checkRank(name, pred, targets); err != nil {
		return err
	}
	dt := pred.DType()
	if dt != runtime.Float32 && dt != runtime.Float16 && dt != runtime.Float64 {
		return fmt.Errorf("%s: unsupported dtype %s", name, dt)
	}
	ps, ts := pred.Shape(), targets.Shape()
	if len(ps) == 0 || targets.DType().IsFloat() {
		return fmt.Errorf("%s: want predictions of rank >= 1 and integer targets", name)
	}
	var want []int64
	classAxis := 1
	if len(ps) == 1 {
		classAxis = 0
	} else {
		want = append([]int64{ps[0]}, ps[2:]...)
	}
	if !slices.Equal(ts, want) {
		return fmt.Errorf("%s: targets shape %s does not match predictions %s", name, shapeStr(ts), shapeStr(ps))
	}
	nc := ps[classAxis]
	if weights != nil && (weights.NDim() != 1 || weights.Shape()[0] != nc || weights.DType() != dt) {
		return fmt.Errorf("%s: weights must be 1-D of %d %s values, got %s", name, nc, dt, weights)
	}
	switch reduction {
	case "none":
		if err := checkOut(name, out, ts, dt); err != nil {
			return err
		}
	case "mean", "sum":
		if err := checkOut(name, out, nil, dt); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s: reduction must be none, mean or sum, got %q", name, reduction)
	}
	inner := int64(1)
	if len(ps) > 2 {
		inner = prod(ps[2:])
	}
	n := targets.NumElements()
	var sum, wsum float32
	for i := int64(0); i < n; i++ {
		c := elemInt(targets, int(i))
		var loss, w float32
		if c != ignoreIndex {
			if c < 0 || c >= nc {
				return fmt.Errorf("%s: target %d out of range for %d classes", name, c, nc)
			}
			w = 1
			if weights != nil {
				w = float32(elemFloat(weights, int(c)))
			}
			b, r := i/inner, i%inner
			p := float32(elemFloat(pred, int((b*nc+c)*inner+r)))
			loss = roundAs(dt, -p*w)
		}
		if reduction == "none" {
			setFloat(out, int(i), float64(loss))
		}
		sum = roundAs(dt, sum+loss)
		wsum = roundAs(dt, wsum+w)
	}
	switch reduction {
	case "sum":
		setFloat(out, 0, float64(sum))
	case "mean":
		setFloat(out, 0, float64(roundAs(dt, sum/wsum)))
	}
	return nil
}

// CrossEntropyWithLogits is Relax nn.cross_entropy_with_logits: -sum(x * y),
// divided by the batch size (dim 0) when x has rank > 1; float32 arithmetic.
func CrossEntropyWithLogits(out, x, y *runtime.Tensor) error {
	const name = "nn.cross_entropy_with_logits"
	if err := checkRank(name, x, y); err != nil {
		return err
	}
	if !slices.Equal(x.Shape(), y.Shape()) || x.DType() != y.DType() || !x.DType().IsFloat() {
		return fmt.Errorf("%s: predictions %s and labels %s must be float tensors of one shape and dtype", name, x, y)
	}
	dt := x.DType()
	if err := checkOut(name, out, nil, dt); err != nil {
		return err
	}
	var s float32
	for i := 0; i < int(x.NumElements()); i++ {
		s = roundAs(dt, s+roundAs(dt, float32(elemFloat(x, i))*float32(elemFloat(y, i))))
	}
	s = -s
	if x.NDim() > 1 {
		s = roundAs(dt, s/float32(x.Shape()[0]))
	}
	setFloat(out, 0, float64(s))
	return nil
}

func init() {
	register("nn.nll_loss", "predictions, targets, weights (Tensor; absent, not nil, when not given), reduction (string: none, mean, sum), ignore_index (int64), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"nn.nll_loss", args)
			var w *runtime.Tensor
			k := 2
			if len(args) == 6 {
				if args[2] != nil {
					w = p.tensor(2)
				}
				k = 3
			} else {
				p.count(5)
			}
			pred, tgt, red, ign, out := p.tensor(0), p.tensor(1), p.string(k), p.int(k+1), p.tensor(k+2)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(NLLLoss(out, pred, tgt, w, red, ign))
		})
	register("nn.cross_entropy_with_logits", "predictions, labels, out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"nn.cross_entropy_with_logits", args)
		p.count(3)
		x, y, out := p.tensor(0), p.tensor(1), p.tensor(2)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(CrossEntropyWithLogits(out, x, y))
	})
}
