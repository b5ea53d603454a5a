package reproduction

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/softshape"
)

// TestPlanMoreSeeds: the plan holds every table under every preset with
// seed 42, and Tables 3, 6 and 5 (Plan's order) under reference_fresh with
// seeds 0 and 1 besides: Table 3, 6 datasets × 6 settings × 5 folds × 2
// seeds = 360 runs; Table 6, 6 datasets × 6 settings (L = 1 … 6) × 5 folds
// × 2 seeds = 360 runs; Table 5, 6 datasets × 5 settings (q = 1, 2, 3, 4,
// m) × 5 folds × 2 seeds = 300 runs; none of seed 42.
func TestPlanMoreSeeds(t *testing.T) {
	want := []struct {
		table string
		runs  int
	}{{"sparse_ratio", 360}, {"depth_L", 360}, {"stride_q", 300}}
	plan := Plan()
	if n := len(Tables)*len(Presets) + len(want) + len(Table1Items()); len(plan) != n {
		t.Fatalf("%d planned items, want %d", len(plan), n)
	}
	var extra []Item
	for _, it := range plan {
		if it.Extra() {
			extra = append(extra, it)
			continue
		}
		if !slices.Equal(it.Seeds, []int64{42}) {
			t.Errorf("%s under %s: seeds %v, want [42]", it.Table, it.Preset, it.Seeds)
		}
	}
	if len(extra) != len(want) {
		t.Fatalf("items of more seeds %+v, want Tables 3, 6 and 5 under reference_fresh", extra)
	}
	for i, w := range want {
		it := extra[i]
		if it.Table != w.table || it.Preset != softshape.ProtocolReferenceFresh || !slices.Equal(it.Seeds, []int64{0, 1}) {
			t.Fatalf("item of more seeds %d: %+v, want %s under reference_fresh, seeds 0 and 1", i, it, w.table)
		}
		g, err := it.Grid()
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Cells) != w.runs {
			t.Errorf("%s, seeds 0 and 1: %d runs planned, want %d", w.table, len(g.Cells), w.runs)
		}
		for _, c := range g.Cells {
			if c.Seed == 42 {
				t.Fatalf("the grid of more seeds plans seed 42: %+v", c.Key)
			}
		}
	}
}

// TestMoreSeedsKeepSeed42 builds a reference_fresh store by hand: the
// committed seed-42 runs of Table 3 on GunPoint at 50% and 90%, then runs
// of seeds 0 and 1 with chosen accuracies. The seed-42 row of the status
// table and its table do not change when the other seeds are recorded; the
// row of seeds 0 and 1 counts their runs and time alone, and its difference
// from 50% pools the three seeds, with the standard error between seeds of
// the three per-seed mean differences (sd/√3, computed here by hand).
func TestMoreSeedsKeepSeed42(t *testing.T) {
	const (
		table  = "sparse_ratio"
		preset = softshape.ProtocolReferenceFresh
		ds     = "GunPoint"
	)
	committed, store, dir, grid42 := seedStore(t, table, preset)
	// The committed seed-42 runs, and their mean difference 90% − 50%.
	acc42 := map[string]map[int]float64{}
	for _, r := range copyRecords(t, committed, store, grid42, func(c sweep.Cell) bool {
		return c.Dataset == ds && (c.Variant == "50%" || c.Variant == "90%")
	}) {
		if acc42[r.Variant] == nil {
			acc42[r.Variant] = map[int]float64{}
		}
		acc42[r.Variant][r.Fold] = float64(r.TestAccuracy)
	}
	mean42 := 0.0
	for fold := 1; fold <= sweep.NumFolds; fold++ {
		mean42 += (acc42["90%"][fold] - acc42["50%"][fold]) / sweep.NumFolds
	}

	before, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	row42 := statusRow(t, before, table+" "+preset, "| Table 3: sparse ratio 1−η | "+preset+" |")
	if e := entryOf(t, before, table, preset, false); e.Recorded != 10 || e.Expected != 180 {
		t.Fatalf("seed 42 alone: %d of %d runs, want 10 of 180", e.Recorded, e.Expected)
	}
	if e := entryOf(t, before, table, preset, true); e.Recorded != 0 || e.Built != nil || runsCell(e) != "not started: 0 of 360" {
		t.Errorf("seeds 0, 1 before their runs: %d recorded, runs %q; want none, \"not started: 0 of 360\"", e.Recorded, runsCell(e))
	}

	// Seeds 0 and 1: 50% at 0.9 on every fold, 90% 2 pp above it for seed 0
	// and 4 pp below for seed 1; 100 s of training per run.
	more := MoreSeeds()[0]
	gridMore, err := more.Grid()
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SaveGrid(gridMore); err != nil {
		t.Fatal(err)
	}
	diff := map[int64]float64{0: 0.02, 1: -0.04}
	now := time.Now().UTC()
	for _, c := range gridMore.Cells {
		if c.Dataset != ds || (c.Variant != "50%" && c.Variant != "90%") {
			continue
		}
		acc := 0.9
		if c.Variant == "90%" {
			acc += diff[c.Seed]
		}
		r := &sweep.Record{Schema: sweep.SchemaVersion, Table: c.Table, Dataset: c.Dataset, Variant: c.Variant, Fold: c.Fold, Seed: c.Seed,
			Hash: c.Hash, Mode: "full", Status: sweep.StatusOK, TestAccuracy: sweep.Float(acc), ValLoss: 0.1, EpochsRun: 500, Params: 10,
			WallSeconds: 100, Backend: "test", Config: c.Config.String(), Protocol: preset, Started: now, Finished: now, Hostname: "h", PID: 1}
		if err := store.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	after, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}

	// Seed 42's row and table are those of seed 42 alone.
	if got := statusRow(t, after, table+" "+preset, "| Table 3: sparse ratio 1−η | "+preset+" |"); got != row42 {
		t.Errorf("the seed-42 row changed with the runs of seeds 0 and 1:\nbefore %s\nafter  %s", row42, got)
	}
	e42 := entryOf(t, after, table, preset, false)
	if e42.Recorded != 10 || e42.Expected != 180 || !slices.Equal(e42.Built.Seeds, []int64{42}) {
		t.Errorf("seed 42 with other seeds recorded: %d of %d runs, table seeds %v; want 10 of 180, [42]", e42.Recorded, e42.Expected, e42.Built.Seeds)
	}
	if d, _ := e42.Built.Between("90%", "50%"); d.Seeds != 1 || d.N != 5 || math.Abs(d.Mean-mean42) > 1e-9 {
		t.Errorf("seed 42's 90%% − 50%%: %+v, want 5 pairs of one seed, mean %.6f", d, mean42)
	}

	// The row of seeds 0 and 1: their runs and time alone.
	e := entryOf(t, after, table, preset, true)
	if e.Recorded != 20 || e.Expected != 360 || e.WallSeconds != 2000 {
		t.Errorf("seeds 0, 1: %d of %d runs, %v s; want 20 of 360, 2000 s", e.Recorded, e.Expected, e.WallSeconds)
	}
	row := statusRow(t, after, "seeds 0, 1", "| Table 3: sparse ratio 1−η, seeds 0, 1 | "+preset+" | **20 of 360 (partial)** | 0.56 h | partial (20 of 360 runs): ")
	// Its difference pools the three seeds; the standard error between
	// seeds is that of the three per-seed means, sd/√3.
	d, ok := e.Built.Between("90%", "50%")
	means := []float64{mean42, 0.02, -0.04}
	m := (means[0] + means[1] + means[2]) / 3
	ss := 0.0
	for _, x := range means {
		ss += (x - m) * (x - m)
	}
	seedSE := math.Sqrt(ss/2) / math.Sqrt(3)
	if !ok || d.N != 15 || d.Seeds != 3 || math.Abs(d.Mean-m) > 1e-6 || math.Abs(d.SeedSE-seedSE) > 1e-6 {
		t.Errorf("seeds 42, 0, 1: 90%% − 50%% = %+v; want 15 pairs of 3 seeds, mean %.6f, SE between seeds %.6f", d, m, seedSE)
	}
	if want := fmt.Sprintf("(between seeds ± %.2f pp, 3 seeds)", 100*seedSE); !strings.Contains(row, want) {
		t.Errorf("the row of seeds 0, 1 does not give the SE between seeds %q:\n%s", want, row)
	}
	block, err := Render(after)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(block, "#### "+preset+", seeds 42, 0, 1\n") ||
		!strings.Contains(block, fmt.Sprintf("| 90%% | %+.4f ± %.4f (n=15) | ± %.4f (3 seeds) |", d.Mean, d.SE, seedSE)) {
		t.Errorf("the results block has no section of seeds 42, 0, 1 with the SE between seeds of 90%%:\n%s", block)
	}
	// The leak and fold 1 pair seed-42 runs only.
	if strings.Count(block, "#### "+preset+"\n") != 1 {
		t.Errorf("the seed-42 section of %s under %s is not there once", table, preset)
	}
}

// entryOf is the entry of table under preset, of more seeds or of seed 42.
func entryOf(t *testing.T, entries []Entry, table, preset string, extra bool) Entry {
	t.Helper()
	for _, e := range entries {
		if e.Table == table && e.Preset == preset && e.Extra() == extra {
			return e
		}
	}
	t.Fatalf("no entry of %s under %s (more seeds: %v)", table, preset, extra)
	return Entry{}
}

// statusRow is the one line of the status table that starts with prefix.
func statusRow(t *testing.T, entries []Entry, what, prefix string) string {
	t.Helper()
	var rows []string
	for _, l := range strings.Split(RenderStatus(entries), "\n") {
		if strings.HasPrefix(l, prefix) {
			rows = append(rows, l)
		}
	}
	if len(rows) != 1 {
		t.Fatalf("%d status rows of %s starting %q, want 1:\n%s", len(rows), what, prefix, RenderStatus(entries))
	}
	return rows[0]
}

// TestMoreSeedsExpectPlannedRuns: a reference_fresh store holding the
// committed seed-42 runs of Table 3 on Trace and GunPoint, and runs of seeds
// 0 and 1 on GunPoint alone, whose sweep recorded a grid of GunPoint only.
// The table pooling seeds 42, 0 and 1 expects the planned runs of seeds 0
// and 1 on every dataset all the same: Trace, without them, shows 5 of its
// 15 runs per setting and stays out of the summary; GunPoint, with all 15,
// is in it.
func TestMoreSeedsExpectPlannedRuns(t *testing.T) {
	const (
		table  = "sparse_ratio"
		preset = softshape.ProtocolReferenceFresh
	)
	committed, store, dir, grid42 := seedStore(t, table, preset)
	copyRecords(t, committed, store, grid42, func(c sweep.Cell) bool { return c.Dataset == "Trace" || c.Dataset == "GunPoint" })
	more := MoreSeeds()[0]
	spec := sweep.GridSpec{Table: table, Datasets: []string{"GunPoint"}, Folds: []int{1, 2, 3, 4, 5}, Seeds: more.Seeds,
		Settings: softshape.ParamProtocol + "=" + preset}
	gunPoint, err := sweep.NewGrid(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SaveGrid(gunPoint); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	for _, c := range gunPoint.Cells {
		r := &sweep.Record{Schema: sweep.SchemaVersion, Table: c.Table, Dataset: c.Dataset, Variant: c.Variant, Fold: c.Fold, Seed: c.Seed,
			Hash: c.Hash, Mode: "full", Status: sweep.StatusOK, TestAccuracy: 0.9, ValLoss: 0.1, EpochsRun: 500, Params: 10,
			WallSeconds: 100, Backend: "test", Config: c.Config.String(), Protocol: preset, Started: now, Finished: now, Hostname: "h", PID: 1}
		if err := store.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	e, err := LoadItem(dir, more)
	if err != nil {
		t.Fatal(err)
	}
	if e.Recorded != len(gunPoint.Cells) || e.Expected != 360 || !slices.Equal(e.DatasetsDone, []string{"GunPoint"}) {
		t.Errorf("seeds 0, 1: %d of %d runs, done %v; want %d of 360, GunPoint done", e.Recorded, e.Expected, e.DatasetsDone, len(gunPoint.Cells))
	}
	tb := e.Built
	if !slices.Equal(tb.Planned, []string{mustGrid(t, more).ID()}) || slices.Contains(tb.Grids, mustGrid(t, more).ID()) {
		t.Errorf("grids %v, planned %v: the planned grid of seeds 0, 1 must be planned, not recorded", tb.Grids, tb.Planned)
	}
	want := map[string]int{"Trace": 5, "GunPoint": 15}
	for _, r := range tb.Rows {
		for j, c := range tb.Columns {
			if c.Kind != tables.Ours {
				continue
			}
			if v := r.Ours[j]; v.Expected != 15 || v.Runs != want[r.Dataset] {
				t.Errorf("%s %s: %d of %d runs, want %d of 15", r.Dataset, c.Name, v.Runs, v.Expected, want[r.Dataset])
			}
		}
	}
	if !slices.Equal(tb.Summary.Datasets, []string{"GunPoint"}) {
		t.Errorf("the summary of seeds 42, 0, 1 is over %v, want GunPoint alone (Trace lacks seeds 0, 1)", tb.Summary.Datasets)
	}
}

// mustGrid is the full grid of an item.
func mustGrid(t *testing.T, it Item) *sweep.Grid {
	t.Helper()
	g, err := it.Grid()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestMoreSeedsIntro: the pooled section's opening line claims numbers over
// every seed only once every run is in; before, it says what the partial
// numbers average.
func TestMoreSeedsIntro(t *testing.T) {
	e := Entry{Table: "sparse_ratio", Preset: "reference_fresh", Seeds: []int64{0, 1}, Expected: 360, Recorded: 9}
	partial := moreSeedsIntro(e)
	for _, want := range []string{"(9 of 360 recorded so far)", "complete for seeds 42, 0, 1", "marked n/m"} {
		if !strings.Contains(partial, want) {
			t.Errorf("partial: no %q in %q", want, partial)
		}
	}
	if strings.Contains(partial, "every number below is over") {
		t.Errorf("partial, yet claims every number over all seeds: %q", partial)
	}
	e.Recorded = 360
	if got := moreSeedsIntro(e); !strings.Contains(got, "(360 of 360 recorded) pooled with those of seed 42: every number below is over seeds 42, 0, 1") {
		t.Errorf("complete: %q", got)
	}
}

// TestMoreSeedsSummaryPartial: the notebooks' section of more seeds says
// why its preset alone has it, and labels its numbers partial, with the
// line docs/reproduction.md gives them, until every run is in, and drops
// the label then.
func TestMoreSeedsSummaryPartial(t *testing.T) {
	e := Entry{Table: "sparse_ratio", Preset: "reference_fresh", Seeds: []int64{0, 1}, Expected: 360, Recorded: 166, Built: &tables.Table{}}
	md, err := MoreSeedsSummary(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**Partial: 166 of 360 runs recorded. Not a reproduction of this table yet;**",
		"Only `reference_fresh`, the preset to report, has runs of more seeds"} {
		if !strings.Contains(md, want) {
			t.Errorf("partial entry: no %q in\n%s", want, md)
		}
	}
	e.Recorded = 360
	if md, err = MoreSeedsSummary(e); err != nil {
		t.Fatal(err)
	} else if strings.Contains(md, "Partial") {
		t.Errorf("complete entry labelled partial:\n%s", md)
	}
}

// seedStore opens the committed results of preset and a new store in a
// temporary repository folder dir holding the planned seed-42 grid of table
// (grid42), to copy committed records into.
func seedStore(t *testing.T, table, preset string) (committed, store *sweep.Store, dir string, grid42 *sweep.Grid) {
	t.Helper()
	committed, err := sweep.Open(ResultsDir(".", preset))
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if store, err = sweep.Open(ResultsDir(dir, preset)); err != nil {
		t.Fatal(err)
	}
	if grid42, err = PlannedGrid(table, preset); err != nil {
		t.Fatal(err)
	}
	if err := store.SaveGrid(grid42); err != nil {
		t.Fatal(err)
	}
	return committed, store, dir, grid42
}

// copyRecords copies into store the committed records of grid's cells that
// keep accepts, and returns them.
func copyRecords(t *testing.T, committed, store *sweep.Store, grid *sweep.Grid, keep func(sweep.Cell) bool) []*sweep.Record {
	t.Helper()
	var out []*sweep.Record
	for _, c := range grid.Cells {
		if !keep(c) {
			continue
		}
		r, err := committed.Read(c.Key)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Write(r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}
