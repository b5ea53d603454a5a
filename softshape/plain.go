package softshape

import (
	"math"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/softshape-go/softshape/internal/kernels"
)

// The plain forms of the layers whose kernels (internal/kernels) have a
// hand-written gradient: the same maths as plain GoMLX ops, differentiated by
// GoMLX, kept beside the model as nanoGPT keeps its plain attention beside the
// flash one. The kernels are the default; Build.Plain builds the plain forms
// instead. Tests compare the two (plain_test.go). The plain form of the
// Inception's convolutions (kernels.NestedSameConvs), their windows, is
// sameConvs' (runaxis.go).

// matMul2DOf multiplies the last axis of x by w [in, out]: kernels.MatMul2D,
// or with plain GoMLX's DotGeneral.
func matMul2DOf(x, w *Node, plain bool) *Node {
	if !plain {
		return kernels.MatMul2D(x, w)
	}
	return DotGeneral(x, []int{x.Rank() - 1}, nil, w, []int{0}, nil)
}

// batchedMatMulOf multiplies x [G, B, K] by w [G, K, N] block by block into
// [G, B, N]: kernels.BatchedMatMul, or with plain GoMLX's DotGeneral.
func batchedMatMulOf(x, w *Node, plain bool) *Node {
	if !plain {
		return kernels.BatchedMatMul(x, w)
	}
	return DotGeneral(x, []int{2}, []int{0}, w, []int{1}, []int{0})
}

// rmsNormOf is RMSNorm with gain gamma ([d], or [R, d] with a run axis):
// kernels.RMSNorm, or with plain its plain form.
func rmsNormOf(x, gamma *Node, plain bool) *Node {
	if !plain {
		return kernels.RMSNorm(x, gamma)
	}
	// x / max(‖x‖, 1e-12) as x / √max(‖x‖², 1e-24): the floor's gradient is
	// zero, so an all-zero token gets no NaN from √ at 0.
	d := x.Shape().Dimensions[x.Rank()-1]
	norm := Sqrt(MaxScalar(ReduceAndKeep(Square(x), ReduceSum, -1), 1e-24))
	y := MulScalar(Div(x, norm), math.Sqrt(float64(d)))
	if gamma.Rank() == 1 {
		return Mul(y, ExpandLeftToRank(gamma, y.Rank()))
	}
	r := gamma.Shape().Dimensions[0] // rows of x in R blocks along axis 0
	return Reshape(Mul(Reshape(y, r, -1, d), Reshape(gamma, r, 1, d)), x.Shape().Dimensions...)
}

// geluOf is the exact (erf) GELU: kernels.GELU, or with plain GoMLX's own.
func geluOf(x *Node, plain bool) *Node {
	if plain {
		return activation.Gelu(x)
	}
	return kernels.GELU(x)
}

// maxPool3Of is MaxPool1d(3, stride 1, padding 1) over axis 1 of x [B, n, c]:
// kernels.MaxPool3, or with plain the maximum of x and its copies shifted by
// one token each way (the end tokens standing in for the −∞ padding, which
// gives the same maxima).
func maxPool3Of(x *Node, plain bool) *Node {
	if !plain {
		return kernels.MaxPool3(x)
	}
	n := x.Shape().Dimensions[1]
	if n == 1 {
		return x
	}
	prev := Concatenate([]*Node{Slice(x, AxisRange(), AxisRange(0, 1)), Slice(x, AxisRange(), AxisRange(0, n-1))}, 1)
	next := Concatenate([]*Node{Slice(x, AxisRange(), AxisRange(1, n)), Slice(x, AxisRange(), AxisRange(n-1, n))}, 1)
	return Max(Max(prev, x), next)
}

// instanceNormGELUOf is GELU(instance norm of y): kernels.InstanceNormGELU, or
// with plain instanceNorm then GoMLX's GELU.
func instanceNormGELUOf(y *Node, plain bool) *Node {
	if plain {
		return activation.Gelu(instanceNorm(y))
	}
	return kernels.InstanceNormGELU(y)
}
