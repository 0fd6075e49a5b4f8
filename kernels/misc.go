package kernels

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/relaxgo/relaxgo/runtime"
	"github.com/relaxgo/relaxgo/runtime/half"
)

// EwiseFMA sets out = x1 * x2 + x3 elementwise (Relax ewise_fma: TVM
// legalizes it to a multiply then an add, so the product is rounded first).
func EwiseFMA(out, a, b, c *runtime.Tensor) error {
	const name = "ewise_fma"
	if err := checkRank(name, a, b, c); err != nil {
		return err
	}
	if !slices.Equal(a.Shape(), b.Shape()) || !slices.Equal(a.Shape(), c.Shape()) || a.DType() != b.DType() || a.DType() != c.DType() {
		return fmt.Errorf("%s: arguments %s, %s, %s must have one shape and dtype", name, a, b, c)
	}
	if err := checkOut(name, out, a.Shape(), a.DType()); err != nil {
		return err
	}
	switch a.DType() {
	case runtime.Float32:
		fmaTyped(elems[float32](out), elems[float32](a), elems[float32](b), elems[float32](c))
	case runtime.Float64:
		fmaTyped(elems[float64](out), elems[float64](a), elems[float64](b), elems[float64](c))
	case runtime.Int8:
		fmaTyped(elems[int8](out), elems[int8](a), elems[int8](b), elems[int8](c))
	case runtime.Int16:
		fmaTyped(elems[int16](out), elems[int16](a), elems[int16](b), elems[int16](c))
	case runtime.Int32:
		fmaTyped(elems[int32](out), elems[int32](a), elems[int32](b), elems[int32](c))
	case runtime.Int64:
		fmaTyped(elems[int64](out), elems[int64](a), elems[int64](b), elems[int64](c))
	case runtime.UInt8:
		fmaTyped(elems[uint8](out), elems[uint8](a), elems[uint8](b), elems[uint8](c))
	case runtime.Float16:
		o, x, y, z := elems[uint16](out), elems[uint16](a), elems[uint16](b), elems[uint16](c)
		for i := range o {
			p := half.RoundFloat16(half.Float16ToFloat32(x[i]) * half.Float16ToFloat32(y[i]))
			o[i] = half.Float32ToFloat16(p + half.Float16ToFloat32(z[i]))
		}
	default:
		return fmt.Errorf("%s: unsupported dtype %s", name, a.DType())
	}
	return nil
}

func fmaTyped[T number](o, a, b, c []T) {
	for i := range o {
		p := a[i] * b[i]
		o[i] = p + c[i]
	}
}

// Checkpoint copies x into out: grad.start_checkpoint and grad.end_checkpoint
// only mark gradient-checkpoint stages and are identities at inference.
func Checkpoint(out, x *runtime.Tensor) error {
	if err := checkOut("checkpoint", out, x.Shape(), x.DType()); err != nil {
		return err
	}
	if !sameData(out, x) {
		copy(out.Bytes(), x.Bytes())
	}
	return nil
}

// Bucketize sets out[i] to the bucket of x[i] among the sorted 1-D
// boundaries (Relax bucketize, torch.bucketize): the number of boundaries
// < x[i] (<= x[i] when right).
func Bucketize(out, x, boundaries *runtime.Tensor, right bool) error {
	const name = "bucketize"
	if err := checkRank(name, x, boundaries); err != nil {
		return err
	}
	if boundaries.NDim() != 1 {
		return fmt.Errorf("%s: boundaries must be 1-D, got %s", name, boundaries)
	}
	if out == nil || (out.DType() != runtime.Int32 && out.DType() != runtime.Int64) {
		return fmt.Errorf("%s: output must be int32 or int64", name)
	}
	if err := checkOut(name, out, x.Shape(), out.DType()); err != nil {
		return err
	}
	nb := int(boundaries.NumElements())
	cmpInt := !x.DType().IsFloat() && !boundaries.DType().IsFloat()
	n := int(x.NumElements())
	for i := 0; i < n; i++ {
		var k int
		if cmpInt {
			v := elemInt(x, i)
			k = sort.Search(nb, func(j int) bool {
				if right {
					return elemInt(boundaries, j) > v
				}
				return elemInt(boundaries, j) >= v
			})
		} else {
			v := elemFloat(x, i)
			k = sort.Search(nb, func(j int) bool {
				if right {
					return elemFloat(boundaries, j) > v
				}
				return elemFloat(boundaries, j) >= v
			})
		}
		if err := setInt(out, i, int64(k), 0); err != nil {
			return err
		}
	}
	return nil
}

// HammingWindow fills out (1-D, window_size elements) with alpha - beta *
// cos(2 pi i / (N - 1)), N = window_size (+1 when periodic), as TVM's topi.
func HammingWindow(out *runtime.Tensor, size int64, periodic bool, alpha, beta float64) error {
	const name = "hamming_window"
	if out == nil || !out.DType().IsFloat() {
		return fmt.Errorf("%s: output must be a float tensor", name)
	}
	if size < 1 {
		return fmt.Errorf("%s: window_size must be greater than zero, got %d", name, size)
	}
	if err := checkOut(name, out, []int64{size}, out.DType()); err != nil {
		return err
	}
	if size == 1 {
		setFloat(out, 0, 1)
		return nil
	}
	n := size
	if periodic {
		n++
	}
	for i := int64(0); i < size; i++ {
		setFloat(out, int(i), alpha-beta*math.Cos(2*math.Pi*float64(i)/float64(n-1)))
	}
	return nil
}

// ReverseSequence reverses the first seq_lengths[b] elements along seqAxis
// of every batch b along batchAxis (Relax reverse_sequence; lengths <= 1 leave
// the row, lengths beyond the axis reverse all of it).
func ReverseSequence(out, x, lengths *runtime.Tensor, seqAxis, batchAxis int64) error {
	const name = "reverse_sequence"
	if err := checkRank(name, x, lengths); err != nil {
		return err
	}
	if err := checkOut(name, out, x.Shape(), x.DType()); err != nil {
		return err
	}
	sa, err := normAxis(name, seqAxis, x.NDim())
	if err != nil {
		return err
	}
	ba, err := normAxis(name, batchAxis, x.NDim())
	if err != nil {
		return err
	}
	shape := x.Shape()
	if lengths.NDim() != 1 || lengths.Shape()[0] != shape[ba] || lengths.DType().IsFloat() {
		return fmt.Errorf("%s: seq_lengths %s must be 1-D integers of the batch axis size %d", name, lengths, shape[ba])
	}
	var st [maxRank]int64
	stridesOf(shape, st[:len(shape)])
	eb := int64(x.DType().ElemBytes())
	ob, xb := out.Bytes(), x.Bytes()
	if sameData(out, x) {
		xb = append([]byte(nil), xb...)
	}
	n := prod(shape)
	var pos [maxRank]int64
	for i := int64(0); i < n; i++ {
		unravelIndex(pos[:len(shape)], i, shape)
		l := elemInt(lengths, int(pos[ba]))
		j := pos[sa]
		src := i
		if l > 1 && j < l {
			if l > shape[sa] {
				l = shape[sa]
			}
			src = i + (l-1-2*j)*st[sa]
		}
		copy(ob[i*eb:(i+1)*eb], xb[src*eb:(src+1)*eb])
	}
	return nil
}

// ShapeToTensor writes the dims of a shape into a 1-D int64 tensor.
func ShapeToTensor(out *runtime.Tensor, shape []int64) error {
	if err := checkOut("shape_to_tensor", out, []int64{int64(len(shape))}, runtime.Int64); err != nil {
		return err
	}
	copy(out.Int64s(), shape)
	return nil
}

// MultinomialFromUniform sets out[i, 0] to the first index j with
// uniform_sample[i, 0] < cumsum(prob[sample_indices[i, 0], :])[j] (the last
// index when there is none), as TVM's CPU dispatch of multinomial_from_uniform
// (cumulative sums in prob's dtype).
func MultinomialFromUniform(out, prob, sample, indices *runtime.Tensor) error {
	const name = "multinomial_from_uniform"
	if err := checkRank(name, prob, sample, indices); err != nil {
		return err
	}
	if prob.NDim() != 2 || sample.NDim() != 2 || indices.NDim() != 2 || sample.Shape()[1] != 1 ||
		!slices.Equal(sample.Shape(), indices.Shape()) || indices.DType().IsFloat() {
		return fmt.Errorf("%s: want prob (batch, vocab), uniform_sample and sample_indices (n, 1), got %s, %s, %s", name, prob, sample, indices)
	}
	if out == nil || out.DType().IsFloat() {
		return fmt.Errorf("%s: output must be an integer tensor", name)
	}
	if err := checkOut(name, out, sample.Shape(), out.DType()); err != nil {
		return err
	}
	batch, vocab := prob.Shape()[0], prob.Shape()[1]
	if vocab == 0 {
		return fmt.Errorf("%s: empty vocabulary", name)
	}
	cs := make([]float64, vocab*batch)
	for b := int64(0); b < batch; b++ {
		var acc float32
		var acc64 float64
		for j := int64(0); j < vocab; j++ {
			v := elemFloat(prob, int(b*vocab+j))
			switch prob.DType() {
			case runtime.Float32:
				acc += float32(v)
				cs[b*vocab+j] = float64(acc)
			case runtime.Float16:
				acc = half.RoundFloat16(acc + float32(v))
				cs[b*vocab+j] = float64(acc)
			default:
				acc64 += v
				cs[b*vocab+j] = acc64
			}
		}
	}
	for i := 0; i < int(sample.NumElements()); i++ {
		b := elemInt(indices, i)
		if b < 0 || b >= batch {
			return fmt.Errorf("%s: sample index %d out of range for %d distributions", name, b, batch)
		}
		u := elemFloat(sample, i)
		row := cs[b*vocab : (b+1)*vocab]
		k := sort.Search(int(vocab), func(j int) bool { return u < row[j] })
		if k == int(vocab) {
			k = int(vocab) - 1
		}
		if err := setInt(out, i, int64(k), 0); err != nil {
			return err
		}
	}
	return nil
}

func init() {
	register("ewise_fma", "x1, x2, x3, out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"ewise_fma", args)
		p.count(4)
		a, b, c, out := p.tensor(0), p.tensor(1), p.tensor(2), p.tensor(3)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(EwiseFMA(out, a, b, c))
	})
	for _, op := range []string{"grad.start_checkpoint", "grad.end_checkpoint"} {
		registerUnary(op, "x, out (an identity at inference; a copy unless out is x)", Checkpoint)
	}
	register("bucketize", "input_tensor, boundaries, out_int32 (bool), right (bool), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"bucketize", args)
		p.count(5)
		x, b, right, out := p.tensor(0), p.tensor(1), p.bool(3), p.tensor(4)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(Bucketize(out, x, b, right))
	})
	register("hamming_window", "window_size (int64), periodic (bool or int64), alpha (float64), beta (float64), dtype (DataType), out",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"hamming_window", args)
			p.count(6)
			n, per, alpha, beta, out := p.int(0), p.int(1), p.float(2), p.float(3), p.tensor(5)
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(HammingWindow(out, n, per != 0, alpha, beta))
		})
	register("reverse_sequence", "data, seq_lengths, seq_axis (int64), batch_axis (int64), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"reverse_sequence", args)
		p.count(5)
		x, l, sa, ba, out := p.tensor(0), p.tensor(1), p.int(2), p.int(3), p.tensor(4)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(ReverseSequence(out, x, l, sa, ba))
	})
	register("shape_to_tensor", "expr (Shape), out (int64)", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"shape_to_tensor", args)
		p.count(2)
		s, out := p.ints(0), p.tensor(1)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(ShapeToTensor(out, s))
	})
	register("multinomial_from_uniform", "prob, uniform_sample, sample_indices, dtype (DataType), out", func(args []runtime.Value) (runtime.Value, error) {
		p := newArgs(Prefix+"multinomial_from_uniform", args)
		p.count(5)
		prob, u, idx, out := p.tensor(0), p.tensor(1), p.tensor(2), p.tensor(4)
		if p.err != nil {
			return nil, p.err
		}
		return nil, wrapErr(MultinomialFromUniform(out, prob, u, idx))
	})
}
