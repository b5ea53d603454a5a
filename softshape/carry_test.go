package softshape

import (
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

// TestResumeFoldChainMatchesUninterrupted: a fold_reset=carry chain saved
// after fold 2 (SaveCarried) and resumed in a new chain (ResumeFoldChain)
// trains fold 3 exactly as the chain that never stopped: the same history,
// bit for bit, selected epoch and test accuracy. A chain started afresh at
// fold 3 differs, so the check can fail.
func TestResumeFoldChainMatchesUninterrupted(t *testing.T) {
	ds, cfg, opts := carryTestSetUp(t)
	whole, err := NewFoldChain(ds, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := whole.Fold(2)
	if err != nil {
		t.Fatal(err)
	}

	first, err := NewFoldChain(ds, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := first.Fold(1); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "after-fold-2")
	if err := first.SaveCarried(dir); err != nil {
		t.Fatal(err)
	}
	resumed, err := ResumeFoldChain(ds, cfg, opts, dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if resumed.CanTrain(1) || !resumed.CanTrain(2) {
		t.Errorf("resumed chain: CanTrain(1)=%v CanTrain(2)=%v, want false and true", resumed.CanTrain(1), resumed.CanTrain(2))
	}
	got, _, err := resumed.Fold(2)
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

	fresh, err := NewFoldChain(ds, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	alone, _, err := fresh.train(2)
	if err != nil {
		t.Fatal(err)
	}
	if sameHistory(alone, want) || math.IsNaN(alone.History[0].ValLoss) {
		t.Error("fold 3 trained from fresh weights has the carried chain's history: nothing was carried")
	}
}

// TestCarriedStateRefusesMismatches: ResumeFoldChain refuses a state saved
// after another fold, for another seed or another configuration, and
// SaveCarried refuses a chain with nothing to carry; checkpointdir.Remove
// deletes a saved state whole.
func TestCarriedStateRefusesMismatches(t *testing.T) {
	ds, cfg, opts := carryTestSetUp(t)
	cfg.Epochs, cfg.WarmUpEpochs = 1, 0
	chain, err := NewFoldChain(ds, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "state")
	if err := chain.SaveCarried(dir); err == nil || !strings.Contains(err.Error(), "no fold") {
		t.Errorf("saving an untrained chain: %v, want an error saying it trained no fold", err)
	}
	if _, _, err := chain.Fold(0); err != nil {
		t.Fatal(err)
	}
	if err := chain.SaveCarried(dir); err != nil {
		t.Fatal(err)
	}
	otherSeed := opts
	otherSeed.Seed++
	otherCfg := cfg
	otherCfg.Dropout = 0.3
	freshCfg := cfg
	freshCfg.FoldReset = FoldResetFresh
	for _, tc := range []struct {
		name  string
		cfg   Config
		opts  RunOptions
		after int
		want  string
	}{
		{"other fold", cfg, opts, 1, "carried_after_fold=0, want 1"},
		{"other seed", cfg, otherSeed, 0, "seed 9, not 10"},
		{"other configuration", otherCfg, opts, 0, "dropout=0.15"},
		{"fresh folds", freshCfg, opts, 0, "carries nothing"},
		{"last fold", cfg, opts, 4, "no fold follows"},
	} {
		if _, err := ResumeFoldChain(ds, tc.cfg, tc.opts, dir, tc.after); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := ResumeFoldChain(ds, cfg, opts, filepath.Join(dir, "missing"), 0); err == nil {
		t.Error("resuming from a missing folder gave no error")
	}

	// What SaveCarried wrote is all checkpoint files: the folder rules
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
