package softshape

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/model"
	"github.com/softshape-go/softshape/internal/kernels"
)

// The model's speed forms: graphs that compute what the plain model files
// compute with less work, chosen by Build.Fast (RunOptions.Fast); the plain
// graphs are the default. Each has an equivalence test against the plain form
// (speed_test.go), and docs/performance.md ("Whole runs: where the time goes")
// gives what each one saves.

// inceptionFast is inception (the shared expert) with its convolutions in
// fastSameConvs' forms: the same outputs and gradients to float32 rounding.
func (b Build) inceptionFast(scope *model.Scope, v *Node, ks int) *Node {
	return b.inceptionWith(scope, v, ks, b.fastSameConvs)
}

// fastSameConvs computes the Inception's "same" convolutions (sameConvs) in
// the form that is fastest for the sequence and the backend, as measured on
// ONNX Runtime with one thread (docs/performance.md, "Whole runs: where the time
// goes"): the taps that only meet padding left out (trimTaps); then the
// block-Toeplitz product on short sequences, where it multiplies no more
// than the windows (kernels.ToeplitzPays: MiddlePhalanxTW's 19 and 11
// tokens); else the backend's own convolution (ArrowHead's 59 and 31 tokens
// on ONNX Runtime), except on pure Go, whose convolution ran the Inception
// ≈20× slower than its windows; else, and with a run axis, the windows of
// the plain form.
func (b Build) fastSameConvs(z *Node, ws []*Node, sizes []int) *Node {
	g := z.Graph()
	n, c := z.Shape().Dimensions[1], z.Shape().Dimensions[2]
	ws, sizes = trimTaps(ws, sizes, n, c)
	if ws[0].Rank() == 2 { // no run axis
		widths := make([]int, len(ws))
		for i, w := range ws {
			widths[i] = w.Shape().Dimensions[1]
		}
		if kernels.ToeplitzPays(n, sizes, widths) {
			return kernels.ToeplitzSameConvs(z, ws, sizes)
		}
		if !kernels.OnPureGo(g) {
			return kernels.ConvolveSameConvs(z, ws, sizes)
		}
	}
	return b.sameConvs(z, ws, sizes, kernels.GathersFast(g))
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

// WithFast returns a copy of m that builds the speed forms when fast is true
// (as RunOptions.Fast does), the plain graphs otherwise.
func (m *Model) WithFast(fast bool) *Model {
	c := *m
	c.Fast = fast
	return &c
}
