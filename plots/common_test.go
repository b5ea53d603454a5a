package plots

import (
	"math"
	"testing"
)

// TestPadY: the highest and lowest values of a sweep chart stay off the
// frame (Table 4's paper line at k = 4 ran along the top edge).
func TestPadY(t *testing.T) {
	p := newPlot()
	addLine(p, []float64{1, 2, 3, 4}, []float64{0.92, 0.925, 0.915, 0.94}, lineStyle(rgb(hexBlack), 1, nil), nil)
	addLine(p, []float64{1, 2, 3, 4}, []float64{0.81, 0.815, 0.812, 0.805}, lineStyle(rgb(hexBlack), 1, nil), nil)
	if p.Y.Min != 0.805 || p.Y.Max != 0.94 {
		t.Fatalf("data range %g..%g, want 0.805..0.94", p.Y.Min, p.Y.Max)
	}
	padY(p, 0.04)
	const pad = 0.04 * (0.94 - 0.805)
	if math.Abs(p.Y.Min-(0.805-pad)) > 1e-12 || math.Abs(p.Y.Max-(0.94+pad)) > 1e-12 {
		t.Errorf("padded range %g..%g, want %g..%g", p.Y.Min, p.Y.Max, 0.805-pad, 0.94+pad)
	}
}
