// Package fit holds the parts of the training protocol that do not depend
// on the model: the epoch loop (Train: batch order, steps, validation, the
// end of each epoch, runs that stop or fail), evaluation
// (Evaluate: cross-entropy and accuracy, chunk by chunk), the validation
// statistic (selection_stat), which epoch's model a fold keeps
// (selection_window, the lowest statistic), when a fold stops early
// (patience), and Adam (AdamUpdate; Adam, its step of a run alone with
// GoMLX's Adam's variables). Every training path of softshape (a run
// alone, R runs on a run axis) runs its folds
// through Train, Evaluate, one Tracker per fold and AdamUpdate's
// arithmetic, so the protocol is written once.
package fit

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// Stat is the validation statistic that selection and early stopping read.
type Stat int

const (
	// StatMean is the mean cross-entropy over the validation samples.
	StatMean Stat = iota
	// StatBatchScaled is the reference's statistic: the sum over batches (of
	// the training batch size) of the batch-mean cross-entropy, divided by
	// the number of validation samples.
	StatBatchScaled
)

// FlatTolerance is the change of the statistic from one epoch to the next at
// or below which early stopping counts the epoch as flat (the reference's).
const FlatTolerance = 1e-4

// Rule is one fold's protocol: its warm-up, the epochs selection may choose
// from, the patience of early stopping and the statistic both read.
type Rule struct {
	// WarmUpEpochs is the number of dense warm-up epochs that start the fold.
	WarmUpEpochs int
	// SelectWarmUp lets selection keep a warm-up epoch's model
	// (selection_window=all); otherwise only the epochs after the warm-up.
	SelectWarmUp bool
	// Patience stops the fold after this many flat or this many rising
	// epochs in a row, counted from the second epoch after the warm-up;
	// 0 never stops early.
	Patience int
	// Stat is the validation statistic.
	Stat Stat
}

// Selectable reports whether selection may keep the model of epoch (0-based).
func (r Rule) Selectable(epoch int) bool {
	return r.SelectWarmUp || epoch >= r.WarmUpEpochs
}

// Statistic is the rule's validation statistic of the per-sample
// cross-entropies ce, the training batches being batchSize samples (NaN when
// ce is empty).
func (r Rule) Statistic(ce []float64, batchSize int) float64 {
	if r.Stat == StatBatchScaled {
		total := 0.0
		for lo := 0; lo < len(ce); lo += batchSize {
			hi := min(lo+batchSize, len(ce))
			total += mean(ce[lo:hi])
		}
		return total / float64(len(ce))
	}
	return mean(ce)
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	return stat.Mean(x, nil)
}

// Tracker follows one fold's validation statistic epoch by epoch and applies
// its Rule: it says which epoch's model to keep and when to stop. The zero
// value is not usable; make one with NewTracker.
type Tracker struct {
	rule Rule
	// epochs is the number of epochs recorded; best and bestEpoch the kept
	// one (best +Inf while none); prev the last epoch's statistic (NaN
	// before the first); flat and rising the current runs of early stopping.
	epochs       int
	best         float64
	bestEpoch    int
	prev         float64
	flat, rising int
}

// NewTracker returns a Tracker of rule for a fold that has not trained yet.
func NewTracker(rule Rule) *Tracker {
	return &Tracker{rule: rule, best: math.Inf(1), bestEpoch: -1, prev: math.NaN()}
}

// Next records the statistic of the next epoch (the first call is epoch 0)
// and reports whether that epoch's model is the one to keep from now on (it
// is selectable and its statistic is lower than every earlier selectable
// one's) and whether the fold stops after it: after the warm-up's first
// epoch, when the statistic has been flat (within FlatTolerance of the
// previous epoch's) or has risen Patience epochs in a row.
func (t *Tracker) Next(stat float64) (keep, stop bool) {
	epoch := t.epochs
	t.epochs++
	r := t.rule
	if r.Selectable(epoch) && stat < t.best {
		t.best, t.bestEpoch, keep = stat, epoch, true
	}
	if epoch > r.WarmUpEpochs && r.Patience > 0 && !math.IsNaN(t.prev) {
		if math.Abs(stat-t.prev) <= FlatTolerance {
			t.flat++
		} else {
			t.flat = 0
		}
		if stat > t.prev {
			t.rising++
		} else {
			t.rising = 0
		}
		stop = t.flat >= r.Patience || t.rising >= r.Patience
	}
	t.prev = stat
	return keep, stop
}

// Best returns the kept epoch and its statistic, or -1 and NaN when no epoch
// recorded so far was kept.
func (t *Tracker) Best() (epoch int, stat float64) {
	if t.bestEpoch < 0 {
		return -1, math.NaN()
	}
	return t.bestEpoch, t.best
}

// Epochs returns the number of epochs recorded.
func (t *Tracker) Epochs() int { return t.epochs }
