package softshape

import (
	"math"

	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/layers/activation"
	mha "github.com/gomlx/gomlx/ml/layers/attention"
	"github.com/gomlx/gomlx/ml/layers/norm"
	"github.com/gomlx/gomlx/ml/model"
)

// The expert networks of the appendix studies (Appendix B.4: the tables of
// networks used as MoE experts and as the shared expert). The paper names the networks but not their sizes;
// the sizes below are the ones that reproduce the appendix's parameter counts
// where it gives them (see SharedExpert*), and the classic configuration of the
// named network otherwise. Every choice is written next to the code.

// TransformerHeads is the number of attention heads of the "transformer" shared
// expert (d must be divisible by it).
const TransformerHeads = 8

// Sizes of the appendix expert networks, relative to the embedding width d.
const (
	// transformerFFMult: the feed-forward width of the Transformer shared expert is
	// 4d. With d=128 and L=2 this makes the model exactly 242,944 parameters
	// larger than with the Inception shared expert: the appendix's 422.5K − 179.5K.
	transformerFFMult = 4
	// SharedMLPMult: the MLP shared expert is Linear(d→2d)→GELU→Dropout→Linear(2d→d);
	// with d=128 and L=2 the model is 21,760 parameters smaller than with the
	// Inception: the appendix's 179.5K − 157.8K.
	SharedMLPMult = 2
)

// fcnKernels are the kernel sizes of the three FCN blocks (Wang et al. 2017).
var fcnKernels = [3]int{8, 5, 3}

// sharedExpert is the inter-shape network over the token axis of v [B, n, d],
// chosen by Config.SharedExpert.
func (m *Model) sharedExpert(scope *model.Scope, v *Node) *Node {
	switch m.Config.SharedExpert {
	case SharedExpertTransformer:
		return m.transformerLayer(scope.In("transformer"), v, m.Config.Dropout)
	case SharedExpertMLP:
		return m.tokenMLP(scope.In("shared_mlp"), v, SharedMLPMult*v.Shape().Dimensions[2], m.Config.Dropout)
	default:
		if m.Fast {
			return m.inceptionFast(scope.In("inception"), v, m.Config.InceptionKernel)
		}
		return m.inception(scope.In("inception"), v, m.Config.InceptionKernel)
	}
}

// transformerLayer is PyTorch's nn.TransformerEncoderLayer(d, TransformerHeads,
// dim_feedforward=4d, activation=ReLU, norm_first=False) over the tokens of
// v [B, n, d]: x = LN(v + Drop(MHA(v))); x = LN(x + Drop(FF(x))). The attention
// weights themselves are not dropped out. LayerNorm ε is PyTorch's 1e-5.
func (b Build) transformerLayer(scope *model.Scope, v *Node, dropout float64) *Node {
	d := v.Shape().Dimensions[2]
	a := mha.MultiHeadAttention(scope.In("self_attention"), v, v, v, TransformerHeads, d/TransformerHeads).Done()
	x := norm.LayerNorm(scope.In("norm1"), Add(v, layers.DropoutStatic(scope, a, dropout)), -1).Epsilon(1e-5).Done()
	f := activation.Relu(b.linear(scope.In("ff1"), x, transformerFFMult*d, true))
	f = b.linear(scope.In("ff2"), layers.DropoutStatic(scope, f, dropout), d, true)
	return norm.LayerNorm(scope.In("norm2"), Add(x, layers.DropoutStatic(scope, f, dropout)), -1).Epsilon(1e-5).Done()
}

// tokenMLP is Linear(d→hidden)→GELU→Dropout→Linear(hidden→d) applied to every
// token of v [B, n, d] on its own (no mixing across tokens).
func (b Build) tokenMLP(scope *model.Scope, v *Node, hidden int, rate float64) *Node {
	d := v.Shape().Dimensions[2]
	h := b.gelu(b.linear(scope.In("fc1"), v, hidden, true))
	return b.linear(scope.In("fc2"), b.dropout(scope, h, rate), d, true)
}

// sameWindows is windows with "same" zero padding along axis 1 of x [B, n, c]
// (PyTorch's padding="same": (k−1)/2 before, the rest after): [B, n, k·c].
func sameWindows(x *Node, k int) *Node {
	b, n, c := x.Shape().Dimensions[0], x.Shape().Dimensions[1], x.Shape().Dimensions[2]
	before := (k - 1) / 2
	after := k - 1 - before
	parts := make([]*Node, 0, 3)
	if before > 0 {
		parts = append(parts, Zeros(x.Graph(), shapes.Make(x.DType(), b, before, c)))
	}
	parts = append(parts, x)
	if after > 0 {
		parts = append(parts, Zeros(x.Graph(), shapes.Make(x.DType(), b, after, c)))
	}
	return windows(Concatenate(parts, 1), k, 1, n)
}

// instanceNorm normalises y over its token axis 1 (zero mean, unit variance per
// sample and channel, ε = 1e-5, no affine parameters): the authors' stand-in for
// batch normalisation in their convolutional blocks.
func instanceNorm(y *Node) *Node {
	mean := ReduceAndKeep(y, ReduceMean, 1)
	centred := Sub(y, mean)
	variance := ReduceAndKeep(Square(centred), ReduceMean, 1)
	return Div(centred, Sqrt(AddScalar(variance, 1e-5)))
}

// expertConv is one same-padded convolution over the token axis, a separate
// kernel per expert: x [B, n, E, in] → [B, n, E, out], as one windows gather and
// one einsum with the expert axis as a batch axis. Weights [E, k, in, out] use
// PyTorch's default Conv1d initialisation.
func expertConv(scope *model.Scope, x *Node, k, out int, bias bool) *Node {
	g := x.Graph()
	b, n, e, in := x.Shape().Dimensions[0], x.Shape().Dimensions[1], x.Shape().Dimensions[2], x.Shape().Dimensions[3]
	win := Reshape(sameWindows(Reshape(x, b, n, e*in), k), b, n, k, e, in)
	bound := 1 / math.Sqrt(float64(k*in))
	w := scope.WithInitializer(uniformInit(scope, bound)).VariableWithShape("weights", shapes.Make(x.DType(), e, k, in, out)).NodeValue(g)
	y := Einsum("bnkec,ekcf->bnef", win, w)
	if bias {
		bv := scope.WithInitializer(uniformInit(scope, bound)).VariableWithShape("bias", shapes.Make(x.DType(), e, out)).NodeValue(g)
		y = Add(y, Reshape(bv, 1, 1, e, out))
	}
	return y
}

// sharedInputConv is a same-padded convolution of kernel k from the tokens
// v [B, n, d] into out channels for each of e experts: [B, n, E, out]. All
// experts read the same input, so it is one windows gather and one matrix
// product with the experts' kernels side by side.
func (b Build) sharedInputConv(scope *model.Scope, v *Node, k, e, out int, bias bool) *Node {
	g := v.Graph()
	batch, n, d := v.Shape().Dimensions[0], v.Shape().Dimensions[1], v.Shape().Dimensions[2]
	x := v
	if k > 1 {
		x = sameWindows(v, k)
	}
	y := b.matMul(x, b.convWeights(scope, v.DType(), k, d, e*out).NodeValue(g))
	if bias {
		bound := 1 / math.Sqrt(float64(k*d))
		bv := scope.WithInitializer(uniformInit(scope, bound)).VariableWithShape("bias", shapes.Make(v.DType(), e*out)).NodeValue(g)
		y = addBias(y, bv)
	}
	return Reshape(y, batch, n, e, out)
}

// fcnExperts runs an FCN block (Wang et al. 2017) as each of e MoE experts over
// the tokens of v [B, n, d]: three same-padded convolutions along the token axis
// with kernels 8, 5, 3 and d, 2d, d channels (FCN's 128, 256, 128 at d=128), each
// followed by instance normalisation and ReLU; no global pooling, so every token
// keeps its own output. Convolutions have no bias (the normalisation removes it).
// The result is [B, n, E, d].
func (b Build) fcnExperts(scope *model.Scope, v *Node, e int) *Node {
	d := v.Shape().Dimensions[2]
	widths := [3]int{d, 2 * d, d}
	h := activation.Relu(instanceNorm(b.sharedInputConv(scope.In("conv_0"), v, fcnKernels[0], e, widths[0], false)))
	for i := 1; i < 3; i++ {
		h = activation.Relu(instanceNorm(expertConv(scope.In("conv_%d", i), h, fcnKernels[i], widths[i], false)))
	}
	return h
}

// icbExperts runs TSLANet's interactive convolution block (Eldele et al. 2024)
// as each of e MoE experts over the tokens of v [B, n, d], hidden width d:
// x1 = Conv1×1(v), x2 = Conv3(v) (same padding along the tokens),
// out = Conv1×1(x1·Drop(GELU(x2)) + x2·Drop(GELU(x1))). Convolutions have biases,
// as TSLANet's. The result is [B, n, E, d].
func (b Build) icbExperts(scope *model.Scope, v *Node, e int, dropout float64) *Node {
	d := v.Shape().Dimensions[2]
	x1 := b.sharedInputConv(scope.In("conv1"), v, 1, e, d, true)
	x2 := b.sharedInputConv(scope.In("conv2"), v, 3, e, d, true)
	a := Mul(x1, layers.DropoutStatic(scope, b.gelu(x2), dropout))
	c := Mul(x2, layers.DropoutStatic(scope, b.gelu(x1), dropout))
	return expertConv(scope.In("conv3"), Add(a, c), 1, d, true)
}
