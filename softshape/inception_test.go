package softshape

import (
	"fmt"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/softshape-go/softshape/internal/tensortest"
)

// The Inception shared expert (its kernels in internal/kernels),
// checked against forms built independently: GoMLX's built-in Convolve and
// MaxPool (PyTorch Conv1d / MaxPool1d semantics), the previous Gather-based
// implementation, and GoMLX's differentiation of the same forward ops.

// inceptionCases are small shapes whose results can be followed by hand: ks=8
// gives kernels 7, 3, 1; ks=40 gives 39, 19, 9, all longer than the sequence.
var inceptionCases = []struct{ b, n, d, ks int }{
	{2, 11, 16, 8},
	{2, 5, 16, 8},   // n shorter than the largest kernel (7)
	{2, 11, 16, 40}, // every kernel but the smallest longer than n
	{1, 3, 8, 8},
	{3, 1, 8, 8}, // a single token: the max-pool is the identity
	{2, 6, 8, 4}, // kernels 3, 1, 1: two of the same size
	{2, 4, 8, 2}, // kernels 1, 1, 1
}

// inceptionGather is the previous inception, differentiated by GoMLX: one
// Gather of the largest kernel's windows (windows) and one matrix product with
// the smaller kernels zero-padded to the largest, plain Dot products, the
// max-pool as two Max and GoMLX's fused GELU. Same variables as inception.
func inceptionGather(scope *model.Scope, v *graph.Node, ks int) *graph.Node {
	g := v.Graph()
	b, n, d := v.Shape().Dimensions[0], v.Shape().Dimensions[1], v.Shape().Dimensions[2]
	nf := d / 4
	dot := func(x, w *graph.Node) *graph.Node {
		dims := x.Shape().Dimensions
		rows := x.Shape().Size() / dims[len(dims)-1]
		y := graph.Dot(graph.Reshape(x, rows, dims[len(dims)-1]), w).Product()
		return graph.Reshape(y, append(append([]int{}, dims[:len(dims)-1]...), w.Shape().Dimensions[1])...)
	}
	z := dot(v, Build{}.convWeights(scope.In("bottleneck"), v.DType(), 1, d, nf).NodeValue(g))
	kernels := InceptionKernels(ks)
	kMax := kernels[0]
	pad := kMax / 2
	zeros := graph.Zeros(g, shapes.Make(v.DType(), b, pad, nf))
	win := windows(graph.Concatenate([]*graph.Node{zeros, z, zeros}, 1), kMax, 1, n)
	cols := make([]*graph.Node, len(kernels))
	for i, k := range kernels {
		w := Build{}.convWeights(scope.In("conv_%d", i), v.DType(), k, nf, nf).NodeValue(g)
		if before := (kMax - k) / 2; before > 0 {
			after := kMax - k - before
			w = graph.Concatenate([]*graph.Node{graph.Zeros(g, shapes.Make(v.DType(), before*nf, nf)), w, graph.Zeros(g, shapes.Make(v.DType(), after*nf, nf))}, 0)
		}
		cols[i] = w
	}
	branches := []*graph.Node{dot(win, graph.Concatenate(cols, 1))}
	pooled := v
	if n > 1 {
		prev := graph.Concatenate([]*graph.Node{graph.Slice(v, graph.AxisRange(), graph.AxisRange(0, 1)), graph.Slice(v, graph.AxisRange(), graph.AxisRange(0, n-1))}, 1)
		next := graph.Concatenate([]*graph.Node{graph.Slice(v, graph.AxisRange(), graph.AxisRange(1, n)), graph.Slice(v, graph.AxisRange(), graph.AxisRange(n-1, n))}, 1)
		pooled = graph.Max(graph.Max(prev, v), next)
	}
	wp := Build{}.convWeights(scope.In("pool_conv"), v.DType(), 1, d, d-3*nf).NodeValue(g)
	branches = append(branches, dot(pooled, wp))
	y := graph.Concatenate(branches, 2)
	mean := graph.ReduceAndKeep(y, graph.ReduceMean, 1)
	centred := graph.Sub(y, mean)
	variance := graph.ReduceAndKeep(graph.Square(centred), graph.ReduceMean, 1)
	y = graph.Div(centred, graph.Sqrt(graph.AddScalar(variance, 1e-5)))
	return activation.Gelu(y)
}

// inceptionConvolveRef is inception written with the built-in Convolve
// (cross-correlation, padding (k−1)/2 each side for odd k, no bias: PyTorch's
// Conv1d) and MaxPool (window 3, stride 1, −∞ padding), the exact GELU written
// with Erf, and the variables inception created under scope.
func inceptionConvolveRef(scope *model.Scope, v *graph.Node, ks int) *graph.Node {
	g := v.Graph()
	b, d := v.Shape().Dimensions[0], v.Shape().Dimensions[2]
	nf := d / 4
	weights := func(name string, k, in, out int) *graph.Node {
		w := scope.At("%s", name).GetVariable("weights")
		if w == nil {
			panic(fmt.Sprintf("variable %s/weights missing", name))
		}
		return graph.Reshape(w.NodeValue(g), k, in, out) // [k·in, out] im2col order → [k, in, out]
	}
	conv := func(x, kernel *graph.Node) *graph.Node {
		p := (kernel.Shape().Dimensions[0] - 1) / 2
		return graph.Convolve(x, kernel).PaddingPerDim([][2]int{{p, p}}).Done()
	}
	z := conv(v, weights("bottleneck", 1, d, nf))
	var branches []*graph.Node
	for i, k := range InceptionKernels(ks) {
		branches = append(branches, conv(z, weights(fmt.Sprintf("conv_%d", i), k, nf, nf)))
	}
	negInf := graph.BroadcastToDims(graph.Infinity(g, v.DType(), -1), b, 1, d)
	pooled := graph.MaxPool(graph.Concatenate([]*graph.Node{negInf, v, negInf}, 1)).Window(3).Strides(1).NoPadding().Done()
	branches = append(branches, conv(pooled, weights("pool_conv", 1, d, d-3*nf)))
	y := graph.Concatenate(branches, 2)
	mean := graph.ReduceAndKeep(y, graph.ReduceMean, 1)
	variance := graph.ReduceAndKeep(graph.Square(graph.Sub(y, mean)), graph.ReduceMean, 1)
	y = graph.Div(graph.Sub(y, mean), graph.Sqrt(graph.AddScalar(variance, 1e-5)))
	cdf := graph.MulScalar(graph.AddScalar(graph.Erf(graph.DivScalar(y, math.Sqrt2)), 1), 0.5)
	return graph.Mul(y, cdf)
}

// inceptionWithGradients builds y = form(v) under the scope "inception" and
// returns y followed by the gradients of Σ y·r (r an input of y's shape, a
// fixed irregular weighting) with respect to v and to the four weight
// variables, in a fixed order.
func inceptionWithGradients(scope *model.Scope, v, r *graph.Node, ks int, form func(*model.Scope, *graph.Node, int) *graph.Node) []*graph.Node {
	g := v.Graph()
	y := form(scope.At("inception"), v, ks)
	loss := graph.ReduceAllSum(graph.Mul(y, r))
	wrt := []*graph.Node{v}
	for _, name := range []string{"bottleneck", "conv_0", "conv_1", "conv_2", "pool_conv"} {
		wrt = append(wrt, scope.At("inception").At("%s", name).GetVariable("weights").NodeValue(g))
	}
	return append([]*graph.Node{y}, graph.Gradient(loss, wrt...)...)
}

// TestInceptionMatchesConvolve: the Inception output (both layouts of its
// convolution windows) equals the reference built from Convolve and MaxPool
// with the same weights, and its gradients with respect to the input and every
// weight (written by hand) equal GoMLX's gradients of the reference and of the
// previous Gather-based form.
func TestInceptionMatchesConvolve(t *testing.T) {
	for _, tc := range inceptionCases {
		t.Run(fmt.Sprintf("B%d_n%d_d%d_ks%d", tc.b, tc.n, tc.d, tc.ks), func(t *testing.T) {
			outs := runInceptionForms(t, tc.b, tc.n, tc.d, tc.ks, windowsLayout(true), windowsLayout(false), inceptionConvolveRef, inceptionGather)
			for f, form := range []string{"Pad layout", "Convolve reference", "previous Gather form"} {
				for i, name := range inceptionGradNames {
					got, want := outs[0][i], outs[f+1][i]
					// Float32 rounding of different summation orders, amplified by the
					// instance norm when a channel varies little over few tokens
					// (measured up to 2e-5 of the largest gradient at n=3); a wrong
					// kernel tap or offset changes results by O(1).
					tol := 1e-5
					if i > 0 {
						tol = 1e-4 * max(1, tensortest.MaxAbs(want))
					}
					if diff := tensortest.MaxAbsDiff(t, got, want); diff > tol {
						t.Errorf("%s differs from the %s by %.3g (tolerance %.3g)", name, form, diff, tol)
					}
				}
			}
		})
	}
}

// inceptionForm builds an Inception of ks over v [B, n, d] in scope.
type inceptionForm = func(scope *model.Scope, v *graph.Node, ks int) *graph.Node

// windowsLayout is the Inception with its windows built by Gather (gather)
// or by Pads (Build.inceptionWindows).
func windowsLayout(gather bool) inceptionForm {
	return func(s *model.Scope, v *graph.Node, ks int) *graph.Node {
		return Build{}.inceptionWindows(s, v, ks, gather)
	}
}

// inceptionGradNames names the outputs of inceptionWithGradients.
var inceptionGradNames = []string{"output", "d/dv", "d/dbottleneck", "d/dconv_0", "d/dconv_1", "d/dconv_2", "d/dpool_conv"}

// runInceptionForms runs each form on the same weights (the first creates
// them, from seed 7) and the input [b, n, d] (tensortest.Series, weighted by
// tensortest.Weighting), and returns each form's inceptionWithGradients.
func runInceptionForms(t *testing.T, b, n, d, ks int, forms ...inceptionForm) [][]*tensors.Tensor {
	t.Helper()
	store := model.NewStore()
	store.RootScope().SetParam(model.ParamInitialSeed, int64(7))
	exec, err := model.NewExec(testBackend(t), store, func(scope *model.Scope, v, r *graph.Node) []*graph.Node {
		var outs []*graph.Node
		for _, form := range forms { // the first creates the variables, the others read them
			outs = append(outs, inceptionWithGradients(scope, v, r, ks, form)...)
		}
		return outs
	})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := exec.Call(tensortest.Series(b, n, d), tensortest.Weighting(b, n, d))
	if err != nil {
		t.Fatal(err)
	}
	k := len(inceptionGradNames)
	per := make([][]*tensors.Tensor, len(forms))
	for f := range forms {
		per[f] = outs[f*k : (f+1)*k]
	}
	return per
}

// benchInceptionForm times one forward and backward pass (gradients with
// respect to the input and every weight) of an Inception form at the benchmark
// model's size: B=16, n=122 tokens, d=128, ks=40. Besides the mean it reports
// the minimum and the median step, steadier on a shared machine.
func benchInceptionForm(b *testing.B, backend compute.Backend, form func(*model.Scope, *graph.Node, int) *graph.Node) {
	store := model.NewStore()
	exec, err := model.NewExec(backend, store, func(scope *model.Scope, v, r *graph.Node) []*graph.Node {
		return inceptionWithGradients(scope, v, r, 40, form)[1:]
	})
	if err != nil {
		b.Fatal(err)
	}
	v, r := tensortest.Series(16, 122, 128), tensortest.Weighting(16, 122, 128)
	step := func() {
		outs, err := exec.Call(v, r)
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range outs {
			o.FinalizeAll()
		}
	}
	step() // graph build and compilation are not timed
	step()
	reportQuantiles(b, step)
}

// reportQuantiles runs step b.N times and reports the minimum and median time.
func reportQuantiles(b *testing.B, step func()) {
	var times []float64
	for b.Loop() {
		t0 := time.Now()
		step()
		times = append(times, float64(time.Since(t0).Microseconds())/1000)
	}
	sort.Float64s(times)
	b.ReportMetric(times[0], "min-ms")
	b.ReportMetric(times[len(times)/2], "med-ms")
}

// BenchmarkInception compares the Inception forms, forward and backward, on
// every backend: "previous" (one Gather, one zero-padded product, GoMLX's
// gradients), "current" (the layout inception picks for the backend), and the
// two layouts of the convolution windows forced:
//
//	GOEXPERIMENT=simd go test -tags onnx -run '^$' -bench 'Inception' ./softshape/
func BenchmarkInception(b *testing.B) {
	forms := []struct {
		name string
		form inceptionForm
	}{
		{"previous", inceptionGather},
		{"current", Build{}.inception},
		{"gatherLayout", windowsLayout(true)},
		{"padLayout", windowsLayout(false)},
	}
	for _, f := range forms {
		b.Run(f.name, func(b *testing.B) {
			forEachBackend(b, func(b *testing.B, be compute.Backend) { benchInceptionForm(b, be, f.form) })
		})
	}
}

// BenchmarkStepQuantiles is BenchmarkTrainStepDense/Sparse (batch 16) reporting
// the minimum and median step besides the mean: on a shared machine the mean
// of a few steps swings 1.5–2×, the minimum much less.
func BenchmarkStepQuantiles(b *testing.B) {
	for _, phase := range []Phase{Dense, Sparse} {
		b.Run(phase.String(), func(b *testing.B) {
			forEachBackend(b, func(b *testing.B, be compute.Backend) {
				sess, x, y := benchSession(b, be, 16)
				step := trainStepper(b, sess, x, y, phase)
				step() // graph build and compilation are not timed
				step()
				reportQuantiles(b, step)
			})
		})
	}
}
