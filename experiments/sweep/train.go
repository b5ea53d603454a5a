package sweep

import (
	"fmt"
	"time"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/softshape"
)

// Outcome is what a training function returns for one fold.
type Outcome struct {
	// Result is the fold's result (test accuracy of the model selected by the
	// validation loss, the validation loss, epochs, parameters, wall time).
	Result softshape.FoldResult
	// InferenceSeconds is the time to evaluate the fold's test split with
	// the selected model (graphs already compiled); 0 if not measured.
	InferenceSeconds float64
}

// TrainFunc trains one fold (0-based) of ds with cfg; opts carries the
// backend, seed and the authors' shape length.
type TrainFunc func(ds *data.Dataset, cfg softshape.Config, fold int, opts softshape.RunOptions) (*Outcome, error)

// DefaultTrain trains one fold with softshape.TrainFold, the protocol of
// softshape.Train restricted to that fold (the same folds, seed, fresh model
// and selection by validation loss), and then times the evaluation of the
// fold's test split with the selected model.
func DefaultTrain(ds *data.Dataset, cfg softshape.Config, fold int, opts softshape.RunOptions) (*Outcome, error) {
	out, err := trainAndTime(ds, cfg, fold, opts)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// trainAndTime is DefaultTrain, except that it returns the outcome together
// with an error joining *softshape.SaveError values (a checkpoint or
// carried state not saved), as softshape.TrainFold does.
func trainAndTime(ds *data.Dataset, cfg softshape.Config, fold int, opts softshape.RunOptions) (*Outcome, error) {
	fr, trained, saveErr := softshape.TrainFold(ds, cfg, fold, opts)
	if fr == nil {
		return nil, saveErr
	}
	fd, err := softshape.PrepareFold(ds, opts, fold)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if _, _, err := trained.Evaluate(fd.TestX, fd.TestY); err != nil {
		return nil, fmt.Errorf("dataset %s fold %d: timing inference: %w", ds.Name, fold, err)
	}
	return &Outcome{Result: *fr, InferenceSeconds: time.Since(start).Seconds()}, saveErr
}
