package fit

import (
	"fmt"
	"math/rand/v2"
)

// Run is one run's fold as Train drives it: what it trains (the number of
// training samples, their batch size, the epochs and the batch order's
// generator) and how far it got.
type Run struct {
	// Epochs is the most epochs the fold trains.
	Epochs int
	// BatchSize is the number of training samples of a step (the last
	// step of an epoch may have fewer).
	BatchSize int
	// Shuffle, when not nil, shuffles Order at the start of every epoch.
	Shuffle *rand.Rand
	// Start is the first epoch Train trains: 0, or the epoch a run that
	// stopped continues from (its Order, Shuffle and progress restored).
	Start int

	// Order is the order of the training samples in the epoch in progress.
	Order []int
	// Epoch is the epoch in progress (0-based) and StepsN its number of
	// steps; Steps and LossSum sum what its steps trained so far (AddStep).
	Epoch, StepsN, Steps int
	LossSum              float64
	// accTotal and accWeight are the running mean of the training accuracy
	// over the epoch's steps, kept as GoMLX's MeanMetric keeps it (TrainAcc).
	accTotal, accWeight float32
	// Done says that the run trains no more: it stopped early, trained
	// its epochs or failed (Err).
	Done bool
	Err  error
}

// NewRun returns the Run of a fold of samples training samples.
func NewRun(samples, batchSize, epochs int, shuffle *rand.Rand) Run {
	r := Run{Epochs: epochs, BatchSize: batchSize, Shuffle: shuffle, Order: make([]int, samples)}
	for i := range r.Order {
		r.Order[i] = i
	}
	return r
}

// Batch returns the sample indices of step k of the epoch in progress.
func (r *Run) Batch(k int) []int {
	lo := k * r.BatchSize
	return r.Order[lo:min(lo+r.BatchSize, len(r.Order))]
}

// AddStep adds one step's training loss and its correct predictions among
// rows samples to the epoch in progress.
func (r *Run) AddStep(loss float64, right, rows int) {
	r.LossSum += loss
	r.Steps++
	// GoMLX's MeanMetric of the batch accuracy (metric.NewSparseCategoricalAccuracy),
	// in float32 as its graph computes it: the batch's accuracy, weighted by
	// its size, added to a running total. The explicit conversions keep the
	// compiler from fusing the multiply and add.
	n := float32(rows)
	acc := float32(right) / n
	r.accTotal = r.accTotal + float32(acc*n)
	r.accWeight = r.accWeight + n
}

// TrainLoss is the mean training loss of the epoch's steps.
func (r *Run) TrainLoss() float64 { return r.LossSum / float64(r.Steps) }

// TrainAcc is the training accuracy of the epoch's steps: the running mean
// of the batches' accuracies weighted by their sizes, in float32 arithmetic
// as GoMLX's trainer reports it (what Train has always reported), so it can
// differ from the exact fraction of correct predictions in the last bits.
func (r *Run) TrainAcc() float64 { return float64(r.accTotal / r.accWeight) }

// begin starts epoch: the batch order, the number of steps, the sums.
func (r *Run) begin(epoch int) {
	r.Epoch = epoch
	if r.Shuffle != nil {
		r.Shuffle.Shuffle(len(r.Order), func(a, b int) { r.Order[a], r.Order[b] = r.Order[b], r.Order[a] })
	}
	r.StepsN = (len(r.Order) + r.BatchSize - 1) / r.BatchSize
	r.Steps, r.LossSum, r.accTotal, r.accWeight = 0, 0, 0, 0
}

// Runner is a run as Train drives it: a Run and whatever else its engine
// keeps of it.
type Runner interface {
	FitRun() *Run
}

// Engine computes what Train asks of runs of type R: their steps and
// validations, and what an epoch's end records.
type Engine[R Runner] interface {
	// TrainEpoch runs the steps of the epoch of the runs act (begun, all
	// at one epoch; maxSteps is the most steps one of them has): step k
	// trains every run that has a k-th batch, and adds its loss to it
	// (Run.AddStep). A run that fails (a loss that is not finite) gets its
	// Err set; the error returned is a failure of the engine.
	TrainEpoch(act []R, maxSteps int) error
	// Validate scores each run's current weights on its validation set.
	Validate(live []R) ([]Scores, error)
	// EndEpoch ends run r's epoch, validated with val: selection, the
	// record, early stopping (Run.Done) or failure (Run.Err, Run.Done).
	// The error returned is a failure of the engine.
	EndEpoch(r R, val Scores) error
}

// Train trains runs in lockstep until none goes on: each epoch from the
// runs' first Start trains the runs still going (those not Done, from
// their Start, within their Epochs), validates
// those that did not fail, and ends their epoch. Written once, it drives
// every training path: a run on its own (R = 1) or R runs that share an
// engine's graphs.
func Train[R Runner](e Engine[R], runs []R) error {
	first := 0
	for i, r := range runs {
		if s := r.FitRun().Start; i == 0 || s < first {
			first = s
		}
	}
	for epoch := first; ; epoch++ {
		// act: the runs training this epoch, in the given order (an
		// engine's graphs may list their runs in it).
		var act []R
		for _, r := range runs {
			if fr := r.FitRun(); !fr.Done && fr.Start <= epoch && epoch < fr.Epochs {
				act = append(act, r)
			}
		}
		if len(act) == 0 {
			return nil
		}
		maxSteps := 0
		for _, r := range act {
			fr := r.FitRun()
			fr.begin(epoch)
			maxSteps = max(maxSteps, fr.StepsN)
		}
		if err := e.TrainEpoch(act, maxSteps); err != nil {
			return err
		}
		var live []R
		for _, r := range act {
			if fr := r.FitRun(); fr.Err != nil {
				fr.Done = true
			} else {
				live = append(live, r)
			}
		}
		scores, err := e.Validate(live)
		if err != nil {
			return fmt.Errorf("epoch %d validation: %w", epoch, err)
		}
		for i, r := range live {
			if err := e.EndEpoch(r, scores[i]); err != nil {
				return err
			}
		}
	}
}
