package tablefigures

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/plots"
)

// Presets draws the accuracy of each column of a comparison of two protocol
// presets (tables.Compare) against the swept value: ours under each preset
// (solid, one colour each) and the paper's (dashed), each the mean over the
// datasets complete under both presets (Comparison.Common), on the columns
// measured under both. The title is short; the caption names the datasets,
// the runs and the presets. With no such dataset it says what is missing.
func Presets(c *tables.Comparison) (*plots.Figure, error) {
	if len(c.Common) == 0 || len(c.SummaryColumns) == 0 {
		return nil, fmt.Errorf("%w: table %s has no dataset complete under both %s and %s yet", ErrNoFigure, c.Name, c.Labels[0], c.Labels[1])
	}
	label, logSpaced, _ := sweepAxis(c.Name)
	ordered := Ordered(c.Name)
	xs, ticks := sweptValues(c.SummaryColumns, logSpaced)
	var ours, paper []plots.SweepSeries
	for i, s := range c.Summaries {
		if s == nil {
			continue
		}
		y := make([]float64, len(c.SummaryColumns))
		for k, col := range c.SummaryColumns {
			y[k] = math.NaN()
			if m := slices.Index(s.Methods, col); m >= 0 {
				y[k] = s.AvgAcc[m]
			}
		}
		if i < len(c.Labels) {
			ours = append(ours, plots.SweepSeries{Label: "ours, " + c.Labels[i], X: xs, Y: y})
		} else {
			paper = append(paper, plots.SweepSeries{Label: "paper", X: xs, Y: y})
		}
	}
	var t *tables.Table
	for _, tb := range c.Tables {
		if tb != nil {
			t = tb
			break
		}
	}
	meta := plots.Meta{Title: "Accuracy vs " + label + ", two protocols"}
	mark := "line"
	if !ordered {
		mark = "marker"
	}
	caption := fmt.Sprintf("Each %s the mean over the %s complete under both presets (%s), the tables' Avg. Acc", mark, plural(len(c.Common), "dataset"), strings.Join(c.Common, ", "))
	if t != nil {
		meta.Title += " (" + tableRef(t) + ")"
		meta.Quick = t.Quick
		seeds := make([]string, len(t.Seeds))
		for i, s := range t.Seeds {
			seeds[i] = strconv.FormatInt(s, 10)
		}
		caption += fmt.Sprintf("; %s %s, %s %s", pluralWord(len(t.Folds), "fold"), intRanges(t.Folds), pluralWord(len(t.Seeds), "seed"), strings.Join(seeds, ", "))
	}
	oursStyle, paperStyle, opts := "Solid", "dashed", []plots.Option{plots.WithoutAverage()}
	if !ordered {
		oursStyle, paperStyle, opts = "Markers", "dashes", append(opts, plots.WithUnorderedX())
	}
	meta.Config = caption + fmt.Sprintf(". %s: ours under %s and %s; %s: the paper's, over the same datasets.", oursStyle, c.Labels[0], c.Labels[1], paperStyle)
	return plots.SweepChart(meta, label, ticks, ours, paper, opts...)
}

// DrawPreset builds the figure of kind k of ours under preset i (0 or 1) of
// a comparison of two presets, from the comparison's summary (PresetRanks,
// PresetCD), so that it shows the numbers of the comparison's summary rows;
// alpha is the CD diagram's significance level. KindSweep is Presets.
func DrawPreset(k Kind, c *tables.Comparison, i int, alpha float64) (*plots.Figure, error) {
	switch k {
	case KindSweep:
		return Presets(c)
	case KindRanks:
		return PresetRanks(c, i)
	case KindCD:
		return PresetCD(c, i, alpha)
	}
	return nil, fmt.Errorf("unknown figure kind %q: want one of %v", k, AllKinds())
}

// PresetRanks draws the average rank of each column under preset i of a
// comparison beside the paper's: the comparison's summary rows "Avg. Rank —
// ours, <preset>" and "Avg. Rank — paper, same datasets", over the datasets
// complete under both presets (Comparison.Common) and the columns measured
// under both. A preset's own table (Ranks) would rank over its own complete
// datasets, which differ from those while a sweep is under way.
func PresetRanks(c *tables.Comparison, i int) (*plots.Figure, error) {
	methods, ours, paperRanks, err := presetRanks(c, i)
	if err != nil {
		return nil, err
	}
	notes := []string{rankBarsNote}
	if paperRanks != nil {
		notes = append(notes, "paper over the same datasets")
	}
	meta := tableMeta(c.Tables[i], "Average rank, "+c.Labels[i], c.Common, notes...)
	return plots.RankBars(meta, methods, ours, paperRanks)
}

// presetRanks returns what PresetRanks draws: the columns, ours' average
// ranks under preset i and the paper's (nil without them).
func presetRanks(c *tables.Comparison, i int) (methods []string, ours, paper []float64, err error) {
	s, _, err := presetSummary(c, i)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(s.Methods) < 2 {
		return nil, nil, nil, fmt.Errorf("%w: ranks need at least 2 columns measured under both presets, table %s has %d", ErrNoFigure, c.Name, len(s.Methods))
	}
	if p := c.Summaries[2]; p != nil {
		paper = p.AvgRank
	}
	return s.Methods, s.AvgRank, paper, nil
}

// PresetCD draws the critical-difference diagram of the columns under
// preset i of a comparison, over the datasets and columns of its summary
// rows (as PresetRanks), at significance level alpha: its ranks are the
// summary's AvgRankTiesAveraged, the comparison's row tables.CDRanksLabel
// under that preset. It needs MinCDDatasets datasets and two columns.
func PresetCD(c *tables.Comparison, i int, alpha float64) (*plots.Figure, error) {
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("α = %g: want 0 < α < 1", alpha)
	}
	s, t, err := presetSummary(c, i)
	if err != nil {
		return nil, err
	}
	if len(s.Methods) < 2 || len(c.Common) < MinCDDatasets {
		return nil, fmt.Errorf("%w: a critical-difference diagram needs at least 2 columns and %d datasets complete under both presets, table %s has %d and %d",
			ErrNoFigure, MinCDDatasets, c.Name, len(s.Methods), len(c.Common))
	}
	meta := tableMeta(t, "Critical difference, "+c.Labels[i], c.Common, cdRanksNote, wilcoxonHolm(alpha))
	return CDMatrix(meta, s.Methods, c.CommonAcc[i], alpha)
}

// presetSummary returns the summary of ours under preset i of c and that
// preset's table, or why there is none.
func presetSummary(c *tables.Comparison, i int) (*stats.Summary, *tables.Table, error) {
	if i < 0 || i > 1 {
		return nil, nil, fmt.Errorf("preset index %d: want 0 or 1", i)
	}
	if c.Tables[i] == nil {
		return nil, nil, fmt.Errorf("%w: no run of table %s recorded under %s", ErrNoFigure, c.Name, c.Labels[i])
	}
	if c.Summaries[i] == nil {
		return nil, nil, fmt.Errorf("%w: table %s has no dataset complete under both %s and %s yet (the summary rows, which this figure draws, are over those)",
			ErrNoFigure, c.Name, c.Labels[0], c.Labels[1])
	}
	return c.Summaries[i], c.Tables[i], nil
}
