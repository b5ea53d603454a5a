package tables

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/softshape-go/softshape/paper"
)

// MaxPrintedColumns is how many methods one table of PrintedMarkdown holds:
// with the row labels, that many columns of printed values (p-values such as
// "1.43E-12") fit a notebook page 1300 pixels wide without scrolling or
// wrapping.
const MaxPrintedColumns = 10

// PrintedMarkdown writes the paper's printed summary of a table
// (paper.Summary) on its own, for a table with no results of ours to set
// beside it: one row per metric, one column per method or setting, each
// value as the paper prints it (a dash where it prints none). The title and
// the line under it say that these are the paper's numbers, over all its
// datasets, not ours; the rows a Table's summary shows too carry that
// summary's labels (the p-value row names the statistic it is). A summary of
// more than MaxPrintedColumns methods (Table 1's 18) is written as several
// tables with the same rows (printedParts), each naming the paper's method
// families it holds, so that every value is on the page.
func PrintedMarkdown(w io.Writer, ps *paper.SummaryTable) error {
	if ps == nil || len(ps.Methods) == 0 || len(ps.Metrics) == 0 {
		return fmt.Errorf("tables: no printed summary to write")
	}
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# %s — the paper's printed summary\n\n", ps.Title)
	fmt.Fprintf(b, "**The paper's numbers, not ours**: Liu et al., *Learning Soft Sparse Shapes for Efficient Time-Series Classification*, ICML 2025, "+
		"as printed, over all its datasets. No run of ours is shown here.\n\n")
	labels := map[string]string{}
	for _, l := range summaryLines(ps.Reference, false) {
		if l.printed != "" {
			labels[l.printed] = l.label
		}
	}
	for _, part := range printedParts(ps, MaxPrintedColumns) {
		lead := "paper, printed"
		if len(part.groups) > 0 {
			lead += ": " + strings.Join(part.groups, ", ")
		}
		mdHeader(b, []string{lead}, ps.Methods[part.from:part.to])
		for _, metric := range ps.Metrics {
			label := metric
			if l, ok := labels[metric]; ok {
				label = l
			}
			fmt.Fprintf(b, "| %s |", mdEscape(label))
			for j := part.from; j < part.to; j++ {
				v, ok := ps.Value(metric, ps.Methods[j])
				if !ok {
					v = dash
				}
				fmt.Fprintf(b, " %s |", mdEscape(v))
			}
			fmt.Fprintln(b)
		}
		fmt.Fprintln(b)
	}
	return b.Flush()
}

// printedPart is one table of PrintedMarkdown: the methods [from, to) and
// the method families (paper.SummaryTable.Groups) among them, in order.
type printedPart struct {
	from, to int
	groups   []string
}

// printedParts splits the methods of ps into runs of at most max: with
// method families, whole families as long as they fit (a family larger than
// max is cut), otherwise into runs of equal size, give or take one.
func printedParts(ps *paper.SummaryTable, max int) []printedPart {
	n := len(ps.Methods)
	grouped := len(ps.Groups) == n
	var out []printedPart
	if !grouped {
		parts := (n + max - 1) / max
		for i := 0; i < parts; i++ {
			out = append(out, printedPart{from: i * n / parts, to: (i + 1) * n / parts})
		}
		return out
	}
	// The families as runs of consecutive methods.
	type run struct{ from, to int }
	var runs []run
	for j := 0; j < n; j++ {
		if j == 0 || ps.Groups[j] != ps.Groups[j-1] {
			runs = append(runs, run{j, j})
		}
		runs[len(runs)-1].to = j + 1
	}
	cur := printedPart{}
	for _, r := range runs {
		for r.from < r.to {
			if cur.to-cur.from == max || (cur.to > cur.from && cur.to-cur.from+r.to-r.from > max) {
				out = append(out, cur)
				cur = printedPart{from: r.from, to: r.from}
			}
			take := min(r.to-r.from, max-(cur.to-cur.from))
			cur.groups = append(cur.groups, ps.Groups[r.from])
			cur.to, r.from = r.from+take, r.from+take
		}
	}
	return append(out, cur)
}
