package plots

import (
	"fmt"
	"maps"
	"slices"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// RunningTime draws running time against sequence length (paper Fig 3): one
// line per sparse ratio (or per method: any key naming a series), each with
// its own colour, marker and dash pattern. seriesByRatio maps a legend label
// to the seconds measured at each of lengths; a NaN marks a length that was
// not measured (out of memory, skipped) and breaks the line. Legend entries
// are sorted in natural order, so "η=5%" comes before "η=10%". Options:
// WithSpread (a bar per point over repeated measurements), WithLogY,
// WithYLabel, WithSize, WithDPI.
func RunningTime(meta Meta, lengths []float64, seriesByRatio map[string][]float64, opts ...Option) (*Figure, error) {
	cfg := newConfig(opts)
	if len(lengths) == 0 {
		return nil, fmt.Errorf("%w: RunningTime needs sequence lengths", ErrEmpty)
	}
	if len(seriesByRatio) == 0 {
		return nil, fmt.Errorf("%w: RunningTime needs at least one series", ErrEmpty)
	}
	if err := checkFinite("RunningTime lengths", lengths); err != nil {
		return nil, err
	}
	keys := slices.SortedFunc(maps.Keys(seriesByRatio), func(a, b string) int {
		switch {
		case naturalLess(a, b):
			return -1
		case naturalLess(b, a):
			return 1
		}
		return 0
	})
	data := make([][]float64, len(keys))
	for i, k := range keys {
		ys := seriesByRatio[k]
		if len(ys) != len(lengths) {
			return nil, fmt.Errorf("%w: RunningTime series %q has %d values for %d lengths", ErrLength, k, len(ys), len(lengths))
		}
		if err := checkNoInf(fmt.Sprintf("RunningTime series %q", k), ys); err != nil {
			return nil, err
		}
		for j, v := range ys {
			if v < 0 {
				return nil, fmt.Errorf("%w: RunningTime series %q[%d] = %v is negative", ErrValue, k, j, v)
			}
		}
		if cfg.logY {
			if err := checkPositive(fmt.Sprintf("RunningTime series %q", k), ys); err != nil {
				return nil, err
			}
		}
		data[i] = slices.Clone(ys)
		lo, hi := cfg.spreadLo[k], cfg.spreadHi[k]
		if (lo != nil || hi != nil) && (len(lo) != len(lengths) || len(hi) != len(lengths)) {
			return nil, fmt.Errorf("%w: RunningTime spread of %q has %d and %d bounds for %d lengths", ErrLength, k, len(lo), len(hi), len(lengths))
		}
	}
	xs := slices.Clone(lengths)

	body := func(c draw.Canvas) error {
		p := newAxes(cfg, "Sequence length", "Training time (s)")
		if !cfg.logY {
			p.Y.Min = 0
		}
		var items []legendItem
		for i, k := range keys {
			ls := lineStyle(seriesColor(i), 2, dashPattern(i))
			gs := glyphStyle(seriesColor(i), 3.2, glyphShape(i))
			items = append(items, legendItem{label: k, thumbs: addLine(p, xs, data[i], ls, &gs)})
			if lo, hi := cfg.spreadLo[k], cfg.spreadHi[k]; lo != nil {
				p.Add(errorBars{X: xs, Lo: lo, Hi: hi, Style: lineStyle(seriesColor(i), 1, nil)})
			}
		}
		c = splitLegendRight(c, items)
		p.Draw(c)
		return nil
	}
	return cfg.apply(newFigure(meta, "Running time vs sequence length", 7*vg.Inch, 4.5*vg.Inch, body)), nil
}
