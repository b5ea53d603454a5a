package softshape

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/softshape-go/softshape/data"
)

// runAxisCase is R runs of one dataset as model copies (a job's runs alone,
// whose equivalence to training alone the TrainRuns tests check) and as one model
// with a run axis holding the same weights and RNG states.
type runAxisCase struct {
	job    *job
	m      *Model
	runs   *model.Store
	x, y   []*tensors.Tensor // each run's batch
	folded [2]*tensors.Tensor
}

func newRunAxisCase(t *testing.T, ds *data.Dataset, cfg Config, seeds []int64, batch, refShapeLen int) *runAxisCase {
	t.Helper()
	specs := make([]RunSpec, len(seeds))
	for i, s := range seeds {
		specs[i] = RunSpec{Config: cfg, Seed: s, Fold: i % ProtocolFolds}
	}
	chains, err := planChains(ds, specs, RunOptions{NumFolds: ProtocolFolds, RefShapeLen: refShapeLen})
	if err != nil {
		t.Fatal(err)
	}
	j, err := newJob(testBackend(t), chains, refShapeLen)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.finalize)
	if err := j.materialize(Sparse, batch); err != nil {
		t.Fatal(err)
	}
	// Initial weights are alike across runs where they start at zero or one
	// (biases, gains, the router): make every weight its run's own.
	for si := range j.chains {
		rng := rand.New(rand.NewPCG(uint64(si), 7))
		for v := range j.alone[si].store.IterVariables() {
			if !v.Trainable {
				continue
			}
			val, err := v.Value()
			if err != nil {
				t.Fatal(err)
			}
			flat := tensors.MustCopyFlatData[float32](val)
			for k := range flat {
				flat[k] += float32(0.05 * rng.NormFloat64())
			}
			if err := v.SetValue(tensors.FromFlatDataAndDimensions(flat, val.Shape().Dimensions...)); err != nil {
				t.Fatal(err)
			}
		}
	}
	rs := storeFor(chains[0].m, refShapeLen)
	t.Cleanup(rs.Finalize)
	if err := rs.SetRNGStateFromSeed(0); err != nil {
		t.Fatal(err)
	}
	if err := addStacked(j, rs); err != nil {
		t.Fatal(err)
	}
	c := &runAxisCase{job: j, m: chains[0].m, runs: rs}
	var allX [][]float32
	var allY []int
	for _, ch := range chains {
		fd := ch.fds[0]
		idx := make([]int, batch)
		for k := range idx {
			idx[k] = (3*k + 1) % len(fd.TrainY)
		}
		xt, yt := BatchTensors(fd.TrainX, fd.TrainY, idx)
		c.x, c.y = append(c.x, xt), append(c.y, yt)
		for _, k := range idx {
			allX, allY = append(allX, fd.TrainX[k]), append(allY, fd.TrainY[k])
		}
	}
	all := make([]int, len(allY))
	for k := range all {
		all[k] = k
	}
	c.folded[0], c.folded[1] = BatchTensors(allX, allY, all)
	return c
}

// copiesStep runs the model copies (the runs' jobs alone) on their batches:
// each run's logits and loss, and (training) the gradient of its loss for
// each of its trainable variables, by path.
func (c *runAxisCase) copiesStep(t *testing.T, phase Phase, training bool) (logits [][]float32, losses []float64, grads []map[string][]float32) {
	t.Helper()
	for i, a := range c.job.alone {
		var names []string
		e, err := model.NewExec(a.backend, a.store, func(scope *model.Scope, x, y *graph.Node) []*graph.Node {
			g := x.Graph()
			a.store.SetTraining(g, training)
			out := a.m.Forward(scope, x, phase)
			l := runLoss(out.Logits, y, out.AuxLoss, a.chains[0].cfg.MoELossWeight)
			outs := []*graph.Node{out.Logits, l}
			if !training {
				return outs
			}
			var vs []*graph.Node
			for v := range a.store.IterVariables() {
				if v.Trainable && v.InUseByGraph(g) {
					names = append(names, v.Path())
					vs = append(vs, v.NodeValue(g))
				}
			}
			return append(outs, graph.Gradient(l, vs...)...)
		})
		if err != nil {
			t.Fatal(err)
		}
		outs, err := e.Call(c.x[i], c.y[i])
		e.Finalize()
		if err != nil {
			t.Fatal(err)
		}
		logits = append(logits, tensors.MustCopyFlatData[float32](outs[0]))
		losses = append(losses, float64(tensors.MustCopyFlatData[float32](outs[1])[0]))
		grads = append(grads, map[string][]float32{})
		for k, n := range names {
			grads[i][n] = tensors.MustCopyFlatData[float32](outs[2+k])
		}
	}
	return logits, losses, grads
}

// axisStep runs the run-axis model on the folded batch: the logits, each
// run's loss and (training) the gradient of their sum for each trainable
// variable ([R, …] flattened), by path.
func (c *runAxisCase) axisStep(t *testing.T, phase Phase, training bool) (logits []float32, losses []float64, grads map[string][]float32) {
	t.Helper()
	r := len(c.job.chains)
	lambda := c.m.Config.MoELossWeight
	var names []string
	e, err := model.NewExec(c.job.backend, c.runs, func(scope *model.Scope, x, y *graph.Node) []*graph.Node {
		g := x.Graph()
		c.runs.SetTraining(g, training)
		out := onRunAxis(c.m, r).Forward(scope, x, phase)
		b := x.Shape().Dimensions[0] / r
		var losses []*graph.Node
		var total *graph.Node
		aux := out.AuxLoss
		for i := range r {
			rows := graph.AxisRange(i*b, (i+1)*b)
			var auxI *graph.Node
			if aux.Shape().IsScalar() {
				auxI = aux
			} else {
				auxI = runRow(aux, i)
			}
			l := runLoss(graph.Slice(out.Logits, rows), graph.Slice(y, rows), auxI, lambda)
			losses = append(losses, l)
			if total == nil {
				total = l
			} else {
				total = graph.Add(total, l)
			}
		}
		outs := append([]*graph.Node{out.Logits}, losses...)
		if training {
			var vs []*graph.Node
			for v := range c.runs.RootScope().IterVariables() {
				if v.Trainable && v.InUseByGraph(g) {
					names = append(names, v.Path())
					vs = append(vs, v.NodeValue(g))
				}
			}
			outs = append(outs, graph.Gradient(total, vs...)...)
		}
		return outs
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Finalize()
	outs, err := e.Call(c.folded[0], c.folded[1])
	if err != nil {
		t.Fatal(err)
	}
	logits = tensors.MustCopyFlatData[float32](outs[0])
	for i := range r {
		losses = append(losses, float64(tensors.MustCopyFlatData[float32](outs[1+i])[0]))
	}
	grads = map[string][]float32{}
	for k, n := range names {
		grads[n] = tensors.MustCopyFlatData[float32](outs[1+r+k])
	}
	return logits, losses, grads
}

// sliceRelDiff is max|a−b| / max(max|b|, 1e-3): the largest difference relative
// to the size of the reference values (1e-3 floors all-but-zero gradients).
func sliceRelDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var diff, size float64
	for i := range a {
		diff = max(diff, math.Abs(float64(a[i]-b[i])))
		size = max(size, math.Abs(float64(b[i])))
	}
	return diff / max(size, 1e-3)
}

// TestRunAxisMatchesModelCopies: three runs (seeds 1–3, folds 1–3 of
// generated CBF) as one model with a run axis compute what their three model
// copies compute, in both phases: the logits in inference; in training, with
// dropout drawn from each run's own RNG state, each run's loss (cross-entropy
// plus λ·aux) and its gradient for every variable, all within 1e-5 relative.
// Every run's weights are its own (noise added to the initial ones), so a
// run reading another's weights, gain or RNG state fails it.
// The run axis's convolutions sum in another order than the copies'
// (NestedSameConvs), so the results are not bit-identical.
func TestRunAxisMatchesModelCopies(t *testing.T) {
	cfg := batchTestConfig()
	if cfg.Dropout <= 0 {
		t.Fatalf("dropout %g: the test needs dropout to check each run's RNG stream", cfg.Dropout)
	}
	checkRunAxisStep(t, data.CBF(30, 64, 3), cfg, 0)
}

// TestRunAxisStepGunPoint is TestRunAxisMatchesModelCopies on GunPoint with
// the default configuration and the authors' shape length.
func TestRunAxisStepGunPoint(t *testing.T) {
	ds := loadUCR(t, "GunPoint")
	checkRunAxisStep(t, ds, DefaultConfig(), RefShapeLength("GunPoint", ds.Length))
}

func checkRunAxisStep(t *testing.T, ds *data.Dataset, cfg Config, refShapeLen int) {
	const tol = 1e-5
	c := newRunAxisCase(t, ds, cfg, []int64{1, 2, 3}, 8, refShapeLen)
	r := len(c.job.chains)
	for _, phase := range []Phase{Dense, Sparse} {
		for _, training := range []bool{false, true} {
			name := fmt.Sprintf("%s training=%v", phase, training)
			wantLogits, wantLoss, wantGrads := c.copiesStep(t, phase, training)
			gotLogits, gotLoss, gotGrads := c.axisStep(t, phase, training)
			n := len(gotLogits) / r
			worst := 0.0
			for i := range r {
				if d := sliceRelDiff(gotLogits[i*n:(i+1)*n], wantLogits[i]); d > tol {
					t.Errorf("%s: run %d logits differ by %.3g relative", name, i, d)
				}
				d := math.Abs(gotLoss[i]-wantLoss[i]) / math.Abs(wantLoss[i])
				worst = max(worst, d)
				if d > tol {
					t.Errorf("%s: run %d loss %.9g, its model copy %.9g", name, i, gotLoss[i], wantLoss[i])
				}
			}
			if !training {
				continue
			}
			paths := make([]string, 0, len(gotGrads))
			for p := range gotGrads {
				paths = append(paths, p)
			}
			sort.Strings(paths)
			if len(paths) == 0 || len(paths) != len(wantGrads[0]) {
				t.Fatalf("%s: %d variables with a run axis, %d in a model copy", name, len(paths), len(wantGrads[0]))
			}
			for _, p := range paths {
				g := gotGrads[p]
				m := len(g) / r
				for i := range r {
					want, ok := wantGrads[i][p]
					if !ok {
						t.Fatalf("%s: model copy %d has no gradient for %s", name, i, p)
					}
					if d := sliceRelDiff(g[i*m:(i+1)*m], want); d > tol {
						t.Errorf("%s: run %d gradient of %s differs by %.3g relative", name, i, p, d)
					}
				}
			}
			t.Logf("%s: losses %.6f %.6f %.6f, largest relative loss difference %.3g, %d variables", name,
				gotLoss[0], gotLoss[1], gotLoss[2], worst, len(paths))
		}
	}
}

// compareAxisRun checks a run trained on a run axis against the same fold
// trained alone: the same epochs, phases, batch size and parameters, and every
// epoch's training and validation loss within tol relative. It returns the
// largest relative differences of the warm-up (dense) and later epochs.
//
// The run axis's products round otherwise than a single run's (a batched
// product, the convolutions as windows times kernels), so whole runs agree
// within float32 rounding only where the model makes no discrete choice that a
// last-bit difference could flip: top-1 routing from a zero-initialised router
// and the top-K shapes do, now and then, on any CPU and SIMD level, as between
// two backends (agreeSteps). Whole-run tests therefore train a configuration
// without them (continuousConfig); the sparse phase at the default settings is
// checked one step from identical weights (TestRunAxisMatchesModelCopies,
// TestRunAxisStepGunPoint).
func compareAxisRun(t *testing.T, name string, got, want FoldResult, warmUp int, tol float64) (first, later float64) {
	t.Helper()
	if got.EpochsRun != want.EpochsRun || len(got.History) != len(want.History) {
		t.Errorf("%s: %d epochs run (%d in history), alone %d (%d)", name, got.EpochsRun, len(got.History), want.EpochsRun, len(want.History))
		return math.Inf(1), math.Inf(1)
	}
	for e := range got.History {
		g, w := got.History[e], want.History[e]
		for _, p := range [][3]any{{"train loss", g.TrainLoss, w.TrainLoss}, {"val loss", g.ValLoss, w.ValLoss}} {
			d := relDiff(p[1].(float64), p[2].(float64))
			if e >= warmUp {
				later = max(later, d)
			} else {
				first = max(first, d)
			}
			if d > tol {
				t.Errorf("%s epoch %d %s: run axis %.9g, alone %.9g (rel diff %.3g > %g)", name, e, p[0], p[1], p[2], d, tol)
			}
		}
		if g.Phase != w.Phase {
			t.Errorf("%s epoch %d: phase %v, alone %v", name, e, g.Phase, w.Phase)
		}
	}
	if got.BatchSize != want.BatchSize || got.Params != want.Params {
		t.Errorf("%s: batch %d params %d, alone %d %d", name, got.BatchSize, got.Params, want.BatchSize, want.Params)
	}
	return first, later
}

// continuousConfig returns cfg with every discrete choice of the sparse phase
// taken away, so that rounding cannot flip one: η = 0 (no top-K shapes to
// pick) and the MoE in every layer with k = Ĉ = classes (every token goes to
// every expert). The sparse phase still differs from the warm-up (the MoE and
// its balance losses train), so the phase change is exercised.
func continuousConfig(cfg Config, classes int) Config {
	cfg.SparseRatio, cfg.ExpertsK, cfg.MoELayers = 0, classes, MoELayersAll
	return cfg
}

// TestRunAxisFiveFoldsMatchTrain: the five folds of generated CBF trained as
// one model with a run axis (RunOptions.RunAxis, R = 5) give, run by run, the
// losses of training that fold alone within 1e-5 relative every epoch
// (continuousConfig: nothing discrete to flip), although the folds' training
// splits differ in size (55 or 56 series: 11 or 12 steps of 5 per epoch, so
// one run sits out the last step and the last batches are padded), and they
// build one training graph per phase and batch layout, not one per set of
// runs.
func TestRunAxisFiveFoldsMatchTrain(t *testing.T) {
	ds := data.CBF(31, 64, 5)
	cfg := continuousConfig(batchTestConfig(), ds.NumClasses())
	var runs []RunSpec
	for f := range 5 {
		runs = append(runs, RunSpec{Config: cfg, Seed: 5, Fold: f})
	}
	got, graphs, err := trainRunsCounted(ds, runs, RunOptions{Execution: Execution{RunAxis: RunAxisOn}, Backend: testBackend(t)}, testMaxRuns)
	if err != nil {
		t.Fatal(err)
	}
	var first, later float64
	for i, r := range runs {
		want := alone(t, ds, r, 0)
		f, l := compareAxisRun(t, "fold "+string(rune('1'+i)), got[i], want, cfg.WarmUpEpochs, 1e-5)
		first, later = max(first, f), max(later, l)
		t.Logf("fold %d: test acc %.4f (alone %.4f), best epoch %d (alone %d)", i+1, got[i].TestAcc, want.TestAcc, got[i].BestEpoch, want.BestEpoch)
	}
	t.Logf("R=5 with a run axis on CBF: largest relative loss difference to training alone %.3g (warm-up), %.3g (sparse), %d graphs",
		first, later, graphs)
	// Per phase: the full-batch step, the last step's layout, the
	// validation pass; plus each run's test evaluation on its model apart.
	if graphs > 11 {
		t.Errorf("%d graphs: the run axis should build at most 11 here", graphs)
	}
}

// TestRunAxisGunPointMatchesTrain is TestRunAxisFiveFoldsMatchTrain on a real
// dataset: GunPoint's first three folds (the authors' m=32), 2 dense + 2 sparse
// epochs of continuousConfig, with a run axis against each fold trained
// alone, within 1e-5 every epoch.
func TestRunAxisGunPointMatchesTrain(t *testing.T) {
	if testing.Short() {
		t.Skip("six GunPoint runs take a minute; run without -short")
	}
	ds, runs, ref := gunPointRuns(t)
	for i := range runs {
		runs[i].Config = continuousConfig(runs[i].Config, ds.NumClasses())
	}
	got, err := TrainRuns(ds, runs, RunOptions{Execution: Execution{MaxRuns: testMaxRuns, RunAxis: RunAxisOn}, Backend: testBackend(t), RefShapeLen: ref})
	if err != nil {
		t.Fatal(err)
	}
	var first, later float64
	for i, r := range runs {
		want := alone(t, ds, r, ref)
		f, l := compareAxisRun(t, "GunPoint fold "+string(rune('1'+i)), got[i], want, r.Config.WarmUpEpochs, 1e-5)
		first, later = max(first, f), max(later, l)
	}
	t.Logf("R=%d with a run axis on GunPoint: largest relative loss difference to training alone %.3g (warm-up), %.3g (sparse)", len(runs), first, later)
}

// TestRunAxisVariantsAndEarlyStop: runs that differ in learning rate, λ,
// epochs and patience share one run axis and each matches training alone
// within 1e-5 every epoch; the runs with fewer epochs, or that stop early,
// are masked while the others train on. The configuration has no discrete
// choice to flip (η = 0, so no top-K shapes; the MoE in every layer with
// k = Ĉ, so no routing choice), so the runs cannot drift apart by rounding
// (compareAxisRun).
func TestRunAxisVariantsAndEarlyStop(t *testing.T) {
	checkRunAxisVariants(t, testBackend(t))
}

// checkRunAxisVariants is TestRunAxisVariantsAndEarlyStop on backend.
func checkRunAxisVariants(t *testing.T, backend compute.Backend) {
	ds := data.CBF(31, 64, 11)
	base := batchTestConfig()
	base.Epochs, base.WarmUpEpochs = 8, 2
	base = continuousConfig(base, ds.NumClasses())
	var runs []RunSpec
	for i, v := range []struct {
		lr, lambda       float64
		epochs, patience int
	}{{1e-3, 0.01, 8, 0}, {3e-3, 0.1, 8, 1}, {1e-3, 0, 5, 0}, {2e-3, 0.05, 8, 1}} {
		cfg := base
		cfg.LearningRate, cfg.MoELossWeight, cfg.Epochs, cfg.Patience = v.lr, v.lambda, v.epochs, v.patience
		runs = append(runs, RunSpec{Config: cfg, Seed: 11, Fold: i})
	}
	got, err := TrainRuns(ds, runs, RunOptions{Execution: Execution{MaxRuns: testMaxRuns, RunAxis: RunAxisOn}, Backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	epochs := map[int]bool{}
	for i, r := range runs {
		res, err := Train(ds, r.Config, RunOptions{Backend: backend, Seed: r.Seed, Folds: []int{r.Fold}})
		if err != nil {
			t.Fatal(err)
		}
		want := res.Folds[0]
		first, later := compareAxisRun(t, fmt.Sprintf("run %d", i), got[i], want, base.WarmUpEpochs, 1e-5)
		if got[i].BestEpoch != want.BestEpoch || got[i].TestAcc != want.TestAcc {
			t.Errorf("run %d: best epoch %d test acc %.4f, alone %d %.4f", i, got[i].BestEpoch, got[i].TestAcc, want.BestEpoch, want.TestAcc)
		}
		epochs[got[i].EpochsRun] = true
		t.Logf("run %d (lr %g λ %g): %d epochs (alone %d), test acc %.4f, loss differences %.3g / %.3g", i,
			r.Config.LearningRate, r.Config.MoELossWeight, got[i].EpochsRun, want.EpochsRun, got[i].TestAcc, first, later)
	}
	if len(epochs) < 2 {
		t.Errorf("every run ran the same number of epochs (%v): the test needs runs leaving at different epochs", epochs)
	}
}

// trainRunsCounted is TrainRunsCounted with at most maxRuns runs at a time.
func trainRunsCounted(ds *data.Dataset, runs []RunSpec, opts RunOptions, maxRuns int) ([]FoldResult, int, error) {
	opts.MaxRuns = maxRuns
	return TrainRunsCounted(ds, runs, opts)
}
