package softshape

import (
	"errors"
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/softshape-go/softshape/data"
)

// Store parameters of a Classifier's checkpoint (Classifier.Save): what
// Predict needs to prepare new series besides the model.
const (
	paramClassNames = "data_class_names"
	paramFill       = "data_fill"
)

// Classifier is a trained SoftShape model that takes raw series, missing
// values allowed, and answers in class names: Fit trains one on a caller's
// own labelled series, Load reads one Save wrote. It prepares every series
// as the protocol prepares a test split (data.PrepareSeries): each missing
// value is filled with the training set's mean at its time step (Fill), then
// each series is z-normalised on its own.
type Classifier struct {
	trained *Trained
	classes []string
	fill    []float64
	// Result is the training run's result (per-epoch history, selected
	// epoch; its TestAcc is NaN: Fit has no test set); nil after Load and
	// NewClassifier.
	Result *FoldResult
}

// Fit trains a SoftShape model of cfg on the series and labels of train and
// returns it. Build the sets from a caller's own series and labels with
// data.NewDataset (or take a UCR dataset's, data.Dataset.TrainTest, or the
// protocol's, FoldSets). Missing values (NaN) are filled with train's mean
// at each time step and every series is z-normalised on its own (data.Prepare),
// inside: pass the raw series.
//
// val, when not nil, is the validation set the protocol selects the model
// on and stops early by (cfg's selection_window, patience and selection
// statistic), as on a fold's validation split; its labels are matched to
// train's classes by name. Without it (nil) nothing is selected and nothing
// stops early: the model is the last of cfg.Epochs epochs, on the path of
// its phase, and the history's validation columns are NaN.
//
// The run trains as TrainFold trains fold 1 (one run alone, seeded by
// opts.Seed, through the same driver): Fit on FoldSets(ds, opts, 0)'s train
// and val gives TrainFold(ds, cfg, 0, opts)'s model. opts.Backend, Seed,
// RefShapeLen, OnEpoch, Stop (to cancel with a context's Done) and Fast
// apply; the settings of the folds (NumFolds, Folds), of fold_reset=carry
// (CarryIn, CarryOut) and CheckpointDir (use Save) are errors, as is cfg's
// fold_reset=carry.
func Fit(train, val *data.Dataset, cfg Config, opts RunOptions) (*Classifier, error) {
	if err := checkFitOptions(cfg, opts); err != nil {
		return nil, err
	}
	if val != nil && len(val.Series) == 0 {
		val = nil
	}
	all, split, err := data.Combine(train, val)
	if err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	fd, err := data.Prepare(all, split)
	if err != nil {
		return nil, fmt.Errorf("fit: dataset %s: %w", all.Name, err)
	}
	fr, tr, err := trainAlone(all, fd, cfg, 0, opts)
	if err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	return &Classifier{trained: tr, classes: all.ClassNames, fill: fd.Fill, Result: fr}, nil
}

// checkFitOptions reports the settings Fit does not take.
func checkFitOptions(cfg Config, opts RunOptions) error {
	var bad []error
	if opts.NumFolds != 0 || opts.Folds != nil {
		bad = append(bad, errors.New("RunOptions.NumFolds and Folds are the protocol's folds: Fit trains on the sets given (FoldSets gives a fold's)"))
	}
	if opts.CarryIn != "" || opts.CarryOut != "" || cfg.CarriesFolds() {
		bad = append(bad, fmt.Errorf("%s=%s, RunOptions.CarryIn and CarryOut chain the protocol's folds: Fit trains one run", ParamFoldReset, FoldResetCarry))
	}
	if opts.CheckpointDir != "" {
		bad = append(bad, errors.New("RunOptions.CheckpointDir: save the classifier Fit returns with its Save method"))
	}
	if len(bad) > 0 {
		return fmt.Errorf("fit: %w", errors.Join(bad...))
	}
	return nil
}

// FoldSets returns the training, validation and test sets of fold
// (0-based) of ds as the protocol splits it for the runs of opts
// (opts.FoldCount folds seeded by opts.Seed; data.Folds): the raw rows, with
// ds's classes (data.Dataset.Subset), for Fit and Classifier.Evaluate.
func FoldSets(ds *data.Dataset, opts RunOptions, fold int) (train, val, test *data.Dataset, err error) {
	splits, err := data.Folds(ds, opts.FoldCount(), opts.Seed)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("dataset %s: %w", ds.Name, err)
	}
	if err := checkFold(fold, len(splits)); err != nil {
		return nil, nil, nil, err
	}
	sets := make([]*data.Dataset, 3)
	for i, rows := range [][]int{splits[fold].Train, splits[fold].Val, splits[fold].Test} {
		if sets[i], err = ds.Subset(rows); err != nil {
			return nil, nil, nil, err
		}
	}
	return sets[0], sets[1], sets[2], nil
}

// NewClassifier returns the Classifier of a trained model t (from TrainFold
// or LoadCheckpoint) whose classes are named classes, by class id, and whose
// training data had its missing values filled with fill (data.FoldData.Fill,
// one value per time step).
func NewClassifier(t *Trained, classes []string, fill []float64) (*Classifier, error) {
	if len(classes) != t.model.Shape.NumClasses {
		return nil, fmt.Errorf("%d class names for a model of %d classes", len(classes), t.model.Shape.NumClasses)
	}
	if len(fill) != t.model.Shape.SeriesLen {
		return nil, fmt.Errorf("%d imputation values for a model of series of %d", len(fill), t.model.Shape.SeriesLen)
	}
	return &Classifier{trained: t, classes: classes, fill: fill}, nil
}

// Trained returns the model, which takes prepared series (Prepare).
func (c *Classifier) Trained() *Trained { return c.trained }

// Classes returns the class names, by class id.
func (c *Classifier) Classes() []string { return c.classes }

// Fill returns the value that fills a missing one at each time step.
func (c *Classifier) Fill() []float64 { return c.fill }

// Prepare returns the series x as the model takes them: missing values
// filled (Fill), each series z-normalised (data.PrepareSeries).
func (c *Classifier) Prepare(x [][]float64) ([][]float32, error) {
	xp, err := data.PrepareSeries(x, c.fill)
	if err != nil {
		return nil, fmt.Errorf("classifier: %w", err)
	}
	return xp, nil
}

// PredictProba returns the probability of each class (by class id, Classes)
// for each series of x: the softmax of the model's logits
// (Trained.Probabilities).
func (c *Classifier) PredictProba(x [][]float64) ([][]float64, error) {
	probs, _, err := c.probabilities(x)
	return probs, err
}

// Predict returns the predicted class name of each series of x, the most
// probable class (PredictProba).
func (c *Classifier) Predict(x [][]float64) ([]string, error) {
	_, preds, err := c.probabilities(x)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(preds))
	for i, p := range preds {
		names[i] = c.classes[p]
	}
	return names, nil
}

func (c *Classifier) probabilities(x [][]float64) ([][]float64, []int, error) {
	xp, err := c.Prepare(x)
	if err != nil {
		return nil, nil, err
	}
	return c.trained.Probabilities(xp)
}

// Evaluate returns the accuracy and the mean cross-entropy of the model on
// the series x labelled y (class names; one the model does not know is an
// error naming it): Trained.Evaluate on the prepared series.
func (c *Classifier) Evaluate(x [][]float64, y []string) (acc, meanCE float64, err error) {
	if len(x) != len(y) {
		return 0, 0, fmt.Errorf("evaluate: %d series but %d labels", len(x), len(y))
	}
	ids := make(map[string]int, len(c.classes))
	for id, name := range c.classes {
		ids[name] = id
	}
	labels := make([]int, len(y))
	for i, name := range y {
		id, ok := ids[name]
		if !ok {
			return 0, 0, fmt.Errorf("evaluate: label %d, %q, is not one of the model's classes %q", i, name, c.classes)
		}
		labels[i] = id
	}
	xp, err := c.Prepare(x)
	if err != nil {
		return 0, 0, err
	}
	return c.trained.Evaluate(xp, labels)
}

// Save writes the classifier to dir as a GoMLX checkpoint (Trained.Save's
// rules: it replaces an earlier checkpoint there and refuses a folder that
// holds anything else), with the class names and imputation values that
// Load needs.
func (c *Classifier) Save(dir string) error {
	root := c.trained.store.RootScope()
	root.SetParam(paramClassNames, c.classes)
	root.SetParam(paramFill, c.fill)
	return c.trained.Save(dir)
}

// Load reads a classifier that Classifier.Save wrote to dir, to run on
// backend (nil: backends.New("")). A checkpoint of a fold (TrainFold,
// softshape train -checkpoint) has no class names: load it with
// LoadCheckpoint and give them with NewClassifier.
func Load(dir string, backend compute.Backend) (*Classifier, error) {
	t, err := LoadCheckpoint(dir, backend)
	if err != nil {
		return nil, err
	}
	root := t.store.RootScope()
	classes := model.GetParamOr[[]string](root, paramClassNames, nil)
	fill := model.GetParamOr[[]float64](root, paramFill, nil)
	if classes == nil || fill == nil {
		return nil, fmt.Errorf("checkpoint %s holds a model but not its class names and imputation values (saved by Classifier.Save): load it with LoadCheckpoint and NewClassifier", dir)
	}
	c, err := NewClassifier(t, classes, fill)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	return c, nil
}
