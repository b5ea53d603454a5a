package softshape

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/checkpointdir"
	"github.com/softshape-go/softshape/internal/testfs"
)

// carryTestSetUp returns a small fold_reset=carry configuration on generated
// CBF, with shuffling on so that the batch-order generator is carried too.
func carryTestSetUp(t *testing.T) (*data.Dataset, Config, RunOptions) {
	t.Helper()
	cfg, err := DefaultConfig().WithSettings("protocol=reference_compat;shuffle=true;embed_dim=16;epochs=4;warmup_epochs=2")
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.CarriesFolds() {
		t.Fatal("reference_compat does not carry folds")
	}
	return data.CBF(20, 64, 2), cfg, RunOptions{Backend: testBackend(t), Seed: 9}
}

// TestCarryInMatchesUninterrupted: a fold_reset=carry chain that stops
// after fold 2 (RunOptions.CarryOut) and continues from the saved state
// (CarryIn) trains fold 3 exactly as the chain that never stopped: the same
// history, bit for bit, selected epoch, test accuracy and selected model.
// Fold 3 trained from fresh weights differs, so the check can fail.
func TestCarryInMatchesUninterrupted(t *testing.T) {
	ds, cfg, opts := carryTestSetUp(t)
	want, wantModel, err := TrainFold(ds, cfg, 2, opts)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "after-fold-2")
	out := opts
	out.CarryOut = dir
	if _, _, err := TrainFold(ds, cfg, 1, out); err != nil {
		t.Fatal(err)
	}
	in := opts
	in.CarryIn = dir
	got, gotModel, err := TrainFold(ds, cfg, 2, in)
	if err != nil {
		t.Fatal(err)
	}
	sameHistory := func(a, b *FoldResult) bool {
		if len(a.History) != len(b.History) {
			return false
		}
		for i := range a.History {
			if a.History[i].TrainLoss != b.History[i].TrainLoss || a.History[i].ValLoss != b.History[i].ValLoss {
				return false
			}
		}
		return true
	}
	if !sameHistory(got, want) || got.BestEpoch != want.BestEpoch || got.TestAcc != want.TestAcc {
		t.Errorf("resumed fold 3: best epoch %d, test acc %.4f, history %v; uninterrupted: %d, %.4f, %v",
			got.BestEpoch, got.TestAcc, got.History, want.BestEpoch, want.TestAcc, want.History)
	}
	fd, err := PrepareFold(ds, opts, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, gotCE, err := gotModel.Evaluate(fd.TestX, fd.TestY)
	if err != nil {
		t.Fatal(err)
	}
	_, wantCE, err := wantModel.Evaluate(fd.TestX, fd.TestY)
	if err != nil {
		t.Fatal(err)
	}
	if gotCE != wantCE {
		t.Errorf("resumed fold 3's selected model: test CE %v, uninterrupted %v", gotCE, wantCE)
	}

	fresh := cfg
	fresh.FoldReset = FoldResetFresh
	alone, _, err := TrainFold(ds, fresh, 2, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sameHistory(alone, want) || math.IsNaN(alone.History[0].ValLoss) {
		t.Error("fold 3 trained from fresh weights has the carried chain's history: nothing was carried")
	}
}

// TestCarriedStateRefusesMismatches: CarryIn refuses, as a
// *CarriedStateError, a state saved after another fold, for another seed or
// another configuration, or missing; CarryIn and CarryOut refuse runs with
// no fold_reset=carry chain and a chain starting at fold 1; a
// checkpointdir.Remove deletes a saved state whole.
func TestCarriedStateRefusesMismatches(t *testing.T) {
	ds, cfg, opts := carryTestSetUp(t)
	cfg.Epochs, cfg.WarmUpEpochs = 1, 0
	dir := filepath.Join(t.TempDir(), "state")
	out := opts
	out.CarryOut = dir
	if _, _, err := TrainFold(ds, cfg, 0, out); err != nil {
		t.Fatal(err)
	}
	otherSeed := opts
	otherSeed.Seed++
	otherCfg := cfg
	otherCfg.Dropout = 0.3
	freshCfg := cfg
	freshCfg.FoldReset = FoldResetFresh
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		name   string
		cfg    Config
		opts   RunOptions
		fold   int
		in     string
		want   string
		refuse bool // a *CarriedStateError
	}{
		{"other fold", cfg, opts, 2, dir, "carried_after_fold=0, want 1", true},
		{"other seed", cfg, otherSeed, 1, dir, "seed 9, not 10", true},
		{"other configuration", otherCfg, opts, 1, dir, "dropout=0.15", true},
		{"missing", cfg, opts, 1, missing, "missing", true},
		{"first fold", cfg, opts, 0, dir, "nothing is carried into fold 1", true},
		{"fresh folds", freshCfg, opts, 1, dir, "needs fold_reset=carry", false},
	} {
		tc.opts.CarryIn = tc.in
		_, _, err := TrainFold(ds, tc.cfg, tc.fold, tc.opts)
		var cse *CarriedStateError
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &cse) != tc.refuse {
			t.Errorf("%s: %v, want an error containing %q (a *CarriedStateError: %v)", tc.name, err, tc.want, tc.refuse)
		}
	}
	both := []RunSpec{{Config: cfg, Seed: 1, Fold: 1}, {Config: cfg, Seed: 2, Fold: 1}}
	if _, err := TrainRuns(ds, both, out); err == nil || !strings.Contains(err.Error(), "several") {
		t.Errorf("a carried state for two chains: %v, want an error saying the runs form several", err)
	}

	// What CarryOut wrote is all checkpoint files: the folder rules
	// remove it whole.
	if err := checkpointdir.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("state folder still there after checkpointdir.Remove: %v", err)
	}
}

// TestTrainCarrySavesRequestedFolds: under fold_reset=carry, Train of fold 3
// alone trains folds 1 and 2 first, as the chain needs them, but saves only
// fold 3's model (-checkpoint checks only the requested folds' folders, so
// an unrequested one must not be written), and its fold 3 is the one the
// chain of folds 1–3 trains.
func TestTrainCarrySavesRequestedFolds(t *testing.T) {
	ds, cfg, opts := carryTestSetUp(t)
	dir := t.TempDir()
	one := opts
	one.Folds, one.CheckpointDir = []int{2}, dir
	got, err := Train(ds, cfg, one)
	if err != nil {
		t.Fatal(err)
	}
	if saved := strings.Join(testfs.List(t, dir), " "); saved != "fold-3" {
		t.Errorf("Train of fold 3 under carry saved %q, want fold-3 alone", saved)
	}
	all := opts
	all.Folds = []int{0, 1, 2}
	want, err := Train(ds, cfg, all)
	if err != nil {
		t.Fatal(err)
	}
	g, w := got.Folds[0], want.Folds[2]
	if g.Fold != 2 || g.TestAcc != w.TestAcc || g.BestEpoch != w.BestEpoch || len(g.History) != len(w.History) {
		t.Fatalf("fold 3 alone: fold %d, acc %v, best epoch %d, %d epochs; in the chain of folds 1-3: acc %v, best epoch %d, %d epochs",
			g.Fold+1, g.TestAcc, g.BestEpoch, len(g.History), w.TestAcc, w.BestEpoch, len(w.History))
	}
	for i := range g.History {
		if g.History[i].TrainLoss != w.History[i].TrainLoss || g.History[i].ValLoss != w.History[i].ValLoss {
			t.Errorf("epoch %d: losses %v/%v alone, %v/%v in the chain", i, g.History[i].TrainLoss, g.History[i].ValLoss, w.History[i].TrainLoss, w.History[i].ValLoss)
		}
	}
}
