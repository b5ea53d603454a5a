package tables

import (
	"bufio"
	"fmt"
	"io"

	"github.com/softshape-go/softshape/paper"
)

// PrintedMarkdown writes the paper's printed summary of a table
// (paper.Summary) on its own, for a table with no results of ours to set
// beside it: one row per metric, one column per method or setting, each
// value as the paper prints it (a dash where it prints none). The title and
// the line under it say that these are the paper's numbers, over all its
// datasets, not ours; the rows a Table's summary shows too carry that
// summary's labels (the p-value row names the statistic it is).
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
	mdHeader(b, []string{"paper, printed"}, ps.Methods)
	for _, metric := range ps.Metrics {
		label := metric
		if l, ok := labels[metric]; ok {
			label = l
		}
		fmt.Fprintf(b, "| %s |", mdEscape(label))
		for _, m := range ps.Methods {
			v, ok := ps.Value(metric, m)
			if !ok {
				v = dash
			}
			fmt.Fprintf(b, " %s |", mdEscape(v))
		}
		fmt.Fprintln(b)
	}
	fmt.Fprintln(b)
	return b.Flush()
}
