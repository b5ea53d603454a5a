package softshape

import (
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"
)

// TestFitIsTrainFold: Fit on fold 1's training and validation sets is the
// computation TrainFold runs for fold 1, so its history, selected epoch and
// model are the same bit for bit; the classifier scores the raw test rows
// as TrainFold scored the prepared ones, and saved and loaded it predicts
// the same.
func TestFitIsTrainFold(t *testing.T) {
	ds := data.CBF(20, 64, 3)
	for i := range ds.Series { // missing values, filled inside Fit
		ds.Series[i][(5*i)%64] = math.NaN()
	}
	cfg := DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs, cfg.EmbedDim = 4, 2, 32
	opts := RunOptions{Backend: testBackend(t), Seed: 3}
	fr, tr, err := TrainFold(ds, cfg, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	train, val, test, err := FoldSets(ds, opts, 0)
	if err != nil {
		t.Fatal(err)
	}
	var seen []EpochStats
	o := opts
	o.OnEpoch = func(es EpochStats) { seen = append(seen, es) }
	clf, err := Fit(train, val, cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	got := clf.Result
	if len(got.History) != len(fr.History) || got.BestEpoch != fr.BestEpoch || got.SelectedPhase != fr.SelectedPhase || got.ValLoss != fr.ValLoss {
		t.Fatalf("Fit: best epoch %d (%s) val loss %v of %d epochs; TrainFold: %d (%s) %v of %d",
			got.BestEpoch, got.SelectedPhase, got.ValLoss, len(got.History), fr.BestEpoch, fr.SelectedPhase, fr.ValLoss, len(fr.History))
	}
	for i, es := range got.History {
		w := fr.History[i]
		if es.TrainLoss != w.TrainLoss || es.ValLoss != w.ValLoss || es.ValAcc != w.ValAcc || es.Selected != w.Selected {
			t.Errorf("epoch %d: Fit %+v, TrainFold %+v", i, es, w)
		}
	}
	if len(seen) != len(got.History) {
		t.Errorf("OnEpoch called %d times for %d epochs", len(seen), len(got.History))
	}
	if !math.IsNaN(got.TestAcc) {
		t.Errorf("Fit's result has test accuracy %v, want NaN (no test set)", got.TestAcc)
	}
	acc, _, err := clf.Evaluate(test.Series, test.LabelNames())
	if err != nil {
		t.Fatal(err)
	}
	if acc != fr.TestAcc {
		t.Errorf("classifier's test accuracy %v, TrainFold's %v", acc, fr.TestAcc)
	}

	probs, err := clf.PredictProba(test.Series)
	if err != nil {
		t.Fatal(err)
	}
	pred, err := clf.Predict(test.Series)
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for i, p := range probs {
		sum, best := 0.0, 0
		for c, v := range p {
			sum += v
			if v > p[best] {
				best = c
			}
		}
		if math.Abs(sum-1) > 1e-9 || len(p) != 3 {
			t.Errorf("series %d: probabilities %v sum to %v", i, p, sum)
		}
		if pred[i] != clf.Classes()[best] {
			t.Errorf("series %d: predicted %q, most probable %q", i, pred[i], clf.Classes()[best])
		}
		if pred[i] == test.LabelNames()[i] {
			right++
		}
	}
	if float64(right)/float64(len(pred)) != acc {
		t.Errorf("%d of %d predictions right, Evaluate's accuracy %v", right, len(pred), acc)
	}

	dir := filepath.Join(t.TempDir(), "clf")
	if err := clf.Save(dir); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(dir, opts.Backend)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(loaded.Classes(), clf.Classes()) || !slices.Equal(loaded.Fill(), clf.Fill()) {
		t.Errorf("loaded classes %v, fill %v; saved %v, %v", loaded.Classes(), loaded.Fill()[:3], clf.Classes(), clf.Fill()[:3])
	}
	probs2, err := loaded.PredictProba(test.Series)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(probs2, probs) {
		t.Error("the loaded classifier's probabilities differ from the saved one's")
	}
	// A fold's checkpoint has no class names: Load says how to load it.
	foldDir := filepath.Join(t.TempDir(), "fold")
	if err := tr.Save(foldDir); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(foldDir, opts.Backend); err == nil || !strings.Contains(err.Error(), "NewClassifier") {
		t.Errorf("Load of a fold checkpoint: error %v", err)
	}
	fromFold, err := NewClassifier(tr, ds.ClassNames, clf.Fill())
	if err != nil {
		t.Fatal(err)
	}
	if acc, _, err := fromFold.Evaluate(test.Series, test.LabelNames()); err != nil || acc != fr.TestAcc {
		t.Errorf("NewClassifier of TrainFold's model: accuracy %v (%v), the fold's %v", acc, err, fr.TestAcc)
	}
}

// TestFitWithoutValidation: without a validation set every epoch trains,
// nothing is selected, and the model is the last epoch's on its phase.
func TestFitWithoutValidation(t *testing.T) {
	ds := data.CBF(10, 48, 4)
	cfg := DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs, cfg.EmbedDim, cfg.Patience = 3, 1, 16, 1
	clf, err := Fit(ds, nil, cfg, RunOptions{Backend: testBackend(t), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := clf.Result
	if r.EpochsRun != 3 || r.BestEpoch != 2 || r.SelectedPhase != Sparse || r.SelectedWarmUp || clf.Trained().Phase != Sparse {
		t.Errorf("epochs run %d, best %d (%s, warm-up %v), model phase %s; want 3, 2 (sparse)", r.EpochsRun, r.BestEpoch, r.SelectedPhase, r.SelectedWarmUp, clf.Trained().Phase)
	}
	for _, es := range r.History {
		if es.Selected || !math.IsNaN(es.ValLoss) || math.IsNaN(es.TrainLoss) {
			t.Errorf("epoch %d: selected %v, val loss %v, train loss %v", es.Epoch, es.Selected, es.ValLoss, es.TrainLoss)
		}
	}
	if _, _, err := clf.Evaluate(ds.Series[:2], []string{"bell", "nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Evaluate with an unknown label: error %v", err)
	}
}

// TestFitRefusesProtocolOptions: the settings of the folds, of carried
// chains and of checkpoint folders are errors naming them.
func TestFitRefusesProtocolOptions(t *testing.T) {
	ds := data.CBF(4, 32, 1)
	carry := DefaultConfig()
	carry.FoldReset = FoldResetCarry
	for _, c := range []struct {
		cfg  Config
		opts RunOptions
		want string
	}{
		{DefaultConfig(), RunOptions{NumFolds: 5}, "RunOptions.NumFolds"},
		{DefaultConfig(), RunOptions{CheckpointDir: "x"}, "RunOptions.CheckpointDir"},
		{carry, RunOptions{}, ParamFoldReset},
	} {
		if _, err := Fit(ds, nil, c.cfg, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Fit with %s: error %v", c.want, err)
		}
	}
}
