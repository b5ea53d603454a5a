package tablefigures

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

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
	caption := fmt.Sprintf("Each line the mean over the %s complete under both presets (%s), the tables' Avg. Acc", plural(len(c.Common), "dataset"), strings.Join(c.Common, ", "))
	if t != nil {
		meta.Title += " (" + tableRef(t) + ")"
		meta.Quick = t.Quick
		seeds := make([]string, len(t.Seeds))
		for i, s := range t.Seeds {
			seeds[i] = strconv.FormatInt(s, 10)
		}
		caption += fmt.Sprintf("; %s %s, %s %s", pluralWord(len(t.Folds), "fold"), intRanges(t.Folds), pluralWord(len(t.Seeds), "seed"), strings.Join(seeds, ", "))
	}
	meta.Config = caption + fmt.Sprintf(". Solid: ours under %s and %s; dashed: the paper's, over the same datasets.", c.Labels[0], c.Labels[1])
	return plots.SweepChart(meta, label, ticks, ours, paper, plots.WithoutAverage())
}
