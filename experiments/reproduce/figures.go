package reproduce

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/softshape-go/softshape/experiments/paper"
	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/plots"
)

// sweepTables are the tables whose columns are values of one hyperparameter:
// they get a SweepChart.
var sweepTables = []string{"sparse_ratio", "experts_k", "stride_q", "depth_L", "shape_length_m", "num_experts", "lambda"}

// sweepAxis names the x axis of each sweep table.
var sweepAxis = map[string]string{
	"sparse_ratio":   "sparse ratio (share of shapes fused)",
	"experts_k":      "activated experts k",
	"stride_q":       "sliding step q",
	"depth_L":        "depth L",
	"shape_length_m": "shape length m",
	"num_experts":    "number of experts Ĉ",
	"lambda":         "MoE loss weight λ",
}

// ErrNoFigure is wrapped by the figure constructors when the table has no
// data for that figure (e.g. a CD diagram of one dataset).
var ErrNoFigure = errors.New("no figure")

// Named is a figure with a short name (for files) or the reason it could not
// be drawn.
type Named struct {
	Name   string
	Figure *plots.Figure
	// Err says why Figure is nil.
	Err error
}

// Figures returns the standard figures of the table: a sweep chart (ours
// solid, paper dashed) for hyperparameter tables, average-rank bars (ours
// beside the paper's) and a critical-difference diagram of our summary for
// the others (none for params_inference_time, a single configuration). A
// figure that cannot be drawn carries its reason in Err.
func (r *Result) Figures() []Named {
	var out []Named
	if r.Name == "params_inference_time" {
		// One model configuration: its table (parameters, inference time) is the result.
		return nil
	}
	if slices.Contains(sweepTables, r.Name) {
		f, err := r.SweepFigure()
		out = append(out, Named{Name: r.Name + "_sweep", Figure: f, Err: err})
	}
	f, err := r.RankFigure()
	out = append(out, Named{Name: r.Name + "_ranks", Figure: f, Err: err})
	if !slices.Contains(sweepTables, r.Name) {
		f, err = r.CDFigure()
		out = append(out, Named{Name: r.Name + "_cd", Figure: f, Err: err})
	}
	return out
}

func (r *Result) meta(title string) plots.Meta {
	ds := fmt.Sprintf("%d datasets", len(r.Table.Rows))
	if len(r.Table.Rows) == 1 {
		ds = r.Table.Rows[0].Dataset
	}
	return plots.Meta{Title: title, Dataset: ds,
		Config: fmt.Sprintf("folds %v, seeds %v", r.Table.Folds, r.Table.Seeds), Quick: r.Params.Quick}
}

// SweepFigure draws accuracy against the table's columns: one line per
// dataset for ours (solid) and the paper (dashed), with their averages.
func (r *Result) SweepFigure() (*plots.Figure, error) {
	t := r.Table
	var ticks []string
	var cols []int
	for j, c := range t.Columns {
		if c.Kind == tables.Baseline {
			continue
		}
		cols = append(cols, j)
		ticks = append(ticks, c.Name)
	}
	if len(cols) == 0 || len(t.Rows) == 0 {
		return nil, fmt.Errorf("%w: table %s has no swept columns or no datasets", ErrNoFigure, r.Name)
	}
	var ours, pap []plots.SweepSeries
	for _, row := range t.Rows {
		o := plots.SweepSeries{Label: row.Dataset}
		p := plots.SweepSeries{Label: row.Dataset}
		anyOurs, anyPaper := false, false
		for i, j := range cols {
			o.X, p.X = append(o.X, float64(i)), append(p.X, float64(i))
			v := row.Ours[j].Acc
			if !t.Columns[j].Measured() {
				v = math.NaN()
			}
			o.Y = append(o.Y, v)
			p.Y = append(p.Y, row.Paper[j])
			anyOurs = anyOurs || !math.IsNaN(v)
			anyPaper = anyPaper || !math.IsNaN(row.Paper[j])
		}
		if anyOurs {
			ours = append(ours, o)
		}
		if anyPaper {
			pap = append(pap, p)
		}
	}
	if len(ours) == 0 {
		return nil, fmt.Errorf("%w: table %s has no finished runs yet", ErrNoFigure, r.Name)
	}
	return plots.SweepChart(r.meta(t.Title), sweepAxis[r.Name], ticks, ours, pap, plots.WithYLabel("test accuracy"))
}

// RankFigure draws the average rank of each column of our summary (with the
// paper's average rank on the same datasets beside it where the paper has a
// per-dataset table).
func (r *Result) RankFigure() (*plots.Figure, error) {
	s := r.Table.Summary
	if s.Ours == nil {
		return nil, fmt.Errorf("%w: no dataset has every measured column complete and valid (%s)", ErrNoFigure, strings.Join(s.Problems, "; "))
	}
	var paperRanks []float64
	title := "Average rank (lower is better), ours vs paper on the same datasets"
	switch {
	case s.Paper != nil:
		paperRanks = make([]float64, len(s.Ours.Methods))
		for i, m := range s.Ours.Methods {
			paperRanks[i] = math.NaN()
			if k := slices.Index(s.Paper.Methods, m); k >= 0 {
				paperRanks[i] = s.Paper.AvgRank[k]
			}
		}
	case s.Printed != nil: // appendix studies: only the paper's printed summary exists
		paperRanks = make([]float64, len(s.Ours.Methods))
		anyRank := false
		for i, m := range s.Ours.Methods {
			paperRanks[i] = math.NaN()
			if v, ok := s.Printed.AvgRank(m); ok {
				paperRanks[i], anyRank = v, true
			}
		}
		if anyRank {
			title = "Average rank (lower is better), ours vs the paper's printed ranks (its datasets)"
		} else {
			paperRanks = nil
		}
	}
	meta := r.meta(title)
	meta.Dataset = fmt.Sprintf("%d datasets", len(s.Datasets))
	return plots.RankBars(meta, s.Ours.Methods, s.Ours.AvgRank, paperRanks)
}

// CDFigure draws the critical-difference diagram (Wilcoxon signed-rank,
// Holm, α = 0.05) of the columns of our summary over its datasets; columns
// we do not run enter with the paper's accuracies, as in the summary.
func (r *Result) CDFigure() (*plots.Figure, error) {
	s := r.Table.Summary
	if s.Ours == nil {
		return nil, fmt.Errorf("%w: no dataset has every measured column complete yet", ErrNoFigure)
	}
	if len(s.Datasets) < 3 {
		return nil, fmt.Errorf("%w: a critical-difference diagram needs at least 3 datasets with complete results (have %d)", ErrNoFigure, len(s.Datasets))
	}
	var acc [][]float64
	for _, ds := range s.Datasets {
		i := slices.IndexFunc(r.Table.Rows, func(row tables.Row) bool { return row.Dataset == ds })
		row := make([]float64, len(s.OursColumns))
		for k, j := range s.OursColumns {
			v := r.Table.Rows[i].Ours[j].Acc
			if s.FromPaper[k] {
				v = r.Table.Rows[i].Paper[j]
			}
			row[k] = math.Round(v*1e4) / 1e4
		}
		acc = append(acc, row)
	}
	meta := r.meta("Critical difference (Wilcoxon–Holm, α=0.05), ours")
	meta.Dataset = fmt.Sprintf("%d datasets", len(s.Datasets))
	return cdFigure(meta, s.Ours.Methods, acc)
}

func cdFigure(meta plots.Meta, methods []string, acc [][]float64) (*plots.Figure, error) {
	cd, err := stats.CriticalDifference(methods, acc, 0.05)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoFigure, err)
	}
	return plots.CDDiagram(meta, cd.Methods, cd.AvgRanks, cd.Cliques)
}

// PaperCDFigure draws the critical-difference diagram of the paper's own
// per-dataset table (e.g. "main": the 128 UCR datasets), for comparison with
// ours.
func PaperCDFigure(name string) (*plots.Figure, error) {
	pt, err := paper.PerDataset(name)
	if err != nil {
		return nil, err
	}
	var acc [][]float64
	for _, row := range pt.Acc {
		if !slices.ContainsFunc(row, math.IsNaN) {
			acc = append(acc, row)
		}
	}
	meta := plots.Meta{Title: "Critical difference (Wilcoxon–Holm, α=0.05), the paper's table", Dataset: fmt.Sprintf("%d datasets", len(acc))}
	return cdFigure(meta, pt.Methods, acc)
}

// ShowPaperCD shows PaperCDFigure(name).
func ShowPaperCD(p Params, name string) {
	f, err := PaperCDFigure(name)
	ShowFigure(p.FigureDir(), name+"_paper_cd", f, err)
}
