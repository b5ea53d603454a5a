package softshape

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/ucrtest"
)

// testMaxRuns puts every run of a test in one graph: backends.DefaultMaxRuns
// is 1 on every backend but pure Go, which would train them one at a time.
const testMaxRuns = 10

// batchTestConfig is a small, quick model: d=32, 3 dense + 3 sparse epochs.
func batchTestConfig() Config {
	cfg := DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs, cfg.EmbedDim = 6, 3, 32
	return cfg
}

// copiesTol is the relative loss difference allowed, every epoch, between a
// run trained as a model copy beside others (or resumed, or stopped early) and the
// same run trained alone. Each copy is the single-run graph's computation, op
// for op on the same shapes, so on the CPU backends the results are
// bit-identical (0), sparse epochs included, whatever the SIMD level. XLA may
// fuse a graph of several copies otherwise than one copy (on a GPU it is not
// even bit-repeatable between graphs), so there only float32 rounding is
// promised (1e-5), which top-1 routing can exceed in the sparse epochs.
func copiesTol(t *testing.T) float64 {
	if strings.HasPrefix(strings.ToLower(testBackend(t).Name()), "xla") {
		return 1e-5
	}
	return 0
}

// compareRun checks a batched run's result against the same fold trained
// alone: epochs run, best epoch and test accuracy equal, every epoch's train
// and validation loss within tol relative (tol 0: bit-identical). It returns
// the largest relative difference seen.
func compareRun(t *testing.T, name string, got, want FoldResult, tol float64) float64 {
	t.Helper()
	worst := 0.0
	if got.EpochsRun != want.EpochsRun || len(got.History) != len(want.History) {
		t.Errorf("%s: %d epochs run (%d in history), alone %d (%d)", name, got.EpochsRun, len(got.History), want.EpochsRun, len(want.History))
		return math.Inf(1)
	}
	for e := range got.History {
		g, w := got.History[e], want.History[e]
		for _, p := range [][3]any{{"train loss", g.TrainLoss, w.TrainLoss}, {"val loss", g.ValLoss, w.ValLoss}} {
			d := relDiff(p[1].(float64), p[2].(float64))
			worst = max(worst, d)
			if d > tol {
				t.Errorf("%s epoch %d %s: batched %.9g, alone %.9g (rel diff %.3g > %g)", name, e, p[0], p[1], p[2], d, tol)
			}
		}
		if g.Phase != w.Phase || g.Selected != w.Selected {
			t.Errorf("%s epoch %d: phase %v selected %v, alone %v %v", name, e, g.Phase, g.Selected, w.Phase, w.Selected)
		}
		if tol == 0 && (g.TrainAcc != w.TrainAcc || g.ValAcc != w.ValAcc) {
			t.Errorf("%s epoch %d: train acc %v val acc %v, alone %v %v", name, e, g.TrainAcc, g.ValAcc, w.TrainAcc, w.ValAcc)
		}
	}
	if got.BestEpoch != want.BestEpoch || got.TestAcc != want.TestAcc || got.SelectedPhase != want.SelectedPhase {
		t.Errorf("%s: best epoch %d (%v) test acc %.4f, alone %d (%v) %.4f", name, got.BestEpoch, got.SelectedPhase, got.TestAcc,
			want.BestEpoch, want.SelectedPhase, want.TestAcc)
	}
	if got.BatchSize != want.BatchSize || got.Params != want.Params {
		t.Errorf("%s: batch %d params %d, alone %d %d", name, got.BatchSize, got.Params, want.BatchSize, want.Params)
	}
	return worst
}

// alone trains one fold of ds with Train (the per-run reference path).
func alone(t *testing.T, ds *data.Dataset, r RunSpec, refShapeLen int) FoldResult {
	t.Helper()
	res, err := Train(ds, r.Config, RunOptions{Backend: testBackend(t), Seed: r.Seed, Folds: []int{r.Fold}, RefShapeLen: refShapeLen})
	if err != nil {
		t.Fatal(err)
	}
	return res.Folds[len(res.Folds)-1]
}

// TestTrainRunsOneRunIsTrain: with R = 1 the model copies are the same
// computation as Train, which trains a fresh fold on a run axis of one run
// (the single-run model and step): every epoch's losses and accuracies are
// bit-identical on one backend, and so are the selected epoch and the test
// accuracy (generated CBF, 3 dense + 3 sparse epochs with dropout, so the
// RNG stream and the MoE's initialisation after the warm-up are covered
// too).
func TestTrainRunsOneRunIsTrain(t *testing.T) {
	ds := data.CBF(30, 64, 3)
	r := RunSpec{Config: batchTestConfig(), Seed: 3, Fold: 1}
	got, err := TrainRuns(ds, []RunSpec{r}, RunOptions{Execution: Execution{MaxRuns: testMaxRuns, RunAxis: RunAxisOff}, Backend: testBackend(t)})
	if err != nil {
		t.Fatal(err)
	}
	want := alone(t, ds, r, 0)
	if got[0].RunAxis || want.RunAxis {
		t.Errorf("run axis reported: copies %t, alone %t; want false (R = 1)", got[0].RunAxis, want.RunAxis)
	}
	compareRun(t, "R=1", got[0], want, 0)
	t.Logf("R=1: test acc %.4f (alone %.4f), epoch-0 train loss %.9g (alone %.9g)", got[0].TestAcc, want.TestAcc,
		got[0].History[0].TrainLoss, want.History[0].TrainLoss)
}

// TestTrainBatchesFoldsWhenAsked: Train with MaxRuns > 1 trains its folds in
// one graph (the path a CUDA backend takes by default) and returns, fold by
// fold, what it returns one fold at a time (MaxRuns 1, the CPU default):
// the same losses every epoch (bit for bit on the CPU backends, copiesTol), same selection and test
// accuracy, and the same mean.
func TestTrainBatchesFoldsWhenAsked(t *testing.T) {
	ds := data.CBF(31, 64, 7)
	cfg := batchTestConfig()
	one, err := Train(ds, cfg, RunOptions{Execution: Execution{MaxRuns: 1}, Backend: testBackend(t), Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	batched, err := Train(ds, cfg, RunOptions{Execution: Execution{MaxRuns: 5, RunAxis: RunAxisOff}, Backend: testBackend(t), Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(batched.Folds) != 5 || len(one.Folds) != 5 {
		t.Fatalf("%d batched folds, %d one at a time: want 5 each", len(batched.Folds), len(one.Folds))
	}
	for i := range one.Folds {
		if batched.Folds[i].Fold != i {
			t.Errorf("batched fold %d reports fold %d", i, batched.Folds[i].Fold)
		}
		compareRun(t, "fold "+string(rune('1'+i)), batched.Folds[i], one.Folds[i], copiesTol(t))
	}
	if batched.MeanAcc != one.MeanAcc {
		t.Errorf("mean accuracy %.4f batched, %.4f one at a time", batched.MeanAcc, one.MeanAcc)
	}
}

// TestTrainRunsFiveFoldsMatchTrain: the five folds of generated CBF trained in
// one graph (R = 5) give, run by run, the losses of training that fold alone
// from the same initial weights (bit for bit every epoch on the CPU backends, copiesTol) and the
// same selection and test accuracy. 31 series per class make the folds'
// training splits unequal (55 or 56 series, so 11 or 12 steps of 5 per epoch).
func TestTrainRunsFiveFoldsMatchTrain(t *testing.T) {
	ds := data.CBF(31, 64, 5)
	cfg := batchTestConfig()
	var runs []RunSpec
	for f := range 5 {
		runs = append(runs, RunSpec{Config: cfg, Seed: 5, Fold: f})
	}
	got, err := TrainRuns(ds, runs, RunOptions{Execution: Execution{MaxRuns: testMaxRuns, RunAxis: RunAxisOff}, Backend: testBackend(t)})
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i, r := range runs {
		want := alone(t, ds, r, 0)
		worst = max(worst, compareRun(t, "fold "+string(rune('1'+i)), got[i], want, copiesTol(t)))
	}
	t.Logf("R=5 on CBF: largest relative loss difference to training alone %.3g", worst)
}

// TestTrainRunsGunPointMatchesTrain is TestTrainRunsFiveFoldsMatchTrain on a
// real dataset: GunPoint's first three folds (the authors' m=32) in one graph,
// 2 dense + 2 sparse epochs, against each fold trained alone.
func TestTrainRunsGunPointMatchesTrain(t *testing.T) {
	if testing.Short() {
		t.Skip("six GunPoint runs take a minute; run without -short")
	}
	ds, runs, ref := gunPointRuns(t)
	got, err := TrainRuns(ds, runs, RunOptions{Execution: Execution{MaxRuns: testMaxRuns, RunAxis: RunAxisOff}, Backend: testBackend(t), RefShapeLen: ref})
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i, r := range runs {
		want := alone(t, ds, r, ref)
		worst = max(worst, compareRun(t, "GunPoint fold "+string(rune('1'+i)), got[i], want, copiesTol(t)))
	}
	t.Logf("R=%d on GunPoint: largest relative loss difference to training alone %.3g", len(runs), worst)
}

// gunPointRuns returns GunPoint, its first three folds under seed 42 with the
// default configuration trained 2 dense + 2 sparse epochs, and the authors'
// shape length for it. Three runs in one graph, not five: each is also trained
// alone, and the five-run graph is checked on generated data
// (TestTrainRunsFiveFoldsMatchTrain, TestRunAxisFiveFoldsMatchTrain).
func gunPointRuns(t *testing.T) (*data.Dataset, []RunSpec, int) {
	t.Helper()
	ds := loadUCR(t, "GunPoint")
	cfg := DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs = 4, 2
	var runs []RunSpec
	for f := range 3 {
		runs = append(runs, RunSpec{Config: cfg, Seed: 42, Fold: f})
	}
	return ds, runs, RefShapeLength("GunPoint", ds.Length)
}

// TestTrainRunsVariantsAndEarlyStop: runs that differ in learning rate,
// dropout, λ, epochs, patience and batch rule share one graph and still each
// match training alone; the patience-1 run stops early and leaves the graph
// (its weights then no longer change: its test accuracy is that of its own
// selected epoch, as alone), and the 3-epoch run leaves it after its epochs.
func TestTrainRunsVariantsAndEarlyStop(t *testing.T) {
	ds := data.CBF(30, 64, 9)
	base := batchTestConfig()
	base.Epochs, base.WarmUpEpochs = 8, 2
	lr, drop, short, stop, large := base, base, base, base, base
	lr.LearningRate = 3e-3
	drop.Dropout, drop.MoELossWeight = 0.3, 0.01
	short.Epochs = 3
	// So small a learning rate that the validation loss stagnates (|Δ| ≤ 1e-4)
	// after the warm-up, whatever the kernels' rounding: patience 1 stops it.
	stop.Patience, stop.LearningRate = 1, 1e-7
	large.BatchRule = "large"
	runs := []RunSpec{{base, 9, 0}, {lr, 9, 1}, {drop, 9, 2}, {short, 9, 3}, {stop, 9, 4}, {large, 10, 0}}
	got, err := TrainRuns(ds, runs, RunOptions{Execution: Execution{MaxRuns: testMaxRuns, RunAxis: RunAxisOff}, Backend: testBackend(t)})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"base", "lr=3e-3", "dropout=0.3,λ=0.01", "epochs=3", "patience=1,lr=1e-7", "batch_rule=large seed 10"}
	for i, r := range runs {
		want := alone(t, ds, r, 0)
		d := compareRun(t, names[i], got[i], want, copiesTol(t))
		t.Logf("%s: %d epochs, best %d, test %.4f, max rel diff %.3g", names[i], got[i].EpochsRun, got[i].BestEpoch, got[i].TestAcc, d)
	}
	if got[3].EpochsRun != 3 {
		t.Errorf("epochs=3 run trained %d epochs", got[3].EpochsRun)
	}
	if got[4].EpochsRun >= base.Epochs {
		t.Errorf("patience=1 run did not stop early (%d epochs)", got[4].EpochsRun)
	}
}

// TestTrainRunsEarlyStopMatchesAlone: runs that stop early while others go
// on (each alone, at the same time) give what training them alone gives:
// the early-stopped run keeps the selected weights and test accuracy it had
// when it stopped, and a stopped fold_reset=carry chain's next fold
// continues from the weights it stopped with.
func TestTrainRunsEarlyStopMatchesAlone(t *testing.T) {
	ds := data.CBF(30, 64, 9)
	base := batchTestConfig()
	base.Epochs, base.WarmUpEpochs = 8, 2
	stop := base
	stop.Patience, stop.LearningRate = 1, 1e-7 // stagnates after the warm-up: stops early (as above)
	carryStop := stop
	carryStop.FoldReset = FoldResetCarry
	carryStop.Patience = 2 // stops an epoch after the fresh one
	runs := []RunSpec{{base, 9, 0}, {stop, 9, 4}, {base, 9, 1}, {carryStop, 9, 0}, {carryStop, 9, 1}}
	got, err := TrainRuns(ds, runs, RunOptions{Execution: Execution{MaxRuns: testMaxRuns, RunAxis: RunAxisOff}, Backend: testBackend(t)})
	if err != nil {
		t.Fatal(err)
	}
	if got[1].EpochsRun >= base.Epochs {
		t.Errorf("patience=1 run did not stop early (%d epochs): the test does not exercise an early stop", got[1].EpochsRun)
	}
	if got[3].EpochsRun >= base.Epochs {
		t.Errorf("carry fold 1 did not stop early (%d epochs): the test does not exercise a stopped chain", got[3].EpochsRun)
	}
	compareRun(t, "patience=1 fold 5 vs alone", got[1], alone(t, ds, runs[1], 0), copiesTol(t))
	chain, err := Train(ds, carryStop, RunOptions{Backend: testBackend(t), Seed: 9, Folds: []int{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	compareRun(t, "carry fold 2 vs Train", got[4], chain.Folds[1], copiesTol(t))
}

// TestTrainRunsCarryChain: a fold_reset=carry chain (folds 0 and 1, the second
// continuing from the weights and Adam state the first ended with) batched
// beside a fresh run gives Train's carry results for both folds. The seed is
// the first whose fold 0 selects an epoch before its last (training
// trajectories differ between builds, e.g. with and without
// GOEXPERIMENT=simd), so continuing from the selected weights instead would
// fail the check.
func TestTrainRunsCarryChain(t *testing.T) {
	ds := data.CBF(30, 64, 4)
	carry := batchTestConfig()
	carry.FoldReset = FoldResetCarry
	carry.Epochs, carry.WarmUpEpochs, carry.LearningRate = 14, 2, 0.02
	var res *Result
	seed := int64(4)
	for ; seed < 8; seed++ {
		r, err := Train(ds, carry, RunOptions{Backend: testBackend(t), Seed: seed, Folds: []int{0, 1}})
		if err != nil {
			t.Fatal(err)
		}
		if f := r.Folds[0]; f.BestEpoch < f.EpochsRun-1 {
			res = r
			break
		}
	}
	if res == nil {
		t.Fatal("carry fold 0 selected its last epoch under seeds 4–7: the test cannot tell selected from last weights")
	}
	fresh := batchTestConfig()
	runs := []RunSpec{{carry, seed, 1}, {fresh, seed, 2}, {carry, seed, 0}}
	got, err := TrainRuns(ds, runs, RunOptions{Execution: Execution{MaxRuns: testMaxRuns, RunAxis: RunAxisOff}, Backend: testBackend(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seed %d: carry fold 0 selected epoch %d of %d", seed, res.Folds[0].BestEpoch, res.Folds[0].EpochsRun)
	compareRun(t, "carry fold 0", got[2], res.Folds[0], copiesTol(t))
	compareRun(t, "carry fold 1", got[0], res.Folds[1], copiesTol(t))
	compareRun(t, "fresh fold 2", got[1], alone(t, ds, runs[1], 0), copiesTol(t))
}

// TestTrainRunsRejectsBadRuns: a fold out of range and an impossible setting
// are errors naming the run, before any graph is built.
func TestTrainRunsRejectsBadRuns(t *testing.T) {
	ds := data.CBF(10, 64, 1)
	cfg := batchTestConfig()
	if _, err := TrainRuns(ds, []RunSpec{{cfg, 1, 5}}, RunOptions{Execution: Execution{MaxRuns: testMaxRuns, RunAxis: RunAxisOff}, Backend: testBackend(t)}); err == nil {
		t.Error("fold 5 of 5 accepted")
	}
	bad := cfg
	bad.ShapeLength = 65
	_, err := TrainRuns(ds, []RunSpec{{cfg, 1, 0}, {bad, 1, 1}}, RunOptions{Execution: Execution{MaxRuns: testMaxRuns, RunAxis: RunAxisOff}, Backend: testBackend(t)})
	if err == nil || err.Error() != "run 1: dataset CBF-generated: shape_length: m=65 is longer than the series (T=64)" {
		t.Errorf("got %v", err)
	}
	// A run-axis mode set in code, not parsed, is checked too.
	_, err = TrainRuns(ds, []RunSpec{{cfg, 1, 0}, {cfg, 1, 1}}, RunOptions{Execution: Execution{MaxRuns: testMaxRuns, RunAxis: "sideways"}, Backend: testBackend(t)})
	if err == nil || !strings.Contains(err.Error(), `run axis "sideways"`) {
		t.Errorf("RunAxis \"sideways\": got %v, want an error naming it", err)
	}
}

// loadUCR loads a UCR dataset (ucrtest.Load).
func loadUCR(t testing.TB, name string) *data.Dataset { return ucrtest.Load(t, name) }

// namedBackend is a backend that only answers Name and Description, for
// choices made by name.
type namedBackend struct {
	compute.Backend
	name, desc string
}

func (b namedBackend) Name() string        { return b.name }
func (b namedBackend) Description() string { return b.desc }

// TestRunAxisModeEnabled: RunAxisOn asks for a run axis on every backend,
// RunAxisOff on none, and RunAxisAuto (or "") where the backend's default
// (backends.DefaultRunAxis) turns it on: XLA on a GPU, not the CPU backends.
func TestRunAxisModeEnabled(t *testing.T) {
	for _, c := range []struct {
		b    compute.Backend
		auto bool
	}{
		{nil, false},
		{namedBackend{name: "go", desc: "Go Portable Compute Backend (parallelism=-1)"}, false},
		{namedBackend{name: "onnx", desc: "ONNX Runtime (CPU)"}, false},
		{namedBackend{name: "xla", desc: `xla:cuda - PJRT "cuda" plugin (/tmp/p/pjrt_c_api_cuda_plugin.so) v0.115 [StableHLO] [1 device(s)]`}, true},
		{namedBackend{name: "xla", desc: `xla:cpu - PJRT "cpu" plugin`}, false},
	} {
		name := "nil"
		if c.b != nil {
			name = c.b.Description()
		}
		for mode, want := range map[RunAxisMode]bool{"": c.auto, RunAxisAuto: c.auto, RunAxisOn: true, RunAxisOff: false} {
			if got := mode.Enabled(c.b); got != want {
				t.Errorf("RunAxisMode(%q).Enabled(%s) = %v, want %v", mode, name, got, want)
			}
		}
	}
}

// TestParseRunAxis: the names a flag or a notebook may give, and a clear
// error naming the bad one.
func TestParseRunAxis(t *testing.T) {
	for s, want := range map[string]RunAxisMode{"": RunAxisAuto, "auto": RunAxisAuto, "on": RunAxisOn, "true": RunAxisOn,
		" ON ": RunAxisOn, "off": RunAxisOff, "false": RunAxisOff} {
		if got, err := ParseRunAxis(s); err != nil || got != want {
			t.Errorf("ParseRunAxis(%q) = %q, %v; want %q", s, got, err, want)
		}
	}
	if _, err := ParseRunAxis("yes please"); err == nil || !strings.Contains(err.Error(), "yes please") {
		t.Errorf("ParseRunAxis(\"yes please\"): error %v, want one naming the value", err)
	}
}

// TestTrainRunsConcurrentRuns: runs that train alone at the same time (the
// run axis off) report every epoch to OnEpoch from the calling goroutine,
// in each run's order (the race detector checks the first, as OnEpoch here
// appends without a lock), and each gives what it gives trained by itself.
func TestTrainRunsConcurrentRuns(t *testing.T) {
	ds := data.CBF(20, 64, 2)
	cfg := batchTestConfig()
	cfg.Epochs, cfg.WarmUpEpochs = 3, 1
	runs := []RunSpec{{cfg, 2, 0}, {cfg, 2, 3}, {cfg, 3, 1}}
	var seen []EpochStats
	got, err := TrainRuns(ds, runs, RunOptions{Execution: Execution{MaxRuns: 3, RunAxis: RunAxisOff}, Backend: testBackend(t),
		OnEpoch: func(es EpochStats) { seen = append(seen, es) }})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, fr := range got {
		total += fr.EpochsRun
	}
	if len(seen) != total {
		t.Errorf("OnEpoch called %d times, the runs trained %d epochs", len(seen), total)
	}
	next := map[int]int{} // fold → next epoch (the folds differ here)
	for _, es := range seen {
		if es.Epoch != next[es.Fold] {
			t.Errorf("fold %d: epoch %d reported after %d", es.Fold+1, es.Epoch, next[es.Fold])
		}
		next[es.Fold] = es.Epoch + 1
	}
	for i, r := range runs {
		compareRun(t, fmt.Sprintf("run %d", i), got[i], alone(t, ds, r, 0), 0)
	}
}
