package notebook

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/plots"
)

// stdout runs f and returns what it printed.
func stdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	f()
	os.Stdout = old
	w.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestShowFigureOutsideNotebook: outside a notebook a figure is saved as
// <dir>/<name>.png, its path printed; a figure not drawn prints the reason
// on one line.
func TestShowFigureOutsideNotebook(t *testing.T) {
	c := plots.Curves{Epoch: []float64{1, 2, 3}, TrainLoss: []float64{1, 0.5, 0.4}, ValLoss: []float64{1.1, 0.7, 0.6},
		TrainAcc: []float64{0.3, 0.6, 0.7}, ValAcc: []float64{0.3, 0.5, 0.6}, WarmUp: 1}
	f, err := plots.TrainingCurves(plots.Meta{Title: "curves"}, c)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := stdout(t, func() { ShowFigure(dir, "c", f, nil) })
	path := filepath.Join(dir, "c.png")
	if !strings.Contains(out, path) {
		t.Errorf("printed %q, want the path %s", out, path)
	}
	if b, err := os.ReadFile(path); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("%s: not a PNG (%v)", path, err)
	}
	out = stdout(t, func() { Show("d", nil, errors.New("no history\nat all | here")) })
	if out != "*Figure d not drawn: no history at all \\| here*\n" {
		t.Errorf("a figure not drawn printed %q", out)
	}
}
