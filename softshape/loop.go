package softshape

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/softshape/fit"
)

// The training loop: one fold per run, trained epoch by epoch to the end of
// its protocol. It is written once for every path (fit.Train, and
// trainRound around it): a batchJob trains R runs as one model on a run
// axis, R = 1 being the single-run model (every run that trains alone).
// How a step and an evaluation are computed is the engine's.

// engine computes the steps and evaluations of the runs that trainRound
// drives.
type engine interface {
	// trainEpoch runs the steps of epoch of the runs act (begun by
	// fit.Train): step k trains every run that has a k-th batch. It adds
	// each step's loss to its run (addStep), which marks a run whose loss
	// is not finite failed; its error is a failure of the engine.
	trainEpoch(act []*runState, epoch, maxSteps int) error
	// trainAcc returns st's training accuracy over the epoch just trained.
	trainAcc(st *runState) float64
	// validate scores the runs' current weights during training: run
	// sts[i] on sets[i].
	validate(sts []*runState, sets []evalSet) ([]fit.Scores, error)
	// scoreSelected is validate after the training, of the selected
	// weights (restoreSelected).
	scoreSelected(sts []*runState, sets []evalSet) ([]fit.Scores, error)
	// describe fills what st's result says of the model it trained
	// (Params, RunAxis).
	describe(st *runState)
	// save writes st's selected model (restored) to the checkpoint
	// folder dir.
	save(st *runState, dir string) error
}

// evalSet is what one run is scored on: samples, labels and the phase.
type evalSet struct {
	phase Phase
	x     [][]float32
	y     []int
}

// labelsOf returns the labels of each set.
func labelsOf(sets []evalSet) [][]int {
	ys := make([][]int, len(sets))
	for i, s := range sets {
		ys[i] = s.y
	}
	return ys
}

// runState is one run's current fold as trainRound trains it: its progress
// (fit.Run), its result so far, the fit.Tracker that applies the protocol's
// rule to it (which epoch's model is kept, when the fold stops), the weights
// it keeps aside (the selected ones; under fold_reset=carry, the last ones)
// and its data. Every path keeps one per fold, so an epoch and a fold end
// the same way on every path.
type runState struct {
	fit.Run
	cfg   Config
	fr    *FoldResult
	track *fit.Tracker
	w     weights
	// best holds the selected epoch's weights; last, under
	// fold_reset=carry, those the fold ended with.
	best, last map[string]*tensors.Tensor
	// si is the run's index in its engine (its slot of a batchJob), want
	// the index of its result in TrainRuns' runs (-1: none wanted).
	si, want int
	fold     int
	fd       *data.FoldData
	start    time.Time
	// checkpoint is the folder that receives the selected model ("" none),
	// saveErr the *SaveError of a checkpoint not saved (the result stands).
	checkpoint string
	saveErr    error
}

// weights are the trainable variables of one fold's model, which selection
// copies and writes back: one run of a batch job.
type weights interface {
	// snapshot copies the weights, reusing prev's map (the snapshot it
	// replaces, finalized).
	snapshot(prev map[string]*tensors.Tensor) (map[string]*tensors.Tensor, error)
	// restore writes a snapshot back.
	restore(snap map[string]*tensors.Tensor) error
}

// newRunState starts run si's fold (0-based) under cfg on fd, its weights w,
// its batch order drawn from shuffle (when cfg shuffles); its ValLoss stays
// NaN until an epoch is selected.
func newRunState(si, want, fold int, cfg Config, fd *data.FoldData, w weights, shuffle *rand.Rand) (*runState, error) {
	rule, err := data.ParseBatchRule(cfg.BatchRule)
	if err != nil {
		return nil, err
	}
	if !cfg.Shuffle {
		shuffle = nil
	}
	bs := data.BatchSize(len(fd.TrainY), rule)
	return &runState{Run: fit.NewRun(len(fd.TrainY), bs, cfg.Epochs, shuffle),
		cfg: cfg, fr: &FoldResult{Fold: fold, BatchSize: bs, ValLoss: math.NaN()}, track: fit.NewTracker(cfg.FitRule()), w: w,
		si: si, want: want, fold: fold, fd: fd, start: time.Now()}, nil
}

// FitRun is fit.Runner's.
func (st *runState) FitRun() *fit.Run { return &st.Run }

// phase is the phase of the epoch in progress: dense during the warm-up.
func (st *runState) phase() Phase {
	if st.Epoch < st.cfg.WarmUpEpochs {
		return Dense
	}
	return Sparse
}

// addStep adds step k's loss and correct predictions (of its batch) to st's
// epoch, or marks st failed when the loss is not finite.
func (st *runState) addStep(l float64, right, k int) {
	if math.IsNaN(l) || math.IsInf(l, 0) {
		st.Err = fmt.Errorf("epoch %d step %d (%s phase): training loss is %v: %w", st.Epoch, k, st.phase(), l, ErrNonFinite)
		return
	}
	st.AddStep(l, right, len(st.Batch(k)))
}

// endEpoch ends st's epoch, validated on evalPhase with val, its training
// accuracy trainAcc: when the rule keeps this epoch's model it records the
// selection in the result and snapshots the weights; it appends the
// epoch's EpochStats to the history, calls onEpoch (if not nil) and marks
// st done when the rule stops the fold. A validation loss that is not
// finite fails the run (an error wrapping ErrNonFinite, and nothing
// recorded), not the round.
func (st *runState) endEpoch(evalPhase Phase, val fit.Scores, trainAcc float64, onEpoch func(EpochStats)) error {
	es := EpochStats{Fold: st.fold, Epoch: st.Epoch, Epochs: st.cfg.Epochs, Phase: st.phase(), TrainLoss: st.TrainLoss(),
		TrainAcc: trainAcc, ValLoss: meanOf(val.CE), ValAcc: val.Acc, Elapsed: time.Since(st.start)}
	if math.IsNaN(es.ValLoss) || math.IsInf(es.ValLoss, 0) {
		st.Err = fmt.Errorf("epoch %d (%s phase): validation loss is %v: %w", es.Epoch, evalPhase, es.ValLoss, ErrNonFinite)
		st.Done = true
		return nil
	}
	// The selection and stopping statistic: the mean CE, or the reference's
	// batch-scaled sum (Σ_batches mean CE / n_val).
	selLoss := st.cfg.SelectionLoss(val.CE, st.BatchSize)
	selected, stop := st.track.Next(selLoss)
	fr := st.fr
	if selected {
		fr.ValLoss, fr.BestEpoch, fr.SelectedPhase = selLoss, es.Epoch, evalPhase
		fr.SelectedWarmUp = es.Phase == Dense
		var err error
		if st.best, err = st.w.snapshot(st.best); err != nil {
			return err
		}
		es.Selected = true
	}
	fr.History = append(fr.History, es)
	fr.EpochsRun = es.Epoch + 1
	if onEpoch != nil {
		onEpoch(es)
	}
	if stop {
		st.Done = true
	}
	return nil
}

// restoreSelected ends the fold's training: it writes the selected model's
// weights back for the test evaluation and the checkpoint (none when no
// epoch was selected). Under fold_reset=carry it first keeps the weights the
// fold ended with aside, for resumeCarry: the next fold continues from them
// (the authors' code never restores the selected ones).
func (st *runState) restoreSelected() error {
	if st.cfg.CarriesFolds() {
		last, err := st.w.snapshot(nil)
		if err != nil {
			return err
		}
		st.last = last
	}
	return st.w.restore(st.best)
}

// resumeCarry writes back, under fold_reset=carry, the weights the fold
// ended with, which the next fold starts from; otherwise it does nothing.
func (st *runState) resumeCarry() error {
	if st.last == nil {
		return nil
	}
	return st.w.restore(st.last)
}

// round is fit.Train's engine for a round of trainRound: e's steps and
// validations, the epoch's end recorded as the options say.
type round struct {
	e    engine
	opts RunOptions
}

func (r round) TrainEpoch(act []*runState, maxSteps int) error {
	return r.e.trainEpoch(act, act[0].Epoch, maxSteps)
}

func (r round) Validate(live []*runState) ([]fit.Scores, error) {
	sets := make([]evalSet, len(live))
	for i, st := range live {
		sets[i] = evalSet{st.cfg.EvalPhase(st.phase()), st.fd.ValX, st.fd.ValY}
	}
	return r.e.validate(live, sets)
}

func (r round) EndEpoch(st *runState, val fit.Scores) error {
	return st.endEpoch(st.cfg.EvalPhase(st.phase()), val, r.e.trainAcc(st), r.opts.OnEpoch)
}

// trainRound trains one fold per state on e, all in lockstep, to the end of
// each one's protocol (fit.Train): every epoch trains the runs still going,
// validates them, and lets each one's rule keep its model and stop it. Then each run that did not fail has its selected
// weights restored, tested and saved (a checkpoint not saved is its
// saveErr), its result filled, and, under fold_reset=carry, the weights it
// ended with written back for its next fold. A run that fails keeps its
// error in its state; the error returned is a failure of the round.
func trainRound(e engine, states []*runState, opts RunOptions) error {
	if err := fit.Train(round{e, opts}, states); err != nil {
		return err
	}
	// Restore the selected weights and evaluate on the test split.
	var fin []*runState
	for _, st := range states {
		if st.Err != nil {
			continue
		}
		if err := st.restoreSelected(); err != nil {
			return err
		}
		fin = append(fin, st)
	}
	sets := make([]evalSet, len(fin))
	for i, st := range fin {
		sets[i] = evalSet{st.fr.SelectedPhase, st.fd.TestX, st.fd.TestY}
	}
	tests, err := e.scoreSelected(fin, sets)
	if err != nil {
		return fmt.Errorf("test evaluation: %w", err)
	}
	var meanVal []*runState
	for i, st := range fin {
		st.fr.TestAcc = tests[i].Acc
		e.describe(st)
		st.fr.Wall = time.Since(st.start)
		if st.cfg.SelectionStat != SelectionStatMean {
			meanVal = append(meanVal, st)
		}
	}
	if len(meanVal) > 0 {
		// The plain mean validation loss of the selected model, so that
		// the reported value is comparable across protocols (NaN on error).
		sets = sets[:0]
		for _, st := range meanVal {
			sets = append(sets, evalSet{st.fr.SelectedPhase, st.fd.ValX, st.fd.ValY})
		}
		vals, err := e.scoreSelected(meanVal, sets)
		for i, st := range meanVal {
			if err != nil {
				st.fr.ValLoss = math.NaN()
			} else {
				st.fr.ValLoss = meanOf(vals[i].CE)
			}
		}
	}
	for _, st := range fin {
		if st.checkpoint != "" {
			if err := e.save(st, st.checkpoint); err != nil {
				if !onlySaveErrors(err) {
					return err
				}
				st.saveErr = err
			}
		}
		if err := st.resumeCarry(); err != nil {
			return err
		}
	}
	return nil
}
