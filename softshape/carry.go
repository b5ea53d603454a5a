package softshape

import (
	"encoding/base64"
	"fmt"
	"os"

	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"

	"github.com/softshape-go/softshape/data"
)

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
	shuffle, err := c.carried.slots[0].pcg.MarshalBinary()
	if err != nil {
		return fmt.Errorf("saving the carried state: batch-order generator: %w", err)
	}
	store := c.carried.axis.store
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
	job, err := c.newJob(after + 1)
	if err != nil {
		return nil, err
	}
	store := job.axis.store
	// Not Immediate: the variables take their saved values as the graphs
	// create them, so each keeps the kind (trainable or not) the model and
	// the optimizer give it; the generator state, which exists already, is
	// overwritten at once.
	if _, err := checkpoint.Build(store).Dir(dir).Done(); err != nil {
		job.finalize()
		return nil, fmt.Errorf("loading the carried state %s: %w", dir, err)
	}
	fail := func(err error) (*FoldChain, error) {
		job.finalize()
		return nil, err
	}
	root := store.RootScope()
	if got := ConfigFromStore(store).String(); got != cfg.String() {
		return fail(fmt.Errorf("carried state %s is of configuration %q, not %q", dir, got, cfg.String()))
	}
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
		err = job.slots[0].pcg.UnmarshalBinary(shuffle)
	}
	if err != nil {
		return fail(fmt.Errorf("carried state %s: batch-order generator: %w", dir, err))
	}
	c.carried, c.next = job, after+1
	return c, nil
}

// RemoveCheckpoint deletes a checkpoint folder written by SaveCheckpoint or
// SaveCarried: its checkpoint files, then the folder. When the folder holds
// anything else it returns a *ForeignFileError and deletes nothing. A missing
// folder is not an error.
func RemoveCheckpoint(dir string) error {
	if err := clearCheckpoint(dir); err != nil {
		return err
	}
	if err := os.Remove(dir); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("removing checkpoint folder %s: %w", dir, err)
	}
	return nil
}
