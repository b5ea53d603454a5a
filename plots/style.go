package plots

import (
	"image/color"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/softshape-go/softshape/data"
)

// Okabe–Ito colours (colour-blind safe), as 0xRRGGBB constants.
const (
	hexBlue          = 0x0072B2
	hexVermillion    = 0xD55E00
	hexBluishGreen   = 0x009E73
	hexOrange        = 0xE69F00
	hexReddishPurple = 0xCC79A7
	hexSkyBlue       = 0x56B4E9
	hexYellow        = 0xF0E442
	hexBlack         = 0x000000
	hexGrey          = 0x999999
	hexLightGrey     = 0xBBBBBB
	hexGridGrey      = 0xE5E5E5
)

// okabeItoLen is the number of colours in the Okabe–Ito palette.
const okabeItoLen = 8

// rgb converts a 0xRRGGBB constant into an opaque colour.
func rgb(h uint32) color.NRGBA {
	return color.NRGBA{R: uint8(h >> 16), G: uint8(h >> 8), B: uint8(h), A: 0xFF}
}

// okabeIto returns the i-th Okabe–Ito colour (i modulo 8), in the order
// blue, vermillion, bluish green, orange, reddish purple, sky blue, yellow,
// black.
func okabeIto(i int) color.NRGBA {
	order := [okabeItoLen]uint32{
		hexBlue, hexVermillion, hexBluishGreen, hexOrange,
		hexReddishPurple, hexSkyBlue, hexYellow, hexBlack,
	}
	return rgb(order[((i%okabeItoLen)+okabeItoLen)%okabeItoLen])
}

// Palette returns the eight Okabe–Ito colours (colour-blind friendly), in the
// order this package assigns them to series: blue, vermillion, bluish green,
// orange, reddish purple, sky blue, yellow, black.
func Palette() []color.Color {
	out := make([]color.Color, okabeItoLen)
	for i := range out {
		out[i] = okabeIto(i)
	}
	return out
}

// seriesColor returns the i-th line colour, cycling over the first six
// Okabe–Ito colours: yellow is too pale for thin lines on white and black is
// kept for averages and reference lines.
func seriesColor(i int) color.NRGBA {
	return okabeIto(i % seriesColors)
}

// seriesColors is the number of colours seriesColor cycles over.
const seriesColors = okabeItoLen - 2

// SeriesStyle is the colour and marker of one series.
type SeriesStyle struct {
	Color color.NRGBA
	Shape draw.GlyphDrawer
}

// styleAt is the i-th series style: colour i mod 6 (seriesColor) and marker
// i mod 8 (glyphShape), so that the first 24 indices give 24 different
// pairs and any 6 consecutive ones 6 different colours.
func styleAt(i int) SeriesStyle {
	return SeriesStyle{Color: seriesColor(i), Shape: glyphShape(i)}
}

// featuredDatasets lead the order of DatasetStyle, so that the datasets this
// project's figures show together get six different colours: the
// reproduction's six (reproduction.Datasets, whose first two are quick mode's),
// then the fidelity check's ECG200 and the interpretability notebook's.
var featuredDatasets = [...]string{
	"ItalyPowerDemand", "GunPoint", "DistalPhalanxOutlineAgeGroup", "MiddlePhalanxTW", "ArrowHead", "Trace",
	"ECG200", "Lightning2", "CBF", "TwoPatterns", "FiftyWords", "ChlorineConcentration",
}

// datasetOrder is the position of every known dataset in the style order:
// featuredDatasets, then the other UCR datasets in the registry's order.
var datasetOrder = sync.OnceValue(func() map[string]int {
	order := map[string]int{}
	for _, n := range featuredDatasets {
		order[n] = len(order)
	}
	for _, info := range data.Registry() {
		if _, ok := order[info.Name]; !ok {
			order[info.Name] = len(order)
		}
	}
	return order
})

// DatasetStyle returns the colour and marker of a dataset, the same in every
// figure of the toolkit whatever the other series: a fixed order of the UCR
// datasets (this project's reproduction datasets first, six different
// Okabe–Ito colours) gives the i-th dataset colour i mod 6 and marker i mod
// 8. ok is false for a name that is not a UCR dataset.
func DatasetStyle(name string) (style SeriesStyle, ok bool) {
	i, ok := datasetOrder()[name]
	if !ok {
		return SeriesStyle{}, false
	}
	return styleAt(i), true
}

// markerColor returns the i-th marker colour for class scatter plots,
// cycling over the seven Okabe–Ito colours other than yellow (too pale for
// small markers).
func markerColor(i int) color.NRGBA {
	order := [...]uint32{hexBlue, hexVermillion, hexBluishGreen, hexOrange, hexReddishPurple, hexSkyBlue, hexBlack}
	return rgb(order[i%len(order)])
}

// fitTitle shrinks a plot's title font (down to 9pt) until the title fits
// the width of c, so that panel titles are never clipped.
func fitTitle(p *plot.Plot, c draw.Canvas) {
	if p.Title.Text == "" {
		return
	}
	width := c.Max.X - c.Min.X
	for p.Title.TextStyle.Width(p.Title.Text) > width && p.Title.TextStyle.Font.Size > vg.Points(9) {
		p.Title.TextStyle.Font.Size -= vg.Points(0.5)
	}
}

// glyphShapes lists distinct marker shapes; markers are cycled together with
// colours so that series stay distinguishable without colour vision.
func glyphShape(i int) draw.GlyphDrawer {
	shapes := [...]draw.GlyphDrawer{
		draw.CircleGlyph{},
		draw.TriangleGlyph{},
		draw.SquareGlyph{},
		draw.PyramidGlyph{},
		draw.CrossGlyph{},
		draw.PlusGlyph{},
		draw.RingGlyph{},
		draw.BoxGlyph{},
	}
	return shapes[i%len(shapes)]
}

// dashPatterns returns distinct dash patterns for lines that must be told
// apart without colour.
func dashPattern(i int) []vg.Length {
	patterns := [...][]vg.Length{
		nil,
		{vg.Points(6), vg.Points(3)},
		{vg.Points(2), vg.Points(2)},
		{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
	}
	return patterns[i%len(patterns)]
}

// paperDashes is the dash pattern of lines showing values from the paper.
func paperDashes() []vg.Length { return []vg.Length{vg.Points(5), vg.Points(3)} }

// attentionColorMap returns the diverging blue–white–red map used for
// attention scores (Moreland's smooth cool–warm map).
func attentionColorMap(lo, hi float64) palette.ColorMap {
	cm := moreland.SmoothBlueRed()
	cm.SetMin(lo)
	cm.SetMax(hi)
	return cm
}

// boldWeight is golang.org/x/image/font.WeightBold, spelled as a constant so
// that the package needs no import beyond gonum/plot.
const boldWeight = 3

// Font sizes, chosen to stay readable at 6 in width.
const (
	titleSize  = 15
	labelSize  = 13
	tickSize   = 12
	legendSize = 12
	smallSize  = 11
	// captionSize is the caption under a figure (Meta.Config).
	captionSize = 10
)

// baseFont returns the sans-serif font of the given size in points.
func baseFont(size float64) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(size)}
}

// textStyle returns a plain text style in the package font.
func textStyle(size float64, c color.Color) text.Style {
	return text.Style{
		Color:   c,
		Font:    baseFont(size),
		Handler: plot.DefaultTextHandler,
	}
}

// newPlot returns a plot styled for this package: sans-serif fonts, larger
// tick and axis labels, light grid-free layout.
func newPlot() *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font = baseFont(labelSize)
	p.Title.Padding = vg.Points(6)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = baseFont(labelSize)
		ax.Tick.Label.Font = baseFont(tickSize)
		ax.Label.Padding = vg.Points(4)
	}
	p.X.Tick.Marker = readableTicks{}
	p.Y.Tick.Marker = readableTicks{}
	p.Legend.TextStyle.Font = baseFont(legendSize)
	return p
}

// newAxes returns newPlot with a grid and the axis labels, the y label
// being cfg.yLabel when set; with cfg.logY the y axis is logarithmic.
func newAxes(cfg config, xLabel, yLabel string) *plot.Plot {
	p := newPlot()
	addGrid(p)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	if cfg.yLabel != "" {
		p.Y.Label.Text = cfg.yLabel
	}
	if cfg.logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	return p
}

// newLegend returns an empty legend in the package style, meant to be drawn
// outside the data area with drawLegendColumn.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = baseFont(legendSize)
	l.Top = true
	l.Left = true
	l.ThumbnailWidth = vg.Points(26)
	l.Padding = vg.Points(3)
	return l
}

// addGrid adds a light grid to p.
func addGrid(p *plot.Plot) {
	g := plotter.NewGrid()
	g.Vertical.Color = rgb(hexGridGrey)
	g.Horizontal.Color = g.Vertical.Color
	g.Vertical.Width = vg.Points(0.5)
	g.Horizontal.Width = vg.Points(0.5)
	p.Add(g)
}
