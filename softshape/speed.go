package softshape

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/model"
	"github.com/softshape-go/softshape/softshape/internal/kernels"
)

// The model's speed forms: graphs that compute what the plain model files
// compute with less work, chosen by RunOptions.Fast (Model.fast); the plain
// graphs are the default. Each has an equivalence test against the plain form
// (speed_test.go), and environment.md ("Whole runs: where the time goes")
// gives what each one saves.

// inceptionTrimmed is inception (the shared expert) with trimTaps: the same
// outputs and gradients.
func inceptionTrimmed(scope *model.Scope, v *Node, ks int) *Node {
	return inceptionTaps(scope, v, ks, kernels.GathersFast(v.Graph()), true)
}

// trimTaps leaves out the taps of "same" convolutions over n tokens that
// never meet a token: a kernel of k > 2n−1 taps reaches, from any token, at
// most n−1 tokens to either side, so its outer (k−(2n−1))/2 taps on each side
// multiply padding zeros only. Each kernel ws[i] [k_i·c, o] ([R, k_i·c, o]
// with a run axis; rows tap-major) keeps its central min(k_i, 2n−1) taps;
// the sizes stay odd, non-increasing and centred, as kernels.NestedSameConvs
// wants. The weights themselves keep their shape: their trimmed taps get a
// zero gradient, which is theirs (they only ever multiply zeros). On short
// sequences this removes most of the largest kernel: MiddlePhalanxTW's 19
// tokens keep 37 of its 39 taps, and 21 after the sparse layer's merge to 11.
func trimTaps(ws []*Node, sizes []int, n, c int) ([]*Node, []int) {
	limit := 2*n - 1
	out, outSizes := make([]*Node, len(ws)), make([]int, len(sizes))
	for i, k := range sizes {
		out[i], outSizes[i] = ws[i], k
		if k <= limit {
			continue
		}
		first := (k - limit) / 2
		rows := AxisRange(first*c, (first+limit)*c)
		if ws[i].Rank() == 3 { // a run axis
			out[i] = Slice(ws[i], AxisRange(), rows)
		} else {
			out[i] = Slice(ws[i], rows)
		}
		outSizes[i] = limit
	}
	return out, outSizes
}
