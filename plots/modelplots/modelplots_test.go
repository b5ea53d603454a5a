package modelplots

import (
	"bytes"
	"image/png"
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
	f, err = Attention(meta, trained, fd.TestX[i])
	check("attention", f, err)
	if !strings.Contains(f.Caption(), "Colour scale fixed at 0.00–1.00") {
		t.Errorf("attention caption %q: the colour scale should be the sigmoid's fixed range", f.Caption())
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
