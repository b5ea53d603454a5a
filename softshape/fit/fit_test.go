package fit

import (
	"math"
	"slices"
	"testing"
)

// TestTracker feeds made-up validation statistics through a Tracker and
// checks, worked out by hand, which epochs become the kept model, after which
// epoch the fold stops, and what Best returns.
func TestTracker(t *testing.T) {
	for _, c := range []struct {
		name     string
		rule     Rule
		stats    []float64
		kept     []int // epochs whose Next says keep
		stop     int   // the epoch after which Next says stop, -1 none
		best     int
		bestStat float64
	}{
		{
			// Warm-up epochs 0, 1 are not selectable although epoch 1 is
			// the lowest; 2 and 3 improve; 4 and 5 rise: patience 2 stops.
			name:  "post_warmup rising",
			rule:  Rule{WarmUpEpochs: 2, Patience: 2},
			stats: []float64{1, 0.5, 0.8, 0.7, 0.9, 1.0, 0.1},
			kept:  []int{2, 3}, stop: 5, best: 3, bestStat: 0.7,
		},
		{
			// selection_window=all: the warm-up's epoch 1 is kept and stays
			// the best; stopping is the same.
			name:  "all rising",
			rule:  Rule{WarmUpEpochs: 2, Patience: 2, SelectWarmUp: true},
			stats: []float64{1, 0.5, 0.8, 0.7, 0.9, 1.0, 0.1},
			kept:  []int{0, 1}, stop: 5, best: 1, bestStat: 0.5,
		},
		{
			// Epochs 2–4 stay within 1e-4 of the one before: three flat
			// epochs in a row stop the fold with patience 3 (4 is not kept:
			// not lower than epoch 1's 1).
			name:  "flat",
			rule:  Rule{WarmUpEpochs: 1, Patience: 3},
			stats: []float64{2, 1, 1.00005, 1.0001, 1.00005, 0.5},
			kept:  []int{1}, stop: 4, best: 1, bestStat: 1,
		},
		{
			// A drop of more than 1e-4 breaks the flat run: 0.9998 is
			// 1.2e-4 below 0.99992, so the run starts again and only
			// epochs 5–7 make three.
			name:  "flat run broken",
			rule:  Rule{WarmUpEpochs: 1, Patience: 3},
			stats: []float64{2, 1, 0.99996, 0.99992, 0.9998, 0.99975, 0.9997, 0.99965, 0.1},
			kept:  []int{1, 2, 3, 4, 5, 6, 7}, stop: 7, best: 7, bestStat: 0.99965,
		},
		{
			// Rises during the warm-up and at its first epoch after (epoch
			// 2 = WarmUpEpochs) do not count: epoch 3 is the first compared.
			name:  "stopping starts after the warm-up",
			rule:  Rule{WarmUpEpochs: 2, Patience: 1},
			stats: []float64{1, 2, 3, 4, 0.1},
			kept:  []int{2}, stop: 3, best: 2, bestStat: 3,
		},
		{
			// Patience 0 never stops; a NaN statistic is never kept.
			name:  "no patience",
			rule:  Rule{WarmUpEpochs: 0, Patience: 0},
			stats: []float64{3, 4, 5, math.NaN(), 6, 2.5},
			kept:  []int{0, 5}, stop: -1, best: 5, bestStat: 2.5,
		},
		{
			name:  "nothing selectable",
			rule:  Rule{WarmUpEpochs: 3, Patience: 1},
			stats: []float64{1, 2, 3},
			stop:  -1, best: -1, bestStat: math.NaN(),
		},
	} {
		tr := NewTracker(c.rule)
		var kept []int
		stop := -1
		for e, s := range c.stats {
			keep, st := tr.Next(s)
			if keep {
				kept = append(kept, e)
			}
			if st {
				stop = e
				break
			}
		}
		if !slices.Equal(kept, c.kept) || stop != c.stop {
			t.Errorf("%s: kept %v, stop after %d; want kept %v, stop after %d", c.name, kept, stop, c.kept, c.stop)
		}
		if want := c.stop + 1; c.stop >= 0 && tr.Epochs() != want {
			t.Errorf("%s: %d epochs recorded, want %d", c.name, tr.Epochs(), want)
		}
		best, bestStat := tr.Best()
		if best != c.best || !(bestStat == c.bestStat || math.IsNaN(bestStat) && math.IsNaN(c.bestStat)) {
			t.Errorf("%s: Best %d %v, want %d %v", c.name, best, bestStat, c.best, c.bestStat)
		}
	}
}

// TestStatistic: cross-entropies 1, 3 | 5 in batches of 2 have mean 3 and the
// batch-scaled statistic (2 + 5) / 3; no samples give NaN.
func TestStatistic(t *testing.T) {
	ce := []float64{1, 3, 5}
	if got := (Rule{Stat: StatMean}).Statistic(ce, 2); got != 3 {
		t.Errorf("mean: %v, want 3", got)
	}
	if got := (Rule{Stat: StatBatchScaled}).Statistic(ce, 2); got != 7.0/3 {
		t.Errorf("batch scaled: %v, want 7/3", got)
	}
	if got := (Rule{Stat: StatBatchScaled}).Statistic(ce, 5); got != 1 {
		t.Errorf("batch scaled, one batch: %v, want 3/3", got)
	}
	for _, s := range []Stat{StatMean, StatBatchScaled} {
		if got := (Rule{Stat: s}).Statistic(nil, 2); !math.IsNaN(got) {
			t.Errorf("stat %d of no samples: %v, want NaN", s, got)
		}
	}
}

// TestSelectable: after the warm-up only, or every epoch with SelectWarmUp.
func TestSelectable(t *testing.T) {
	r := Rule{WarmUpEpochs: 3}
	if r.Selectable(2) || !r.Selectable(3) {
		t.Error("post warm-up: epoch 2 selectable or epoch 3 not")
	}
	r.SelectWarmUp = true
	if !r.Selectable(0) {
		t.Error("select warm-up: epoch 0 not selectable")
	}
}
