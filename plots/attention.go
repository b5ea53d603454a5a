package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// stepScores maps per-shape scores onto the n time steps of a series: shape
// j covers steps [j*stride, j*stride+shapeLen) (clipped to n), and each
// step gets the mean (AggMean) or the maximum (AggMax) of the scores of the
// shapes covering it; steps covered by no shape get NaN.
func stepScores(n int, scores []float64, shapeLen, stride int, agg Aggregation) []float64 {
	out := make([]float64, n)
	cnt := make([]int, n)
	for t := range out {
		if agg == AggMax {
			out[t] = math.Inf(-1)
		}
	}
	for j, s := range scores {
		start := j * stride
		for t := start; t < start+shapeLen && t < n; t++ {
			if agg == AggMax {
				out[t] = math.Max(out[t], s)
			} else {
				out[t] += s
			}
			cnt[t]++
		}
	}
	for t := range out {
		switch {
		case cnt[t] == 0:
			out[t] = math.NaN()
		case agg != AggMax:
			out[t] /= float64(cnt[t])
		}
	}
	return out
}

// colourAt returns the colour of v in cm, clamping v to the map's range.
func colourAt(cm palette.ColorMap, v float64) color.Color {
	v = math.Max(cm.Min(), math.Min(cm.Max(), v))
	c, err := cm.At(v)
	if err != nil {
		return rgb(hexLightGrey)
	}
	return c
}

// scoreBands is a plotter shading the full height of the data area behind
// each time step with the colour of its score (NaN: no shading).
type scoreBands struct {
	scores []float64
	cm     palette.ColorMap
}

// Plot implements plot.Plotter.
func (b scoreBands) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for t := 0; t < len(b.scores); {
		u := t
		for u+1 < len(b.scores) && (b.scores[u+1] == b.scores[t] || (math.IsNaN(b.scores[u+1]) && math.IsNaN(b.scores[t]))) {
			u++
		}
		if !math.IsNaN(b.scores[t]) {
			xa, xb := trX(float64(t)-0.5), trX(float64(u)+0.5)
			// Each band reaches 1pt into the next one, which is drawn over
			// it: no anti-aliasing seams between bands.
			xb += vg.Points(1)
			pts := []vg.Point{{X: xa, Y: c.Min.Y}, {X: xb, Y: c.Min.Y}, {X: xb, Y: c.Max.Y}, {X: xa, Y: c.Max.Y}}
			c.FillPolygon(colourAt(b.cm, b.scores[t]), c.ClipPolygonX(pts))
		}
		t = u + 1
	}
}

// scoreBars is a plotter drawing one bar per shape, coloured by its score.
type scoreBars struct {
	scores []float64
	base   float64
	cm     palette.ColorMap
	// kept, when set, marks the shapes kept as tokens; the others' bars are
	// drawn hollow.
	kept []bool
}

// Plot implements plot.Plotter.
func (b scoreBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	half := 0.4
	if len(b.scores) > 60 {
		half = 0.5 // touching bars read better when there are many
	}
	edge := lineStyle(rgb(0x555555), 0.4, nil)
	hollow := lineStyle(rgb(0x555555), 0.8, nil)
	for j, s := range b.scores {
		xa, xb := trX(float64(j)-half), trX(float64(j)+half)
		ya, yb := trY(b.base), trY(s)
		pts := []vg.Point{{X: xa, Y: ya}, {X: xb, Y: ya}, {X: xb, Y: yb}, {X: xa, Y: yb}}
		if b.kept != nil && !b.kept[j] {
			c.StrokeLines(hollow, c.ClipLinesXY(append(pts, pts[0]))...)
			continue
		}
		c.FillPolygon(colourAt(b.cm, s), c.ClipPolygonXY(pts))
		if len(b.scores) <= 60 {
			c.StrokeLines(edge, c.ClipLinesXY(append(pts, pts[0]))...)
		}
	}
}

// DataRange implements plot.DataRanger.
func (b scoreBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	lo, hi := slices.Min(b.scores), slices.Max(b.scores)
	return -0.6, float64(len(b.scores)) - 0.4, math.Min(lo, b.base), math.Max(hi, b.base)
}

// AttentionMap draws the MIL interpretability figure of the paper (Figs 4
// and 9): in the upper panel the series, with the background behind each
// time step coloured by the attention score of the shapes covering it
// (diverging blue–white–red: red is high / discriminative, blue is low);
// in the lower panel the score of each shape as a bar in the same colours;
// and a colour bar. Shape j covers [j*stride, j*stride+shapeLen); a time step
// takes the mean of the scores of the shapes covering it (WithAggregation
// (AggMax) takes the maximum); steps no shape covers stay white.
//
// Shapes may run past the end of the series (they are clipped) but each must
// start inside it. The colour scale spans the scores' range unless
// WithScoreRange fixes it; the caption then says so and gives that range, as
// near-uniform scores (0.50–0.52) stretched over the whole scale look sharply
// localised. Options: WithAggregation, WithScoreRange, WithSize, WithDPI.
func AttentionMap(meta Meta, series []float64, scores []float64, shapeLen, stride int, opts ...Option) (*Figure, error) {
	cfg := newConfig(opts)
	if len(series) == 0 {
		return nil, fmt.Errorf("%w: AttentionMap needs a series", ErrEmpty)
	}
	if len(scores) == 0 {
		return nil, fmt.Errorf("%w: AttentionMap needs shape scores", ErrEmpty)
	}
	if shapeLen < 1 || stride < 1 {
		return nil, fmt.Errorf("%w: AttentionMap shape length %d and stride %d must be ≥ 1", ErrValue, shapeLen, stride)
	}
	if last := (len(scores) - 1) * stride; last >= len(series) {
		return nil, fmt.Errorf("%w: AttentionMap has %d shapes with stride %d (last starts at %d) for a series of length %d",
			ErrLength, len(scores), stride, last, len(series))
	}
	if err := checkFinite("AttentionMap series", series); err != nil {
		return nil, err
	}
	if err := checkFinite("AttentionMap scores", scores); err != nil {
		return nil, err
	}
	if cfg.agg != AggMean && cfg.agg != AggMax {
		return nil, fmt.Errorf("%w: AttentionMap aggregation %v", ErrValue, cfg.agg)
	}
	if cfg.kept != nil && len(cfg.kept) != len(scores) {
		return nil, fmt.Errorf("%w: AttentionMap has %d kept marks for %d shapes", ErrLength, len(cfg.kept), len(scores))
	}
	ser := slices.Clone(series)
	sc := slices.Clone(scores)
	steps := stepScores(len(ser), sc, shapeLen, stride, cfg.agg)
	lo, hi := slices.Min(sc), slices.Max(sc)
	scaleNote := fmt.Sprintf("Colours span the scores' own range %s–%s (not a fixed scale): read the bars' values.",
		formatScore(lo, hi, lo), formatScore(lo, hi, hi))
	if cfg.hasRange {
		lo, hi = cfg.scoreRange[0], cfg.scoreRange[1]
		scaleNote = fmt.Sprintf("Colour scale fixed at %s–%s (white: %s); scores here %s–%s.", formatScore(lo, hi, lo), formatScore(lo, hi, hi),
			formatScore(lo, hi, (lo+hi)/2), formatScore(lo, hi, slices.Min(sc)), formatScore(lo, hi, slices.Max(sc)))
	}
	if !(lo < hi) {
		lo, hi = lo-0.5, hi+0.5
	}
	base := 0.0
	if lo < 0 && slices.Min(sc) < 0 {
		base = slices.Min(sc)
	}

	body := func(c draw.Canvas) error {
		cm := attentionColorMap(lo, hi)

		top := newPlot()
		top.Title.Text = "Series coloured by shape attention"
		top.X.Label.Text = "Time step"
		top.Y.Label.Text = "Value"
		top.Add(scoreBands{scores: steps, cm: cm})
		xy := make(plotter.XYs, len(ser))
		for t, v := range ser {
			xy[t] = plotter.XY{X: float64(t), Y: v}
		}
		top.Add(&plotter.Line{XYs: xy, LineStyle: lineStyle(rgb(hexBlack), 1.6, nil)})
		top.X.Min, top.X.Max = -0.5, float64(len(ser))-0.5
		top.X.Tick.Marker = readableTicks{integers: true}

		bottom := newPlot()
		bottom.Title.Text = fmt.Sprintf("Attention score per shape (m = %d, q = %d)", shapeLen, stride)
		if cfg.kept != nil {
			bottom.Title.Text = fmt.Sprintf("Attention score per shape (m = %d, q = %d; %d of %d kept)", shapeLen, stride, countTrue(cfg.kept), len(sc))
		}
		bottom.X.Label.Text = "Shape index j"
		bottom.Y.Label.Text = "Score"
		bottom.X.Tick.Marker = readableTicks{integers: true}
		addGrid(bottom)
		bottom.Add(scoreBars{scores: sc, base: base, cm: cm, kept: cfg.kept})

		bar := newPlot()
		bar.HideX()
		bar.Y.Label.Text = fmt.Sprintf("Score (%s)", cfg.agg)
		bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true, Colors: 128})

		barW := vg.Points(tickSize*4.5 + labelSize*2)
		main := c
		main.Max.X -= barW + vg.Points(6)
		barC := c
		barC.Min.X = c.Max.X - barW

		split := main.Min.Y + (main.Max.Y-main.Min.Y)*0.42
		topC, botC := main, main
		topC.Min.Y = split + vg.Points(6)
		botC.Max.Y = split - vg.Points(6)
		cs := alignPlots([]*plot.Plot{top, bottom}, []draw.Canvas{topC, botC})
		fitTitle(top, cs[0])
		fitTitle(bottom, cs[1])
		top.Draw(cs[0])
		bottom.Draw(cs[1])

		// The colour bar spans the upper panel's data area.
		dc := top.DataCanvas(cs[0])
		barC.Min.Y, barC.Max.Y = dc.Min.Y, dc.Max.Y
		bar.Draw(barC)
		return nil
	}
	f := newFigure(meta, "MIL attention map", 8*vg.Inch, 6*vg.Inch, body)
	f.addCaption(scaleNote)
	if cfg.kept != nil {
		k := countTrue(cfg.kept)
		f.addCaption(fmt.Sprintf("Filled bars: the %d of %d shapes kept as tokens; hollow bars: the %d fused into one token.", k, len(sc), len(sc)-k))
	}
	return cfg.apply(f), nil
}

// countTrue counts the true entries of b.
func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// formatScore writes v with the decimals that tell lo and hi apart (at
// least two).
func formatScore(lo, hi, v float64) string {
	prec := 2
	if d := math.Abs(hi - lo); d > 0 && d < 0.1 {
		prec = min(6, int(math.Ceil(-math.Log10(d)))+1)
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}
