package notebook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/plots"
)

// TestShowFigureOutsideNotebook: outside a notebook a figure is saved as
// <dir>/<name>.png, and a figure not drawn writes nothing.
func TestShowFigureOutsideNotebook(t *testing.T) {
	c := plots.Curves{Epoch: []float64{1, 2, 3}, TrainLoss: []float64{1, 0.5, 0.4}, ValLoss: []float64{1.1, 0.7, 0.6},
		TrainAcc: []float64{0.3, 0.6, 0.7}, ValAcc: []float64{0.3, 0.5, 0.6}, WarmUp: 1}
	dir := t.TempDir()
	f, err := plots.TrainingCurves(plots.Meta{Title: "curves"}, c)
	ShowFigure(dir, "c", f, err)
	path := filepath.Join(dir, "c.png")
	if b, err := os.ReadFile(path); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("%s: not a PNG (%v)", path, err)
	}
	f, err = plots.TrainingCurves(plots.Meta{Title: "empty"}, plots.Curves{})
	if err == nil {
		t.Fatal("curves of no epoch: no error")
	}
	ShowFigure(dir, "d", f, err)
	if _, err := os.Stat(filepath.Join(dir, "d.png")); !os.IsNotExist(err) {
		t.Errorf("a figure not drawn: d.png %v", err)
	}
}

// TestLine keeps a text on one line of a Markdown table.
func TestLine(t *testing.T) {
	if got := Line("no history\nat all | here"); got != `no history at all \| here` {
		t.Errorf("Line = %q", got)
	}
}
