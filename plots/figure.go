package plots

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// QuickModeNote is appended to the title of every figure whose Meta has
// Quick set: its numbers come from a shortened run and must not be read as a
// reproduction of the paper.
const QuickModeNote = "[QUICK MODE — not a reproduction]"

// DefaultDPI is the resolution of the PNG that PNG renders and Display shows
// inline (a notebook) unless Figure.SetDPI changes it: a 7.5 in wide figure is
// 720 pixels wide.
const DefaultDPI = 96

// FileDPI is the resolution of the PNG files that Save and SaveFormats write
// unless Figure.SetDPI chose one: enough for a printed page.
const FileDPI = 150

// Formats are the file formats Save and SaveFormats write, by extension: PNG
// (FileDPI unless SetDPI chose another resolution), and the vector formats
// SVG and PDF for papers.
func Formats() []string { return []string{"png", "svg", "pdf"} }

// ParseFormats reads a comma-separated list of Formats ("png,svg,pdf", any
// case, a leading dot allowed), without duplicates; an unknown format is an
// error naming it and the formats known.
func ParseFormats(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(f)), ".")
		if f == "" {
			continue
		}
		if !slices.Contains(Formats(), f) {
			return nil, fmt.Errorf("%w: figure format %q: want one or more of %s, comma-separated", ErrValue, f, strings.Join(Formats(), ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no figure format in %q: want one or more of %s, comma-separated", ErrValue, s, strings.Join(Formats(), ", "))
	}
	return out, nil
}

// ErrEmpty is returned (wrapped) when a constructor receives no data.
var ErrEmpty = errors.New("plots: empty input")

// ErrLength is returned (wrapped) when slices that must match in length do
// not.
var ErrLength = errors.New("plots: mismatched lengths")

// ErrValue is returned (wrapped) for invalid values: NaN or infinite where a
// number is required, out-of-range indices, non-positive sizes.
var ErrValue = errors.New("plots: invalid value")

// Meta describes what a figure shows. Every constructor takes one, so that a
// figure always says which data and which configuration the numbers come
// from, and whether they come from a quick run: a short title on top (Title —
// Dataset), the provenance (Config) in a caption line under the plot.
type Meta struct {
	// Title says what the figure shows, in a few words; when empty, a default
	// naming the figure type is used (for example "Running time vs sequence
	// length").
	Title string
	// Dataset names the data in the title, e.g. "GunPoint"; leave it empty
	// when Config names the datasets.
	Dataset string
	// Config is the caption: where the numbers come from and how to read
	// them, e.g. "6 UCR datasets: …; folds 1–5, seed 42; bars ± SE over
	// folds". It is drawn in small type under the plot, wrapped.
	Config string
	// Quick marks numbers from a quick (smoke-test) run; the title then ends
	// with QuickModeNote.
	Quick bool
}

// heading returns the title line (without the quick-mode note): Title (or
// defaultTitle when Title is empty), then " — Dataset".
func (m Meta) heading(defaultTitle string) string {
	t := strings.TrimSpace(m.Title)
	if t == "" {
		t = defaultTitle
	}
	if d := strings.TrimSpace(m.Dataset); d != "" {
		t += " — " + d
	}
	return t
}

// FullTitle returns the title line for m: Title (or defaultTitle when Title
// is empty), then " — Dataset", then QuickModeNote when Quick is set. The
// caption (Config) is not part of it.
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
	caption       []string
	quick         bool
	width, height vg.Length
	dpi           int // 0: DefaultDPI inline, FileDPI in files
	embedFonts    bool
	body          func(c draw.Canvas) error
}

// newFigure returns a Figure with the title built from meta and the given
// default size.
func newFigure(meta Meta, defaultTitle string, w, h vg.Length, body func(draw.Canvas) error) *Figure {
	f := &Figure{
		heading: meta.heading(defaultTitle),
		quick:   meta.Quick,
		width:   w,
		height:  h,
		body:    body,
	}
	f.addCaption(meta.Config)
	return f
}

// addCaption appends a sentence to the caption (ignored when blank), ending
// the one before with a full stop when it has no closing punctuation.
func (f *Figure) addCaption(s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if n := len(f.caption); n > 0 && !strings.ContainsAny(f.caption[n-1][len(f.caption[n-1])-1:], ".!?:;") {
		f.caption[n-1] += "."
	}
	f.caption = append(f.caption, s)
}

// Title returns the figure's one-line title, including QuickModeNote when
// the figure was built from a quick-mode Meta. When drawn, the title is
// wrapped to the canvas width and the note is set on its own line.
func (f *Figure) Title() string {
	if f.quick {
		return f.heading + " " + QuickModeNote
	}
	return f.heading
}

// Caption returns the caption drawn under the plot: Meta.Config, then what
// the constructor adds (for example how an attention map's colours scale).
func (f *Figure) Caption() string { return strings.Join(f.caption, " ") }

// Size returns the default size used by Display (and suggested for Save).
func (f *Figure) Size() (width, height vg.Length) { return f.width, f.height }

// SetSize changes the default size used by Display.
func (f *Figure) SetSize(width, height vg.Length) { f.width, f.height = width, height }

// DPI returns the resolution of PNG and of the inline Display: DefaultDPI
// unless SetDPI chose one.
func (f *Figure) DPI() int {
	if f.dpi > 0 {
		return f.dpi
	}
	return DefaultDPI
}

// FileDPI returns the resolution of the PNG files Save writes: FileDPI unless
// SetDPI chose one.
func (f *Figure) FileDPI() int {
	if f.dpi > 0 {
		return f.dpi
	}
	return FileDPI
}

// SetDPI sets the resolution of every PNG of the figure, inline and in
// files; values ≤ 0 restore the defaults (DefaultDPI inline, FileDPI in
// files).
func (f *Figure) SetDPI(dpi int) { f.dpi = max(dpi, 0) }

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
	c = drawCaption(c, f.caption)
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
	return f.png(width, height, f.DPI())
}

// png renders the figure as a PNG at dpi.
func (f *Figure) png(width, height vg.Length, dpi int) ([]byte, error) {
	if err := checkSize(width, height); err != nil {
		return nil, err
	}
	c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi))
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

// PDF renders the figure as a PDF document of the given size, its fonts
// embedded.
func (f *Figure) PDF(width, height vg.Length) ([]byte, error) {
	if err := checkSize(width, height); err != nil {
		return nil, err
	}
	c := vgpdf.New(width, height)
	c.EmbedFonts(true)
	if err := f.Draw(draw.New(pdfCanvas{c})); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plots: encoding PDF: %w", err)
	}
	return buf.Bytes(), nil
}

// pdfCanvas works around vgpdf (gonum/plot v0.15.2) registering a bold font
// under style "" but selecting it with style "B", which fails ("undefined
// font"): bold text is handed to it as a regular-weight font of a name of its
// own ("…SansBold"), with the bold face's glyphs and metrics.
type pdfCanvas struct{ *vgpdf.Canvas }

// FillString implements vg.Canvas.
func (c pdfCanvas) FillString(f font.Face, pt vg.Point, s string) {
	if f.Font.Weight == boldWeight {
		f.Font.Variant += "Bold"
		f.Font.Weight = 0
	}
	c.Canvas.FillString(f, pt, s)
}

// Encode returns the bytes Save writes to path: PNG (at FileDPI unless
// SetDPI chose a resolution), SVG or PDF, chosen by path's extension (.png,
// .svg or .pdf, any case).
func (f *Figure) Encode(path string, width, height vg.Length) ([]byte, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return f.png(width, height, f.FileDPI())
	case ".svg":
		return f.SVG(width, height)
	case ".pdf":
		return f.PDF(width, height)
	}
	return nil, fmt.Errorf("%w: %q: extension must be .png, .svg or .pdf", ErrValue, path)
}

// Save writes the figure to path (Encode), creating missing parent
// directories.
func (f *Figure) Save(path string, width, height vg.Length) error {
	data, err := f.Encode(path, width, height)
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

// SaveFormats writes the figure at its default Size as base.<format> for
// each of formats (Formats: "png", "svg", "pdf") and returns the paths
// written.
func (f *Figure) SaveFormats(base string, formats []string) ([]string, error) {
	if len(formats) == 0 {
		return nil, fmt.Errorf("%w: no figure format given for %s (want one or more of %s)", ErrValue, base, strings.Join(Formats(), ", "))
	}
	var paths []string
	for _, format := range formats {
		if !slices.Contains(Formats(), format) {
			return paths, fmt.Errorf("%w: figure format %q: want one of %s", ErrValue, format, strings.Join(Formats(), ", "))
		}
		p := base + "." + format
		if err := f.Save(p, f.width, f.height); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// Display hands the figure, as a PNG of its default Size at DPI(), to show
// (e.g. a notebook's inline display) and returns "". When show is nil (no
// display, as outside a notebook) it saves the figure to fallbackPath (.png,
// .svg or .pdf, as Save) instead and returns that path.
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

// drawCaption draws the caption sentences (wrapped to the canvas width, in
// small dark-grey type) at the bottom of c and returns the canvas left above
// them.
func drawCaption(c draw.Canvas, caption []string) draw.Canvas {
	if len(caption) == 0 {
		return c
	}
	sty := textStyle(captionSize, rgb(0x444444))
	sty.XAlign = draw.XLeft
	sty.YAlign = draw.YBottom
	lines := wrapText(sty, strings.Join(caption, " "), c.Max.X-c.Min.X)
	lh := sty.FontExtents().Height
	y := c.Min.Y
	for i := len(lines) - 1; i >= 0; i-- {
		c.FillText(sty, vg.Point{X: c.Min.X, Y: y}, lines[i])
		y += lh
	}
	c.Min.Y = y + vg.Points(6)
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
