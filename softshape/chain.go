package softshape

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"

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
	carried *job
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
	if err := checkFold(f, len(c.splits)); err != nil {
		return nil, nil, err
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
	return prepareFold(c.ds, c.splits, f)
}

// train trains fold f as TrainRuns trains one run: a job of one run on a
// run axis of one (R = 1: the single-run model and step). A fresh fold
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
	rj := c.carried
	if rj == nil {
		if rj, err = newRunJob(c.backend, c.model, c.opts.Seed, f, c.opts.RefShapeLen); err != nil {
			return nil, nil, err
		}
	}
	if c.cfg.CarriesFolds() {
		c.carried = rj
	} else {
		defer rj.finalize()
	}
	chain := rj.chains[0]
	chain.folds, chain.want, chain.fds = append(chain.folds, f), append(chain.want, 0), append(chain.fds, fd)
	results := make([]FoldResult, 1)
	states, errs, err := rj.round(len(chain.folds)-1, c.ds, c.opts, false, results, make([]bool, 1))
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
	store, err := rj.runStore(0)
	if err == nil && c.cfg.CarriesFolds() && states[0].best != nil {
		err = restoreRun(store, 0, states[0].best) // not the carried weights
	}
	if err != nil {
		return nil, nil, err
	}
	fr := &results[0]
	return fr, newTrained(c.backend, c.model, store, fr.SelectedPhase), saveErr
}

// Store parameters of a carried chain's saved state (SaveCarried).
const (
	// paramCarriedFold is the 0-based index of the last fold the saved chain trained.
	paramCarriedFold = "carried_after_fold"
	// paramCarriedSeed is the chain's seed (RunOptions.Seed).
	paramCarriedSeed = "carried_seed"
	// paramCarriedShuffle is the state of the batch-order generator, base64.
	paramCarriedShuffle = "carried_shuffle_state"
)

// SaveCarried writes what the next fold of a fold_reset=carry chain starts
// from (the weights and Adam state after the last fold trained, the dropout
// and batch-order generators, and which fold that was) to dir as a GoMLX
// checkpoint, replacing an earlier one there (SaveCheckpoint's rules: it
// refuses a folder holding anything but checkpoint files). ResumeFoldChain
// continues from it without training the earlier folds again. It is an
// error on a chain that does not carry folds or has trained none.
func (c *FoldChain) SaveCarried(dir string) error {
	if !c.cfg.CarriesFolds() {
		return fmt.Errorf("saving the carried state: %s=%s carries nothing between folds", ParamFoldReset, c.cfg.FoldReset)
	}
	if c.carried == nil {
		return fmt.Errorf("saving the carried state: the chain has trained no fold yet")
	}
	shuffle, err := c.carried.chains[0].pcg.MarshalBinary()
	if err != nil {
		return fmt.Errorf("saving the carried state: batch-order generator: %w", err)
	}
	store := c.carried.store
	root := store.RootScope()
	root.SetParam(paramCarriedFold, c.next-1)
	root.SetParam(paramCarriedSeed, c.opts.Seed)
	root.SetParam(paramCarriedShuffle, base64.StdEncoding.EncodeToString(shuffle))
	return SaveCheckpoint(store, dir)
}

// ResumeFoldChain returns the chain NewFoldChain(ds, cfg, opts) would be
// after training fold after (0-based) and everything before it, from the
// state SaveCarried wrote to dir: its next Fold call may be fold after+1, and
// gives the result the uninterrupted chain would. The state must be of the
// same dataset sizes, configuration and seed; anything else is an error
// naming dir.
func ResumeFoldChain(ds *data.Dataset, cfg Config, opts RunOptions, dir string, after int) (*FoldChain, error) {
	c, err := NewFoldChain(ds, cfg, opts)
	if err != nil {
		return nil, err
	}
	if !cfg.CarriesFolds() {
		return nil, fmt.Errorf("resuming from %s: %s=%s carries nothing between folds", dir, ParamFoldReset, cfg.FoldReset)
	}
	if after < 0 || after >= len(c.splits)-1 {
		return nil, fmt.Errorf("resuming from %s: no fold follows fold index %d of %d", dir, after, len(c.splits))
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("carried state %s: %w", dir, err)
	}
	rj, err := newRunJob(c.backend, c.model, c.opts.Seed, after+1, c.opts.RefShapeLen)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*FoldChain, error) {
		rj.finalize()
		return nil, err
	}
	store := rj.store
	// Not Immediate: the variables take their saved values as the graphs
	// create them, so each keeps the kind (trainable or not) the model and
	// the optimizer give it; the generator state, which exists already, is
	// overwritten at once. The stride rule is cleared first: a state saved
	// before it existed must not inherit storeFor's.
	store.RootScope().SetParam(paramStrideRule, "")
	if _, err := checkpoint.Build(store).Dir(dir).Done(); err != nil {
		return fail(fmt.Errorf("loading the carried state %s: %w", dir, err))
	}
	root := store.RootScope()
	if got := ConfigFromStore(store).String(); got != cfg.String() {
		return fail(fmt.Errorf("carried state %s is of configuration %q, not %q", dir, got, cfg.String()))
	}
	if model.GetParamOr(root, paramStrideRule, "") != strideRuleNow &&
		cfg.AutoStrideMoved(c.model.Shape.SeriesLen, c.model.Shape.NumClasses, c.opts.RefShapeLen) {
		return fail(fmt.Errorf("carried state %s was trained at the stride auto gave before it followed the authors' rule (LegacyAutoStride)", dir))
	}
	root.SetParam(paramStrideRule, strideRuleNow)
	for _, p := range []struct {
		name      string
		got, want int
	}{
		{paramSeriesLen, model.GetParamOr(root, paramSeriesLen, -1), c.model.Shape.SeriesLen},
		{paramNumClasses, model.GetParamOr(root, paramNumClasses, -1), c.model.Shape.NumClasses},
		{paramRefShapeLen, model.GetParamOr(root, paramRefShapeLen, -1), c.opts.RefShapeLen},
		{paramCarriedFold, model.GetParamOr(root, paramCarriedFold, -1), after},
	} {
		if p.got != p.want {
			return fail(fmt.Errorf("carried state %s has %s=%d, want %d", dir, p.name, p.got, p.want))
		}
	}
	if seed := model.GetParamOr(root, paramCarriedSeed, int64(-1)); seed != opts.Seed {
		return fail(fmt.Errorf("carried state %s is of seed %d, not %d", dir, seed, opts.Seed))
	}
	shuffle, err := base64.StdEncoding.DecodeString(model.GetParamOr(root, paramCarriedShuffle, ""))
	if err == nil {
		err = rj.chains[0].pcg.UnmarshalBinary(shuffle)
	}
	if err != nil {
		return fail(fmt.Errorf("carried state %s: batch-order generator: %w", dir, err))
	}
	c.carried, c.next = rj, after+1
	return c, nil
}
