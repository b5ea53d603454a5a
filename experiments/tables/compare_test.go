package tables

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/sweep"
)

// TestCompareByHand: one table under two presets, from hand-made records.
// Rows follow the order given; the summary covers only the datasets complete
// under both; the paired difference of the presets is worked out by hand.
func TestCompareByHand(t *testing.T) {
	spec := sweep.GridSpec{Table: "sparse_ratio", Datasets: []string{"GunPoint", "Trace"}, Variants: []string{"0%", "50%"},
		Folds: []int{1, 2}, Seeds: []int64{42}}
	a, b := newFixture(t, spec), newFixture(t, spec)
	ok := sweep.StatusOK
	for _, r := range []struct {
		f       *fixture
		ds, v   string
		fold    int
		acc     float64
		skipped bool
	}{
		{f: a, ds: "GunPoint", v: "0%", fold: 1, acc: 0.9}, {f: a, ds: "GunPoint", v: "0%", fold: 2, acc: 0.8},
		{f: a, ds: "GunPoint", v: "50%", fold: 1, acc: 0.95}, {f: a, ds: "GunPoint", v: "50%", fold: 2, acc: 0.85},
		{f: a, ds: "Trace", v: "0%", fold: 1, acc: 0.7}, {f: a, ds: "Trace", v: "0%", fold: 2, acc: 0.6},
		{f: a, ds: "Trace", v: "50%", fold: 1, acc: 0.8}, {f: a, ds: "Trace", v: "50%", fold: 2, acc: 0.7},
		{f: b, ds: "GunPoint", v: "0%", fold: 1, acc: 0.9}, {f: b, ds: "GunPoint", v: "0%", fold: 2, acc: 0.7},
		{f: b, ds: "GunPoint", v: "50%", fold: 1, acc: 0.95}, {f: b, ds: "GunPoint", v: "50%", fold: 2, acc: 0.75},
		{f: b, ds: "Trace", v: "0%", fold: 1, acc: 0.7}, {f: b, ds: "Trace", v: "0%", fold: 2, acc: 0.5},
		{f: b, ds: "Trace", v: "50%", fold: 1, acc: 0.8}, // fold 2 not recorded
	} {
		r.f.put(r.ds, r.v, r.fold, ok, r.acc, 0.1)
	}
	ta, err := Build(a.store, "sparse_ratio", Options{})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := Build(b.store, "sparse_ratio", Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare([2]string{"reference_compat", "reference_fresh"}, [2]*Table{ta, tb}, []string{"Trace", "GunPoint"})
	if err != nil {
		t.Fatal(err)
	}
	c.Between = "fold leak"
	c.Recorded, c.Expected = [2]int{8, 7}, [2]int{8, 8}
	if strings.Join(c.Datasets, ",") != "Trace,GunPoint" || strings.Join(c.Common, ",") != "GunPoint" || c.Default != "50%" {
		t.Fatalf("datasets %v, common %v, default %s", c.Datasets, c.Common, c.Default)
	}
	// compat − fresh: 0% pairs 0, .1 (GunPoint), 0, .1 (Trace); 50% pairs 0,
	// .1 (GunPoint), 0 (Trace fold 1; fold 2 has no partner).
	if d := c.BetweenAll[0]; d.Column != "0%" || d.N != 4 || math.Abs(d.Mean-0.05) > 1e-9 || math.Abs(d.SE-0.1/math.Sqrt(12)) > 1e-9 {
		t.Errorf("0%% leak %+v, want 0.05 ± %.6f over 4", d, 0.1/math.Sqrt(12))
	}
	if d := c.BetweenLater[0]; d.N != 2 || math.Abs(d.Mean-0.1) > 1e-9 {
		t.Errorf("0%% leak, folds 2–5: %+v", d)
	}
	if d := c.BetweenAll[1]; d.Column != "50%" || d.N != 3 || math.Abs(d.Mean-0.1/3) > 1e-9 {
		t.Errorf("50%% leak %+v", d)
	}
	var md bytes.Buffer
	if err := c.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{
		"**Partial — not a reproduction of this table yet.**",
		"on 2 of its 18 UCR datasets — the paper, ours under reference_compat and ours under reference_fresh",
		"reference_fresh: 7 of 8 planned runs recorded",
		"| Trace | paper | 1.0000 | 1.0000 | 1.0000 | 1.0000 | 1.0000 | 1.0000 |\n| | ours, reference_compat | 0.6500 | — | — | 0.7500 | — | — |\n| | ours, reference_fresh | 0.6000 | — | — | 0.8000 (1/2) | — | — |\n| GunPoint | paper |",
		"Over the 1 dataset(s) complete and valid under both presets (GunPoint)",
		"**Every p-value and difference compares with 50%**",
		"| Avg. Acc — ours, reference_compat | 0.8500 | — | — | 0.9000 | — | — |",
		"| Avg. Acc — ours, reference_fresh | 0.8000 | — | — | 0.8500 | — | — |",
		"| ours − 50% (paired runs ± SE, datasets paired) — reference_compat | -0.0750 ± 0.0144 (n=4, 2 datasets) | — | — | — | — | — |",
		"| **fold leak: reference_compat − reference_fresh**, all folds | +0.0500 ± 0.0289 (n=4) | — | — | +0.0333 ± 0.0333 (n=3) | — | — |",
		"| fold leak: reference_compat − reference_fresh, folds 2–5 | +0.1000 ± 0.0000 (n=2) | — | — | +0.1000 (n=1) | — | — |",
		"The paper's printed p-values compare with 0% over its own datasets, not with 50%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "P-value (paper's: ½ two-sided paired t-test vs 50%) — paper, printed") {
		t.Errorf("the paper's printed p-values (vs 0%%) are shown as if against 50%%:\n%s", out)
	}
	if _, err := Compare([2]string{"x", "y"}, [2]*Table{}, nil); err == nil {
		t.Error("a comparison of no tables")
	}
}

// TestCompareSaysWhyRunsAreInvalid: Table 7 under two presets, Multi-Seq
// recorded invalid on ItalyPowerDemand (m=32 > T=24) under both: the
// comparison's note gives that reason once, under the column's name and
// both presets, not another table's example (k > Ĉ).
func TestCompareSaysWhyRunsAreInvalid(t *testing.T) {
	spec := sweep.GridSpec{Table: "shape_length_m", Datasets: []string{"ArrowHead", "ItalyPowerDemand"}, Folds: []int{1, 2}, Seeds: []int64{42}}
	why := "dataset ItalyPowerDemand (T=24, C=2): shape_length: m=32 is longer than the series (T=24)"
	var built [2]*Table
	for i := range built {
		f := newFixture(t, spec)
		f.invalidError = why
		for fold := 1; fold <= 2; fold++ {
			for _, v := range []string{"SoftShape", "Fixed-8", "Multi-Seq"} {
				f.put("ArrowHead", v, fold, sweep.StatusOK, 0.9, 0.1)
				if v == "Multi-Seq" {
					f.put("ItalyPowerDemand", v, fold, sweep.StatusInvalid, 0, 0)
				} else {
					f.put("ItalyPowerDemand", v, fold, sweep.StatusOK, 0.95, 0.1)
				}
			}
		}
		tab, err := Build(f.store, "shape_length_m", Options{})
		if err != nil {
			t.Fatal(err)
		}
		built[i] = tab
	}
	c, err := Compare([2]string{"reference_compat", "reference_fresh"}, built, spec.Datasets)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := c.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	line := "- ItalyPowerDemand · Multi-Seq (reference_compat, reference_fresh): " + why + "\n"
	if strings.Count(out, line) != 1 {
		t.Errorf("want the reason once, %q, in\n%s", line, out)
	}
	if !strings.Contains(out, "Runs recorded invalid (the dataset rejects the setting; the cells read \"invalid\"): 2 under reference_compat, 2 under reference_fresh.") {
		t.Errorf("no count of invalid runs in\n%s", out)
	}
	if strings.Contains(out, "k > Ĉ") {
		t.Errorf("Table 7's note names k > Ĉ, which is not why its runs are invalid:\n%s", out)
	}
}

// TestSummaryComparesWithDefault: a table's p-values compare with its
// default setting, as its differences do (Table 3: 50%, while the paper's
// printed p-values compare with 0%, which are then left out).
func TestSummaryComparesWithDefault(t *testing.T) {
	f := newFixture(t, sweep.GridSpec{Table: "sparse_ratio", Datasets: []string{"GunPoint", "Trace", "ArrowHead"}, Variants: []string{"0%", "50%"},
		Folds: []int{1}, Seeds: []int64{42}})
	for i, ds := range []string{"GunPoint", "Trace", "ArrowHead"} {
		f.put(ds, "0%", 1, sweep.StatusOK, 0.8+0.01*float64(i), 0.1)
		f.put(ds, "50%", 1, sweep.StatusOK, 0.9-0.02*float64(i), 0.1)
	}
	tb, err := Build(f.store, "sparse_ratio", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := tb.Summary; s.Ours == nil || s.Ours.Reference != "50%" || s.Paper == nil || s.Paper.Reference != "50%" {
		t.Fatalf("summary references: ours %+v, paper %+v", s.Ours, s.Paper)
	}
	var md bytes.Buffer
	if err := tb.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "P-value (paper's: ½ two-sided paired t-test vs 50%) — ours |") ||
		strings.Contains(md.String(), "— paper, printed | — | 2.97E-01") ||
		!strings.Contains(md.String(), "The paper's printed p-values compare with 0% over its own datasets, not with 50%") {
		t.Errorf("p-values not against 50%%, or the paper's printed ones (vs 0%%) shown:\n%s", md.String())
	}
}
