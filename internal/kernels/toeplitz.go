package kernels

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
)

// ToeplitzSameConvs computes what NestedSameConvs computes, the "same"
// convolutions of z [B, n, c] along axis 1 with the nested kernels ws[i]
// [k_i·c, o_i] (odd sizes, non-increasing, common centre), concatenated
// ([B, n, Σo_i]), as one product of each sample's tokens [B, n·c] with the
// kernels' block-Toeplitz matrix [n·c, n·Σo_i], whose block (j, i) holds the
// weights of the tap at which input token j meets output token i (zero where
// a kernel does not reach). It builds no windows: NestedSameConvs copies every
// token's window, and the input gradient's transposed windows, twice each on
// ONNX Runtime (a GatherND and the identity Transpose that compute-onnx
// wraps every gather in), and its products are narrower.
//
// It multiplies n·c·Σo_i per token, against Σ min(k_i, 2n−1)·c·o_i for the
// windows: fewer on short sequences, more on long ones (ToeplitzPays). The
// matrix is cut from the kernels' taps by Slices (its gradient: Pads and a
// sum), so it holds the weights exactly. The products sum over all n tokens
// at once, padding excluded, in another order than NestedSameConvs' windows:
// the two agree to float32 rounding, not bit for bit.
func ToeplitzSameConvs(z *Node, ws []*Node, kernels []int) *Node {
	dt := z.DType()
	b, n, c := z.Shape().Dimensions[0], z.Shape().Dimensions[1], z.Shape().Dimensions[2]
	zero := ScalarZero(z.Graph(), dt)
	// Only the central 2n−1 taps of any kernel ever meet a token; every kernel
	// is cut or zero-padded to the central kUse taps, side by side.
	kUse := min(kernels[0], 2*n-1)
	half := kUse / 2
	cols := make([]*Node, len(ws))
	width := 0
	for i, k := range kernels {
		o := ws[i].Shape().Dimensions[1]
		w := Reshape(ws[i], k, c*o)
		if k > kUse {
			first := (k - kUse) / 2
			w = Slice(w, AxisRange(first, first+kUse), AxisRange())
		} else if k < kUse {
			w = Pad(w, zero, PadAxis{Start: (kUse - k) / 2, End: (kUse - k) / 2}, PadAxis{})
		}
		cols[i] = Reshape(w, kUse, c, o)
		width += o
	}
	// Rows (tap, channel), with edge zero taps each side where the kernels
	// reach less far than the sequence is long.
	taps := Reshape(concatOrSingle(cols, 2), kUse*c, width)
	edge := max(0, n-1-half)
	if edge > 0 {
		taps = Pad(taps, zero, PadAxis{Start: edge * c, End: edge * c}, PadAxis{})
	}
	// Output token i meets input token j at tap j−i+half: its column block
	// is the n taps from half−i on.
	blocks := make([]*Node, n)
	for i := range n {
		first := (half - i + edge) * c
		blocks[i] = Slice(taps, AxisRange(first, first+n*c), AxisRange())
	}
	toeplitz := concatOrSingle(blocks, 1) // [(j, c), (i, o)]
	y := Dot(Reshape(z, b, n*c), toeplitz).Product()
	return Reshape(y, b, n, width)
}

// ToeplitzPays reports whether ToeplitzSameConvs multiplies no more than
// NestedSameConvs over n tokens with kernels of the given sizes (odd,
// non-increasing) and output widths: n·Σo_i ≤ Σ min(k_i, 2n−1)·o_i. For the
// Inception's 39, 19 and 9 taps of equal widths that is n ≤ 22:
// MiddlePhalanxTW's 19 tokens and its sparse layer's 11, not ArrowHead's 59
// and 31. Past it the saved copies did not pay for the extra products on
// ONNX Runtime (docs/performance.md, "Whole runs: where the time goes").
func ToeplitzPays(n int, kernels, widths []int) bool {
	toeplitz, windows := 0, 0
	for i, k := range kernels {
		toeplitz += n * widths[i]
		windows += min(k, 2*n-1) * widths[i]
	}
	return toeplitz <= windows
}
