package tables

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/softshape-go/softshape/experiments/sweep"
)

// TestDifferencesByHand: paired differences from the default setting, their
// standard error and the trend verdicts on hand-computed records.
func TestDifferencesByHand(t *testing.T) {
	f := newFixture(t, sweep.GridSpec{Table: "sparse_ratio", Datasets: []string{"GunPoint", "Trace"}, Variants: []string{"10%", "50%", "90%"},
		Folds: []int{1, 2}, Seeds: []int64{42}})
	acc := map[string][2]float64{ // dataset/variant → folds 1, 2
		"GunPoint/50%": {0.90, 0.80}, "GunPoint/10%": {0.95, 0.85}, "GunPoint/90%": {0.80, 0.90},
		"Trace/50%": {0.70, 0.60}, "Trace/10%": {0.76, 0.64}, "Trace/90%": {0.70, 0.55},
	}
	for k, a := range acc {
		ds, v := k[:len(k)-len("/50%")], k[len(k)-3:]
		f.put(ds, v, 1, sweep.StatusOK, a[0], 0.1)
		f.put(ds, v, 2, sweep.StatusOK, a[1], 0.1)
	}
	tb, err := Build(f.store, "sparse_ratio", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Difference{}
	for _, d := range tb.Differences() {
		got[d.Column] = d
	}
	// 10%: diffs .05 .05 .06 .04 → mean .05, sd .0081650, SE .0040825 → up.
	d := got["10%"]
	if d.N != 4 || math.Abs(d.Mean-0.05) > 1e-12 || math.Abs(d.SE-0.0040825) > 1e-6 || d.Trend() != 1 {
		t.Errorf("10%%: %+v trend %d", d, d.Trend())
	}
	// 90%: diffs −.10 +.10 0 −.05 → mean −.0125, SE .0426 → no trend.
	d = got["90%"]
	if d.N != 4 || math.Abs(d.Mean+0.0125) > 1e-12 || d.Trend() != 0 || d.Verdict() != "no trend (within 2 SE)" {
		t.Errorf("90%%: %+v trend %d %q", d, d.Trend(), d.Verdict())
	}
	// The paper's 10% vs 50% on GunPoint and Trace, averaged.
	var want float64
	for _, r := range tb.Rows {
		want += (r.Paper[colIndex(tb, "10%")] - r.Paper[colIndex(tb, "50%")]) / 2
	}
	if math.Abs(got["10%"].Paper-want) > 1e-12 {
		t.Errorf("paper difference %v, want %v", got["10%"].Paper, want)
	}
	// Between two settings neither of which is the default: 10% − 90%,
	// diffs +.15 −.05 +.06 +.09 → mean .0625; the paper's averaged likewise.
	d, ok := tb.Between("10%", "90%")
	var wantPaper float64
	for _, r := range tb.Rows {
		wantPaper += (r.Paper[colIndex(tb, "10%")] - r.Paper[colIndex(tb, "90%")]) / 2
	}
	if !ok || d.N != 4 || math.Abs(d.Mean-0.0625) > 1e-12 || math.Abs(d.Paper-wantPaper) > 1e-12 {
		t.Errorf("10%% − 90%%: %+v (ok %v), want mean 0.0625 over 4, paper %v", d, ok, wantPaper)
	}
	if d.Seeds != 1 || !math.IsNaN(d.SeedSE) {
		t.Errorf("one seed: %d seeds, SE between seeds %v; want 1, NaN", d.Seeds, d.SeedSE)
	}
	// Two seeds: seed 1 +.1 +.3 (mean .2), seed 7 0 +.2 (mean .1): the
	// standard error between seeds is sd(.2, .1)/√2 = .05; SE pools all four.
	d = DifferenceOf("x", []Pair{{Seed: 1, Diff: 0.1}, {Seed: 7, Diff: 0}, {Seed: 1, Diff: 0.3}, {Seed: 7, Diff: 0.2}})
	if d.Seeds != 2 || math.Abs(d.SeedSE-0.05) > 1e-12 || math.Abs(d.Mean-0.15) > 1e-12 || math.Abs(d.SE-0.0645497) > 1e-6 {
		t.Errorf("two seeds: %+v, want mean .15, SE .0645, 2 seeds, SE between seeds .05", d)
	}
	if _, ok := tb.Between("10%", "70%"); ok {
		t.Error("Between a column without runs (70%) is ok")
	}
	for _, c := range []struct {
		d    Difference
		want string
	}{
		{Difference{Mean: 0.05, SE: 0.01, N: 9, Paper: 0.01}, "matches"},
		{Difference{Mean: 0.05, SE: 0.01, N: 9, Paper: -0.01}, "opposite"},
		{Difference{Mean: -0.05, SE: 0.01, N: 9, Paper: math.NaN()}, "no paper figure"},
		{Difference{Mean: 0.015, SE: 0.01, N: 9, Paper: 0.01}, "no trend (within 2 SE)"},
		{Difference{Mean: math.NaN(), SE: math.NaN(), N: 0, Paper: math.NaN()}, "no paired runs"},
		{Difference{Mean: 0.05, SE: math.NaN(), N: 1, Paper: 0.01}, "too few runs"},
	} {
		if v := c.d.Verdict(); v != c.want {
			t.Errorf("%+v: %q, want %q", c.d, v, c.want)
		}
	}
}

func colIndex(tb *Table, name string) int {
	for j, c := range tb.Columns {
		if c.Name == name {
			return j
		}
	}
	return -1
}

// pairedTable is Table 3 with 10% and 50% over three folds of each dataset
// of diffs, 50% at 0.9 and 10% that plus the fold's difference.
func pairedTable(t *testing.T, diffs map[string][3]float64) *Table {
	t.Helper()
	f := newFixture(t, sweep.GridSpec{Table: "sparse_ratio", Datasets: []string{"GunPoint", "Trace", "ArrowHead"}, Variants: []string{"10%", "50%"},
		Folds: []int{1, 2, 3}, Seeds: []int64{42}})
	for ds, d := range diffs {
		for i, x := range d {
			f.put(ds, "50%", i+1, sweep.StatusOK, 0.9, 0.1)
			f.put(ds, "10%", i+1, sweep.StatusOK, 0.9+x, 0.1)
		}
	}
	tb, err := Build(f.store, "sparse_ratio", Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestDriver: a trend that one dataset carries names that dataset, with the
// difference without it. Hand check, 10% − 50% over three folds each:
// GunPoint −.20 −.22 −.21, Trace −.01 0 −.02, ArrowHead +.01 −.01 0: all
// nine pairs −.0733 ± .0343 (2.14 SE, a trend); without GunPoint −.005 ±
// .0043 (1.17 SE, none); without Trace or ArrowHead the trend stays.
func TestDriver(t *testing.T) {
	tb := pairedTable(t, map[string][3]float64{"GunPoint": {-.20, -.22, -.21}, "Trace": {-.01, 0, -.02}, "ArrowHead": {.01, -.01, 0}})
	all, _ := tb.Between("10%", "50%")
	if all.N != 9 || math.Abs(all.Mean+0.07333333) > 1e-6 || math.Abs(all.SE-0.0343188) > 1e-6 || all.Trend() != -1 {
		t.Fatalf("all pairs: %+v, want −.0733 ± .0343 over 9, a trend", all)
	}
	ds, share, without, ok := tb.Driver("10%", "50%")
	if !ok || ds != "GunPoint" || math.Abs(share-0.63/0.66) > 1e-9 || without.N != 6 || math.Abs(without.Mean+0.005) > 1e-9 || math.Abs(without.SE-0.0042817) > 1e-6 || without.Trend() != 0 {
		t.Errorf("driver %q (ok %v, share %v), without it %+v; want GunPoint, .63/.66 of the sum, −.005 ± .0043 over 6", ds, ok, share, without)
	}
	if _, _, _, ok := tb.Driver("50%", "50%"); ok {
		t.Error("a difference without a trend has a driver")
	}
}

// TestDriverShare: a dataset that makes more than half of a trend carries
// it even when the trend survives without it. Hand check: GunPoint −.30
// −.32 −.31, Trace −.05 −.06 −.04, ArrowHead −.05 −.04 −.06: all pairs
// −.1367 ± .0434 (3.1 SE); GunPoint's share −.93/−1.23 = 75.6%; without it
// −.05 ± .0037, still a trend.
func TestDriverShare(t *testing.T) {
	tb := pairedTable(t, map[string][3]float64{"GunPoint": {-.30, -.32, -.31}, "Trace": {-.05, -.06, -.04}, "ArrowHead": {-.05, -.04, -.06}})
	ds, share, without, ok := tb.Driver("10%", "50%")
	if !ok || ds != "GunPoint" || math.Abs(share-0.93/1.23) > 1e-6 || math.Abs(without.Mean+0.05) > 1e-9 || without.Trend() != -1 {
		t.Errorf("driver %q (ok %v, share %v), without it %+v; want GunPoint, 75.6%%, −.05 still a trend", ds, ok, share, without)
	}
}

// TestChangedSettings: a table names the settings its runs share that
// differ from the paper's defaults under their preset (for a figure's
// caption), not the swept one, which differs between variants, nor the
// protocol's switches, which its protocol names. Here: quick runs with
// epochs=4 and embed_dim=32 under reference_fresh; the quick schedule's
// warm-up (sweep.QuickWarmUp, 15) differs from the paper's 150 too.
func TestChangedSettings(t *testing.T) {
	f := newFixture(t, sweep.GridSpec{Table: "sparse_ratio", Datasets: []string{"GunPoint"}, Variants: []string{"10%", "50%"},
		Folds: []int{1}, Seeds: []int64{42}, Quick: true, Settings: "epochs=4;embed_dim=32;protocol=reference_fresh"})
	for _, v := range []string{"10%", "50%"} {
		f.put("GunPoint", v, 1, sweep.StatusOK, 0.8, 0.1)
	}
	tb, err := Build(f.store, "sparse_ratio", Options{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"embed_dim=32", "warmup_epochs=" + strconv.Itoa(sweep.QuickWarmUp), "epochs=4"}; !slices.Equal(tb.Changed, want) {
		t.Errorf("changed settings %v, want %v", tb.Changed, want)
	}
}

// TestDatasetsString counts the datasets a difference pairs.
func TestDatasetsString(t *testing.T) {
	d := DifferenceOf("k=3", []Pair{{Dataset: "A", Diff: 0.01}, {Dataset: "A", Diff: 0.03}, {Dataset: "B", Diff: 0.02}})
	if d.Datasets != 2 || d.DatasetsString() != "+0.0200 ± 0.0058 (n=3, 2 datasets)" {
		t.Errorf("%+v: %q", d, d.DatasetsString())
	}
}
