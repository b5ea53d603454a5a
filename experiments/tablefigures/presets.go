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
// measured under both. With no such dataset it says what is missing.
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
	var folds []string
	var seeds []int64
	for _, t := range c.Tables {
		if t != nil {
			for _, f := range t.Folds {
				folds = append(folds, strconv.Itoa(f))
			}
			seeds = t.Seeds
			break
		}
	}
	seedNames := make([]string, len(seeds))
	for i, s := range seeds {
		seedNames[i] = strconv.FormatInt(s, 10)
	}
	meta := plots.Meta{Title: "Accuracy vs " + label + " — " + c.Name + ": " + c.Labels[0] + " and " + c.Labels[1] + " beside the paper",
		Dataset: fmt.Sprintf("mean over %d datasets complete under both", len(c.Common)),
		Config:  fmt.Sprintf("folds %s, seeds %s; paper dashed", strings.Join(folds, ","), strings.Join(seedNames, ","))}
	return plots.SweepChart(meta, label, ticks, ours, paper, plots.WithoutAverage())
}
