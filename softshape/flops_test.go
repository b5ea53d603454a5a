package softshape

import (
	"testing"

	"github.com/gomlx/compute/gobackend"
	"github.com/gomlx/gomlx/ml/model"
)

// TestFLOPsOfATinyModel checks both FLOP counts on a model small enough to
// count by hand: T=12, m=q=4 (J=3 shapes), d=8 (Inception bottleneck nf=2),
// d_attn=2, C=2, one layer (no merge, no MoE), Inception kernels 7, 3, 1;
// batch B=2, so 6 tokens.
//
// Useful forward: embedding 2·6·4·8 = 384; attention twice (the layer's
// scores and the pooling's), 2·6·(8·2 + 2·1) = 216 each; bottleneck and
// pooled branch 2·6·8·2 = 192 each; the convolutions' (token, tap) pairs over
// 3 tokens 9 + 7 + 3 = 19, 2·B·19·2·2 = 304; head 2·6·8·2 = 192: 1696.
// Training adds the weights' gradients (1696) and the inputs' but the
// series' (1696 − 384): 4704.
//
// The pure-Go inference graph, 11 products: products narrower than 8 columns
// are padded to 8 (kernels.MatMul2D): attention 2·6·8·8 + 2·6·2·8 = 960
// each, bottleneck, pooled branch and head 2·6·8·8 = 768 each, embedding
// 384; the convolutions' Pad layout (pad 3) multiplies 21 rows
// (3 + 2·(3+3) + 6) by the rings' taps: the centre tap for 3 kernels
// 2·21·2·6 = 504, the next two for 2 kernels 2·21·4·4 = 672, the outer four
// for one 2·21·8·2 = 672: 6456. With trimTaps the 7-tap kernel keeps 5
// (2n−1) taps, pad 2: 16 rows (2 + 2·(3+2) + 4), 2·16·2·6 = 384,
// 2·16·4·4 = 512, the outer two 2·16·4·2 = 256: 5760.
func TestFLOPsOfATinyModel(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ShapeLength, cfg.Stride, cfg.EmbedDim, cfg.AttnDim, cfg.Depth, cfg.InceptionKernel = 4, "4", 8, 2, 1, 8
	m, err := New(cfg, 12, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Shape.NumShapes != 3 {
		t.Fatalf("J = %d shapes, want 3", m.Shape.NumShapes)
	}
	for _, phase := range []Phase{Dense, Sparse} { // one layer: the phases agree
		for _, tc := range []struct {
			training bool
			want     int64
		}{{false, 1696}, {true, 4704}} {
			got, err := m.UsefulFLOPs(2, phase, tc.training)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("useful FLOPs, %s phase, training=%t: %d, want %d", phase, tc.training, got, tc.want)
			}
		}
	}
	backend := testBackend(t)
	if backend.String() != gobackend.BackendName {
		t.Skipf("the graph's count is checked by hand on pure Go; the backend is %s", backend.Name())
	}
	for _, tc := range []struct {
		plain bool
		want  int64
	}{{true, 6456}, {false, 5760}} {
		m.fast = !tc.plain
		store := model.NewStore()
		m.Config.Apply(store)
		gc, err := countStep(backend, store, m, 2, Dense, false)
		if err != nil {
			t.Fatal(err)
		}
		if gc.DotFLOPs != tc.want || gc.Dots != 11 {
			t.Errorf("inference graph, plain=%t: %d FLOPs in %d products, want %d in 11", tc.plain, gc.DotFLOPs, gc.Dots, tc.want)
		}
		train, err := countStep(backend, store, m, 2, Dense, true)
		if err != nil {
			t.Fatal(err)
		}
		// Two gradient products for every product but the embedding's, whose
		// input is the data: 11 + 10·2 + 1.
		if train.Dots != 32 {
			t.Errorf("training graph, plain=%t: %d products, want 32", tc.plain, train.Dots)
		}
	}
}

// TestUsefulTaps: the (token, tap) pairs of a "same" convolution that meet a
// token, by hand.
func TestUsefulTaps(t *testing.T) {
	for _, tc := range []struct {
		n, k int
		want int64
	}{
		{3, 7, 9},         // every pair of 3 tokens
		{3, 3, 7},         // 3 + 2·2
		{3, 1, 3},         // the centre only
		{19, 39, 19 * 19}, // a kernel longer than 2n−1 meets every pair once
		{19, 9, 19 + 2*(18+17+16+15)},
	} {
		if got := usefulTaps(tc.n, tc.k); got != tc.want {
			t.Errorf("usefulTaps(%d, %d) = %d, want %d", tc.n, tc.k, got, tc.want)
		}
	}
}
