package flops

import (
	"os"
	"strings"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/gobackend"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	timage "github.com/gomlx/gomlx/core/tensors/images"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/tensortest"
	"github.com/softshape-go/softshape/softshape"
)

// testBackend returns the backend tests run on (tensortest.Backend).
func testBackend(t testing.TB) compute.Backend { return tensortest.Backend(t) }

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
// for one 2·21·8·2 = 672: 6456. The speed forms (RunOptions.Fast) trim the
// 7-tap kernel to 5 (2n−1) taps, and then over 3 tokens the block-Toeplitz
// product multiplies no more than the windows (3·6 ≤ (5+3+1)·2,
// kernels.ToeplitzPays): one product [2, 3·2]×[3·2, 3·6], 2·2·18·6 = 432,
// in place of the three rings: 5040 in 9 products.
func TestFLOPsOfATinyModel(t *testing.T) {
	cfg := softshape.DefaultConfig()
	cfg.ShapeLength, cfg.Stride, cfg.EmbedDim, cfg.AttnDim, cfg.Depth, cfg.InceptionKernel = 4, "4", 8, 2, 1, 8
	m, err := softshape.New(cfg, 12, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Shape.NumShapes != 3 {
		t.Fatalf("J = %d shapes, want 3", m.Shape.NumShapes)
	}
	for _, phase := range []softshape.Phase{softshape.Dense, softshape.Sparse} { // one layer: the phases agree
		for _, tc := range []struct {
			training bool
			want     int64
		}{{false, 1696}, {true, 4704}} {
			got, err := UsefulFLOPs(m, 2, phase, tc.training)
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
		plain       bool
		want        int64
		dots, train int
	}{{true, 6456, 11, 32}, {false, 5040, 9, 26}} {
		m := m.WithFast(!tc.plain)
		store := model.NewStore()
		m.Config.Apply(store)
		gc, err := countStep(backend, store, m, 2, softshape.Dense, false)
		if err != nil {
			t.Fatal(err)
		}
		if gc.DotFLOPs != tc.want || gc.Dots != tc.dots {
			t.Errorf("inference graph, plain=%t: %d FLOPs in %d products, want %d in %d", tc.plain, gc.DotFLOPs, gc.Dots, tc.want, tc.dots)
		}
		train, err := countStep(backend, store, m, 2, softshape.Dense, true)
		if err != nil {
			t.Fatal(err)
		}
		// Two gradient products for every product but the embedding's, whose
		// input is the data: 11 + 10·2 + 1 (9 + 8·2 + 1 fast).
		if train.Dots != tc.train {
			t.Errorf("training graph, plain=%t: %d products, want %d", tc.plain, train.Dots, tc.train)
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

// TestCountGraphCountsConvolutions: a convolution (ConvGeneral, as the speed
// forms' kernels.ConvolveSameConvs builds them) counts 2 FLOPs per output
// element and kernel weight of its output channel, by hand: z [2, 3, 5]
// (channels first) with "same" kernels of 3 and 1 taps, 4 output channels
// each: 2·(2·4·5)·(3·3) + 2·(2·4·5)·(1·3) = 960, in 2 products.
func TestCountGraphCountsConvolutions(t *testing.T) {
	g := graph.NewGraph(testBackend(t), "conv")
	z := graph.Zeros(g, shapes.Make(dtypes.Float32, 2, 3, 5))
	var outs []*graph.Node
	for _, k := range []int{3, 1} {
		kernel := graph.Zeros(g, shapes.Make(dtypes.Float32, 4, 3, k)) // [out, in, taps]
		outs = append(outs, graph.Convolve(z, kernel).ChannelsAxis(timage.ChannelsFirst).PaddingPerDim([][2]int{{k / 2, k / 2}}).Done())
	}
	gc, err := CountGraph(outs...)
	if err != nil {
		t.Fatal(err)
	}
	if gc.DotFLOPs != 960 || gc.Dots != 2 {
		t.Errorf("%d FLOPs in %d products, want 960 in 2", gc.DotFLOPs, gc.Dots)
	}
	g.Finalize()
}

// TestSaveStepModelsNeedsONNXRuntime: on another backend SaveStepModels
// fails naming it, before writing anything.
func TestSaveStepModelsNeedsONNXRuntime(t *testing.T) {
	dir := t.TempDir()
	files, err := SaveStepModels(data.CBF(10, 64, 3), softshape.DefaultConfig(), softshape.RunOptions{Backend: testBackend(t), Seed: 1}, dir)
	if err == nil || !strings.Contains(err.Error(), "not ONNX Runtime") || !strings.Contains(err.Error(), testBackend(t).Name()) {
		t.Errorf("SaveStepModels on %s: error %v, want one naming the backend, not ONNX Runtime", testBackend(t).Name(), err)
	}
	if left, _ := os.ReadDir(dir); len(files) != 0 || len(left) != 0 {
		t.Errorf("SaveStepModels on %s returned %v and wrote %d files, want none", testBackend(t).Name(), files, len(left))
	}
}
