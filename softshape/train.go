package softshape

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"gonum.org/v1/gonum/stat"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
)

// Store parameters that record the data-dependent sizes, so a checkpoint can be
// rebuilt into a Model.
const (
	paramSeriesLen   = "data_series_len"
	paramNumClasses  = "data_num_classes"
	paramRefShapeLen = "data_ref_shape_len"
	paramPhase       = "selected_phase"
	// paramStrideRule marks a checkpoint trained with stride "auto" as the
	// authors' rule (autoStride); one without it was trained with
	// LegacyAutoStride.
	paramStrideRule = "data_stride_rule"
	strideRuleNow   = "authors"
)

// RunOptions are the settings of a training run that are not hyperparameters of
// the model.
type RunOptions struct {
	// Backend runs the graphs; nil means backends.New(Execution.BackendName)
	// ("" honours $GOMLX_BACKEND).
	Backend compute.Backend
	// Seed makes a run repeatable on one backend: it fixes the folds, the
	// initial weights, dropout and the batch order.
	Seed int64
	// NumFolds is the number of cross-validation folds (default ProtocolFolds,
	// the paper's 5).
	NumFolds int
	// Folds lists the folds to run, 0-based; nil runs all of them.
	Folds []int
	// RefShapeLen is the authors' per-dataset shape length m (0 if unknown), used
	// when the shape_length hyperparameter is 0 ("auto").
	RefShapeLen int
	// CheckpointDir, when set, receives the selected model of each fold
	// requested (not of the earlier folds a fold_reset=carry chain trains
	// first) in CheckpointDir/fold-N, N the 1-based fold number (fold-1 …
	// fold-5; GoMLX checkpoint format): see checkpointdir.FoldDir.
	CheckpointDir string
	// CarryIn, under fold_reset=carry, is a folder holding the state the
	// chain carried out of the fold before the first one requested (CarryOut
	// of an earlier run of the same dataset, configuration and seed): the
	// chain continues from it, as if it had not stopped, instead of training
	// the folds before again. A state it cannot continue from is a
	// *CarriedStateError.
	CarryIn string
	// CarryOut, under fold_reset=carry, receives the state the chain carries
	// out of the last fold requested, for a later CarryIn (a GoMLX
	// checkpoint; SaveCheckpoint's rules; not saved is a *SaveError).
	CarryOut string
	// ResumePath, when set, is a file in which a run of one fold (TrainFold,
	// or Train of one fold: a fresh run, or the one fold of a
	// fold_reset=carry chain that starts at fold 1 or continues from
	// CarryIn) keeps its progress: at the end of an epoch, at most every
	// ResumeEvery, its weights, Adam and random states, batch order,
	// validation statistics, selected weights and history (resume.go). A
	// later run of the same dataset, configuration, seed, fold and forms
	// with the same ResumePath continues after the saved epoch, bit for bit
	// as the run that stopped would have gone on; the file is removed once
	// the fold has trained. A file it cannot continue from is a
	// *ResumeStateError: nothing is trained and the file is left as it is.
	ResumePath string
	// ResumeEvery is the least time between two saves of ResumePath (0:
	// DefaultResumeEvery).
	ResumeEvery time.Duration
	// OnResume, when set, is told of each save of ResumePath and of the
	// progress a run continues from, from the goroutine training the run.
	OnResume func(ResumeEvent)
	// OnEpoch, when set, is called after every epoch (progress bars, live curves).
	OnEpoch func(EpochStats)
	// Stop, when closed (a context's Done, say), stops the training at the
	// end of the epoch in progress: a run that saves its progress
	// (ResumePath) saves it first, so that a later run continues it, and
	// the training returns an error wrapping ErrStopped. A run whose fold
	// ends with that epoch ends as usual.
	Stop <-chan struct{}
	// Execution is how the runs execute: MaxRuns, RunAxis and Fast apply
	// (and BackendName when Backend is nil); Train and Fit ignore DataRoot,
	// Offline and Workers.
	Execution
}

// RunAxisMode is whether TrainRuns uses a run axis (RunOptions.RunAxis).
type RunAxisMode string

const (
	// RunAxisAuto uses a run axis where backends.DefaultRunAxis says it pays.
	RunAxisAuto RunAxisMode = "auto"
	// RunAxisOn uses a run axis wherever the runs allow it.
	RunAxisOn RunAxisMode = "on"
	// RunAxisOff trains every run alone (the runs of a group at the same
	// time).
	RunAxisOff RunAxisMode = "off"
)

// ParseRunAxis parses a RunAxisMode: "auto" or "" (RunAxisAuto), "on" or
// "true", "off" or "false".
func ParseRunAxis(s string) (RunAxisMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return RunAxisAuto, nil
	case "on", "true":
		return RunAxisOn, nil
	case "off", "false":
		return RunAxisOff, nil
	}
	return "", fmt.Errorf("run axis %q: want %s, %s or %s", s, RunAxisAuto, RunAxisOn, RunAxisOff)
}

// Enabled reports whether m asks for a run axis on backend: RunAxisOn
// always, RunAxisOff never, RunAxisAuto (and "") where
// backends.DefaultRunAxis.
func (m RunAxisMode) Enabled(backend compute.Backend) bool {
	switch m {
	case RunAxisOn:
		return true
	case RunAxisOff:
		return false
	}
	return backends.DefaultRunAxis(backend)
}

// EpochStats describes one finished epoch.
type EpochStats struct {
	Fold, Epoch, Epochs int
	Phase               Phase
	TrainLoss, TrainAcc float64
	// ValLoss and ValAcc are NaN without a validation set (Fit).
	ValLoss, ValAcc float64
	// Selected is true when this epoch's validation loss is the best so far, so
	// its weights are the fold's selected model (never without a validation
	// set, where the model is the last epoch's).
	Selected bool
	Elapsed  time.Duration
}

// FoldResult is the outcome of one fold.
type FoldResult struct {
	Fold int
	// TestAcc is the test accuracy of the selected model (lowest validation loss).
	TestAcc float64
	// ValLoss is the selected model's validation loss (mean cross-entropy).
	ValLoss float64
	// BestEpoch is the epoch of the selected model; EpochsRun counts the epochs
	// trained before early stopping or the epoch limit.
	BestEpoch, EpochsRun int
	// SelectedPhase is the path the selected model was evaluated on;
	// SelectedWarmUp is true when the selected epoch is a dense warm-up epoch
	// (possible only with selection_window=all), i.e. not a SoftShape model.
	SelectedPhase  Phase
	SelectedWarmUp bool
	// Wall is the fold's wall time; Params the number of trainable parameters.
	Wall      time.Duration
	Params    int
	BatchSize int
	// RunAxis is true when the run trained with others as one model with a
	// run axis (RunOptions.RunAxis).
	RunAxis bool
	// ResumedAt lists the epochs (0-based) at which the fold continued from
	// its saved progress (RunOptions.ResumePath), in order; empty when it
	// trained in one go. Wall then sums the time of the stretches.
	ResumedAt []int
	// History has one entry per epoch.
	History []EpochStats
}

// Result is the outcome of Train over the folds of one dataset.
type Result struct {
	Dataset string
	Backend string
	Config  Config
	Shape   Shape
	Folds   []FoldResult
	// MeanAcc and StdAcc summarise FoldResult.TestAcc (sample standard deviation).
	MeanAcc, StdAcc float64
}

// ProtocolFolds is the number of stratified cross-validation folds of the
// paper's protocol (Appendix A.1): the default of RunOptions.NumFolds.
const ProtocolFolds = 5

// ErrNonFinite is wrapped by the error returned when a loss becomes NaN or ±Inf.
var ErrNonFinite = errors.New("non-finite loss")

// Train runs the paper's protocol on ds: stratified folds (60/20/20), missing
// values imputed from each fold's training split and every series z-normalised
// on its own (data.Prepare, as the authors' code), a fresh model and Adam
// optimiser per fold (fold_reset=fresh; carry continues the previous fold's),
// model selection by the lowest validation statistic among the selectable epochs
// (selection_window), and the test accuracy of the selected model. It is the one
// training function used by the CLI, the tests and the notebooks.
//
// Train is TrainRuns of the requested folds (opts.Folds, default all) under
// cfg and opts.Seed: opts.MaxRuns of them at a time (backends.DefaultMaxRuns
// of the backend by default), in one graph where opts.RunAxis turns it on.
// With fold_reset=carry a fold depends on the ones before it, so every fold
// from the first up to the last one requested trains, in order, one chain.
//
// A checkpoint that cannot be saved (opts.CheckpointDir) does not discard the
// training: Train goes on and returns the complete result together with an
// error joining one *SaveError per fold not saved. Any other error (a
// *RunError per failed fold) returns no result.
func Train(ds *data.Dataset, cfg Config, opts RunOptions) (*Result, error) {
	if err := opts.withDefaults(); err != nil {
		return nil, err
	}
	m, err := newModel(ds, cfg, opts)
	if err != nil {
		return nil, err
	}
	folds := opts.Folds
	if folds == nil {
		folds = span(0, opts.NumFolds)
	}
	runs := make([]RunSpec, len(folds))
	for i, f := range folds {
		if err := checkFold(f, opts.NumFolds); err != nil {
			return nil, err
		}
		runs[i] = RunSpec{Config: cfg, Seed: opts.Seed, Fold: f}
	}
	out := &outputs{}
	if _, err = trainRuns(ds, runs, opts, out); err != nil && !onlySaveErrors(err) {
		return nil, err
	}
	return newResult(ds, opts.Backend, cfg, m, out.results), err // err: checkpoints not saved (*SaveError)
}

// newResult returns the Result of the folds frs of m trained on ds: their
// mean test accuracy and its sample standard deviation.
func newResult(ds *data.Dataset, backend compute.Backend, cfg Config, m *Model, frs []FoldResult) *Result {
	res := &Result{Dataset: ds.Name, Backend: backend.Description(), Config: cfg, Shape: m.Shape, Folds: frs}
	accs := make([]float64, len(frs))
	for i, fr := range frs {
		accs[i] = fr.TestAcc
	}
	res.MeanAcc = meanOf(accs)
	if len(accs) > 1 {
		res.StdAcc = stat.StdDev(accs, nil)
	}
	return res
}

// newModel is the model of cfg for ds (New), in the forms opts.Fast
// selects.
func newModel(ds *data.Dataset, cfg Config, opts RunOptions) (*Model, error) {
	m, err := New(cfg, ds.Length, ds.NumClasses(), opts.RefShapeLen)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", ds.Name, err)
	}
	m.Fast = opts.Fast
	return m, nil
}

// FoldCount is the number of cross-validation folds of opts' runs:
// NumFolds, or ProtocolFolds when it is 0.
func (opts RunOptions) FoldCount() int {
	if opts.NumFolds == 0 {
		return ProtocolFolds
	}
	return opts.NumFolds
}

// PrepareFold prepares fold (0-based) of ds as the runs of opts split it
// (opts.FoldCount folds, seeded by opts.Seed) and Train prepares it
// (data.Prepare): for scoring a trained model on the fold's splits.
func PrepareFold(ds *data.Dataset, opts RunOptions, fold int) (*data.FoldData, error) {
	splits, err := data.Folds(ds, opts.FoldCount(), opts.Seed)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", ds.Name, err)
	}
	return prepareFold(ds, splits, fold)
}

// withDefaults fills in what opts leaves to defaults: Backend
// (backends.New(BackendName)), NumFolds (ProtocolFolds) and MaxRuns
// (backends.DefaultMaxRuns).
func (opts *RunOptions) withDefaults() error {
	if opts.Backend == nil {
		b, err := backends.New(opts.BackendName)
		if err != nil {
			return err
		}
		opts.Backend = b
	}
	opts.NumFolds = opts.FoldCount()
	if opts.MaxRuns <= 0 {
		opts.MaxRuns = backends.DefaultMaxRuns(opts.Backend)
	}
	return nil
}

// checkFold reports a fold index f out of the range of n folds.
func checkFold(f, n int) error {
	if f < 0 || f >= n {
		return fmt.Errorf("fold index %d out of range: %d folds (indices 0..%d)", f, n, n-1)
	}
	return nil
}

// prepareFold prepares fold f of splits of ds (data.Prepare).
func prepareFold(ds *data.Dataset, splits []data.Split, f int) (*data.FoldData, error) {
	if err := checkFold(f, len(splits)); err != nil {
		return nil, err
	}
	fd, err := data.Prepare(ds, splits[f])
	if err != nil {
		return nil, fmt.Errorf("dataset %s fold %d: %w", ds.Name, f+1, err)
	}
	return fd, nil
}

// batchSize is cfg's batch size (batch_rule) for n training samples.
func batchSize(cfg Config, n int) (int, error) {
	rule, err := data.ParseBatchRule(cfg.BatchRule)
	if err != nil {
		return 0, err
	}
	return data.BatchSize(n, rule), nil
}

// FirstFold sets up a run of cfg on ds as Train does (opts.Backend, or
// backends.New(""); the model, in the forms opts.Fast selects; opts' folds)
// and prepares its fold 1. It returns the backend, the model, fold 1's data
// and the protocol's batch size for its training split: what the tools that
// look at one epoch need (experiments/flops).
func FirstFold(ds *data.Dataset, cfg Config, opts RunOptions) (compute.Backend, *Model, *data.FoldData, int, error) {
	if err := opts.withDefaults(); err != nil {
		return nil, nil, nil, 0, err
	}
	m, err := newModel(ds, cfg, opts)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	fd, err := PrepareFold(ds, opts, 0)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	bs, err := batchSize(cfg, len(fd.TrainY))
	return opts.Backend, m, fd, bs, err
}

func meanOf(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	return stat.Mean(x, nil)
}

// packBatch packs each run's rows of (x, y) (rows[i] of them, the samples
// idx of run i's src) into one batch of blocks of the largest size, padding
// with zeros: [R·block, t] float32 and [R·block, 1] int32 (zeros where y is
// nil).
func packBatch(t int, rows []int, src func(i int) (x [][]float32, y []int, idx []int)) (*tensors.Tensor, *tensors.Tensor, int) {
	block := slices.Max(rows)
	r := len(rows)
	flat := make([]float32, r*block*t)
	labels := make([]int32, r*block)
	for i := range rows {
		if rows[i] == 0 {
			continue
		}
		xs, ys, idx := src(i)
		for k, row := range idx {
			copy(flat[(i*block+k)*t:], xs[row])
			if ys != nil {
				labels[i*block+k] = int32(ys[row])
			}
		}
	}
	return tensors.FromFlatDataAndDimensions(flat, r*block, t), tensors.FromFlatDataAndDimensions(labels, r*block, 1), block
}

// BatchTensors packs the rows idx of x and y into a batch as Train's step
// takes it: x [B, T] (InputDType) and y [B, 1] int32.
func BatchTensors(x [][]float32, y []int, idx []int) (*tensors.Tensor, *tensors.Tensor) {
	xt, yt, _ := packBatch(len(x[idx[0]]), []int{len(idx)}, func(int) ([][]float32, []int, []int) { return x, y, idx })
	return xt, yt
}

// seriesTensor packs the rows idx of x into a tensor [B, T] float32.
func seriesTensor(x [][]float32, idx []int) *tensors.Tensor {
	xt, yt := BatchTensors(x, nil, idx)
	yt.FinalizeAll()
	return xt
}

// span returns the indices lo, lo+1, …, lo+n−1.
func span(lo, n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = lo + i
	}
	return idx
}

// ParameterCount returns the number of trainable parameters in the store (the
// variables created so far; the MoE exists once a sparse graph was built).
func ParameterCount(store *model.Store) int {
	n := 0
	for v := range store.IterVariables() {
		if v.Trainable {
			n += v.Shape().Size()
		}
	}
	return n
}

// RefShapeLength returns the authors' per-dataset shape length m for a dataset
// name in the UCR registry with (padded) series length seriesLen, or 0 when the
// name is not in the registry (then shape_length "auto" uses min(16, T)).
func RefShapeLength(name string, seriesLen int) int {
	info, err := data.Lookup(name)
	if err != nil {
		return 0
	}
	return info.ShapeLengthFor(seriesLen)
}
