package tables

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/experiments/sweep"
)

// csvNum formats a number for CSV with 12 significant digits ("" for NaN).
func csvNum(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 12, 64)
}

// CSV writes the table in long format, one value per line, with the header
// section,dataset,column,metric,ours,paper,diff,runs,expected,detail. The
// ours header carries sweep.QuickLabel for a quick table. Sections:
// per_dataset (metric accuracy), summary (metrics avg_acc, avg_rank, win,
// paper_p, wilcoxon_p: ours, the paper on the same datasets, and the paper's
// printed value in detail), params (params, inference_seconds), missing
// (every expected run without an ok record that a sweep can still make),
// invalid (every run recorded invalid: not runnable on its dataset) and note.
func (t *Table) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	ours := "ours"
	if t.Quick {
		ours = "ours [" + sweep.QuickLabel + "]"
	}
	write := func(rec ...string) { _ = cw.Write(rec) }
	write("section", "dataset", "column", "metric", ours, "paper", "diff", "runs", "expected", "detail")
	write("title", "", "", "", "", "", "", "", "", t.FullTitle())
	for _, r := range t.Rows {
		for j, c := range t.Columns {
			if c.Kind == Baseline {
				continue
			}
			v := r.Ours[j]
			diff := math.NaN()
			if v.Runs > 0 {
				diff = v.Acc - r.Paper[j]
			}
			detail := c.Kind.String()
			if v.Invalid != "" {
				detail = "invalid: " + v.Invalid
			}
			write("per_dataset", r.Dataset, c.Name, "accuracy", csvNum(v.Acc), csvNum(r.Paper[j]), csvNum(diff),
				strconv.Itoa(v.Runs), strconv.Itoa(v.Expected), detail)
		}
	}
	s := t.Summary
	metrics := []struct {
		name, printed string
		get           func(*stats.Summary, int) float64
	}{
		{"avg_acc", "Avg. Acc", func(s *stats.Summary, k int) float64 { return s.AvgAcc[k] }},
		{"avg_rank", "Avg. Rank", func(s *stats.Summary, k int) float64 { return s.AvgRank[k] }},
		{"win", "Win", func(s *stats.Summary, k int) float64 {
			if s.Wins == nil {
				return math.NaN()
			}
			return float64(s.Wins[k])
		}},
		{"paper_p", "P-value", func(s *stats.Summary, k int) float64 { return s.PaperP[k] }},
		{"wilcoxon_p", "", func(s *stats.Summary, k int) float64 { return s.WilcoxonP[k] }},
	}
	pick := func(sum *stats.Summary, cols []int, j int, get func(*stats.Summary, int) float64) float64 {
		if sum == nil {
			return math.NaN()
		}
		for k, c := range cols {
			if c == j {
				return get(sum, k)
			}
		}
		return math.NaN()
	}
	for _, m := range metrics {
		for j, c := range t.Columns {
			o := pick(s.Ours, s.OursColumns, j, m.get)
			p := pick(s.Paper, s.PaperColumns, j, m.get)
			printed := ""
			if m.printed != "" && s.Printed != nil {
				printed, _ = s.Printed.Value(m.printed, c.Name)
			}
			detail := "printed: " + printed
			for k, oc := range s.OursColumns {
				if oc == j && s.FromPaper[k] {
					detail += "; ours uses the paper's figures for this column"
				}
			}
			write("summary", fmt.Sprintf("%d datasets", len(s.Datasets)), c.Name, m.name, csvNum(o), csvNum(p), csvNum(o-p), "", "", detail)
		}
	}
	if t.Params != nil {
		for _, r := range t.Params.Rows {
			write("params", r.Dataset, "SoftShape", "params", csvNum(r.Params), t.Params.PaperParams, "", "", "", "")
			write("params", r.Dataset, "SoftShape", "inference_seconds", csvNum(r.Inference), r.PaperInference, "", "", "", "one fold's test split")
		}
	}
	for _, sec := range []struct {
		name string
		runs []MissingRun
	}{{"missing", t.Missing}, {"invalid", t.Invalid}} {
		for _, m := range sec.runs {
			write(sec.name, m.Key.Dataset, m.Key.Variant, string(m.State), "", "", "", "", "",
				fmt.Sprintf("seed %d fold %d #%s: %s", m.Key.Seed, m.Key.Fold, m.Key.Hash, m.Detail))
		}
	}
	for _, e := range s.Excluded {
		write("note", "", "", "excluded_from_summary", "", "", "", "", "", e)
	}
	if n := t.baselinesNote(); n != "" {
		write("note", "", "", "", "", "", "", "", "", n)
	}
	for _, n := range t.Notes {
		write("note", "", "", "", "", "", "", "", "", n)
	}
	cw.Flush()
	return cw.Error()
}
