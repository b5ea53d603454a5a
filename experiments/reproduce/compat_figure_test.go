package reproduce

import (
	"math"
	"strings"
	"testing"
)

// TestCompatFigureMean: the figure's average and the table's mean row are
// one number, the mean of the accuracies as the table prints them; the
// per-dataset points get bars of ± their SE over the runs.
func TestCompatFigureMean(t *testing.T) {
	c := &CompatResult{Params: Params{Seeds: []int64{42}, Folds: []int{1, 2}}, Rows: []CompatRow{
		{Dataset: "GunPoint", Off: 0.91234, On: 0.95, OffFolds: []float64{0.9, 0.92468}, OnFolds: []float64{0.95, 0.95}},
		{Dataset: "Trace", Off: 0.8, On: 0.86666, OffFolds: []float64{0.8, 0.8}, OnFolds: []float64{0.83332, 0.9}},
	}}
	off, on := c.printed()
	// By hand: 0.9123 and 0.8 average 0.85615; 0.95 and 0.8667 average 0.90835.
	if m := mean(off); math.Abs(m-0.85615) > 1e-12 {
		t.Errorf("mean off %v, want 0.85615", m)
	}
	if m := mean(on); math.Abs(m-0.90835) > 1e-12 {
		t.Errorf("mean on %v, want 0.90835", m)
	}
	if md := c.Markdown(); !strings.Contains(md, "| **mean** | **0.8561** | **0.9083** |") {
		t.Errorf("the table's mean row is not the figure's average:\n%s", md)
	}
	f, err := c.Figure()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Caption(), "Bars ± SE over the runs; thick: the table's mean row") {
		t.Errorf("caption %q", f.Caption())
	}
}
