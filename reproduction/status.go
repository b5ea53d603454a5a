package reproduction

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/tables"
)

// RunSweeps is the script that runs (or resumes) every sweep of the
// reproduction.
const RunSweeps = "reproduction/run-sweeps.sh"

// RenderStatus returns the status block of docs/reproduction.md, markers
// included: per paper table and preset, how many planned runs are recorded,
// their training wall time, the one-line verdict of the records (the
// paper's claims about the table, or each setting's difference from the
// default), the paper's own differences on the same datasets, and the gap
// between our average accuracy and the paper's.
func RenderStatus(entries []Entry) string {
	var b strings.Builder
	b.WriteString(StatusBlock.Begin + "\n\n")
	b.WriteString("| paper table | preset | runs | training wall time | ours: verdict (pp ± SE) | the paper's, same datasets (pp) | Avg. Acc, ours − paper |\n")
	b.WriteString("|---|---|---|---:|---|---|---|\n")
	for _, table := range append(slices.Clone(Tables), Table1, LightTSShapeformer) {
		for _, e := range entries {
			if e.Table != table {
				continue
			}
			ours, paper := verdictLine(e)
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", rowTitle(e), e.Preset, runsCell(e), wallCell(e), ours, paper, gapCell(e))
		}
	}
	fmt.Fprintf(&b, "\nRuns: recorded of planned (%d datasets × %d folds × %s per setting; Table 1 and the LightTS/Shapeformer table: the datasets counted in the cell, one setting; invalid: settings a dataset cannot take, recorded without training; "+
		"reused: the same computation as another table's run, copied from its record, its time counted there). "+
		"Verdicts: each setting's paired difference from the table's default (or the paper's claims about the table) over every (dataset, seed, fold) run, "+
		"a trend only beyond two standard errors; the paper's: the mean of its per-dataset differences over the same datasets. "+
		"Avg. Acc, ours − paper: the range over settings of our average accuracy minus the paper's over the datasets of the summary rows. "+
		"%sDetails, per table, in [Results](#results).\n\n", len(Datasets), sweep.NumFolds, seedsText(Seeds), moreSeedsNote(entries))
	b.WriteString(StatusBlock.End)
	return b.String()
}

// moreSeedsNote says how the rows of more seeds (MoreSeeds) read, when
// there are some.
func moreSeedsNote(entries []Entry) string {
	if !slices.ContainsFunc(entries, Entry.Extra) {
		return ""
	}
	return fmt.Sprintf("A row of more seeds counts the runs and wall time of the seeds it adds; its verdict and average accuracy pool them with %s's runs, "+
		"the standard error between seeds given apart. ", seedsText(Seeds))
}

// shortTitle is "Table 5: stride q" for the status table: the paper's
// title up to its first colon, with the parameter.
func shortTitle(e Entry) string {
	t := titleOf(e)
	head, rest, ok := strings.Cut(t, ":")
	if !ok {
		return t
	}
	head = strings.TrimSuffix(strings.TrimSpace(head), " (appendix version)")
	rest = strings.TrimSpace(rest)
	if i := strings.Index(rest, " on "); i > 0 {
		rest = rest[:i]
	}
	return head + ": " + rest
}

// tableLabel is "Table 5", the paper table's number alone; an appendix
// study, which has no number, is named whole ("Appendix: loss weight λ").
func tableLabel(table string) string {
	short := shortTitle(Entry{Table: table})
	label, _, _ := strings.Cut(short, ":")
	if !strings.HasPrefix(label, "Table") {
		return short
	}
	return label
}

// runsCell is "complete: 180", "12 of 150 (partial)" or "not started", with
// the invalid and reused runs.
func runsCell(e Entry) string {
	var s string
	switch {
	case e.Recorded == 0:
		return fmt.Sprintf("not started: 0 of %d", e.Expected)
	case e.Complete():
		s = fmt.Sprintf("complete: %d", e.Recorded)
	default:
		s = fmt.Sprintf("**%d of %d (partial)**", e.Recorded, e.Expected)
	}
	if ds := PlanDatasets(e.Table); !slices.Equal(ds, Datasets) {
		s += fmt.Sprintf(", %d of %d datasets", len(e.DatasetsDone), len(ds))
	}
	var extra []string
	if e.Invalid > 0 {
		extra = append(extra, fmt.Sprintf("%d invalid", e.Invalid))
	}
	if e.Reused > 0 {
		extra = append(extra, fmt.Sprintf("%d reused", e.Reused))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

func wallCell(e Entry) string {
	if e.Recorded == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f h", e.WallSeconds/3600)
}

// verdictLine is the one-line verdict of e's runs and the paper's
// differences beside it: the claims about the table where the paper makes
// some, else each setting's difference from the default.
func verdictLine(e Entry) (ours, paper string) {
	if e.Built == nil {
		return fmt.Sprintf("not started: `%s` runs it", runCommand(e)), "—"
	}
	if !slices.Contains(Tables, e.Table) {
		ours, paper = rankLine(e)
	} else if cs := claimsOf(e.Table); len(cs) > 0 {
		ours, paper = claimsLine(e, cs)
	} else {
		ours, paper = differencesLine(e.Built)
	}
	if !e.Complete() {
		ours = fmt.Sprintf("partial (%d of %d runs): %s", e.Recorded, e.Expected, ours)
	}
	return ours, paper
}

// runCommand is the command that runs an entry's sweeps: RunSweeps, with
// the table, preset and seeds for an entry of MoreSeeds; Table 1's sweep
// for it and the table read from its runs.
func runCommand(e Entry) string {
	if SourceTable(e.Table) == Table1 {
		return SweepCommand(e.Preset)
	}
	if !e.Extra() {
		return RunSweeps
	}
	seeds := make([]string, len(e.Seeds))
	for i, sd := range e.Seeds {
		seeds[i] = fmt.Sprint(sd)
	}
	return fmt.Sprintf("SEEDS=%s TABLES=%s PRESETS=%s %s", strings.Join(seeds, ","), e.Table, e.Preset, RunSweeps)
}

// claimsLine gives each claim's difference and verdict, and the paper's.
func claimsLine(e Entry, cs []Claim) (ours, paper string) {
	var o, p []string
	for _, c := range cs {
		d, ok := claimDifference(e, c)
		if !ok || d.N == 0 {
			o = append(o, c.Name()+": no paired runs yet")
			continue
		}
		verdict, _, _ := strings.Cut(c.Outcome(d), ":")
		o = append(o, fmt.Sprintf("%s %s: %s", c.Name(), ppSESeeds(d), verdict))
		if !math.IsNaN(d.Paper) {
			p = append(p, fmt.Sprintf("%s %s", c.Name(), pp(d.Paper)))
		}
	}
	return strings.Join(o, "; "), paperCell(p)
}

// differencesLine says which settings differ from the default beyond two
// standard errors, or that none does and which comes closest; the paper's
// differences are those of the same settings, or their range.
func differencesLine(t *tables.Table) (ours, paper string) {
	ds := slices.DeleteFunc(t.Differences(), func(d tables.Difference) bool { return d.N < 2 })
	if len(ds) == 0 {
		return fmt.Sprintf("no setting paired with %s yet", t.Default), "—"
	}
	// A table the paper prints as a summary only: its differences are those
	// of the printed averages, over all its datasets (tables.Difference).
	printed := ""
	if t.Summary.PrintedOnly() {
		printed = printedNote
	}
	var trends, within, p []string
	for _, d := range ds {
		if d.Trend() == 0 {
			within = append(within, d.Column)
			continue
		}
		trends = append(trends, fmt.Sprintf("%s %s", d.Column, ppSESeeds(d)))
		if !math.IsNaN(d.Paper) {
			p = append(p, fmt.Sprintf("%s %s", d.Column, pp(d.Paper)))
		}
	}
	if len(trends) == 0 {
		closest := ds[0]
		for _, d := range ds[1:] {
			if math.Abs(d.Mean)/d.SE > math.Abs(closest.Mean)/closest.SE {
				closest = d
			}
		}
		ours = fmt.Sprintf("no setting differs from %s beyond 2 SE (closest: %s %s)", t.Default, closest.Column, ppSESeeds(closest))
		var lo, hi = math.Inf(1), math.Inf(-1)
		for _, d := range ds {
			if !math.IsNaN(d.Paper) {
				lo, hi = math.Min(lo, d.Paper), math.Max(hi, d.Paper)
			}
		}
		if math.IsInf(lo, 1) {
			return ours, "—"
		}
		if lo == hi {
			return ours, fmt.Sprintf("%s pp%s", pp(lo), printed)
		}
		return ours, fmt.Sprintf("%s to %s pp, every setting − %s%s", pp(lo), pp(hi), t.Default, printed)
	}
	ours = fmt.Sprintf("beyond 2 SE from %s: %s", t.Default, strings.Join(trends, ", "))
	if len(within) > 0 {
		ours += "; within 2 SE: " + strings.Join(within, ", ")
	}
	if len(p) == 0 {
		return ours, paperCell(p)
	}
	return ours, paperCell(p) + printed
}

// printedNote follows the paper's differences of a table it prints as a
// summary only (the appendix's studies).
const printedNote = " (its printed Avg. Acc, over all its datasets)"

func paperCell(p []string) string {
	if len(p) == 0 {
		return "—"
	}
	return strings.Join(p, "; ") + " pp"
}

// gapCell is the range over settings of our average accuracy minus the
// paper's, over the datasets of the summary rows (tables.Summary: every
// setting complete and valid), in percentage points.
func gapCell(e Entry) string {
	if e.Built == nil {
		return "—"
	}
	s := e.Built.Summary
	if s.Ours == nil || s.Paper == nil {
		return "—"
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for k, j := range s.OursColumns {
		if s.FromPaper[k] {
			continue
		}
		if m := slices.Index(s.PaperColumns, j); m >= 0 {
			g := s.Ours.AvgAcc[k] - s.Paper.AvgAcc[m]
			lo, hi = math.Min(lo, g), math.Max(hi, g)
		}
	}
	if math.IsInf(lo, 1) {
		return "—"
	}
	n := len(s.Datasets)
	return fmt.Sprintf("%s to %s pp (%d dataset%s)", pp(lo), pp(hi), n, map[bool]string{true: "", false: "s"}[n == 1])
}

// seedsText is "seed 42" or "seeds 42, 0, 1".
func seedsText(seeds []int64) string {
	if len(seeds) == 1 {
		return fmt.Sprintf("seed %d", seeds[0])
	}
	s := make([]string, len(seeds))
	for i, sd := range seeds {
		s[i] = fmt.Sprint(sd)
	}
	return "seeds " + strings.Join(s, ", ")
}

// rankLine is the one-line verdict of a table of methods (Table 1, the
// LightTS/Shapeformer table): SoftShape's place by average rank among the
// columns of its summary over its datasets, ours and the paper's figures.
func rankLine(e Entry) (ours, paper string) {
	s := e.Built.Summary
	if s.Ours == nil {
		return "no dataset complete yet", "—"
	}
	line := func(sum *stats.Summary, n int) string {
		ref := slices.Index(sum.Methods, e.Built.Default)
		if ref < 0 {
			return "—"
		}
		return fmt.Sprintf("SoftShape ranks %s of %d (Avg. Rank %.2f) over %d dataset(s)", ordinal(place(sum.AvgRank, ref)), len(sum.Methods), sum.AvgRank[ref], n)
	}
	ours = line(s.Ours, len(s.Datasets)) + ", the baselines the paper's numbers"
	paper = "—"
	if s.Paper != nil {
		paper = line(s.Paper, len(s.PaperDatasets))
	}
	return ours, paper
}
