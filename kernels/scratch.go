package kernels

import (
	"math/bits"

	"github.com/relaxgo/relaxgo/internal/freelist"
)

// scratchPools hold float32 scratch buffers by power-of-two capacity, so
// that kernels whose buffer sizes change from call to call (one network's
// layers) find one of the right class instead of replacing a pooled buffer
// that is too small.
var scratchPools [bits.UintSize]freelist.Affine[*[]float32]

// getScratch returns a pooled buffer of n floats (contents undefined).
func getScratch(n int) *[]float32 {
	c := bits.Len(uint(max(n, 1) - 1))
	if p := scratchPools[c].Get(); p != nil {
		*p = (*p)[:n]
		return p
	}
	s := make([]float32, n, 1<<c)
	return &s
}

// putScratch returns a buffer from getScratch to its pool.
func putScratch(p *[]float32) {
	scratchPools[bits.Len(uint(cap(*p)-1))].Put(p)
}
