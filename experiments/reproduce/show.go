package reproduce

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/experiments/tablefigures"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/paper"
	"github.com/softshape-go/softshape/reproduction"
)

// The cells of the table notebooks are one call each: ShowTable, ShowFigures
// and ShowEpochTimes; notebook 03 adds ShowRunningTime, ShowPairedTiming and
// SparseRatioSlider, notebook 10 ShowCompat. Each follows Params: quick mode
// trains its short schedule and shows per-dataset numbers; full mode renders
// committed data only (the committed reproduction, or the results folder
// given) and trains or measures nothing unless Params.Train.

// ShowTable shows the named paper table, marked "table <name>": in full mode
// without Train and without a results folder, the committed reproduction
// under both presets beside the paper (CommittedTables) or, without committed
// runs, one line naming the command that makes them (marked "missing table
// <name>") and the paper's printed summary (PrintedSummary, marked "table
// <name>_paper"): committedOutputs; otherwise Table's (quick mode:
// per-dataset numbers only; full mode without Train: the results folder
// given, training nothing).
func ShowTable(ctx context.Context, name string, p Params) {
	if p.fullWithoutResults() {
		outs, err := committedOutputs(name)
		if err != nil {
			panic(err)
		}
		tableStyle()
		for _, o := range outs {
			markdownAs(o.mark, o.md)
		}
		return
	}
	MustTable(ctx, name, p).ShowTable()
}

// ShowFigures shows the figures of the named table, each marked "figure
// <name>" (the reason one is not drawn "missing figure <name>"): in full mode without Train and without a results folder those of
// the committed reproduction (Committed.Figures: both presets beside the
// paper, then each preset's ranks or CD diagram); otherwise Table's
// (TableResult.Figures: quick mode draws the sweep chart only).
func ShowFigures(ctx context.Context, name string, p Params) {
	if p.fullWithoutResults() {
		figs, err := committedFigures(name)
		if err != nil {
			panic(err)
		}
		for _, n := range figs {
			ShowFigure(p.FigureDir(), n.Name, n.Figure, n.Err)
		}
		return
	}
	MustTable(ctx, name, p).ShowFigures()
}

// committedFigures are the figures ShowFigures shows of the named table in
// full mode without a results folder: Table 1's CD diagrams
// (CommittedTable1Figures); none for the three-method LightTS/Shapeformer
// table, whose summary rows say it all; otherwise those of the committed
// table (Committed.Figures) or, without committed runs, why there are none.
func committedFigures(name string) ([]Named, error) {
	switch name {
	case reproduction.Table1:
		return CommittedTable1Figures()
	case reproduction.LightTSShapeformer:
		var figs []Named
		for _, k := range tablefigures.Kinds(name) {
			figs = append(figs, Named{Name: figureName(name, k, ""),
				Err: fmt.Errorf("%w: three methods, read from Table 1's runs: the summary rows of the table above give their ranks", ErrNoFigure)})
		}
		return figs, nil
	}
	c, err := CommittedTables(name)
	switch {
	case errors.Is(err, ErrNotCommitted):
		return uncommittedFigures(name), nil
	case err != nil:
		return nil, err
	}
	return c.Figures(), nil
}

// uncommittedFigures are the places of the named table's figures before it
// has committed runs, each saying why it is empty.
func uncommittedFigures(name string) []Named {
	why := fmt.Errorf("%w: no committed full-protocol runs of %s yet (the line above the paper's printed summary names the command that makes them)", ErrNoFigure, name)
	var figs []Named
	for _, k := range tablefigures.Kinds(name) { // params_inference_time has none
		figs = append(figs, Named{Name: figureName(name, k, ""), Err: why})
	}
	return figs
}

// ShowEpochTimes shows the time per epoch recorded by the runs of the named
// table (TableResult.EpochTimes): in full mode without Train and without a
// results folder those of the committed runs, per preset, with the machine
// reproduction/manifest.json names for records that do not name their CPU.
func ShowEpochTimes(ctx context.Context, name string, p Params) {
	if !p.fullWithoutResults() {
		md, err := MustTable(ctx, name, p).EpochTimes()
		if err != nil {
			panic(err)
		}
		Markdown(md)
		return
	}
	md, err := CommittedEpochTimes(name)
	if errors.Is(err, ErrNotCommitted) {
		markdownAs(missingMark(markMarkdown), fmt.Sprintf("*No recorded times of %s: %s*", name, mdLine(err.Error())))
		return
	} else if err != nil {
		panic(err)
	}
	Markdown(md)
}

// CommittedEpochTimes is EpochTimes of the named table's committed runs
// under each preset, then, when records do not name their CPU, the machine
// reproduction/manifest.json gives for them.
func CommittedEpochTimes(name string) (string, error) {
	var b strings.Builder
	unrecorded, found := 0, 0
	for _, preset := range reproduction.Presets {
		r, err := CommittedTable(name, preset)
		if errors.Is(err, ErrNotCommitted) {
			continue
		} else if err != nil {
			return "", err
		}
		found++
		md, rows, err := r.epochTimes()
		if err != nil {
			return "", err
		}
		b.WriteString(strings.Replace(md, "### Time per epoch from the stored runs — "+name, "### Time per epoch from the stored runs — "+name+", "+preset, 1))
		b.WriteString("\n")
		for _, row := range rows {
			if row.cpu == "" {
				unrecorded += len(row.perEpoch)
			}
		}
	}
	if found == 0 {
		return "", fmt.Errorf("%w of %s: %s makes them", ErrNotCommitted, name, MakeCommitted(name))
	}
	if unrecorded > 0 {
		if m, err := reproduction.ReadManifest(filepath.Join(committedDir(), "manifest.json")); err == nil && m.Machine != "" {
			fmt.Fprintf(&b, "%d of these records predate the CPU field (\"not recorded\"); reproduction/manifest.json says where the committed runs trained: %s.\n", unrecorded, m.Machine)
		}
	}
	return b.String(), nil
}

// ErrNotCommitted is wrapped by CommittedTables, CommittedTable and
// CommittedEpochTimes when the repository holds no committed runs of the
// table; the error names the command that makes them.
var ErrNotCommitted = errors.New("no committed full-protocol runs")

// markedMarkdown is one output of a cell: Markdown and its mark (MarkKey).
type markedMarkdown struct{ mark, md string }

// committedOutputs are what ShowTable shows of the named table in full mode
// without a results folder: the committed table (marked "table <name>");
// without committed runs, the line saying so (marked "missing table <name>")
// and, since the paper's numbers are still there to read, its printed
// summary (PrintedSummary, marked printedMark(name)).
func committedOutputs(name string) ([]markedMarkdown, error) {
	if isTable1(name) {
		return table1Outputs(name)
	}
	mark := markTable + " " + name
	c, err := CommittedTables(name)
	if err == nil {
		return []markedMarkdown{{mark, c.Markdown()}}, nil
	}
	if !errors.Is(err, ErrNotCommitted) {
		return nil, err
	}
	printed, err2 := PrintedSummary(name)
	if err2 != nil {
		return nil, err2
	}
	return []markedMarkdown{{missingMark(mark), fmt.Sprintf("*%s*", mdLine(err.Error()))}, {printedMark(name), printed}}, nil
}

// printedMark is the mark of the paper's printed summary of the named table
// shown on its own: "table num_experts_paper".
func printedMark(name string) string { return markTable + " " + name + "_paper" }

// PrintedSummary is the paper's printed summary of the named table
// (paper.Summary, tables.PrintedMarkdown) as Markdown, labelled as the
// paper's numbers: what a full-mode notebook shows of a table without
// committed runs, beside the line saying so.
func PrintedSummary(name string) (string, error) {
	ps, err := paper.Summary(name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := tables.PrintedMarkdown(&b, ps); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return b.String(), nil
}

// showNotTrained shows, marked missingMark(mark), the line a cell shows in
// full mode without Train instead of the output marked mark: what it would
// do, and how to ask for it.
func showNotTrained(mark, what string) {
	markdownAs(missingMark(mark), fmt.Sprintf("*Not run: full mode trains and measures nothing unless asked, and this cell would %s. Set `p.Train = true` in the parameter cell (or %s=1) to run it.*", what, EnvTrain))
}

// ShowRunningTime shows the paper's Fig 3: in full mode without Train the
// committed measurements (CommittedRunningTime: T = 166 … 16,600 on ONNX
// Runtime and pure Go), measuring nothing; otherwise it measures the time of
// a training step against the series length on this machine (RunningTime:
// T = 166 … 3320, one timed step at T = 166, 332 in quick mode) and shows
// its table and figure.
func ShowRunningTime(p Params) {
	if p.TrainingOff() {
		views, err := CommittedRunningTime()
		if err != nil {
			panic(err)
		}
		for _, v := range views {
			Markdown(v.Markdown)
			ShowFigure(p.FigureDir(), v.Name, v.Figure, nil)
		}
		return
	}
	lengths := []int{166, 830, 1660, 3320}
	if p.Quick {
		lengths = []int{166, 332}
	}
	md, fig, err := RunningTime(p, lengths, nil)
	if err != nil {
		panic(err)
	}
	Markdown(md)
	ShowFigure(p.FigureDir(), "running_time", fig, nil)
}

// ShowPairedTiming compares training steps of sparse ratios 0%, 50% and 90%
// round by round: in full mode without Train the committed comparisons
// (CommittedPairedTiming), measuring nothing; otherwise on this machine
// (PairedTiming: T = 3984 over 11 rounds; T = 664 over 3 in quick mode).
func ShowPairedTiming(p Params) {
	if p.TrainingOff() {
		md, err := CommittedPairedTiming()
		if err != nil {
			panic(err)
		}
		Markdown(md)
		return
	}
	T, rounds := 3984, 11
	if p.Quick {
		T, rounds = 664, 3
	}
	md, err := PairedTiming(p, T, []float64{0, 0.5, 0.9}, rounds)
	if err != nil {
		panic(err)
	}
	Markdown(md)
}

// SparseRatioSlider is notebook 03's interactive panel: a slider over the
// sparse ratio 1−η in tenths that retrains a tiny model (TinySettings) on
// generated CBF data and redraws its accuracy and attention map (models are
// cached). In full mode without Train it shows one line instead.
func SparseRatioSlider(p Params) {
	if p.TrainingOff() {
		showNotTrained(markPanel, "retrain a tiny model on generated CBF data at each position of a slider over the sparse ratio 1−η (seconds each)")
		return
	}
	Slider("sparse ratio 1−η, in tenths", 0, 9, 5, 3*time.Minute, func(v int) string {
		settings := fmt.Sprintf("%s;sparse_ratio=%g", TinySettings, float64(v)/10)
		m, err := TrainModel(p, data.CBFName, 1, settings, false)
		if err != nil {
			return "<pre>" + err.Error() + "</pre>"
		}
		return m.PanelHTML()
	})
}

// ShowCompat shows notebook 10's comparison of the default protocol with
// reference_compat trained on p's datasets (Compat), marked "table
// reference_compat"; in full mode without Train one line instead, since the
// full protocol is hours per dataset and the committed fidelity runs
// (CommittedFidelity) already compare the presets on it.
func ShowCompat(ctx context.Context, p Params) {
	if p.TrainingOff() {
		showNotTrained(markTable+" reference_compat", "train the full protocol twice (default and reference_compat, 5 folds of 500 epochs) on every dataset of the parameter cell, hours each; "+
			"the committed fidelity runs above compare the presets on the full protocol already")
		return
	}
	c, err := Compat(ctx, p)
	if err != nil {
		panic(err)
	}
	c.Show()
}

// joinInts lists numbers: "166, 830, 1660".
func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
