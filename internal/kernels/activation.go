package kernels

import (
	"math"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
)

// RMSNorm is the authors' RMSNorm: x / max(‖x‖₂, 1e-12) · √d · γ over the
// last axis of x, with gamma [d]; or, for runs side by side along axis 0 of x
// (R equal blocks of rows), gamma [R, d], one gain per run.
//
// Its gradient is written by hand (see WithGradient): the same values as GoMLX's
// differentiation of the forward ops, in about half the element-wise passes
// over x (with r = max(‖x‖, 1e-12), x̂ = x/r, u = v·√d·γ:
// dx = (u − x̂·Σu·x̂)/r, the second term only where ‖x‖² ≥ 1e-24, and
// dγ = √d·Σ v·x̂ over the tokens).
func RMSNorm(x, gamma *Node) *Node {
	g := x.Graph()
	d := x.Shape().Dimensions[x.Rank()-1]
	scale := math.Sqrt(float64(d))
	var sumSq, norm, normed *Node // forward values the gradient reuses
	return WithGradient([]*Node{x, gamma},
		func(in []*Node) *Node {
			// max(‖x‖, 1e-12) computed as √max(‖x‖², 1e-24): the same value, but an
			// all-zero token (e.g. the fused token when nothing was merged) gets a zero
			// gradient instead of 0·∞ = NaN from √ at 0.
			sumSq = ReduceAndKeep(Square(in[0]), ReduceSum, -1)
			norm = Sqrt(MaxScalar(sumSq, 1e-24))
			normed = Div(in[0], norm) // x̂
			return mulGain(MulScalar(normed, scale), in[1])
		},
		func(in []*Node, _, v *Node) []*Node {
			u := MulScalar(mulGain(v, in[1]), scale)
			along := ReduceAndKeep(Mul(u, normed), ReduceSum, -1)
			// The norm's own gradient is zero where the floor 1e-24 is taken.
			along = Mul(along, ConvertDType(GreaterOrEqual(sumSq, Scalar(g, x.DType(), 1e-24)), x.DType()))
			dx := Div(Sub(u, Mul(normed, along)), norm)
			var dGamma *Node
			if gamma.Rank() == 1 {
				dGamma = MulScalar(ReduceSum(Reshape(Mul(v, normed), -1, d), 0), scale)
			} else {
				dGamma = MulScalar(ReduceSum(Reshape(Mul(v, normed), gamma.Shape().Dimensions[0], -1, d), 1), scale)
			}
			return []*Node{dx, dGamma}
		})
}

// mulGain multiplies x by the gain v along its last axis: v [d], or v [R, d]
// with x's rows in R blocks along axis 0, block i by row i.
func mulGain(x, v *Node) *Node {
	if v.Rank() == 1 {
		return mulLastAxis(x, v)
	}
	r, d := v.Shape().Dimensions[0], v.Shape().Dimensions[1]
	return Reshape(Mul(Reshape(x, r, -1, d), Reshape(v, r, 1, d)), x.Shape().Dimensions...)
}

// mulLastAxis multiplies x by v [d] along its last axis.
func mulLastAxis(x, v *Node) *Node {
	dims := make([]int, x.Rank())
	for i := range dims {
		dims[i] = 1
	}
	dims[x.Rank()-1] = v.Shape().Dimensions[0]
	return Mul(x, Reshape(v, dims...))
}

// GELU is the exact (erf) GELU, as torch.nn.GELU(): x·Φ(x). Its gradient is
// written by hand (see WithGradient) as v·(Φ(x) + x·φ(x)), reusing the forward's
// Φ(x): GoMLX's fused GELU keeps no Φ, so its gradient (the decomposed formula,
// differentiated op by op) evaluates erf again — on the pure-Go backend erf
// costs as much as all the other element-wise passes of a GELU together.
func GELU(x *Node) *Node {
	var cdf *Node
	return WithGradient([]*Node{x},
		func(in []*Node) *Node {
			cdf = normalCDF(in[0])
			return Mul(in[0], cdf)
		},
		func(in []*Node, _, v *Node) []*Node { return []*Node{geluGradient(in[0], cdf, v)} })
}

// normalCDF is Φ(x) = ½(1 + erf(x/√2)), computed as GoMLX's fused GELU does
// (so x·Φ(x) equals it bit for bit on the pure-Go backend).
func normalCDF(x *Node) *Node {
	return MulScalar(OnePlus(Erf(MulScalar(x, 1/math.Sqrt2))), 0.5)
}

// geluGradient is v·GELU'(x) = v·(Φ(x) + x·φ(x)), given cdf = Φ(x); φ is the
// standard normal density.
func geluGradient(x, cdf, v *Node) *Node {
	pdf := MulScalar(expNegHalfSquare(x), 1/math.Sqrt(2*math.Pi))
	return Mul(v, Add(cdf, Mul(x, pdf)))
}

// expNegHalfSquare is exp(−x²/2). On the pure-Go backend it is computed as
// 1/(1 + expm1(x²/2)), which is the same value to float32 precision at every x
// (the reciprocal keeps the relative precision of the far tail, and overflow
// gives the limit 0), because that backend's Exp, Go's math.Exp assembly,
// measured pathologically slow inside a training step, and most of all when
// two runs share the cores, while math.Expm1 (compiled Go) showed no such
// cost; the cause was not found (docs/performance.md, "Speed, and what to
// compare it with"). Other backends use Exp.
func expNegHalfSquare(x *Node) *Node {
	half := MulScalar(Square(x), 0.5)
	if OnPureGo(x.Graph()) {
		return Inverse(OnePlus(Expm1(half)))
	}
	return Exp(Neg(half))
}

// InstanceNormGELU is GELU(instance norm of y [B, n, d] over the tokens, ε = 1e-5,
// no affine parameters). Its gradient is written by hand (see WithGradient), in
// fewer element-wise passes than GoMLX's differentiation of the two: with
// ŷ = (y − mean)/std and g = v·GELU'(ŷ), dy = (g − mean(g) − ŷ·mean(g·ŷ))/std,
// the means over the tokens.
func InstanceNormGELU(y *Node) *Node {
	var std, normed, cdf *Node // forward values the gradient reuses
	return WithGradient([]*Node{y},
		func(in []*Node) *Node {
			mean := ReduceAndKeep(in[0], ReduceMean, 1)
			centred := Sub(in[0], mean)
			variance := ReduceAndKeep(Square(centred), ReduceMean, 1)
			std = Sqrt(AddScalar(variance, 1e-5))
			normed = Div(centred, std)
			cdf = normalCDF(normed)
			return Mul(normed, cdf)
		},
		func(_ []*Node, _, v *Node) []*Node {
			gr := geluGradient(normed, cdf, v)
			meanG := ReduceAndKeep(gr, ReduceMean, 1)
			meanGY := ReduceAndKeep(Mul(gr, normed), ReduceMean, 1)
			return []*Node{Div(Sub(Sub(gr, meanG), Mul(normed, meanGY)), std)}
		})
}
