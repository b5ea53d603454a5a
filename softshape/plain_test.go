package softshape

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/tensortest"
)

// TestPlainRMSNormPerRun: with a run axis (gamma [R, d], the rows of x in R
// blocks) the plain RMSNorm gives the kernel's output and gradients, an
// all-zero token included (its gradient 0, not NaN); the whole-model test
// covers gamma [d].
func TestPlainRMSNormPerRun(t *testing.T) {
	const r, b, n, d = 2, 3, 4, 5
	exec, err := graph.NewExec(testBackend(t), func(x, gamma *graph.Node) []*graph.Node {
		// Token 0 of the first sample all zero.
		first := graph.ConvertDType(graph.GreaterThan(graph.Iota(x.Graph(), shapes.Make(x.DType(), r*b*n, d), 0), graph.ScalarZero(x.Graph(), x.DType())), x.DType())
		xz := graph.Mul(x, graph.Reshape(first, r*b, n, d))
		var outs []*graph.Node
		for _, plain := range []bool{false, true} {
			y := rmsNormOf(xz, gamma, plain)
			loss := graph.ReduceAllSum(graph.Mul(y, graph.Cos(xz)))
			outs = append(outs, y)
			outs = append(outs, graph.Gradient(loss, x, gamma)...)
		}
		return outs
	})
	if err != nil {
		t.Fatal(err)
	}
	xv := make([]float32, r*b*n*d)
	for i := range xv {
		xv[i] = float32(math.Sin(float64(i)*0.37)) * 2
	}
	gv := make([]float32, r*d)
	for i := range gv {
		gv[i] = 0.5 + 0.25*float32(i)
	}
	x := tensors.FromFlatDataAndDimensions(xv, r*b, n, d)
	gamma := tensors.FromFlatDataAndDimensions(gv, r, d)
	outs, err := exec.Exec(x, gamma)
	if err != nil {
		t.Fatal(err)
	}
	for j, what := range []string{"output", "d/dx", "d/dγ"} {
		fast, plain := outs[j], outs[3+j]
		if diff := tensortest.MaxAbsDiff(t, plain, fast); !(diff <= 1e-5*max(1, tensortest.MaxAbs(fast))) {
			t.Errorf("%s: plain form differs from the kernel's by %g", what, diff)
		}
	}
}

// TestPlainKernelsMatchFast: one training step of the whole model on a real
// batch (GunPoint, the reproduction's preset, dropout off), in both phases,
// one run and two on a run axis (each run 12 of the 24 series), built twice on
// the same weights — with the kernels of internal/kernels and with their
// plain forms (Build.Plain, plain.go) — gives the same loss (relative 1e-5)
// and the same gradient for every trainable variable (checkSameStep). One run
// covers MatMul2D and the Inception's convolutions, the run axis
// BatchedMatMul.
func TestPlainKernelsMatchFast(t *testing.T) {
	ds := loadUCR(t, "GunPoint")
	p, err := Preset(ProtocolReferenceFresh)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig().WithProtocol(p)
	cfg.Dropout = 0
	m, err := New(cfg, ds.Length, ds.NumClasses(), RefShapeLength(ds.Name, ds.Length))
	if err != nil {
		t.Fatal(err)
	}
	xt, yt := realBatch(ds, 24)
	for _, runs := range []int{1, 2} {
		for _, phase := range []Phase{Dense, Sparse} {
			t.Run(fmt.Sprintf("R%d_%s", runs, phase), func(t *testing.T) {
				kernelsModel := onRunAxis(m, runs)
				plainModel := onRunAxis(m, runs)
				plainModel.Plain = true
				store := stepStore(t, cfg, 5, runs)
				fastVars, fast := trainStep(t, store, kernelsModel, phase, xt, yt) // initialises the variables both graphs use
				plainVars, plain := trainStep(t, store, plainModel, phase, xt, yt)
				if !slices.Equal(fastVars, plainVars) {
					t.Fatalf("trainable variables differ: %q with the kernels, %q with the plain forms", fastVars, plainVars)
				}
				checkSameStep(t, fastVars, "plain forms", "kernels", plain, fast)
			})
		}
	}
}

// stepStore is a store for cfg's model with the given initial seed; with a
// run axis (runs > 1) it holds the runs' RNG states, each the store's own.
func stepStore(t *testing.T, cfg Config, seed int64, runs int) *model.Store {
	t.Helper()
	store := model.NewStore()
	t.Cleanup(store.Finalize)
	cfg.Apply(store)
	store.RootScope().SetParam(model.ParamInitialSeed, seed)
	if runs == 1 {
		return store
	}
	if err := store.SetRNGStateFromSeed(0); err != nil {
		t.Fatal(err)
	}
	rng, err := store.GetVariable(model.JoinPath("/", model.RNGStateVariableName)).Value()
	if err != nil {
		t.Fatal(err)
	}
	states, err := stackTensors(slices.Repeat([]*tensors.Tensor{rng}, runs))
	if err != nil {
		t.Fatal(err)
	}
	v, err := store.RootScope().CreateVariable(runRNGStatesName, states)
	if err != nil {
		t.Fatal(err)
	}
	v.SetTrainable(false)
	return store
}

// trainStep builds and runs one training step of m on store: the loss (the
// runs' losses summed), then the gradient of each trainable variable.
func trainStep(t *testing.T, store *model.Store, m *Model, phase Phase, xt, yt *tensors.Tensor) ([]string, []*tensors.Tensor) {
	t.Helper()
	var vars []string
	exec, err := model.NewExec(testBackend(t), store, func(scope *model.Scope, x, y *graph.Node) []*graph.Node {
		g := x.Graph()
		store.SetTraining(g, true)
		out := m.Forward(scope, x, phase)
		loss := runLoss(out.Logits, y, graph.ReduceAllSum(out.AuxLoss), m.Config.MoELossWeight)
		var ws []*graph.Node
		for v := range store.IterVariables() {
			if v.Trainable && v.InUseByGraph(g) {
				vars = append(vars, v.Path())
				ws = append(ws, v.NodeValue(g))
			}
		}
		return append([]*graph.Node{loss}, graph.Gradient(loss, ws...)...)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	outs, err := exec.Call(xt, yt)
	if err != nil {
		t.Fatal(err)
	}
	return vars, outs
}

// realBatch is a training batch of size series of ds (every 7th, wrapping
// around) with their labels.
func realBatch(ds *data.Dataset, size int) (*tensors.Tensor, *tensors.Tensor) {
	x := make([][]float32, len(ds.Series))
	for i, s := range ds.Series {
		x[i] = make([]float32, len(s))
		for j, v := range s {
			x[i][j] = float32(v)
		}
	}
	idx := make([]int, size)
	for i := range idx {
		idx[i] = (7 * i) % len(x)
	}
	return BatchTensors(x, ds.Labels, idx)
}

// checkSameStep wants two training steps, each its loss then the gradients
// of vars, to agree: the loss to relative 1e-5 and every gradient within
// 1e-4 of its largest entry in want (or of 1e-6 where that is smaller: the
// router starts at zero, its gradient a difference of near-equal terms).
func checkSameStep(t *testing.T, vars []string, wantName, gotName string, want, got []*tensors.Tensor) {
	t.Helper()
	lw, lg := scalarOf(want[0]), scalarOf(got[0])
	if d := relDiff(lw, lg); d > 1e-5 {
		t.Errorf("loss: %s %.7g, %s %.7g (relative difference %.2g)", wantName, lw, gotName, lg, d)
	}
	worst := 0.0
	for i, v := range vars {
		scale := tensortest.MaxAbs(want[1+i])
		diff := tensortest.MaxAbsDiff(t, got[1+i], want[1+i])
		if diff > 1e-4*max(scale, 1e-6) {
			t.Errorf("gradient of %s differs by %.3g (largest entry %.3g)", v, diff, scale)
		}
		worst = max(worst, diff/max(scale, 1e-6))
	}
	t.Logf("%d variables, loss %.7g: largest gradient difference %.2g of its largest entry (or of 1e-6)", len(vars), lw, worst)
}

// scalarOf reads a scalar float tensor as float64.
func scalarOf(t *tensors.Tensor) float64 {
	switch v := t.Value().(type) {
	case float32:
		return float64(v)
	case float64:
		return v
	default:
		return math.NaN()
	}
}
