package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// maxValueLabels is the largest number of methods whose bars get value
// labels in RankBars; with more, labels would collide.
const maxValueLabels = 10

// RankBars draws the average rank of each method as bars (lower is better),
// with the paper's average ranks as a second bar beside each one when
// paperRanks is non-nil. A NaN in paperRanks marks a method the paper does
// not report (its bar is left out). Bars carry their value when there are at
// most ten methods; long or many method names are slanted. Options:
// WithYLabel, WithSize, WithDPI.
func RankBars(meta Meta, methods []string, avgRanks []float64, paperRanks []float64, opts ...Option) (*Figure, error) {
	cfg := newConfig(opts)
	if len(methods) == 0 {
		return nil, fmt.Errorf("%w: RankBars needs at least one method", ErrEmpty)
	}
	if len(avgRanks) != len(methods) {
		return nil, fmt.Errorf("%w: RankBars has %d methods and %d ranks", ErrLength, len(methods), len(avgRanks))
	}
	if paperRanks != nil && len(paperRanks) != len(methods) {
		return nil, fmt.Errorf("%w: RankBars has %d methods and %d paper ranks", ErrLength, len(methods), len(paperRanks))
	}
	if err := checkFinite("RankBars avgRanks", avgRanks); err != nil {
		return nil, err
	}
	if err := checkNoInf("RankBars paperRanks", paperRanks); err != nil {
		return nil, err
	}
	names := slices.Clone(methods)
	ours := slices.Clone(avgRanks)
	paper := slices.Clone(paperRanks)
	hasPaper := paper != nil && !allNaN(paper)

	body := func(c draw.Canvas) error {
		p := newPlot()
		p.Y.Label.Text = "Average rank (lower is better)"
		if cfg.yLabel != "" {
			p.Y.Label.Text = cfg.yLabel
		}
		p.NominalX(names...)
		p.X.Tick.Label.Font = baseFont(tickSize)
		slantLongLabels(&p.X, names)
		var items []legendItem
		if hasPaper {
			items = []legendItem{
				{label: "ours", thumbs: []plot.Thumbnailer{barThumb(rgb(hexBlue))}},
				{label: "paper", thumbs: []plot.Thumbnailer{barThumb(rgb(hexOrange))}},
			}
			c = splitLegendRight(c, items)
		}
		// Bar width from the space per method, known only now.
		dataW := c.Max.X - c.Min.X - vg.Inch
		per := dataW / vg.Length(len(names))
		nBars := 1
		if hasPaper {
			nBars = 2
		}
		w := per*0.72/vg.Length(nBars) - vg.Points(1.5)

		top := 0.0
		add := func(col plotter.Values, offset vg.Length, clr color.Color) error {
			b, err := plotter.NewBarChart(col, w)
			if err != nil {
				return fmt.Errorf("bars: %w", err)
			}
			b.Color = clr
			b.LineStyle.Width = 0
			b.Offset = offset
			p.Add(b)
			return nil
		}
		oursVals := plotter.Values(slices.Clone(ours))
		for _, v := range ours {
			top = max(top, v)
		}
		offOurs, offPaper := vg.Length(0), w/2+vg.Points(1.5)
		if hasPaper {
			offOurs = -offPaper
		}
		if err := add(oursVals, offOurs, rgb(hexBlue)); err != nil {
			return err
		}
		var paperVals plotter.Values
		if hasPaper {
			paperVals = make(plotter.Values, len(paper))
			for i, v := range paper {
				if !math.IsNaN(v) {
					paperVals[i] = v
					top = max(top, v)
				}
			}
			if err := add(paperVals, offPaper, rgb(hexOrange)); err != nil {
				return err
			}
		}
		p.Y.Min = 0
		p.Y.Max = top * 1.15
		if len(names) <= maxValueLabels {
			if hasPaper {
				// Each label flush with its bar's outer edge, so that the
				// labels of a pair never overlap (a label is wider than a bar).
				addValueLabels(p, ours, offOurs+w/2, draw.XRight)
				addValueLabels(p, paper, offPaper-w/2, draw.XLeft)
			} else {
				addValueLabels(p, ours, offOurs, draw.XCenter)
			}
		}
		p.Draw(c)
		return nil
	}
	w := max(6*vg.Inch, vg.Length(len(names))*0.55*vg.Inch+2*vg.Inch)
	return cfg.apply(newFigure(meta, "Average rank per method", w, 4.5*vg.Inch, body)), nil
}

// barThumb returns a legend thumbnail showing a filled bar.
func barThumb(clr color.Color) plot.Thumbnailer {
	return &plotter.BarChart{Color: clr}
}

// addValueLabels writes each non-NaN value above its bar, shifted by offset
// and aligned there by align (draw.XCenter: centred on offset; draw.XRight:
// ending at it; draw.XLeft: starting at it).
func addValueLabels(p *plot.Plot, vals []float64, offset vg.Length, align draw.XAlignment) {
	var xys plotter.XYs
	var labels []string
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		xys = append(xys, plotter.XY{X: float64(i), Y: v})
		labels = append(labels, fmt.Sprintf("%.2f", v))
	}
	if len(xys) == 0 {
		return
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return
	}
	for i := range l.TextStyle {
		l.TextStyle[i] = textStyle(smallSize-1, rgb(hexBlack))
		l.TextStyle[i].XAlign = align
		l.TextStyle[i].YAlign = draw.YBottom
	}
	l.Offset = vg.Point{X: offset, Y: vg.Points(2)}
	p.Add(l)
}
