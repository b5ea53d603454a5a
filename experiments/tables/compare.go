package tables

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/paper"
)

// Comparison is one paper table measured under two protocol presets, beside
// the paper: per dataset the paper's accuracy and ours under each preset;
// summary rows over the datasets complete under both presets, where every
// p-value and difference compares with the table's default setting; and, per
// column, the paired difference of the two presets (reference_compat −
// reference_fresh: the fold leak).
type Comparison struct {
	// Name and Title are the paper table's.
	Name, Title string
	// Labels name the two presets; Tables are the tables built from each
	// one's runs (nil where none is recorded).
	Labels [2]string
	Tables [2]*Table
	// Between names Tables[0] − Tables[1] in the Markdown (e.g. "fold
	// leak"); "" names it by the labels only.
	Between string
	// Intro is printed under the title (e.g. what the presets are).
	Intro string
	// Recorded and Expected count each preset's recorded and planned runs
	// (Expected 0: not known). Fewer recorded than planned labels the
	// comparison partial.
	Recorded, Expected [2]int
	// Datasets are the rows, Columns the columns shown (the paper's baseline
	// methods are left out), Default the baseline setting of p-values and
	// differences.
	Datasets []string
	Columns  []string
	Default  string
	// SummaryColumns are the columns measured under both presets, Common the
	// datasets whose every summary column is complete and valid under both:
	// the summary rows are over Common × SummaryColumns.
	SummaryColumns []string
	Common         []string
	// Summaries are ours under each preset (0, 1) and the paper's (2) over
	// Common and SummaryColumns; nil when not computable, Problems say why.
	// CommonAcc holds the accuracies they summarise (rows Common, columns
	// SummaryColumns, rounded as the paper prints them), for figures that
	// must show the summary rows' numbers.
	Summaries [3]*stats.Summary
	CommonAcc [3][][]float64
	Problems  []string
	// Differences are each preset's paired differences from Default
	// (Table.Differences: every paired run, not only Common's).
	Differences [2][]Difference
	// BetweenAll and BetweenLater are, per column of ours under both presets,
	// the paired difference Tables[0] − Tables[1] over every fold and over
	// folds 2–5.
	BetweenAll, BetweenLater []Difference
	// Printed is the paper's printed summary (over all its datasets).
	Printed *paper.SummaryTable
	// CDRanks adds to the summary the rows of ours' average ranks with ties
	// averaged under each preset (Table.CDRanks), the ranks of the
	// critical-difference diagrams drawn from Summaries and CommonAcc.
	CDRanks bool
}

// Compare builds the comparison of one table under two presets: tabs hold
// each preset's table (nil for a preset without runs), order the datasets in
// the order to show them (others follow in their tables' order).
func Compare(labels [2]string, tabs [2]*Table, order []string) (*Comparison, error) {
	first := tabs[0]
	if first == nil {
		first = tabs[1]
	}
	if first == nil {
		return nil, fmt.Errorf("no run recorded under %s or %s", labels[0], labels[1])
	}
	c := &Comparison{Name: first.Name, Title: first.Title, Labels: labels, Tables: tabs, Default: first.Default}
	for _, t := range tabs {
		if t != nil && t.Summary.Printed != nil {
			c.Printed = t.Summary.Printed
		}
	}
	for _, col := range first.Columns {
		if col.Kind != Baseline {
			c.Columns = append(c.Columns, col.Name)
		}
	}
	for _, ds := range order {
		if _, _, ok := c.paperRow(ds); ok {
			c.Datasets = append(c.Datasets, ds)
		}
	}
	for _, t := range tabs {
		if t == nil {
			continue
		}
		for _, r := range t.Rows {
			if !slices.Contains(c.Datasets, r.Dataset) {
				c.Datasets = append(c.Datasets, r.Dataset)
			}
		}
	}
	if tabs[0] != nil && tabs[1] != nil {
		for _, name := range c.Columns {
			if measured(tabs[0], name) && measured(tabs[1], name) {
				c.SummaryColumns = append(c.SummaryColumns, name)
			}
		}
	}
	for i, t := range tabs {
		if t != nil {
			c.Differences[i] = t.Differences()
		}
	}
	c.summarize()
	c.between()
	return c, nil
}

// measured reports whether t has our runs of the named column.
func measured(t *Table, name string) bool {
	j := t.columnIndex(name)
	return j >= 0 && t.Columns[j].Measured()
}

// columnIndex is the index of the named column, -1 without it.
func (t *Table) columnIndex(name string) int {
	return slices.IndexFunc(t.Columns, func(c Column) bool { return c.Name == name })
}

// row returns the row of a dataset.
func (t *Table) row(dataset string) (Row, bool) {
	i := slices.IndexFunc(t.Rows, func(r Row) bool { return r.Dataset == dataset })
	if i < 0 {
		return Row{}, false
	}
	return t.Rows[i], true
}

// paperRow returns a table holding the dataset (for the paper's figures,
// which are the same in both) and its row.
func (c *Comparison) paperRow(dataset string) (*Table, Row, bool) {
	for _, t := range c.Tables {
		if t == nil {
			continue
		}
		if r, ok := t.row(dataset); ok {
			return t, r, true
		}
	}
	return nil, Row{}, false
}

// value is our value of a dataset and column under preset i; ok is false
// when that preset has no such row or column.
func (c *Comparison) value(i int, dataset, column string) (Value, bool) {
	t := c.Tables[i]
	if t == nil {
		return Value{}, false
	}
	r, ok := t.row(dataset)
	j := t.columnIndex(column)
	if !ok || j < 0 {
		return Value{}, false
	}
	return r.Ours[j], true
}

// paperValue is the paper's accuracy of a dataset and column, NaN without one.
func (c *Comparison) paperValue(dataset, column string) float64 {
	t, r, ok := c.paperRow(dataset)
	if !ok {
		return math.NaN()
	}
	j := t.columnIndex(column)
	if j < 0 {
		return math.NaN()
	}
	return r.Paper[j]
}

// summarize fills Common and Summaries.
func (c *Comparison) summarize() {
	if len(c.SummaryColumns) == 0 {
		c.Problems = append(c.Problems, "no column is measured under both presets yet")
		return
	}
	for _, ds := range c.Datasets {
		ok := true
		for _, col := range c.SummaryColumns {
			for i := range c.Tables {
				v, found := c.value(i, ds, col)
				ok = ok && found && v.Invalid == "" && v.Complete()
			}
		}
		if ok {
			c.Common = append(c.Common, ds)
		}
	}
	if len(c.Common) == 0 {
		c.Problems = append(c.Problems, "no dataset has every column complete and valid under both presets yet")
		return
	}
	paperOK := true
	acc := [3][][]float64{}
	for _, ds := range c.Common {
		var row [3][]float64
		for _, col := range c.SummaryColumns {
			for i := range c.Tables {
				v, _ := c.value(i, ds, col)
				row[i] = append(row[i], round4(v.Acc))
			}
			p := c.paperValue(ds, col)
			paperOK = paperOK && !math.IsNaN(p)
			row[2] = append(row[2], p)
		}
		for i := range row {
			acc[i] = append(acc[i], row[i])
		}
	}
	c.CommonAcc = acc
	names := [3]string{"ours, " + c.Labels[0], "ours, " + c.Labels[1], "paper"}
	for i := range acc {
		if i == 2 && !paperOK {
			c.Problems = append(c.Problems, "paper: no per-dataset figures for some of these datasets and columns")
			continue
		}
		s, problem := summarizeMatrix(c.SummaryColumns, acc[i], c.Default)
		c.Summaries[i] = s
		if problem != "" {
			c.Problems = append(c.Problems, names[i]+": "+problem)
		}
	}
}

// between fills BetweenAll and BetweenLater.
func (c *Comparison) between() {
	a, b := c.Tables[0], c.Tables[1]
	if a == nil || b == nil {
		return
	}
	for _, col := range c.SummaryColumns {
		all := PairRuns(a, a.columnIndex(col), b, b.columnIndex(col))
		later := slices.DeleteFunc(slices.Clone(all), func(p Pair) bool { return p.Fold <= 1 })
		c.BetweenAll = append(c.BetweenAll, DifferenceOf(col, all))
		c.BetweenLater = append(c.BetweenLater, DifferenceOf(col, later))
	}
}

// Partial reports whether a preset has fewer runs recorded than planned.
func (c *Comparison) Partial() bool {
	for i := range c.Tables {
		if c.Expected[i] > 0 && c.Recorded[i] < c.Expected[i] {
			return true
		}
	}
	return false
}

// betweenName is the name of Tables[0] − Tables[1] in the Markdown.
func (c *Comparison) betweenName() string {
	d := c.Labels[0] + " − " + c.Labels[1]
	if c.Between == "" {
		return d
	}
	return c.Between + ": " + d
}

// Markdown writes the comparison as Markdown: title, intro, progress, the
// per-dataset rows (paper, then ours under each preset), the summary rows
// and the paired differences between the presets.
func (c *Comparison) Markdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# %s — the paper, ours under %s and ours under %s\n\n", OnDatasets(c.Title, len(c.Datasets)), c.Labels[0], c.Labels[1])
	if c.Intro != "" {
		fmt.Fprintf(b, "%s\n\n", c.Intro)
	}
	c.markdownProgress(b)
	c.markdownRows(b)
	c.markdownSummary(b)
	return b.Flush()
}

func (c *Comparison) markdownProgress(b *bufio.Writer) {
	var runs []string
	for i, t := range c.Tables {
		switch {
		case t == nil:
			runs = append(runs, fmt.Sprintf("%s: no run recorded", c.Labels[i]))
		case c.Expected[i] > 0:
			runs = append(runs, fmt.Sprintf("%s: %d of %d planned runs recorded (folds %s, seeds %s, `%s`)", c.Labels[i], c.Recorded[i], c.Expected[i], fmtFolds(t.Folds), fmtSeeds(t.Seeds), t.Root))
		default:
			runs = append(runs, fmt.Sprintf("%s: folds %s, seeds %s (`%s`)", c.Labels[i], fmtFolds(t.Folds), fmtSeeds(t.Seeds), t.Root))
		}
	}
	if c.Partial() {
		b.WriteString("**Partial — not a reproduction of this table yet.** ")
	}
	fmt.Fprintf(b, "Ours: mean test accuracy over the recorded runs; %s. A cell marked (n/m) averages n of its m runs.\n\n", strings.Join(runs, "; "))
}

func (c *Comparison) markdownRows(b *bufio.Writer) {
	fmt.Fprintf(b, "## Per dataset\n\n")
	mdHeader(b, []string{"Dataset", ""}, c.Columns)
	for _, ds := range c.Datasets {
		fmt.Fprintf(b, "| %s | paper |", ds)
		for _, col := range c.Columns {
			fmt.Fprintf(b, " %s |", fmtAcc(c.paperValue(ds, col)))
		}
		fmt.Fprintln(b)
		for i := range c.Tables {
			fmt.Fprintf(b, "| | ours, %s |", c.Labels[i])
			for _, col := range c.Columns {
				v, ok := c.value(i, ds, col)
				cell := dash
				if ok {
					cell = v.Cell()
				}
				fmt.Fprintf(b, " %s |", cell)
			}
			fmt.Fprintln(b)
		}
	}
	fmt.Fprintln(b)
}

// invalidNote says, when some cells of the comparison are invalid (a
// setting a dataset cannot take), over which datasets its rows run: the
// Avg., Rank, Win and p-value rows over the datasets valid in every
// column, each paired difference over those where both its settings are
// valid, its count in its cell. "" when no cell is invalid.
func (c *Comparison) invalidNote() string {
	invalid := map[string]bool{}
	for _, t := range c.Tables {
		if t == nil {
			continue
		}
		for _, m := range t.Invalid {
			invalid[m.Key.Dataset] = true
		}
	}
	if len(invalid) == 0 {
		return ""
	}
	return fmt.Sprintf(" **Invalid cells** (a setting a dataset cannot take; the per-dataset rows say why) leave %d of the %d datasets (%s) out of the rows over datasets complete and valid, "+
		"so those rows run over %d dataset(s), while each paired difference runs over the datasets where both of its settings are valid (counted in its cell): "+
		"the two kinds of rows can differ for one setting because they average different datasets.",
		len(invalid), len(c.Datasets), strings.Join(slices.Sorted(maps.Keys(invalid)), ", "), len(c.Common))
}

func (c *Comparison) markdownSummary(b *bufio.Writer) {
	fmt.Fprintf(b, "## Summary\n\n")
	fmt.Fprintf(b, "Over the %d dataset(s) complete and valid under both presets", len(c.Common))
	if len(c.Common) > 0 {
		fmt.Fprintf(b, " (%s)", strings.Join(c.Common, ", "))
	}
	fmt.Fprintf(b, ", for the paper (its per-dataset figures) and ours; \"paper, printed\" is its summary over all its datasets. %s. "+
		"**Every p-value and difference compares with %s**, the paper's default setting. The differences (ours − %s, and %s) are over every paired run (dataset, seed, fold), ± the standard error; a trend is called only beyond two standard errors.%s\n\n",
		ranksNote(c.CDRanks), mdEscape(c.Default), mdEscape(c.Default), c.betweenName(), c.invalidNote())
	cols := c.Columns
	mdHeader(b, []string{""}, cols)
	// row writes one row, unless it would hold no value.
	row := func(label string, cell func(col string) string) bool {
		cells := make([]string, len(cols))
		empty := true
		for k, col := range cols {
			cells[k] = cell(col)
			empty = empty && cells[k] == dash
		}
		if empty {
			return false
		}
		fmt.Fprintf(b, "| %s | %s |\n", mdEscape(label), strings.Join(cells, " | "))
		return true
	}
	sources := []struct {
		name  string
		s     *stats.Summary
		paper bool
	}{{"paper, same datasets", c.Summaries[2], true}, {"ours, " + c.Labels[0], c.Summaries[0], false}, {"ours, " + c.Labels[1], c.Summaries[1], false}}
	for _, line := range summaryLines(c.Default, c.CDRanks) {
		for _, src := range sources {
			if line.cdRanks && src.paper {
				continue // no diagram is drawn of the paper's figures over these datasets
			}
			s := src.s
			row(line.label+" — "+src.name, func(col string) string {
				if s == nil {
					return dash
				}
				k := slices.Index(s.Methods, col)
				if k < 0 {
					return dash
				}
				return line.ours(s, k)
			})
		}
		printedOK := line.printed != "" && c.Printed != nil && len(c.Printed.Rows[line.printed]) > 0 &&
			(line.printed != paper.MetricPValue || c.Printed.Reference == c.Default)
		if printedOK {
			row(line.label+" — paper, printed", func(col string) string {
				if v, ok := c.Printed.Value(line.printed, col); ok && v != "" {
					return mdEscape(v)
				}
				return dash
			})
		}
	}
	for i := range c.Tables {
		if t := c.Tables[i]; t != nil {
			if counts, runs, any := t.WarmUpSelected(); any {
				row("runs that selected a dense warm-up model — ours, "+c.Labels[i], func(col string) string {
					j := t.columnIndex(col)
					if j < 0 || !t.Columns[j].Measured() {
						return dash
					}
					return fmt.Sprintf("%d of %d", counts[j], runs[j])
				})
			}
		}
		diffs := c.Differences[i]
		if len(diffs) == 0 {
			continue
		}
		byCol := func(col string) (Difference, bool) {
			k := slices.IndexFunc(diffs, func(d Difference) bool { return d.Column == col })
			if k < 0 {
				return Difference{}, false
			}
			return diffs[k], true
		}
		shown := row("ours − "+c.Default+" (paired runs ± SE, datasets paired) — "+c.Labels[i], func(col string) string {
			if d, ok := byCol(col); ok {
				return d.DatasetsString()
			}
			return dash
		})
		if !shown {
			continue
		}
		row("trend vs the paper — "+c.Labels[i], func(col string) string {
			if d, ok := byCol(col); ok {
				return d.Verdict()
			}
			return dash
		})
	}
	if i := slices.IndexFunc(c.Differences[:], func(d []Difference) bool { return len(d) > 0 }); i >= 0 {
		diffs := c.Differences[i]
		where := "on the datasets of ours, " + c.Labels[i]
		if c.Tables[i] != nil && c.Tables[i].Summary.PrintedOnly() {
			where = "its printed Avg. Acc, over all its datasets"
		}
		row("paper − "+c.Default+" ("+where+")", func(col string) string {
			k := slices.IndexFunc(diffs, func(d Difference) bool { return d.Column == col })
			if k < 0 {
				return dash
			}
			return diffs[k].PaperString()
		})
	}
	for _, bw := range []struct {
		label string
		ds    []Difference
	}{{"**" + c.betweenName() + "**, all folds", c.BetweenAll}, {c.betweenName() + ", folds 2–5", c.BetweenLater}} {
		if len(bw.ds) == 0 {
			continue
		}
		row(bw.label, func(col string) string {
			k := slices.IndexFunc(bw.ds, func(d Difference) bool { return d.Column == col })
			if k < 0 {
				return dash
			}
			return bw.ds[k].String()
		})
	}
	fmt.Fprintln(b)
	b.WriteString(printedPNote(c.Printed, c.Default))
	for _, p := range c.Problems {
		fmt.Fprintf(b, "- %s\n", mdEscape(p))
	}
	if len(c.Problems) > 0 {
		fmt.Fprintln(b)
	}
	var missing, invalid []string
	for i, t := range c.Tables {
		if t != nil && len(t.Missing) > 0 {
			missing = append(missing, fmt.Sprintf("%d under %s", len(t.Missing), c.Labels[i]))
		}
		if t != nil && len(t.Invalid) > 0 {
			invalid = append(invalid, fmt.Sprintf("%d under %s", len(t.Invalid), c.Labels[i]))
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(b, "Runs of the recorded sweeps without an ok record: %s (`softshape table -table %s -results <folder>` lists them).\n\n", strings.Join(missing, ", "), c.Name)
	}
	if len(invalid) > 0 {
		fmt.Fprintf(b, "Runs recorded invalid (the dataset rejects the setting; the cells read \"invalid\"): %s. Why:\n\n", strings.Join(invalid, ", "))
		c.markdownInvalidReasons(b)
	}
}

// markdownInvalidReasons lists, once per dataset, column and reason, why
// runs of the comparison's tables were recorded invalid, and under which
// presets.
func (c *Comparison) markdownInvalidReasons(b *bufio.Writer) {
	type reason struct {
		dataset, column, detail string
		labels                  []string
	}
	var reasons []*reason
	index := map[string]*reason{}
	for i, t := range c.Tables {
		if t == nil {
			continue
		}
		for _, m := range t.Invalid {
			column := m.Key.Variant
			for _, col := range t.Columns {
				if col.Kind == Ours && col.Variant == m.Key.Variant {
					column = col.Name
					break
				}
			}
			id := m.Key.Dataset + "\x00" + column + "\x00" + m.Detail
			r, ok := index[id]
			if !ok {
				r = &reason{dataset: m.Key.Dataset, column: column, detail: m.Detail}
				index[id] = r
				reasons = append(reasons, r)
			}
			if !slices.Contains(r.labels, c.Labels[i]) {
				r.labels = append(r.labels, c.Labels[i])
			}
		}
	}
	for i, r := range reasons {
		if i == MaxMarkdownMissing {
			fmt.Fprintf(b, "- … and %d more\n", len(reasons)-i)
			break
		}
		fmt.Fprintf(b, "- %s · %s (%s): %s\n", r.dataset, mdEscape(r.column), strings.Join(r.labels, ", "), mdEscape(r.detail))
	}
	fmt.Fprintln(b)
}
