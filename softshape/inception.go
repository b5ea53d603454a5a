package softshape

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/model"
	"github.com/softshape-go/softshape/internal/kernels"
)

// inception is the shared expert of inter-shape learning (the paper's Section
// 4.3.2): an Inception module (Ismail Fawaz et al.) sliding over the sequence
// of soft shapes, i.e. over the token axis of v [B, n, d] (Q = S̃ᵀ, Eq. 12):
// a 1×1 bottleneck to d/4 channels, three "same" convolutions of kernel sizes
// ks−1, ks/2−1, ks/4−1 made odd (39, 19, 9 for ks=40), and a max-pool(3) branch
// followed by a 1×1 convolution; the four branches are concatenated back to d
// channels, instance-normalised over the tokens (no affine parameters) and passed
// through GELU. No convolution has a bias.
func (b Build) inception(scope *model.Scope, v *Node, ks int) *Node {
	return b.inceptionWindows(scope, v, ks, kernels.GathersFast(v.Graph()))
}

// inceptionWindows is inception with the convolution windows built by Gather
// (gather) or by Pads; see kernels.NestedSameConvs.
func (b Build) inceptionWindows(scope *model.Scope, v *Node, ks int, gather bool) *Node {
	return b.inceptionWith(scope, v, ks, func(z *Node, ws []*Node, sizes []int) *Node { return b.sameConvs(z, ws, sizes, gather) })
}

// sameConvsFunc computes the Inception's three "same" convolutions of z
// [B, n, c] with the kernels ws [k_i·c, o_i] ([R, k_i·c, o_i] with a run axis)
// of the given sizes, concatenated: [B, n, Σo_i].
type sameConvsFunc func(z *Node, ws []*Node, sizes []int) *Node

// inceptionWith is inception with its convolutions computed by convs.
func (b Build) inceptionWith(scope *model.Scope, v *Node, ks int, convs sameConvsFunc) *Node {
	g := v.Graph()
	d := v.Shape().Dimensions[2]
	nf := d / 4
	z := b.matMul(v, b.convWeights(scope.In("bottleneck"), v.DType(), 1, d, nf).NodeValue(g)) // [B, n, nf]
	sizes := InceptionKernels(ks)
	ws := make([]*Node, len(sizes))
	for i, k := range sizes {
		ws[i] = b.convWeights(scope.In("conv_%d", i), v.DType(), k, nf, nf).NodeValue(g) // [k·nf, nf]
	}
	branches := []*Node{convs(z, ws, sizes)} // [B, n, 3·nf]
	pooled := maxPool3Of(v, b.Plain)
	wp := b.convWeights(scope.In("pool_conv"), v.DType(), 1, d, d-3*nf).NodeValue(g)
	branches = append(branches, b.matMul(pooled, wp))
	return instanceNormGELUOf(Concatenate(branches, 2), b.Plain) // [B, n, d]
}

// InceptionKernels returns the three kernel sizes derived from ks: ks, ks/2, ks/4,
// each made odd by subtracting one when even (fastai/tsai InceptionModule).
func InceptionKernels(ks int) []int {
	out := make([]int, 0, 3)
	for i := 0; i < 3; i++ {
		k := ks >> i
		if k%2 == 0 {
			k--
		}
		out = append(out, max(k, 1))
	}
	return out
}
