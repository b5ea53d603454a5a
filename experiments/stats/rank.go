package stats

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Errors wrapped by the functions of this package.
var (
	// ErrShape reports mismatched lengths or ragged or empty matrices.
	ErrShape = errors.New("stats: mismatched or empty input")
	// ErrTooFewMethods reports fewer methods (columns) than a function needs.
	ErrTooFewMethods = errors.New("stats: too few methods")
	// ErrNaN reports a NaN value in the input.
	ErrNaN = errors.New("stats: NaN in input")
	// ErrTooFewSamples reports too few datasets (or non-zero differences)
	// for a test.
	ErrTooFewSamples = errors.New("stats: too few samples")
	// ErrDegenerate reports input for which a statistic is undefined, e.g.
	// all paired differences zero.
	ErrDegenerate = errors.New("stats: degenerate input")
	// ErrUnknownMethod reports a method name that is not among the columns.
	ErrUnknownMethod = errors.New("stats: unknown method")
	// ErrBadArgument reports an argument outside its allowed range.
	ErrBadArgument = errors.New("stats: bad argument")
)

// TieRule selects how tied accuracies are ranked.
type TieRule int

const (
	// TiesMin gives every tied method the minimum (best) rank of its tie
	// group, like scipy.stats.rankdata(-acc, method="min"). This is the SoftShape
	// paper's convention.
	TiesMin TieRule = iota
	// TiesAverage gives tied methods the mean of the ranks they span, like
	// scipy.stats.rankdata(-acc) (the usual convention, e.g. Demšar 2006).
	TiesAverage
)

// String returns the name of the rule.
func (r TieRule) String() string {
	switch r {
	case TiesMin:
		return "min"
	case TiesAverage:
		return "average"
	}
	return fmt.Sprintf("TieRule(%d)", int(r))
}

// checkMatrix validates an accuracy matrix acc[dataset][method] with at least
// minMethods columns and no NaN.
func checkMatrix(acc [][]float64, minMethods int) (nData, nMethods int, err error) {
	if len(acc) == 0 {
		return 0, 0, fmt.Errorf("%w: no datasets (rows)", ErrShape)
	}
	k := len(acc[0])
	for i, row := range acc {
		if len(row) != k {
			return 0, 0, fmt.Errorf("%w: row %d has %d methods, row 0 has %d", ErrShape, i, len(row), k)
		}
		for j, v := range row {
			if math.IsNaN(v) {
				return 0, 0, fmt.Errorf("%w: dataset row %d, method column %d", ErrNaN, i, j)
			}
		}
	}
	if k < minMethods {
		return 0, 0, fmt.Errorf("%w: have %d, need at least %d", ErrTooFewMethods, k, minMethods)
	}
	return len(acc), k, nil
}

// checkNamedMatrix is checkMatrix for a matrix whose columns methods names,
// one name a column.
func checkNamedMatrix(methods []string, acc [][]float64, minMethods int) (nData, nMethods int, err error) {
	n, k, err := checkMatrix(acc, minMethods)
	if err != nil {
		return 0, 0, err
	}
	if len(methods) != k {
		return 0, 0, fmt.Errorf("%w: %d method names for %d columns", ErrShape, len(methods), k)
	}
	return n, k, nil
}

// rankDescending ranks v so that the largest value gets rank 1; ties are
// resolved by rule. It writes into out (len(out) == len(v)).
func rankDescending(v []float64, rule TieRule, out []float64) {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] > v[idx[b]] })
	for start := 0; start < len(idx); {
		end := start + 1
		for end < len(idx) && v[idx[end]] == v[idx[start]] {
			end++
		}
		// positions start..end-1 hold ranks start+1..end.
		r := float64(start + 1)
		if rule == TiesAverage {
			r = float64(start+1+end) / 2
		}
		for p := start; p < end; p++ {
			out[idx[p]] = r
		}
		start = end
	}
}

// Ranks ranks the methods on every dataset: out[i][j] is the rank of method j
// on dataset i, rank 1 = highest accuracy, ties resolved by ties. It needs at
// least two methods and no NaN.
func Ranks(acc [][]float64, ties TieRule) ([][]float64, error) {
	if ties != TiesMin && ties != TiesAverage {
		return nil, fmt.Errorf("%w: tie rule %d", ErrBadArgument, int(ties))
	}
	n, k, err := checkMatrix(acc, 2)
	if err != nil {
		return nil, fmt.Errorf("ranks: %w", err)
	}
	out := make([][]float64, n)
	for i, row := range acc {
		out[i] = make([]float64, k)
		rankDescending(row, ties, out[i])
	}
	return out, nil
}

// AverageRanks returns the mean rank of every method over the datasets
// (Ranks averaged over rows). With TiesMin it reproduces the paper's
// "Avg. Rank".
func AverageRanks(acc [][]float64, ties TieRule) ([]float64, error) {
	r, err := Ranks(acc, ties)
	if err != nil {
		return nil, fmt.Errorf("average ranks: %w", err)
	}
	return columnMeans(r), nil
}

// CDAverageRanks returns the average ranks a critical-difference diagram
// shows: AverageRanks with TiesAverage, the ranks that the Friedman test and
// the Wilcoxon–Holm procedure of the diagram are defined on (Demšar 2006).
// CriticalDifference and Summarize (AvgRankTiesAveraged) both take their
// ranks from it, so a diagram and a table's row of these ranks are one
// computation.
func CDAverageRanks(acc [][]float64) ([]float64, error) {
	return AverageRanks(acc, TiesAverage)
}

// columnMeans averages a non-empty rectangular matrix over its rows.
func columnMeans(m [][]float64) []float64 {
	out := make([]float64, len(m[0]))
	for _, row := range m {
		for j, v := range row {
			out[j] += v
		}
	}
	for j := range out {
		out[j] /= float64(len(m))
	}
	return out
}

// Wins counts, for every method, the datasets on which its accuracy equals
// the row maximum; tied best methods all count a win (the paper's "Win").
func Wins(acc [][]float64) ([]int, error) {
	_, k, err := checkMatrix(acc, 2)
	if err != nil {
		return nil, fmt.Errorf("wins: %w", err)
	}
	out := make([]int, k)
	for _, row := range acc {
		best := math.Inf(-1)
		for _, v := range row {
			best = math.Max(best, v)
		}
		for j, v := range row {
			if v == best {
				out[j]++
			}
		}
	}
	return out, nil
}

// MeanAccuracy returns the plain mean accuracy of every method over the
// datasets (the paper's "Avg. Acc").
func MeanAccuracy(acc [][]float64) ([]float64, error) {
	if _, _, err := checkMatrix(acc, 1); err != nil {
		return nil, fmt.Errorf("mean accuracy: %w", err)
	}
	return columnMeans(acc), nil
}
