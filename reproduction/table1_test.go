package reproduction

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/softshape-go/softshape/experiments/baseline"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/softshape"
)

// writeTable1Runs records, as Table 1's sweeps do (one grid per dataset),
// the given folds of datasets under preset in dir, every fold with test
// accuracy acc[dataset].
func writeTable1Runs(t *testing.T, dir, preset string, acc map[string]float32, folds map[string]int) {
	t.Helper()
	store, err := sweep.Open(ResultsDir(dir, preset))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	for ds, a := range acc {
		grid, err := sweep.NewGrid(sweep.GridSpec{Table: Table1, Datasets: []string{ds}, Folds: []int{1, 2, 3, 4, 5}, Seeds: Seeds,
			Settings: softshape.ParamProtocol + "=" + preset})
		if err != nil {
			t.Fatal(err)
		}
		if err := store.SaveGrid(grid); err != nil {
			t.Fatal(err)
		}
		for _, c := range grid.Cells {
			if c.Fold > folds[ds] {
				continue
			}
			r := &sweep.Record{Schema: sweep.SchemaVersion, Table: c.Table, Dataset: c.Dataset, Variant: c.Variant, Fold: c.Fold, Seed: c.Seed,
				Hash: c.Hash, Mode: "full", Status: sweep.StatusOK, TestAccuracy: sweep.Float(a), ValLoss: 0.1, EpochsRun: 200, Params: 10,
				WallSeconds: 10, Backend: "test", Config: c.Config.String(), Protocol: preset, Started: now, Finished: now, Hostname: "h", PID: 1}
			if err := store.Write(r); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestTable1Headline: a hand-made store of Table 1's runs. Under
// reference_compat ours scores 1 on every fold of SmoothSubspace, ECG200,
// BirdChicken and GunPoint (complete) and of 2 folds of BME; under
// reference_fresh 0.5, 0.25 and 0.625 on the first three. Hand-checked:
// the leak per dataset is 0.5, 0.75, 0.375 (GunPoint and BME are not
// complete under both), mean 0.541667, sample sd 0.190941, SE 0.110240;
// ours ranks first under reference_compat (above every baseline's figure on
// the four datasets: the paper's best are 0.99, 0.945, 0.9833 and 1 on
// GunPoint, a tie that shares the first place) and last of 18 under
// reference_fresh (below every baseline's figure: the lowest are 0.8567,
// 0.79 and 0.675), behind each of the top three beyond 2 SE.
func TestTable1Headline(t *testing.T) {
	dir := t.TempDir()
	compat, fresh := Presets[0], Presets[1]
	writeTable1Runs(t, dir, compat, map[string]float32{"SmoothSubspace": 1, "ECG200": 1, "BirdChicken": 1, "GunPoint": 1, "BME": 1},
		map[string]int{"SmoothSubspace": 5, "ECG200": 5, "BirdChicken": 5, "GunPoint": 5, "BME": 2})
	writeTable1Runs(t, dir, fresh, map[string]float32{"SmoothSubspace": 0.5, "ECG200": 0.25, "BirdChicken": 0.625},
		map[string]int{"SmoothSubspace": 5, "ECG200": 5, "BirdChicken": 5})
	entries, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHeadline(entries)
	if err != nil {
		t.Fatal(err)
	}
	if e := h.Entries[0]; e.Recorded != 22 || e.Expected != 310 || !slices.Equal(e.DatasetsDone, []string{"SmoothSubspace", "ECG200", "BirdChicken", "GunPoint"}) {
		t.Errorf("reference_compat: %d of %d runs, datasets complete %v; want 22 of 310, SmoothSubspace, ECG200, BirdChicken, GunPoint", e.Recorded, e.Expected, e.DatasetsDone)
	}
	wantLabel := "**PARTIAL: 4 of 62 datasets under reference_compat (22 of 310 runs); 3 of 62 datasets under reference_fresh (15 of 310 runs)."
	if !strings.HasPrefix(h.PartialLabel(), wantLabel) {
		t.Errorf("partial label %q, want it to start %q", h.PartialLabel(), wantLabel)
	}
	var leak []float64
	for _, p := range h.Leak {
		leak = append(leak, p.Diff)
	}
	if !slices.Equal(leak, []float64{0.5, 0.75, 0.375}) || math.Abs(h.LeakMean.Mean-0.541667) > 1e-6 || math.Abs(h.LeakMean.SE-0.110240) > 1e-6 {
		t.Errorf("leak %v, mean %v ± %v; want 0.5, 0.75, 0.375, mean 0.541667 ± 0.110240", leak, h.LeakMean.Mean, h.LeakMean.SE)
	}
	vs := h.Verdicts()
	if len(vs) != 2 {
		t.Fatalf("%d verdicts, want one per preset", len(vs))
	}
	if v := vs[0]; v.Preset != compat || v.Rank != 1 || v.Methods != 18 || v.Datasets != 4 || v.AvgRank != 1 || len(v.Leads) != 3 {
		t.Errorf("reference_compat verdict %+v, want 1st of 18 methods, Avg. Rank 1, over 4 datasets, three leads", v)
	}
	if v := vs[1]; v.Preset != fresh || v.Rank != 18 || v.Datasets != 3 || v.AvgRank != 18 || len(v.Leads) != 3 {
		t.Errorf("reference_fresh verdict %+v, want 18th of 18, Avg. Rank 18, over 3 datasets", v)
	} else {
		for _, d := range v.Leads {
			if d.Trend() != -1 || d.N != 3 {
				t.Errorf("reference_fresh, ours − %s = %v over %d datasets: want behind beyond 2 SE over 3", d.Column, d, d.N)
			}
		}
		if s := v.String(); !strings.HasPrefix(s, "SoftShape ranks 18th of 18 methods (Avg. Rank 18.00) on 3 dataset(s)") || strings.Count(s, "behind beyond 2 SE") != 3 {
			t.Errorf("verdict line %q", s)
		}
	}
	if s := h.Summaries[1]; s == nil || math.Abs(s.AvgAcc[slices.Index(s.Methods, "SoftShape")]-1.375/3) > 1e-9 {
		t.Errorf("reference_fresh summary %+v: want ours' Avg. Acc (0.5+0.25+0.625)/3", s)
	}
	var md strings.Builder
	if err := h.Markdown(&md, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{wantLabel, "+54.17 ± 11.02 pp", "| BME | 1.0000 (2/5) | — | — |", "| ECG200 | 1.0000 | 0.2500 | +0.7500 |",
		"**The 17 baselines are the paper's printed numbers**", "No run yet (57): ItalyPowerDemand, UMD, Beef, OliveOil, "} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Table 1 section lacks %q:\n%s", want, md.String())
		}
	}
	// A baseline trained on the same folds joins as one more column when it
	// holds every dataset of a preset's summary (MiniRocket: 19 methods over
	// the same datasets); one still being run (MultiRocket-Hydra: 2 of them)
	// sits out of the ranking, said so, rather than shrinking the summary.
	all := map[string]float64{"SmoothSubspace": 1, "ECG200": 1, "BirdChicken": 1, "GunPoint": 1}
	hs, err := NewHeadline(entries,
		SameFold{Name: MiniRocketSameFold, Acc: all, FoldCPU: map[string]float64{"ECG200": 0.5}, Processors: []string{"test CPU"}},
		SameFold{Name: MultiRocketHydraSameFold, Acc: map[string]float64{"SmoothSubspace": 0.75, "ECG200": 0.5}, FoldCPU: map[string]float64{}})
	if err != nil {
		t.Fatal(err)
	}
	if s := hs.Summaries[0]; s == nil || len(s.Methods) != 19 || s.Methods[18] != MiniRocketSameFold || !slices.Equal(hs.SummaryDatasets[0], h.SummaryDatasets[0]) {
		t.Errorf("with same-fold columns: summary %+v over %v, want 19 methods (MiniRocket last) over %v", s, hs.SummaryDatasets[0], h.SummaryDatasets[0])
	} else if v := hs.Verdicts()[0]; v.Rank != 1 || v.Methods != 19 || v.Datasets != 4 || len(v.SameFold) != 1 || v.SameFold[0].Column != MiniRocketSameFold || v.SameFold[0].Mean != 0 ||
		slices.ContainsFunc(v.Leads, func(d tables.Difference) bool { return d.Column == MiniRocketSameFold }) {
		t.Errorf("with same-fold columns: verdict %+v, want 1st of 19 over 4 datasets, tied with MiniRocket (difference 0) in its own clause, not among the printed baselines", v)
	}
	if !slices.Equal(hs.Unranked[0], []string{"MultiRocket-Hydra (same folds) has 2 of these 4 datasets so far"}) ||
		!slices.Equal(hs.Unranked[1], []string{"MultiRocket-Hydra (same folds) has 2 of these 3 datasets so far"}) {
		t.Errorf("unranked %q, want MultiRocket-Hydra's 2 of 4 and 2 of 3", hs.Unranked)
	}
	md.Reset()
	if err := hs.Markdown(&md, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| ECG200 | 1.0000 | 0.2500 | +0.7500 | 1.0000 | 0.5000 | 0.9475 |", "| GunPoint | 1.0000 | — | — | 1.0000 | — |",
		"| MiniRocket (same folds) |", "| MultiRocket-Hydra (same folds) |",
		"; not ranked yet: MultiRocket-Hydra (same folds) has 2 of these 4 datasets so far.\n",
		"Not ranked yet, still being run: MultiRocket-Hydra (same folds) has 2 of these 3 datasets so far;"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("with same-fold columns, the section lacks %q:\n%s", want, md.String())
		}
	}
	// Time per fold: every run took 10 s; MiniRocket's 0.5 s on ECG200 makes
	// 20×; BME has no run under reference_fresh, so no row.
	for _, want := range []string{"| ECG200 | 10.0 (5) | 10.0 (5) | 0.50 | 20× | — | — |", "| SmoothSubspace | 10.0 (5) | 10.0 (5) | — | — | — | — |", "seed 42, on test CPU"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("time per fold lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "| BME | 10.0") {
		t.Errorf("time per fold shows BME, which has no run under %s", fresh)
	}
	// The runs name no processor, so none of the three timed datasets is
	// known to share MiniRocket's; once ECG200's runs under both presets
	// name MiniRocket's, only the other two are left.
	if want := "Ours trained on another processor than the same-fold columns for 3 of these datasets, so their ratios compare two machines as well: " +
		"processor not recorded: BirdChicken, ECG200, SmoothSubspace."; !strings.Contains(md.String(), want) {
		t.Errorf("time per fold lacks %q:\n%s", want, md.String())
	}
	for _, preset := range []string{compat, fresh} {
		store, err := sweep.Open(ResultsDir(dir, preset))
		if err != nil {
			t.Fatal(err)
		}
		grid, err := PlannedGrid(Table1, preset)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range grid.Cells {
			if c.Dataset != "ECG200" {
				continue
			}
			rec, err := store.Read(c.Key)
			if err != nil {
				t.Fatal(err)
			}
			rec.CPU = "test CPU, 1 of 2 cores"
			if err := store.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	if entries, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	if hs, err = NewHeadline(entries, hs.SameFold...); err != nil {
		t.Fatal(err)
	}
	md.Reset()
	if err := hs.Markdown(&md, nil); err != nil {
		t.Fatal(err)
	}
	if want := "for 2 of these datasets, so their ratios compare two machines as well: processor not recorded: BirdChicken, SmoothSubspace."; !strings.Contains(md.String(), want) {
		t.Errorf("with ECG200's runs on MiniRocket's processor, time per fold lacks %q:\n%s", want, md.String())
	}
	// One CD diagram per preset: both have at least 3 complete datasets.
	figs := Table1Figures(entries)
	if len(figs) != 2 {
		t.Fatalf("%d CD diagrams, want one per preset", len(figs))
	}
	for _, f := range figs {
		if !IsFigureFile(f.Name) || !strings.HasPrefix(f.Name, Table1CD+"-"+f.Preset+"-") {
			t.Errorf("figure name %q", f.Name)
		}
		if _, err := f.Draw(); err != nil {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
	// The LightTS/Shapeformer table is read from the same runs: GunPoint
	// under reference_compat, nothing under reference_fresh.
	for _, e := range entries {
		if e.Table != LightTSShapeformer {
			continue
		}
		switch e.Preset {
		case compat:
			if e.Recorded != 5 || e.Expected != 70 || e.WallSeconds != 0 || e.Built == nil || len(e.Built.Rows) != 1 || e.Built.Rows[0].Dataset != "GunPoint" {
				t.Fatalf("lightts_shapeformer under %s: %d of %d runs, wall %v, table %+v; want GunPoint's 5 of 70, timed in Table 1", compat, e.Recorded, e.Expected, e.WallSeconds, e.Built)
			}
			r := e.Built.Rows[0]
			for j, c := range e.Built.Columns {
				if c.Kind == tables.Ours && (r.Ours[j].Acc != 1 || !r.Ours[j].Complete()) || math.IsNaN(r.Paper[j]) {
					t.Errorf("lightts_shapeformer, GunPoint, %s: ours %+v, paper %v", c.Name, r.Ours[j], r.Paper[j])
				}
			}
		case fresh:
			if e.Recorded != 0 || e.Built != nil {
				t.Errorf("lightts_shapeformer under %s: %d runs, want none", fresh, e.Recorded)
			}
		}
	}
	// Fold 1 is the same computation under both presets: the check of the
	// runs pairs Table 1's too (these made-up accuracies differ).
	pairs, _ := Fold1Pairs(entries)
	var table1Pairs []string
	for _, p := range pairs {
		if p.Table == Table1 && !p.Same() {
			table1Pairs = append(table1Pairs, p.Compat.Dataset)
		}
	}
	slices.Sort(table1Pairs)
	if !slices.Equal(table1Pairs, []string{"BirdChicken", "ECG200", "SmoothSubspace"}) {
		t.Errorf("Table 1's fold-1 pairs that differ: %v, want SmoothSubspace, ECG200, BirdChicken", table1Pairs)
	}
	status := RenderStatus(entries)
	if !strings.Contains(status, "| "+compat+" | **22 of 310 (partial)**, 4 of 62 datasets | 0.06 h | partial (22 of 310 runs): SoftShape ranks 1st of 18") {
		t.Errorf("no status row of Table 1 with 4 of 62 datasets:\n%s", status)
	}
	m := NewManifest(entries, "", "")
	for _, me := range m.Entries {
		switch me.Table {
		case Table1:
			if len(me.Datasets) != len(Table1Datasets) || me.RunsOf != "" || me.Complete {
				t.Errorf("manifest entry of Table 1: %+v", me)
			}
		case LightTSShapeformer:
			if len(me.Datasets) != 14 || me.RunsOf != Table1 {
				t.Errorf("manifest entry of the LightTS/Shapeformer table: %+v", me)
			}
		default:
			if me.Datasets != nil {
				t.Errorf("manifest entry of %s names datasets %v besides the plan's", me.Table, me.Datasets)
			}
		}
	}
}

// TestTable1Plan: 62 datasets, none twice, each in the local archive's
// registry order of the sweeps; the LightTS/Shapeformer table's are the 14 of
// them in the paper's 18.
func TestTable1Plan(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Table1Datasets {
		if seen[d] {
			t.Errorf("%s twice", d)
		}
		seen[d] = true
	}
	if len(seen) != 62 {
		t.Errorf("%d datasets, want 62", len(seen))
	}
	if n := len(PlanDatasets(LightTSShapeformer)); n != 14 {
		t.Errorf("LightTS/Shapeformer: %d datasets, want 14", n)
	}
	for _, it := range Table1Items() {
		g, err := it.Grid()
		if err != nil {
			t.Fatal(err)
		}
		if want := 5 * len(PlanDatasets(it.Table)); len(g.Cells) != want || g.Spec.Table != Table1 {
			t.Errorf("%s under %s: %d cells of table %s, want %d of %s", it.Table, it.Preset, len(g.Cells), g.Spec.Table, want, Table1)
		}
	}
}

// TestOrdinal: the places of the verdicts.
func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 18: "18th", 21: "21st", 22: "22nd"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestSameFoldColumns: the same-fold columns come from the baselines'
// records on SoftShape's folds, one per method with records, in table order
// (MiniRocket, then MultiRocket-Hydra), each dataset's mean over the folds
// of seed 42 alone: another seed's record and a standard-split record are
// not Table 1's.
func TestSameFoldColumns(t *testing.T) {
	dir := t.TempDir()
	save := func(method, protocol, ds string, seed int64, accs ...float64) {
		t.Helper()
		r := &baseline.Record{Method: method, Protocol: protocol, Dataset: ds, Seed: seed, Fit: "train+val", Processor: "test CPU", CPUSeconds: 2 * float64(len(accs))}
		for i, a := range accs {
			r.Folds = append(r.Folds, baseline.FoldResult{Fold: i, TestAccuracy: a})
		}
		if err := baseline.Save(BaselinesDir(dir), r); err != nil {
			t.Fatal(err)
		}
	}
	if cols, err := SameFoldColumns(dir); err != nil || len(cols) != 0 {
		t.Fatalf("no records: %v, %v; want no column", cols, err)
	}
	save(baseline.MultiRocketHydra, baseline.ProtocolFolds, "ECG200", 42, 1, 0.5, 1, 0.5, 1)
	save(baseline.MultiRocketHydra, baseline.ProtocolFolds, "ECG200", 0, 0, 0, 0, 0, 0)
	save(baseline.MultiRocketHydra, baseline.ProtocolStandard, "GunPoint", 42, 0.25)
	save(baseline.MiniRocket, baseline.ProtocolFolds, "GunPoint", 42, 1, 1, 1, 1, 0.75)
	cols, err := SameFoldColumns(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 2 || cols[0].Name != MiniRocketSameFold || cols[1].Name != MultiRocketHydraSameFold {
		t.Fatalf("columns %+v, want MiniRocket then MultiRocket-Hydra", cols)
	}
	if mr := cols[0]; len(mr.Acc) != 1 || mr.Acc["GunPoint"] != 0.95 || mr.FoldCPU["GunPoint"] != 2 || !slices.Equal(mr.Processors, []string{"test CPU"}) {
		t.Errorf("MiniRocket's column %+v, want GunPoint 0.95, 2 s a fold, on test CPU", mr)
	}
	if mrh := cols[1]; len(mrh.Acc) != 1 || mrh.Acc["ECG200"] != 0.8 {
		t.Errorf("MultiRocket-Hydra's column %+v, want ECG200 alone (seed 42, folds), 0.8", mrh)
	}
}
