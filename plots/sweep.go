package plots

import (
	"fmt"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SweepSeries is one line of a SweepChart: the accuracy (Y) of one dataset
// at each swept value (X). A NaN in Y marks a missing value and breaks the
// line.
type SweepSeries struct {
	// Label names the series, normally the dataset; ours and paper series
	// with the same Label share a colour.
	Label string
	// X holds the swept values (or, with categorical tick labels, values
	// whose sorted order gives the category).
	X []float64
	// Y holds the accuracies, one per X.
	Y []float64
}

// maxColouredSweep is the largest number of datasets given their own colour
// and legend entry in SweepChart; beyond it per-dataset lines are grey.
const maxColouredSweep = 7

// SweepChart draws accuracy against a swept hyper-parameter (sparse ratio,
// sliding step, depth, number of experts): one thin line per dataset in ours
// plus their average as a thick black line, and the paper's values overlaid
// as dashed lines with triangle markers (their average thick and dashed).
//
// xTicks, when non-nil, makes the x axis categorical: the distinct X values
// of all series, sorted, are placed at equal spacing and labelled
// xTicks[0], xTicks[1], … (for example "q=1" … "q=m"); len(xTicks) must equal
// the number of distinct X values.
//
// The average at each swept value is the mean over the series that have
// that value; it is left out (a gap) where any of them is NaN, so that a
// missing dataset never shifts the average. Up to seven datasets get their own
// Okabe–Ito colour and legend entry; with more, per-dataset lines are grey
// and the legend shows the count. The legend sits outside the data area, on
// the right. Options: WithLogY, WithYLabel, WithoutAverage, WithSize,
// WithDPI.
func SweepChart(meta Meta, xLabel string, xTicks []string, ours []SweepSeries, paper []SweepSeries, opts ...Option) (*Figure, error) {
	cfg := newConfig(opts)
	if len(ours)+len(paper) == 0 {
		return nil, fmt.Errorf("%w: SweepChart needs at least one series", ErrEmpty)
	}
	var xs []float64
	for _, group := range []struct {
		name string
		ss   []SweepSeries
	}{{"ours", ours}, {"paper", paper}} {
		for i, s := range group.ss {
			what := fmt.Sprintf("%s[%d] %q", group.name, i, s.Label)
			if len(s.X) == 0 {
				return nil, fmt.Errorf("%w: SweepChart %s has no points", ErrEmpty, what)
			}
			if len(s.X) != len(s.Y) {
				return nil, fmt.Errorf("%w: SweepChart %s has %d X and %d Y", ErrLength, what, len(s.X), len(s.Y))
			}
			if err := checkFinite("SweepChart "+what+".X", s.X); err != nil {
				return nil, err
			}
			if err := checkNoInf("SweepChart "+what+".Y", s.Y); err != nil {
				return nil, err
			}
			if cfg.logY {
				if err := checkPositive("SweepChart "+what+".Y", s.Y); err != nil {
					return nil, err
				}
			}
			xs = append(xs, s.X...)
		}
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	if xTicks != nil && len(xTicks) != len(xs) {
		return nil, fmt.Errorf("%w: SweepChart has %d tick labels for %d distinct X values", ErrLength, len(xTicks), len(xs))
	}

	// Copy and, for categorical axes, map X onto 0..n-1.
	mapX := func(x float64) float64 {
		if xTicks == nil {
			return x
		}
		i, _ := slices.BinarySearch(xs, x)
		return float64(i)
	}
	copySeries := func(in []SweepSeries) []SweepSeries {
		out := make([]SweepSeries, len(in))
		for i, s := range in {
			out[i] = SweepSeries{Label: s.Label, X: make([]float64, len(s.X)), Y: slices.Clone(s.Y)}
			for j, x := range s.X {
				out[i].X[j] = mapX(x)
			}
		}
		return out
	}
	oursC, paperC := copySeries(ours), copySeries(paper)
	ticks := slices.Clone(xTicks)
	distinctX := slices.Clone(xs)

	// Colour per label, in order of first appearance.
	var labels []string
	for _, s := range append(slices.Clone(oursC), paperC...) {
		if !slices.Contains(labels, s.Label) {
			labels = append(labels, s.Label)
		}
	}
	coloured := len(labels) <= maxColouredSweep

	body := func(c draw.Canvas) error {
		p := newPlot()
		addGrid(p)
		p.X.Label.Text = xLabel
		p.Y.Label.Text = "Test accuracy"
		if cfg.yLabel != "" {
			p.Y.Label.Text = cfg.yLabel
		}
		if cfg.logY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		if ticks != nil {
			tk := make([]plot.Tick, len(ticks))
			for i, t := range ticks {
				tk[i] = plot.Tick{Value: float64(i), Label: t}
			}
			p.X.Tick.Marker = plot.ConstantTicks(tk)
			p.X.Min, p.X.Max = -0.3, float64(len(ticks)-1)+0.3
		} else if tk := valueTicks(distinctX); tk != nil {
			p.X.Tick.Marker = plot.ConstantTicks(tk)
		}

		var items []legendItem
		colourOf := func(label string) draw.LineStyle {
			if !coloured {
				return lineStyle(rgb(hexLightGrey), 1, nil)
			}
			return lineStyle(seriesColor(slices.Index(labels, label)), 1.2, nil)
		}
		for _, s := range oursC {
			ls := colourOf(s.Label)
			gs := glyphStyle(ls.Color, 2.2, draw.CircleGlyph{})
			addLine(p, s.X, s.Y, ls, &gs)
		}
		for _, s := range paperC {
			ls := colourOf(s.Label)
			ls.Dashes = paperDashes()
			gs := glyphStyle(ls.Color, 2.8, draw.TriangleGlyph{})
			addLine(p, s.X, s.Y, ls, &gs)
		}
		if coloured {
			for i, l := range labels {
				ls := lineStyle(seriesColor(i), 2, nil)
				items = append(items, legendItem{label: l, thumbs: thumbs(ls, nil)})
			}
		} else {
			ls := lineStyle(rgb(hexLightGrey), 1.5, nil)
			items = append(items, legendItem{label: fmt.Sprintf("%d datasets", len(labels)), thumbs: thumbs(ls, nil)})
		}
		// Style keys: solid/● is ours, dashed/▲ is the paper.
		if len(oursC) > 0 && len(paperC) > 0 {
			g := glyphStyle(rgb(hexGrey), 2.2, draw.CircleGlyph{})
			items = append(items, legendItem{label: "ours", thumbs: thumbs(lineStyle(rgb(hexGrey), 1.2, nil), &g)})
			g2 := glyphStyle(rgb(hexGrey), 2.8, draw.TriangleGlyph{})
			items = append(items, legendItem{label: "paper", thumbs: thumbs(lineStyle(rgb(hexGrey), 1.2, paperDashes()), &g2)})
		}
		if !cfg.noAvg {
			if len(oursC) > 1 {
				ax, ay := sweepAverage(oursC)
				ls := lineStyle(rgb(hexBlack), 3, nil)
				gs := glyphStyle(rgb(hexBlack), 3.5, draw.CircleGlyph{})
				items = append(items, legendItem{label: "average (ours)", thumbs: addLine(p, ax, ay, ls, &gs)})
			}
			if len(paperC) > 1 {
				ax, ay := sweepAverage(paperC)
				ls := lineStyle(rgb(hexBlack), 3, []vg.Length{vg.Points(7), vg.Points(4)})
				gs := glyphStyle(rgb(hexBlack), 4, draw.TriangleGlyph{})
				items = append(items, legendItem{label: "average (paper)", thumbs: addLine(p, ax, ay, ls, &gs)})
			}
		}
		if !coloured || len(items) > 1 {
			c = splitLegendRight(c, items)
		}
		p.Draw(c)
		return nil
	}
	return cfg.apply(newFigure(meta, "Accuracy vs "+xLabelOrDefault(xLabel), 7.5*vg.Inch, 4.5*vg.Inch, body)), nil
}

// xLabelOrDefault returns label, or "swept value" when it is empty.
func xLabelOrDefault(label string) string {
	if label == "" {
		return "swept value"
	}
	return label
}

// sweepAverage returns, for each distinct X of ss (sorted), the mean of the
// Y values of the series that have that X; the average is NaN (a gap) when
// any of those values is NaN, so that a missing dataset never shifts the
// average.
func sweepAverage(ss []SweepSeries) (xs, ys []float64) {
	sum := map[float64]float64{}
	cnt := map[float64]int{}
	for _, s := range ss {
		for i, x := range s.X {
			if _, ok := cnt[x]; !ok {
				xs = append(xs, x)
			}
			sum[x] += s.Y[i] // NaN propagates
			cnt[x]++
		}
	}
	slices.Sort(xs)
	ys = make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = sum[x] / float64(cnt[x])
	}
	return xs, ys
}

// valueTicks returns ticks at the swept values themselves when there are
// few of them (at most 10) and they are spread out enough for their labels
// not to collide; otherwise nil (automatic ticks).
func valueTicks(xs []float64) []plot.Tick {
	if len(xs) < 2 || len(xs) > 10 {
		return nil
	}
	span := xs[len(xs)-1] - xs[0]
	for i := 1; i < len(xs); i++ {
		if xs[i]-xs[i-1] < 0.07*span {
			return nil
		}
	}
	tk := make([]plot.Tick, len(xs))
	for i, x := range xs {
		tk[i] = plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', 4, 64)}
	}
	return tk
}
