package stats

import (
	"errors"
	"fmt"
	"math"
)

// Summary is the per-method summary of an accuracy table against a
// reference method, as in the SoftShape paper's summary rows plus the real
// Wilcoxon test. All slices are indexed like Methods.
type Summary struct {
	// Methods are the method names, in input order.
	Methods []string
	// Reference is the reference method.
	Reference string
	// AvgAcc is the mean accuracy (the paper's "Avg. Acc").
	AvgAcc []float64
	// AvgRank is the mean rank with TiesMin (the paper's "Avg. Rank").
	AvgRank []float64
	// AvgRankTiesAveraged is the mean rank with ties averaged
	// (CDAverageRanks): the ranks a critical-difference diagram of the same
	// accuracies shows (CriticalDifference's AvgRanks, in input order here).
	AvgRankTiesAveraged []float64
	// Wins counts the datasets where the method equals the best accuracy.
	Wins []int
	// PaperP is the paper's "P-value": half the two-sided paired t-test
	// p-value against the reference (PaperPValue). NaN for the reference and
	// for methods identical to it.
	PaperP []float64
	// WilcoxonP is the two-sided Wilcoxon signed-rank p-value against the
	// reference with scipy's defaults (WilcoxonSignedRank). NaN for the
	// reference and for methods identical to it.
	WilcoxonP []float64
}

// Summarize computes the paper's summary rows (Avg. Acc, Avg. Rank with
// TiesMin, Win, and the paper's p-value) for every method of acc
// (acc[dataset][method]) against the reference method, together with the
// two-sided Wilcoxon signed-rank p-value that the paper's label promises and
// the average ranks with ties averaged that a critical-difference diagram
// shows.
//
// The paper's p-value is one-sided in the direction of the observed
// difference (half the two-sided t-test p); the Wilcoxon p-value is
// two-sided; halve it for the one-sided p in the observed direction when the
// exact or uncorrected normal method is used.
func Summarize(methods []string, acc [][]float64, reference string) (Summary, error) {
	n, k, err := checkNamedMatrix(methods, acc, 2)
	if err != nil {
		return Summary{}, fmt.Errorf("summarize: %w", err)
	}
	ref := -1
	for j, m := range methods {
		if m == reference {
			ref = j
		}
	}
	if ref < 0 {
		return Summary{}, fmt.Errorf("summarize: %w: reference %q", ErrUnknownMethod, reference)
	}
	s := Summary{Methods: append([]string(nil), methods...), Reference: reference}
	if s.AvgAcc, err = MeanAccuracy(acc); err != nil {
		return Summary{}, fmt.Errorf("summarize: %w", err)
	}
	if s.AvgRank, err = AverageRanks(acc, TiesMin); err != nil {
		return Summary{}, fmt.Errorf("summarize: %w", err)
	}
	if s.AvgRankTiesAveraged, err = CDAverageRanks(acc); err != nil {
		return Summary{}, fmt.Errorf("summarize: %w", err)
	}
	if s.Wins, err = Wins(acc); err != nil {
		return Summary{}, fmt.Errorf("summarize: %w", err)
	}
	column := func(j int) []float64 {
		c := make([]float64, n)
		for i := range acc {
			c[i] = acc[i][j]
		}
		return c
	}
	refCol := column(ref)
	s.PaperP = make([]float64, k)
	s.WilcoxonP = make([]float64, k)
	for j := range methods {
		s.PaperP[j], s.WilcoxonP[j] = math.NaN(), math.NaN()
		if j == ref {
			continue
		}
		col := column(j)
		p, err := PaperPValue(refCol, col)
		switch {
		case err == nil:
			s.PaperP[j] = p
		case errors.Is(err, ErrDegenerate):
		default:
			return Summary{}, fmt.Errorf("summarize: %s: %w", methods[j], err)
		}
		w, err := WilcoxonSignedRank(refCol, col, TwoSided)
		switch {
		case err == nil:
			s.WilcoxonP[j] = w.PValue
		case errors.Is(err, ErrDegenerate):
		default:
			return Summary{}, fmt.Errorf("summarize: %s: %w", methods[j], err)
		}
	}
	return s, nil
}
