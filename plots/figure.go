package plots

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// QuickModeNote is appended to the title of every figure whose Meta has
// Quick set: its numbers come from a shortened run and must not be read as a
// reproduction of the paper.
const QuickModeNote = "[QUICK MODE — not a reproduction]"

// DefaultDPI is the resolution used by PNG, Save and Display unless
// Figure.SetDPI changes it.
const DefaultDPI = 96

// ErrEmpty is returned (wrapped) when a constructor receives no data.
var ErrEmpty = errors.New("plots: empty input")

// ErrLength is returned (wrapped) when slices that must match in length do
// not.
var ErrLength = errors.New("plots: mismatched lengths")

// ErrValue is returned (wrapped) for invalid values: NaN or infinite where a
// number is required, out-of-range indices, non-positive sizes.
var ErrValue = errors.New("plots: invalid value")

// Meta describes what a figure shows. Every constructor takes one, so that
// titles always say which data and which configuration the numbers come
// from, and whether they come from a quick run.
type Meta struct {
	// Title says what the figure shows; when empty, a default naming the
	// figure type is used (for example "Running time vs sequence length").
	Title string
	// Dataset names the data, e.g. "GunPoint" or "18 UCR datasets".
	Dataset string
	// Config summarises the run configuration, e.g. "m=val-select, q=4, 3 seeds".
	Config string
	// Quick marks numbers from a quick (smoke-test) run; the title then ends
	// with QuickModeNote.
	Quick bool
}

// heading returns the main title line (without the quick-mode note).
func (m Meta) heading(defaultTitle string) string {
	t := strings.TrimSpace(m.Title)
	if t == "" {
		t = defaultTitle
	}
	if d := strings.TrimSpace(m.Dataset); d != "" {
		t += " — " + d
	}
	if c := strings.TrimSpace(m.Config); c != "" {
		t += " (" + c + ")"
	}
	return t
}

// FullTitle returns the complete one-line title for m: Title (or
// defaultTitle when Title is empty), then " — Dataset", then " (Config)",
// then QuickModeNote when Quick is set.
func (m Meta) FullTitle(defaultTitle string) string {
	t := m.heading(defaultTitle)
	if m.Quick {
		t += " " + QuickModeNote
	}
	return t
}

// Figure is a renderable figure with a title: one plot or several panels
// drawn on a single canvas. Constructors in this package return Figures;
// render them with PNG, SVG, Save or Display.
type Figure struct {
	heading       string
	quick         bool
	width, height vg.Length
	dpi           int
	embedFonts    bool
	body          func(c draw.Canvas) error
}

// newFigure returns a Figure with the title built from meta and the given
// default size.
func newFigure(meta Meta, defaultTitle string, w, h vg.Length, body func(draw.Canvas) error) *Figure {
	return &Figure{
		heading: meta.heading(defaultTitle),
		quick:   meta.Quick,
		width:   w,
		height:  h,
		dpi:     DefaultDPI,
		body:    body,
	}
}

// Title returns the figure's full one-line title, including QuickModeNote
// when the figure was built from a quick-mode Meta. When drawn, the title is
// wrapped to the canvas width and the note is set on its own line.
func (f *Figure) Title() string {
	if f.quick {
		return f.heading + " " + QuickModeNote
	}
	return f.heading
}

// Size returns the default size used by Display (and suggested for Save).
func (f *Figure) Size() (width, height vg.Length) { return f.width, f.height }

// SetSize changes the default size used by Display.
func (f *Figure) SetSize(width, height vg.Length) { f.width, f.height = width, height }

// DPI returns the resolution used for PNG output.
func (f *Figure) DPI() int { return f.dpi }

// SetDPI changes the resolution used for PNG output; values ≤ 0 restore
// DefaultDPI.
func (f *Figure) SetDPI(dpi int) {
	if dpi <= 0 {
		dpi = DefaultDPI
	}
	f.dpi = dpi
}

// SetEmbedFonts chooses whether SVG output embeds the fonts it uses. Without
// embedding (the default) files stay small and name "Liberation Sans", which
// is metric-compatible with Arial, so viewers lacking it lay text out alike;
// embedding makes the SVG self-contained but several hundred KB larger.
func (f *Figure) SetEmbedFonts(embed bool) { f.embedFonts = embed }

// Draw draws the whole figure (white background, wrapped title, panels) onto
// c. Panics inside gonum/plot are turned into errors.
func (f *Figure) Draw(c draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plots: drawing %q: %v", f.heading, r)
		}
	}()
	c.SetColor(rgb(0xFFFFFF))
	c.Fill(c.Rectangle.Path())
	pad := vg.Points(6)
	c = draw.Crop(c, pad, -pad, pad, -pad)
	c = drawTitle(c, f.heading, f.quick)
	if f.body == nil {
		return nil
	}
	if err := f.body(c); err != nil {
		return fmt.Errorf("plots: drawing %q: %w", f.heading, err)
	}
	return nil
}

// checkSize validates an output size.
func checkSize(width, height vg.Length) error {
	if !(width > 0 && height > 0) {
		return fmt.Errorf("%w: size %v×%v must be positive", ErrValue, width, height)
	}
	return nil
}

// PNG renders the figure as a PNG image of the given size, at the figure's
// DPI (DefaultDPI unless changed): a 6 in wide figure at 96 DPI is 576 pixels
// wide.
func (f *Figure) PNG(width, height vg.Length) ([]byte, error) {
	if err := checkSize(width, height); err != nil {
		return nil, err
	}
	c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(f.dpi))
	if err := f.Draw(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plots: encoding PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// SVG renders the figure as an SVG document of the given size.
func (f *Figure) SVG(width, height vg.Length) ([]byte, error) {
	if err := checkSize(width, height); err != nil {
		return nil, err
	}
	c := vgsvg.NewWith(vgsvg.UseWH(width, height), vgsvg.EmbedFonts(f.embedFonts))
	if err := f.Draw(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plots: encoding SVG: %w", err)
	}
	return buf.Bytes(), nil
}

// Save writes the figure to path as PNG or SVG, chosen by the extension
// (.png or .svg, any case), creating missing parent directories.
func (f *Figure) Save(path string, width, height vg.Length) error {
	var (
		data []byte
		err  error
	)
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		data, err = f.PNG(width, height)
	case ".svg":
		data, err = f.SVG(width, height)
	default:
		return fmt.Errorf("%w: %q: extension must be .png or .svg", ErrValue, path)
	}
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("plots: saving %s: %w", path, err)
		}
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("plots: saving %s: %w", path, err)
	}
	return nil
}

// Display hands the figure, as a PNG of its default Size, to show (e.g. a
// notebook's inline display) and returns "". When show is nil (no display,
// as outside a notebook) it saves the figure to fallbackPath (.png or .svg)
// instead and returns that path.
func (f *Figure) Display(fallbackPath string, show func(png []byte)) (string, error) {
	if show != nil {
		data, err := f.PNG(f.width, f.height)
		if err != nil {
			return "", err
		}
		show(data)
		return "", nil
	}
	if fallbackPath == "" {
		return "", fmt.Errorf("%w: not in a notebook and no fallback path given", ErrValue)
	}
	if err := f.Save(fallbackPath, f.width, f.height); err != nil {
		return "", err
	}
	return fallbackPath, nil
}

// drawTitle draws the heading (wrapped to the canvas width) and, when quick,
// the quick-mode note on its own line, at the top of c; it returns the
// canvas left below them.
func drawTitle(c draw.Canvas, heading string, quick bool) draw.Canvas {
	width := c.Max.X - c.Min.X
	y := c.Max.Y
	put := func(sty text.Style, lines []string) {
		sty.XAlign = draw.XCenter
		sty.YAlign = draw.YTop
		lh := sty.FontExtents().Height
		for _, line := range lines {
			c.FillText(sty, vg.Point{X: c.Center().X, Y: y}, line)
			y -= lh
		}
	}
	if heading != "" {
		sty := textStyle(titleSize, rgb(hexBlack))
		sty.Font.Weight = boldWeight
		put(sty, wrapText(sty, heading, width))
	}
	if quick {
		sty := textStyle(legendSize, rgb(hexVermillion))
		sty.Font.Weight = boldWeight
		put(sty, wrapText(sty, QuickModeNote, width))
	}
	if y < c.Max.Y {
		y -= vg.Points(6)
	}
	c.Max.Y = y
	return c
}

// wrapText breaks s into lines no wider than width (words longer than width
// get their own line).
func wrapText(sty text.Style, s string, width vg.Length) []string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return nil
	}
	var lines []string
	cur := words[0]
	for _, w := range words[1:] {
		if sty.Width(cur+" "+w) <= width {
			cur += " " + w
			continue
		}
		lines = append(lines, cur)
		cur = w
	}
	return append(lines, cur)
}

// legendItem is one legend entry; drawLegendColumns lays items out in as
// many columns as needed.
type legendItem struct {
	label  string
	thumbs []plot.Thumbnailer
}

// legendColumnsWidth returns the width of the legend columns needed for
// items in a canvas of height h, and the number of items per column.
func legendColumnsWidth(items []legendItem, h vg.Length) (width vg.Length, perCol int) {
	if len(items) == 0 {
		return 0, 0
	}
	l := newLegend()
	sty := l.TextStyle
	entry := sty.FontExtents().Height + l.Padding
	perCol = int(h / entry)
	if perCol < 1 {
		perCol = 1
	}
	gap := vg.Points(10)
	for start := 0; start < len(items); start += perCol {
		end := min(start+perCol, len(items))
		var colW vg.Length
		for _, it := range items[start:end] {
			colW = max(colW, l.ThumbnailWidth+sty.Width(" "+it.label))
		}
		width += colW + gap
	}
	return width, perCol
}

// splitLegendRight reserves a column on the right of c for items, draws the
// legend there (top aligned) and returns the canvas left for the data.
func splitLegendRight(c draw.Canvas, items []legendItem) draw.Canvas {
	if len(items) == 0 {
		return c
	}
	h := c.Max.Y - c.Min.Y
	width, perCol := legendColumnsWidth(items, h)
	legendC := c
	legendC.Min.X = c.Max.X - width
	// Leave a small margin at the top so that the first entry lines up with
	// the top of the data area rather than the canvas edge.
	legendC.Max.Y -= vg.Points(4)
	x := legendC.Min.X + vg.Points(8)
	for start := 0; start < len(items); start += perCol {
		end := min(start+perCol, len(items))
		l := newLegend()
		var colW vg.Length
		for _, it := range items[start:end] {
			l.Add(it.label, it.thumbs...)
			colW = max(colW, l.ThumbnailWidth+l.TextStyle.Width(" "+it.label))
		}
		col := legendC
		col.Min.X = x
		col.Max.X = x + colW
		l.Draw(col)
		x += colW + vg.Points(10)
	}
	c.Max.X -= width
	return c
}
