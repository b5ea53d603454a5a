package main

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/softshape-go/softshape/experiments/reproduce"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/tablefigures"
	"github.com/softshape-go/softshape/plots"
)

// checkPNG checks that path is a PNG of w×h pixels and that its SVG twin exists.
func checkPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); (w > 0 && b.Dx() != w) || (h > 0 && b.Dy() != h) || b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("%s is %d×%d, want %d×%d", path, b.Dx(), b.Dy(), w, h)
	}
	svg, err := os.ReadFile(strings.TrimSuffix(path, ".png") + ".svg")
	if err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("SVG of %s: %v", path, err)
	}
}

// pngConfig returns the size of the PNG at path.
func pngConfig(t *testing.T, path string) image.Config {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return cfg
}

// sparseRatioStore writes a quick sparse_ratio sweep by hand: 4 datasets of
// the paper's table × the 6 ratios, fold 1, with made-up accuracies.
func sparseRatioStore(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "results")
	s, err := sweep.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	g, err := sweep.NewGrid(sweep.GridSpec{Table: "sparse_ratio", Datasets: []string{"ArrowHead", "CBF", "GunPoint", "Trace"},
		Folds: []int{1}, Seeds: []int64{42}, Quick: true, Settings: "embed_dim=16"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveGrid(g); err != nil {
		t.Fatal(err)
	}
	for i, c := range g.Cells {
		now := time.Now().UTC()
		acc := 0.8 + 0.15*math.Abs(math.Sin(float64(3*i+1)))
		r := &sweep.Record{Schema: sweep.SchemaVersion, Table: c.Table, Dataset: c.Dataset, Variant: c.Variant, Fold: c.Fold, Seed: c.Seed,
			Quick: c.Quick, Hash: c.Hash, Mode: sweep.QuickLabel, Status: sweep.StatusOK, TestAccuracy: sweep.Float(acc), ValLoss: 0.3,
			EpochsRun: 1, Params: 1000, WallSeconds: 1, InferenceSeconds: 0.1, Backend: "test", Config: c.Config.String(),
			Started: now, Finished: now, Hostname: "test", PID: 1}
		if err := s.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestPlotTableFigures: sweep, ranks and cd figures of a hand-made results folder.
func TestPlotTableFigures(t *testing.T) {
	results := sparseRatioStore(t)
	out := t.TempDir()
	for _, c := range []struct {
		kind string
		w, h int
		want []string
	}{
		// 7.5 × 4.5 in at the default 150 dpi; the title, then the caption.
		{"sweep", 1125, 675, []string{"Accuracy vs sparse ratio (% of shapes fused) (Table 3) [QUICK MODE", "\n4 UCR datasets (", "bars ± SE"}},
		{"ranks", 0, 675, []string{"Average rank (Table 3) [QUICK MODE", "\n4 UCR datasets ("}},
		{"cd", 1125, 0, []string{"Critical difference (Table 3) [QUICK MODE", "Wilcoxon–Holm α=0.05"}},
	} {
		var buf bytes.Buffer
		if err := runPlot([]string{c.kind, "-table", "sparse_ratio", "-quick", "-results", results, "-out", out}, &buf); err != nil {
			t.Fatalf("plot %s: %v\n%s", c.kind, err, buf.String())
		}
		contains(t, buf.String(), append(c.want, "wrote "+filepath.Join(out, c.kind+"_sparse_ratio.png"))...)
		checkPNG(t, filepath.Join(out, c.kind+"_sparse_ratio.png"), c.w, c.h)
	}
	// Vector formats for papers, and a chosen resolution.
	var buf bytes.Buffer
	if err := runPlot([]string{"sweep", "-table", "sparse_ratio", "-quick", "-results", results, "-out", out, "-name", "paper", "-format", "pdf,png", "-dpi", "300"}, &buf); err != nil {
		t.Fatalf("plot sweep -format pdf,png: %v\n%s", err, buf.String())
	}
	contains(t, buf.String(), "wrote "+filepath.Join(out, "paper.pdf"), "wrote "+filepath.Join(out, "paper.png"))
	if b, err := os.ReadFile(filepath.Join(out, "paper.pdf")); err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Errorf("paper.pdf is no PDF (%v)", err)
	}
	if cfg := pngConfig(t, filepath.Join(out, "paper.png")); cfg.Width != 2250 {
		t.Errorf("-dpi 300: the PNG is %d pixels wide, want 2250 (7.5 in)", cfg.Width)
	}
	for _, bad := range [][]string{{}, {"nope"}, {"sweep"}, {"sweep", "-table", "sparse_ratio", "-results", results}, // no full-mode sweep
		{"cd", "-table", "sparse_ratio", "-quick", "-results", filepath.Join(out, "none")},
		{"sweep", "-table", "sparse_ratio", "-quick", "-results", results, "-format", "jpg"},
		{"sweep", "-table", "sparse_ratio", "-quick", "-results", results, "-dpi", "0"}} {
		if err := runPlot(bad, &buf); err == nil {
			t.Errorf("plot %v accepted", bad)
		}
	}
}

// TestPlotTableMatchesNotebook: each figure of one table, drawn by
// "softshape plot KIND" and by the notebooks' API (reproduce.Table with
// TrainMissing off, then Result.Figure and Result.Figures) from the same
// hand-written store, is the same figure: the same title and the same SVG.
func TestPlotTableMatchesNotebook(t *testing.T) {
	results := sparseRatioStore(t)
	p := reproduce.Params{Results: results, Quick: true, Datasets: []string{"ArrowHead", "CBF", "GunPoint", "Trace"},
		Folds: []int{1}, Seeds: []int64{42}, Settings: "embed_dim=16", Log: io.Discard}
	r, err := reproduce.Table(context.Background(), "sparse_ratio", p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Trained != 0 || len(r.NotTrained) != 0 || len(r.Table.Missing) != 0 {
		t.Fatalf("the notebook's grid is not the stored one: trained %d, not trained %d, missing %d", r.Trained, len(r.NotTrained), len(r.Table.Missing))
	}
	// Quick mode: the notebook's standard figures are the sweep chart only
	// (ranks of a short schedule are left out, reproduce.ErrQuickStatistics).
	standard := map[string]*plots.Figure{}
	for _, n := range r.Figures() {
		if errors.Is(n.Err, reproduce.ErrQuickStatistics) {
			continue
		}
		if n.Err != nil {
			t.Fatalf("notebook figure %s: %v", n.Name, n.Err)
		}
		standard[n.Name] = n.Figure
	}
	if len(standard) != 1 || standard["sparse_ratio_sweep"] == nil {
		t.Fatalf("standard figures of the quick sparse_ratio: %v", standard)
	}
	out := t.TempDir()
	for _, k := range tablefigures.AllKinds() {
		var buf bytes.Buffer
		if err := runPlot([]string{string(k), "-table", "sparse_ratio", "-quick", "-results", results, "-out", out}, &buf); err != nil {
			t.Fatalf("plot %s: %v\n%s", k, err, buf.String())
		}
		cli, err := os.ReadFile(filepath.Join(out, string(k)+"_sparse_ratio.svg"))
		if err != nil {
			t.Fatal(err)
		}
		nb, err := r.Figure(k)
		if err != nil {
			t.Fatalf("notebook %s: %v", k, err)
		}
		figs := []*plots.Figure{nb}
		if f := standard["sparse_ratio_"+string(k)]; f != nil {
			figs = append(figs, f)
		}
		for _, f := range figs {
			if title, _, _ := strings.Cut(buf.String(), "\n"); title != f.Title() {
				t.Errorf("%s: the CLI titles %q, the notebook %q", k, title, f.Title())
			}
			svg, err := f.SVG(f.Size())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(svg, cli) {
				t.Errorf("%s: the notebook's SVG (%d bytes) differs from the CLI's (%d bytes)", k, len(svg), len(cli))
			}
		}
	}
}

// TestPlotModelFigures trains CBF fold 1 for two epochs through "plot curves
// -save", then draws the curves, an attention map and the t-SNE panels from
// the saved checkpoint.
func TestPlotModelFigures(t *testing.T) {
	dir := t.TempDir()
	ckpt, out := filepath.Join(dir, "model"), filepath.Join(dir, "fig")
	var buf bytes.Buffer
	err := runPlot([]string{"curves", "-epochs", "2", "-warmup", "1", "-set", "embed_dim=16", "-save", ckpt, "-out", out, "-name", "trained"}, &buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	contains(t, buf.String(), "fold 1: test accuracy", "saved the model and its history in "+ckpt,
		"Training curves — CBF-generated fold 1", "2 epochs (1 warm-up)", "QUICK MODE")
	checkPNG(t, filepath.Join(out, "trained.png"), 0, 630) // 4.2 in at 150 dpi

	buf.Reset()
	if err := runPlot([]string{"curves", "-checkpoint", ckpt, "-out", out}, &buf); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	checkPNG(t, filepath.Join(out, "curves_CBF-generated_fold1.png"), 0, 630)

	buf.Reset()
	if err := runPlot([]string{"attention", "-checkpoint", ckpt, "-class", "bell", "-out", out}, &buf); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	contains(t, buf.String(), "MIL attention — CBF-generated fold 1 test #", "(class bell)", "QUICK MODE", "Colour scale fixed at ", "shapes kept as tokens; hollow bars: the ")
	checkPNG(t, filepath.Join(out, "attention_CBF-generated_classbell_0.png"), 1200, 900)

	buf.Reset()
	if err := runPlot([]string{"tsne", "-checkpoint", ckpt, "-n", "45", "-out", out}, &buf); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	contains(t, buf.String(), "t-SNE of the stage embeddings — CBF-generated fold 1 test")
	checkPNG(t, filepath.Join(out, "tsne_CBF-generated.png"), 0, 0)

	for _, bad := range [][]string{
		{"curves", "-checkpoint", out},                                                             // no history.json
		{"attention", "-out", out},                                                                 // no checkpoint
		{"attention", "-checkpoint", ckpt, "-class", "cone"},                                       // no such class
		{"attention", "-checkpoint", ckpt, "-index", "10000"},                                      // no such series
		{"tsne", "-checkpoint", ckpt, "-dataset", "GunPoint", "-data", bundledOnly(t), "-offline"}, // wrong shape
	} {
		if err := runPlot(bad, &buf); err == nil {
			t.Errorf("plot %v accepted", bad)
		}
	}
}
