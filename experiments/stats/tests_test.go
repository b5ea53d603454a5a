package stats_test

import (
	"errors"
	"math"
	"testing"

	"github.com/softshape-go/softshape/experiments/stats"
)

// closeRel reports whether got agrees with want to a relative tolerance.
func closeRel(got, want, rel float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// scipyDocsD is the example of the scipy.stats.wilcoxon documentation
// (differences in height of cross- and self-fertilized corn, Fisher 1935).
var scipyDocsD = []float64{6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75}

// bruteForceLE counts the subsets of {1..n} whose sum is <= s: the number of
// sign patterns with R+ <= s under the null hypothesis.
func bruteForceLE(n, s int) int {
	count := 0
	for mask := 0; mask < 1<<n; mask++ {
		sum := 0
		for i := 0; i < n; i++ {
			if mask>>i&1 == 1 {
				sum += i + 1
			}
		}
		if sum <= s {
			count++
		}
	}
	return count
}

func TestWilcoxonSignedRank(t *testing.T) {
	// scipy docs example: |d| has no ties; the negative differences -48 and
	// -67 have ranks 10 and 14, so R- = 24 and R+ = 120 - 24 = 96. Under the
	// null R- is distributed like R+, and brute force over the 2^15 sign
	// patterns gives P(R+ <= 24) = 676/32768 = 0.0206298828125. scipy prints
	// 0.04125976562499999 (two-sided) and 0.020629882812499997 (greater).
	if c := bruteForceLE(15, 24); c != 676 {
		t.Fatalf("brute force count %d, want 676", c)
	}
	// n = 10, R+ = 8 (positive ranks 1 and 7): the subsets of {1..10} with sum
	// <= 8 number 1+1+1+2+2+3+4+5+6 = 25 (sums 0..8), so P(R+ <= 8) = 25/1024,
	// the classical table value for the two-sided 5% critical value T = 8.
	if c := bruteForceLE(10, 8); c != 25 {
		t.Fatalf("brute force count %d, want 25", c)
	}
	tenD := []float64{1, -2, -3, -4, -5, -6, 7, -8, -9, -10}
	// The "less" p-value of the docs example is P(R+ <= 96) = 1 - P(R+ >= 97)
	// = 1 - P(R+ <= 120 - 97 = 23) by the symmetry of the null distribution.
	lessP := 1 - float64(bruteForceLE(15, 23))/32768

	// Normal approximation with zeros and ties (15 pairs > 13, so scipy's
	// "auto" uses the normal approximation):
	//   d = 0 0 1 1 -1 2 3 3 4 5 6 -7 8 9 10
	// The two zeros are dropped, m = 13. Ranks of |d|: the three 1s share
	// ranks 1..3 (average 2), 2 -> 4, the two 3s share 5..6 (5.5), then
	// 4..10 -> 7..13. R- = 2 (for -1) + 10 (for -7) = 12, R+ = 91 - 12 = 79.
	// Mean m(m+1)/4 = 45.5. Tie term sum(t^3 - t) = (27-3) + (8-2) = 30, so
	// Var = (13*14*27 - 30/2)/24 = 4899/24 = 204.125 and
	// z = (79 - 45.5)/sqrt(204.125) = 2.344750883452247; two-sided
	// p = erfc(z/sqrt 2) = 0.019039796210081266. With continuity correction
	// z = 33/sqrt(204.125) = 2.3097546016096757, p = 0.02090174399928984.
	normalD := []float64{0, 0, 1, 1, -1, 2, 3, 3, 4, 5, 6, -7, 8, 9, 10}

	// Small sample with a tie: d = 1 -1 2 3 has ranks 1.5 1.5 3 4, R+ = 8.5,
	// R- = 1.5. Enumerating the 16 sign patterns of {1.5, 1.5, 3, 4} (total
	// 10): R+ >= 8.5 for {1.5,3,4} (twice) and {1.5,1.5,3,4}, so
	// P(R+ >= 8.5) = 3/16; P(R+ <= 8.5) = 1 - 1/16 = 15/16; two-sided
	// 2*min = 6/16. A zero difference changes nothing (it is dropped).
	tieD := []float64{1, -1, 2, 3}
	tieZeroD := []float64{0, 1, -1, 2, 3}

	cases := []struct {
		name   string
		d      []float64
		alt    stats.Alternative
		opts   stats.WilcoxonOptions
		stat   float64
		p      float64
		n      int
		method string
	}{
		{"scipy docs two-sided", scipyDocsD, stats.TwoSided, stats.WilcoxonOptions{}, 24, 0.04125976562499999, 15, stats.MethodExact},
		{"scipy docs greater", scipyDocsD, stats.Greater, stats.WilcoxonOptions{}, 96, 0.020629882812499997, 15, stats.MethodExact},
		{"scipy docs less", scipyDocsD, stats.Less, stats.WilcoxonOptions{}, 96, lessP, 15, stats.MethodExact},
		{"n=5 all positive greater", []float64{1, 2, 3, 4, 5}, stats.Greater, stats.WilcoxonOptions{}, 15, 1.0 / 32, 5, stats.MethodExact},
		{"n=5 all positive two-sided", []float64{1, 2, 3, 4, 5}, stats.TwoSided, stats.WilcoxonOptions{}, 0, 2.0 / 32, 5, stats.MethodExact},
		{"n=5 all positive less", []float64{1, 2, 3, 4, 5}, stats.Less, stats.WilcoxonOptions{}, 15, 1, 5, stats.MethodExact},
		{"n=10 table less", tenD, stats.Less, stats.WilcoxonOptions{}, 8, 25.0 / 1024, 10, stats.MethodExact},
		{"n=10 table two-sided", tenD, stats.TwoSided, stats.WilcoxonOptions{}, 8, 50.0 / 1024, 10, stats.MethodExact},
		{"normal ties zeros", normalD, stats.TwoSided, stats.WilcoxonOptions{}, 12, 0.019039796210081266, 13, stats.MethodNormal},
		{"normal ties zeros greater", normalD, stats.Greater, stats.WilcoxonOptions{}, 79, 0.019039796210081266 / 2, 13, stats.MethodNormal},
		{"normal corrected", normalD, stats.TwoSided, stats.WilcoxonOptions{Correction: true}, 12, 0.02090174399928984, 13, stats.MethodNormalCorrected},
		{"tie exact conditional", tieD, stats.Greater, stats.WilcoxonOptions{}, 8.5, 3.0 / 16, 4, stats.MethodExactConditional},
		{"tie exact conditional less", tieD, stats.Less, stats.WilcoxonOptions{}, 8.5, 15.0 / 16, 4, stats.MethodExactConditional},
		{"tie exact conditional two-sided", tieD, stats.TwoSided, stats.WilcoxonOptions{}, 1.5, 6.0 / 16, 4, stats.MethodExactConditional},
		{"tie and zero", tieZeroD, stats.TwoSided, stats.WilcoxonOptions{}, 1.5, 6.0 / 16, 4, stats.MethodExactConditional},
		{"forced normal, no ties", []float64{1, 2, 3, 4, 5}, stats.Greater, stats.WilcoxonOptions{Method: stats.WilcoxonNormal},
			// z = (15 - 7.5)/sqrt(5*6*11/24) = 7.5/sqrt(13.75)
			15, 0.5 * math.Erfc(7.5/math.Sqrt(13.75)/math.Sqrt2), 5, stats.MethodNormal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			zeros := make([]float64, len(c.d))
			got, err := stats.WilcoxonSignedRankOpts(c.d, zeros, c.alt, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got.Statistic != c.stat || got.N != c.n || got.Method != c.method {
				t.Errorf("got statistic %v n %d method %q, want %v %d %q", got.Statistic, got.N, got.Method, c.stat, c.n, c.method)
			}
			if !closeRel(got.PValue, c.p, 1e-12) {
				t.Errorf("p = %.17g, want %.17g", got.PValue, c.p)
			}
		})
	}
}

func TestWilcoxonSymmetry(t *testing.T) {
	// Swapping x and y mirrors the one-sided alternatives.
	x := []float64{0.91, 0.87, 0.93, 0.80, 0.88, 0.99, 0.75, 0.66}
	y := []float64{0.90, 0.85, 0.94, 0.70, 0.80, 0.97, 0.76, 0.60}
	g, err := stats.WilcoxonSignedRank(x, y, stats.Greater)
	if err != nil {
		t.Fatal(err)
	}
	l, err := stats.WilcoxonSignedRank(y, x, stats.Less)
	if err != nil {
		t.Fatal(err)
	}
	if !closeRel(g.PValue, l.PValue, 1e-12) {
		t.Errorf("greater %v != mirrored less %v", g.PValue, l.PValue)
	}
}

func TestWilcoxonErrors(t *testing.T) {
	cases := []struct {
		name string
		x, y []float64
		alt  stats.Alternative
		want error
	}{
		{"length", []float64{1, 2}, []float64{1}, stats.TwoSided, stats.ErrShape},
		{"empty", nil, nil, stats.TwoSided, stats.ErrTooFewSamples},
		{"NaN", []float64{1, math.NaN()}, []float64{0, 0}, stats.TwoSided, stats.ErrNaN},
		{"all zero", []float64{1, 2}, []float64{1, 2}, stats.TwoSided, stats.ErrDegenerate},
		{"alternative", []float64{1, 2}, []float64{0, 0}, stats.Alternative(9), stats.ErrBadArgument},
	}
	big := make([]float64, 1001)
	for i := range big {
		big[i] = float64(i + 1)
	}
	if _, err := stats.WilcoxonSignedRankOpts(big, make([]float64, len(big)), stats.TwoSided,
		stats.WilcoxonOptions{Method: stats.WilcoxonExact}); !errors.Is(err, stats.ErrBadArgument) {
		t.Errorf("exact with n = 1001: error %v, want %v", err, stats.ErrBadArgument)
	}
	if _, err := stats.WilcoxonSignedRankOpts([]float64{1}, []float64{0}, stats.TwoSided,
		stats.WilcoxonOptions{Method: stats.WilcoxonMethod(9)}); !errors.Is(err, stats.ErrBadArgument) {
		t.Errorf("bad method: error %v", err)
	}
	for _, c := range cases {
		if _, err := stats.WilcoxonSignedRank(c.x, c.y, c.alt); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
}

func TestPairedTTest(t *testing.T) {
	// d = 1 2 3 4 5: mean 3, sample variance 2.5, t = 3/sqrt(2.5/5) = 3 sqrt 2,
	// df = 4. For df = 4 the CDF is 1/2 + (3a - a^3)/4 with a = t/sqrt(4 + t^2)
	// = sqrt(18/22), so the two-sided p is 1 - (3a - a^3)/2 = 0.013235599563682587.
	a := math.Sqrt(18.0 / 22)
	p4 := 1 - (3*a-a*a*a)/2
	// d = 1 2 6: mean 3, variance (4+1+9)/2 = 7, t = 3/sqrt(7/3) = sqrt(27/7),
	// df = 2. For df = 2 the CDF is 1/2 + t/(2 sqrt(2 + t^2)), so the
	// two-sided p is 1 - t/sqrt(2 + t^2) = 1 - sqrt(27/41).
	p2 := 1 - math.Sqrt(27.0/41)
	cases := []struct {
		name string
		x, y []float64
		alt  stats.Alternative
		t, p float64
	}{
		{"df4 two-sided", []float64{1, 2, 3, 4, 5}, []float64{0, 0, 0, 0, 0}, stats.TwoSided, 3 * math.Sqrt2, p4},
		{"df4 greater", []float64{1, 2, 3, 4, 5}, []float64{0, 0, 0, 0, 0}, stats.Greater, 3 * math.Sqrt2, p4 / 2},
		{"df4 less", []float64{1, 2, 3, 4, 5}, []float64{0, 0, 0, 0, 0}, stats.Less, 3 * math.Sqrt2, 1 - p4/2},
		{"df2 two-sided", []float64{11, 12, 16}, []float64{10, 10, 10}, stats.TwoSided, math.Sqrt(27.0 / 7), p2},
		{"df2 swapped", []float64{10, 10, 10}, []float64{11, 12, 16}, stats.TwoSided, -math.Sqrt(27.0 / 7), p2},
		{"constant difference", []float64{2, 3}, []float64{1, 2}, stats.TwoSided, math.Inf(1), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := stats.PairedTTest(c.x, c.y, c.alt)
			if err != nil {
				t.Fatal(err)
			}
			if !closeRel(got.Statistic, c.t, 1e-12) || !closeRel(got.PValue, c.p, 1e-10) {
				t.Errorf("t = %.17g p = %.17g, want %.17g %.17g", got.Statistic, got.PValue, c.t, c.p)
			}
		})
	}
	// PaperPValue is half the two-sided p, whatever the argument order.
	for _, order := range [][2][]float64{
		{{1, 2, 3, 4, 5}, {0, 0, 0, 0, 0}},
		{{0, 0, 0, 0, 0}, {1, 2, 3, 4, 5}},
	} {
		got, err := stats.PaperPValue(order[0], order[1])
		if err != nil {
			t.Fatal(err)
		}
		if !closeRel(got, p4/2, 1e-10) {
			t.Errorf("paper p-value %v, want %v", got, p4/2)
		}
	}
	for _, c := range []struct {
		name string
		x, y []float64
		want error
	}{
		{"one pair", []float64{1}, []float64{0}, stats.ErrTooFewSamples},
		{"length", []float64{1, 2}, []float64{0}, stats.ErrShape},
		{"NaN", []float64{1, math.NaN()}, []float64{0, 0}, stats.ErrNaN},
		{"all zero", []float64{1, 2}, []float64{1, 2}, stats.ErrDegenerate},
	} {
		if _, err := stats.PairedTTest(c.x, c.y, stats.TwoSided); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
		if _, err := stats.PaperPValue(c.x, c.y); !errors.Is(err, c.want) {
			t.Errorf("paper %s: error %v, want %v", c.name, err, c.want)
		}
	}
}
