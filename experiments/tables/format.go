package tables

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// dash is printed where there is no value.
const dash = "—"

// fmtAcc formats an accuracy with four decimals.
func fmtAcc(x float64) string { return orDash(x, "%.4f") }

// fmtDiff formats ours − paper with a sign.
func fmtDiff(x float64) string { return orDash(x, "%+.4f") }

// fmtRank formats an average rank.
func fmtRank(x float64) string { return orDash(x, "%.2f") }

// fmtP formats a p-value as the paper does ("4.69E-06").
func fmtP(x float64) string { return strings.ToUpper(orDash(x, "%.2e")) }

// orDash formats x with the verb format, or is dash when x is NaN.
func orDash(x float64, format string) string {
	if math.IsNaN(x) {
		return dash
	}
	return fmt.Sprintf(format, x)
}

// Cell formats our value as the tables print it: the mean, with
// "(runs/expected)" when incomplete, "invalid", or a dash (with
// "(0/expected)" when runs are due).
func (v Value) Cell() string {
	switch {
	case v.Invalid != "":
		return "invalid"
	case v.Runs == 0 && v.Expected > 0:
		return fmt.Sprintf("%s (0/%d)", dash, v.Expected)
	case v.Runs == 0:
		return dash
	case !v.Complete():
		return fmt.Sprintf("%s (%d/%d)", fmtAcc(v.Acc), v.Runs, v.Expected)
	}
	return fmtAcc(v.Acc)
}

// fmtSeeds lists seeds.
func fmtSeeds(seeds []int64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = strconv.FormatInt(s, 10)
	}
	return strings.Join(parts, ",")
}

// fmtFolds lists folds.
func fmtFolds(folds []int) string {
	parts := make([]string, len(folds))
	for i, f := range folds {
		parts[i] = strconv.Itoa(f)
	}
	return strings.Join(parts, ",")
}

// mdEscape makes a cell safe in a Markdown table.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// mdHeader writes a Markdown table's header and alignment rows: the lead
// columns left-aligned, as given, then cols, escaped and right-aligned.
func mdHeader(b io.Writer, lead []string, cols []string) {
	var head, align strings.Builder
	head.WriteString("|")
	align.WriteString("|")
	for _, l := range lead {
		if l == "" {
			head.WriteString(" |")
		} else {
			fmt.Fprintf(&head, " %s |", l)
		}
		align.WriteString("---|")
	}
	for _, c := range cols {
		fmt.Fprintf(&head, " %s |", mdEscape(c))
		align.WriteString("---:|")
	}
	fmt.Fprintf(b, "%s\n%s\n", head.String(), align.String())
}
