package stats_test

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/softshape-go/softshape/experiments/stats"
)

func TestHolm(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		p    []float64
		want []float64
	}{
		// Sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04
		// raised to the running maximum 0.06.
		{"step-down", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		// 0.3*3 = 0.9, 0.4*2 = 0.8 -> 0.9, 0.5*1 -> 0.9; capping at 1: 0.6*2 = 1.2 -> 1.
		{"monotone", []float64{0.3, 0.4, 0.5}, []float64{0.9, 0.9, 0.9}},
		{"cap", []float64{0.6, 0.7}, []float64{1, 1}},
		// NaN is skipped: m = 2, so 0.01*2 = 0.02 and 0.02*1 -> 0.02.
		{"NaN", []float64{0.02, nan, 0.01}, []float64{0.02, nan, 0.02}},
		{"empty", nil, []float64{}},
	}
	for _, c := range cases {
		got := stats.Holm(c.p)
		if len(got) != len(c.want) {
			t.Fatalf("%s: got %v, want %v", c.name, got, c.want)
		}
		for i := range got {
			if math.IsNaN(c.want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(got[i]) && math.Abs(got[i]-c.want[i]) > 1e-15) {
				t.Errorf("%s: got %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

func TestFriedman(t *testing.T) {
	cases := []struct {
		name     string
		acc      [][]float64
		chi2, p  float64
		f, fp    float64
		df1, df2 float64
	}{
		{
			// Every dataset ranks the methods 1, 2, 3: rank sums 4, 8, 12,
			// chi2 = 12/(4*3*4) * (16+64+144) - 3*4*4 = 56 - 48 = 8; with
			// 2 degrees of freedom the survival function is exp(-x/2), so
			// p = exp(-4). Perfect agreement: chi2 = n(k-1), so F = +Inf.
			name: "no ties",
			acc:  [][]float64{{0.9, 0.8, 0.7}, {0.9, 0.8, 0.7}, {0.95, 0.85, 0.75}, {0.6, 0.5, 0.4}},
			chi2: 8, p: math.Exp(-4), f: math.Inf(1), fp: 0, df1: 2, df2: 6,
		},
		{
			// Last row ties the first two methods (ranks 1.5, 1.5, 3): rank
			// sums 4.5, 7.5, 12, raw chi2 = (20.25+56.25+144)/4 - 48 = 7.125;
			// tie correction C = 1 - (2^3-2)/(4*3*(9-1)) = 0.9375, so
			// chi2 = 7.6 and p = exp(-3.8). Iman-Davenport:
			// F = 3*7.6/(8-7.6) = 57 with df (2, 6); for df1 = 2 the F
			// survival function is (1 + 2F/6)^(-3) = 20^(-3) = 1/8000.
			name: "one tie",
			acc:  [][]float64{{0.9, 0.8, 0.7}, {0.9, 0.8, 0.7}, {0.9, 0.8, 0.7}, {0.8, 0.8, 0.7}},
			chi2: 7.6, p: math.Exp(-3.8), f: 57, fp: 1.0 / 8000, df1: 2, df2: 6,
		},
		{
			// Rankings (1,2,3) x3 and (2,1,3): rank sums 5, 7, 12,
			// chi2 = (25+49+144)/4 - 48 = 6.5, p = exp(-3.25);
			// F = 3*6.5/(8-6.5) = 13, p = (1 + 26/6)^(-3) = 27/4096.
			name: "iman-davenport",
			acc:  [][]float64{{0.9, 0.8, 0.7}, {0.9, 0.8, 0.7}, {0.9, 0.8, 0.7}, {0.8, 0.9, 0.7}},
			chi2: 6.5, p: math.Exp(-3.25), f: 13, fp: 27.0 / 4096, df1: 2, df2: 6,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fr, err := stats.Friedman(c.acc)
			if err != nil {
				t.Fatal(err)
			}
			if !closeRel(fr.Statistic, c.chi2, 1e-12) || !closeRel(fr.PValue, c.p, 1e-12) || fr.N != len(c.acc) || !reflect.DeepEqual(fr.DF, []float64{c.df1}) {
				t.Errorf("friedman %+v, want chi2 %v p %v", fr, c.chi2, c.p)
			}
			id, err := stats.ImanDavenport(c.acc)
			if err != nil {
				t.Fatal(err)
			}
			if !closeRel(id.Statistic, c.f, 1e-12) || !closeRel(id.PValue, c.fp, 1e-10) || !reflect.DeepEqual(id.DF, []float64{c.df1, c.df2}) {
				t.Errorf("iman-davenport %+v, want F %v p %v", id, c.f, c.fp)
			}
		})
	}
	for _, c := range []struct {
		name string
		acc  [][]float64
		want error
	}{
		{"two methods", [][]float64{{1, 2}, {2, 1}}, stats.ErrTooFewMethods},
		{"one dataset", [][]float64{{1, 2, 3}}, stats.ErrTooFewSamples},
		{"all tied", [][]float64{{1, 1, 1}, {2, 2, 2}}, stats.ErrDegenerate},
		{"NaN", [][]float64{{1, 2, 3}, {1, math.NaN(), 3}}, stats.ErrNaN},
	} {
		if _, err := stats.Friedman(c.acc); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
}

// twoGroups builds 18 datasets on which methods A, B, C (columns 0-2) are
// interchangeable, D and E (columns 3-4) are interchangeable, and every
// member of the first group beats every member of the second by about 0.2.
func twoGroups() [][]float64 {
	perms := [][3]float64{{1, 2, 3}, {1, 3, 2}, {2, 1, 3}, {2, 3, 1}, {3, 1, 2}, {3, 2, 1}}
	var acc [][]float64
	for i := 0; i < 18; i++ {
		base := 0.7 + 0.01*float64(i)
		p := perms[i%6]
		d, e := 0.01, 0.02
		if i%2 == 1 {
			d, e = e, d
		}
		acc = append(acc, []float64{
			base + 0.01*p[0], base + 0.01*p[1], base + 0.01*p[2],
			base - 0.2 + d, base - 0.2 + e,
		})
	}
	return acc
}

func TestCriticalDifferenceTwoGroups(t *testing.T) {
	// Within each group every pairwise difference pattern is symmetric, so
	// R+ = R- and the Wilcoxon p-value is 1. Across groups all 18 differences
	// are positive: normal approximation (ties, n > 13) with z about 3.7,
	// raw p about 2e-4 and Holm-adjusted p well below 0.05.
	names := []string{"A", "B", "C", "D", "E"}
	res, err := stats.CriticalDifference(names, twoGroups(), 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Methods, names) || !reflect.DeepEqual(res.Order, []int{0, 1, 2, 3, 4}) {
		t.Errorf("order %v %v", res.Methods, res.Order)
	}
	// Each permutation of (1,2,3) occurs three times: every method of the
	// first group averages rank 2, of the second 4.5.
	if !equalFloats(res.AvgRanks, []float64{2, 2, 2, 4.5, 4.5}, 1e-12) {
		t.Errorf("average ranks %v", res.AvgRanks)
	}
	if want := [][]int{{0, 1, 2}, {3, 4}}; !reflect.DeepEqual(res.Cliques, want) {
		t.Errorf("cliques %v, want %v", res.Cliques, want)
	}
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			p := res.PValues[i][j]
			switch {
			case i == j:
				if !math.IsNaN(p) {
					t.Errorf("diagonal p[%d][%d] = %v", i, j, p)
				}
			case (i < 3) == (j < 3):
				if p != 1 {
					t.Errorf("within-group p[%d][%d] = %v, want 1", i, j, p)
				}
			default:
				if p > 0.01 || p < res.RawPValues[i][j] {
					t.Errorf("between-group p[%d][%d] = %v (raw %v)", i, j, p, res.RawPValues[i][j])
				}
			}
		}
	}
	if !(res.FriedmanP < 1e-6) {
		t.Errorf("Friedman p = %v", res.FriedmanP)
	}
}

func TestCriticalDifferenceReordersAndErrors(t *testing.T) {
	// Columns given worst first: the result lists them best first.
	acc := twoGroups()
	rev := make([][]float64, len(acc))
	for i, row := range acc {
		rev[i] = []float64{row[4], row[3], row[2], row[1], row[0]}
	}
	res, err := stats.CriticalDifference([]string{"E", "D", "C", "B", "A"}, rev, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"C", "B", "A", "E", "D"}; !reflect.DeepEqual(res.Methods, want) {
		t.Errorf("methods %v, want %v", res.Methods, want)
	}
	if want := [][]int{{0, 1, 2}, {3, 4}}; !reflect.DeepEqual(res.Cliques, want) {
		t.Errorf("cliques %v, want %v", res.Cliques, want)
	}
	for _, c := range []struct {
		name    string
		methods []string
		alpha   float64
		want    error
	}{
		{"names", []string{"A"}, 0.05, stats.ErrShape},
		{"alpha", []string{"E", "D", "C", "B", "A"}, 1.5, stats.ErrBadArgument},
	} {
		if _, err := stats.CriticalDifference(c.methods, rev, c.alpha); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
}
