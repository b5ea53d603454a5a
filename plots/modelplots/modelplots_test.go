package modelplots

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/plots"
	"github.com/softshape-go/softshape/plots/tsne"
	"github.com/softshape-go/softshape/softshape"
)

// TestFiguresFromATrainedModel trains a small model on generated CBF and renders
// its training curves, an attention map of a chosen class and the stage t-SNE to
// PNGs of the expected size.
func TestFiguresFromATrainedModel(t *testing.T) {
	ds := data.CBF(20, 64, 2)
	cfg := softshape.DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs, cfg.EmbedDim = 4, 2, 16
	fr, trained, err := softshape.TrainFold(ds, cfg, 0, softshape.RunOptions{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	splits, _ := data.Folds(ds, 5, 2)
	fd, err := data.Prepare(ds, splits[0])
	if err != nil {
		t.Fatal(err)
	}
	meta := plots.Meta{Dataset: ds.Name, Config: "test", Quick: true}
	check := func(name string, f *plots.Figure, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := f.PNG(6*96, 4*96)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if img.Bounds().Dx() == 0 || img.Bounds().Dy() == 0 {
			t.Errorf("%s: empty image", name)
		}
	}
	f, err := TrainingCurves(meta, fr, cfg.WarmUpEpochs)
	check("curves", f, err)
	i, err := FirstOfClass(fd.TestY, 2)
	if err != nil {
		t.Fatal(err)
	}
	f, err = Attention(meta, trained, fd.TestX, i)
	check("attention", f, err)
	// The colour scale spans the scores of every series given, and the
	// caption counts the kept and fused shapes of the one drawn.
	in, err := trained.Interpret(fd.TestX)
	if err != nil {
		t.Fatal(err)
	}
	// One interpretation draws the same map (AttentionOf, as a notebook
	// draws one map per class), and a series it lacks is an error.
	g, err := AttentionOf(meta, in, fd.TestX, i)
	check("attention of an interpretation", g, err)
	if g.Caption() != f.Caption() {
		t.Errorf("AttentionOf's caption %q differs from Attention's %q", g.Caption(), f.Caption())
	}
	if _, err := AttentionOf(meta, in, fd.TestX, len(fd.TestX)); err == nil {
		t.Errorf("AttentionOf series %d of %d: no error", len(fd.TestX), len(fd.TestX))
	}
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for _, row := range in.ShapeScores {
		lo, hi = min(lo, slices.Min(row)), max(hi, slices.Max(row))
	}
	if lo == hi {
		t.Fatalf("every attention score is %v", lo)
	}
	m := regexp.MustCompile(`Colour scale fixed at (-?[0-9.]+)–(-?[0-9.]+)`).FindStringSubmatch(f.Caption())
	if m == nil {
		t.Fatalf("attention caption %q names no colour scale", f.Caption())
	}
	for k, want := range []float32{lo, hi} {
		got, err := strconv.ParseFloat(m[k+1], 64)
		decimals := len(m[k+1]) - strings.Index(m[k+1], ".") - 1
		if err != nil || math.Abs(got-float64(want)) > 0.5*math.Pow(10, -float64(decimals))+1e-12 {
			t.Errorf("colour scale end %q, want the scores' %v", m[k+1], want)
		}
	}
	kept := in.NumKept
	counts := fmt.Sprintf("the %d of %d shapes kept as tokens; hollow bars: the %d fused", kept, len(in.ShapeScores[i]), len(in.ShapeScores[i])-kept)
	for _, want := range []string{counts} {
		if !strings.Contains(f.Caption(), want) {
			t.Errorf("attention caption %q lacks %q", f.Caption(), want)
		}
	}
	if _, err := Attention(meta, trained, fd.TestX, len(fd.TestX)); err == nil {
		t.Error("an attention map of a series past the end rendered")
	}
	f, err = StageTSNE(meta, trained, fd.TrainX, fd.TrainY, ds.ClassNames, tsne.Options{Seed: 1, Iterations: 300})
	check("t-SNE", f, err)
	if _, err := FirstOfClass(fd.TestY, 9); err == nil {
		t.Error("FirstOfClass found a class that does not exist")
	}
	if _, err := TrainingCurves(meta, &softshape.FoldResult{}, 0); err == nil {
		t.Error("curves of an empty history rendered")
	}
}
