package softshape

import (
	"math"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
)

// Building blocks of the model, each with the initialisation of the authors'
// PyTorch code (reference notes §1 "Init"):
//   - nn.Linear: fastai's approximate truncated normal, normal().fmod(2)·0.02, bias 0;
//   - nn.Conv1d: PyTorch's default kaiming-uniform(a=√5), i.e. U(±1/√fan_in), bias likewise.

// truncNormalInit is fastai's trunc_normal_: x ~ N(0,1), x = fmod(x, 2)·std.
func truncNormalInit(scope *model.Scope, std float64) model.VariableInitializer {
	return func(g *Graph, shape shapes.Shape) *Node {
		x := scope.RandomNormal(g, shape)
		// fmod(x, 2) keeps the sign of x: x − 2·trunc(x/2).
		half := DivScalar(x, 2)
		trunc := Mul(Sign(half), Floor(Abs(half)))
		x = Sub(x, MulScalar(trunc, 2))
		return MulScalar(x, std)
	}
}

// uniformInit draws from U(−bound, bound).
func uniformInit(scope *model.Scope, bound float64) model.VariableInitializer {
	return func(g *Graph, shape shapes.Shape) *Node {
		x := scope.RandomUniform(g, shape)
		return AddScalar(MulScalar(x, 2*bound), -bound)
	}
}

func zeroInit(g *Graph, shape shapes.Shape) *Node { return Zeros(g, shape) }
func oneInit(g *Graph, shape shapes.Shape) *Node  { return Ones(g, shape) }

// matmul2D multiplies the last axis of x by w [in, out], as one rank-2 product
// (the form every backend runs fastest), keeping the leading axes of x.
//
// On the pure-Go backend a product fewer than minProductWidth columns wide is
// computed with w padded by zero columns to that width, and the extra columns
// sliced off: GoMLX's kernel for small products (under 4 Mi multiply-adds) ran
// such narrow ones 10–20× slower than 8 columns, measured on 2 cores with
// GOEXPERIMENT=simd ([4000,128]×[128,3] 18 ms, ×[128,8] 1.7 ms). That is the
// attention score (1 column), the classifier (C) and the MoE router (Ĉ).
//
// Its gradient is written by hand (see withGradient), as rank-2 products whose
// operands are already in the layout the pure-Go backend multiplies: GoMLX's own
// gradient of a product transposes the activations x [rows, in] once to
// compute the weight gradient, and the input gradient once more (an identity
// transpose that the pure-Go backend still copies element by element). Here
// only the smaller of x and the output gradient is transposed.
func matmul2D(x, w *Node) *Node {
	dims := x.Shape().Dimensions
	in := dims[len(dims)-1]
	out := w.Shape().Dimensions[1]
	rows := x.Shape().Size() / in
	narrow := out < minProductWidth && onPureGo(x.Graph())
	y := withGradient([]*Node{Reshape(x, rows, in), w},
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

// minProductWidth is the narrowest product matmul2D runs unpadded on the
// pure-Go backend: one AVX2 register of float32.
const minProductWidth = 8

// withGradient returns f(xs) with a hand-written gradient: grad(xs, y, v)
// returns the gradient with respect to each of xs given v, the gradient with
// respect to the result y. Automatic differentiation would differentiate f op by
// op; where that is wasteful on a backend (transposes, scatter-adds, slices of
// large intermediates), grad can say the same more cheaply. f and grad receive
// identities of xs (the same values; their gradients are the ones replaced).
//
// It relies on reverse-mode differentiation visiting a node after every node
// that consumes it (GoMLX walks the nodes in reverse creation order): the
// result's adjoint is captured first, and each input's custom gradient then
// reads it, ignoring the adjoint GoMLX built through f, which is left unused
// and never executed (both backends drop nodes no output needs). grad is
// called at most once per Gradient.
func withGradient(xs []*Node, f func(xs []*Node) *Node, grad func(xs []*Node, y, v *Node) []*Node) *Node {
	var y, v *Node
	var dxs []*Node
	ins := make([]*Node, len(xs))
	for i, x := range xs {
		ins[i] = IdentityWithCustomGradient(x, func(_, _ *Node) *Node {
			if v == nil {
				exceptions.Panicf("withGradient: the gradient of an input was asked before the result's")
			}
			if dxs == nil {
				dxs = grad(ins, y, v)
			}
			return dxs[i]
		})
	}
	y = f(ins)
	return IdentityWithCustomGradient(y, func(_, adjoint *Node) *Node {
		v, dxs = adjoint, nil
		return adjoint
	})
}

// addBias adds b [out] to the last axis of x.
func addBias(x, b *Node) *Node {
	rank := x.Rank()
	dims := make([]int, rank)
	for i := range dims {
		dims[i] = 1
	}
	dims[rank-1] = b.Shape().Dimensions[0]
	return Add(x, Reshape(b, dims...))
}

// linear is nn.Linear(in→out) with the authors' initialisation, on the last axis of x.
func linear(scope *model.Scope, x *Node, out int, bias bool) *Node {
	g := x.Graph()
	in := x.Shape().Dimensions[x.Rank()-1]
	w := scope.WithInitializer(truncNormalInit(scope, 0.02)).
		VariableWithShape("weights", shapes.Make(x.DType(), in, out)).NodeValue(g)
	y := matmul2D(x, w)
	if bias {
		b := scope.WithInitializer(zeroInit).VariableWithShape("bias", shapes.Make(x.DType(), out)).NodeValue(g)
		y = addBias(y, b)
	}
	return y
}

// convWeights creates a convolution kernel laid out as [k·in, out] (im2col order:
// window position major, input channel minor) with PyTorch's default initialisation.
func convWeights(scope *model.Scope, dtype dtypes.DType, k, in, out int) *model.Variable {
	bound := 1 / math.Sqrt(float64(k*in))
	return scope.WithInitializer(uniformInit(scope, bound)).VariableWithShape("weights", shapes.Make(dtype, k*in, out))
}

// windows gathers sliding windows along axis 1 of x [B, n, c]: window j starts at
// j·stride and has length k. The result is [B, numWindows, k·c] (im2col), ready for
// one matrix product. It is a single Gather with (batch, position) indices and no
// transposes; it trains on every backend (the built-in strided convolution does
// not on ONNX Runtime, and is slower on pure Go).
func windows(x *Node, k, stride, numWindows int) *Node {
	g := x.Graph()
	b, c := x.Shape().Dimensions[0], x.Shape().Dimensions[2]
	idx := make([]int32, 0, b*numWindows*k*2)
	for bi := 0; bi < b; bi++ {
		for j := 0; j < numWindows; j++ {
			for i := 0; i < k; i++ {
				idx = append(idx, int32(bi), int32(j*stride+i))
			}
		}
	}
	indices := Reshape(Const(g, idx), b, numWindows, k, 2)
	w := Gather(x, indices, true) // [B, J, k, c]
	return Reshape(w, b, numWindows, k*c)
}

// rmsNorm is the authors' RMSNorm: x / max(‖x‖₂, 1e-12) · √d · γ over the last axis.
//
// Its gradient is written by hand (see withGradient): the same values as GoMLX's
// differentiation of the forward ops, in about half the element-wise passes
// over x (with r = max(‖x‖, 1e-12), x̂ = x/r, u = v·√d·γ:
// dx = (u − x̂·Σu·x̂)/r, the second term only where ‖x‖² ≥ 1e-24, and
// dγ = √d·Σ v·x̂ over the tokens).
func rmsNorm(scope *model.Scope, x *Node) *Node {
	g := x.Graph()
	d := x.Shape().Dimensions[x.Rank()-1]
	scale := math.Sqrt(float64(d))
	gamma := scope.WithInitializer(oneInit).VariableWithShape("gamma", shapes.Make(x.DType(), d)).NodeValue(g)
	var sumSq, norm, normed *Node // forward values the gradient reuses
	return withGradient([]*Node{x, gamma},
		func(in []*Node) *Node {
			// max(‖x‖, 1e-12) computed as √max(‖x‖², 1e-24): the same value, but an
			// all-zero token (e.g. the fused token when nothing was merged) gets a zero
			// gradient instead of 0·∞ = NaN from √ at 0.
			sumSq = ReduceAndKeep(Square(in[0]), ReduceSum, -1)
			norm = Sqrt(MaxScalar(sumSq, 1e-24))
			normed = Div(in[0], norm) // x̂
			return mulLastAxis(MulScalar(normed, scale), in[1])
		},
		func(in []*Node, _, v *Node) []*Node {
			u := MulScalar(mulLastAxis(v, in[1]), scale)
			along := ReduceAndKeep(Mul(u, normed), ReduceSum, -1)
			// The norm's own gradient is zero where the floor 1e-24 is taken.
			along = Mul(along, ConvertDType(GreaterOrEqual(sumSq, Scalar(g, x.DType(), 1e-24)), x.DType()))
			dx := Div(Sub(u, Mul(normed, along)), norm)
			dGamma := MulScalar(ReduceSum(Reshape(Mul(v, normed), -1, d), 0), scale)
			return []*Node{dx, dGamma}
		})
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

// gelu is the exact (erf) GELU, as torch.nn.GELU(): x·Φ(x). Its gradient is
// written by hand (see withGradient) as v·(Φ(x) + x·φ(x)), reusing the forward's
// Φ(x): GoMLX's fused GELU keeps no Φ, so its gradient (the decomposed formula,
// differentiated op by op) evaluates erf again — on the pure-Go backend erf
// costs as much as all the other element-wise passes of a GELU together.
func gelu(x *Node) *Node {
	var cdf *Node
	return withGradient([]*Node{x},
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
// measured pathologically slow inside a training step on this project's
// 2-core machines: ≈20–30 ms of a ≈200 ms step for one run, and ≈300 ms of
// each step when two runs train side by side (BenchmarkSweepThroughput),
// while math.Expm1 (compiled Go) showed no such cost. The cause was not
// found: an isolated Exp graph, alone or beside another run's matmuls, ran
// at its normal ≈19 ns per element. Other backends use Exp.
func expNegHalfSquare(x *Node) *Node {
	half := MulScalar(Square(x), 0.5)
	if onPureGo(x.Graph()) {
		return Inverse(OnePlus(Expm1(half)))
	}
	return Exp(Neg(half))
}
