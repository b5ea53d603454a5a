package softshape

import (
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/model"
)

// inception is the inter-shape shared expert, over the token axis of v [B, n, d]:
// a 1×1 bottleneck to d/4 channels, three "same" convolutions of kernel sizes
// ks−1, ks/2−1, ks/4−1 made odd (39, 19, 9 for ks=40), and a max-pool(3) branch
// followed by a 1×1 convolution; the four branches are concatenated back to d
// channels, instance-normalised over the tokens (no affine parameters) and passed
// through GELU. No convolution has a bias.
func inception(scope *model.Scope, v *Node, ks int) *Node {
	g := v.Graph()
	b, n, d := v.Shape().Dimensions[0], v.Shape().Dimensions[1], v.Shape().Dimensions[2]
	nf := d / 4
	z := matmul2D(v, convWeights(scope.In("bottleneck"), v.DType(), 1, d, nf).NodeValue(g)) // [B, n, nf]
	// The three "same" convolutions share one window gather of the largest kernel:
	// each smaller kernel's weights sit, zero-padded, at the centre of that window,
	// so all three run as one matrix product [B·n, K·nf] × [K·nf, 3·nf].
	kernels := inceptionKernels(ks)
	kMax := kernels[0]
	pad := kMax / 2
	zeros := Zeros(g, shapes.Make(v.DType(), b, pad, nf))
	win := windows(Concatenate([]*Node{zeros, z, zeros}, 1), kMax, 1, n) // [B, n, kMax·nf]
	cols := make([]*Node, len(kernels))
	for i, k := range kernels {
		w := convWeights(scope.In("conv_%d", i), v.DType(), k, nf, nf).NodeValue(g) // [k·nf, nf]
		if before := (kMax - k) / 2; before > 0 {
			after := kMax - k - before
			w = Concatenate([]*Node{Zeros(g, shapes.Make(v.DType(), before*nf, nf)), w, Zeros(g, shapes.Make(v.DType(), after*nf, nf))}, 0)
		}
		cols[i] = w
	}
	branches := []*Node{matmul2D(win, Concatenate(cols, 1))} // [B, n, 3·nf]
	pooled := maxPool3(v)
	wp := convWeights(scope.In("pool_conv"), v.DType(), 1, d, d-3*nf).NodeValue(g)
	branches = append(branches, matmul2D(pooled, wp))
	y := Concatenate(branches, 2) // [B, n, d]
	mean := ReduceAndKeep(y, ReduceMean, 1)
	centred := Sub(y, mean)
	variance := ReduceAndKeep(Square(centred), ReduceMean, 1)
	y = Div(centred, Sqrt(AddScalar(variance, 1e-5)))
	return gelu(y)
}

// inceptionKernels returns the three kernel sizes derived from ks: ks, ks/2, ks/4,
// each made odd by subtracting one when even (fastai/tsai InceptionModule).
func inceptionKernels(ks int) []int {
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

// maxPool3 is MaxPool1d(3, stride 1, padding 1) along axis 1 of x [B, n, c]; the
// edges repeat their neighbour, which equals padding with −∞.
func maxPool3(x *Node) *Node {
	n := x.Shape().Dimensions[1]
	if n == 1 {
		return x
	}
	prev := Concatenate([]*Node{Slice(x, AxisRange(), AxisRange(0, 1)), Slice(x, AxisRange(), AxisRange(0, n-1))}, 1)
	next := Concatenate([]*Node{Slice(x, AxisRange(), AxisRange(1, n)), Slice(x, AxisRange(), AxisRange(n-1, n))}, 1)
	return Max(Max(prev, x), next)
}
