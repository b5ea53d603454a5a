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
	// Ties averaged: rows (1.5,3,1.5), (1.5,3,1.5), (2.5,1,2.5) -> 5.5/3, 7/3, 5.5/3.
	if !equalFloats(s.AvgRankTiesAveraged, []float64{5.5 / 3, 7.0 / 3, 5.5 / 3}, 1e-12) {
		t.Errorf("avg rank, ties averaged %v", s.AvgRankTiesAveraged)
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

// TestCDAverageRanksTies checks the tie rule of a critical-difference
// diagram's ranks by hand: accuracies 1, 1, 0.9 rank 1.5, 1.5, 3 (the paper's
// Avg. Rank gives 1, 1, 3), and Summarize's AvgRankTiesAveraged holds the
// ranks CriticalDifference draws, method by method.
func TestCDAverageRanksTies(t *testing.T) {
	one := [][]float64{{1, 1, 0.9}}
	r, err := stats.CDAverageRanks(one)
	if err != nil {
		t.Fatal(err)
	}
	if !equalFloats(r, []float64{1.5, 1.5, 3}, 0) {
		t.Errorf("CDAverageRanks(1, 1, 0.9) = %v, want 1.5, 1.5, 3", r)
	}
	if m, _ := stats.AverageRanks(one, stats.TiesMin); !equalFloats(m, []float64{1, 1, 3}, 0) {
		t.Errorf("TiesMin(1, 1, 0.9) = %v, want 1, 1, 3", m)
	}
	// Datasets ranked (1.5, 1.5, 3), (3, 1.5, 1.5), (1, 2, 3): a (1.5+3+1)/3,
	// b (1.5+1.5+2)/3, c (3+1.5+3)/3.
	acc := [][]float64{{1, 1, 0.9}, {0.8, 0.9, 0.9}, {0.7, 0.6, 0.5}}
	names := []string{"a", "b", "c"}
	s, err := stats.Summarize(names, acc, "a")
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{5.5 / 3, 5.0 / 3, 7.5 / 3}
	if !equalFloats(s.AvgRankTiesAveraged, want, 1e-12) {
		t.Errorf("AvgRankTiesAveraged %v, want %v", s.AvgRankTiesAveraged, want)
	}
	cd, err := stats.CriticalDifference(names, acc, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range cd.Order {
		if cd.AvgRanks[i] != s.AvgRankTiesAveraged[j] {
			t.Errorf("%s: the diagram's rank %v, the summary's %v", names[j], cd.AvgRanks[i], s.AvgRankTiesAveraged[j])
		}
	}
}
