package kernels

import (
	"github.com/gomlx/compute/gobackend"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
)

// MatMul2D multiplies the last axis of x by w [in, out], as one rank-2 product
// (the form every backend runs fastest), keeping the leading axes of x.
//
// On the pure-Go backend a product fewer than minProductWidth columns wide is
// computed with w padded by zero columns to that width, and the extra columns
// sliced off: GoMLX's kernel for small products (under 4 Mi multiply-adds)
// runs such narrow ones an order of magnitude slower than 8 columns (measured
// in docs/performance.md, "Why the kernels take their forms"). That is the attention
// score (1 column), the classifier (C) and the MoE router (Ĉ).
//
// Its gradient is written by hand (see WithGradient), as rank-2 products whose
// operands are already in the layout the pure-Go backend multiplies: GoMLX's own
// gradient of a product transposes the activations x [rows, in] once to
// compute the weight gradient, and the input gradient once more (an identity
// transpose that the pure-Go backend still copies element by element). Here
// only the smaller of x and the output gradient is transposed.
func MatMul2D(x, w *Node) *Node {
	dims := x.Shape().Dimensions
	in := dims[len(dims)-1]
	out := w.Shape().Dimensions[1]
	rows := x.Shape().Size() / in
	narrow := out < minProductWidth && OnPureGo(x.Graph())
	y := WithGradient([]*Node{Reshape(x, rows, in), w},
		func(xw []*Node) *Node {
			if !narrow {
				return Dot(xw[0], xw[1]).Product()
			}
			zero := ScalarZero(w.Graph(), w.DType())
			wide := Pad(xw[1], zero, PadAxis{}, PadAxis{End: minProductWidth - out})
			return Slice(Dot(xw[0], wide).Product(), AxisRange(), AxisRange(0, out))
		},
		func(xw []*Node, _, v *Node) []*Node {
			x, w := xw[0], xw[1]
			dx := Dot(v, Transpose(w, 0, 1)).Product() // [rows, in]
			var dw *Node                               // [in, out]
			if out <= in {
				dw = Transpose(Dot(Transpose(v, 0, 1), x).Product(), 0, 1)
			} else {
				dw = Dot(Transpose(x, 0, 1), v).Product()
			}
			return []*Node{dx, dw}
		})
	outDims := append(append([]int{}, dims[:len(dims)-1]...), out)
	return Reshape(y, outDims...)
}

// minProductWidth is the narrowest product MatMul2D runs unpadded on the
// pure-Go backend: one AVX2 register of float32.
const minProductWidth = 8

// AddBias adds b [out] to the last axis of x.
func AddBias(x, b *Node) *Node {
	rank := x.Rank()
	dims := make([]int, rank)
	for i := range dims {
		dims[i] = 1
	}
	dims[rank-1] = b.Shape().Dimensions[0]
	return Add(x, Reshape(b, dims...))
}

// BatchedMatMul multiplies x [G, B, K] by w [G, K, N] block by block into
// [G, B, N]. Its gradient is written by hand (see WithGradient) so that the
// only copy is one transpose of x for the weight gradient: the input gradient
// v·wᵀ is a product in the layout the pure-Go backend multiplies directly,
// where GoMLX's own gradient transposes the weights, the output gradient and
// an identity permutation of the result.
func BatchedMatMul(x, w *Node) *Node {
	return WithGradient([]*Node{x, w},
		func(in []*Node) *Node { return DotGeneral(in[0], []int{2}, []int{0}, in[1], []int{1}, []int{0}) },
		func(in []*Node, _, v *Node) []*Node {
			x, w := in[0], in[1]
			dx := DotGeneral(v, []int{2}, []int{0}, w, []int{2}, []int{0})                            // [G, B, K]
			dw := DotGeneral(TransposeAllDims(x, 0, 2, 1), []int{2}, []int{0}, v, []int{1}, []int{0}) // [G, K, N]
			return []*Node{dx, dw}
		})
}

// GathersFast reports whether the backend of g gathers natively: every backend
// but the pure-Go one, whose Gather copies element by element.
func GathersFast(g *Graph) bool { return !OnPureGo(g) }

// OnPureGo reports whether g is built for GoMLX's pure-Go backend, whose op
// costs differ enough from the others' that some layers choose another form
// there (GathersFast, expNegHalfSquare).
func OnPureGo(g *Graph) bool { return g.Backend().String() == gobackend.BackendName }
