package tables

import (
	"fmt"
	"math"
	"slices"

	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/paper"
)

// Summary is the summary section of a table.
type Summary struct {
	// Datasets are those our summary covers: every measured column complete
	// and valid (and, where our summary uses paper figures, in the paper's
	// table). Excluded gives the others with the reason.
	Datasets []string
	Excluded []string
	// Ours summarises our results over OursColumns (indexes into
	// Table.Columns): the measured columns, plus the baseline methods and the
	// variants that need model support with the paper's figures
	// (FromPaper[i] is true for those); variants left out of the sweeps are
	// left out. Nil when not computable.
	Ours        *stats.Summary
	OursColumns []int
	FromPaper   []bool
	// Acc holds the accuracies Ours summarises (rows Datasets, columns
	// OursColumns; ours rounded as the paper prints them, the paper's
	// figures where FromPaper), for figures that must show the summary's
	// numbers (a critical-difference diagram).
	Acc [][]float64
	// Paper summarises the paper's per-dataset table over PaperColumns on
	// PaperDatasets (Datasets ∩ the paper's); nil without a per-dataset table.
	Paper         *stats.Summary
	PaperColumns  []int
	PaperDatasets []string
	// Printed is the paper's summary as printed (over all its datasets).
	Printed *paper.SummaryTable
	// Problems says why parts of the summary are missing.
	Problems []string
}

// PrintedOnly reports whether the paper gives this table as its printed
// summary alone, without per-dataset figures (the appendix's studies): its
// differences are then those of the printed averages (Difference.PaperPrinted).
func (s Summary) PrintedOnly() bool { return len(s.PaperColumns) == 0 && s.Printed != nil }

// round4 rounds an accuracy to four decimals, as the paper prints it.
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// summarize computes the summary section.
func summarize(t *Table, pt *paper.Table, ps *paper.SummaryTable) Summary {
	s := Summary{Printed: ps}
	var measured []int
	for j, c := range t.Columns {
		if c.Measured() {
			measured = append(measured, j)
		}
	}
	for j, c := range t.Columns {
		switch {
		case c.Measured():
			s.OursColumns = append(s.OursColumns, j)
			s.FromPaper = append(s.FromPaper, false)
		case (c.Kind == Baseline || c.Kind == Blocked) && pt != nil && pt.Index(c.Name) >= 0 && len(measured) > 0:
			s.OursColumns = append(s.OursColumns, j)
			s.FromPaper = append(s.FromPaper, true)
		}
	}
	if len(measured) == 0 {
		s.Problems = append(s.Problems, "no column of this table is run by this project")
	}
	var ours [][]float64
rows:
	for _, r := range t.Rows {
		var row []float64
		for k, j := range s.OursColumns {
			v := r.Ours[j]
			switch {
			case s.FromPaper[k]:
				if math.IsNaN(r.Paper[j]) {
					s.Excluded = append(s.Excluded, fmt.Sprintf("%s: not in the paper's table", r.Dataset))
					continue rows
				}
				row = append(row, r.Paper[j])
			case v.Invalid != "":
				s.Excluded = append(s.Excluded, fmt.Sprintf("%s: %s invalid (%s)", r.Dataset, t.Columns[j].Name, v.Invalid))
				continue rows
			case !v.Complete():
				s.Excluded = append(s.Excluded, fmt.Sprintf("%s: %s has %d of %d runs", r.Dataset, t.Columns[j].Name, v.Runs, v.Expected))
				continue rows
			default:
				row = append(row, round4(v.Acc))
			}
		}
		if len(measured) > 0 {
			s.Datasets = append(s.Datasets, r.Dataset)
			ours = append(ours, row)
		}
	}
	if len(measured) > 0 {
		names := make([]string, len(s.OursColumns))
		for k, j := range s.OursColumns {
			names[k] = t.Columns[j].Name
		}
		sum, problem := summarizeMatrix(names, ours, t.Default)
		s.Ours, s.Acc = sum, ours
		if problem != "" {
			s.Problems = append(s.Problems, "ours: "+problem)
		}
	}
	if pt == nil {
		return s
	}
	var acc [][]float64
	for _, d := range s.Datasets {
		i := slices.Index(pt.Datasets, d)
		if i < 0 {
			continue
		}
		s.PaperDatasets = append(s.PaperDatasets, d)
		acc = append(acc, nil)
	}
	var names []string
	for j, c := range t.Columns {
		if k := pt.Index(c.Name); k >= 0 {
			s.PaperColumns = append(s.PaperColumns, j)
			names = append(names, c.Name)
			for r, d := range s.PaperDatasets {
				acc[r] = append(acc[r], pt.Acc[slices.Index(pt.Datasets, d)][k])
			}
		}
	}
	sum, problem := summarizeMatrix(names, acc, t.Default)
	s.Paper = sum
	if problem != "" {
		s.Problems = append(s.Problems, "paper on these datasets: "+problem)
	}
	return s
}

// summarizeMatrix runs stats.Summarize with p-values against reference (the
// table's default setting, the baseline of its differences too); when it
// cannot (too few datasets or columns for a test, or the reference is not
// among the columns) it keeps what can be computed, sets the rest to NaN and
// says why. It returns nil without any dataset.
func summarizeMatrix(methods []string, acc [][]float64, reference string) (*stats.Summary, string) {
	if len(acc) == 0 || len(methods) == 0 {
		return nil, "no dataset has every column complete"
	}
	var s stats.Summary
	err := fmt.Errorf("they compare with %s, which is not among these columns", reference)
	if slices.Contains(methods, reference) {
		if s, err = stats.Summarize(methods, acc, reference); err == nil {
			return &s, ""
		}
	}
	k := len(methods)
	out := &stats.Summary{Methods: methods, Reference: reference, AvgRank: nans(k), AvgRankTiesAveraged: nans(k), Wins: make([]int, k), PaperP: nans(k), WilcoxonP: nans(k)}
	out.AvgAcc, _ = stats.MeanAccuracy(acc)
	if k >= 2 {
		if r, err := stats.AverageRanks(acc, stats.TiesMin); err == nil {
			out.AvgRank = r
		}
		if r, err := stats.CDAverageRanks(acc); err == nil {
			out.AvgRankTiesAveraged = r
		}
		if w, err := stats.Wins(acc); err == nil {
			out.Wins = w
		} else {
			out.Wins = nil
		}
	} else {
		out.Wins = nil
	}
	return out, fmt.Sprintf("p-values not computed: %v", err)
}

// nans returns k NaN values.
func nans(k int) []float64 {
	out := make([]float64, k)
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}
