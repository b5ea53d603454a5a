package tables

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/paper"
)

// MaxMarkdownMissing is how many missing runs Markdown lists one by one
// (the count is always given; CSV lists them all).
const MaxMarkdownMissing = 200

// Markdown writes the table as Markdown.
func (t *Table) Markdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# %s\n\n", t.FullTitle())
	if t.Quick {
		fmt.Fprintf(b, "> **%s**: short schedule (quick mode), few datasets. These numbers only check that the pipeline runs.\n\n", sweep.QuickLabel)
	}
	fmt.Fprintf(b, "Ours: mean test accuracy over folds %s and seeds %s (results folder `%s`, grid %s). ",
		fmtFolds(t.Folds), fmtSeeds(t.Seeds), t.Root, strings.Join(t.Grids, ", "))
	if len(t.Planned) > 0 {
		fmt.Fprintf(b, "Expected besides: the runs of planned grid %s, not recorded. ", strings.Join(t.Planned, ", "))
	}
	fmt.Fprintf(b, "Paper: Liu et al., *Learning Soft Sparse Shapes for Efficient Time-Series Classification*, ICML 2025. Δ = ours − paper.\n\n")
	if t.Protocol != "" {
		fmt.Fprintf(b, "Protocol: %s.\n\n", t.Protocol)
	}
	t.markdownRows(b)
	if t.Quick {
		fmt.Fprintf(b, "%s\n\n", QuickNoStatistics)
	} else {
		t.markdownWarmUp(b)
		t.markdownSummary(b)
		t.markdownDifferences(b)
	}
	if t.Params != nil {
		t.markdownParams(b)
	}
	t.markdownMissing(b)
	if len(t.Notes) > 0 {
		fmt.Fprintf(b, "## Notes\n\n")
		for _, n := range t.Notes {
			fmt.Fprintf(b, "- %s\n", mdEscape(n))
		}
		fmt.Fprintln(b)
	}
	return b.Flush()
}

// QuickNoStatistics is the line a quick-mode table prints in place of its
// summary rows, differences and trends.
const QuickNoStatistics = "*Quick mode: per-dataset numbers only. Summary rows, ranks, wins, p-values and trends are omitted: a short schedule on a few datasets (some barely trained) gives numbers that only check that the pipeline runs.*"

// MarkdownResults writes the result sections of the Markdown form alone: per
// dataset, warm-up selections, summary and differences from the default
// setting (no title, header, missing-run list or notes), for documents that
// assemble several tables.
func (t *Table) MarkdownResults(w io.Writer) error {
	b := bufio.NewWriter(w)
	t.markdownRows(b)
	t.markdownWarmUp(b)
	t.markdownSummary(b)
	t.markdownDifferences(b)
	return b.Flush()
}

// shownColumns are the columns of the per-dataset section: ours, and the
// paper-only columns that are variants (baseline methods are left out).
func (t *Table) shownColumns() []int {
	var out []int
	for j, c := range t.Columns {
		if c.Kind != Baseline {
			out = append(out, j)
		}
	}
	return out
}

func (t *Table) markdownRows(b *bufio.Writer) {
	cols := t.shownColumns()
	var heads []string
	for _, j := range cols {
		c := t.Columns[j]
		if c.Measured() {
			heads = append(heads, c.Name+" ours", c.Name+" paper", c.Name+" Δ")
		} else {
			heads = append(heads, c.Name+" paper")
		}
	}
	fmt.Fprintf(b, "## Per dataset\n\n")
	mdHeader(b, []string{"Dataset"}, heads)
	for _, r := range t.Rows {
		fmt.Fprintf(b, "| %s |", r.Dataset)
		for _, j := range cols {
			if t.Columns[j].Measured() {
				v := r.Ours[j]
				diff := math.NaN()
				if v.Runs > 0 {
					diff = v.Acc - r.Paper[j]
				}
				fmt.Fprintf(b, " %s | %s | %s |", v.Cell(), fmtAcc(r.Paper[j]), fmtDiff(diff))
			} else {
				fmt.Fprintf(b, " %s |", fmtAcc(r.Paper[j]))
			}
		}
		fmt.Fprintln(b)
	}
	fmt.Fprintln(b)
	if n := t.baselinesNote(); n != "" {
		fmt.Fprintf(b, "%s\n\n", n)
	}
}

// markdownWarmUp prints, when any run selected a dense warm-up model, how
// many did per column: for those runs the column's setting had no effect.
func (t *Table) markdownWarmUp(b *bufio.Writer) {
	counts, runs, any := t.WarmUpSelected()
	if !any {
		return
	}
	fmt.Fprintf(b, "**Runs that selected a dense warm-up model** (the column's post-warm-up setting had no effect on them):\n\n")
	var measured []string
	for _, c := range t.Columns {
		if c.Measured() {
			measured = append(measured, c.Name)
		}
	}
	mdHeader(b, nil, measured)
	fmt.Fprintf(b, "|")
	for j, c := range t.Columns {
		if c.Measured() {
			fmt.Fprintf(b, " %d of %d |", counts[j], runs[j])
		}
	}
	fmt.Fprintf(b, "\n\n")
}

// markdownDifferences prints each setting's paired difference from the
// default setting with its standard error, beside the paper's, and whether
// our trend (beyond two standard errors) has the paper's sign.
// MarkdownDifferences writes the section of the paired differences from
// the default setting alone (in MarkdownResults too), with the standard
// error between seeds when the runs have several.
func (t *Table) MarkdownDifferences(w io.Writer) error {
	b := bufio.NewWriter(w)
	t.markdownDifferences(b)
	return b.Flush()
}

func (t *Table) markdownDifferences(b *bufio.Writer) {
	ds := t.Differences()
	if len(ds) == 0 {
		return
	}
	// With several seeds the standard error between seeds is given apart
	// from the one pooling every run.
	seeds := slices.ContainsFunc(ds, func(d Difference) bool { return d.Seeds > 1 })
	fmt.Fprintf(b, "## Differences from %s\n\n", mdEscape(t.Default))
	paperNote := "the mean of its per-dataset differences over the same datasets"
	if t.Summary.PrintedOnly() {
		paperNote = "the paper prints this table as a summary only: the difference of its printed Avg. Acc, over all its datasets"
	}
	fmt.Fprintf(b, "Ours: mean paired difference in test accuracy over every (dataset, seed, fold) run, ± its standard error; a trend is called only beyond two standard errors. Paper: %s.\n\n", paperNote)
	if seeds {
		fmt.Fprintf(b, "Between seeds: the standard error of the per-seed mean differences, apart from the one over datasets × folds × seeds.\n\n")
		fmt.Fprintf(b, "| setting | ours − %s | between seeds | paper − %s | trend vs paper |\n|---|---:|---:|---:|---|\n", mdEscape(t.Default), mdEscape(t.Default))
	} else {
		fmt.Fprintf(b, "| setting | ours − %s | paper − %s | trend vs paper |\n|---|---:|---:|---|\n", mdEscape(t.Default), mdEscape(t.Default))
	}
	for _, d := range ds {
		p := d.PaperString()
		if seeds {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", mdEscape(d.Column), d, d.SeedString(), p, d.Verdict())
			continue
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", mdEscape(d.Column), d, p, d.Verdict())
	}
	fmt.Fprintln(b)
}

// printedPNote says, when the paper's printed p-values compare with another
// column than def (the baseline of ours), that they are left out; "" when
// they are shown or absent.
func printedPNote(printed *paper.SummaryTable, def string) string {
	if printed == nil || printed.Reference == def || len(printed.Rows[paper.MetricPValue]) == 0 {
		return ""
	}
	return fmt.Sprintf("The paper's printed p-values compare with %s over its own datasets, not with %s: they are left out here (notebook 10 recomputes them).\n\n",
		mdEscape(cmp.Or(printed.Reference, "a column it does not name")), mdEscape(def))
}

// summaryLine is one metric row of the summary.
type summaryLine struct {
	label string
	ours  func(s *stats.Summary, k int) string
	// printed is the paper.SummaryTable metric, "" for none.
	printed string
	// cdRanks marks the row of a critical-difference diagram's ranks:
	// printed for ours only, and only where the table asks (Table.CDRanks).
	cdRanks bool
}

// CDRanksLabel is the label of the summary row of average ranks with ties
// averaged (Table.CDRanks), the ranks a critical-difference diagram shows.
const CDRanksLabel = "Avg. Rank, ties averaged (the CD diagram's)"

// summaryLines are the metric rows of the summary; cdRanks includes the row
// of average ranks with ties averaged.
func summaryLines(ref string, cdRanks bool) []summaryLine {
	lines := []summaryLine{
		{label: "Avg. Acc", ours: func(s *stats.Summary, k int) string { return fmtAcc(s.AvgAcc[k]) }, printed: paper.MetricAvgAcc},
		{label: "Avg. Rank", ours: func(s *stats.Summary, k int) string { return fmtRank(s.AvgRank[k]) }, printed: paper.MetricAvgRank},
		{label: CDRanksLabel, ours: func(s *stats.Summary, k int) string { return fmtRank(s.AvgRankTiesAveraged[k]) }, cdRanks: true},
		{label: "Win", ours: func(s *stats.Summary, k int) string {
			if s.Wins == nil {
				return dash
			}
			return fmt.Sprint(s.Wins[k])
		}, printed: paper.MetricWin},
		{label: "P-value (paper's: ½ two-sided paired t-test vs " + ref + ")", ours: func(s *stats.Summary, k int) string { return fmtP(s.PaperP[k]) }, printed: paper.MetricPValue},
		{label: "Wilcoxon signed-rank p (two-sided, vs " + ref + ")", ours: func(s *stats.Summary, k int) string { return fmtP(s.WilcoxonP[k]) }},
	}
	if !cdRanks {
		lines = slices.DeleteFunc(lines, func(l summaryLine) bool { return l.cdRanks })
	}
	return lines
}

// ranksNote is the summary's clause on its tie rules: the paper's for
// Avg. Rank, and with cdRanks the one of the row of a critical-difference
// diagram's ranks.
func ranksNote(cdRanks bool) string {
	if !cdRanks {
		return "Ranks give tied methods the minimum rank (the paper's convention)"
	}
	return "Avg. Rank gives tied methods the minimum rank (the paper's convention); the row \"" + CDRanksLabel +
		"\" gives them the mean of the ranks they span, as the critical-difference diagram does (its Friedman and Wilcoxon–Holm tests need these ranks)"
}

// summaryValue returns the formatted value of column j in a summary over
// the given column indexes, or a dash.
func summaryValue(s *stats.Summary, cols []int, j int, f func(*stats.Summary, int) string) string {
	if s == nil {
		return dash
	}
	for k, c := range cols {
		if c == j {
			return f(s, k)
		}
	}
	return dash
}

func (t *Table) markdownSummary(b *bufio.Writer) {
	s := t.Summary
	fmt.Fprintf(b, "## Summary\n\n")
	fmt.Fprintf(b, "Ours over %d dataset(s)", len(s.Datasets))
	if len(s.Datasets) > 0 && len(s.Datasets) <= 30 {
		fmt.Fprintf(b, " (%s)", strings.Join(s.Datasets, ", "))
	}
	paperRows := fmt.Sprintf("the paper's per-dataset figures on the same %d dataset(s)", len(s.PaperDatasets))
	if s.PrintedOnly() {
		paperRows = "the paper gives no per-dataset figures for this table"
	}
	fmt.Fprintf(b, "; %s; the paper's printed summary over all its datasets. %s; accuracies are rounded to 4 decimals first.\n\n", paperRows, ranksNote(t.CDRanks))
	if len(s.Excluded) > 0 {
		fmt.Fprintf(b, "Left out of our summary (%d): %s.\n\n", len(s.Excluded), mdEscape(strings.Join(s.Excluded, "; ")))
	}
	var names []string
	for _, c := range t.Columns {
		names = append(names, c.Name)
	}
	mdHeader(b, []string{""}, names)
	fromPaper := map[int]bool{}
	for k, j := range s.OursColumns {
		fromPaper[j] = s.FromPaper[k]
	}
	printedOther := s.Printed != nil && s.Printed.Reference != t.Default
	for _, line := range summaryLines(t.Default, t.CDRanks) {
		fmt.Fprintf(b, "| %s — ours |", mdEscape(line.label))
		for j := range t.Columns {
			v := summaryValue(s.Ours, s.OursColumns, j, line.ours)
			if fromPaper[j] && v != dash {
				v += "†"
			}
			fmt.Fprintf(b, " %s |", v)
		}
		fmt.Fprintln(b)
		if s.Paper != nil && !line.cdRanks {
			fmt.Fprintf(b, "| %s — paper, same datasets |", mdEscape(line.label))
			for j := range t.Columns {
				fmt.Fprintf(b, " %s |", summaryValue(s.Paper, s.PaperColumns, j, line.ours))
			}
			fmt.Fprintln(b)
		}
		if line.printed == paper.MetricPValue && printedOther {
			continue // compares with another column: noted below
		}
		if line.printed != "" && s.Printed != nil {
			if _, ok := s.Printed.Rows[line.printed]; ok {
				fmt.Fprintf(b, "| %s — paper, printed |", mdEscape(line.label))
				for _, c := range t.Columns {
					v, ok := s.Printed.Value(line.printed, c.Name)
					if !ok {
						v = dash
					}
					fmt.Fprintf(b, " %s |", mdEscape(v))
				}
				fmt.Fprintln(b)
			}
		}
	}
	fmt.Fprintln(b)
	if len(fromPaper) > 0 {
		for _, v := range fromPaper {
			if v {
				fmt.Fprintf(b, "† computed with the paper's per-dataset figures: this project does not run that column.\n\n")
				break
			}
		}
	}
	b.WriteString(printedPNote(s.Printed, t.Default))
	for _, p := range s.Problems {
		fmt.Fprintf(b, "- %s\n", mdEscape(p))
	}
	if len(s.Problems) > 0 {
		fmt.Fprintln(b)
	}
}

func (t *Table) markdownParams(b *bufio.Writer) {
	p := t.Params
	fmt.Fprintf(b, "## Parameters and inference time\n\n")
	fmt.Fprintf(b, "| Dataset | # Parameters ours | # Parameters paper | Inference (s) ours | Inference (s) paper |\n|---|---:|---:|---:|---:|\n")
	for _, r := range p.Rows {
		params := dash
		if !math.IsNaN(r.Params) {
			params = fmt.Sprintf("%.1f K", r.Params/1000)
		}
		inf := dash
		if !math.IsNaN(r.Inference) {
			inf = fmt.Sprintf("%.3f", r.Inference)
		}
		pinf := r.PaperInference
		if pinf == "" {
			pinf = dash
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", r.Dataset, params, p.PaperParams, inf, pinf)
	}
	fmt.Fprintf(b, "\nOur inference time is the time to evaluate one fold's test split (≈20%% of the dataset) with the selected model on the machine that ran the sweep; the paper does not say on which dataset its parameter count was taken.\n\n")
	if len(p.Baselines) > 0 {
		var names []string
		for m := range p.Baselines {
			names = append(names, m)
		}
		sort.Strings(names)
		fmt.Fprintf(b, "The paper's other methods: ")
		var parts []string
		for _, m := range names {
			var kv []string
			var metrics []string
			for k := range p.Baselines[m] {
				metrics = append(metrics, k)
			}
			sort.Strings(metrics)
			for _, k := range metrics {
				kv = append(kv, k+" "+p.Baselines[m][k])
			}
			parts = append(parts, fmt.Sprintf("%s (%s)", m, strings.Join(kv, ", ")))
		}
		fmt.Fprintf(b, "%s.\n\n", mdEscape(strings.Join(parts, "; ")))
	}
}

// markdownMissing lists the runs without an ok record: those a sweep still
// has to make, with what to do for each state, then apart the runs recorded
// invalid, which no sweep can run.
func (t *Table) markdownMissing(b *bufio.Writer) {
	fmt.Fprintf(b, "## Missing runs\n\n")
	if len(t.Missing) == 0 {
		if len(t.Invalid) > 0 {
			fmt.Fprintf(b, "None: every expected run has an ok record or is invalid (below).\n\n")
		} else {
			fmt.Fprintf(b, "None: every expected run has an ok record.\n\n")
		}
	} else {
		counts := map[sweep.CellState]int{}
		for _, m := range t.Missing {
			counts[m.State]++
		}
		var parts []string
		for _, st := range sweep.States() {
			if counts[st] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
			}
		}
		fmt.Fprintf(b, "%d expected run(s) have no ok record (%s); `softshape status` lists them too. %s\n\n",
			len(t.Missing), strings.Join(parts, ", "), missingAdvice(counts))
		for i, m := range t.Missing {
			if i == MaxMarkdownMissing {
				fmt.Fprintf(b, "- … and %d more (the CSV output lists all)\n", len(t.Missing)-i)
				break
			}
			detail := ""
			if m.Detail != "" {
				detail = ": " + m.Detail
			}
			fmt.Fprintf(b, "- %s · %s · seed %d fold %d — %s%s\n", m.Key.Dataset, mdEscape(m.Key.Variant), m.Key.Seed, m.Key.Fold, m.State, mdEscape(detail))
		}
		fmt.Fprintln(b)
	}
	if len(t.Invalid) > 0 {
		t.markdownInvalid(b)
	}
}

// missingAdvice says what makes the runs of each state in counts.
func missingAdvice(counts map[sweep.CellState]int) string {
	var say []string
	if counts[sweep.StateMissing] > 0 {
		say = append(say, "`softshape sweep` runs the missing ones")
	}
	if counts[sweep.StateRunning] > 0 {
		say = append(say, "the running ones are being trained by the processes named")
	}
	if counts[sweep.StateFailed] > 0 {
		say = append(say, "`softshape sweep -retry-failed` runs the failed ones again")
	}
	if counts[sweep.StateCorrupt] > 0 {
		say = append(say, "a sweep never overwrites the corrupt records: move each aside as it says, and `softshape sweep` runs its cell again")
	}
	if len(say) == 0 {
		return ""
	}
	s := strings.Join(say, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// markdownInvalid lists the runs recorded invalid, one line per dataset,
// variant, seed and reason.
func (t *Table) markdownInvalid(b *bufio.Writer) {
	fmt.Fprintf(b, "## Invalid runs (not runnable)\n\n")
	fmt.Fprintf(b, "%d expected run(s) are recorded invalid: the dataset rejects their configuration, so no sweep can run them; "+
		"they are not missing.\n\n", len(t.Invalid))
	type group struct {
		m     MissingRun
		folds []int
	}
	var groups []*group
	index := map[string]*group{}
	for _, m := range t.Invalid {
		id := fmt.Sprintf("%s\x00%s\x00%d\x00%s", m.Key.Dataset, m.Key.Variant, m.Key.Seed, m.Detail)
		g, ok := index[id]
		if !ok {
			g = &group{m: m}
			index[id] = g
			groups = append(groups, g)
		}
		g.folds = append(g.folds, m.Key.Fold)
	}
	for i, g := range groups {
		if i == MaxMarkdownMissing {
			fmt.Fprintf(b, "- … and %d more (the CSV output lists all)\n", len(groups)-i)
			break
		}
		folds := "fold"
		if len(g.folds) > 1 {
			folds = "folds"
		}
		fmt.Fprintf(b, "- %s · %s · seed %d %s %s — not runnable: %s\n", g.m.Key.Dataset, mdEscape(g.m.Key.Variant), g.m.Key.Seed,
			folds, fmtFolds(g.folds), mdEscape(g.m.Detail))
	}
	fmt.Fprintln(b)
}
