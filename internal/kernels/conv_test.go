package kernels

import (
	"fmt"
	"testing"

	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"

	"github.com/softshape-go/softshape/internal/tensortest"
)

// TestNestedSameConvsMatchConvolve: NestedSameConvs, in both layouts of its
// windows, equals GoMLX's built-in Convolve (cross-correlation, padding
// (k−1)/2 each side: PyTorch's Conv1d), and its hand-written gradients with
// respect to the input and every kernel equal GoMLX's gradients of Convolve.
// So do the speed forms ToeplitzSameConvs (on every case, short sequences or
// not) and ConvolveSameConvs (channels first).
// The model's own check, softshape's TestInceptionMatchesConvolve, compares
// the whole Inception module built on it.
func TestNestedSameConvsMatchConvolve(t *testing.T) {
	for _, tc := range []struct {
		b, n, c int
		sizes   []int
	}{
		{2, 11, 4, []int{7, 3, 1}},
		{2, 5, 4, []int{7, 3, 1}},    // n shorter than the largest kernel
		{2, 11, 4, []int{39, 19, 9}}, // every kernel but the smallest longer than n
		{3, 1, 2, []int{7, 3, 1}},    // a single token
		{2, 6, 2, []int{3, 1, 1}},    // two kernels of the same size
		{2, 4, 2, []int{1, 1, 1}},
	} {
		t.Run(fmt.Sprintf("B%d_n%d_c%d_k%v", tc.b, tc.n, tc.c, tc.sizes), func(t *testing.T) {
			numK := len(tc.sizes)
			exec, err := graph.NewExec(testBackend(t), func(z, r *graph.Node) []*graph.Node {
				g := z.Graph()
				ws := make([]*graph.Node, numK)
				for i, k := range tc.sizes { // kernel i: [k·c, c], im2col order
					w := graph.Iota(g, shapes.Make(z.DType(), k*tc.c, tc.c), 0)
					w = graph.Add(w, graph.MulScalar(graph.Iota(g, w.Shape(), 1), 0.31*float64(i+1)))
					ws[i] = graph.Sin(graph.MulScalar(w, 0.9))
				}
				forms := []func(z *graph.Node, ws []*graph.Node) *graph.Node{
					func(z *graph.Node, ws []*graph.Node) *graph.Node { return NestedSameConvs(z, ws, tc.sizes, true) },
					func(z *graph.Node, ws []*graph.Node) *graph.Node { return NestedSameConvs(z, ws, tc.sizes, false) },
					func(z *graph.Node, ws []*graph.Node) *graph.Node { return ToeplitzSameConvs(z, ws, tc.sizes) },
					func(z *graph.Node, ws []*graph.Node) *graph.Node { return ConvolveSameConvs(z, ws, tc.sizes) },
					func(z *graph.Node, ws []*graph.Node) *graph.Node {
						outs := make([]*graph.Node, numK)
						for i, k := range tc.sizes {
							kernel := graph.Reshape(ws[i], k, tc.c, tc.c)
							outs[i] = graph.Convolve(z, kernel).PaddingPerDim([][2]int{{(k - 1) / 2, (k - 1) / 2}}).Done()
						}
						return graph.Concatenate(outs, 2)
					},
				}
				var outs []*graph.Node
				for _, form := range forms {
					y := form(z, ws)
					loss := graph.ReduceAllSum(graph.Mul(y, r))
					outs = append(outs, y)
					outs = append(outs, graph.Gradient(loss, append([]*graph.Node{z}, ws...)...)...)
				}
				return outs
			})
			if err != nil {
				t.Fatal(err)
			}
			outs, err := exec.Exec(tensortest.Series(tc.b, tc.n, tc.c), tensortest.Weighting(tc.b, tc.n, numK*tc.c))
			if err != nil {
				t.Fatal(err)
			}
			per := 2 + numK
			names := []string{"Gather layout", "Pad layout", "Toeplitz", "ConvolveSameConvs"}
			ref := outs[len(names)*per:]
			for f, form := range names {
				for i := range per {
					got, want := outs[f*per+i], ref[i]
					if diff := tensortest.MaxAbsDiff(t, got, want); diff > 1e-5*max(1, tensortest.MaxAbs(want)) {
						t.Errorf("%s: value %d (output, d/dz, d/dw_i) differs from Convolve's by %.3g", form, i, diff)
					}
				}
			}
		})
	}
}
