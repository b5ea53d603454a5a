package tables

import (
	"fmt"
	"math"

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
	// Paper is the paper's difference averaged over the same datasets, NaN
	// when the paper has no per-dataset figures for them.
	Paper float64
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

// Differences returns, for every measured column other than Default, its
// paired difference from Default; nil when Default is not measured.
func (t *Table) Differences() []Difference {
	def := -1
	for j, c := range t.Columns {
		if c.Name == t.Default && c.Kind == Ours {
			def = j
		}
	}
	if def < 0 {
		return nil
	}
	var out []Difference
	for j, c := range t.Columns {
		if j == def || c.Kind != Ours {
			continue
		}
		d := Difference{Column: c.Name, Mean: math.NaN(), SE: math.NaN(), Paper: math.NaN()}
		var diffs, paperDiffs []float64
		for _, r := range t.Rows {
			base := map[[2]int64]float64{}
			for _, ra := range r.Ours[def].PerRun {
				base[[2]int64{ra.Seed, int64(ra.Fold)}] = ra.Acc
			}
			paired := false
			for _, ra := range r.Ours[j].PerRun {
				if b, ok := base[[2]int64{ra.Seed, int64(ra.Fold)}]; ok {
					diffs = append(diffs, ra.Acc-b)
					paired = true
				}
			}
			if paired && !math.IsNaN(r.Paper[j]) && !math.IsNaN(r.Paper[def]) {
				paperDiffs = append(paperDiffs, r.Paper[j]-r.Paper[def])
			}
		}
		d.N = len(diffs)
		if d.N > 0 {
			d.Mean = stat.Mean(diffs, nil)
		}
		if d.N > 1 {
			d.SE = stat.StdDev(diffs, nil) / math.Sqrt(float64(d.N))
		}
		if len(paperDiffs) > 0 {
			d.Paper = stat.Mean(paperDiffs, nil)
		}
		out = append(out, d)
	}
	return out
}
