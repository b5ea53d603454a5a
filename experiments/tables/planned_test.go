package tables

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/sweep"
)

// TestPlannedSeedsExpected: a table pooling seeds 42, 0 and 1 where the
// sweep of seeds 0 and 1 has recorded its grid and runs on GunPoint alone,
// while Trace has only its seed-42 runs. Built from the recorded grids,
// Trace passes for complete; with the planned grid of seeds 0 and 1 on both
// datasets, Trace's cells count 2 of their 6 runs, its 4 missing runs of
// seeds 0 and 1 are listed, and the summary covers GunPoint alone.
func TestPlannedSeedsExpected(t *testing.T) {
	spec := sweep.GridSpec{Table: "sparse_ratio", Datasets: []string{"GunPoint", "Trace"}, Variants: []string{"10%", "50%"},
		Folds: []int{1, 2}, Seeds: []int64{42}}
	f := newFixture(t, spec)
	grid42 := f.grid
	for _, ds := range spec.Datasets {
		for fold := 1; fold <= 2; fold++ {
			f.put(ds, "10%", fold, sweep.StatusOK, 0.8, 0.1)
			f.put(ds, "50%", fold, sweep.StatusOK, 0.9, 0.1)
		}
	}
	// The sweep of seeds 0 and 1, started on GunPoint only.
	more := spec
	more.Datasets, more.Seeds = []string{"GunPoint"}, []int64{0, 1}
	gunPoint, err := sweep.NewGrid(more)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.SaveGrid(gunPoint); err != nil {
		t.Fatal(err)
	}
	f.grid = gunPoint
	for _, seed := range more.Seeds {
		for fold := 1; fold <= 2; fold++ {
			f.putSeed("GunPoint", "10%", fold, seed, sweep.StatusOK, 0.85, 0.1)
			f.putSeed("GunPoint", "50%", fold, seed, sweep.StatusOK, 0.9, 0.1)
		}
	}
	// The plan: seeds 0 and 1 on both datasets; its grid is not on disk.
	more.Datasets = spec.Datasets
	planned, err := sweep.NewGrid(more)
	if err != nil {
		t.Fatal(err)
	}

	pooled := []int64{42, 0, 1}
	recorded, err := Build(f.store, "sparse_ratio", Options{Seeds: pooled})
	if err != nil {
		t.Fatal(err)
	}
	if v := valueOf(t, recorded, "Trace", "50%"); !v.Complete() {
		t.Fatalf("from the recorded grids, Trace's 50%% is %d of %d runs: the premise of this test (Trace passes for complete) does not hold", v.Runs, v.Expected)
	}

	tb, err := Build(f.store, "sparse_ratio", Options{Seeds: pooled, Planned: []*sweep.Grid{grid42, planned}})
	if err != nil {
		t.Fatal(err)
	}
	wantGrids := []string{grid42.ID(), gunPoint.ID()}
	slices.Sort(wantGrids)
	if !slices.Equal(tb.Grids, wantGrids) || !slices.Equal(tb.Planned, []string{planned.ID()}) {
		t.Errorf("grids %v, planned %v; want the recorded %v and the planned %s alone", tb.Grids, tb.Planned, wantGrids, planned.ID())
	}
	if !slices.Equal(tb.Seeds, []int64{0, 1, 42}) {
		t.Errorf("seeds %v, want [0 1 42]", tb.Seeds)
	}
	for _, c := range []struct {
		ds         string
		runs, want int
	}{{"GunPoint", 6, 6}, {"Trace", 2, 6}} {
		for _, variant := range []string{"10%", "50%"} {
			if v := valueOf(t, tb, c.ds, variant); v.Runs != c.runs || v.Expected != c.want {
				t.Errorf("%s %s: %d of %d runs, want %d of %d", c.ds, variant, v.Runs, v.Expected, c.runs, c.want)
			}
		}
	}
	var missing []string
	for _, m := range tb.Missing {
		if m.Key.Dataset != "Trace" || m.Key.Seed == 42 {
			t.Errorf("missing run %+v: only Trace's seeds 0 and 1 are missing", m.Key)
		}
		missing = append(missing, m.Key.Variant)
	}
	if len(missing) != 8 {
		t.Errorf("%d missing runs, want 8 (Trace: 2 variants × 2 folds × seeds 0, 1)", len(missing))
	}
	if s := tb.Summary; !slices.Equal(s.Datasets, []string{"GunPoint"}) || len(s.Excluded) != 1 || !strings.HasPrefix(s.Excluded[0], "Trace: ") {
		t.Errorf("summary over %v, left out %v; want GunPoint, Trace left out", s.Datasets, s.Excluded)
	}
	var md bytes.Buffer
	if err := tb.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	var trace string
	for _, l := range strings.Split(md.String(), "\n") {
		if strings.HasPrefix(l, "| Trace |") {
			trace = l
		}
	}
	if !strings.Contains(trace, "| 0.8000 (2/6) |") || !strings.Contains(trace, "| 0.9000 (2/6) |") {
		t.Errorf("the Markdown's row of Trace does not mark its cells (2/6): %q", trace)
	}
	if !strings.Contains(md.String(), "planned grid "+planned.ID()+", not recorded") {
		t.Errorf("the Markdown does not name the planned grid %s:\n%s", planned.ID(), md.String())
	}
}

// valueOf is our value of a dataset and column.
func valueOf(t *testing.T, tb *Table, dataset, column string) Value {
	t.Helper()
	j := colIndex(tb, column)
	for _, r := range tb.Rows {
		if r.Dataset == dataset && j >= 0 {
			return r.Ours[j]
		}
	}
	t.Fatalf("no value of %s, %s", dataset, column)
	return Value{}
}
