package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/relaxgo/relaxgo/asm"
	"github.com/relaxgo/relaxgo/runtime"
)

// TestConvWinogradMatchesDirect runs 3x3 stride-1 convolutions with
// registered constant weights, which take the Winograd path, against a
// float64 direct convolution: every output within a bound scaled by the sum
// of |x*w| over its window (the transforms reorder the sums), odd and even
// output sizes (tiles cut at the last row and column), two images, a chain
// after it (bias and relu, applied to the Winograd result), at every level
// and at 1 and 2 threads with the same bits; the same weights unregistered
// take the direct path, whose bits differ (so the path was taken).
func TestConvWinogradMatchesDirect(t *testing.T) {
	defer SetNumThreads(0)
	start := asm.CurrentLevel()
	defer func() { _ = asm.SetLevel(start) }()
	// Fewer than winoMinIn input channels take the direct path at every
	// level (in a model it ran faster than F(4x4) from 16), as do fewer
	// than winoMinOut output channels.
	g16 := convGeomFor(16, 64, 55, 55, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1)
	for l := asm.LevelGo; l <= asm.MaxLevel(); l++ {
		if err := asm.SetLevel(l); err != nil {
			t.Fatal(err)
		}
		if winoOK(&g16) {
			t.Errorf("level %v: 16 -> 64 3x3 on 55² takes the Winograd path", l)
		}
		// Nor fewer than winoMinOut output channels (DenseNet's growth layers).
		if g32 := convGeomFor(128, 32, 56, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1); winoOK(&g32) {
			t.Errorf("level %v: 128 -> 32 3x3 on 56² takes the Winograd path", l)
		}
		// Fewer than winoFewIn input channels on planes of fewer than
		// winoFewTiles4 tiles (SqueezeNet's 32->128 on 27²) neither; on a
		// large plane (Inception-v3's 32->64 on 147²) they do.
		if few := convGeomFor(32, 128, 27, 27, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1); winoOK(&few) {
			t.Errorf("level %v: 32 -> 128 3x3 on 27² takes the Winograd path", l)
		}
		if big := convGeomFor(32, 64, 147, 147, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1); !winoOK(&big) {
			t.Errorf("level %v: 32 -> 64 3x3 on 147² does not take the Winograd path", l)
		}
	}
	r := rand.New(rand.NewSource(3))
	for _, c := range []struct {
		n, c, o, h, w  int
		pt, pl, pb, pr int
	}{
		{1, 48, 64, 14, 14, 1, 1, 1, 1}, {2, 49, 72, 15, 13, 1, 1, 1, 1}, {1, 48, 64, 13, 30, 1, 1, 1, 1}, // F(2x2, 3x3)
		{1, 64, 80, 28, 28, 1, 1, 1, 1}, {1, 48, 64, 56, 57, 1, 1, 1, 1}, {2, 48, 72, 29, 30, 1, 1, 1, 1}, {1, 48, 64, 31, 33, 1, 1, 1, 1}, {1, 50, 65, 27, 34, 1, 1, 1, 1}, // F(4x4, 3x3): every cut of the last tiles
		{1, 48, 64, 112, 113, 1, 1, 1, 1}, // blocks of tile rows
		// Other paddings: none (a valid convolution, Inception-v3's), on
		// one side only, two, for both tile sizes and cut last tiles.
		{1, 48, 64, 16, 17, 0, 0, 0, 0}, {2, 48, 64, 15, 14, 0, 1, 1, 0}, {1, 48, 64, 13, 14, 2, 2, 2, 2},
		{1, 48, 64, 73, 73, 0, 0, 0, 0}, {1, 48, 64, 30, 31, 1, 0, 0, 1}, {1, 48, 64, 29, 28, 2, 0, 1, 2}, {1, 48, 64, 58, 59, 0, 0, 0, 0},
	} {
		g := convGeomFor(c.c, c.o, c.h, c.w, 3, 3, 1, 1, 1, 1, c.pt, c.pl, c.pb, c.pr)
		oh, ow := g.oh, g.ow
		// The path and tile as the Go level chooses them (the thresholds
		// are the same at every level; a level choosing another path for
		// the shape would be skipped below).
		if err := asm.SetLevel(asm.LevelGo); err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprintf("%dx%d_%dx%dx%d_pad%d%d%d%d_F%d", c.c, c.o, c.n, c.h, c.w, c.pt, c.pl, c.pb, c.pr, winoTile(&g)), func(t *testing.T) {
			x := randT(t, r.Int63(), []int64{int64(c.n), int64(c.c), int64(c.h), int64(c.w)}, f32, -1, 1)
			w := randT(t, r.Int63(), []int64{int64(c.o), int64(c.c), 3, 3}, f32, -1, 1)
			bias := randT(t, r.Int63(), []int64{1, int64(c.o), 1, 1}, f32, -0.5, 0.5)
			g.n = c.n
			if !winoOK(&g) {
				t.Fatal("geometry does not take the Winograd path")
			}
			fused, _ := runtime.Lookup(Conv2DChainKernel)
			shape := []int64{int64(c.n), int64(c.o), int64(oh), int64(ow)}
			run := func() *runtime.Tensor {
				out := mustT(t, shape, f32)
				args := []runtime.Value{x, w, runtime.Shape{1, 1}, runtime.Shape{int64(c.pt), int64(c.pl), int64(c.pb), int64(c.pr)}, runtime.Shape{1, 1}, int64(1),
					"NCHW", "OIHW", "NCHW", runtime.Float32, runtime.Shape{0, EwChainRelu}, bias, out}
				if _, err := fused(args); err != nil {
					t.Fatal(err)
				}
				return out
			}
			direct := run().Float32s()
			RegisterConstant(w)
			defer UnregisterConstant(w)
			var want []float32
			for l := asm.LevelGo; l <= asm.MaxLevel(); l++ {
				if err := asm.SetLevel(l); err != nil {
					t.Fatal(err)
				}
				if !winoOK(&g) {
					continue
				}
				for _, th := range []int{1, 2} {
					SetNumThreads(th)
					got := run().Float32s()
					if want == nil {
						want = got
						continue
					}
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("level %v threads %d [%d]: %v, first run %v", l, th, i, got[i], want[i])
						}
					}
				}
			}
			xs, ws, bs := x.Float32s(), w.Float32s(), bias.Float32s()
			differs := false
			for i := range want {
				ox := i % ow
				oy := (i / ow) % oh
				o := (i / (ow * oh)) % c.o
				n := i / (ow * oh * c.o)
				var ref, mag float64
				for ci := 0; ci < c.c; ci++ {
					for a := 0; a < 3; a++ {
						for b := 0; b < 3; b++ {
							ih, iw := oy+a-c.pt, ox+b-c.pl
							if ih < 0 || ih >= c.h || iw < 0 || iw >= c.w {
								continue
							}
							p := float64(xs[((n*c.c+ci)*c.h+ih)*c.w+iw]) * float64(ws[((o*c.c+ci)*3+a)*3+b])
							ref += p
							mag += math.Abs(p)
						}
					}
				}
				ref = math.Max(ref+float64(bs[o]), 0)
				if d := math.Abs(float64(want[i]) - ref); d > 1e-5*(mag+1) {
					t.Fatalf("[%d] (n %d, o %d, %d, %d): %v, float64 reference %v (|diff| %g, sum |x*w| %g)", i, n, o, oy, ox, want[i], ref, d, mag)
				}
				differs = differs || want[i] != direct[i]
			}
			if !differs {
				t.Error("the registered weights gave the direct path's bits: the Winograd path was not taken")
			}
			if !raceEnabled {
				// A warm call allocates nothing (a PackedB per product
				// once escaped into the pooled GEMM job).
				if err := asm.SetLevel(start); err != nil {
					t.Fatal(err)
				}
				out := mustT(t, shape, f32)
				args := []runtime.Value{x, w, runtime.Shape{1, 1}, runtime.Shape{int64(c.pt), int64(c.pl), int64(c.pb), int64(c.pr)}, runtime.Shape{1, 1}, int64(1),
					"NCHW", "OIHW", "NCHW", runtime.Float32, runtime.Shape{0, EwChainRelu}, bias, out}
				// One thread: worker scratch pools may refill at two.
				SetNumThreads(1)
				if n := testing.AllocsPerRun(5, func() { _, _ = fused(args) }); n != 0 {
					t.Errorf("%v allocations per call, want 0", n)
				}
			}
		})
	}
}
