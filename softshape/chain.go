package softshape

import (
	"errors"
	"fmt"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/data"
)

// FoldChain trains the folds of one dataset, configuration and seed. Under
// fold_reset=fresh every fold is independent; under fold_reset=carry a fold
// starts from the weights and Adam state the previous fold ended with (the
// authors' code), so the chain trains the folds in order and Fold(f) first
// trains any earlier fold it has not trained yet. A chain is not safe for
// concurrent use.
type FoldChain struct {
	ds      *data.Dataset
	cfg     Config
	opts    RunOptions
	backend compute.Backend
	model   *Model
	splits  []data.Split
	// carried is the job of the chain's folds under carry (one run on a run
	// axis of one, its store holding the weights, Adam and RNG states the
	// last fold ended with); next the fold it would train next.
	carried *batchJob
	next    int
}

// NewFoldChain checks cfg against ds and prepares the folds (opts.NumFolds,
// default 5, split with opts.Seed).
func NewFoldChain(ds *data.Dataset, cfg Config, opts RunOptions) (*FoldChain, error) {
	backend, m, splits, err := setUp(ds, cfg, &opts)
	if err != nil {
		return nil, err
	}
	return &FoldChain{ds: ds, cfg: cfg, opts: opts, backend: backend, model: m, splits: splits}, nil
}

// NumFolds returns the number of folds.
func (c *FoldChain) NumFolds() int { return len(c.splits) }

// Fold trains fold f (0-based) and returns its result and selected model.
// Under fold_reset=carry f must not precede a fold the chain has trained.
// A checkpoint it could not save (RunOptions.CheckpointDir) is an error
// joining *SaveError values, returned with the result and model, which are
// complete.
func (c *FoldChain) Fold(f int) (*FoldResult, *Trained, error) {
	if f < 0 || f >= len(c.splits) {
		return nil, nil, fmt.Errorf("fold index %d out of range: %d folds (indices 0..%d)", f, len(c.splits), len(c.splits)-1)
	}
	if !c.cfg.CarriesFolds() {
		return c.train(f)
	}
	if f < c.next {
		return nil, nil, fmt.Errorf("dataset %s: fold %d under %s=%s: the chain has already trained fold %d (folds carry over in order)",
			c.ds.Name, f+1, ParamFoldReset, FoldResetCarry, c.next)
	}
	var saveErrs []error // checkpoints not saved: the chain goes on
	for c.next < f {
		if _, _, err := c.train(c.next); err != nil {
			if !onlySaveErrors(err) {
				return nil, nil, err
			}
			saveErrs = append(saveErrs, err)
		}
	}
	fr, tr, err := c.train(f)
	if err != nil && !onlySaveErrors(err) {
		return nil, nil, err
	}
	return fr, tr, errors.Join(append(saveErrs, err)...)
}

// CanTrain reports whether Fold(f) can be called: f is a fold index and, under
// fold_reset=carry, not before a fold the chain has trained.
func (c *FoldChain) CanTrain(f int) bool {
	return f >= 0 && f < len(c.splits) && (!c.cfg.CarriesFolds() || f >= c.next)
}

// FoldData returns fold f's prepared splits (imputed and normalised as in
// training).
func (c *FoldChain) FoldData(f int) (*data.FoldData, error) {
	if f < 0 || f >= len(c.splits) {
		return nil, fmt.Errorf("fold index %d out of range: %d folds", f, len(c.splits))
	}
	fd, err := data.Prepare(c.ds, c.splits[f])
	if err != nil {
		return nil, fmt.Errorf("dataset %s fold %d: %w", c.ds.Name, f+1, err)
	}
	return fd, nil
}

// train trains fold f as TrainRuns trains one run: a batchJob of one run on
// a run axis of one (R = 1: the single-run model and step). A fresh fold
// has a job of its own; under fold_reset=carry the chain's job (carried,
// created at its first fold) trains its next fold, continuing from the
// weights, Adam and RNG states and batch order the previous one ended
// with. Its model is the run's selected weights in a store of Train's
// layout (runStore).
func (c *FoldChain) train(f int) (*FoldResult, *Trained, error) {
	fd, err := c.FoldData(f)
	if err != nil {
		return nil, nil, err
	}
	job := c.carried
	if job == nil {
		if job, err = c.newJob(f); err != nil {
			return nil, nil, err
		}
	}
	if c.cfg.CarriesFolds() {
		c.carried = job
	} else {
		defer job.finalize()
	}
	chain := job.slots[0].chain
	chain.folds, chain.want, chain.fds = append(chain.folds, f), append(chain.want, 0), append(chain.fds, fd)
	results := make([]FoldResult, 1)
	states, errs, err := job.round(len(chain.folds)-1, c.ds, c.opts, false, results, make([]bool, 1))
	if err != nil {
		return nil, nil, err
	}
	var saveErr error
	for _, e := range errs {
		var runErr *RunError
		if errors.As(e, &runErr) {
			return nil, nil, runErr.Err // "dataset D fold N: …"
		}
		saveErr = fmt.Errorf("dataset %s fold %d: %w", c.ds.Name, f+1, e)
	}
	if c.cfg.CarriesFolds() {
		c.next = f + 1
	}
	store, err := job.runStore(0, chain.seed+int64(chain.folds[0]))
	if err == nil && c.cfg.CarriesFolds() && states[0].best != nil {
		err = restoreSnapshot(store, states[0].best) // not the carried weights
	}
	if err != nil {
		return nil, nil, err
	}
	fr := &results[0]
	return fr, newTrained(c.backend, c.model, store, fr.SelectedPhase), saveErr
}

// newJob returns the job of one run of the chain starting at fold f (its
// folds appended as they train), on a run axis of one.
func (c *FoldChain) newJob(f int) (*batchJob, error) {
	return newRunJob(c.backend, c.model, c.opts.Seed, f, c.opts.RefShapeLen)
}
