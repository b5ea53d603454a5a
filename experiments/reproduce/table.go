package reproduce

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/softshape-go/softshape/experiments/pipeline"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/tablefigures"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/softshape"
)

// TableResult is one paper table reproduced from the results store.
type TableResult struct {
	// Name is the table name (ablations.TableNames).
	Name string
	// Params are the resolved parameters the table was built with.
	Params Params
	// Grid is the sweep behind the table.
	Grid *sweep.Grid
	// Table is our results beside the paper's.
	Table *tables.Table
	// Report says what this call trained (zero when everything was stored).
	Report sweep.Report
	// Trained counts the runs this call trained or copied.
	Trained int
	// NotTrained lists the cells that had no record and were not trained
	// because Params.TrainMissing was off.
	NotTrained []sweep.Key
	// Elapsed is the wall time of the call.
	Elapsed time.Duration
}

// Table reproduces the named paper table through the pipeline the command
// line uses (experiments/pipeline): it builds the grid of the table for p
// (NewGrid; datasets from p or the table's), records it in the store at
// p.Results, trains the cells without a record when p.TrainMissing
// (otherwise lists them in NotTrained), and builds the table of this grid,
// whose Missing lists every run without an ok record. A second call with the same p trains nothing. In full mode
// without p.Train nothing is trained either: the cells without a record are
// listed (Params.TrainingOff).
//
// In full mode with no results folder given (Params.Results empty, or filled
// in by Resolve: UsesCommitted), a table of the committed reproduction
// (IsCommitted) is re-rendered from the committed store under the preset of
// p.Settings (default CommittedPreset) by CommittedTable, training nothing;
// give a results folder to train your own.
func Table(ctx context.Context, name string, p Params) (*TableResult, error) {
	if p.UsesCommitted(name) {
		preset := CommittedPreset
		if cfg, err := softshape.DefaultConfig().WithSettings(p.Settings); err == nil && cfg.ProtocolName() != softshape.ProtocolDefault && cfg.ProtocolName() != softshape.ProtocolCustom {
			preset = cfg.ProtocolName()
		}
		return CommittedTable(name, preset)
	}
	start := time.Now()
	p, err := p.Resolve()
	if err != nil {
		return nil, err
	}
	grid, err := NewGrid(name, p)
	if err != nil {
		return nil, err
	}
	store, err := pipeline.Open(p.Results, grid)
	if err != nil {
		return nil, err
	}
	res := &TableResult{Name: name, Params: p, Grid: grid}
	todo := pipeline.Missing(store, grid.Cells)
	if len(todo) > 0 && (!p.TrainMissing || p.TrainingOff()) {
		for _, c := range todo {
			res.NotTrained = append(res.NotTrained, c.Key)
		}
	} else if len(todo) > 0 {
		log := trainLog(p)
		fmt.Fprintf(log, "table %s (%s): training %d of %d runs\n", name, p.Mode(), len(todo), len(grid.Cells))
		rep, err := pipeline.Train(ctx, store, todo, p.training(log))
		res.Report = rep
		if err != nil {
			return nil, err
		}
		res.Trained = rep.Ran + rep.Reused
		for _, e := range rep.Errors {
			fmt.Fprintf(log, "  no record: %v\n", e)
		}
	}
	if err := store.CheckNotAllInvalid(grid.Cells); err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	if res.Table, err = pipeline.Build(store, grid); err != nil {
		return nil, err
	}
	res.Table.CDRanks = tablefigures.ShowsCD(name) // the diagram's ranks, beside it (Figures)
	res.Elapsed = time.Since(start)
	return res, nil
}

// MustTable is Table that panics on error (for notebook cells).
func MustTable(ctx context.Context, name string, p Params) *TableResult {
	r, err := Table(ctx, name, p)
	if err != nil {
		panic(err)
	}
	return r
}

// NewGrid returns the sweep grid of a paper table for p
// (pipeline.NewGrid), without touching the store.
func NewGrid(name string, p Params) (*sweep.Grid, error) {
	return pipeline.NewGrid(sweep.GridSpec{Table: name, Datasets: p.Datasets, Variants: p.Variants, Folds: p.Folds, Seeds: p.Seeds,
		Quick: p.Quick, Settings: p.Settings}, p.DataRoot)
}

// trainLog is where a call that trains logs: p.Log, else inside a notebook
// a live panel of the last lines, else stdout.
func trainLog(p Params) io.Writer {
	if p.Log == nil && gonbui.IsNotebook {
		return newLiveLog()
	}
	return logOf(p)
}

// training is how p trains (pipeline.Training), logging to log.
func (p Params) training(log io.Writer) pipeline.Training {
	return pipeline.Training{Execution: p.Execution, Log: log,
		WorkersSetting: "Params.Workers (" + EnvWorkers + ")", BackendSetting: "Params.BackendName (" + EnvBackend + ")"}
}

// Status is one line saying where the numbers come from: what this call
// trained, what was re-rendered from the store and what is missing.
func (r *TableResult) Status() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s: %d runs in the grid (%d datasets × %d folds × %d seeds × %d variants run here)",
		r.Name, r.Params.Mode(), len(r.Grid.Cells), len(r.Grid.Spec.Datasets), len(r.Grid.Spec.Folds),
		len(r.Grid.Spec.Seeds), len(r.Grid.Variants)-len(r.Grid.Blocked()))
	if r.Trained > 0 {
		fmt.Fprintf(&b, "; trained %d now", r.Report.Ran)
		if r.Report.Reused > 0 {
			fmt.Fprintf(&b, ", copied %d from identical runs of other tables", r.Report.Reused)
		}
	} else {
		b.WriteString("; nothing trained, re-rendered from the stored records")
	}
	if n := len(r.Grid.Blocked()); n > 0 {
		fmt.Fprintf(&b, "; %d variants blocked (need model support)", n)
	}
	if n := len(r.NotTrained); n > 0 {
		fmt.Fprintf(&b, "; %d runs not trained (TrainMissing off)", n)
	}
	if n := len(r.Table.Missing); n > 0 {
		fmt.Fprintf(&b, "; %d expected runs without an ok record (listed under the table)", n)
	}
	fmt.Fprintf(&b, "; %.1f s; grid %s in %s", r.Elapsed.Seconds(), r.Grid.ID(), repoPath(r.Params.Results))
	return b.String()
}

// Markdown returns the table as Markdown: a status line, then the table of
// tables.Table.Markdown (title with the quick-mode label, rows ours beside
// the paper's, summary rows, notes and every missing run), then the blocked
// variants and the cells left untrained.
func (r *TableResult) Markdown() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%s%s*\n\n", mdLine(r.Status()), settingsNote(r.Params.Settings))
	if err := r.Table.Markdown(&b); err != nil {
		fmt.Fprintf(&b, "\n(markdown error: %v)\n", err)
	}
	if bl := r.Grid.Blocked(); len(bl) > 0 {
		b.WriteString("\n**Variants not run — they need model support:**\n\n")
		for _, v := range bl {
			fmt.Fprintf(&b, "- %s: %s\n", v.Name, mdLine(v.Blocked))
		}
	}
	if len(r.NotTrained) > 0 {
		why := fmt.Sprintf("TrainMissing is off; set %s=1 or Params.TrainMissing to train them", EnvTrainMissing)
		if r.Params.TrainingOff() {
			why = fmt.Sprintf("full mode trains nothing unless asked: set `p.Train = true` in the parameter cell or %s=1 to train them here, "+
				"or run `softshape sweep -table %s -results <folder>` and give that folder as Results", EnvTrain, r.Name)
		}
		fmt.Fprintf(&b, "\n**%d runs not trained** (%s):\n\n", len(r.NotTrained), why)
		for i, k := range r.NotTrained {
			if i == 20 {
				fmt.Fprintf(&b, "- … and %d more\n", len(r.NotTrained)-20)
				break
			}
			fmt.Fprintf(&b, "- `%s`\n", k)
		}
	}
	return b.String()
}

// WriteMarkdown writes Markdown to w.
func (r *TableResult) WriteMarkdown(w io.Writer) error {
	_, err := io.WriteString(w, r.Markdown())
	return err
}

func settingsNote(s string) string {
	if s == "" {
		return ""
	}
	return "; settings " + s
}
