package plots

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"unicode"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// checkFinite returns an ErrValue error naming what when xs holds NaN or ±Inf.
func checkFinite(what string, xs []float64) error {
	for i, v := range xs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s[%d] = %v", ErrValue, what, i, v)
		}
	}
	return nil
}

// checkNoInf returns an ErrValue error naming what when xs holds ±Inf (NaN
// is allowed and marks a missing value).
func checkNoInf(what string, xs []float64) error {
	for i, v := range xs {
		if math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s[%d] = %v", ErrValue, what, i, v)
		}
	}
	return nil
}

// checkPositive returns an ErrValue error when a non-NaN value of xs is not
// strictly positive (needed on log axes).
func checkPositive(what string, xs []float64) error {
	for i, v := range xs {
		if !math.IsNaN(v) && v <= 0 {
			return fmt.Errorf("%w: %s[%d] = %v must be > 0 on a log axis", ErrValue, what, i, v)
		}
	}
	return nil
}

// allNaN reports whether every value of xs is NaN (or xs is empty).
func allNaN(xs []float64) bool {
	for _, v := range xs {
		if !math.IsNaN(v) {
			return false
		}
	}
	return true
}

// segments splits the points (xs[i], ys[i]) into runs without NaN, so that a
// missing value breaks the line.
func segments(xs, ys []float64) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range xs {
		if math.IsNaN(ys[i]) || math.IsNaN(xs[i]) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: xs[i], Y: ys[i]})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// lineStyle returns a line style.
func lineStyle(c color.Color, width float64, dashes []vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(width), Dashes: dashes}
}

// glyphStyle returns a marker style.
func glyphStyle(c color.Color, radius float64, shape draw.GlyphDrawer) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(radius), Shape: shape}
}

// padY widens p's y range by frac of its span at each end, so that a line
// at the highest or lowest value does not run along the frame.
func padY(p *plot.Plot, frac float64) {
	if span := p.Y.Max - p.Y.Min; span > 0 {
		p.Y.Min -= frac * span
		p.Y.Max += frac * span
	}
}

// plotAdder is what the add helpers draw into: a *plot.Plot, or a recorder
// in tests.
type plotAdder interface{ Add(ps ...plot.Plotter) }

// addLine adds the points (xs, ys) to p as a line (broken at NaN) with
// optional markers, and returns legend thumbnails for that style.
func addLine(p plotAdder, xs, ys []float64, ls draw.LineStyle, gs *draw.GlyphStyle) []plot.Thumbnailer {
	for _, seg := range segments(xs, ys) {
		if len(seg) > 1 {
			l := &plotter.Line{XYs: seg, LineStyle: ls}
			p.Add(l)
		}
		if gs != nil || len(seg) == 1 {
			sc := &plotter.Scatter{XYs: seg, GlyphStyle: glyphStyle(ls.Color, 2.5, draw.CircleGlyph{})}
			if gs != nil {
				sc.GlyphStyle = *gs
			}
			p.Add(sc)
		}
	}
	return thumbs(ls, gs)
}

// addPoints adds the points (xs, ys) to p as markers without a line (NaN:
// none), and returns the legend thumbnail of that marker.
func addPoints(p plotAdder, xs, ys []float64, gs draw.GlyphStyle) []plot.Thumbnailer {
	for _, seg := range segments(xs, ys) {
		p.Add(&plotter.Scatter{XYs: seg, GlyphStyle: gs})
	}
	return markerThumbs(gs)
}

// markerThumbs returns the legend thumbnail of a marker without a line.
func markerThumbs(gs draw.GlyphStyle) []plot.Thumbnailer {
	return []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: gs}}
}

// thumbs returns legend thumbnails showing a line style and an optional
// marker.
func thumbs(ls draw.LineStyle, gs *draw.GlyphStyle) []plot.Thumbnailer {
	out := []plot.Thumbnailer{&plotter.Line{LineStyle: ls}}
	if gs != nil {
		out = append(out, &plotter.Scatter{GlyphStyle: *gs})
	}
	return out
}

// vLine is a plotter drawing a vertical line at X over the whole data area;
// it does not change the axis ranges.
type vLine struct {
	X     float64
	Style draw.LineStyle
}

// Plot implements plot.Plotter.
func (v vLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(v.X)
	c.StrokeLine2(v.Style, x, c.Min.Y, x, c.Max.Y)
}

// naturalLess orders strings so that embedded numbers compare by value
// ("η=5%" < "η=10%" < "η=50%"), falling back to plain comparison.
func naturalLess(a, b string) bool {
	ca, cb := naturalChunks(a), naturalChunks(b)
	for i := 0; i < len(ca) && i < len(cb); i++ {
		x, y := ca[i], cb[i]
		if x.isNum && y.isNum {
			if x.num != y.num {
				return x.num < y.num
			}
			continue
		}
		if x.text != y.text {
			return x.text < y.text
		}
	}
	if len(ca) != len(cb) {
		return len(ca) < len(cb)
	}
	return a < b
}

// naturalChunk is a run of digits (with its value) or of other characters.
type naturalChunk struct {
	text  string
	num   float64
	isNum bool
}

// naturalChunks splits s into digit runs (a decimal point between digits
// stays in the number) and non-digit runs.
func naturalChunks(s string) []naturalChunk {
	var out []naturalChunk
	rs := []rune(s)
	for i := 0; i < len(rs); {
		j := i
		if unicode.IsDigit(rs[i]) {
			for j < len(rs) && (unicode.IsDigit(rs[j]) || (rs[j] == '.' && j+1 < len(rs) && unicode.IsDigit(rs[j+1]))) {
				j++
			}
			txt := string(rs[i:j])
			var v float64
			if _, err := fmt.Sscanf(txt, "%g", &v); err == nil {
				out = append(out, naturalChunk{text: txt, num: v, isNum: true})
			} else {
				out = append(out, naturalChunk{text: txt})
			}
		} else {
			for j < len(rs) && !unicode.IsDigit(rs[j]) {
				j++
			}
			out = append(out, naturalChunk{text: strings.ToLower(string(rs[i:j]))})
		}
		i = j
	}
	return out
}

// alignPlots crops the canvases so that the data areas of plots stacked in
// one column share their left and right edges.
func alignPlots(ps []*plot.Plot, cs []draw.Canvas) []draw.Canvas {
	out := make([]draw.Canvas, len(cs))
	var left, right vg.Length
	for i, p := range ps {
		dc := p.DataCanvas(cs[i])
		left = max(left, dc.Min.X-cs[i].Min.X)
		right = max(right, cs[i].Max.X-dc.Max.X)
	}
	for i, p := range ps {
		dc := p.DataCanvas(cs[i])
		l := left - (dc.Min.X - cs[i].Min.X)
		r := right - (cs[i].Max.X - dc.Max.X)
		out[i] = draw.Crop(cs[i], l, -r, 0, 0)
	}
	return out
}
