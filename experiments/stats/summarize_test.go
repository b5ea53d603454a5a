package stats_test

import (
	"errors"
	"math"
	"testing"

	"github.com/softshape-go/softshape/experiments/stats"
)

func TestSummarizeSmall(t *testing.T) {
	// Three datasets; "copy" equals the reference everywhere.
	acc := [][]float64{
		{0.9, 0.8, 0.9},
		{0.7, 0.6, 0.7},
		{0.5, 0.6, 0.5},
	}
	s, err := stats.Summarize([]string{"ref", "other", "copy"}, acc, "ref")
	if err != nil {
		t.Fatal(err)
	}
	// Ranks (TiesMin): rows (1,3,1), (1,3,1), (2,1,2) -> 4/3, 7/3, 4/3.
	if !equalFloats(s.AvgRank, []float64{4.0 / 3, 7.0 / 3, 4.0 / 3}, 1e-12) {
		t.Errorf("avg rank %v", s.AvgRank)
	}
	if !equalInts(s.Wins, []int{2, 1, 2}) {
		t.Errorf("wins %v", s.Wins)
	}
	// ref - other = 0.1, 0.1, -0.1 (in float64): mean 1/30, sd 0.11547,
	// t = 0.5, df 2: two-sided p = 1 - t/sqrt(2+t^2) = 1 - 0.5/1.5 = 2/3,
	// so the paper p-value is 1/3.
	if !closeRel(s.PaperP[1], 1.0/3, 1e-9) {
		t.Errorf("paper p %v, want 1/3", s.PaperP[1])
	}
	for _, j := range []int{0, 2} {
		if !math.IsNaN(s.PaperP[j]) || !math.IsNaN(s.WilcoxonP[j]) {
			t.Errorf("method %d: p-values %v %v, want NaN", j, s.PaperP[j], s.WilcoxonP[j])
		}
	}
	if math.IsNaN(s.WilcoxonP[1]) {
		t.Error("Wilcoxon p for other is NaN")
	}
	if _, err := stats.Summarize([]string{"a", "b", "c"}, acc, "zzz"); !errors.Is(err, stats.ErrUnknownMethod) {
		t.Errorf("unknown reference: %v", err)
	}
	if _, err := stats.Summarize([]string{"a", "b"}, acc, "a"); !errors.Is(err, stats.ErrShape) {
		t.Errorf("name count: %v", err)
	}
}
