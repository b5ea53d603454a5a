package kernels

import (
	"math"
	"sync"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/tensortest"
)

// sharedBackend is started once for the whole test binary: backends.Default,
// the pure-Go backend with the setting that avoids its worker-pool deadlock on
// 2-core machines.
var sharedBackend = sync.OnceValues(func() (compute.Backend, error) { return backends.New(backends.Default) })

// testBackend returns the pure-Go backend: OnPureGo's forms are the ones tested.
func testBackend(t testing.TB) compute.Backend {
	t.Helper()
	b, err := sharedBackend()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHandWrittenGradients: the layers whose gradient is written by hand
// (WithGradient) give the values of GoMLX's differentiation of their forward
// ops: MatMul2D, GELU, RMSNorm (with γ ≠ 1 and an all-zero token) and the
// max-pool (with ties, which go to the first maximum of the window).
func TestHandWrittenGradients(t *testing.T) {
	const b, n, d = 2, 7, 6
	store := model.NewStore()
	exec, err := model.NewExec(testBackend(t), store, func(scope *model.Scope, x, r *graph.Node) []*graph.Node {
		g := x.Graph()
		w := graph.Cos(graph.MulScalar(graph.Iota(g, shapes.Make(x.DType(), d, 5), 0), 0.7))
		gammaInit := func(g *graph.Graph, shape shapes.Shape) *graph.Node {
			return graph.AddScalar(graph.MulScalar(graph.Iota(g, shape, 0), 0.25), 0.5)
		}
		gamma := scope.At("norm").WithInitializer(gammaInit).VariableWithShape("gamma", shapes.Make(x.DType(), d)).NodeValue(g)
		// Token 0 of sample 0 all zero (RMSNorm's floor); token 1 repeated.
		mask := graph.ConvertDType(graph.GreaterThan(graph.Iota(g, shapes.Make(x.DType(), b*n, d), 0), graph.ScalarZero(g, x.DType())), x.DType())
		xz := graph.Mul(x, graph.Reshape(mask, b, n, d))
		xt := graph.Concatenate([]*graph.Node{graph.Slice(xz, graph.AxisRange(), graph.AxisRange(0, 2)), graph.Slice(xz, graph.AxisRange(), graph.AxisRange(1, n-1))}, 1)
		// Values rounded to multiples of ½ (the gradient passes straight
		// through): ties between different tokens for the max-pool.
		xt = graph.Add(xt, graph.StopGradient(graph.Sub(graph.MulScalar(graph.Round(graph.MulScalar(xt, 2)), 0.5), xt)))
		pairs := [][2]func() *graph.Node{
			{func() *graph.Node { return MatMul2D(xt, w) }, func() *graph.Node {
				return graph.Reshape(graph.Dot(graph.Reshape(xt, b*n, d), w).Product(), b, n, 5)
			}},
			{func() *graph.Node { return GELU(xt) }, func() *graph.Node { return activation.Gelu(xt) }},
			{func() *graph.Node { return RMSNorm(xt, gamma) }, func() *graph.Node {
				norm := graph.Sqrt(graph.MaxScalar(graph.ReduceAndKeep(graph.Square(xt), graph.ReduceSum, -1), 1e-24))
				return graph.Mul(graph.MulScalar(graph.Div(xt, norm), math.Sqrt(d)), graph.Reshape(gamma, 1, 1, d))
			}},
			{func() *graph.Node { return MaxPool3(xt) }, func() *graph.Node {
				prev := graph.Concatenate([]*graph.Node{graph.Slice(xt, graph.AxisRange(), graph.AxisRange(0, 1)), graph.Slice(xt, graph.AxisRange(), graph.AxisRange(0, n-1))}, 1)
				next := graph.Concatenate([]*graph.Node{graph.Slice(xt, graph.AxisRange(), graph.AxisRange(1, n)), graph.Slice(xt, graph.AxisRange(), graph.AxisRange(n-1, n))}, 1)
				return graph.Max(graph.Max(prev, xt), next)
			}},
		}
		var outs []*graph.Node
		for _, p := range pairs {
			for _, f := range p {
				y := f()
				rr := graph.Slice(graph.Reshape(r, -1), graph.AxisRange(0, y.Shape().Size()))
				loss := graph.ReduceAllSum(graph.Mul(y, graph.Reshape(rr, y.Shape().Dimensions...)))
				outs = append(outs, y)
				outs = append(outs, graph.Gradient(loss, x, gamma)...)
			}
		}
		return outs
	})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := exec.Call(tensortest.Series(b, n, d), tensortest.Weighting(b, n, 8))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"MatMul2D", "GELU", "RMSNorm", "MaxPool3"}
	for i, name := range names {
		for j, what := range []string{"output", "d/dx", "d/dγ"} {
			got, want := outs[6*i+j], outs[6*i+3+j]
			if diff := tensortest.MaxAbsDiff(t, got, want); diff > 1e-5*max(1, tensortest.MaxAbs(want)) {
				t.Errorf("%s: %s differs from GoMLX's by %g", name, what, diff)
			}
		}
	}
}

// TestExpNegHalfSquare: on the pure-Go backend exp(−x²/2) is computed as
// 1/(1 + expm1(x²/2)); it matches math.Exp to float32 relative precision from
// x = 0 through the far tail (exp(−72) at x = 12, exp(−84.5) at 13, a float32
// subnormal at x = 13.5), and gives exactly 0 where x²/2 overflows float32's
// expm1 (x = 14, 40).
func TestExpNegHalfSquare(t *testing.T) {
	xs := []float32{0, 0.5, -0.5, 1, -2, 3, -4.5, 6, -8, 10, 12, -13, 13.5, 14, -40}
	exec, err := graph.NewExec(testBackend(t), func(x *graph.Node) *graph.Node {
		if !OnPureGo(x.Graph()) {
			t.Fatalf("backend %q not recognised as pure Go: expNegHalfSquare would not take its expm1 form", x.Graph().Backend().String())
		}
		return expNegHalfSquare(x)
	})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := exec.Exec(xs)
	if err != nil {
		t.Fatal(err)
	}
	got := outs[0].Value().([]float32)
	for i, x := range xs {
		want := float32(math.Exp(-float64(x) * float64(x) / 2))
		switch {
		case want == 0 || x*x/2 > 88.7: // expm1 overflows float32: the limit 0
			if got[i] != 0 {
				t.Errorf("x=%g: got %g, want 0", x, got[i])
			}
		case want < 1.2e-38: // float32 subnormal: absolute
			if d := math.Abs(float64(got[i] - want)); d > 1e-44 {
				t.Errorf("x=%g: got %g, want %g", x, got[i], want)
			}
		default:
			if r := math.Abs(float64(got[i]-want)) / float64(want); r > 4e-7 {
				t.Errorf("x=%g: got %g, want %g (relative error %.2g)", x, got[i], want, r)
			}
		}
	}
}
