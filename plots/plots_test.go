package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/softshape-go/softshape/data"
)

// checkRender renders f as PNG and SVG at w×h and checks the PNG decodes to
// the expected pixel size and the SVG is a non-empty SVG document. When
// PLOTS_TEST_OUT is set, the PNG is also written there for inspection.
func checkRender(t *testing.T, name string, f *Figure, w, h vg.Length) {
	t.Helper()
	data, err := f.PNG(w, h)
	if err != nil {
		t.Fatalf("%s: PNG: %v", name, err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: decoding PNG: %v", name, err)
	}
	wantW := int(float64(w/vg.Inch)*float64(f.DPI()) + 0.5)
	wantH := int(float64(h/vg.Inch)*float64(f.DPI()) + 0.5)
	if b := img.Bounds(); b.Dx() != wantW || b.Dy() != wantH {
		t.Errorf("%s: PNG is %dx%d, want %dx%d", name, b.Dx(), b.Dy(), wantW, wantH)
	}
	if !hasInk(data) {
		t.Errorf("%s: PNG is blank", name)
	}
	svg, err := f.SVG(w, h)
	if err != nil {
		t.Fatalf("%s: SVG: %v", name, err)
	}
	if len(svg) < 200 || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("%s: SVG looks empty (%d bytes)", name, len(svg))
	}
	if dir := os.Getenv("PLOTS_TEST_OUT"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".png"), data, 0o644); err != nil {
			t.Error(err)
		}
	}
}

// hasInk reports whether the PNG has at least a few hundred non-white
// pixels.
func hasInk(data []byte) bool {
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return false
	}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xF000 || g < 0xF000 || bl < 0xF000 {
				n++
			}
		}
	}
	return n > 200
}

// wantErr fails unless err wraps target.
func wantErr(t *testing.T, name string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want %v", name, err, target)
	}
}

var meta = Meta{Title: "Test", Dataset: "toy", Config: "unit test"}

func TestMetaTitle(t *testing.T) {
	m := Meta{Dataset: "GunPoint", Config: "m=8", Quick: true}
	got := m.FullTitle("Running time")
	want := "Running time — GunPoint " + QuickModeNote
	if got != want {
		t.Errorf("FullTitle = %q, want %q", got, want)
	}
	if got := (Meta{Title: "X"}).FullTitle("Y"); got != "X" {
		t.Errorf("FullTitle = %q, want X", got)
	}
	f, err := RunningTime(m, []float64{1, 2}, map[string][]float64{"a": {1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(f.Title(), "[QUICK MODE — not a reproduction]") {
		t.Errorf("quick title %q lacks the note", f.Title())
	}
	// The title names the data; the configuration is the caption's.
	if !strings.Contains(f.Title(), "GunPoint") || strings.Contains(f.Title(), "m=8") || f.Caption() != "m=8" {
		t.Errorf("title %q, caption %q: want the data in the title, the configuration in the caption", f.Title(), f.Caption())
	}
	f2, _ := RunningTime(Meta{Dataset: "d"}, []float64{1, 2}, map[string][]float64{"a": {1, 2}})
	if strings.Contains(f2.Title(), "QUICK") {
		t.Errorf("non-quick title %q has the note", f2.Title())
	}
}

func TestWrapText(t *testing.T) {
	sty := textStyle(titleSize, rgb(hexBlack))
	s := "Accuracy vs sparse ratio — 18 UCR datasets (m=val-select, q=4, 3 seeds, 500 epochs)"
	width := 3 * vg.Inch
	lines := wrapText(sty, s, width)
	if len(lines) < 2 {
		t.Fatalf("expected wrapping, got %q", lines)
	}
	for _, l := range lines {
		if sty.Width(l) > width {
			t.Errorf("line %q wider than %v", l, width)
		}
	}
	if strings.Join(lines, " ") != s {
		t.Errorf("wrapping lost words: %q", lines)
	}
}

func TestSweepChart(t *testing.T) {
	x := []float64{0, 10, 30, 50, 70, 90}
	ours := []SweepSeries{
		{Label: "A", X: x, Y: []float64{0.9, 0.91, 0.9, 0.92, 0.88, 0.8}},
		{Label: "B", X: x, Y: []float64{0.7, 0.72, math.NaN(), 0.74, 0.7, 0.6}},
		{Label: "C", X: x, Y: []float64{0.8, 0.8, 0.81, 0.8, 0.79, 0.7}},
	}
	paper := []SweepSeries{
		{Label: "A", X: x, Y: []float64{0.92, 0.92, 0.93, 0.93, 0.9, 0.85}},
		{Label: "B", X: x, Y: []float64{0.75, 0.75, 0.76, 0.76, 0.72, 0.65}},
	}
	f, err := SweepChart(meta, "Sparse ratio (%)", nil, ours, paper)
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "sweep", f, 6*vg.Inch, 4*vg.Inch)

	// Categorical ticks and many datasets (grey lines).
	var many []SweepSeries
	for i := 0; i < 12; i++ {
		many = append(many, SweepSeries{Label: "D" + strconv.Itoa(i), X: []float64{1, 2, 3, 4, 64}, Y: []float64{0.8, 0.82, 0.84, 0.85, 0.83}})
	}
	f, err = SweepChart(meta, "Sliding step", []string{"q=1", "q=2", "q=3", "q=4", "q=m"}, many, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "sweep_categorical", f, 6*vg.Inch, 4*vg.Inch)

	// Paper only, log axis.
	if _, err := SweepChart(meta, "x", nil, nil, paper, WithLogY()); err != nil {
		t.Errorf("paper only: %v", err)
	}

	wantErr(t, "no series", func() error { _, err := SweepChart(meta, "x", nil, nil, nil); return err }(), ErrEmpty)
	wantErr(t, "empty series", func() error {
		_, err := SweepChart(meta, "x", nil, []SweepSeries{{Label: "a"}}, nil)
		return err
	}(), ErrEmpty)
	wantErr(t, "ragged", func() error {
		_, err := SweepChart(meta, "x", nil, []SweepSeries{{Label: "a", X: []float64{1, 2}, Y: []float64{1}}}, nil)
		return err
	}(), ErrLength)
	wantErr(t, "tick count", func() error {
		_, err := SweepChart(meta, "x", []string{"a"}, ours, nil)
		return err
	}(), ErrLength)
	wantErr(t, "NaN X", func() error {
		_, err := SweepChart(meta, "x", nil, []SweepSeries{{Label: "a", X: []float64{math.NaN()}, Y: []float64{1}}}, nil)
		return err
	}(), ErrValue)
	wantErr(t, "Inf Y", func() error {
		_, err := SweepChart(meta, "x", nil, []SweepSeries{{Label: "a", X: []float64{1}, Y: []float64{math.Inf(1)}}}, nil)
		return err
	}(), ErrValue)
	wantErr(t, "log of zero", func() error {
		_, err := SweepChart(meta, "x", nil, []SweepSeries{{Label: "a", X: []float64{1}, Y: []float64{0}}}, nil, WithLogY())
		return err
	}(), ErrValue)
}

// TestSweepChartData: the average drawn is the one given (the chart
// computes none), error bars and bands are checked, and SE must match X.
func TestSweepChartData(t *testing.T) {
	x := []float64{1, 2, 3}
	ours := []SweepSeries{{Label: "GunPoint", X: x, Y: []float64{1, 1, 1}, SE: []float64{0, 0, 0}},
		{Label: "Trace", X: x, Y: []float64{1, 1, 1}, SE: []float64{0.01, math.NaN(), 0.02}}}
	avg := SweepAverage{Label: "average", X: x, Y: []float64{0.5, 0.6, 0.7}, SE: []float64{0.1, 0.1, math.NaN()}}
	f, err := SweepChart(meta, "k", nil, ours, nil, WithAverage(avg))
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "sweep_average", f, 6*vg.Inch, 4*vg.Inch)
	wantErr(t, "SE length", func() error {
		_, err := SweepChart(meta, "k", nil, []SweepSeries{{Label: "a", X: x, Y: x, SE: []float64{1}}}, nil)
		return err
	}(), ErrLength)
	wantErr(t, "negative SE", func() error {
		_, err := SweepChart(meta, "k", nil, []SweepSeries{{Label: "a", X: x, Y: x, SE: []float64{0, -1, 0}}}, nil)
		return err
	}(), ErrValue)
	wantErr(t, "average length", func() error {
		_, err := SweepChart(meta, "k", nil, ours, nil, WithAverage(SweepAverage{X: x, Y: x[:2]}))
		return err
	}(), ErrLength)
}

// recorder collects what a drawing adds to a plot.
type recorder struct{ added []plot.Plotter }

func (r *recorder) Add(ps ...plot.Plotter) { r.added = append(r.added, ps...) }

// TestSweepChartUnordered: with WithUnorderedX no line joins the categories
// (ours are markers with their bars, the paper's values dashes, the
// averages markers, ours with a bar), where the same series on an ordered
// axis are lines; and the chart renders.
func TestSweepChartUnordered(t *testing.T) {
	x := []float64{0, 1, 2}
	ours := []SweepSeries{{Label: "GunPoint", X: x, Y: []float64{0.99, 0.98, 1}, SE: []float64{0.01, 0.01, 0}},
		{Label: "Trace", X: x, Y: []float64{1, math.NaN(), 0.97}, SE: []float64{0, 0, 0.02}}}
	paper := []SweepSeries{{Label: "GunPoint", X: x, Y: []float64{1, 0.99, 0.98}}}
	avg := SweepAverage{Label: "average (ours)", X: x, Y: []float64{0.995, 0.98, 0.985}, SE: []float64{0.005, 0.01, 0.01}}
	pavg := SweepAverage{Label: "average (paper)", X: x, Y: []float64{1, 0.99, 0.98}}
	lay := sweepLayout(append(slices.Clone(ours), paper...), x)
	count := func(unordered bool) (lines, dashes, bars int) {
		var r recorder
		drawSweep(&r, lay, ours, paper, []*SweepAverage{&avg, &pavg}, unordered)
		for _, pl := range r.added {
			switch pl := pl.(type) {
			case *plotter.Line, band:
				lines++
			case *plotter.Scatter:
				if _, ok := pl.GlyphStyle.Shape.(dashGlyph); ok {
					dashes += len(pl.XYs)
				}
			case errorBars:
				bars++
			}
		}
		return
	}
	if lines, dashes, bars := count(true); lines != 0 || dashes != 3 || bars != 3 {
		t.Errorf("unordered: %d lines or bands, %d paper dashes, %d sets of bars; want 0, 3, 3 (two datasets and our average)", lines, dashes, bars)
	}
	if lines, dashes, _ := count(false); lines == 0 || dashes != 0 {
		t.Errorf("ordered: %d lines, %d dashes; want lines and no dashes", lines, dashes)
	}
	f, err := SweepChart(meta, "ablation", []string{"SoftShape", "w/o Intra", "w/o Inter"}, ours, paper, WithAverage(avg), WithPaperAverage(pavg), WithUnorderedX())
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "sweep_unordered", f, 7.5*vg.Inch, 4.5*vg.Inch)
}

// TestSweepLayout: a dataset has the same colour and marker whatever the
// other series of the chart (GunPoint beside Trace or alone), the
// reproduction's datasets have six different colours, labels that are not
// datasets take colours no dataset of the chart has, and series with equal
// values are shifted apart.
func TestSweepLayout(t *testing.T) {
	six := []string{"ItalyPowerDemand", "GunPoint", "DistalPhalanxOutlineAgeGroup", "MiddlePhalanxTW", "ArrowHead", "Trace"}
	var ss []SweepSeries
	colours := map[string]bool{}
	for _, d := range six {
		ss = append(ss, SweepSeries{Label: d, X: []float64{0, 10, 50}, Y: []float64{1, 1, 1}})
		st, ok := DatasetStyle(d)
		if !ok {
			t.Fatalf("%s has no style", d)
		}
		colours[fmt.Sprint(st.Color)] = true
	}
	if len(colours) != 6 {
		t.Errorf("the six reproduction datasets have %d colours, want 6", len(colours))
	}
	all := sweepLayout(ss, []float64{0, 10, 50})
	alone := sweepLayout([]SweepSeries{ss[3], {Label: "ours, reference_fresh"}}, []float64{0, 10, 50})
	for _, d := range six {
		want, _ := DatasetStyle(d)
		if got := all.styles[d].SeriesStyle; got != want {
			t.Errorf("%s drawn %v, its style is %v", d, got, want)
		}
	}
	if all.styles["MiddlePhalanxTW"] != alone.styles["MiddlePhalanxTW"] {
		t.Errorf("MiddlePhalanxTW: %v beside five others, %v beside one", all.styles["MiddlePhalanxTW"], alone.styles["MiddlePhalanxTW"])
	}
	if other := alone.styles["ours, reference_fresh"]; other.Color == alone.styles["MiddlePhalanxTW"].Color {
		t.Errorf("a label that is no dataset took the colour of the dataset beside it: %v", other)
	}
	// GunPoint and Trace (1.000 everywhere) are drawn apart: shifts differ,
	// and all stay within dodgeFraction of the 10-wide gap.
	if all.dodge["GunPoint"] == all.dodge["Trace"] {
		t.Errorf("GunPoint and Trace share the shift %v", all.dodge["GunPoint"])
	}
	for d, dx := range all.dodge {
		if math.Abs(dx) > dodgeFraction*10/2+1e-12 {
			t.Errorf("%s shifted by %v, more than %v", d, dx, dodgeFraction*10/2)
		}
	}
	if _, ok := DatasetStyle("not a dataset"); ok {
		t.Error("an unknown name has a dataset style")
	}
	// More than maxColouredSweep labels: all grey.
	var many []SweepSeries
	for i := range maxColouredSweep + 1 {
		many = append(many, SweepSeries{Label: "D" + strconv.Itoa(i)})
	}
	if l := sweepLayout(many, []float64{1, 2}); l.coloured || len(l.dodge) != 0 {
		t.Errorf("%d labels coloured or shifted", len(many))
	}
}

// TestSweepLegendDrawsAsTheChart: each legend entry is drawn as its
// series: the presets chart of the committed notebooks (two ours series and
// a "paper" series of its own label, dashed in the chart) keys "paper" as a
// dashed line without markers and ours as solid lines with markers; a
// dataset with both series keys solid with markers, then "ours" solid and
// "paper" dashed. With unordered categories nothing is a line: ours are
// markers, the paper's a dash marker.
func TestSweepLegendDrawsAsTheChart(t *testing.T) {
	x, y := []float64{0, 10}, []float64{0.9, 0.8}
	type drawn struct {
		line, dashed, markers, dash bool
	}
	legend := func(ours, paper []SweepSeries, unordered bool) map[string]drawn {
		items := sweepLegend(sweepLayout(append(slices.Clone(ours), paper...), x), ours, paper, unordered)
		out := map[string]drawn{}
		for _, it := range items {
			var d drawn
			for _, th := range it.thumbs {
				switch th := th.(type) {
				case *plotter.Line:
					d.line, d.dashed = true, len(th.LineStyle.Dashes) > 0
				case *plotter.Scatter:
					_, isDash := th.GlyphStyle.Shape.(dashGlyph)
					d.markers, d.dash = !isDash, isDash
				}
			}
			out[it.label] = d
		}
		return out
	}
	presetsOurs := []SweepSeries{{Label: "ours, reference_compat", X: x, Y: y}, {Label: "ours, reference_fresh", X: x, Y: y}}
	presetsPaper := []SweepSeries{{Label: "paper", X: x, Y: y}}
	presets := legend(presetsOurs, presetsPaper, false)
	want := map[string]drawn{"ours, reference_compat": {line: true, markers: true}, "ours, reference_fresh": {line: true, markers: true}, "paper": {line: true, dashed: true}}
	if !maps.Equal(presets, want) {
		t.Errorf("presets chart legend %v, want %v (paper dashed without markers, as drawn)", presets, want)
	}
	shared := legend([]SweepSeries{{Label: "GunPoint", X: x, Y: y}}, []SweepSeries{{Label: "GunPoint", X: x, Y: y}}, false)
	want = map[string]drawn{"GunPoint": {line: true, markers: true}, "ours": {line: true}, "paper": {line: true, dashed: true}}
	if !maps.Equal(shared, want) {
		t.Errorf("dataset chart legend %v, want %v", shared, want)
	}
	presets = legend(presetsOurs, presetsPaper, true)
	want = map[string]drawn{"ours, reference_compat": {markers: true}, "ours, reference_fresh": {markers: true}, "paper": {dash: true}}
	if !maps.Equal(presets, want) {
		t.Errorf("unordered presets chart legend %v, want %v (markers and a dash, no line)", presets, want)
	}
	shared = legend([]SweepSeries{{Label: "GunPoint", X: x, Y: y}}, []SweepSeries{{Label: "GunPoint", X: x, Y: y}}, true)
	want = map[string]drawn{"GunPoint": {markers: true}, "ours": {markers: true}, "paper": {dash: true}}
	if !maps.Equal(shared, want) {
		t.Errorf("unordered dataset chart legend %v, want %v", shared, want)
	}
}

// TestReadableTicks: tick labels never repeat and carry the decimals the
// range needs, no more.
func TestReadableTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi   float64
		integers bool
		want     []string
	}{
		{1.0951, 1.1049, false, nil}, // a narrow loss axis: labels must differ
		{0, 60, true, nil},           // an index axis: no decimals
		{0.84, 1, false, nil},
	} {
		ticks := readableTicks{integers: c.integers}.Ticks(c.lo, c.hi)
		var labels []string
		for _, tk := range ticks {
			if tk.Label == "" {
				continue
			}
			if slices.Contains(labels, tk.Label) {
				t.Errorf("[%v, %v]: label %q repeats in %q", c.lo, c.hi, tk.Label, labels)
			}
			v, err := strconv.ParseFloat(tk.Label, 64)
			if err != nil || math.Abs(v-tk.Value) > 1e-9 {
				t.Errorf("[%v, %v]: label %q for tick %v", c.lo, c.hi, tk.Label, tk.Value)
			}
			if c.integers && strings.Contains(tk.Label, ".") {
				t.Errorf("[%v, %v]: index label %q has decimals", c.lo, c.hi, tk.Label)
			}
			labels = append(labels, tk.Label)
		}
		if len(labels) < 2 {
			t.Errorf("[%v, %v]: labels %q", c.lo, c.hi, labels)
		}
	}
	if p, ok := tickDecimals([]float64{0, 25, 50}); !ok || p != 0 {
		t.Errorf("0, 25, 50: %d decimals (%v), want 0", p, ok)
	}
	if p, ok := tickDecimals([]float64{1.095, 1.1, 1.105}); !ok || p != 3 {
		t.Errorf("1.095, 1.1, 1.105: %d decimals (%v), want 3", p, ok)
	}
	if _, ok := tickDecimals([]float64{1e7, 2e7}); ok {
		t.Error("1e7: fixed-point labels")
	}
}

func TestRankBars(t *testing.T) {
	methods := []string{"q=1", "q=2", "q=3", "q=4", "q=m"}
	f, err := RankBars(meta, methods, []float64{3.6, 2.9, 2.5, 2.1, 2.9}, []float64{3.83, 2.78, 2.44, 1.78, math.NaN()})
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "rankbars", f, 6*vg.Inch, 4*vg.Inch)
	long := []string{"SoftShape", "Medformer", "TSLANet", "InceptionTime", "ModernTCN", "MultiRocket-Hydra", "RDST", "UniTS", "ShapeConv", "TS2Vec", "PatchTST", "GPT4TS"}
	ranks := make([]float64, len(long))
	for i := range ranks {
		ranks[i] = float64(i) + 1.5
	}
	f, err = RankBars(meta, long, ranks, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "rankbars_many", f, 7*vg.Inch, 4*vg.Inch)

	wantErr(t, "empty", func() error { _, err := RankBars(meta, nil, nil, nil); return err }(), ErrEmpty)
	wantErr(t, "ranks length", func() error { _, err := RankBars(meta, methods, []float64{1}, nil); return err }(), ErrLength)
	wantErr(t, "paper length", func() error {
		_, err := RankBars(meta, methods, []float64{1, 2, 3, 4, 5}, []float64{1})
		return err
	}(), ErrLength)
	wantErr(t, "NaN rank", func() error {
		_, err := RankBars(meta, methods, []float64{1, 2, math.NaN(), 4, 5}, nil)
		return err
	}(), ErrValue)
}

func TestCDLayout(t *testing.T) {
	methods := []string{"A", "B", "C", "D", "E"}
	ranks := []float64{2.1, 1.3, 4.6, 3.0, 4.0}
	// Sorted by rank: B(1.3) A(2.1) D(3.0) E(4.0) C(4.6).
	cliques := [][]int{
		{1, 0},       // B–A
		{0, 3, 0},    // A–D (duplicate member)
		{3, 4, 2},    // D–E–C
		{4, 2},       // subsumed by D–E–C
		{2},          // singleton: dropped
		{3, 4, 2, 3}, // duplicate of D–E–C
	}
	g, err := cdLayout(methods, ranks, cliques, false)
	if err != nil {
		t.Fatal(err)
	}
	if g.Low != 1 || g.High != 5 {
		t.Errorf("axis %d..%d, want 1..5", g.Low, g.High)
	}
	var order []string
	for _, e := range g.Entries {
		order = append(order, e.Name)
	}
	if !slices.Equal(order, []string{"B", "A", "D", "E", "C"}) {
		t.Errorf("order %v", order)
	}
	// Better half (⌈5/2⌉ = 3) on the left, rows 0,1,2; worse half on the
	// right with the worst closest to the axis.
	wantLeft := []bool{true, true, true, false, false}
	wantRow := []int{0, 1, 2, 1, 0}
	for i, e := range g.Entries {
		if e.Left != wantLeft[i] || e.Row != wantRow[i] {
			t.Errorf("%s: left=%v row=%d, want left=%v row=%d", e.Name, e.Left, e.Row, wantLeft[i], wantRow[i])
		}
	}
	if g.SideRows != 3 {
		t.Errorf("SideRows = %d, want 3", g.SideRows)
	}
	type ext struct{ lo, hi float64 }
	var got []ext
	for _, b := range g.Bars {
		got = append(got, ext{b.Lo, b.Hi})
	}
	want := []ext{{1.3, 2.1}, {2.1, 3.0}, {3.0, 4.6}}
	if !slices.Equal(got, want) {
		t.Fatalf("bars %v, want %v", got, want)
	}
	if !slices.Equal(g.Bars[2].Members, []int{3, 4, 2}) {
		t.Errorf("members %v, want [3 4 2] (by rank)", g.Bars[2].Members)
	}
	// Bars touching at a shared method cannot share a row; B–A and D–E–C
	// are apart (gap 0.9 > 4% of the span) and share row 0.
	rows := []int{g.Bars[0].Row, g.Bars[1].Row, g.Bars[2].Row}
	if !slices.Equal(rows, []int{0, 1, 0}) || g.BarRows != 2 {
		t.Errorf("rows %v (BarRows %d), want [0 1 0] and 2", rows, g.BarRows)
	}
	checkNoOverlap(t, g)

	// Rank 1 on the right: the better half moves to the right side.
	g2, err := cdLayout(methods, ranks, cliques, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range g2.Entries {
		if e.Left == wantLeft[i] {
			t.Errorf("bestOnRight: %s still on the same side", e.Name)
		}
	}

	// Axis grows to cover ranks beyond k (ranks from a larger pool).
	g3, err := cdLayout([]string{"x", "y"}, []float64{0.5, 7.2}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if g3.Low != 0 || g3.High != 8 || len(g3.Bars) != 0 {
		t.Errorf("axis %d..%d bars %d, want 0..8 and none", g3.Low, g3.High, len(g3.Bars))
	}

	_, err = cdLayout(methods, ranks, [][]int{{0, 9}}, false)
	wantErr(t, "bad index", err, ErrValue)
	_, err = cdLayout(methods, ranks[:2], nil, false)
	wantErr(t, "lengths", err, ErrLength)
	_, err = cdLayout(nil, nil, nil, false)
	wantErr(t, "empty", err, ErrEmpty)
	_, err = cdLayout([]string{"a", "b"}, []float64{1, math.NaN()}, nil, false)
	wantErr(t, "NaN", err, ErrValue)
}

// checkNoOverlap checks that bars sharing a row are separated by the gap.
func checkNoOverlap(t *testing.T, g cdGeom) {
	t.Helper()
	gap := cdBarGapFrac * float64(g.High-g.Low)
	for i, a := range g.Bars {
		if a.Lo > a.Hi {
			t.Errorf("bar %d has Lo > Hi", i)
		}
		for j, b := range g.Bars[i+1:] {
			if a.Row == b.Row && !(a.Hi+gap < b.Lo || b.Hi+gap < a.Lo) {
				t.Errorf("bars %d and %d overlap on row %d", i, i+1+j, a.Row)
			}
		}
	}
}

func TestCDLayoutManyCliques(t *testing.T) {
	n := 18
	methods := make([]string, n)
	ranks := make([]float64, n)
	for i := range methods {
		methods[i] = "M" + strconv.Itoa(i)
		ranks[i] = 1 + float64(i)*0.9
	}
	var cliques [][]int
	for a := 0; a < n; a++ {
		var cl []int
		for b := a; b < n && ranks[b]-ranks[a] < 3; b++ {
			cl = append(cl, b)
		}
		cliques = append(cliques, cl)
	}
	g, err := cdLayout(methods, ranks, cliques, false)
	if err != nil {
		t.Fatal(err)
	}
	checkNoOverlap(t, g)
	for _, b := range g.Bars {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, m := range b.Members {
			lo, hi = math.Min(lo, ranks[m]), math.Max(hi, ranks[m])
		}
		if b.Lo != lo || b.Hi != hi {
			t.Errorf("bar %v extends %v..%v, members span %v..%v", b.Members, b.Lo, b.Hi, lo, hi)
		}
	}
	if g.BarRows >= len(g.Bars) {
		t.Errorf("no packing: %d rows for %d bars", g.BarRows, len(g.Bars))
	}
	f, err := CDDiagram(meta, methods, ranks, cliques, WithCriticalDifference(2.5))
	if err != nil {
		t.Fatal(err)
	}
	w, h := f.Size()
	checkRender(t, "cd_many", f, w, h)
}

func TestCDDiagram(t *testing.T) {
	methods := []string{"SoftShape", "MR-H", "InceptionTime", "TSLANet", "Medformer"}
	ranks := []float64{1.9, 2.2, 3.1, 3.4, 4.4}
	f, err := CDDiagram(meta, methods, ranks, [][]int{{0, 1}, {1, 2, 3}, {3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "cd", f, 6*vg.Inch, 2.5*vg.Inch)
	f, err = CDDiagram(Meta{Quick: true}, methods, ranks, nil, WithBestOnRight())
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "cd_reversed", f, 6*vg.Inch, 3*vg.Inch)
	if _, err := CDDiagram(meta, []string{"only"}, []float64{1}, nil); err != nil {
		t.Errorf("single method: %v", err)
	}
	_, err = CDDiagram(meta, methods, ranks, nil, WithCriticalDifference(math.NaN()))
	wantErr(t, "NaN CD", err, ErrValue)
}

// TestCDDiagramWidth: the default width is 7.5 in up to 10 methods, then
// 0.35 in more per method (19 methods: 4 + 0.35 × 19 = 10.65 in), so that
// Table 1's 18 methods and a same-fold baseline keep their lines apart.
func TestCDDiagramWidth(t *testing.T) {
	for _, tc := range []struct {
		k    int
		want vg.Length
	}{{5, 7.5 * vg.Inch}, {10, 7.5 * vg.Inch}, {19, 10.65 * vg.Inch}} {
		methods := make([]string, tc.k)
		ranks := make([]float64, tc.k)
		for i := range methods {
			methods[i], ranks[i] = fmt.Sprintf("method %d", i), float64(i+1)
		}
		f, err := CDDiagram(meta, methods, ranks, nil)
		if err != nil {
			t.Fatal(err)
		}
		if w, _ := f.Size(); math.Abs(float64(w-tc.want)) > 1e-9 {
			t.Errorf("%d methods: width %v in, want %v in", tc.k, w/vg.Inch, tc.want/vg.Inch)
		}
	}
}

func TestStepScores(t *testing.T) {
	// Shapes of length 4, stride 2 over 9 steps: shape j covers
	// [2j, 2j+4); step 8 is covered by no shape.
	scores := []float64{1, 3, 5}
	mean := stepScores(9, scores, 4, 2, AggMean)
	wantMean := []float64{1, 1, 2, 2, 4, 4, 5, 5, math.NaN()}
	maxs := stepScores(9, scores, 4, 2, AggMax)
	wantMax := []float64{1, 1, 3, 3, 5, 5, 5, 5, math.NaN()}
	for i := range wantMean {
		if !(mean[i] == wantMean[i] || math.IsNaN(mean[i]) && math.IsNaN(wantMean[i])) {
			t.Errorf("mean[%d] = %v, want %v", i, mean[i], wantMean[i])
		}
		if !(maxs[i] == wantMax[i] || math.IsNaN(maxs[i]) && math.IsNaN(wantMax[i])) {
			t.Errorf("max[%d] = %v, want %v", i, maxs[i], wantMax[i])
		}
	}
	// A shape running past the end is clipped.
	clipped := stepScores(5, []float64{2, 4}, 4, 3, AggMean)
	if !slices.Equal(clipped, []float64{2, 2, 2, 3, 4}) {
		t.Errorf("clipped = %v", clipped)
	}
}

func TestAttentionColours(t *testing.T) {
	cm := attentionColorMap(0, 1)
	hi := colourAt(cm, 1)
	lo := colourAt(cm, 0)
	mid := colourAt(cm, 0.5)
	r, _, b, _ := hi.RGBA()
	if r <= b {
		t.Errorf("high score colour %v is not red", hi)
	}
	r, _, b, _ = lo.RGBA()
	if b <= r {
		t.Errorf("low score colour %v is not blue", lo)
	}
	r, g, b, _ := mid.RGBA()
	if r < 0xC000 || g < 0xC000 || b < 0xC000 {
		t.Errorf("middle colour %v is not near white", mid)
	}
	// Out-of-range values clamp instead of failing.
	if c := colourAt(cm, 7); c != hi {
		t.Errorf("clamped colour %v, want %v", c, hi)
	}
}

func TestAttentionMap(t *testing.T) {
	gunPoint, err := data.LoadBundled("GunPoint")
	if err != nil {
		t.Fatal(err)
	}
	series := gunPoint.Series[0]
	m, q := 16, 4
	n := (len(series)-m)/q + 1
	scores := make([]float64, n)
	for j := range scores {
		scores[j] = math.Exp(-math.Pow(float64(j-n/2)/4, 2))
	}
	f, err := AttentionMap(meta, series, scores, m, q)
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "attention", f, 6*vg.Inch, 4.5*vg.Inch)
	f, err = AttentionMap(meta, series, scores, m, q, WithAggregation(AggMax), WithScoreRange(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "attention_max", f, 6*vg.Inch, 4.5*vg.Inch)
	// Constant scores and many shapes (stride 1).
	many := make([]float64, len(series)-m+1)
	if _, err := AttentionMap(meta, series, many, m, 1); err != nil {
		t.Errorf("constant scores: %v", err)
	}

	_, err = AttentionMap(meta, nil, scores, m, q)
	wantErr(t, "no series", err, ErrEmpty)
	_, err = AttentionMap(meta, series, nil, m, q)
	wantErr(t, "no scores", err, ErrEmpty)
	_, err = AttentionMap(meta, series, scores, 0, q)
	wantErr(t, "zero length", err, ErrValue)
	_, err = AttentionMap(meta, series, scores, m, 0)
	wantErr(t, "zero stride", err, ErrValue)
	_, err = AttentionMap(meta, series[:20], scores, m, q)
	wantErr(t, "too many shapes", err, ErrLength)
	bad := slices.Clone(scores)
	bad[1] = math.NaN()
	_, err = AttentionMap(meta, series, bad, m, q)
	wantErr(t, "NaN score", err, ErrValue)
}

func TestScatterPanels(t *testing.T) {
	var panels []Scatter2D
	for s := 0; s < 4; s++ {
		p := Scatter2D{Title: "(" + string(rune('a'+s)) + ") stage"}
		for i := 0; i < 60; i++ {
			c := i % 3
			p.X = append(p.X, float64(c)*float64(s+1)+math.Sin(float64(i)))
			p.Y = append(p.Y, math.Cos(float64(i*7)))
			p.Class = append(p.Class, c)
		}
		panels = append(panels, p)
	}
	f, err := ScatterPanels(meta, panels, []string{"Cylinder", "Bell", "Funnel"})
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "scatter", f, 12*vg.Inch, 3.5*vg.Inch)
	f, err = ScatterPanels(meta, panels[:3], nil, WithGrid(2, 2))
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "scatter_grid", f, 6*vg.Inch, 6*vg.Inch)

	// Many classes: legend reduced to the count.
	big := Scatter2D{}
	for i := 0; i < 100; i++ {
		big.X = append(big.X, float64(i))
		big.Y = append(big.Y, float64(i%7))
		big.Class = append(big.Class, i%50)
	}
	f, err = ScatterPanels(meta, []Scatter2D{big}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "scatter_50", f, 5*vg.Inch, 4*vg.Inch)

	_, err = ScatterPanels(meta, nil, nil)
	wantErr(t, "no panels", err, ErrEmpty)
	_, err = ScatterPanels(meta, []Scatter2D{{X: []float64{1}, Y: []float64{1, 2}, Class: []int{0}}}, nil)
	wantErr(t, "ragged", err, ErrLength)
	_, err = ScatterPanels(meta, []Scatter2D{{}}, nil)
	wantErr(t, "empty panel", err, ErrEmpty)
	_, err = ScatterPanels(meta, panels, []string{"only one"})
	wantErr(t, "missing class name", err, ErrValue)
	_, err = ScatterPanels(meta, []Scatter2D{{X: []float64{1}, Y: []float64{1}, Class: []int{-1}}}, nil)
	wantErr(t, "negative class", err, ErrValue)
	_, err = ScatterPanels(meta, panels, nil, WithGrid(1, 2))
	wantErr(t, "grid too small", err, ErrValue)
	_, err = ScatterPanels(meta, []Scatter2D{{X: []float64{math.NaN()}, Y: []float64{1}, Class: []int{0}}}, nil)
	wantErr(t, "NaN", err, ErrValue)
}

func TestRunningTime(t *testing.T) {
	lengths := []float64{166, 1660, 8300, 16600}
	series := map[string][]float64{
		"η=90%": {5, 20, 60, math.NaN()},
		"η=10%": {6, 30, 120, 240},
		"η=50%": {5, 25, 90, 180},
		"η=5%":  {6, 31, 125, 250},
	}
	f, err := RunningTime(meta, lengths, series)
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "runtime", f, 6*vg.Inch, 4*vg.Inch)
	if _, err := RunningTime(meta, lengths, series, WithLogY()); err != nil {
		t.Errorf("log: %v", err)
	}

	// The spread adds a capped bar (three strokes) per point with lo < hi:
	// here 3 of η=50%'s points; NaN and lo == hi draw nothing.
	plain, err := f.SVG(6*vg.Inch, 4*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	lo := map[string][]float64{"η=50%": {4, 20, 80, math.NaN()}}
	hi := map[string][]float64{"η=50%": {6, 20, 100, 200}}
	fs, err := RunningTime(meta, lengths, series, WithSpread(map[string][]float64{"η=50%": {4, 22, 80, 170}}, hi))
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "runtime-spread", fs, 6*vg.Inch, 4*vg.Inch)
	fs, err = RunningTime(meta, lengths, series, WithSpread(lo, hi))
	if err != nil {
		t.Fatal(err)
	}
	spread, err := fs.SVG(6*vg.Inch, 4*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	if got := bytes.Count(spread, []byte("<path")) - bytes.Count(plain, []byte("<path")); got != 2*3 {
		t.Errorf("spread added %d paths, want 6 (two bars of three strokes)", got)
	}
	if _, err := RunningTime(meta, lengths, series, WithSpread(map[string][]float64{"η=50%": {1, 2}}, hi)); !errors.Is(err, ErrLength) {
		t.Errorf("spread of 2 bounds for 4 lengths: err = %v, want ErrLength", err)
	}

	keys := []string{"η=90%", "η=10%", "η=5%", "η=50%", "abc", "ab"}
	slices.SortFunc(keys, func(a, b string) int {
		if naturalLess(a, b) {
			return -1
		}
		if naturalLess(b, a) {
			return 1
		}
		return 0
	})
	if want := []string{"ab", "abc", "η=5%", "η=10%", "η=50%", "η=90%"}; !slices.Equal(keys, want) {
		t.Errorf("natural order %v, want %v", keys, want)
	}

	_, err = RunningTime(meta, nil, series)
	wantErr(t, "no lengths", err, ErrEmpty)
	_, err = RunningTime(meta, lengths, nil)
	wantErr(t, "no series", err, ErrEmpty)
	_, err = RunningTime(meta, lengths, map[string][]float64{"a": {1}})
	wantErr(t, "mismatch", err, ErrLength)
	_, err = RunningTime(meta, lengths, map[string][]float64{"a": {1, 2, -3, 4}})
	wantErr(t, "negative", err, ErrValue)
	_, err = RunningTime(meta, lengths, map[string][]float64{"a": {1, 2, 0, 4}}, WithLogY())
	wantErr(t, "log zero", err, ErrValue)
	_, err = RunningTime(meta, []float64{1, math.NaN()}, map[string][]float64{"a": {1, 2}})
	wantErr(t, "NaN length", err, ErrValue)
}

func TestTrainingCurves(t *testing.T) {
	var c Curves
	for e := 0; e < 30; e++ {
		c.TrainLoss = append(c.TrainLoss, math.Exp(-float64(e)/8))
		c.ValLoss = append(c.ValLoss, math.Exp(-float64(e)/10)+0.1)
		c.TrainAcc = append(c.TrainAcc, 1-math.Exp(-float64(e)/6))
		c.ValAcc = append(c.ValAcc, 0.9-math.Exp(-float64(e)/8))
	}
	c.WarmUp = 5
	f, err := TrainingCurves(meta, c)
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "curves", f, 9*vg.Inch, 3.5*vg.Inch)

	lossOnly := Curves{Epoch: []float64{1, 2, 3}, TrainLoss: []float64{1, 0.5, 0.3}, WarmUp: 3}
	f, err = TrainingCurves(meta, lossOnly)
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, "curves_loss", f, 5*vg.Inch, 3.5*vg.Inch)

	_, err = TrainingCurves(meta, Curves{})
	wantErr(t, "empty", err, ErrEmpty)
	_, err = TrainingCurves(meta, Curves{Epoch: []float64{1, 2}, TrainLoss: []float64{1, 2, 3}})
	wantErr(t, "mismatch", err, ErrLength)
	_, err = TrainingCurves(meta, Curves{TrainLoss: []float64{1, 2}, ValAcc: []float64{1}})
	wantErr(t, "metric mismatch", err, ErrLength)
	_, err = TrainingCurves(meta, Curves{TrainLoss: []float64{1, 2}, WarmUp: 3})
	wantErr(t, "warm-up beyond", err, ErrValue)
	_, err = TrainingCurves(meta, Curves{TrainLoss: []float64{1, math.Inf(1)}})
	wantErr(t, "Inf", err, ErrValue)
}

func TestSaveAndDisplay(t *testing.T) {
	f, err := RankBars(meta, []string{"a", "b"}, []float64{1.2, 1.8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"x.png", "sub/x.svg", "X.PNG"} {
		p := filepath.Join(dir, name)
		if err := f.Save(p, 4*vg.Inch, 3*vg.Inch); err != nil {
			t.Fatalf("Save %s: %v", name, err)
		}
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("Save %s wrote nothing (%v)", name, err)
		}
	}
	wantErr(t, "bad extension", f.Save(filepath.Join(dir, "x.jpg"), 4*vg.Inch, 3*vg.Inch), ErrValue)

	// Every format, for papers: PNG at FileDPI, SVG and PDF.
	formats, err := ParseFormats(" PNG,.svg, pdf,png")
	if err != nil || !slices.Equal(formats, []string{"png", "svg", "pdf"}) {
		t.Fatalf("ParseFormats: %q, %v", formats, err)
	}
	for _, bad := range []string{"jpg", "", " , "} {
		if _, err := ParseFormats(bad); !errors.Is(err, ErrValue) {
			t.Errorf("ParseFormats(%q): %v, want ErrValue", bad, err)
		}
	}
	paths, err := f.SaveFormats(filepath.Join(dir, "paper", "fig"), formats)
	if err != nil || len(paths) != 3 {
		t.Fatalf("SaveFormats: %q, %v", paths, err)
	}
	magic := map[string]string{".png": "\x89PNG", ".svg": "<svg", ".pdf": "%PDF-"}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if m := magic[filepath.Ext(p)]; !bytes.Contains(b[:min(len(b), 400)], []byte(m)) {
			t.Errorf("%s does not start like a %s file", p, filepath.Ext(p))
		}
	}
	if img, err := png.DecodeConfig(bytes.NewReader(mustRead(t, paths[0]))); err != nil || img.Width != int(float64(f.width/vg.Inch)*FileDPI+0.5) {
		t.Errorf("PNG file %v (%v), want %d dpi", img, err, FileDPI)
	}
	_, err = f.PNG(0, 3*vg.Inch)
	wantErr(t, "zero width", err, ErrValue)

	// Without a display function (outside a notebook) Display saves to the fallback path.
	fallback := filepath.Join(dir, "display", "fig.png")
	got, err := f.Display(fallback, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got != fallback {
		t.Errorf("Display returned %q, want %q", got, fallback)
	}
	data, err := os.ReadFile(fallback)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	w, h := f.Size()
	if b := img.Bounds(); b.Dx() != int(float64(w/vg.Inch)*FileDPI+0.5) || b.Dy() != int(float64(h/vg.Inch)*FileDPI+0.5) {
		t.Errorf("fallback PNG is %v for size %v×%v, want %d dpi", b, w, h, FileDPI)
	}
	_, err = f.Display("", nil)
	wantErr(t, "no fallback", err, ErrValue)

	// Inside a notebook the PNG goes to the display call.
	var shown []byte
	got, err = f.Display(filepath.Join(dir, "unused.png"), func(b []byte) { shown = b })
	if err != nil || got != "" {
		t.Fatalf("notebook display: %q, %v", got, err)
	}
	if img, err := png.Decode(bytes.NewReader(shown)); err != nil {
		t.Errorf("notebook display sent no PNG: %v", err)
	} else if b := img.Bounds(); b.Dx() != int(float64(w/vg.Inch)*DefaultDPI+0.5) {
		t.Errorf("inline PNG is %v for width %v, want %d dpi", b, w, DefaultDPI)
	}
	if _, err := os.Stat(filepath.Join(dir, "unused.png")); err == nil {
		t.Error("notebook display wrote the fallback file")
	}

	// Size and DPI options.
	f2, err := RankBars(meta, []string{"a"}, []float64{1}, nil, WithSize(3*vg.Inch, 2*vg.Inch), WithDPI(150))
	if err != nil {
		t.Fatal(err)
	}
	if w, h := f2.Size(); w != 3*vg.Inch || h != 2*vg.Inch || f2.DPI() != 150 {
		t.Errorf("options not applied: %v×%v at %d", w, h, f2.DPI())
	}
	checkRender(t, "dpi150", f2, 3*vg.Inch, 2*vg.Inch)

	// Embedded fonts make a self-contained, larger SVG.
	plain, err := f2.SVG(3*vg.Inch, 2*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	f3, _ := RankBars(meta, []string{"a"}, []float64{1}, nil, WithEmbeddedFonts())
	embedded, err := f3.SVG(3*vg.Inch, 2*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(embedded, []byte("@font-face")) || len(embedded) <= len(plain) {
		t.Errorf("embedded SVG (%d bytes) has no font-face or is not larger than plain (%d bytes)", len(embedded), len(plain))
	}
}

// mustRead returns the contents of path.
func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPalette(t *testing.T) {
	p := Palette()
	if len(p) != 8 {
		t.Fatalf("palette has %d colours", len(p))
	}
	r, g, b, _ := p[0].RGBA()
	if r>>8 != 0x00 || g>>8 != 0x72 || b>>8 != 0xB2 {
		t.Errorf("first colour %v, want Okabe–Ito blue #0072B2", p[0])
	}
	p[0] = nil // callers get a copy
	if Palette()[0] == nil {
		t.Error("Palette shares its backing array")
	}
}

// TestSEBarsRangeWithoutSE: bars whose SE is unknown (NaN: one fold) draw
// nothing but keep their points in the data range; a NaN range would leave
// the axis without bounds (gonum's tick labelling never returns).
func TestSEBarsRangeWithoutSE(t *testing.T) {
	nan := math.NaN()
	e := seBars([]float64{1, 2}, []float64{0.5, 0.7}, []float64{nan, nan}, lineStyle(color.Black, 1, nil))
	xmin, xmax, ymin, ymax := e.DataRange()
	if xmin != 1 || xmax != 2 || ymin != 0.5 || ymax != 0.7 {
		t.Errorf("range x %v..%v y %v..%v, want 1..2 and 0.5..0.7", xmin, xmax, ymin, ymax)
	}
	e = seBars([]float64{1, 2}, []float64{0.5, 0.7}, []float64{0.1, nan}, lineStyle(color.Black, 1, nil))
	if _, _, ymin, ymax := e.DataRange(); ymin != 0.4 || ymax != 0.7 {
		t.Errorf("range y %v..%v, want 0.4..0.7", ymin, ymax)
	}
}
