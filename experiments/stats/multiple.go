package stats

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mathext"
)

// friedmanChi2 returns the tie-corrected Friedman chi-square statistic of
// acc (n datasets x k methods, already validated).
func friedmanChi2(acc [][]float64) (float64, error) {
	n, k := float64(len(acc)), float64(len(acc[0]))
	ranks := make([]float64, len(acc[0]))
	sums := make([]float64, len(acc[0]))
	tieTerm := 0.0
	for _, row := range acc {
		rankDescending(row, TiesAverage, ranks)
		for j, r := range ranks {
			sums[j] += r
		}
		tieTerm += rowTieTerm(row)
	}
	ssum := 0.0
	for _, s := range sums {
		ssum += s * s
	}
	chi2 := 12/(n*k*(k+1))*ssum - 3*n*(k+1)
	c := 1 - tieTerm/(n*k*(k*k-1))
	if c <= 0 {
		return math.NaN(), fmt.Errorf("%w: every dataset ties all methods", ErrDegenerate)
	}
	return chi2 / c, nil
}

// rowTieTerm returns the sum over tie groups of t^3 - t for one row.
func rowTieTerm(row []float64) float64 {
	v := append([]float64(nil), row...)
	sort.Float64s(v)
	term := 0.0
	for start := 0; start < len(v); {
		end := start + 1
		for end < len(v) && v[end] == v[start] {
			end++
		}
		t := float64(end - start)
		term += t*t*t - t
		start = end
	}
	return term
}

// Friedman is the Friedman test that all k methods perform alike over the n
// datasets, like scipy.stats.friedmanchisquare: methods are ranked within
// every dataset (average ranks for ties), the statistic is
//
//	chi2 = [12/(n k (k+1)) sum_j R_j^2 - 3 n (k+1)] / C,
//	C = 1 - sum over datasets and tie groups of (t^3 - t) / (n k (k^2 - 1)),
//
// with R_j the rank sum of method j, and the p-value is the upper tail of
// the chi-square distribution with k-1 degrees of freedom. It needs at least
// 3 methods and 2 datasets.
func Friedman(acc [][]float64) (TestResult, error) {
	n, k, err := checkMatrix(acc, 3)
	if err != nil {
		return TestResult{}, fmt.Errorf("friedman: %w", err)
	}
	if n < 2 {
		return TestResult{}, fmt.Errorf("friedman: %w: %d datasets, need at least 2", ErrTooFewSamples, n)
	}
	chi2, err := friedmanChi2(acc)
	if err != nil {
		return TestResult{}, fmt.Errorf("friedman: %w", err)
	}
	df := float64(k - 1)
	p := mathext.GammaIncRegComp(df/2, math.Max(chi2, 0)/2)
	return TestResult{Statistic: chi2, PValue: p, N: n, Method: MethodChiSquare, DF: []float64{df}}, nil
}

// ImanDavenport is the Iman-Davenport correction of the Friedman test
// (Demšar 2006, eq. 2): F = (n-1) chi2 / (n (k-1) - chi2) with chi2 the
// tie-corrected Friedman statistic, referred to the F distribution with k-1
// and (k-1)(n-1) degrees of freedom. Perfect agreement of all datasets gives
// F = +Inf and p = 0.
func ImanDavenport(acc [][]float64) (TestResult, error) {
	fr, err := Friedman(acc)
	if err != nil {
		return TestResult{}, fmt.Errorf("iman-davenport: %w", err)
	}
	n, k := float64(len(acc)), float64(len(acc[0]))
	df1, df2 := k-1, (k-1)*(n-1)
	den := n*(k-1) - fr.Statistic
	res := TestResult{N: fr.N, Method: MethodF, DF: []float64{df1, df2}}
	if den <= 0 {
		res.Statistic, res.PValue = math.Inf(1), 0
		return res, nil
	}
	f := (n - 1) * fr.Statistic / den
	res.Statistic = f
	// P(F > f) = I_{df2/(df2 + df1 f)}(df2/2, df1/2).
	res.PValue = mathext.RegIncBeta(df2/2, df1/2, df2/(df2+df1*f))
	return res, nil
}

// Holm returns Holm's (1979) step-down adjusted p-values, in the order of p:
// with p sorted ascending, adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)),
// m the number of non-NaN p-values. A hypothesis is rejected at level alpha
// when its adjusted p-value is <= alpha. NaN entries stay NaN and are not
// counted in m.
func Holm(p []float64) []float64 {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	m := len(idx)
	running := 0.0
	for r, i := range idx {
		adj := math.Min(1, float64(m-r)*p[i])
		running = math.Max(running, adj)
		out[i] = running
	}
	return out
}

// CDResult holds what a critical-difference diagram shows. Methods are
// listed in order of increasing average rank (best first); every index in
// this result refers to that order.
type CDResult struct {
	// Methods are the method names, best average rank first.
	Methods []string
	// Order[i] is the column of Methods[i] in the input matrix.
	Order []int
	// AvgRanks are the average ranks (CDAverageRanks: ties averaged) of
	// Methods.
	AvgRanks []float64
	// RawPValues[i][j] is the two-sided Wilcoxon signed-rank p-value of
	// Methods[i] against Methods[j] (NaN on the diagonal).
	RawPValues [][]float64
	// PValues are RawPValues Holm-adjusted over all k(k-1)/2 pairs.
	PValues [][]float64
	// Cliques are the maximal runs of at least two methods, contiguous in
	// rank order, with no significant pair (every Holm-adjusted p > Alpha);
	// each lists indices into Methods in increasing order.
	Cliques [][]int
	// Alpha is the family-wise significance level.
	Alpha float64
	// FriedmanP is the p-value of the Friedman test over all methods
	// (reported, not used as a gate; NaN when it cannot be computed, e.g.
	// for two methods).
	FriedmanP float64
}

// CriticalDifference computes the content of a critical-difference diagram
// in the manner of aeon's plot_critical_difference with test="wilcoxon" and
// Holm correction: average ranks with ties averaged, two-sided Wilcoxon
// signed-rank tests (WilcoxonSignedRank defaults) for every pair of methods,
// Holm adjustment over all pairs at level alpha, and cliques drawn as the
// maximal sets of methods, contiguous in average-rank order, in which no
// pair differs significantly. Pairs whose columns are identical get p = 1.
//
// Differences from aeon (by design): aeon first gates on a Friedman test
// (here FriedmanP is only reported), its "holm" option compares raw
// p-values with alpha/(k-1), and it forms each clique from one control
// method against the following ones without testing the other pairs.
func CriticalDifference(methods []string, acc [][]float64, alpha float64) (CDResult, error) {
	n, k, err := checkNamedMatrix(methods, acc, 2)
	if err != nil {
		return CDResult{}, fmt.Errorf("critical difference: %w", err)
	}
	if !(alpha > 0 && alpha < 1) {
		return CDResult{}, fmt.Errorf("critical difference: %w: alpha = %v, want 0 < alpha < 1", ErrBadArgument, alpha)
	}
	avg, err := CDAverageRanks(acc)
	if err != nil {
		return CDResult{}, fmt.Errorf("critical difference: %w", err)
	}
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return avg[order[a]] < avg[order[b]] })

	res := CDResult{Alpha: alpha, Order: order, FriedmanP: math.NaN()}
	cols := make([][]float64, k)
	for i, c := range order {
		res.Methods = append(res.Methods, methods[c])
		res.AvgRanks = append(res.AvgRanks, avg[c])
		cols[i] = make([]float64, n)
		for r := range acc {
			cols[i][r] = acc[r][c]
		}
	}
	if k >= 3 && n >= 2 {
		if fr, err := Friedman(acc); err == nil {
			res.FriedmanP = fr.PValue
		}
	}

	res.RawPValues = nanMatrix(k)
	res.PValues = nanMatrix(k)
	var flat []float64
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			p := 1.0
			w, err := WilcoxonSignedRank(cols[i], cols[j], TwoSided)
			switch {
			case err == nil:
				p = w.PValue
			case errors.Is(err, ErrDegenerate):
				// identical columns: no evidence of a difference.
			default:
				return CDResult{}, fmt.Errorf("critical difference: %s vs %s: %w", res.Methods[i], res.Methods[j], err)
			}
			res.RawPValues[i][j], res.RawPValues[j][i] = p, p
			flat = append(flat, p)
		}
	}
	adj := Holm(flat)
	pos := 0
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			res.PValues[i][j], res.PValues[j][i] = adj[pos], adj[pos]
			pos++
		}
	}
	res.Cliques = cliques(res.PValues, alpha)
	return res, nil
}

// nanMatrix returns a k x k matrix of NaN.
func nanMatrix(k int) [][]float64 {
	m := make([][]float64, k)
	for i := range m {
		m[i] = make([]float64, k)
		for j := range m[i] {
			m[i][j] = math.NaN()
		}
	}
	return m
}

// cliques returns the maximal contiguous runs (of length >= 2) of methods in
// rank order in which every pair has adjusted p > alpha.
func cliques(p [][]float64, alpha float64) [][]int {
	k := len(p)
	// end[a] is the last index b such that a..b has no significant pair.
	end := make([]int, k)
	for a := 0; a < k; a++ {
		b := a
		for b+1 < k {
			ok := true
			for i := a; i <= b; i++ {
				if p[i][b+1] <= alpha {
					ok = false
					break
				}
			}
			if !ok {
				break
			}
			b++
		}
		end[a] = b
	}
	var out [][]int
	for a := 0; a < k; a++ {
		if end[a] == a {
			continue
		}
		// a..end[a] is contained in the previous run unless it ends later
		// (end is non-decreasing because sub-runs of a valid run are valid).
		if a > 0 && end[a-1] >= end[a] {
			continue
		}
		c := make([]int, 0, end[a]-a+1)
		for i := a; i <= end[a]; i++ {
			c = append(c, i)
		}
		out = append(out, c)
	}
	return out
}
