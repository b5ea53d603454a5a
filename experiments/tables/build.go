package tables

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/softshape-go/softshape/ablations"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/paper"
	"github.com/softshape-go/softshape/softshape"
)

// Options select the records a table is built from.
type Options struct {
	// Quick builds the table of the quick-mode sweeps.
	Quick bool
	// Grid restricts the table to one recorded grid (its id); "" merges
	// every grid of the table and mode.
	Grid string
	// Seeds restricts the table to the runs of these seeds
	// (sweep.Store.ExpectedSeeds); nil takes every recorded seed.
	Seeds []int64
	// Planned are grids whose cells are expected as if their grid files
	// were recorded (sweep.Store.ExpectedPlanned): a planned sweep's
	// datasets without a run show their runs missing, and stay out of the
	// summary, instead of being left out of the expected cells. Not with
	// Grid.
	Planned []*sweep.Grid
}

// Kind says where a column's values come from.
type Kind int

const (
	// Ours: a variant trained by the sweep.
	Ours Kind = iota
	// Baseline: a method of the paper that this project does not run.
	Baseline
	// Blocked: a variant that needs model support.
	Blocked
	// NotRun: a variant left out of the recorded sweeps.
	NotRun
)

// String names the kind.
func (k Kind) String() string {
	return [...]string{"ours", "paper baseline", "needs model support", "not in the sweep"}[k]
}

// Column is one column of a table.
type Column struct {
	// Name is the paper's column label.
	Name string
	// Kind says where the values come from.
	Kind Kind
	// Variant is the variant of an Ours column.
	Variant string
	// Note explains a Blocked or NotRun column.
	Note string
}

// Measured reports whether we have our own runs for the column.
func (c Column) Measured() bool { return c.Kind == Ours }

// Value is our result for one dataset and column.
type Value struct {
	// Acc is the mean test accuracy over the runs; NaN without any.
	Acc float64
	// Runs counts the (fold, seed) runs averaged, Expected those expected.
	Runs, Expected int
	// Invalid is set when no run is possible on the dataset: every expected
	// run was recorded invalid (e.g. k > Ĉ, m > T); it holds one reason.
	Invalid string
	// Params and Inference are the mean parameter count and inference time
	// (seconds for one fold's test split) of the runs; NaN without any.
	Params, Inference float64
	// PerRun holds the test accuracy of each averaged run (Ours columns).
	PerRun []RunAcc
	// WarmUp counts the averaged runs whose selected model is a dense
	// warm-up epoch (possible with selection_window=all): for those runs
	// the column's post-warm-up setting had no effect.
	WarmUp int
}

// RunAcc is the test accuracy of one run (seed, 1-based fold).
type RunAcc struct {
	Seed int64
	Fold int
	Acc  float64
}

// Complete reports whether every expected run was averaged.
func (v Value) Complete() bool { return v.Expected > 0 && v.Runs == v.Expected }

// Row is one dataset.
type Row struct {
	// Dataset is the dataset name.
	Dataset string
	// Ours and Paper are indexed like Table.Columns; Paper is NaN where the
	// paper has no per-dataset value.
	Ours  []Value
	Paper []float64
}

// MissingRun is an expected run without an ok record (Table.Missing), or
// one recorded invalid (Table.Invalid).
type MissingRun struct {
	// Key is the run; State why it has no ok record; Detail the error or
	// lock owner.
	Key    sweep.Key
	State  sweep.CellState
	Detail string
}

// Table is a paper table with our results beside the paper's.
type Table struct {
	// Name is the paper table name; Title the paper's title of it.
	Name, Title string
	// Quick marks a table of quick-mode runs.
	Quick bool
	// Root and Grids say which results folder and grids the numbers come
	// from; Planned are the planned grids (Options.Planned) not recorded
	// there, whose runs are expected all the same.
	Root           string
	Grids, Planned []string
	// Folds and Seeds are those of the recorded sweeps.
	Folds []int
	Seeds []int64
	// Columns, in the paper's order; Reference is the column the paper's
	// printed p-values compare against; Default the column of the main
	// experiments' configuration (a sweep's baseline setting), which our
	// p-values and differences compare against.
	Columns            []Column
	Reference, Default string
	// Rows, one per dataset of the sweeps.
	Rows []Row
	// Summary is the summary section.
	Summary Summary
	// Missing lists every expected run that has no ok record and is not
	// recorded invalid: the runs a sweep still has to make.
	Missing []MissingRun
	// Invalid lists the expected runs recorded invalid: the dataset rejects
	// their configuration (k > Ĉ, m > T, ...), so no sweep can run them.
	Invalid []MissingRun
	// Protocol names the protocol of the runs with its switches
	// (softshape.Config.ProtocolString), "" when no variant was recorded;
	// several, separated by "; ", when the variants differ.
	Protocol string
	// Changed lists the settings, other than its protocol's, that every
	// variant of the runs shares and that differ from the paper's defaults
	// under the runs' protocol preset ("epochs=4", "embed_dim=32"), in
	// softshape.Settings order (changedOf): what a figure's caption must
	// name beside the protocol. The swept setting differs between variants
	// and is not listed.
	Changed []string
	// Notes are remarks printed with the table.
	Notes []string
	// Params holds the parameter count and inference time section of the
	// "params_inference_time" table (nil for the others).
	Params *ParamsSection
	// CDRanks adds to the summary the row of our average ranks with ties
	// averaged (stats.Summary.AvgRankTiesAveraged), the ranks that a
	// critical-difference diagram of the table shows: set it where the
	// diagram is shown with the table, so the table holds its numbers.
	CDRanks bool
}

// Build builds the named table from the sweeps recorded in store.
func Build(store *sweep.Store, name string, opts Options) (*Table, error) {
	plan, err := ablations.ForTable(name)
	if err != nil {
		return nil, err
	}
	exp, err := store.ExpectedPlanned(name, opts.Quick, opts.Grid, opts.Seeds, opts.Planned)
	if err != nil {
		return nil, err
	}
	ps, err := paper.Summary(name)
	if err != nil {
		return nil, err
	}
	var pt *paper.Table
	if t, err := paper.PerDataset(name); err == nil {
		pt = t
	} else if !errors.Is(err, paper.ErrUnknownTable) {
		return nil, err
	}
	t := &Table{Name: name, Title: ps.Title, Quick: opts.Quick, Root: store.Root(), Grids: exp.Grids, Planned: exp.Planned,
		Folds: exp.Folds, Seeds: exp.Seeds, Reference: plan.Reference, Default: plan.Default}
	if pt != nil {
		t.Title = pt.Title
	}
	variants := map[string]sweep.GridVariant{}
	for _, v := range exp.Variants {
		variants[v.Name] = v
	}
	for _, pc := range plan.Columns {
		t.Columns = append(t.Columns, column(pc, variants))
	}
	t.Protocol = protocolOf(exp.Variants)
	t.Changed = changedOf(exp.Variants)
	cells := newCellIndex(store, exp)
	for _, ds := range exp.Datasets {
		row := Row{Dataset: ds}
		for _, c := range t.Columns {
			row.Ours = append(row.Ours, cells.value(ds, c))
			row.Paper = append(row.Paper, paperValue(pt, ds, c.Name))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Missing, t.Invalid = cells.missing, cells.invalid
	t.finish(pt, ps)
	return t, nil
}

// finish computes what a table derives from its rows: the summary, the
// parameter section of "params_inference_time" and the notes of the columns
// without runs.
func (t *Table) finish(pt *paper.Table, ps *paper.SummaryTable) {
	t.Summary = summarize(t, pt, ps)
	if t.Name == "params_inference_time" {
		t.Params = paramsSection(t, ps)
	}
	for _, c := range t.Columns {
		if c.Kind == Blocked || c.Kind == NotRun {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %s.", c.Name, c.Note))
		}
	}
}

// FromRuns builds the named paper table from the runs of another table (src,
// built by Build): each column of ours takes the values of src's column that
// ran the same variant, on those datasets of src that the paper's table
// holds; the paper's figures, summary and title are the named table's. It
// reads a table whose runs are the same computation as another's, e.g. the
// 18-dataset LightTS/Shapeformer table from Table 1's runs (both run
// SoftShape's default configuration), without a sweep of its own.
func FromRuns(src *Table, name string) (*Table, error) {
	plan, err := ablations.ForTable(name)
	if err != nil {
		return nil, err
	}
	ps, err := paper.Summary(name)
	if err != nil {
		return nil, err
	}
	pt, err := paper.PerDataset(name)
	if err != nil {
		return nil, fmt.Errorf("table %s from the runs of %s: %w", name, src.Name, err)
	}
	t := &Table{Name: name, Title: pt.Title, Quick: src.Quick, Root: src.Root, Grids: src.Grids, Planned: src.Planned,
		Folds: src.Folds, Seeds: src.Seeds, Reference: plan.Reference, Default: plan.Default, Protocol: src.Protocol, CDRanks: src.CDRanks}
	srcCol := make([]int, len(plan.Columns)) // src's column of each column, -1 for none
	for k, pc := range plan.Columns {
		srcCol[k] = -1
		c := Column{Name: pc.Name, Variant: pc.Variant}
		switch j := slices.IndexFunc(src.Columns, func(sc Column) bool { return sc.Kind == Ours && sc.Variant == pc.Variant }); {
		case pc.Baseline():
			c.Kind = Baseline
		case j >= 0:
			c.Kind, srcCol[k] = Ours, j
		default:
			c.Kind, c.Note = NotRun, fmt.Sprintf("variant %q is not among the runs of table %s", pc.Variant, src.Name)
		}
		t.Columns = append(t.Columns, c)
	}
	var kept []string
	for _, r := range src.Rows {
		if !slices.Contains(pt.Datasets, r.Dataset) {
			continue
		}
		kept = append(kept, r.Dataset)
		row := Row{Dataset: r.Dataset}
		for k, c := range t.Columns {
			v := Value{Acc: math.NaN(), Params: math.NaN(), Inference: math.NaN()}
			if j := srcCol[k]; j >= 0 {
				v = r.Ours[j]
			}
			row.Ours = append(row.Ours, v)
			row.Paper = append(row.Paper, paperValue(pt, r.Dataset, c.Name))
		}
		t.Rows = append(t.Rows, row)
	}
	outside := func(m MissingRun) bool { return !slices.Contains(kept, m.Key.Dataset) }
	t.Missing = slices.DeleteFunc(slices.Clone(src.Missing), outside)
	t.Invalid = slices.DeleteFunc(slices.Clone(src.Invalid), outside)
	t.finish(pt, ps)
	return t, nil
}

// baselinesNote says which columns are the paper's baseline methods, which
// this project does not run (their figures are the paper's), or "" when the
// table has none: one sentence for all of them (Table 1 has 17), under the
// Markdown's per-dataset table and among the CSV's notes.
func (t *Table) baselinesNote() string {
	var baselines []string
	for _, c := range t.Columns {
		if c.Kind == Baseline {
			baselines = append(baselines, c.Name)
		}
	}
	if len(baselines) == 0 {
		return ""
	}
	return fmt.Sprintf("The paper's baseline methods (%s) are not run here; their per-dataset figures are in package paper and enter the summary.", strings.Join(baselines, ", "))
}

// column classifies a paper column given the recorded variants.
func column(pc ablations.Column, variants map[string]sweep.GridVariant) Column {
	c := Column{Name: pc.Name, Variant: pc.Variant}
	switch {
	case pc.Baseline():
		c.Kind = Baseline
	default:
		v, ok := variants[pc.Variant]
		switch {
		case !ok:
			if av, err := ablations.Lookup(pc.Variant); err == nil && !av.Implemented() {
				_, berr := av.Config(softshape.DefaultConfig())
				c.Kind, c.Note = Blocked, berr.Error()
			} else {
				c.Kind, c.Note = NotRun, fmt.Sprintf("variant %q is not in the recorded sweeps", pc.Variant)
			}
		case v.Blocked != "":
			c.Kind, c.Note = Blocked, v.Blocked
		default:
			c.Kind = Ours
		}
	}
	return c
}

// paperValue returns the paper's accuracy of a dataset and column, or NaN.
func paperValue(pt *paper.Table, dataset, col string) float64 {
	if pt == nil {
		return math.NaN()
	}
	i, j := slices.Index(pt.Datasets, dataset), pt.Index(col)
	if i < 0 || j < 0 {
		return math.NaN()
	}
	return pt.Acc[i][j]
}

// modeTitle prefixes a title with the quick label.
func modeTitle(title string, quick bool) string {
	if quick {
		return "[" + sweep.QuickLabel + "] " + title
	}
	return title
}

// FullTitle is the table's title with "ours beside the paper", the protocol
// preset of the runs and, for quick tables, the quick label.
func (t *Table) FullTitle() string {
	title := OnDatasets(t.Title, len(t.Rows)) + " — ours beside the paper"
	if t.Protocol != "" {
		name, _, _ := strings.Cut(t.Protocol, " (")
		title += ", protocol " + name
	}
	return modeTitle(title, t.Quick)
}

// paperDatasets matches the paper's "on N UCR datasets" in a table title.
var paperDatasets = regexp.MustCompile(`\bon (\d+) UCR datasets\b`)

// OnDatasets returns a paper table's title for a table of ours over n of its
// datasets: "… on 18 UCR datasets" becomes "… on 6 of its 18 UCR datasets"
// when n is fewer; other titles are returned trimmed.
func OnDatasets(title string, n int) string {
	title = strings.TrimSpace(title)
	m := paperDatasets.FindStringSubmatchIndex(title)
	if m == nil {
		return title
	}
	if all, err := strconv.Atoi(title[m[2]:m[3]]); err != nil || n <= 0 || n >= all {
		return title
	}
	return title[:m[0]] + fmt.Sprintf("on %d of its %s UCR datasets", n, title[m[2]:m[3]]) + title[m[1]:]
}

// WarmUpSelected returns, per column, the runs that selected a warm-up model
// over all datasets, and whether any did.
func (t *Table) WarmUpSelected() (counts, runs []int, any bool) {
	counts, runs = make([]int, len(t.Columns)), make([]int, len(t.Columns))
	for _, r := range t.Rows {
		for j, v := range r.Ours {
			counts[j] += v.WarmUp
			runs[j] += v.Runs
			any = any || v.WarmUp > 0
		}
	}
	return counts, runs, any
}

// protocolSwitch reports whether a setting is a protocol switch, which
// Table.Protocol names.
func protocolSwitch(name string) bool {
	switch name {
	case softshape.ParamFoldReset, softshape.ParamEvalPath, softshape.ParamBatchRule, softshape.ParamShuffle,
		softshape.ParamSelectionStat, softshape.ParamSelectionWindow:
		return true
	}
	return false
}

// variantConfigs are the resolved configurations of the recorded variants
// (their configuration strings), leaving out those without one or whose
// string no longer parses.
func variantConfigs(variants []sweep.GridVariant) []softshape.Config {
	var out []softshape.Config
	for _, v := range variants {
		if v.Config == "" {
			continue
		}
		if cfg, err := softshape.DefaultConfig().WithSettings(v.Config); err == nil {
			out = append(out, cfg)
		}
	}
	return out
}

// changedOf is Table.Changed of the recorded variants: the settings,
// protocol switches apart, whose value differs from that of the paper's
// defaults under the variant's preset, and is the same in every variant.
func changedOf(variants []sweep.GridVariant) []string {
	var common []string
	for i, cfg := range variantConfigs(variants) {
		base, err := softshape.DefaultConfig().WithSettings(softshape.ParamProtocol + "=" + cfg.ProtocolName())
		if err != nil {
			base = softshape.DefaultConfig().WithProtocol(cfg.Protocol())
		}
		var diffs []string
		for _, st := range softshape.Settings() {
			val, def := fmt.Sprint(st.Value(cfg)), fmt.Sprint(st.Value(base))
			if val != def && !protocolSwitch(st.Name) {
				diffs = append(diffs, st.Name+"="+val)
			}
		}
		if i == 0 {
			common = diffs
			continue
		}
		common = slices.DeleteFunc(common, func(d string) bool { return !slices.Contains(diffs, d) })
	}
	return common
}

// protocolOf describes the protocol of the recorded variants.
func protocolOf(variants []sweep.GridVariant) string {
	var seen []string
	for _, cfg := range variantConfigs(variants) {
		if p := cfg.ProtocolString(); !slices.Contains(seen, p) {
			seen = append(seen, p)
		}
	}
	return strings.Join(seen, "; ")
}
