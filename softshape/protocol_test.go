package softshape

import (
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"
)

// TestProtocolPresets: the presets set every switch to the documented values,
// later settings override a preset whatever their order, and the resolved
// configuration round-trips through its string form.
func TestProtocolPresets(t *testing.T) {
	authors := Protocol{FoldReset: FoldResetCarry, EvalPath: EvalPathSparse, BatchRule: "large", Shuffle: false,
		SelectionStat: SelectionStatBatchScaled, SelectionWindow: SelectionWindowAll}
	fresh := authors
	fresh.FoldReset = FoldResetFresh
	def := Protocol{FoldReset: FoldResetFresh, EvalPath: EvalPathPhase, BatchRule: "paper", Shuffle: true,
		SelectionStat: SelectionStatMean, SelectionWindow: SelectionWindowPostWarmUp}
	for _, c := range []struct {
		settings string
		want     Protocol
		name     string
	}{
		{"", def, ProtocolDefault},
		{"reference_compat=true", authors, ProtocolReferenceCompat},
		{"protocol=reference_compat", authors, ProtocolReferenceCompat},
		{"protocol=reference_fresh", fresh, ProtocolReferenceFresh},
		{"protocol=reference_fresh;fold_reset=carry", authors, ProtocolReferenceCompat},
		{"fold_reset=carry;protocol=reference_fresh", authors, ProtocolReferenceCompat},
		{"reference_compat=false", def, ProtocolDefault},
		{"protocol=reference_fresh;batch_rule=paper", Protocol{FoldResetFresh, EvalPathSparse, "paper", false, SelectionStatBatchScaled, SelectionWindowAll}, ProtocolCustom},
		{"selection_window=all", Protocol{FoldResetFresh, EvalPathPhase, "paper", true, SelectionStatMean, SelectionWindowAll}, ProtocolCustom},
	} {
		cfg, err := DefaultConfig().WithSettings(c.settings)
		if err != nil {
			t.Errorf("%q: %v", c.settings, err)
			continue
		}
		if cfg.Protocol() != c.want || cfg.ProtocolName() != c.name {
			t.Errorf("%q: %+v (%s), want %+v (%s)", c.settings, cfg.Protocol(), cfg.ProtocolName(), c.want, c.name)
		}
		back, err := DefaultConfig().WithSettings(cfg.String())
		if err != nil || back != cfg {
			t.Errorf("%q: the string form %q does not round-trip (%v)", c.settings, cfg.String(), err)
		}
		if !strings.HasPrefix(cfg.ProtocolString(), c.name+" (fold_reset=") {
			t.Errorf("%q: ProtocolString %q", c.settings, cfg.ProtocolString())
		}
	}
	// A preset leaves the model's hyperparameters alone.
	cfg, err := DefaultConfig().WithSettings("sparse_ratio=0.3;protocol=reference_compat;depth=3")
	if err != nil || cfg.SparseRatio != 0.3 || cfg.Depth != 3 {
		t.Errorf("preset changed model settings: η=%g L=%d (%v)", cfg.SparseRatio, cfg.Depth, err)
	}
	for _, c := range []struct{ settings, want string }{
		{"protocol=authors", `protocol="authors": want one of default, reference_compat, reference_fresh`},
		{"reference_compat=yes please", `reference_compat="yes please": want true or false`},
	} {
		if _, err := DefaultConfig().WithSettings(c.settings); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.settings, err, c.want)
		}
	}
	for _, c := range []struct{ settings, want string }{
		{"fold_reset=reset", `fold_reset="reset": want one of fresh, carry`},
		{"eval_path=dense", `eval_path="dense": want one of phase, sparse`},
		{"selection_stat=median", `selection_stat="median": want one of mean, batch_scaled`},
		{"selection_window=last", `selection_window="last": want one of post_warmup, all`},
		{"epochs=10;warmup_epochs=10", "selection_window=post_warmup with epochs=10, warmup_epochs=10: no epoch after the warm-up"},
	} {
		cfg, err := DefaultConfig().WithSettings(c.settings)
		if err != nil {
			t.Fatalf("%q: %v", c.settings, err)
		}
		if _, err := cfg.Resolve(128, 3, 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: Resolve error %v, want it to contain %q", c.settings, err, c.want)
		}
	}
}

// TestSelectionConfigRules checks the per-epoch rules by hand.
func TestSelectionConfigRules(t *testing.T) {
	cfg := DefaultConfig()
	cfg.WarmUpEpochs = 3
	if cfg.Selectable(2) || !cfg.Selectable(3) || cfg.EvalPhase(Dense) != Dense {
		t.Error("default: warm-up epoch 2 selectable, or epoch 3 not, or warm-up evaluated off its path")
	}
	cfg.SelectionWindow, cfg.EvalPath = SelectionWindowAll, EvalPathSparse
	if !cfg.Selectable(0) || cfg.EvalPhase(Dense) != Sparse {
		t.Error("selection_window=all, eval_path=sparse: epoch 0 not selectable or warm-up not evaluated sparse")
	}
	// CE 1, 3 | 5 in batches of 2: mean 3; batch-scaled (2 + 5)/3.
	ce := []float64{1, 3, 5}
	if got := cfg.SelectionLoss(ce, 2); got != 3 {
		t.Errorf("mean: %v, want 3", got)
	}
	cfg.SelectionStat = SelectionStatBatchScaled
	if got := cfg.SelectionLoss(ce, 2); got != 7.0/3 {
		t.Errorf("batch_scaled: %v, want 7/3", got)
	}
}

// TestDefaultSelectsPostWarmUpModel: on a short schedule where a warm-up epoch
// has the lowest validation loss (30 dense epochs, then 2 sparse ones that merge
// 80% or 95% of the shapes and drop them, fused_token=false), selection over all
// epochs picks the same dense model for both η — the degenerate sweep of the
// issue's ECG200 runs — while the default protocol returns a post-warm-up sparse
// model whose accuracy depends on η.
func TestDefaultSelectsPostWarmUpModel(t *testing.T) {
	ds := data.CBF(40, 64, 11)
	cfg := DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs, cfg.EmbedDim, cfg.FusedToken = 32, 30, 32, false
	run := func(c Config) FoldResult {
		t.Helper()
		res, err := Train(ds, c, RunOptions{Backend: testBackend(t), Seed: 11, Folds: []int{0}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Folds[0]
	}
	etas := []float64{0.8, 0.95}
	var allAcc, defAcc []float64
	for _, eta := range etas {
		c := cfg
		c.SparseRatio = eta
		c.SelectionWindow = SelectionWindowAll
		fa := run(c)
		t.Logf("η=%.2f, selection_window=all: best epoch %d (warm-up %v), test acc %.4f", eta, fa.BestEpoch, fa.SelectedWarmUp, fa.TestAcc)
		if !fa.SelectedWarmUp || fa.BestEpoch >= cfg.WarmUpEpochs {
			t.Fatalf("premise: η=%.2f with selection over all epochs selects epoch %d, want a warm-up epoch (< %d)", eta, fa.BestEpoch, cfg.WarmUpEpochs)
		}
		allAcc = append(allAcc, fa.TestAcc)

		c.SelectionWindow = SelectionWindowPostWarmUp // the default
		f := run(c)
		t.Logf("η=%.2f, default: best epoch %d (%v path), val loss %.4f, test acc %.4f", eta, f.BestEpoch, f.SelectedPhase, f.ValLoss, f.TestAcc)
		if f.SelectedWarmUp || f.BestEpoch < cfg.WarmUpEpochs || f.SelectedPhase != Sparse {
			t.Errorf("η=%.2f: the default selected epoch %d (warm-up %v, %v path), want a post-warm-up sparse model", eta, f.BestEpoch, f.SelectedWarmUp, f.SelectedPhase)
		}
		if f.History[f.BestEpoch].ValLoss != f.ValLoss {
			t.Errorf("η=%.2f: reported val loss %.6f is not the selected epoch's %.6f", eta, f.ValLoss, f.History[f.BestEpoch].ValLoss)
		}
		defAcc = append(defAcc, f.TestAcc)
	}
	if allAcc[0] != allAcc[1] {
		t.Errorf("selection over all epochs: η=%.2f and %.2f give %.4f and %.4f, want the same warm-up model", etas[0], etas[1], allAcc[0], allAcc[1])
	}
	if defAcc[0] == defAcc[1] {
		t.Errorf("default: η=%.2f and %.2f give the same test accuracy %.4f: the selected model does not depend on η", etas[0], etas[1], defAcc[0])
	}
}

// mustPreset returns a preset's switches.
func mustPreset(t testing.TB, name string) Protocol {
	t.Helper()
	p, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
