package plots

import (
	"fmt"
	"image/color"
	"math"
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
	// Label names the series, normally the dataset: a UCR dataset gets its
	// DatasetStyle colour and marker, in this and every other figure; ours
	// and paper series with the same Label share them.
	Label string
	// X holds the swept values (or, with categorical tick labels, values
	// whose sorted order gives the category).
	X []float64
	// Y holds the accuracies, one per X.
	Y []float64
	// SE, when not nil, holds the standard error of each Y (one per X),
	// drawn as an error bar of ± SE; NaN (or 0) draws none.
	SE []float64
}

// SweepAverage is the thick average line of a SweepChart and its band. The
// caller computes it, as its table does (WithAverage), so that the figure
// draws the average its table prints; SweepChart never averages the series
// itself.
type SweepAverage struct {
	// Label is the legend entry, e.g. "average (ours), 2 datasets".
	Label string
	// X and Y are the average at each swept value (NaN: a gap).
	X, Y []float64
	// SE, when not nil, is the half-width of a shaded band around Y (one per
	// X); NaN draws none at that value.
	SE []float64
}

// maxColouredSweep is the largest number of datasets given their own colour
// and legend entry in SweepChart; beyond it per-dataset lines are grey.
const maxColouredSweep = 7

// dodgeFraction is the share of the smallest gap between two swept values
// over which SweepChart spreads the points of the coloured series at one
// value, so that series with equal values (1.000 on two datasets) stay
// visible side by side.
const dodgeFraction = 0.3

// SweepChart draws accuracy against a swept hyper-parameter (sparse ratio,
// sliding step, depth, number of experts): one line per dataset in ours
// (solid, with its DatasetStyle colour and marker and ± SE error bars where
// given) and the paper's values as dashed lines in the same colours; the
// averages given with WithAverage and WithPaperAverage as thick black lines,
// solid and dashed, with a grey band of ± their SE. The points of the
// datasets are spread a little sideways around each swept value (the
// average's are not), so that equal values stay visible.
//
// xTicks, when non-nil, makes the x axis categorical: the distinct X values
// of all series, sorted, are placed at equal spacing and labelled
// xTicks[0], xTicks[1], … (for example "q=1" … "q=m"); len(xTicks) must equal
// the number of distinct X values.
//
// Up to seven datasets get their own colour and legend entry; with more,
// per-dataset lines are grey and the legend shows the count. The legend sits
// outside the data area, on the right. Options: WithAverage,
// WithPaperAverage, WithoutAverage, WithUnorderedX (categories without an
// order: markers, no lines), WithLogY, WithYLabel, WithSize, WithDPI.
func SweepChart(meta Meta, xLabel string, xTicks []string, ours []SweepSeries, paper []SweepSeries, opts ...Option) (*Figure, error) {
	cfg := newConfig(opts)
	if len(ours)+len(paper) == 0 {
		return nil, fmt.Errorf("%w: SweepChart needs at least one series", ErrEmpty)
	}
	var xs []float64
	check := func(what string, x, y, se []float64, needPoints bool) error {
		if needPoints && len(x) == 0 {
			return fmt.Errorf("%w: SweepChart %s has no points", ErrEmpty, what)
		}
		if len(x) != len(y) {
			return fmt.Errorf("%w: SweepChart %s has %d X and %d Y", ErrLength, what, len(x), len(y))
		}
		if se != nil && len(se) != len(x) {
			return fmt.Errorf("%w: SweepChart %s has %d X and %d SE", ErrLength, what, len(x), len(se))
		}
		if err := checkFinite("SweepChart "+what+".X", x); err != nil {
			return err
		}
		if err := checkNoInf("SweepChart "+what+".Y", y); err != nil {
			return err
		}
		if err := checkNoInf("SweepChart "+what+".SE", se); err != nil {
			return err
		}
		for i, v := range se {
			if v < 0 {
				return fmt.Errorf("%w: SweepChart %s.SE[%d] = %v is negative", ErrValue, what, i, v)
			}
		}
		if cfg.logY {
			return checkPositive("SweepChart "+what+".Y", y)
		}
		return nil
	}
	for _, group := range []struct {
		name string
		ss   []SweepSeries
	}{{"ours", ours}, {"paper", paper}} {
		for i, s := range group.ss {
			if err := check(fmt.Sprintf("%s[%d] %q", group.name, i, s.Label), s.X, s.Y, s.SE, true); err != nil {
				return nil, err
			}
			xs = append(xs, s.X...)
		}
	}
	var avgs []*SweepAverage
	for _, a := range []*SweepAverage{cfg.avgOurs, cfg.avgPaper} {
		if a == nil || cfg.noAvg {
			avgs = append(avgs, nil)
			continue
		}
		if err := check(fmt.Sprintf("average %q", a.Label), a.X, a.Y, a.SE, false); err != nil {
			return nil, err
		}
		xs = append(xs, a.X...)
		avgs = append(avgs, &SweepAverage{Label: a.Label, X: slices.Clone(a.X), Y: slices.Clone(a.Y), SE: slices.Clone(a.SE)})
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
	mapAll := func(in []float64) []float64 {
		out := make([]float64, len(in))
		for j, x := range in {
			out[j] = mapX(x)
		}
		return out
	}
	copySeries := func(in []SweepSeries) []SweepSeries {
		out := make([]SweepSeries, len(in))
		for i, s := range in {
			out[i] = SweepSeries{Label: s.Label, X: mapAll(s.X), Y: slices.Clone(s.Y), SE: slices.Clone(s.SE)}
		}
		return out
	}
	oursC, paperC := copySeries(ours), copySeries(paper)
	for _, a := range avgs {
		if a != nil {
			a.X = mapAll(a.X)
		}
	}
	ticks := slices.Clone(xTicks)
	distinctX := slices.Clone(xs)
	if ticks != nil {
		distinctX = mapAll(xs)
	}

	lay := sweepLayout(append(slices.Clone(oursC), paperC...), distinctX)

	body := func(c draw.Canvas) error {
		p := newAxes(cfg, xLabel, "Test accuracy")
		if ticks != nil {
			tk := make([]plot.Tick, len(ticks))
			for i, t := range ticks {
				tk[i] = plot.Tick{Value: float64(i), Label: t}
			}
			p.X.Tick.Marker = plot.ConstantTicks(tk)
			slantLongLabels(&p.X, ticks)
			p.X.Min, p.X.Max = -0.3, float64(len(ticks)-1)+0.3
		} else {
			if tk := valueTicks(distinctX); tk != nil {
				p.X.Tick.Marker = plot.ConstantTicks(tk)
			}
			if n := len(distinctX); n > 1 && !cfg.logY {
				// Room for the shifted points and their markers.
				pad := lay.spread/2 + 0.05*(distinctX[n-1]-distinctX[0])
				p.X.Min, p.X.Max = distinctX[0]-pad, distinctX[n-1]+pad
			}
		}

		items := drawSweep(p, lay, oursC, paperC, avgs, cfg.unordered)
		if !cfg.logY {
			padY(p, 0.04)
		}
		if !lay.coloured || len(items) > 1 {
			c = splitLegendRight(c, items)
		}
		p.Draw(c)
		return nil
	}
	return cfg.apply(newFigure(meta, "Accuracy vs "+xLabelOrDefault(xLabel), 7.5*vg.Inch, 4.5*vg.Inch, body)), nil
}

// avgOffset is how far right of the datasets' outermost markers a
// SweepChart of unordered categories draws the averages, in category widths.
const avgOffset = 0.1

// drawSweep adds SweepChart's series to p: the averages' bands, ours with
// their error bars, the paper's, then the averages (avgs: ours, paper; nil
// entries skipped), joined by lines unless the categories are unordered. It
// returns the legend entries.
func drawSweep(p plotAdder, lay sweepLayoutResult, oursC, paperC []SweepSeries, avgs []*SweepAverage, unordered bool) []legendItem {
	// The averages' bands first, under everything else (unordered
	// categories: a bar on the average's marker instead).
	for _, a := range avgs {
		if a != nil && !unordered {
			p.Add(band{X: a.X, Y: a.Y, SE: a.SE, Color: color.NRGBA{A: 0x26}})
		}
	}
	for _, s := range oursC {
		st := lay.styles[s.Label]
		dx := shifted(s.X, lay.dodge[s.Label])
		gs := glyphStyle(st.Color, 3, st.Shape)
		if unordered {
			addPoints(p, dx, s.Y, gs)
		} else {
			addLine(p, dx, s.Y, lineStyle(st.Color, st.width, nil), &gs)
		}
		if s.SE != nil {
			p.Add(seBars(dx, s.Y, s.SE, lineStyle(st.Color, 1, nil)))
		}
	}
	for _, s := range paperC {
		st := lay.styles[s.Label]
		dx := shifted(s.X, lay.dodge[s.Label])
		if unordered {
			addPoints(p, dx, s.Y, paperDash(st.Color))
		} else {
			addLine(p, dx, s.Y, lineStyle(st.Color, st.width, paperDashes()), nil)
		}
	}
	items := sweepLegend(lay, oursC, paperC, unordered)
	for i, a := range avgs {
		if a == nil {
			continue
		}
		ls := lineStyle(rgb(hexBlack), 3, nil)
		gs := glyphStyle(rgb(hexBlack), 3.5, draw.CircleGlyph{})
		if i == 1 {
			ls.Dashes = []vg.Length{vg.Points(7), vg.Points(4)}
			gs = glyphStyle(rgb(hexBlack), 4, draw.TriangleGlyph{})
		}
		var th []plot.Thumbnailer
		switch {
		case unordered:
			// Right of the datasets' markers, ours and the paper's at
			// the same place (ours the larger marker).
			x := shifted(a.X, lay.spread/2+avgOffset)
			if i == 0 {
				gs.Radius = vg.Points(4.5)
			}
			th = addPoints(p, x, a.Y, gs)
			if a.SE != nil {
				p.Add(seBars(x, a.Y, a.SE, lineStyle(rgb(hexBlack), 2, nil)))
			}
		default:
			th = addLine(p, a.X, a.Y, ls, &gs)
			if a.SE != nil {
				th = append([]plot.Thumbnailer{bandThumb{color.NRGBA{A: 0x26}}}, th...)
			}
		}
		items = append(items, legendItem{label: a.Label, thumbs: th})
	}
	return items
}

// sweepLegend returns the legend entries of a SweepChart's series (ours
// and paper, laid out by lay), each drawn as in the chart: a label with an
// ours series as a solid line with its markers, a label of paper series
// only as a dashed line without markers; then, where a label has both, the
// keys "ours" (solid) and "paper" (dashed). With unordered categories there
// are no lines: ours is its marker, the paper's a short dash. With too many
// labels to colour, one grey entry counts them.
func sweepLegend(lay sweepLayoutResult, ours, paper []SweepSeries, unordered bool) []legendItem {
	has := func(ss []SweepSeries, l string) bool {
		return slices.ContainsFunc(ss, func(s SweepSeries) bool { return s.Label == l })
	}
	// oursKey and paperKey draw a series of ours (with its marker shape,
	// nil: a line alone) and of the paper in c. The keys without a dataset's
	// own shape (the grey count, "ours") are a plain line, or a circle where
	// nothing is a line.
	oursKey := func(c color.Color, width float64, shape draw.GlyphDrawer) []plot.Thumbnailer {
		gs := glyphStyle(c, 3, shape)
		switch {
		case unordered:
			return markerThumbs(gs)
		case shape == nil:
			return thumbs(lineStyle(c, width, nil), nil)
		}
		return thumbs(lineStyle(c, width, nil), &gs)
	}
	paperKey := func(c color.Color, width float64) []plot.Thumbnailer {
		if unordered {
			return markerThumbs(paperDash(c))
		}
		return thumbs(lineStyle(c, width, paperDashes()), nil)
	}
	var plainShape draw.GlyphDrawer // the keys without a dataset's shape
	if unordered {
		plainShape = draw.CircleGlyph{}
	}
	shared := slices.ContainsFunc(ours, func(s SweepSeries) bool { return has(paper, s.Label) })
	var items []legendItem
	if lay.coloured {
		for _, l := range lay.labels {
			st := lay.styles[l]
			if !has(ours, l) {
				items = append(items, legendItem{label: l, thumbs: paperKey(st.Color, 2)})
				continue
			}
			items = append(items, legendItem{label: l, thumbs: oursKey(st.Color, 2, st.Shape)})
		}
	} else {
		items = append(items, legendItem{label: fmt.Sprintf("%d datasets", len(lay.labels)), thumbs: oursKey(rgb(hexLightGrey), 1.5, plainShape)})
	}
	// Style keys, where a label has both: solid (a marker) is ours, dashed
	// (a dash) the paper.
	if shared {
		items = append(items, legendItem{label: "ours", thumbs: oursKey(rgb(hexGrey), 1.5, plainShape)})
		items = append(items, legendItem{label: "paper", thumbs: paperKey(rgb(hexGrey), 1.5)})
	}
	return items
}

// paperDash is the marker of the paper's value in a SweepChart of unordered
// categories: a short horizontal dash in the dataset's colour.
func paperDash(c color.Color) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(5), Shape: dashGlyph{}}
}

// dashGlyph draws a horizontal stroke 2 × radius long, as thick as a line
// of the chart.
type dashGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (dashGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	ls := draw.LineStyle{Color: sty.Color, Width: vg.Points(2)}
	c.StrokeLine2(ls, pt.X-sty.Radius, pt.Y, pt.X+sty.Radius, pt.Y)
}

// sweepStyle is how SweepChart draws one label.
type sweepStyle struct {
	SeriesStyle
	width float64
}

// sweepLayoutResult is the style and sideways shift of every label of a
// SweepChart.
type sweepLayoutResult struct {
	// labels: the datasets in DatasetStyle's order, then the other labels
	// in order of first appearance.
	labels []string
	// coloured is false when there are too many labels to colour.
	coloured bool
	styles   map[string]sweepStyle
	dodge    map[string]float64
	// spread is the distance between the leftmost and rightmost shift.
	spread float64
}

// sweepLayout gives each label of ss its style and shift: a UCR dataset its
// DatasetStyle, any other label the first styles no dataset of the chart
// has (in order of appearance); with more than maxColouredSweep labels all
// are thin grey. The coloured labels are shifted sideways, in the order of
// labels, over dodgeFraction of the smallest gap of xs.
func sweepLayout(ss []SweepSeries, xs []float64) sweepLayoutResult {
	r := sweepLayoutResult{styles: map[string]sweepStyle{}, dodge: map[string]float64{}}
	for _, s := range ss {
		if !slices.Contains(r.labels, s.Label) {
			r.labels = append(r.labels, s.Label)
		}
	}
	// Datasets in their fixed order (so the legend and the shifts are the
	// same in every figure), then the other labels as they come.
	order := datasetOrder()
	slices.SortStableFunc(r.labels, func(a, b string) int {
		ia, okA := order[a]
		ib, okB := order[b]
		switch {
		case okA && okB:
			return ia - ib
		case okA:
			return -1
		case okB:
			return 1
		}
		return 0
	})
	r.coloured = len(r.labels) <= maxColouredSweep
	if !r.coloured {
		for _, l := range r.labels {
			r.styles[l] = sweepStyle{SeriesStyle{Color: rgb(hexLightGrey), Shape: draw.CircleGlyph{}}, 1}
		}
		return r
	}
	used := map[color.NRGBA]bool{}
	var others []string
	for _, l := range r.labels {
		if st, ok := DatasetStyle(l); ok {
			r.styles[l] = sweepStyle{st, 1.4}
			used[st.Color] = true
		} else {
			others = append(others, l)
		}
	}
	for i := 0; len(others) > 0; i++ {
		st := styleAt(i)
		if used[st.Color] && i < seriesColors {
			continue
		}
		r.styles[others[0]] = sweepStyle{st, 1.4}
		others = others[1:]
	}
	gap := math.Inf(1)
	for i := 1; i < len(xs); i++ {
		gap = math.Min(gap, xs[i]-xs[i-1])
	}
	if n := len(r.labels); n > 1 && !math.IsInf(gap, 1) {
		step := dodgeFraction * gap / float64(n-1)
		for i, l := range r.labels {
			r.dodge[l] = (float64(i) - float64(n-1)/2) * step
		}
		r.spread = dodgeFraction * gap
	}
	return r
}

// shifted returns xs moved by d.
func shifted(xs []float64, d float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x + d
	}
	return out
}

// errorBars is a plotter drawing a vertical bar from Lo[i] to Hi[i] with
// small caps at X[i]; a NaN bound, or Lo[i] == Hi[i], draws nothing there.
type errorBars struct {
	X, Lo, Hi []float64
	Style     draw.LineStyle
}

// seBars are the error bars of Y ± SE. A NaN SE draws nothing and counts
// as zero, so the bars' data range still holds Y.
func seBars(xs, ys, se []float64, style draw.LineStyle) errorBars {
	e := errorBars{X: xs, Lo: make([]float64, len(xs)), Hi: make([]float64, len(xs)), Style: style}
	for i := range xs {
		d := se[i]
		if math.IsNaN(d) {
			d = 0
		}
		e.Lo[i], e.Hi[i] = ys[i]-d, ys[i]+d
	}
	return e
}

// Plot implements plot.Plotter.
func (e errorBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	capW := vg.Points(2.5)
	for i := range e.X {
		if math.IsNaN(e.Lo[i]) || math.IsNaN(e.Hi[i]) || e.Lo[i] == e.Hi[i] {
			continue
		}
		x := trX(e.X[i])
		lo, hi := trY(e.Lo[i]), trY(e.Hi[i])
		for _, l := range [][]vg.Point{{{X: x, Y: lo}, {X: x, Y: hi}}, {{X: x - capW, Y: lo}, {X: x + capW, Y: lo}}, {{X: x - capW, Y: hi}, {X: x + capW, Y: hi}}} {
			c.StrokeLines(e.Style, c.ClipLinesXY(l)...)
		}
	}
}

// DataRange implements plot.DataRanger: the bars stay inside the axes.
func (e errorBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	var xs, ys []float64
	for i, x := range e.X {
		if !math.IsNaN(e.Lo[i]) && !math.IsNaN(e.Hi[i]) {
			xs, ys = append(xs, x, x), append(ys, e.Lo[i], e.Hi[i])
		}
	}
	return seRange(xs, ys, nil)
}

// band is a plotter shading Y ± SE between consecutive X (a NaN breaks it).
type band struct {
	X, Y, SE []float64
	Color    color.Color
}

// Plot implements plot.Plotter.
func (b band) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ok := func(i int) bool { return !math.IsNaN(b.Y[i]) && b.SE != nil && !math.IsNaN(b.SE[i]) }
	order := make([]int, len(b.X))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return cmpFloat(b.X[i], b.X[j]) })
	for k := 0; k < len(order); {
		if !ok(order[k]) {
			k++
			continue
		}
		e := k
		for e+1 < len(order) && ok(order[e+1]) {
			e++
		}
		var pts []vg.Point
		for _, i := range order[k : e+1] {
			pts = append(pts, vg.Point{X: trX(b.X[i]), Y: trY(b.Y[i] + b.SE[i])})
		}
		for m := e; m >= k; m-- {
			i := order[m]
			pts = append(pts, vg.Point{X: trX(b.X[i]), Y: trY(b.Y[i] - b.SE[i])})
		}
		if k == e { // one point: a short bar
			w := vg.Points(4)
			pts = []vg.Point{{X: pts[0].X - w, Y: pts[0].Y}, {X: pts[0].X + w, Y: pts[0].Y}, {X: pts[1].X + w, Y: pts[1].Y}, {X: pts[1].X - w, Y: pts[1].Y}}
		}
		c.FillPolygon(b.Color, c.ClipPolygonXY(pts))
		k = e + 1
	}
}

// DataRange implements plot.DataRanger.
func (b band) DataRange() (xmin, xmax, ymin, ymax float64) {
	return seRange(b.X, b.Y, b.SE)
}

// seRange is the range of the points X, Y ± SE (NaN left out).
func seRange(xs, ys, se []float64) (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i, x := range xs {
		y := ys[i]
		if math.IsNaN(y) {
			continue
		}
		d := 0.0
		if se != nil && !math.IsNaN(se[i]) {
			d = se[i]
		}
		xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		ymin, ymax = math.Min(ymin, y-d), math.Max(ymax, y+d)
	}
	if math.IsInf(xmin, 1) { // nothing to draw: a range that changes nothing
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	return xmin, xmax, ymin, ymax
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// bandThumb is the legend thumbnail of a band.
type bandThumb struct{ Color color.Color }

// Thumbnail implements plot.Thumbnailer.
func (t bandThumb) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(t.Color, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}})
}

// xLabelOrDefault returns label, or "swept value" when it is empty.
func xLabelOrDefault(label string) string {
	if label == "" {
		return "swept value"
	}
	return label
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
