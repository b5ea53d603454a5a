package softshape

import (
	"encoding/base64"
	"fmt"
	"os"

	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
)

// A fold_reset=carry chain can stop after any fold and continue later
// (RunOptions.CarryOut, RunOptions.CarryIn): what the next fold starts from
// (the weights and Adam state the fold ended with, the dropout and
// batch-order generators, and which fold that was) is a GoMLX checkpoint.

// Store parameters of a carried state.
const (
	// paramCarriedFold is the 0-based index of the last fold the chain trained.
	paramCarriedFold = "carried_after_fold"
	// paramCarriedSeed is the chain's seed (RunSpec.Seed).
	paramCarriedSeed = "carried_seed"
	// paramCarriedShuffle is the state of the batch-order generator, base64.
	paramCarriedShuffle = "carried_shuffle_state"
)

// CarriedStateError reports a carried state (RunOptions.CarryIn) that the
// chain cannot continue from: missing, unreadable, or of another dataset,
// configuration, seed or fold. Nothing was trained.
type CarriedStateError struct {
	// Dir is the state's folder; Err the cause.
	Dir string
	Err error
}

// Error names the folder and the cause.
func (e *CarriedStateError) Error() string { return fmt.Sprintf("carried state %s: %v", e.Dir, e.Err) }

// Unwrap returns the cause.
func (e *CarriedStateError) Unwrap() error { return e.Err }

// saveCarried writes what the next fold of chain si (trained through fold
// last) starts from to dir, replacing an earlier state there
// (SaveCheckpoint's rules; its errors are *SaveError values).
func (j *job) saveCarried(si, last int, dir string) error {
	c := j.chains[si]
	shuffle, err := c.pcg.MarshalBinary()
	if err != nil {
		return &SaveError{Dir: dir, Err: fmt.Errorf("batch-order generator: %w", err)}
	}
	root := j.store.RootScope()
	root.SetParam(paramCarriedFold, last)
	root.SetParam(paramCarriedSeed, c.seed)
	root.SetParam(paramCarriedShuffle, base64.StdEncoding.EncodeToString(shuffle))
	return SaveCheckpoint(j.store, dir)
}

// resumeCarried loads into j, a new job of one fold_reset=carry chain whose
// first fold is c.folds[0], the state saved (saveCarried) after the fold
// before it, so the chain trains on as the uninterrupted one would. A state
// of other data sizes, configuration, seed or fold is a *CarriedStateError.
func (j *job) resumeCarried(dir string) error {
	c := j.chains[0]
	fail := func(format string, args ...any) error {
		return &CarriedStateError{Dir: dir, Err: fmt.Errorf(format, args...)}
	}
	if _, err := os.Stat(dir); err != nil {
		return &CarriedStateError{Dir: dir, Err: err}
	}
	// Not Immediate: the variables take their saved values as the graphs
	// create them, so each keeps the kind (trainable or not) the model and
	// the optimizer give it; the generator state, which exists already, is
	// overwritten at once. The stride rule is cleared first: a state saved
	// before it existed must not inherit storeFor's.
	root := j.store.RootScope()
	refShapeLen := model.GetParamOr(root, paramRefShapeLen, 0)
	root.SetParam(paramStrideRule, "")
	if _, err := checkpoint.Build(j.store).Dir(dir).Done(); err != nil {
		return fail("loading: %w", err)
	}
	if got := ConfigFromStore(j.store).String(); got != c.cfg.String() {
		return fail("it is of configuration %q, not %q", got, c.cfg.String())
	}
	shape := c.m.Shape
	if model.GetParamOr(root, paramStrideRule, "") != strideRuleNow && c.cfg.AutoStrideMoved(shape.SeriesLen, shape.NumClasses, refShapeLen) {
		return fail("it was trained at the stride auto gave before it followed the authors' rule (LegacyAutoStride)")
	}
	root.SetParam(paramStrideRule, strideRuleNow)
	for _, p := range []struct {
		name      string
		got, want int
	}{
		{paramSeriesLen, model.GetParamOr(root, paramSeriesLen, -1), shape.SeriesLen},
		{paramNumClasses, model.GetParamOr(root, paramNumClasses, -1), shape.NumClasses},
		{paramRefShapeLen, model.GetParamOr(root, paramRefShapeLen, -1), refShapeLen},
		{paramCarriedFold, model.GetParamOr(root, paramCarriedFold, -1), c.folds[0] - 1},
	} {
		if p.got != p.want {
			return fail("it has %s=%d, want %d", p.name, p.got, p.want)
		}
	}
	if seed := model.GetParamOr(root, paramCarriedSeed, int64(-1)); seed != c.seed {
		return fail("it is of seed %d, not %d", seed, c.seed)
	}
	shuffle, err := base64.StdEncoding.DecodeString(model.GetParamOr(root, paramCarriedShuffle, ""))
	if err == nil {
		err = c.pcg.UnmarshalBinary(shuffle)
	}
	if err != nil {
		return fail("batch-order generator: %w", err)
	}
	return nil
}
