package tables

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
)

// Difference is one setting's paired difference in test accuracy from the
// table's default setting (Table.Default), over every (dataset, seed, fold) run
// that both have: a sweep result with its uncertainty.
type Difference struct {
	// Column is the setting.
	Column string
	// Mean is the mean paired difference (setting − default), SE its standard
	// error (sample standard deviation / √N) and N the paired runs.
	Mean, SE float64
	N        int
	// Seeds counts the seeds of the pairs and SeedSE is the standard error
	// between seeds: that of the per-seed mean differences, NaN for one
	// seed. SE pools every pair (datasets × folds × seeds).
	Seeds  int
	SeedSE float64
	// Paper is the paper's difference averaged over the same datasets, NaN
	// when the paper has no per-dataset figures for them. For a table the
	// paper prints as a summary only (the appendix's studies) it is the
	// difference of its printed Avg. Acc, the mean of its per-dataset
	// differences over all its datasets, and PaperPrinted is true.
	Paper        float64
	PaperPrinted bool
	// Datasets counts the datasets of the pairs: a setting that some
	// datasets cannot take (invalid) pairs fewer than the table holds.
	Datasets int
}

// DatasetsString is String with the datasets paired: "+0.0123 ± 0.0045
// (n=30, 6 datasets)", for tables whose rows pair different datasets.
func (d Difference) DatasetsString() string {
	s := d.String()
	if d.N == 0 || !strings.HasSuffix(s, ")") {
		return s
	}
	return fmt.Sprintf("%s, %d dataset%s)", strings.TrimSuffix(s, ")"), d.Datasets, map[bool]string{true: "", false: "s"}[d.Datasets == 1])
}

// Trend is +1 or −1 when the difference exceeds two standard errors, else 0
// (no trend: within the noise of folds and seeds).
func (d Difference) Trend() int {
	if d.N < 2 || math.IsNaN(d.SE) || math.Abs(d.Mean) <= 2*d.SE {
		return 0
	}
	if d.Mean > 0 {
		return 1
	}
	return -1
}

// Verdict says how our trend compares with the paper's sign: "matches",
// "opposite", "no trend (within 2 SE)" or "no paper figure"; "no paired runs"
// or "too few runs" when fewer than two pairs give no standard error.
func (d Difference) Verdict() string {
	switch {
	case d.N == 0:
		return "no paired runs"
	case d.N < 2:
		return "too few runs"
	case d.Trend() == 0:
		return "no trend (within 2 SE)"
	case math.IsNaN(d.Paper) || d.Paper == 0:
		return "no paper figure"
	case (d.Paper > 0) == (d.Trend() > 0):
		return "matches"
	default:
		return "opposite"
	}
}

// String is "+0.0123 ± 0.0045 (n=30)".
func (d Difference) String() string {
	if d.N == 0 {
		return dash
	}
	if d.N == 1 {
		return fmt.Sprintf("%+.4f (n=1)", d.Mean)
	}
	return fmt.Sprintf("%+.4f ± %.4f (n=%d)", d.Mean, d.SE, d.N)
}

// SeedString is the standard error between seeds, "± 0.0031 (3 seeds)", or
// "— (one seed)".
func (d Difference) SeedString() string {
	if d.Seeds < 2 || math.IsNaN(d.SeedSE) {
		return dash + " (one seed)"
	}
	return fmt.Sprintf("± %.4f (%d seeds)", d.SeedSE, d.Seeds)
}

// Differences returns, for every measured column other than Default, its
// paired difference from Default; nil when Default is not measured.
func (t *Table) Differences() []Difference {
	if !measured(t, t.Default) {
		return nil
	}
	var out []Difference
	for _, c := range t.Columns {
		if c.Name == t.Default || c.Kind != Ours {
			continue
		}
		d, _ := t.Between(c.Name, t.Default)
		out = append(out, d)
	}
	return out
}

// Between is the paired difference column − base over every (dataset, seed,
// fold) run both have, with the paper's difference averaged over the same
// datasets (NaN without paper figures for them). Differences gives each
// column's from Default; Between also compares two other settings (Table 7:
// Multi-Seq against Fixed-8). ok is false when either column is not one of
// ours.
func (t *Table) Between(column, base string) (d Difference, ok bool) {
	j, def := t.columnIndex(column), t.columnIndex(base)
	if !measured(t, column) || !measured(t, base) {
		return Difference{Column: column, Mean: math.NaN(), SE: math.NaN(), SeedSE: math.NaN(), Paper: math.NaN()}, false
	}
	pairs := PairRuns(t, j, t, def)
	d = DifferenceOf(column, pairs)
	var paperDiffs []float64
	for _, r := range t.Rows {
		if slices.ContainsFunc(pairs, func(p Pair) bool { return p.Dataset == r.Dataset }) &&
			!math.IsNaN(r.Paper[j]) && !math.IsNaN(r.Paper[def]) {
			paperDiffs = append(paperDiffs, r.Paper[j]-r.Paper[def])
		}
	}
	if len(paperDiffs) > 0 {
		d.Paper = stat.Mean(paperDiffs, nil)
	}
	if t.Summary.PrintedOnly() {
		a, okA := t.Summary.Printed.AvgAcc(column)
		b, okB := t.Summary.Printed.AvgAcc(base)
		if okA && okB {
			d.Paper, d.PaperPrinted = a-b, true
		}
	}
	return d, true
}

// PaperString is the paper's difference as a table cell: "+0.0123", with
// " (printed Avg. Acc)" where it is the difference of the printed averages
// over all the paper's datasets (PaperPrinted); "—" without one.
func (d Difference) PaperString() string {
	switch {
	case math.IsNaN(d.Paper):
		return dash
	case d.PaperPrinted:
		return fmt.Sprintf("%+.4f (printed Avg. Acc)", d.Paper)
	}
	return fmt.Sprintf("%+.4f", d.Paper)
}

// Pair is one paired difference a − b in test accuracy: the run of one
// dataset, seed and fold measured twice (two settings of one table, or one
// setting under two protocols).
type Pair struct {
	Dataset string
	Seed    int64
	Fold    int
	Diff    float64
}

// PairRuns pairs the runs of column ja of table a with those of column jb of
// table b by dataset, seed and fold — never by position: two tables may list
// their datasets in different orders — and returns each pair's a − b, in a's
// row and run order. Runs without a partner are left out.
func PairRuns(a *Table, ja int, b *Table, jb int) []Pair {
	other := map[string]Row{}
	for _, r := range b.Rows {
		other[r.Dataset] = r
	}
	var out []Pair
	for _, r := range a.Rows {
		br, ok := other[r.Dataset]
		if !ok {
			continue
		}
		base := map[[2]int64]float64{}
		for _, ra := range br.Ours[jb].PerRun {
			base[[2]int64{ra.Seed, int64(ra.Fold)}] = ra.Acc
		}
		for _, ra := range r.Ours[ja].PerRun {
			if v, ok := base[[2]int64{ra.Seed, int64(ra.Fold)}]; ok {
				out = append(out, Pair{Dataset: r.Dataset, Seed: ra.Seed, Fold: ra.Fold, Diff: ra.Acc - v})
			}
		}
	}
	return out
}

// DifferenceOf is the mean of the pairs' differences with its standard error
// (sample standard deviation / √N), and the standard error between seeds
// (StandardError of the per-seed means), for the named column; its Paper is
// NaN.
func DifferenceOf(column string, pairs []Pair) Difference {
	d := Difference{Column: column, Mean: math.NaN(), SE: math.NaN(), SeedSE: math.NaN(), Paper: math.NaN(), N: len(pairs)}
	x := make([]float64, len(pairs))
	bySeed := map[int64][]float64{}
	var seeds []int64
	datasets := map[string]bool{}
	for i, p := range pairs {
		datasets[p.Dataset] = true
		x[i] = p.Diff
		if _, ok := bySeed[p.Seed]; !ok {
			seeds = append(seeds, p.Seed)
		}
		bySeed[p.Seed] = append(bySeed[p.Seed], p.Diff)
	}
	if d.N > 0 {
		d.Mean = stat.Mean(x, nil)
	}
	d.SE = StandardError(x)
	d.Datasets = len(datasets)
	d.Seeds = len(seeds)
	seedMeans := make([]float64, len(seeds))
	for i, s := range seeds {
		seedMeans[i] = stat.Mean(bySeed[s], nil)
	}
	d.SeedSE = StandardError(seedMeans)
	return d
}

// Driver returns the dataset that one trend of column − base (Between)
// rests on: a trend beyond two standard errors that vanishes (falls within
// two standard errors, or changes sign) when that dataset's runs are left
// out, or of which that dataset's pairs make more than half (share: its
// pairs' sum over all the pairs' sum). Of several such datasets it returns
// the one whose omission moves the mean the most, with its share and the
// difference without its runs. ok is false when the difference shows no
// trend, or no single dataset carries it.
func (t *Table) Driver(column, base string) (dataset string, share float64, without Difference, ok bool) {
	if !measured(t, column) || !measured(t, base) {
		return "", 0, Difference{}, false
	}
	pairs := PairRuns(t, t.columnIndex(column), t, t.columnIndex(base))
	all := DifferenceOf(column, pairs)
	trend := all.Trend()
	if trend == 0 {
		return "", 0, Difference{}, false
	}
	var total float64
	for _, p := range pairs {
		total += p.Diff
	}
	best := math.Inf(-1)
	for _, r := range t.Rows {
		var own float64
		rest := slices.DeleteFunc(slices.Clone(pairs), func(p Pair) bool {
			if p.Dataset == r.Dataset {
				own += p.Diff
				return true
			}
			return false
		})
		if len(rest) == len(pairs) || len(rest) < 2 {
			continue
		}
		d := DifferenceOf(column, rest)
		if d.Trend() == trend && own/total <= 0.5 {
			continue
		}
		if shift := math.Abs(all.Mean - d.Mean); shift > best {
			dataset, share, without, ok, best = r.Dataset, own/total, d, true, shift
		}
	}
	return dataset, share, without, ok
}
