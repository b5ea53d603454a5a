package plots

import (
	"fmt"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Scatter2D is one panel of ScatterPanels: 2-D points (for example a t-SNE
// embedding) and the class of each point.
type Scatter2D struct {
	// Title names the panel, e.g. "(a) Input shape embeddings".
	Title string
	// X and Y are the coordinates.
	X, Y []float64
	// Class is the class id of each point (≥ 0).
	Class []int
}

// maxLegendClasses is the largest number of classes listed in the legend of
// ScatterPanels; with more, the legend only gives the count.
const maxLegendClasses = 20

// ScatterPanels draws 2-D scatter plots (t-SNE of embeddings at up to four
// stages, paper Figs 5 and 10–12) side by side, points coloured by class with
// the Okabe–Ito palette and a per-class marker shape so that classes stay
// distinguishable without colour. classNames[id] names class id; when nil,
// classes are called "class <id>". The shared legend sits on the right
// (only the class count when there are more than 20 classes). Axes carry no
// ticks since t-SNE coordinates have no units. Options: WithGrid (default one
// row), WithSize, WithDPI.
func ScatterPanels(meta Meta, panels []Scatter2D, classNames []string, opts ...Option) (*Figure, error) {
	cfg := newConfig(opts)
	if len(panels) == 0 {
		return nil, fmt.Errorf("%w: ScatterPanels needs at least one panel", ErrEmpty)
	}
	rows, cols := 1, len(panels)
	if cfg.gridRows > 0 || cfg.gridCols > 0 {
		rows, cols = cfg.gridRows, cfg.gridCols
		if rows < 1 || cols < 1 || rows*cols < len(panels) {
			return nil, fmt.Errorf("%w: ScatterPanels grid %d×%d for %d panels", ErrValue, rows, cols, len(panels))
		}
	}
	var classes []int
	ps := make([]Scatter2D, len(panels))
	for i, p := range panels {
		what := fmt.Sprintf("ScatterPanels panel %d %q", i, p.Title)
		if len(p.X) == 0 {
			return nil, fmt.Errorf("%w: %s has no points", ErrEmpty, what)
		}
		if len(p.Y) != len(p.X) || len(p.Class) != len(p.X) {
			return nil, fmt.Errorf("%w: %s has %d X, %d Y and %d Class", ErrLength, what, len(p.X), len(p.Y), len(p.Class))
		}
		if err := checkFinite(what+" X", p.X); err != nil {
			return nil, err
		}
		if err := checkFinite(what+" Y", p.Y); err != nil {
			return nil, err
		}
		for j, k := range p.Class {
			if k < 0 {
				return nil, fmt.Errorf("%w: %s Class[%d] = %d is negative", ErrValue, what, j, k)
			}
			if classNames != nil && k >= len(classNames) {
				return nil, fmt.Errorf("%w: %s Class[%d] = %d has no name (%d class names)", ErrValue, what, j, k, len(classNames))
			}
			if !slices.Contains(classes, k) {
				classes = append(classes, k)
			}
		}
		ps[i] = Scatter2D{Title: p.Title, X: slices.Clone(p.X), Y: slices.Clone(p.Y), Class: slices.Clone(p.Class)}
	}
	slices.Sort(classes)
	names := make([]string, len(classes))
	for i, k := range classes {
		if classNames != nil {
			names[i] = classNames[k]
		} else {
			names[i] = "class " + strconv.Itoa(k)
		}
	}
	style := func(rank int) draw.GlyphStyle {
		c := markerColor(rank)
		c.A = 0xD8
		return glyphStyle(c, 3, glyphShape(rank))
	}

	body := func(c draw.Canvas) error {
		var items []legendItem
		if len(classes) <= maxLegendClasses {
			for r, n := range names {
				gs := style(r)
				items = append(items, legendItem{label: n, thumbs: []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: gs}}})
			}
		} else {
			gs := glyphStyle(rgb(hexGrey), 3, draw.CircleGlyph{})
			items = append(items, legendItem{label: fmt.Sprintf("%d classes", len(classes)), thumbs: []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: gs}}})
		}
		c = splitLegendRight(c, items)

		grid := make([][]*plot.Plot, rows)
		for r := range grid {
			grid[r] = make([]*plot.Plot, cols)
		}
		for i, pan := range ps {
			p := newPlot()
			p.Title.Text = pan.Title
			p.Title.TextStyle.Font = baseFont(labelSize)
			p.X.Tick.Marker = plot.ConstantTicks(nil)
			p.Y.Tick.Marker = plot.ConstantTicks(nil)
			p.X.Padding, p.Y.Padding = 0, 0
			for r := range classes {
				var xy plotter.XYs
				for j, k := range pan.Class {
					if k == classes[r] {
						xy = append(xy, plotter.XY{X: pan.X[j], Y: pan.Y[j]})
					}
				}
				if len(xy) == 0 {
					continue
				}
				p.Add(&plotter.Scatter{XYs: xy, GlyphStyle: style(r)})
			}
			padRange(&p.X, 0.04)
			padRange(&p.Y, 0.04)
			grid[i/cols][i%cols] = p
		}
		// plot.Align needs every cell filled: empty cells get blank plots.
		for r := range grid {
			for k := range grid[r] {
				if grid[r][k] == nil {
					e := newPlot()
					e.HideAxes()
					grid[r][k] = e
				}
			}
		}
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(14), PadY: vg.Points(14)}
		canvases := plot.Align(grid, tiles, c)
		for i := range ps {
			fitTitle(grid[i/cols][i%cols], canvases[i/cols][i%cols])
			grid[i/cols][i%cols].Draw(canvases[i/cols][i%cols])
		}
		return nil
	}
	w := vg.Length(cols)*3.4*vg.Inch + 1.6*vg.Inch
	h := vg.Length(rows)*3.3*vg.Inch + 0.8*vg.Inch
	return cfg.apply(newFigure(meta, "t-SNE of embeddings", w, h, body)), nil
}

// padRange widens an axis range by frac of its span on both sides.
func padRange(ax *plot.Axis, frac float64) {
	span := ax.Max - ax.Min
	if span <= 0 {
		span = 1
	}
	ax.Min -= frac * span
	ax.Max += frac * span
}
