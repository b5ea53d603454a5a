package reproduction

import (
	"math"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/tables"
)

// TestLeakPairsByDatasetAndColumn: the two presets' tables list datasets (and
// could list columns) in different orders; the leak pairs runs by dataset,
// column, seed and fold, never by position. Hand-checked: A fold 2 carries
// +0.2, B fold 1 −0.1, A fold 1 0; dataset C (compat only) and fold 3 of A
// (fresh lacks it) are left out.
func TestLeakPairsByDatasetAndColumn(t *testing.T) {
	runs := func(accs ...float64) tables.Value { // fold i+1, seed 42
		v := tables.Value{}
		for i, a := range accs {
			v.PerRun = append(v.PerRun, tables.RunAcc{Seed: 42, Fold: i + 1, Acc: a})
		}
		return v
	}
	ours := func(names ...string) []tables.Column {
		var cs []tables.Column
		for _, n := range names {
			cs = append(cs, tables.Column{Name: n, Kind: tables.Ours})
		}
		return cs
	}
	compat := &tables.Table{Columns: ours("0%", "50%"), Rows: []tables.Row{
		{Dataset: "A", Ours: []tables.Value{runs(0.9, 1.0, 0.7), runs(0.5)}},
		{Dataset: "B", Ours: []tables.Value{runs(0.5), runs(0.6)}},
		{Dataset: "C", Ours: []tables.Value{runs(0.1), runs(0.1)}},
	}}
	fresh := &tables.Table{Columns: ours("50%", "0%"), Rows: []tables.Row{
		{Dataset: "B", Ours: []tables.Value{runs(0.6), runs(0.6)}},
		{Dataset: "A", Ours: []tables.Value{runs(0.5), runs(0.9, 0.8)}},
	}}
	got := leakDifferences(compat, fresh)
	want := []struct {
		setting    string
		all, later []float64
	}{
		{"0%", []float64{0, 0.2, -0.1}, []float64{0.2}},
		{"50%", []float64{0, 0}, nil},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d settings, want %d: %+v", len(got), len(want), got)
	}
	same := func(a []tables.Pair, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Abs(a[i].Diff-b[i]) > 1e-12 {
				return false
			}
		}
		return true
	}
	for i, w := range want {
		g := got[i]
		if g.Setting != w.setting || !same(g.All, w.all) || !same(g.Later, w.later) {
			t.Errorf("setting %d: got %+v, want %+v", i, g, w)
		}
	}
	if s := meanSE(got[0].All); s != "+0.0333 ± 0.0882 (n=3)" {
		t.Errorf("meanSE = %q", s)
	}
	md := Leak([]Entry{{Table: "x", Preset: "reference_compat", Built: compat}, {Table: "x", Preset: "reference_fresh", Built: fresh}}, "x")
	for _, line := range []string{
		"| 0% | +0.0333 ± 0.0882 (n=3) | +0.2000 (n=1) |",
		"| A | +0.0667 (n=3) | +0.2000 (n=1) | 0.0000 |",
		"| B | -0.0500 (n=2) | — | 0.1000 |",
	} {
		if !strings.Contains(md, line+"\n") {
			t.Errorf("no line %q in\n%s", line, md)
		}
	}
	// Fold 1: A's two settings and B's agree but B's 0% (−0.1).
	if w := "so its pairs should agree: 3 of 4 do; the one that differs (|Δ| 0.1000, B at 0%) measures a run that did not repeat, not the leak"; !strings.Contains(md, w) {
		t.Errorf("no %q in\n%s", w, md)
	}
	if Leak([]Entry{{Table: "x", Preset: "reference_compat", Built: compat}}, "x") != "" {
		t.Error("a leak without reference_fresh runs")
	}
}
