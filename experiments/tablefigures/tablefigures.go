// Package tablefigures draws the figures of a paper table rebuilt from stored
// results (experiments/tables): accuracy against the swept value (Sweep), the
// average rank of each column beside the paper's (Ranks) and the
// critical-difference diagram of the columns (CD), plus the diagram of the
// paper's own per-dataset table (PaperCD).
//
// It is the one place these figures are built: the command line (softshape
// plot sweep|ranks|cd) and the notebooks (experiments/reproduce) both call
// Draw, so a figure of a table is the same figure wherever it is drawn.
//
// Every title names the figure and the table, the datasets, the runs (folds,
// seeds, grid, protocol preset) and, for quick-mode tables, carries the
// quick-mode note (plots.Meta).
package tablefigures

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/softshape-go/softshape/internal/english"

	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/paper"
	"github.com/softshape-go/softshape/plots"
)

// Kind names one figure of a table.
type Kind string

const (
	// KindSweep is accuracy against the swept value (Sweep).
	KindSweep Kind = "sweep"
	// KindRanks is the average rank per column, ours beside the paper's (Ranks).
	KindRanks Kind = "ranks"
	// KindCD is the critical-difference diagram of the columns (CD).
	KindCD Kind = "cd"
)

// AllKinds returns every kind, in the order Draw's callers list them.
func AllKinds() []Kind { return []Kind{KindSweep, KindRanks, KindCD} }

// DefaultAlpha is the family-wise significance level of the CD diagram's
// cliques, the paper's 0.05.
const DefaultAlpha = 0.05

// MinCDDatasets is the fewest datasets (every column complete) a CD diagram
// is drawn for. With two, each pairwise Wilcoxon signed-rank test has at
// most two non-zero differences (two-sided p ≥ 0.5), so the diagram would be
// one clique by construction; the quick-mode notebooks (two datasets) say so
// instead of drawing it.
const MinCDDatasets = 3

// ErrNoFigure is wrapped by the constructors when the table has no data for
// the figure (no finished run, too few complete datasets or columns); the
// error says what is missing.
var ErrNoFigure = errors.New("no figure")

// Kinds returns the standard figures of the named table: a sweep chart and
// rank bars for the tables whose columns are values of one hyperparameter,
// rank bars and a CD diagram for the others, none for
// "params_inference_time" (one configuration: its table is the result).
// Draw accepts any kind for any table.
func Kinds(table string) []Kind {
	switch {
	case table == "params_inference_time":
		return nil
	case isSweep(table):
		return []Kind{KindSweep, KindRanks}
	default:
		return []Kind{KindRanks, KindCD}
	}
}

// ShowsCD reports whether the standard figures of the named table (Kinds)
// include a critical-difference diagram: where they do, the table shown
// beside them carries the diagram's ranks (tables.Table.CDRanks,
// tables.Comparison.CDRanks).
func ShowsCD(table string) bool { return slices.Contains(Kinds(table), KindCD) }

// Draw builds the figure of kind k of table t; alpha is the CD diagram's
// significance level (DefaultAlpha for the paper's).
func Draw(k Kind, t *tables.Table, alpha float64) (*plots.Figure, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: no table", ErrNoFigure)
	}
	switch k {
	case KindSweep:
		return Sweep(t)
	case KindRanks:
		return Ranks(t)
	case KindCD:
		return CD(t, alpha)
	}
	return nil, fmt.Errorf("unknown figure kind %q: want one of %v", k, AllKinds())
}

// sweepAxis returns the x-axis label of a table whose columns are values of
// one hyperparameter, and whether those values are log-spaced (drawn at equal
// spacing, as on a log axis); ok is false for the other tables.
func sweepAxis(table string) (label string, logSpaced, ok bool) {
	switch table {
	case "sparse_ratio":
		return "sparse ratio (% of shapes fused)", false, true
	case "experts_k":
		return "activated experts k", false, true
	case "stride_q":
		return "sliding step q", false, true
	case "depth_L":
		return "depth L", false, true
	case "shape_length_m":
		return "shape length m", false, true
	case "num_experts":
		return "number of experts Ĉ", false, true
	case "lambda":
		return "MoE loss weight λ (log-spaced)", true, true
	}
	return strings.ReplaceAll(table, "_", " "), false, false
}

func isSweep(table string) bool {
	_, _, ok := sweepAxis(table)
	return ok
}

// Ordered reports whether the columns of the named table are values of one
// hyperparameter, in order, so that Sweep joins them with lines. An
// ablation's variants, the networks tried as MoE experts and Table 7's three
// ways to choose m (Val-Select, Fixed-8, Multi-Seq) are not, and are drawn
// as markers.
func Ordered(table string) bool { return isSweep(table) && table != "shape_length_m" }

// sweptNumber reads the value of a column name such as "50%", "k=2" or
// "λ = 0.01".
var sweptNumber = regexp.MustCompile(`^(?:[^=]*=\s*)?([0-9]*\.?[0-9]+)(%?)$`)

// sweptValues returns the x value of each column: the numbers of the names
// when every name holds one (with the same unit) and the values are not
// log-spaced, with nil ticks; otherwise 0, 1, … with the names as ticks.
func sweptValues(names []string, logSpaced bool) (xs []float64, ticks []string) {
	xs = make([]float64, len(names))
	numeric := !logSpaced
	unit := ""
	for i, n := range names {
		m := sweptNumber.FindStringSubmatch(n)
		if m == nil || (i > 0 && m[2] != unit) {
			numeric = false
			break
		}
		unit = m[2]
		xs[i], _ = strconv.ParseFloat(m[1], 64)
	}
	if numeric {
		return xs, nil
	}
	for i := range xs {
		xs[i] = float64(i)
	}
	return xs, slices.Clone(names)
}

// Sweep draws our accuracy against the swept value of t: one solid line per
// dataset with our runs, each point the mean over its runs with a bar of ± its
// standard error (tables.Value.SE, over folds and seeds); the paper's values
// dashed in the same colours (the caption says when the paper has none); and thick lines for the averages the table's
// summary prints (Avg. Acc: over the datasets with every column complete and
// valid; the paper's over the same datasets), ours with a band of ± its
// standard error. The x axis is numeric where the columns name numbers
// ("50%", "k=2", "L=3") and categorical, with the column names, otherwise
// ("q=m", "Ĉ=C/2", "Multi-Seq") or where the values are log-spaced (λ).
// Columns that are not values of one hyperparameter (an ablation's variants,
// the networks tried as MoE experts) have no order: no line joins them
// (plots.WithUnorderedX), and the caption says markers and dashes.
// The columns are those we run plus those the paper gives per-dataset values
// for; the paper's baseline methods are left out. The caption says what the
// bars, lines and band are and which datasets the averages cover.
func Sweep(t *tables.Table) (*plots.Figure, error) {
	d, err := sweepSeries(t)
	if err != nil {
		return nil, err
	}
	ordered := Ordered(t.Name)
	oursNote, paperNote := "solid: ours", "dashed: the paper's values"
	if !ordered {
		oursNote, paperNote = "markers: ours", "dashes: the paper's values"
	}
	if len(d.paper) == 0 { // an appendix study: a printed summary only, in the table
		paperNote = "the paper gives no per-dataset values for this table"
	}
	meta := tableMeta(t, "Accuracy vs "+d.label, d.datasets, oursNote+", "+seBarsNote(t)+"; "+paperNote, d.averageNote)
	var opts []plots.Option
	if !ordered {
		opts = append(opts, plots.WithUnorderedX())
	}
	if d.avgOurs != nil {
		opts = append(opts, plots.WithAverage(*d.avgOurs))
	}
	if d.avgPaper != nil {
		opts = append(opts, plots.WithPaperAverage(*d.avgPaper))
	}
	return plots.SweepChart(meta, d.label, d.ticks, d.ours, d.paper, opts...)
}

// sweepData is what Sweep draws.
type sweepData struct {
	label       string
	ticks       []string // nil: a numeric axis
	ours, paper []plots.SweepSeries
	datasets    []string // those with our runs
	// avgOurs and avgPaper are the table's averages (nil: none);
	// averageNote says what they are, or why there is none.
	avgOurs, avgPaper *plots.SweepAverage
	averageNote       string
}

// sweepSeries returns the series of Sweep.
func sweepSeries(t *tables.Table) (sweepData, error) {
	label, logSpaced, _ := sweepAxis(t.Name)
	d := sweepData{label: label}
	var cols []int
	var names []string
	measured := false
	for j, c := range t.Columns {
		if c.Kind == tables.Baseline || (!c.Measured() && !anyPaper(t, j)) {
			continue
		}
		cols = append(cols, j)
		names = append(names, c.Name)
		measured = measured || c.Measured()
	}
	if !measured {
		return d, fmt.Errorf("%w: no column of table %s is run by this project", ErrNoFigure, t.Name)
	}
	var xs []float64
	xs, d.ticks = sweptValues(names, logSpaced)
	for _, r := range t.Rows {
		o := plots.SweepSeries{Label: r.Dataset}
		p := plots.SweepSeries{Label: r.Dataset, X: xs}
		anyOurs, anyPaper := false, false
		for i, j := range cols {
			if t.Columns[j].Measured() {
				o.X = append(o.X, xs[i])
				o.Y = append(o.Y, r.Ours[j].Acc)
				o.SE = append(o.SE, r.Ours[j].SE())
				anyOurs = anyOurs || !math.IsNaN(r.Ours[j].Acc)
			}
			p.Y = append(p.Y, r.Paper[j])
			anyPaper = anyPaper || !math.IsNaN(r.Paper[j])
		}
		if anyOurs {
			d.ours = append(d.ours, o)
			d.datasets = append(d.datasets, r.Dataset)
		}
		if anyPaper {
			d.paper = append(d.paper, p)
		}
	}
	if len(d.ours) == 0 {
		return d, fmt.Errorf("%w: table %s has no finished run yet (softshape sweep -table %s, or reproduce.Table)", ErrNoFigure, t.Name, t.Name)
	}
	d.avgOurs, d.avgPaper, d.averageNote = sweepAverages(t, cols, xs)
	return d, nil
}

// sweepAverages returns the averages of the table's summary at the swept
// columns cols (x values xs): ours, Summary.Ours.AvgAcc (the table's "Avg.
// Acc", over Summary.Datasets), with the standard error of that mean from the
// datasets' own (√ΣSE²/n; none where a dataset has a single run); the paper's,
// Summary.Paper.AvgAcc over the same datasets. It says what they are, or why
// there is no average.
func sweepAverages(t *tables.Table, cols []int, xs []float64) (ours, pap *plots.SweepAverage, note string) {
	s := t.Summary
	if s.Ours == nil || len(s.Datasets) == 0 || len(s.Ours.AvgAcc) != len(s.OursColumns) {
		return nil, nil, "no average: no dataset has every column complete and valid (see the table's excluded datasets)"
	}
	n := len(s.Datasets)
	rows := map[string]tables.Row{}
	for _, r := range t.Rows {
		rows[r.Dataset] = r
	}
	avg := plots.SweepAverage{Label: fmt.Sprintf("average (ours), %s", plural(n, "dataset"))}
	for i, j := range cols {
		k := slices.Index(s.OursColumns, j)
		if k < 0 || s.FromPaper[k] {
			continue
		}
		sum := 0.0
		for _, ds := range s.Datasets {
			se := rows[ds].Ours[j].SE()
			sum += se * se // NaN (a single run) leaves no band
		}
		avg.X = append(avg.X, xs[i])
		avg.Y = append(avg.Y, s.Ours.AvgAcc[k])
		avg.SE = append(avg.SE, math.Sqrt(sum)/float64(n))
	}
	if len(avg.X) == 0 {
		return nil, nil, "no average: the table's summary has none of these columns"
	}
	ours = &avg
	which := fmt.Sprintf("the %s with every column complete and valid (%s)", plural(n, "dataset"), strings.Join(s.Datasets, ", "))
	if len(s.Datasets) == len(t.Rows) {
		which = fmt.Sprintf("all %s", plural(n, "dataset"))
		if n == 1 {
			which = "the one dataset"
		}
	}
	note = "thick: the mean over " + which + ", the table's Avg. Acc, band ± its SE"
	if !Ordered(t.Name) {
		note = "black, right of each column: the mean over " + which + ", the table's Avg. Acc, bar ± its SE"
	}
	if s.Paper != nil && len(s.PaperDatasets) > 0 {
		pa := plots.SweepAverage{Label: "average (paper), same datasets"}
		if len(s.PaperDatasets) < n {
			pa.Label = fmt.Sprintf("average (paper), %d of them", len(s.PaperDatasets))
		}
		for i, j := range cols {
			if k := slices.Index(s.PaperColumns, j); k >= 0 {
				pa.X = append(pa.X, xs[i])
				pa.Y = append(pa.Y, s.Paper.AvgAcc[k])
			}
		}
		if len(pa.X) > 0 {
			pap = &pa
		}
	}
	return ours, pap, note
}

// seBarsNote says what the error bars of a table's points are.
func seBarsNote(t *tables.Table) string {
	runs := plural(len(t.Folds), "fold")
	if len(t.Seeds) > 1 {
		runs += " × " + plural(len(t.Seeds), "seed")
	}
	return "bars ± SE over the " + runs
}

// plural is "1 dataset", "2 datasets".
func plural(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, pluralWord(n, noun))
}

// anyPaper reports whether the paper gives a value of column j for a dataset.
func anyPaper(t *tables.Table, j int) bool {
	return slices.ContainsFunc(t.Rows, func(r tables.Row) bool { return !math.IsNaN(r.Paper[j]) })
}

// Ranks draws the average rank (ties get the best rank, as in the paper) of
// each column of t's summary over its datasets, beside the paper's: its
// ranks over the same datasets where it has a per-dataset table, else (the
// appendix studies) the ranks it prints, over its own datasets.
func Ranks(t *tables.Table) (*plots.Figure, error) {
	s := t.Summary
	if s.Ours == nil {
		return nil, fmt.Errorf("%w: no dataset has every measured column of table %s complete and valid (%s)",
			ErrNoFigure, t.Name, strings.Join(append(slices.Clone(s.Problems), s.Excluded...), "; "))
	}
	if len(s.Ours.Methods) < 2 {
		return nil, fmt.Errorf("%w: ranks need at least 2 columns, table %s has %d in its summary", ErrNoFigure, t.Name, len(s.Ours.Methods))
	}
	notes := []string{rankBarsNote}
	if slices.Contains(s.FromPaper, true) {
		notes = append(notes, "baselines from the paper")
	}
	paperRanks, note := paperRanks(s)
	if note != "" {
		notes = append(notes, note)
	}
	what := "Average rank"
	if p := protocolNames(t.Protocol); p != "" && p != "default" {
		what += ", " + p // notebooks show one per preset: the title says which
	}
	meta := tableMeta(t, what, s.Datasets, notes...)
	return plots.RankBars(meta, s.Ours.Methods, s.Ours.AvgRank, paperRanks)
}

// paperRanks returns the paper's average rank of each column of s.Ours (NaN
// where it has none; nil when it has none at all) and says where they come
// from.
func paperRanks(s tables.Summary) ([]float64, string) {
	out := make([]float64, len(s.Ours.Methods))
	found := false
	for i, m := range s.Ours.Methods {
		out[i] = math.NaN()
		switch {
		case s.Paper != nil:
			if k := slices.Index(s.Paper.Methods, m); k >= 0 {
				out[i], found = s.Paper.AvgRank[k], true
			}
		case s.Printed != nil:
			if v, ok := s.Printed.AvgRank(m); ok {
				out[i], found = v, true
			}
		}
	}
	switch {
	case !found:
		return nil, ""
	case s.Paper != nil && len(s.PaperDatasets) < len(s.Datasets):
		return out, fmt.Sprintf("paper over the %d of these datasets in its table", len(s.PaperDatasets))
	case s.Paper != nil:
		return out, "paper over the same datasets"
	}
	return out, "paper: its printed ranks, over its datasets"
}

// CD draws the critical-difference diagram of t's summary: average ranks
// (ties averaged: the summary's AvgRankTiesAveraged, the table's row
// tables.CDRanksLabel) of its columns over its datasets, and the cliques of
// columns with no significant pairwise difference (two-sided Wilcoxon
// signed-rank, Holm-corrected at alpha; DefaultAlpha is the paper's). It
// ranks the accuracies of the summary (tables.Summary.Acc): the columns we
// do not run enter with the paper's. It needs MinCDDatasets datasets and two
// columns.
func CD(t *tables.Table, alpha float64) (*plots.Figure, error) {
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("α = %g: want 0 < α < 1", alpha)
	}
	s := t.Summary
	if s.Ours == nil {
		return nil, fmt.Errorf("%w: no dataset has every measured column of table %s complete and valid (%s)",
			ErrNoFigure, t.Name, strings.Join(append(slices.Clone(s.Problems), s.Excluded...), "; "))
	}
	if len(s.OursColumns) < 2 || len(s.Datasets) < MinCDDatasets {
		return nil, fmt.Errorf("%w: a critical-difference diagram needs at least 2 columns and %d datasets with complete results, table %s has %d and %d",
			ErrNoFigure, MinCDDatasets, t.Name, len(s.OursColumns), len(s.Datasets))
	}
	notes := []string{rankBarsNote}
	if slices.Contains(s.FromPaper, true) {
		notes = append(notes, "baselines from the paper")
	}
	return CDOf(t, s.Ours.Methods, s.Acc, s.Datasets, alpha, notes...)
}

// CDOf draws the critical-difference diagram of a matrix of t's (rows
// datasets, columns methods), titled and captioned as CD's diagram of t
// (its datasets, folds, seeds, protocol; its ranks and test; then notes):
// CD's own matrix, or the summary's with more columns, such as a baseline
// trained on the same folds as ours.
func CDOf(t *tables.Table, methods []string, acc [][]float64, datasets []string, alpha float64, notes ...string) (*plots.Figure, error) {
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("α = %g: want 0 < α < 1", alpha)
	}
	notes = append([]string{cdRanksNote, wilcoxonHolm(alpha)}, notes...)
	return CDMatrix(tableMeta(t, "Critical difference", datasets, notes...), methods, acc, alpha)
}

// cdRanksNote says which ranks a diagram of a table shows.
const cdRanksNote = "average ranks, ties averaged (the table's Avg. Rank gives ties the best rank)"

// rankBarsNote names the rank convention of the rank bars (Ranks,
// PresetRanks): the paper's, which the table's Avg. Rank follows, and not
// the CD diagram's (cdRanksNote), so that two figures of one table never
// show two conventions unlabelled.
const rankBarsNote = "average ranks, ties given the best rank (the paper's rule and the table's Avg. Rank; a CD diagram averages ties)"

// PaperCD draws the critical-difference diagram of the paper's own
// per-dataset table (e.g. "main": the 128 UCR datasets) over the datasets
// where every column has a value, for comparison with CD of ours.
func PaperCD(name string, alpha float64) (*plots.Figure, error) {
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("α = %g: want 0 < α < 1", alpha)
	}
	pt, acc, err := PaperCDData(name)
	if err != nil {
		return nil, err
	}
	ref := "appendix: " + name
	if m := paperTableRef.FindString(pt.Title); m != "" {
		ref = m
	}
	meta := plots.Meta{Title: "Critical difference, the paper's own numbers (" + ref + ")",
		Config: fmt.Sprintf("%s with every column in the paper's table; the paper's accuracies; average ranks, ties averaged (the paper's printed Avg. Rank gives ties the best rank); %s.",
			plural(len(acc), "UCR dataset"), wilcoxonHolm(alpha))}
	return CDMatrix(meta, pt.Methods, acc, alpha)
}

// PaperCDData returns the paper's per-dataset table name and the rows of
// its accuracies that PaperCD ranks: the datasets where every column has a
// value (columns pt.Methods). With fewer than MinCDDatasets it says so.
func PaperCDData(name string) (pt *paper.Table, acc [][]float64, err error) {
	pt, err = paper.PerDataset(name)
	if err != nil {
		return nil, nil, err
	}
	for _, row := range pt.Acc {
		if !slices.ContainsFunc(row, math.IsNaN) {
			acc = append(acc, row)
		}
	}
	if len(acc) < MinCDDatasets {
		return nil, nil, fmt.Errorf("%w: the paper's table %s has %d complete datasets, a critical-difference diagram needs %d",
			ErrNoFigure, name, len(acc), MinCDDatasets)
	}
	return pt, acc, nil
}

// wilcoxonHolm names the test of the cliques.
func wilcoxonHolm(alpha float64) string { return fmt.Sprintf("Wilcoxon–Holm α=%g", alpha) }

// CDMatrix computes the cliques of acc (rows datasets, columns methods:
// two-sided Wilcoxon signed-rank, Holm-corrected at alpha) and draws the
// critical-difference diagram described by meta: the diagram of a matrix
// that no table's summary holds alone (e.g. ours beside the paper's
// baselines and a baseline trained on the same folds).
func CDMatrix(meta plots.Meta, methods []string, acc [][]float64, alpha float64) (*plots.Figure, error) {
	cd, err := stats.CriticalDifference(methods, acc, alpha)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoFigure, err)
	}
	return plots.CDDiagram(meta, cd.Methods, cd.AvgRanks, cd.Cliques)
}

// tableMeta describes a figure of t: the title says what it shows and of
// which paper table ("Accuracy vs depth L (Table 6)"), and the dataset when
// there is one; the caption says which datasets and runs the numbers come
// from (folds, seeds, protocol preset), then notes. Quick tables carry the
// quick-mode note.
func tableMeta(t *tables.Table, what string, datasets []string, notes ...string) plots.Meta {
	seeds := make([]string, len(t.Seeds))
	for i, s := range t.Seeds {
		seeds[i] = strconv.FormatInt(s, 10)
	}
	cfg := datasetsPhrase(datasets)
	cfg += fmt.Sprintf("; %s %s, %s %s", pluralWord(len(t.Folds), "fold"), intRanges(t.Folds), pluralWord(len(t.Seeds), "seed"), strings.Join(seeds, ", "))
	if p := protocolNames(t.Protocol); p != "" {
		cfg += "; protocol " + p
	}
	if len(t.Changed) > 0 {
		cfg += "; settings changed from the paper's: " + strings.Join(t.Changed, ", ")
	}
	cfg += "."
	for _, n := range notes {
		if n != "" {
			cfg += " " + strings.ToUpper(n[:1]) + n[1:] + "."
		}
	}
	meta := plots.Meta{Title: what + " (" + tableRef(t) + ")", Config: cfg, Quick: t.Quick}
	if len(datasets) == 1 {
		meta.Dataset = datasets[0]
	}
	return meta
}

// tableRef names the paper table of t: "Table 6", else "appendix: <name>".
func tableRef(t *tables.Table) string {
	if m := paperTableRef.FindString(t.Title); m != "" {
		return m
	}
	return "appendix: " + t.Name
}

// paperTableRef matches "Table 6" at the start of a paper table's title.
var paperTableRef = regexp.MustCompile(`^Table \d+`)

// datasetsPhrase names the datasets of a figure in its caption: their number
// and, up to maxNamedDatasets, their names.
func datasetsPhrase(ds []string) string {
	s := plural(len(ds), "UCR dataset")
	if len(ds) > 0 && len(ds) <= maxNamedDatasets {
		s += " (" + strings.Join(ds, ", ") + ")"
	}
	return s
}

// maxNamedDatasets is the most datasets a caption names.
const maxNamedDatasets = 8

// pluralWord is noun, or its plural when n ≠ 1.
func pluralWord(n int, noun string) string { return english.Agree(n, noun, noun+"s") }

// intRanges writes sorted integers with runs as ranges: "1–5", "1, 3–4".
func intRanges(xs []int) string {
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.Itoa(xs[i]))
		case j == i+1:
			parts = append(parts, strconv.Itoa(xs[i]), strconv.Itoa(xs[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d–%d", xs[i], xs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// protocolNames returns the preset names of a tables.Table.Protocol ("name
// (switches)", several separated by "; "), joined by "+".
func protocolNames(protocol string) string {
	if protocol == "" {
		return ""
	}
	var names []string
	for _, p := range strings.Split(protocol, "; ") {
		name, _, _ := strings.Cut(p, " (")
		names = append(names, name)
	}
	return strings.Join(names, "+")
}
