package onnx

import (
	"math"

	"github.com/relaxgo/relaxgo/runtime"
)

// MelWeightMatrix (opset 17), computed at import time from its scalar inputs
// as ONNX's reference does (triangular filters between mel-spaced bins).

func convMelWeightMatrix(c *Ctx, n *Node) ([]*Value, error) {
	nMel, ok1 := scalarInt(n.In[0])
	dftLen, ok2 := scalarInt(n.In[1])
	rate, ok3 := scalarInt(n.In[2])
	lo, ok4 := n.In[3].Floats()
	hi, ok5 := n.In[4].Floats()
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || len(lo) != 1 || len(hi) != 1 {
		return nil, n.unsupported("the inputs must be known at import time")
	}
	if nMel < 1 || dftLen < 1 || rate < 1 || nMel > 1<<12 || dftLen > 1<<16 {
		return nil, n.unsupported("num_mel_bins %d, dft_length %d, sample_rate %d", nMel, dftLen, rate)
	}
	dt := runtime.Float32
	if n.Has("output_datatype") {
		d, err := DType(int32(n.Int("output_datatype", 1)))
		if err != nil {
			return nil, n.unsupported("%v", err)
		}
		dt = d
	}
	spec := dftLen/2 + 1
	// The edges are float32 in the reference; the bins are computed in float64.
	mel := func(hz float64) float32 {
		return 2595 * float32(math.Log10(float64(1+float32(hz)/700)))
	}
	loMel, hiMel := mel(lo[0]), mel(hi[0])
	step := (hiMel - loMel) / float32(nMel+2)
	bins := make([]int64, nMel+2)
	for i := range bins {
		f := float64(i)*float64(step) + float64(loMel)
		f = 700 * (math.Pow(10, f/2595) - 1)
		b := math.Floor(float64(dftLen+1) * f / float64(rate))
		if math.IsNaN(b) || b < 0 || b >= float64(spec) {
			return nil, n.unsupported("mel bin %v outside the %d spectrogram bins", b, spec)
		}
		bins[i] = int64(b)
	}
	out := make([]float64, spec*nMel)
	for i := int64(0); i < nMel; i++ {
		l, m, h := bins[i], bins[i+1], bins[i+2]
		if m-l == 0 {
			out[m*nMel+i] = 1
		} else {
			for j := l; j <= m; j++ {
				out[j*nMel+i] = float64(j-l) / float64(m-l)
			}
		}
		if h-m > 0 {
			for j := m; j < h; j++ {
				out[j*nMel+i] = float64(h-j) / float64(h-m)
			}
		}
	}
	t, err := runtime.NewTensor([]int64{spec, nMel}, dt)
	if err != nil {
		return nil, n.unsupported("%v", err)
	}
	for i, v := range out {
		if err := setElem(t, i, v); err != nil {
			return nil, n.unsupported("%v", err)
		}
	}
	return []*Value{c.Const(t)}, nil
}
