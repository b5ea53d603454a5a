package tables

import (
	"bytes"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/sweep"
)

// TestWarmUpSelectedAndProtocol: a table names the runs' protocol preset in its
// title and, per column, counts the runs that selected a dense warm-up model —
// so a degenerate sweep (every η giving the warm-up model) is visible.
func TestWarmUpSelectedAndProtocol(t *testing.T) {
	f := newFixture(t, sweep.GridSpec{Table: "sparse_ratio", Datasets: []string{"A", "B"}, Variants: []string{"10%", "50%"},
		Folds: []int{1, 2}, Seeds: []int64{42}, Settings: "protocol=reference_fresh"})
	warm := map[string]bool{"A/10%/1": true, "A/10%/2": true, "B/10%/1": true}
	for _, ds := range []string{"A", "B"} {
		for _, v := range []string{"10%", "50%"} {
			for _, fold := range []int{1, 2} {
				f.put(ds, v, fold, sweep.StatusOK, 0.9, 0.1)
				if warm[ds+"/"+v+"/"+string(rune('0'+fold))] {
					f.markWarmUp(ds, v, fold)
				}
			}
		}
	}
	tb, err := Build(f.store, "sparse_ratio", Options{})
	if err != nil {
		t.Fatal(err)
	}
	counts, runs, any := tb.WarmUpSelected()
	got := map[string][2]int{}
	for j, c := range tb.Columns {
		if c.Measured() {
			got[c.Name] = [2]int{counts[j], runs[j]}
		}
	}
	if !any || got["10%"] != [2]int{3, 4} || got["50%"] != [2]int{0, 4} {
		t.Errorf("warm-up counts %v (any %v), want 10%%: 3 of 4, 50%%: 0 of 4", got, any)
	}
	if !strings.Contains(tb.FullTitle(), ", protocol reference_fresh") || !strings.HasPrefix(tb.Protocol, "reference_fresh (fold_reset=fresh, eval_path=sparse") {
		t.Errorf("title %q, protocol %q", tb.FullTitle(), tb.Protocol)
	}
	var md bytes.Buffer
	if err := tb.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Runs that selected a dense warm-up model", "| 3 of 4 |", "| 0 of 4 |", "Protocol: reference_fresh (fold_reset=fresh"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

// markWarmUp rewrites a record as having selected a warm-up model.
func (f *fixture) markWarmUp(dataset, variant string, fold int) {
	f.t.Helper()
	for _, c := range f.grid.Cells {
		if c.Dataset == dataset && c.Variant == variant && c.Fold == fold {
			r, err := f.store.Read(c.Key)
			if err != nil {
				f.t.Fatal(err)
			}
			r.SelectedWarmUp = true
			if err := f.store.Write(r); err != nil {
				f.t.Fatal(err)
			}
		}
	}
}
