package softshape

import (
	"fmt"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/softshape-go/softshape/internal/tensortest"
)

// TestTrimTapsKeepsTheUsefulTaps: over n tokens a kernel keeps its central
// min(k, 2n−1) taps, odd and centred, and kernels that fit are untouched.
func TestTrimTapsKeepsTheUsefulTaps(t *testing.T) {
	for _, tc := range []struct {
		n    int
		in   []int
		want []int
	}{
		{19, []int{39, 19, 9}, []int{37, 19, 9}}, // MiddlePhalanxTW's shapes
		{11, []int{39, 19, 9}, []int{21, 19, 9}}, // after its sparse layer's merge
		{5, []int{39, 19, 9}, []int{9, 9, 9}},
		{1, []int{7, 3, 1}, []int{1, 1, 1}},
		{60, []int{39, 19, 9}, []int{39, 19, 9}}, // ArrowHead: nothing to trim
	} {
		g := graph.NewGraph(testBackend(t), "trim")
		ws := make([]*graph.Node, len(tc.in))
		for i, k := range tc.in {
			ws[i] = graph.Zeros(g, shapes.Make(dtypes.Float32, k*2, 3)) // 2 channels
		}
		got, sizes := trimTaps(ws, tc.in, tc.n, 2)
		for i := range tc.in {
			if sizes[i] != tc.want[i] || got[i].Shape().Dimensions[0] != 2*tc.want[i] {
				t.Errorf("n=%d, kernel %d: %d taps (%s), want %d", tc.n, tc.in[i], sizes[i], got[i].Shape(), tc.want[i])
			}
		}
		g.Finalize()
	}
}

// TestInceptionTrimmedMatchesPlain: the Inception with trimTaps gives the
// plain Inception's output and gradients (input and every weight, the trimmed
// taps' zero included), in both layouts of the convolution windows, with the
// kernels longer than the sequence (ks=40 over 3–19 tokens) and not (ks=8).
// Leaving the taps out changes the length of the products' sums, not their
// nonzero terms, so the two agree to float32 rounding.
func TestInceptionTrimmedMatchesPlain(t *testing.T) {
	names := []string{"output", "d/dv", "d/dbottleneck", "d/dconv_0", "d/dconv_1", "d/dconv_2", "d/dpool_conv"}
	for _, tc := range []struct{ b, n, d, ks int }{{2, 19, 16, 40}, {2, 11, 16, 40}, {3, 3, 8, 40}, {2, 5, 16, 8}, {2, 1, 8, 8}} {
		for _, gather := range []bool{true, false} {
			t.Run(fmt.Sprintf("B%d_n%d_d%d_ks%d_gather=%t", tc.b, tc.n, tc.d, tc.ks, gather), func(t *testing.T) {
				store := model.NewStore()
				store.RootScope().SetParam(model.ParamInitialSeed, int64(7))
				plain := func(s *model.Scope, v *graph.Node, ks int) *graph.Node { return inceptionTaps(s, v, ks, gather, false) }
				trimmed := func(s *model.Scope, v *graph.Node, ks int) *graph.Node { return inceptionTaps(s, v, ks, gather, true) }
				exec, err := model.NewExec(testBackend(t), store, func(scope *model.Scope, v, r *graph.Node) []*graph.Node {
					return append(inceptionWithGradients(scope, v, r, tc.ks, plain), inceptionWithGradients(scope, v, r, tc.ks, trimmed)...)
				})
				if err != nil {
					t.Fatal(err)
				}
				outs, err := exec.Call(testSeries(tc.b, tc.n, tc.d), testWeighting(tc.b, tc.n, tc.d))
				if err != nil {
					t.Fatal(err)
				}
				k := len(names)
				for i, name := range names {
					want, got := outs[i], outs[k+i]
					tol := 1e-6 * max(1, tensortest.MaxAbs(want))
					if diff := tensortest.MaxAbsDiff(t, got, want); diff > tol {
						t.Errorf("%s differs from the plain form's by %.3g (tolerance %.3g)", name, diff, tol)
					}
				}
			})
		}
	}
}
