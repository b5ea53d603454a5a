package kernels

import (
	timage "github.com/gomlx/gomlx/core/tensors/images"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
)

// ConvolveSameConvs computes what NestedSameConvs computes, the "same"
// convolutions of z [B, n, c] along axis 1 with the nested kernels ws[i]
// [k_i·c, o_i] concatenated ([B, n, Σo_i]), with the backend's own
// convolution (GoMLX's Convolve, one per kernel; ONNX Runtime's Conv, which
// builds its windows in cache-sized pieces) on the channels-first layout
// [B, c, n], where compute-onnx lowers it with no transpose. Its gradients
// are GoMLX's, convolutions too. The sums run in the backend's order: it
// agrees with NestedSameConvs to float32 rounding, not bit for bit.
//
// On ONNX Runtime it trains ArrowHead's long sequences faster than the
// windows (docs/performance.md, "Whole runs: where the time goes"); the pure-Go
// backend's convolution is slower than its windows.
func ConvolveSameConvs(z *Node, ws []*Node, kernels []int) *Node {
	c := z.Shape().Dimensions[2]
	zt := TransposeAllDims(z, 0, 2, 1) // [B, c, n]
	outs := make([]*Node, len(kernels))
	for i, k := range kernels {
		o := ws[i].Shape().Dimensions[1]
		kernel := TransposeAllDims(Reshape(ws[i], k, c, o), 2, 1, 0) // [o, c, k]
		outs[i] = Convolve(zt, kernel).ChannelsAxis(timage.ChannelsFirst).PaddingPerDim([][2]int{{k / 2, k / 2}}).Done()
	}
	return TransposeAllDims(concatOrSingle(outs, 1), 0, 2, 1) // [B, n, Σo]
}
