package stats

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mathext"
)

// Alternative is the alternative hypothesis of a paired test about the
// differences d = x - y.
type Alternative int

const (
	// TwoSided: the differences are not centred on zero.
	TwoSided Alternative = iota
	// Greater: x tends to be greater than y (d centred above zero).
	Greater
	// Less: x tends to be less than y (d centred below zero).
	Less
)

// String returns scipy's name of the alternative.
func (a Alternative) String() string {
	switch a {
	case TwoSided:
		return "two-sided"
	case Greater:
		return "greater"
	case Less:
		return "less"
	}
	return fmt.Sprintf("Alternative(%d)", int(a))
}

// Method names reported in TestResult.Method.
const (
	// MethodExact: exact null distribution of the Wilcoxon statistic.
	MethodExact = "exact"
	// MethodExactConditional: exact null distribution given tied (average)
	// ranks and dropped zeros, i.e. all 2^n sign flips enumerated.
	MethodExactConditional = "exact (conditional on tied ranks and zeros)"
	// MethodNormal: normal approximation with tie-corrected variance.
	MethodNormal = "normal approximation"
	// MethodNormalCorrected: MethodNormal with continuity correction.
	MethodNormalCorrected = "normal approximation with continuity correction"
	// MethodStudentT: Student t distribution (paired t-test).
	MethodStudentT = "Student t"
	// MethodChiSquare: chi-square distribution (Friedman test).
	MethodChiSquare = "chi-square"
	// MethodF: F distribution (Iman-Davenport test).
	MethodF = "F"
)

// TestResult is the outcome of a hypothesis test.
type TestResult struct {
	// Statistic is the test statistic (see each test for which one).
	Statistic float64
	// PValue is the p-value for the requested alternative.
	PValue float64
	// N is the sample size the test used (for the Wilcoxon test, the number
	// of non-zero differences; for the Friedman test, the number of
	// datasets).
	N int
	// Method says how the p-value was obtained (one of the Method* names).
	Method string
	// DF holds the degrees of freedom of the reference distribution (one for
	// t and chi-square, two for F); nil for the Wilcoxon test.
	DF []float64
}

// WilcoxonMethod selects how WilcoxonSignedRankOpts computes its p-value.
type WilcoxonMethod int

const (
	// WilcoxonAuto follows scipy.stats.wilcoxon(method="auto"): with n the
	// number of pairs (zeros included), n > 50 uses the normal approximation;
	// otherwise no ties and no zeros uses the exact distribution; otherwise
	// n <= 13 uses the exact distribution conditional on the observed ranks
	// (what scipy's deterministic permutation test computes); otherwise the
	// normal approximation.
	WilcoxonAuto WilcoxonMethod = iota
	// WilcoxonExact always enumerates the null distribution of the statistic
	// given the observed (average) ranks of the non-zero differences: the
	// classical exact distribution without ties, the exact conditional one
	// with ties. It accepts at most 1000 non-zero differences.
	WilcoxonExact
	// WilcoxonNormal always uses the normal approximation with the
	// tie-corrected variance.
	WilcoxonNormal
)

// maxExactN bounds the sample size of the exact Wilcoxon distribution, whose
// cost grows as n^3 and whose probabilities (2^-n) underflow beyond ~1000.
const maxExactN = 1000

// WilcoxonOptions are the less common settings of WilcoxonSignedRankOpts.
// The zero value is scipy.stats.wilcoxon's default.
type WilcoxonOptions struct {
	// Method selects exact or normal-approximation p-values.
	Method WilcoxonMethod
	// Correction applies a continuity correction of 0.5 towards the mean to
	// the normal approximation (scipy's correction=True). Default false, as
	// in scipy.
	Correction bool
}

// WilcoxonSignedRank is the Wilcoxon signed-rank test of the paired samples
// x and y with scipy.stats.wilcoxon's defaults (zero_method="wilcox",
// correction=False, method="auto"; see WilcoxonAuto). The differences
// d = x - y are computed in float64; zero differences are dropped and tied
// |d| get average ranks.
//
// The statistic is scipy's: R+ (the sum of the ranks of the positive
// differences) for Greater and Less, min(R+, R-) for TwoSided.
func WilcoxonSignedRank(x, y []float64, alt Alternative) (TestResult, error) {
	return WilcoxonSignedRankOpts(x, y, alt, WilcoxonOptions{})
}

// WilcoxonSignedRankOpts is WilcoxonSignedRank with explicit options.
func WilcoxonSignedRankOpts(x, y []float64, alt Alternative, opts WilcoxonOptions) (TestResult, error) {
	d, err := differences(x, y)
	if err != nil {
		return TestResult{}, fmt.Errorf("wilcoxon: %w", err)
	}
	res, err := WilcoxonDiffs(d, alt, opts)
	if err != nil {
		return TestResult{}, err
	}
	return res, nil
}

// differences returns x - y after checking lengths and NaNs.
func differences(x, y []float64) ([]float64, error) {
	if len(x) != len(y) {
		return nil, fmt.Errorf("%w: len(x) = %d, len(y) = %d", ErrShape, len(x), len(y))
	}
	d := make([]float64, len(x))
	for i := range x {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) {
			return nil, fmt.Errorf("%w: pair (dataset row) %d", ErrNaN, i)
		}
		d[i] = x[i] - y[i]
	}
	return d, nil
}

// WilcoxonDiffs is the Wilcoxon signed-rank test on the paired differences d
// (like scipy.stats.wilcoxon(d)). Round d first if values that are equal in
// exact arithmetic may differ by floating-point error.
func WilcoxonDiffs(d []float64, alt Alternative, opts WilcoxonOptions) (TestResult, error) {
	if alt != TwoSided && alt != Greater && alt != Less {
		return TestResult{}, fmt.Errorf("wilcoxon: %w: alternative %d", ErrBadArgument, int(alt))
	}
	if len(d) == 0 {
		return TestResult{}, fmt.Errorf("wilcoxon: %w: no pairs", ErrTooFewSamples)
	}
	// Non-zero differences, ranked by absolute value (average ranks).
	var nz []float64
	for i, v := range d {
		if math.IsNaN(v) {
			return TestResult{}, fmt.Errorf("wilcoxon: %w: difference (dataset row) %d", ErrNaN, i)
		}
		if v != 0 {
			nz = append(nz, v)
		}
	}
	m := len(nz)
	if m == 0 {
		return TestResult{}, fmt.Errorf("wilcoxon: %w: all %d differences are zero", ErrDegenerate, len(d))
	}
	abs := make([]float64, m)
	for i, v := range nz {
		abs[i] = math.Abs(v)
	}
	// rank2[i] is twice the average rank of |nz[i]| (an integer).
	rank2 := make([]int, m)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return abs[idx[a]] < abs[idx[b]] })
	ties := false
	tieTerm := 0.0 // sum over tie groups of t^3 - t
	for start := 0; start < m; {
		end := start + 1
		for end < m && abs[idx[end]] == abs[idx[start]] {
			end++
		}
		t := end - start
		if t > 1 {
			ties = true
			tieTerm += float64(t*t*t - t)
		}
		for p := start; p < end; p++ {
			rank2[idx[p]] = start + 1 + end // 2 * (start+1+end)/2
		}
		start = end
	}
	rPlus2, total2 := 0, 0
	for i, v := range nz {
		total2 += rank2[i]
		if v > 0 {
			rPlus2 += rank2[i]
		}
	}
	rPlus := float64(rPlus2) / 2
	rMinus := float64(total2-rPlus2) / 2
	stat := rPlus
	if alt == TwoSided {
		stat = math.Min(rPlus, rMinus)
	}

	method := opts.Method
	if method == WilcoxonAuto {
		switch {
		case len(d) > 50:
			method = WilcoxonNormal
		case !ties && m == len(d):
			method = WilcoxonExact
		case len(d) <= 13:
			method = WilcoxonExact
		default:
			method = WilcoxonNormal
		}
	}
	res := TestResult{Statistic: stat, N: m}
	switch method {
	case WilcoxonExact:
		if m > maxExactN {
			return TestResult{}, fmt.Errorf("wilcoxon: %w: exact method with %d non-zero differences (at most %d)", ErrBadArgument, m, maxExactN)
		}
		res.PValue = exactSignedRankP(rank2, rPlus2, alt)
		res.Method = MethodExact
		if ties || m < len(d) {
			res.Method = MethodExactConditional
		}
	case WilcoxonNormal:
		fm := float64(m)
		mean := fm * (fm + 1) / 4
		se := math.Sqrt((fm*(fm+1)*(2*fm+1) - tieTerm/2) / 24)
		z := (rPlus - mean) / se
		res.Method = MethodNormal
		if opts.Correction {
			sign := 1.0
			switch {
			case alt == Less:
				sign = -1
			case alt == TwoSided && z < 0:
				sign = -1
			case alt == TwoSided && z == 0:
				sign = 0
			}
			z -= sign * 0.5 / se
			res.Method = MethodNormalCorrected
		}
		res.PValue = normalP(z, alt)
	default:
		return TestResult{}, fmt.Errorf("wilcoxon: %w: method %d", ErrBadArgument, int(method))
	}
	return res, nil
}

// exactSignedRankP returns the p-value of the observed doubled statistic
// obs2 = 2 R+ under the null distribution in which every doubled rank in
// rank2 enters R+ with probability 1/2 independently.
func exactSignedRankP(rank2 []int, obs2 int, alt Alternative) float64 {
	total := 0
	for _, r := range rank2 {
		total += r
	}
	// pmf[s] = P(2 R+ = s), built one rank at a time.
	pmf := make([]float64, total+1)
	pmf[0] = 1
	hi := 0
	for _, r := range rank2 {
		for s := hi + r; s >= 0; s-- {
			v := pmf[s]
			if s >= r {
				v += pmf[s-r]
			}
			pmf[s] = v / 2
		}
		hi += r
	}
	sf := 0.0 // P(2R+ >= obs2), summed from the far tail for accuracy
	for s := total; s >= obs2; s-- {
		sf += pmf[s]
	}
	cdf := 0.0 // P(2R+ <= obs2)
	for s := 0; s <= obs2; s++ {
		cdf += pmf[s]
	}
	switch alt {
	case Greater:
		return math.Min(sf, 1)
	case Less:
		return math.Min(cdf, 1)
	}
	return math.Min(1, 2*math.Min(sf, cdf))
}

// normalSF is P(Z > z) for a standard normal Z, accurate in the far tail.
func normalSF(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// normalP returns the p-value of a standard normal statistic z.
func normalP(z float64, alt Alternative) float64 {
	switch alt {
	case Greater:
		return normalSF(z)
	case Less:
		return normalSF(-z)
	}
	return math.Min(1, 2*normalSF(math.Abs(z)))
}

// studentTSF is P(T > t) for Student's t with df degrees of freedom,
// computed from the regularized incomplete beta function so that tiny tail
// probabilities keep their relative accuracy.
func studentTSF(t, df float64) float64 {
	if math.IsNaN(t) {
		return math.NaN()
	}
	tail := 0.5 * mathext.RegIncBeta(df/2, 0.5, df/(df+t*t))
	if math.IsInf(t, 0) {
		tail = 0
	}
	if t > 0 {
		return tail
	}
	return 1 - tail
}

// PairedTTest is the paired Student t-test of x and y (like
// scipy.stats.ttest_rel): t = mean(d) / (sd(d) / sqrt(n)) with d = x - y,
// sd the sample standard deviation and n-1 degrees of freedom. It needs at
// least two pairs. Constant non-zero differences give t = ±Inf; all-zero
// differences are an error (ErrDegenerate).
func PairedTTest(x, y []float64, alt Alternative) (TestResult, error) {
	if alt != TwoSided && alt != Greater && alt != Less {
		return TestResult{}, fmt.Errorf("paired t-test: %w: alternative %d", ErrBadArgument, int(alt))
	}
	d, err := differences(x, y)
	if err != nil {
		return TestResult{}, fmt.Errorf("paired t-test: %w", err)
	}
	n := len(d)
	if n < 2 {
		return TestResult{}, fmt.Errorf("paired t-test: %w: %d pairs, need at least 2", ErrTooFewSamples, n)
	}
	mean := 0.0
	for _, v := range d {
		mean += v
	}
	mean /= float64(n)
	ss := 0.0
	for _, v := range d {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	var t float64
	switch {
	case sd > 0:
		t = mean / (sd / math.Sqrt(float64(n)))
	case mean > 0:
		t = math.Inf(1)
	case mean < 0:
		t = math.Inf(-1)
	default:
		return TestResult{}, fmt.Errorf("paired t-test: %w: all %d differences are zero", ErrDegenerate, n)
	}
	df := float64(n - 1)
	var p float64
	switch alt {
	case Greater:
		p = studentTSF(t, df)
	case Less:
		p = studentTSF(-t, df)
	default:
		p = math.Min(1, 2*studentTSF(math.Abs(t), df))
	}
	return TestResult{Statistic: t, PValue: p, N: n, Method: MethodStudentT, DF: []float64{df}}, nil
}

// PaperPValue returns what the SoftShape paper prints in its column
// "Wilcoxon signed-rank P-value": HALF THE TWO-SIDED PAIRED T-TEST P-VALUE
// between the reference column and the method, i.e. a one-sided paired
// t-test in the direction of the observed mean difference. It is not a
// Wilcoxon test; use WilcoxonSignedRank for that. The value is the same
// whichever argument comes first.
func PaperPValue(ref, method []float64) (float64, error) {
	res, err := PairedTTest(ref, method, TwoSided)
	if err != nil {
		return math.NaN(), fmt.Errorf("paper p-value: %w", err)
	}
	return res.PValue / 2, nil
}
