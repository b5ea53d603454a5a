package softshape

import (
	"math"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/model"
)

// Building blocks of the model, each with the initialisation of the authors'
// PyTorch code (the paper does not state initialisations; these are the
// authors' published code's):
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

// linear is nn.Linear(in→out) with the authors' initialisation, on the last axis of x
// (run by run with a run axis, see runaxis.go).
func (b Build) linear(scope *model.Scope, x *Node, out int, bias bool) *Node {
	g := x.Graph()
	in := x.Shape().Dimensions[x.Rank()-1]
	w := b.param(scope.WithInitializer(truncNormalInit(scope, 0.02)), "weights", x.DType(), in, out).NodeValue(g)
	y := b.matMul(x, w)
	if bias {
		bv := b.param(scope.WithInitializer(zeroInit), "bias", x.DType(), out).NodeValue(g)
		y = addBias(y, bv)
	}
	return y
}

// convWeights creates a convolution kernel laid out as [k·in, out] (im2col order:
// window position major, input channel minor) with PyTorch's default
// initialisation ([R, k·in, out] with a run axis).
func (b Build) convWeights(scope *model.Scope, dtype dtypes.DType, k, in, out int) *model.Variable {
	bound := 1 / math.Sqrt(float64(k*in))
	return b.param(scope.WithInitializer(uniformInit(scope, bound)), "weights", dtype, k*in, out)
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

// rmsNorm is the authors' RMSNorm over the last axis of x, with its gain γ
// (initialised to ones) in scope: x / max(‖x‖₂, 1e-12) · √d · γ
// (kernels.RMSNorm, whose gradient is written by hand, or its plain form:
// Build.Plain).
func (b Build) rmsNorm(scope *model.Scope, x *Node) *Node {
	d := x.Shape().Dimensions[x.Rank()-1]
	gamma := b.param(scope.WithInitializer(oneInit), "gamma", x.DType(), d).NodeValue(x.Graph())
	return rmsNormOf(x, gamma, b.Plain)
}

// gelu is the exact (erf) GELU, as torch.nn.GELU(): x·Φ(x) (kernels.GELU,
// whose gradient reuses the forward's Φ, or GoMLX's: Build.Plain).
func (b Build) gelu(x *Node) *Node { return geluOf(x, b.Plain) }
