package stats_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/stats"
)

// equalFloats reports whether a and b agree elementwise within tol.
func equalFloats(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

func TestRanks(t *testing.T) {
	// Hand-ranked rows; rank 1 is the highest accuracy.
	acc := [][]float64{
		{0.9, 0.8, 0.9, 0.7}, // 0.9 tied for first (positions 1, 2), 0.8 third, 0.7 fourth
		{0.5, 0.5, 0.5, 0.6}, // 0.6 first, three-way tie over positions 2..4
		{0.1, 0.2, 0.3, 0.4}, // strictly increasing
	}
	cases := []struct {
		name string
		ties stats.TieRule
		want [][]float64
		avg  []float64
	}{
		{
			name: "min (paper)",
			ties: stats.TiesMin,
			want: [][]float64{{1, 3, 1, 4}, {2, 2, 2, 1}, {4, 3, 2, 1}},
			avg:  []float64{7.0 / 3, 8.0 / 3, 5.0 / 3, 2},
		},
		{
			name: "average",
			ties: stats.TiesAverage,
			want: [][]float64{{1.5, 3, 1.5, 4}, {3, 3, 3, 1}, {4, 3, 2, 1}},
			avg:  []float64{8.5 / 3, 3, 6.5 / 3, 2},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := stats.Ranks(acc, c.ties)
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.want {
				if !equalFloats(got[i], c.want[i], 0) {
					t.Errorf("row %d: got %v, want %v", i, got[i], c.want[i])
				}
			}
			avg, err := stats.AverageRanks(acc, c.ties)
			if err != nil {
				t.Fatal(err)
			}
			if !equalFloats(avg, c.avg, 1e-12) {
				t.Errorf("average ranks %v, want %v", avg, c.avg)
			}
		})
	}
}

func TestWinsAndMeans(t *testing.T) {
	acc := [][]float64{
		{0.9, 0.8, 0.9, 0.7},
		{0.5, 0.5, 0.5, 0.6},
		{0.1, 0.2, 0.3, 0.4},
	}
	wins, err := stats.Wins(acc)
	if err != nil {
		t.Fatal(err)
	}
	// Row 0: methods 0 and 2 tie at the maximum and both win.
	if want := []int{1, 0, 1, 2}; !equalInts(wins, want) {
		t.Errorf("wins %v, want %v", wins, want)
	}
	means, err := stats.MeanAccuracy(acc)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1.5 / 3, 1.5 / 3, 1.7 / 3, 1.7 / 3}; !equalFloats(means, want, 1e-12) {
		t.Errorf("means %v, want %v", means, want)
	}
}

// equalInts reports whether a and b are equal.
func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMatrixErrors(t *testing.T) {
	cases := []struct {
		name    string
		acc     [][]float64
		want    error
		message string
	}{
		{"empty", nil, stats.ErrShape, ""},
		{"ragged", [][]float64{{1, 2}, {1}}, stats.ErrShape, "row 1"},
		{"one method", [][]float64{{1}, {2}}, stats.ErrTooFewMethods, ""},
		{"NaN", [][]float64{{1, 2}, {0.5, math.NaN()}}, stats.ErrNaN, "row 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := map[string]error{}
			_, calls["Ranks"] = stats.Ranks(c.acc, stats.TiesMin)
			_, calls["AverageRanks"] = stats.AverageRanks(c.acc, stats.TiesAverage)
			_, calls["Wins"] = stats.Wins(c.acc)
			_, calls["Summarize"] = stats.Summarize([]string{"a", "b"}, c.acc, "a")
			_, calls["CriticalDifference"] = stats.CriticalDifference([]string{"a", "b"}, c.acc, 0.05)
			if c.want != stats.ErrTooFewMethods {
				_, calls["MeanAccuracy"] = stats.MeanAccuracy(c.acc)
			}
			for fn, err := range calls {
				if !errors.Is(err, c.want) {
					t.Errorf("%s: error %v, want %v", fn, err, c.want)
				} else if !strings.Contains(err.Error(), c.message) {
					t.Errorf("%s: error %q does not name %q", fn, err, c.message)
				}
			}
		})
	}
	if _, err := stats.Ranks([][]float64{{1, 2}}, stats.TieRule(7)); !errors.Is(err, stats.ErrBadArgument) {
		t.Errorf("bad tie rule: %v", err)
	}
}
