package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// SchemaVersion is the version of the record format written by this package.
const SchemaVersion = 1

// Status is the outcome of a run.
type Status string

// Record statuses.
const (
	// StatusOK is a finished training run.
	StatusOK Status = "ok"
	// StatusFailed is a run whose training failed (Record.Error says why).
	StatusFailed Status = "failed"
	// StatusInvalid is a configuration that the dataset rejects (k > Ĉ,
	// m > T, ...); Record.Error holds the validation error.
	StatusInvalid Status = "invalid"
)

// Float is a float64 that is written to JSON as null when it is NaN or
// infinite (JSON has no NaN) and read back from null as NaN.
type Float float64

// MarshalJSON writes the value, or null for NaN and ±Inf.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(v, 'g', -1, 64)), nil
}

// UnmarshalJSON reads a number, or null as NaN.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// Record is the result of one run, one JSON file in the results folder.
type Record struct {
	// Schema is SchemaVersion.
	Schema int `json:"schema"`
	// Table, Dataset and Variant name the cell (see Key).
	Table   string `json:"table"`
	Dataset string `json:"dataset"`
	Variant string `json:"variant"`
	// Fold is 1-based; Seed the run seed.
	Fold int   `json:"fold"`
	Seed int64 `json:"seed"`
	// Quick marks a quick-mode run; Hash is CellStringHash(Config, Quick, Dataset).
	Quick bool   `json:"quick"`
	Hash  string `json:"config_hash"`
	// Mode is "full" or QuickLabel, so that a quick record says what it is.
	Mode string `json:"mode"`
	// Status is ok, failed or invalid.
	Status Status `json:"status"`
	// Error is the error text of a failed or invalid run.
	Error string `json:"error,omitempty"`
	// TestAccuracy is the test accuracy of the model selected by the lowest
	// validation loss; ValLoss that model's validation loss (mean CE).
	TestAccuracy Float `json:"test_accuracy"`
	ValLoss      Float `json:"val_loss"`
	// BestEpoch is the selected epoch (0-based), EpochsRun the epochs
	// trained, SelectedPhase the path it was evaluated on (dense or sparse),
	// BatchSize the training batch size.
	BestEpoch     int    `json:"best_epoch"`
	EpochsRun     int    `json:"epochs_run"`
	SelectedPhase string `json:"selected_phase,omitempty"`
	// SelectedWarmUp is true when the selected epoch is a dense warm-up epoch
	// (only with selection_window=all): the run's model is not SoftShape's.
	SelectedWarmUp bool `json:"selected_warmup"`
	// Protocol names the preset the run's protocol switches equal, or
	// "custom"; Config holds the resolved switches themselves.
	Protocol  string `json:"protocol,omitempty"`
	BatchSize int    `json:"batch_size,omitempty"`
	// Params is the number of trainable parameters of the trained model.
	Params int `json:"params"`
	// WallSeconds is the fold's training wall time; InferenceSeconds the time
	// to evaluate the fold's test split with the selected model.
	WallSeconds      Float `json:"wall_seconds"`
	InferenceSeconds Float `json:"inference_seconds"`
	// BatchRuns is the number of runs (cells) trained by one batched job
	// with this one (softshape.TrainRuns: fresh runs share a graph, the folds
	// of a fold_reset=carry run train in order beside the other runs'); 0 for
	// a run trained alone. A batched run's wall time is shared with its job's
	// other runs, and its inference time is not measured (NaN).
	BatchRuns int `json:"batch_runs,omitempty"`
	// RunAxis is true when the batched job trained its runs as one model
	// with a run axis (softshape.RunOptions.RunAxis): the same computation,
	// rounded otherwise in the last bits.
	RunAxis bool `json:"run_axis,omitempty"`
	// ResumedAt lists the epochs (0-based) at which the fold continued from
	// its saved progress after a sweep stopped in the middle of it
	// (Runner.ResumeEvery), bit for bit as if it had not stopped; empty
	// when it trained in one go. WallSeconds then sums the stretches.
	ResumedAt []int `json:"resumed_at_epochs,omitempty"`
	// SpeedForms is true when the run trained the model's speed forms
	// (Runner.Fast, softshape.Execution.Fast) instead of its plain
	// graphs: the same computation, rounded otherwise in the last bits.
	SpeedForms bool `json:"speed_forms,omitempty"`
	// Backend is the GoMLX backend that trained the model.
	Backend string `json:"backend"`
	// BackendDetail is that backend's description (backends.Description:
	// version and, for ONNX Runtime on CPU, its intra-op threads, which change
	// both the wall time and the last bits of the results). Empty in records
	// written before it was recorded.
	BackendDetail string `json:"backend_detail,omitempty"`
	// Config is the fully resolved configuration string (Config.String; its
	// key string gives Hash).
	Config string `json:"config"`
	// Started and Finished are the run's UTC start and end times.
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Hostname and PID identify the process that made the record.
	Hostname string `json:"hostname"`
	PID      int    `json:"pid"`
	// CPU is the processor the run trained on and the share of it the process
	// could use (hostinfo.CPU, e.g. "AMD EPYC (family 25 model 1, x86-64-v3),
	// 1 of 2 cores"): wall times are comparable only between records of one
	// CPU. Empty in records written before it was recorded.
	CPU string `json:"cpu,omitempty"`
	// CodeVersion is the revision of the binary that trained the run
	// (buildinfo.Revision: its commit, "+dirty" when built from a checkout
	// with uncommitted changes or untracked files); empty when the binary carried none (go run, -buildvcs=false)
	// and in records written before it was recorded. A record is copied
	// for another table only by a binary of the same clean revision.
	CodeVersion string `json:"code_version,omitempty"`
	// ReusedFrom is the record (relative path) this one was copied from when
	// the same computation had already been run for another variant or table.
	ReusedFrom string `json:"reused_from,omitempty"`
}

// Key returns the record's cell key.
// RunWallSeconds is this run's share of the wall time it recorded: a run
// trained in a batched job (BatchRuns > 0) shares the job's wall time with
// the job's other runs, so it counts 1/BatchRuns of it.
func (r *Record) RunWallSeconds() float64 {
	return float64(r.WallSeconds) / float64(max(1, r.BatchRuns))
}

func (r *Record) Key() Key {
	return Key{Table: r.Table, Dataset: r.Dataset, Variant: r.Variant, Fold: r.Fold, Seed: r.Seed, Quick: r.Quick, Hash: r.Hash}
}

// modeOf returns the Mode field for the quick flag.
func modeOf(quick bool) string {
	if quick {
		return QuickLabel
	}
	return "full"
}

// Validate checks that the record is complete and consistent: every key
// field set, the hash matching the configuration string, and for an ok run a
// test accuracy in [0, 1], at least one epoch and the timing fields.
func (r *Record) Validate() error {
	switch {
	case r.Schema != SchemaVersion:
		return fmt.Errorf("schema %d, want %d", r.Schema, SchemaVersion)
	case r.Table == "" || r.Dataset == "" || r.Variant == "":
		return fmt.Errorf("table %q, dataset %q, variant %q: all must be set", r.Table, r.Dataset, r.Variant)
	case r.Fold < 1:
		return fmt.Errorf("fold %d: must be ≥ 1", r.Fold)
	case r.Config == "":
		return fmt.Errorf("no configuration string")
	}
	if err := checkCellHash(r.Config, r.Quick, r.Dataset, r.Hash); err != nil {
		return err
	}
	switch {
	case r.Mode != modeOf(r.Quick):
		return fmt.Errorf("mode %q does not match quick=%t", r.Mode, r.Quick)
	case r.Started.IsZero() || r.Finished.IsZero() || r.Finished.Before(r.Started):
		return fmt.Errorf("start %v / finish %v", r.Started, r.Finished)
	case r.Hostname == "" || r.PID <= 0:
		return fmt.Errorf("hostname %q, pid %d: both must be set", r.Hostname, r.PID)
	}
	switch r.Status {
	case StatusOK:
		acc := float64(r.TestAccuracy)
		if math.IsNaN(acc) || acc < 0 || acc > 1 {
			return fmt.Errorf("test accuracy %v: want a value in [0, 1]", acc)
		}
		if r.EpochsRun < 1 || r.BestEpoch < 0 || r.BestEpoch >= r.EpochsRun {
			return fmt.Errorf("best epoch %d of %d epochs run", r.BestEpoch, r.EpochsRun)
		}
		if r.Backend == "" || r.Params <= 0 {
			return fmt.Errorf("backend %q, params %d: both must be set", r.Backend, r.Params)
		}
		if r.Error != "" {
			return fmt.Errorf("status ok with error %q", r.Error)
		}
	case StatusFailed, StatusInvalid:
		if r.Error == "" {
			return fmt.Errorf("status %s without an error text", r.Status)
		}
	default:
		return fmt.Errorf("status %q: want ok, failed or invalid", r.Status)
	}
	return nil
}

// decodeRecord parses and validates a record file's content.
func decodeRecord(b []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

// nanValue is NaN, the value of measurements a record does not have.
func nanValue() float64 { return math.NaN() }
