package fit

import (
	"math"
	"slices"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	_ "github.com/gomlx/compute/gobackend"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// adamSteps trains w (initial values w0, dimensions dims) on the loss
// Σ w·x, whose gradient is x, for steps Adam steps of rates(step) and keep,
// and returns w and its first moment.
func adamSteps(t *testing.T, w0, x []float32, dims []int, steps int,
	rates func(step *graph.Node) AdamRates, keep func(g *graph.Graph) *graph.Node) (w, m1 []float32) {
	t.Helper()
	backend, err := compute.NewWithConfig("go")
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	store := model.NewStore()
	defer store.Finalize()
	wVar := store.RootScope().VariableWithValue("w", tensors.FromFlatDataAndDimensions(w0, dims...))
	exec, err := model.NewExec(backend, store, func(scope *model.Scope, xs, step *graph.Node) *graph.Node {
		g := xs.Graph()
		loss := graph.ReduceAllSum(graph.Mul(wVar.NodeValue(g), xs))
		grads := scope.BuildTrainableVariablesGradientsGraph(loss)
		AdamUpdate(store, "/adam", scope, g, grads, dtypes.Float32, func(*model.Variable) (AdamRates, *graph.Node) {
			return rates(step), keep(g)
		})
		return loss
	})
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	for s := 1; s <= steps; s++ {
		out, err := exec.Call(tensors.FromFlatDataAndDimensions(x, dims...), float32(s))
		if err != nil {
			t.Fatalf("step %d: %v", s, err)
		}
		out[0].FinalizeAll()
	}
	val, err := wVar.Value()
	if err != nil {
		t.Fatal(err)
	}
	m1Val, err := store.GetVariable("/adam/w_1st_moment").Value()
	if err != nil {
		t.Fatal(err)
	}
	return tensors.MustCopyFlatData[float32](val), tensors.MustCopyFlatData[float32](m1Val)
}

func near(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-5 {
			return false
		}
	}
	return true
}

// TestAdamUpdate: under a constant gradient g Adam's debiased step is
// lr·g/(|g|+ε) at every step (m₁/(1−β₁ᵗ) = g, m₂/(1−β₂ᵗ) = g²), so w
// moves by lr against the gradient's sign each step, and the first moment
// after t steps is (1−β₁ᵗ)·g.
func TestAdamUpdate(t *testing.T) {
	lr := func(step *graph.Node) AdamRates {
		return NewAdamRates(graph.Scalar(step.Graph(), dtypes.Float32, 0.1), step)
	}
	none := func(*graph.Graph) *graph.Node { return nil }
	w, m1 := adamSteps(t, []float32{1, 2}, []float32{3, -0.5}, []int{2}, 2, lr, none)
	if want := []float32{0.8, 2.2}; !near(w, want) {
		t.Errorf("w after 2 steps: %v, want %v", w, want)
	}
	if want := []float32{0.19 * 3, 0.19 * -0.5}; !near(m1, want) {
		t.Errorf("first moment after 2 steps: %v, want %v", m1, want)
	}
}

// TestAdamUpdateRunAxis: a variable [2, 2] holding two runs, one learning
// rate per run (0.1, 0.2) reshaped to [2, 1], and run 1 kept out of the
// step: run 0 moves by 0.1 per step against the gradient, run 1 and its
// moments do not change.
func TestAdamUpdateRunAxis(t *testing.T) {
	rates := func(step *graph.Node) AdamRates {
		g := step.Graph()
		lrs := graph.Const(g, []float32{0.1, 0.2})
		steps := graph.BroadcastToDims(step, 2)
		return NewAdamRates(lrs, steps).Reshape(2, 1)
	}
	keep := func(g *graph.Graph) *graph.Node {
		return graph.Const(g, [][]bool{{true, true}, {false, false}})
	}
	w, m1 := adamSteps(t, []float32{1, 2, 3, 4}, []float32{3, -0.5, 1, 1}, []int{2, 2}, 3, rates, keep)
	if want := []float32{0.7, 2.3, 3, 4}; !near(w, want) {
		t.Errorf("w after 3 steps: %v, want %v", w, want)
	}
	f := float32(1 - 0.9*0.9*0.9)
	if want := []float32{f * 3, f * -0.5, 0, 0}; !near(m1, want) {
		t.Errorf("first moment after 3 steps: %v, want %v", m1, want)
	}
}

// TestAdamIsGoMLXAdam trains a small variable for five steps on a loss with
// a gradient that changes every step (Σ w²·x), once with GoMLX's
// optimizer.Adam as softshape configured it and once with Adam, and checks
// that both end with the same variables, the same names (checkpoints of one
// load in the other) and the same values to the bit.
func TestAdamIsGoMLXAdam(t *testing.T) {
	backend, err := compute.NewWithConfig("go")
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	train := func(update func(scope *model.Scope, g *graph.Graph, loss *graph.Node)) map[string][]float32 {
		store := model.NewStore()
		defer store.Finalize()
		wVar := store.RootScope().In("layer").VariableWithValue("w", []float32{1, -2, 0.5})
		exec, err := model.NewExec(backend, store, func(scope *model.Scope, xs *graph.Node) *graph.Node {
			g := xs.Graph()
			w := wVar.NodeValue(g)
			loss := graph.ReduceAllSum(graph.Mul(graph.Mul(w, w), xs))
			update(scope, g, loss)
			return loss
		})
		if err != nil {
			t.Fatal(err)
		}
		defer exec.Finalize()
		for range 5 {
			out, err := exec.Call([]float32{3, -0.5, 1})
			if err != nil {
				t.Fatal(err)
			}
			out[0].FinalizeAll()
		}
		vars := map[string][]float32{}
		for v := range store.IterVariables() {
			val, err := v.Value()
			if err != nil {
				t.Fatal(err)
			}
			if v.Shape().DType == dtypes.Float32 {
				vars[v.Path()] = tensors.MustCopyFlatData[float32](val)
			} else {
				vars[v.Path()] = nil // the global step, an int64
			}
		}
		return vars
	}
	want := train(optimizer.Adam().LearningRate(0.1).Epsilon(AdamEpsilon).Done().UpdateGraph)
	got := train(Adam{LearningRate: 0.1}.UpdateGraph)
	if len(got) != len(want) {
		t.Errorf("Adam has variables %v, GoMLX's Adam %v", keys(got), keys(want))
	}
	for p, w := range want {
		g, ok := got[p]
		if !ok {
			t.Errorf("Adam has no variable %s (it has %v)", p, keys(got))
			continue
		}
		for i := range w {
			if math.Float32bits(g[i]) != math.Float32bits(w[i]) {
				t.Errorf("%s[%d] = %v, GoMLX's Adam %v", p, i, g[i], w[i])
			}
		}
	}
	if w := want["/layer/w"]; len(w) != 3 || w[0] == 1 {
		t.Errorf("w after 5 steps %v: did not train", w)
	}
}

func keys(m map[string][]float32) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
