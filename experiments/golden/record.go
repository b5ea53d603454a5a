package golden

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
)

// Format names the layout of a record file.
const Format = "softshape-golden/1"

// File is a record: where it was made and the results of its cases.
type File struct {
	Format      string       `json:"format"`
	Environment Environment  `json:"environment"`
	Cases       []CaseResult `json:"cases"`
}

// CaseResult is one case and its runs.
type CaseResult struct {
	// Name is Case.Name(), kept for reading and for matching cases.
	Name string `json:"name"`
	Case
	// Runs are the case's runs, seed by seed, fold by fold.
	Runs []RunResult `json:"runs"`
}

// RunResult is one fold of one seed: its epochs, the model selected and its
// test accuracy (softshape.FoldResult without the times).
type RunResult struct {
	Seed int64 `json:"seed"`
	// Fold is 1-based, as in checkpoints and sweep records.
	Fold      int `json:"fold"`
	BatchSize int `json:"batch_size"`
	Params    int `json:"params"`
	EpochsRun int `json:"epochs_run"`
	// SelectedEpoch is the 0-based epoch of the selected model, trained on
	// SelectedWarmUp's phase and evaluated on SelectedPhase.
	SelectedEpoch  int    `json:"selected_epoch"`
	SelectedPhase  string `json:"selected_phase"`
	SelectedWarmUp bool   `json:"selected_warm_up"`
	// SelectedValLoss is the selected model's mean validation cross-entropy
	// (softshape.FoldResult.ValLoss); TestAcc its test accuracy.
	SelectedValLoss Float `json:"selected_val_loss"`
	TestAcc         Float `json:"test_acc"`
	// RunAxis is softshape.FoldResult.RunAxis: the run trained on a run axis.
	RunAxis bool    `json:"run_axis"`
	Epochs  []Epoch `json:"epochs"`
}

// Epoch is one epoch of a run (softshape.EpochStats without the time).
type Epoch struct {
	// Epoch is 0-based; Phase the path it trained (dense in the warm-up).
	Epoch     int    `json:"epoch"`
	Phase     string `json:"phase"`
	TrainLoss Float  `json:"train_loss"`
	TrainAcc  Float  `json:"train_acc"`
	ValLoss   Float  `json:"val_loss"`
	ValAcc    Float  `json:"val_acc"`
	// Selected is true when the epoch's model was the best so far.
	Selected bool `json:"selected"`
}

// Options are the settings of Record that are not cases.
type Options struct {
	// Log, when set, receives a line per case: its name and time.
	Log io.Writer
}

// Record trains cases, in order, each on a backend of its own started for
// it (so that a case's results do not depend on the cases before it), and
// returns the record with the environment it was made in. ONNX Runtime
// must run one intra-op thread ($ORT_INTRA_OP_NUM_THREADS=1, or unset in a
// process confined to one core): the thread count is part of what a record
// depends on.
func Record(cases []Case, opts Options) (*File, error) {
	f := &File{Format: Format, Environment: CurrentEnvironment()}
	for _, c := range cases {
		start := time.Now()
		cr, desc, err := recordCase(c)
		if err != nil {
			return nil, err
		}
		f.Environment.Backends[c.Backend] = desc
		f.Cases = append(f.Cases, *cr)
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "%-40s %6.1f s\n", cr.Name, time.Since(start).Seconds())
		}
	}
	return f, nil
}

// recordCase trains one case and returns its results and the description
// of the backend it ran on.
func recordCase(c Case) (*CaseResult, string, error) {
	if err := c.check(); err != nil {
		return nil, "", err
	}
	cfg, err := c.Config()
	if err != nil {
		return nil, "", err
	}
	ds, err := data.LoadBundled(c.Dataset)
	if err != nil {
		return nil, "", fmt.Errorf("case %s: %w", c.Name(), err)
	}
	if backends.ONNXOnCPU(c.Backend) {
		if n, err := backends.ONNXThreads(); err != nil || n != 1 {
			return nil, "", fmt.Errorf("case %s: ONNX Runtime would run %d intra-op threads (%v): records use 1; set $%s=1",
				c.Name(), n, err, backends.ONNXThreadsEnvVar)
		}
	}
	backend, err := backends.New(c.Backend)
	if err != nil {
		return nil, "", fmt.Errorf("case %s: %w", c.Name(), err)
	}
	defer backend.Finalize()
	desc := backends.Description(backend)
	opts := softshape.RunOptions{Backend: backend, NumFolds: softshape.ProtocolFolds,
		RefShapeLen: softshape.RefShapeLength(ds.Name, ds.Length)}
	var folds []int
	for f := range c.Folds {
		folds = append(folds, f)
	}
	var frs []softshape.FoldResult
	var seeds []int64
	switch c.Path {
	case PathSingle:
		opts.MaxRuns = 1
		for _, seed := range c.Seeds {
			opts.Seed, opts.Folds = seed, folds
			res, err := softshape.Train(ds, cfg, opts)
			if err != nil {
				return nil, "", fmt.Errorf("case %s seed %d: %w", c.Name(), seed, err)
			}
			for range res.Folds {
				seeds = append(seeds, seed)
			}
			frs = append(frs, res.Folds...)
		}
	case PathCopies, PathAxis:
		opts.MaxRuns, opts.RunAxis = c.RunsPerGraph, softshape.RunAxisOff
		if c.Path == PathAxis {
			opts.RunAxis = softshape.RunAxisOn
		}
		var runs []softshape.RunSpec
		for _, seed := range c.Seeds {
			for _, f := range folds {
				runs = append(runs, softshape.RunSpec{Config: cfg, Seed: seed, Fold: f})
				seeds = append(seeds, seed)
			}
		}
		if frs, err = softshape.TrainRuns(ds, runs, opts); err != nil {
			return nil, "", fmt.Errorf("case %s: %w", c.Name(), err)
		}
	}
	cr := &CaseResult{Name: c.Name(), Case: c}
	for i, fr := range frs {
		cr.Runs = append(cr.Runs, runResult(seeds[i], fr))
	}
	return cr, desc, nil
}

// runResult converts a fold's result, leaving out the times.
func runResult(seed int64, fr softshape.FoldResult) RunResult {
	r := RunResult{Seed: seed, Fold: fr.Fold + 1, BatchSize: fr.BatchSize, Params: fr.Params, EpochsRun: fr.EpochsRun,
		SelectedEpoch: fr.BestEpoch, SelectedPhase: fr.SelectedPhase.String(), SelectedWarmUp: fr.SelectedWarmUp,
		SelectedValLoss: Float(fr.ValLoss), TestAcc: Float(fr.TestAcc), RunAxis: fr.RunAxis}
	for _, e := range fr.History {
		r.Epochs = append(r.Epochs, Epoch{Epoch: e.Epoch, Phase: e.Phase.String(), TrainLoss: Float(e.TrainLoss),
			TrainAcc: Float(e.TrainAcc), ValLoss: Float(e.ValLoss), ValAcc: Float(e.ValAcc), Selected: e.Selected})
	}
	return r
}

// marshal returns f as indented JSON, ending in a newline.
func (f *File) marshal() ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the record: %w", err)
	}
	return append(b, '\n'), nil
}

// Encode writes f as indented JSON to w.
func (f *File) Encode(w io.Writer) error {
	b, err := f.marshal()
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("writing the record: %w", err)
	}
	return nil
}

// Write writes f as indented JSON to path, refusing to replace a file that
// exists unless overwrite.
func (f *File) Write(path string, overwrite bool) error {
	b, err := f.marshal()
	if err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !overwrite {
		flags |= os.O_EXCL
	}
	out, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return fmt.Errorf("writing the record: %w", err)
	}
	if _, err := out.Write(b); err != nil {
		out.Close()
		return fmt.Errorf("writing the record %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("writing the record %s: %w", path, err)
	}
	return nil
}

// Read reads a record written by Write.
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the record: %w", err)
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("record %s: %w", path, err)
	}
	if f.Format != Format {
		return nil, fmt.Errorf("record %s: format %q, want %q", path, f.Format, Format)
	}
	for i, c := range f.Cases {
		if c.Name != c.Case.Name() {
			return nil, fmt.Errorf("record %s: case %d is named %q but its fields make %q", path, i+1, c.Name, c.Case.Name())
		}
	}
	return &f, nil
}
