package softshape

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"

	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/checkpointdir"
)

// ForeignFileError reports a checkpoint folder holding a file this project
// did not write there (checkpointdir's rule): SaveCheckpoint then saves and
// deletes nothing. It is named here for code outside the module.
type ForeignFileError = checkpointdir.ForeignFileError

// SaveError reports a checkpoint that could not be saved (SaveCheckpoint)
// after its fold trained. Train returns such errors together with its
// result, which is complete: a failed save does not discard the training.
type SaveError struct {
	// Dir is the checkpoint folder; Err the cause.
	Dir string
	Err error
}

// Error names the folder and the cause.
func (e *SaveError) Error() string {
	return fmt.Sprintf("checkpoint not saved to %s: %v", e.Dir, e.Err)
}

// Unwrap returns the cause.
func (e *SaveError) Unwrap() error { return e.Err }

// onlySaveErrors reports whether err is not nil and every error it joins
// (errors.Join) is a *SaveError.
func onlySaveErrors(err error) bool {
	if err == nil {
		return false
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !onlySaveErrors(e) {
				return false
			}
		}
		return true
	}
	var se *SaveError
	return errors.As(err, &se)
}

// SaveCheckpoint writes every variable and hyperparameter of store to dir
// (created if missing), replacing an earlier checkpoint there. It never
// deletes what it did not write: when dir holds anything but checkpoint
// files (checkpoint-*.bin/.json and checkpointdir.HistoryFile) it returns
// an error wrapping a *checkpointdir.ForeignFileError naming dir and the
// first such entry and touches nothing; otherwise it removes those files
// before saving (checkpointdir.Clear).
//
// Its errors are *SaveError values naming dir and the cause, among them the
// system's error when dir cannot be created (GoMLX's checkpoint package
// would report only that it cannot list it).
func SaveCheckpoint(store *model.Store, dir string) error {
	if err := checkpointdir.Clear(dir); err != nil {
		return &SaveError{Dir: dir, Err: err}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &SaveError{Dir: dir, Err: err}
	}
	h, err := checkpoint.Build(store).Dir(dir).Keep(1).Done()
	if err != nil {
		return &SaveError{Dir: dir, Err: err}
	}
	if err := h.Save(); err != nil {
		return &SaveError{Dir: dir, Err: err}
	}
	return nil
}

// LoadCheckpoint reads a model saved by Trained.Save (or by Train with
// RunOptions.CheckpointDir) from dir. A nil backend means backends.New("").
func LoadCheckpoint(dir string, backend compute.Backend) (*Trained, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	if names, err := checkpointdir.Saved(dir); err != nil {
		return nil, err
	} else if len(names) == 0 {
		return nil, fmt.Errorf("checkpoint %s holds no checkpoint-*.json: not a folder saved by softshape train -checkpoint or plot curves -save", dir)
	}
	if backend == nil {
		var err error
		if backend, err = backends.New(""); err != nil {
			return nil, err
		}
	}
	store := model.NewStore()
	if _, err := checkpoint.Build(store).Dir(dir).Immediate().Done(); err != nil {
		return nil, fmt.Errorf("loading checkpoint %s: %w", dir, err)
	}
	root := store.RootScope()
	cfg := ConfigFromStore(store)
	seriesLen := model.GetParamOr(root, paramSeriesLen, 0)
	numClasses := model.GetParamOr(root, paramNumClasses, 0)
	refShapeLen := model.GetParamOr(root, paramRefShapeLen, 0)
	if model.GetParamOr(root, paramStrideRule, "") != strideRuleNow && cfg.AutoStrideMoved(seriesLen, numClasses, refShapeLen) {
		// Saved before stride "auto" followed the authors' rule: load it at
		// the stride it was trained with.
		if cfg.MultiSeq != "" {
			return nil, fmt.Errorf("checkpoint %s: a Multi-Seq model saved before stride auto followed the authors' rule (2026-11-27), with a shape length of 3 or 4: its strides cannot be given as one setting; retrain it", dir)
		}
		s, err := cfg.Resolve(seriesLen, numClasses, refShapeLen)
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
		}
		cfg.Stride = Stride(strconv.Itoa(LegacyAutoStride(s.ShapeLen)))
	}
	m, err := New(cfg, seriesLen, numClasses, refShapeLen)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	phase := Dense
	if model.GetParamOr(root, paramPhase, phaseNameDense) == phaseNameSparse {
		phase = Sparse
	}
	return newTrained(backend, m, store, phase), nil
}
