// Package pipeline is the one path from a paper table's name to the table:
// grid (NewGrid: sweep.NewGrid with the table's default datasets) → results
// store (Open: the grid recorded in it) → workers and runner (Train:
// sweep.PlanWorkers, sweep.Runner) → table (Build, Stored: tables.Build).
// The command line's sweep and table commands and the notebooks' package
// experiments/reproduce all go through it, so a record the one writes is
// one the other reads.
package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/softshape-go/softshape/ablations"
	"github.com/softshape-go/softshape/experiments/slurm"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
)

// DefaultSeed is the run seed of a grid given none.
const DefaultSeed int64 = 42

// NewGrid returns the grid of spec (sweep.NewGrid), without touching a
// store: an unknown table is an error listing the tables; no datasets means
// the table's (sweep.DefaultDatasets under dataRoot), no folds all
// sweep.NumFolds, no seeds DefaultSeed.
func NewGrid(spec sweep.GridSpec, dataRoot string) (*sweep.Grid, error) {
	if !slices.Contains(ablations.TableNames(), spec.Table) {
		return nil, fmt.Errorf("unknown table %q (have %s)", spec.Table, strings.Join(ablations.TableNames(), ", "))
	}
	if len(spec.Datasets) == 0 {
		var err error
		if spec.Datasets, err = sweep.DefaultDatasets(spec.Table, spec.Quick, dataRoot); err != nil {
			return nil, err
		}
	}
	if len(spec.Folds) == 0 {
		spec.Folds = AllFolds()
	}
	if len(spec.Seeds) == 0 {
		spec.Seeds = []int64{DefaultSeed}
	}
	return sweep.NewGrid(spec)
}

// AllFolds returns the 1-based folds 1..sweep.NumFolds.
func AllFolds() []int {
	out := make([]int, sweep.NumFolds)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// Open opens the results store at root (creating the folder) and records
// grid in it (sweep.Store.SaveGrid). Locks left on other nodes by Slurm jobs
// that are gone count as stale.
func Open(root string, grid *sweep.Grid) (*sweep.Store, error) {
	store, err := sweep.Open(root)
	if err != nil {
		return nil, err
	}
	store.SetForeignLockCheck(slurm.LockOwnerAlive())
	if err := store.SaveGrid(grid); err != nil {
		return nil, err
	}
	return store, nil
}

// Missing returns the cells that have no record in store.
func Missing(store *sweep.Store, cells []sweep.Cell) []sweep.Cell {
	var out []sweep.Cell
	for _, c := range cells {
		if store.CellStatus(c.Key).State == sweep.StateMissing {
			out = append(out, c)
		}
	}
	return out
}

// Training says how Train trains: the backend and workers, where the data
// is, and the runner's options (sweep.Runner's fields of the same names).
type Training struct {
	// Execution is how the cells train: BackendName the backend
	// configuration ("go", "onnx:cpu", "xla:cuda", backends.Fastest, ...),
	// Workers the number of cells trained at once (0: automatic,
	// sweep.PlanWorkers); the rest is passed to the runner.
	softshape.Execution
	// NoReuse, RetryFailed and ResumeEvery are passed to the runner.
	NoReuse, RetryFailed bool
	ResumeEvery          time.Duration
	// Log receives the plan lines and one line per run (nil: discarded).
	Log io.Writer
	// WorkersSetting and BackendSetting name the settings Workers and BackendName came
	// from in Train's errors (e.g. "-workers"; "" gives "workers" and
	// "backend").
	WorkersSetting, BackendSetting string
}

// Train trains cells into store: it plans the workers for the backend
// (sweep.PlanWorkers), starts the backend shared by the workers (or lets
// each start its own), logs "backend: ..., N worker(s), results in ..." and
// "workers: <plan>", and runs them (sweep.Runner.Run). Cells already
// recorded are counted, not trained again; a store holding records of the
// other form than t.Fast is refused first (CheckSpeedForms).
func Train(ctx context.Context, store *sweep.Store, cells []sweep.Cell, t Training) (sweep.Report, error) {
	log := t.Log
	if log == nil {
		log = io.Discard
	}
	if err := CheckSpeedForms(store, cells, t.Fast); err != nil {
		return sweep.Report{}, err
	}
	plan, err := sweep.PlanWorkers(t.Workers, t.BackendName, runtime.GOMAXPROCS(0), len(cells))
	if err != nil {
		return sweep.Report{}, fmt.Errorf("%s: %w", cmp.Or(t.WorkersSetting, "workers"), err)
	}
	r := &sweep.Runner{Execution: t.Execution, Store: store, Log: log, NoReuse: t.NoReuse, RetryFailed: t.RetryFailed, ResumeEvery: t.ResumeEvery}
	backend, err := plan.Apply(r, t.BackendName)
	if err != nil {
		return sweep.Report{}, fmt.Errorf("%s: %w", cmp.Or(t.BackendSetting, "backend"), err)
	}
	desc := plan.OwnBackend + " (one per worker)"
	if backend != nil {
		defer backend.Finalize()
		desc = backends.Description(backend)
	}
	fmt.Fprintf(log, "backend: %s, %d worker(s), results in %s\n", desc, r.Workers, store.Root())
	fmt.Fprintf(log, "workers: %s\n", plan)
	return r.Run(ctx, cells)
}

// CheckSpeedForms returns an error naming store's folder when a record of
// cells there was trained in the other form than fast asks (the model's
// speed forms, softshape.RunOptions.Fast, or its plain graphs): a run's key
// does not say its form, so a resumed sweep or a report would otherwise mix
// the two in one table. It reads records only; one it cannot read is left
// to the runner, which reports it as its cell's error.
func CheckSpeedForms(store *sweep.Store, cells []sweep.Cell, fast bool) error {
	for _, c := range cells {
		rec, err := store.Read(c.Key)
		if err != nil {
			continue // none yet, or one the runner reports as its cell's error (a newer schema, a bad file)
		}
		if rec.SpeedForms != fast {
			form := map[bool]string{false: "plain graphs", true: "speed forms (-fast)"}
			return fmt.Errorf("results folder %s holds runs of the %s (e.g. %s %s fold %d seed %d), and this trains or reports the %s: give each form a results folder of its own",
				store.Root(), form[rec.SpeedForms], rec.Dataset, rec.Variant, rec.Fold, rec.Seed, form[fast])
		}
	}
	return nil
}

// Build returns the table of grid's records in store: this grid's only
// (tables.Options.Grid), in its mode.
func Build(store *sweep.Store, grid *sweep.Grid) (*tables.Table, error) {
	return tables.Build(store, grid.Spec.Table, tables.Options{Quick: grid.Spec.Quick, Grid: grid.ID()})
}

// Stored opens the results folder results, which must exist (it was written
// by softshape sweep or a notebook), and builds the named table from its
// records (tables.Build with opts).
func Stored(results, table string, opts tables.Options) (*sweep.Store, *tables.Table, error) {
	if st, err := os.Stat(results); err != nil {
		return nil, nil, fmt.Errorf("results folder %s not found: run softshape sweep -table %s first", results, table)
	} else if !st.IsDir() {
		return nil, nil, fmt.Errorf("results folder %s is a file, not a folder written by softshape sweep", results)
	}
	store, err := sweep.Open(results)
	if err != nil {
		return nil, nil, err
	}
	t, err := tables.Build(store, table, opts)
	if err != nil {
		return nil, nil, err
	}
	return store, t, nil
}
