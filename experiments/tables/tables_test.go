package tables

import (
	"bytes"
	"context"
	"encoding/csv"
	"github.com/softshape-go/softshape/softshape"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/experiments/sweep"
)

// fixture writes records by hand into a store for a grid.
type fixture struct {
	t     *testing.T
	store *sweep.Store
	grid  *sweep.Grid
	// invalidError is the error put records for a run that is not ok
	// (default: a k > Ĉ error).
	invalidError string
}

func newFixture(t *testing.T, spec sweep.GridSpec) *fixture {
	t.Helper()
	s, err := sweep.Open(filepath.Join(t.TempDir(), "results"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := sweep.NewGrid(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveGrid(g); err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, store: s, grid: g}
}

// put writes the record of (dataset, variant, fold) with status, accuracy and
// validation loss, of the grid's first seed.
func (f *fixture) put(dataset, variant string, fold int, status sweep.Status, acc, val float64) {
	f.t.Helper()
	f.putSeed(dataset, variant, fold, -1, status, acc, val)
}

// putSeed is put for one seed of the grid (its first when seed < 0).
func (f *fixture) putSeed(dataset, variant string, fold int, seed int64, status sweep.Status, acc, val float64) {
	f.t.Helper()
	for _, c := range f.grid.Cells {
		if c.Dataset != dataset || c.Variant != variant || c.Fold != fold || (seed >= 0 && c.Seed != seed) {
			continue
		}
		now := time.Now().UTC()
		r := &sweep.Record{Schema: sweep.SchemaVersion, Table: c.Table, Dataset: dataset, Variant: variant, Fold: fold, Seed: c.Seed,
			Quick: c.Quick, Hash: c.Hash, Mode: map[bool]string{true: sweep.QuickLabel, false: "full"}[c.Quick], Status: status,
			TestAccuracy: sweep.Float(acc), ValLoss: sweep.Float(val), BestEpoch: 0, EpochsRun: 1, Params: 1000 + fold,
			WallSeconds: 1, InferenceSeconds: 0.5, Backend: "test", Config: c.Config.String(), Started: now, Finished: now,
			Hostname: "test", PID: 1}
		if status != sweep.StatusOK {
			r.Error, r.TestAccuracy = "k must be ≤ the number of experts", sweep.Float(math.NaN())
			if f.invalidError != "" {
				r.Error = f.invalidError
			}
		}
		if err := f.store.Write(r); err != nil {
			f.t.Fatal(err)
		}
		return
	}
	f.t.Fatalf("no cell %s/%s fold %d seed %d", dataset, variant, fold, seed)
}

// TestSummaryHandChecked builds the experts_k table from hand-made records and
// checks our per-dataset means, the summary rows against values worked out by
// hand, the exclusions and the list of missing runs.
func TestSummaryHandChecked(t *testing.T) {
	f := newFixture(t, sweep.GridSpec{Table: "experts_k", Datasets: []string{"ArrowHead", "CBF", "Trace", "GunPoint", "Fish"},
		Folds: []int{1, 2}, Seeds: []int64{1}, Settings: "embed_dim=16"})
	ok := sweep.StatusOK
	// Fold accuracies; the means are ArrowHead .90 .80 .85 .90, CBF 1 1 1 1, Trace .70 .75 .60 .65.
	vals := map[string][4][2]float64{
		"ArrowHead": {{0.85, 0.95}, {0.8, 0.8}, {0.9, 0.8}, {0.9, 0.9}},
		"CBF":       {{1, 1}, {1, 1}, {1, 1}, {1, 1}},
		"Trace":     {{0.7, 0.7}, {0.75, 0.75}, {0.6, 0.6}, {0.65, 0.65}},
	}
	ks := []string{"k=1", "k=2", "k=3", "k=4"}
	for ds, v := range vals {
		for i, k := range ks {
			f.put(ds, k, 1, ok, v[i][0], 0.1)
			f.put(ds, k, 2, ok, v[i][1], 0.1)
		}
	}
	// GunPoint has two classes: k=3 and k=4 are invalid. Fish misses a run
	// and has a failed one.
	for _, k := range ks {
		for fold := 1; fold <= 2; fold++ {
			switch {
			case k == "k=3" || k == "k=4":
				f.put("GunPoint", k, fold, sweep.StatusInvalid, 0, 0)
			default:
				f.put("GunPoint", k, fold, ok, 0.9, 0.1)
			}
			switch {
			case k == "k=2" && fold == 2:
			case k == "k=3" && fold == 1:
				f.put("Fish", k, fold, sweep.StatusFailed, 0, 0)
			default:
				f.put("Fish", k, fold, ok, 0.9, 0.1)
			}
		}
	}
	tab, err := Build(f.store, "experts_k", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Rows[0].Ours[0]; tab.Rows[0].Dataset != "ArrowHead" || math.Abs(got.Acc-0.9) > 1e-12 || !got.Complete() || tab.Rows[0].Paper[0] != 0.9435 {
		t.Errorf("ArrowHead k=1: %+v, paper %v", got, tab.Rows[0].Paper[0])
	}
	if v := tab.Rows[3].Ours[2]; v.Invalid == "" || v.Runs != 0 {
		t.Errorf("GunPoint k=3: %+v, want invalid", v)
	}
	if v := tab.Rows[4].Ours[1]; v.Runs != 1 || v.Expected != 2 || v.Complete() {
		t.Errorf("Fish k=2: %+v, want 1 of 2 runs", v)
	}
	s := tab.Summary
	if strings.Join(s.Datasets, ",") != "ArrowHead,CBF,Trace" || len(s.Excluded) != 2 {
		t.Fatalf("summary datasets %v, excluded %v", s.Datasets, s.Excluded)
	}
	close := func(name string, got, want []float64) {
		t.Helper()
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-4 {
				t.Errorf("%s = %v, want %v", name, got, want)
				return
			}
		}
	}
	close("ours avg acc", s.Ours.AvgAcc, []float64{2.6 / 3, 2.55 / 3, 2.45 / 3, 2.55 / 3})
	close("ours avg rank", s.Ours.AvgRank, []float64{4.0 / 3, 2, 8.0 / 3, 5.0 / 3})
	// Ties averaged (a CD diagram's ranks): ArrowHead 1.5 4 3 1.5, CBF 2.5
	// each, Trace 2 1 4 3.
	close("ours avg rank, ties averaged", s.Ours.AvgRankTiesAveraged, []float64{6.0 / 3, 7.5 / 3, 9.5 / 3, 7.0 / 3})
	if w := s.Ours.Wins; w[0] != 2 || w[1] != 2 || w[2] != 1 || w[3] != 2 {
		t.Errorf("ours wins %v, want [2 2 1 2]", w)
	}
	// The paper's figures on the same three datasets, worked out by hand.
	close("paper avg acc", s.Paper.AvgAcc, []float64{2.9435 / 3, 2.9324 / 3, 2.9196 / 3, 2.9147 / 3})
	close("paper avg rank", s.Paper.AvgRank, []float64{1, 4.0 / 3, 5.0 / 3, 2})
	if w := s.Paper.Wins; w[0] != 3 || w[1] != 2 || w[2] != 2 || w[3] != 2 {
		t.Errorf("paper wins %v, want [3 2 2 2]", w)
	}
	// p-values against k=1 (the paper's reference).
	p, _ := stats.PaperPValue([]float64{0.9, 1, 0.7}, []float64{0.8, 1, 0.75})
	if math.IsNaN(s.Ours.PaperP[1]) || math.Abs(s.Ours.PaperP[1]-p) > 1e-12 || !math.IsNaN(s.Ours.PaperP[0]) {
		t.Errorf("ours p-values %v, want k=2 %v", s.Ours.PaperP, p)
	}
	// Missing runs: Fish k=2 fold 2 (missing), Fish k=3 fold 1 (failed);
	// GunPoint k=3, k=4 are invalid, listed apart: no sweep can run them.
	for _, c := range []struct {
		name string
		runs []MissingRun
		want map[string]int
	}{
		{"missing", tab.Missing, map[string]int{"Fish/k=2/missing": 1, "Fish/k=3/failed": 1}},
		{"invalid", tab.Invalid, map[string]int{"GunPoint/k=3/invalid": 2, "GunPoint/k=4/invalid": 2}},
	} {
		states := map[string]int{}
		for _, m := range c.runs {
			states[m.Key.Dataset+"/"+m.Key.Variant+"/"+string(m.State)]++
		}
		if !reflect.DeepEqual(states, c.want) {
			t.Errorf("%s %v, want %v", c.name, states, c.want)
		}
	}
	var md bytes.Buffer
	if err := tab.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| ArrowHead | 0.9000 | 0.9435 | -0.0435 |", "| Fish | 0.9000 | 0.9771 | -0.0771 | 0.9000 (1/2) |",
		"| GunPoint | 0.9000 | 0.9900 | -0.0900 | 0.9000 | 0.9850 | -0.0850 | invalid |",
		"| Avg. Rank — ours | 1.33 | 2.00 | 2.67 | 1.67 |", "| Avg. Rank — paper, printed | 1.89 | 1.94 | 2.78 | 2.39 |",
		"| Win — paper, same datasets | 3 | 2 | 2 | 2 |",
		"2 expected run(s) have no ok record (1 failed, 1 missing); `softshape status` lists them too. " +
			"`softshape sweep` runs the missing ones; `softshape sweep -retry-failed` runs the failed ones again.",
		"- Fish · k=2 · seed 1 fold 2 — missing", "Left out of our summary (2)",
		"## Invalid runs (not runnable)\n\n4 expected run(s) are recorded invalid: the dataset rejects their configuration, so no sweep can run them",
		"- GunPoint · k=3 · seed 1 folds 1,2 — not runnable: k must be ≤ the number of experts\n"} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("Markdown lacks %q:\n%s", w, md.String())
		}
	}
	if strings.Contains(md.String(), sweep.QuickLabel) {
		t.Error("a full table carries the quick label")
	}
	// The row of a CD diagram's ranks: only where the table asks, ours only.
	if strings.Contains(md.String(), CDRanksLabel) {
		t.Errorf("a table without CDRanks has the row %q", CDRanksLabel)
	}
	tab.CDRanks = true
	md.Reset()
	if err := tab.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if want := "| " + CDRanksLabel + " — ours | 2.00 | 2.50 | 3.17 | 2.33 |"; !strings.Contains(md.String(), want) ||
		strings.Count(md.String(), CDRanksLabel) != 2 { // the row and the sentence saying what it is
		t.Errorf("with CDRanks: want the row %q once, and no paper row of it:\n%s", want, md.String())
	}
}

// TestValSelectColumn: Table 7's Val-Select is the paper's default run, the
// authors' per-dataset m (the variant SoftShape: in the paper its cells equal
// Table 3's η = 50% cells), beside Fixed-8 and Multi-Seq.
func TestValSelectColumn(t *testing.T) {
	f := newFixture(t, sweep.GridSpec{Table: "shape_length_m", Datasets: []string{"ArrowHead", "ItalyPowerDemand"},
		Folds: []int{1, 2}, Seeds: []int64{1}, Quick: true, Settings: "embed_dim=16"})
	ok := sweep.StatusOK
	for fold := 1; fold <= 2; fold++ {
		f.put("ArrowHead", "SoftShape", fold, ok, 0.7+0.1*float64(fold), 0.1) // 0.8, 0.9
		f.put("ItalyPowerDemand", "SoftShape", fold, ok, 0.97, 0.05)
		f.put("ArrowHead", "Fixed-8", fold, ok, 0.6, 0.3)
		f.put("ItalyPowerDemand", "Fixed-8", fold, ok, 0.9, 0.5)
		f.put("ArrowHead", "Multi-Seq", fold, ok, 0.75, 0.2)
		f.put("ItalyPowerDemand", "Multi-Seq", fold, sweep.StatusInvalid, 0, 0) // m=32 > T=24
	}
	tab, err := Build(f.store, "shape_length_m", Options{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Columns[0].Kind != Ours || tab.Columns[0].Variant != "SoftShape" || tab.Columns[1].Kind != Ours || tab.Columns[2].Kind != Ours {
		t.Fatalf("columns %+v", tab.Columns)
	}
	if v := tab.Rows[0].Ours[0]; math.Abs(v.Acc-0.85) > 1e-12 || v.Runs != 2 {
		t.Errorf("ArrowHead Val-Select %+v, want 0.85 (0.8 and 0.9)", v)
	}
	if v := tab.Rows[1].Ours[0]; math.Abs(v.Acc-0.97) > 1e-12 {
		t.Errorf("ItalyPowerDemand Val-Select %+v, want 0.97", v)
	}
	if v := tab.Rows[0].Ours[2]; math.Abs(v.Acc-0.75) > 1e-12 || v.Runs != 2 {
		t.Errorf("ArrowHead Multi-Seq %+v, want 0.75 over 2 runs", v)
	}
	if len(tab.Missing) != 0 || len(tab.Invalid) != 2 { // Multi-Seq on T=24
		t.Errorf("%d missing, %d invalid; want none missing and the 2 invalid runs", len(tab.Missing), len(tab.Invalid))
	}
	s := tab.Summary
	// p-values compare with the default setting (Val-Select), as the
	// differences do, not with the paper's reference (Multi-Seq).
	if len(s.OursColumns) != 3 || s.FromPaper[2] || s.Ours.Reference != "Val-Select" {
		t.Errorf("ours summary columns %v from paper %v ref %s", s.OursColumns, s.FromPaper, s.Ours.Reference)
	}
	var md, cs bytes.Buffer
	tab.Markdown(&md)
	tab.CSV(&cs)
	for _, w := range []string{"[" + sweep.QuickLabel + "]", "| Multi-Seq paper |", QuickNoStatistics} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("Markdown lacks %q:\n%s", w, md.String())
		}
	}
	// Quick mode: per-dataset numbers only, no statistics of them.
	for _, no := range []string{"## Summary", "Avg. Rank", "Wilcoxon", "## Differences"} {
		if strings.Contains(md.String(), no) {
			t.Errorf("quick-mode Markdown shows %q:\n%s", no, md.String())
		}
	}
	rows, err := csv.NewReader(&cs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if rows[0][4] != "ours ["+sweep.QuickLabel+"]" || !strings.Contains(rows[1][9], sweep.QuickLabel) {
		t.Errorf("CSV header %v / title %v", rows[0], rows[1])
	}
	found := false
	for _, r := range rows {
		if r[0] == "per_dataset" && r[1] == "ArrowHead" && r[2] == "Val-Select" && r[4] == "0.85" && r[5] == "0.9435" {
			found = true
		}
	}
	if !found {
		t.Errorf("CSV lacks the ArrowHead Val-Select row:\n%s", cs.String())
	}
	sections := map[string]int{}
	for _, r := range rows {
		sections[r[0]]++
	}
	if sections["invalid"] != 2 || sections["missing"] != 0 {
		t.Errorf("CSV has %d invalid and %d missing rows, want 2 and 0:\n%s", sections["invalid"], sections["missing"], cs.String())
	}
}

// TestQuickSweepEndToEnd runs a quick sweep on two small datasets bundled in
// the data package with a tiny model and builds its table: ours beside the
// paper, labelled QUICK MODE, nothing missing.
func TestQuickSweepEndToEnd(t *testing.T) {
	ucr := filepath.Join(t.TempDir(), "no-datasets") // only the bundled ones load
	s, err := sweep.Open(filepath.Join(t.TempDir(), "results"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := sweep.NewGrid(sweep.GridSpec{Table: "ablation", Datasets: []string{"ItalyPowerDemand", "GunPoint"},
		Variants: []string{"SoftShape", "w/o Intra"}, Folds: []int{1, 2}, Seeds: []int64{42}, Quick: true,
		Settings: "embed_dim=16;epochs=2;warmup_epochs=1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveGrid(g); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rep, err := (&sweep.Runner{Execution: softshape.Execution{DataRoot: ucr, Offline: true, Workers: 2}, Store: s}).Run(context.Background(), g.Cells)
	if err != nil || len(rep.Errors) > 0 || rep.Ran != 8 || rep.Failed != 0 {
		t.Fatalf("sweep: %+v %v", rep, err)
	}
	t.Logf("8 runs in %s", time.Since(start).Round(time.Millisecond))
	tab, err := Build(s, "ablation", Options{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Missing) != 0 || len(tab.Summary.Datasets) != 2 {
		t.Errorf("missing %v, summary datasets %v", tab.Missing, tab.Summary.Datasets)
	}
	for _, r := range tab.Rows {
		v := r.Ours[0]
		if !v.Complete() || v.Acc < 0 || v.Acc > 1 || math.IsNaN(r.Paper[0]) {
			t.Errorf("%s SoftShape: ours %+v paper %v", r.Dataset, v, r.Paper[0])
		}
	}
	var md bytes.Buffer
	if err := tab.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{sweep.QuickLabel, "| SoftShape ours | SoftShape paper | SoftShape Δ |", "| ItalyPowerDemand | ", "| 0.9891 |",
		"| GunPoint | ", "None: every expected run has an ok record."} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("Markdown lacks %q:\n%s", w, md.String())
		}
	}
	t.Log("\n" + md.String())
}

// TestBaselinesOneNote: Table 1's baselines, methods of the paper that this
// project does not run, are named in one sentence, each of them once, under
// the Markdown's per-dataset table and among the CSV's notes, not also in
// the Markdown's notes; the table of a sweep of ours has no such sentence.
func TestBaselinesOneNote(t *testing.T) {
	s, err := sweep.Open(filepath.Join(t.TempDir(), "results"))
	if err != nil {
		t.Fatal(err)
	}
	build := func(table string) (md, csv string, tab *Table) {
		t.Helper()
		g, err := sweep.NewGrid(sweep.GridSpec{Table: table, Datasets: []string{"GunPoint"}, Folds: []int{1}, Seeds: []int64{42}, Quick: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SaveGrid(g); err != nil {
			t.Fatal(err)
		}
		if tab, err = Build(s, table, Options{Quick: true}); err != nil {
			t.Fatal(err)
		}
		var m, c bytes.Buffer
		if err := tab.Markdown(&m); err != nil {
			t.Fatal(err)
		}
		if err := tab.CSV(&c); err != nil {
			t.Fatal(err)
		}
		return m.String(), c.String(), tab
	}
	md, csv, tab := build("main")
	var baselines []string
	for _, c := range tab.Columns {
		if c.Kind == Baseline {
			baselines = append(baselines, c.Name)
		}
	}
	if len(baselines) != 17 {
		t.Fatalf("Table 1 has %d baselines, want the paper's 17: %v", len(baselines), baselines)
	}
	want := "The paper's baseline methods (" + strings.Join(baselines, ", ") + ") are not run here"
	if n := strings.Count(md, want); n != 1 {
		t.Errorf("the Markdown names the baselines %d times, want once:\n%s", n, md)
	}
	if n := strings.Count(md, "does not run"); n != 0 {
		t.Errorf("the Markdown has %d notes of its own on the baselines, want none:\n%s", n, md)
	}
	if n := strings.Count(csv, want); n != 1 {
		t.Errorf("the CSV names the baselines %d times, want once:\n%s", n, csv)
	}
	md, csv, _ = build("depth_L")
	if strings.Contains(md, "baseline methods") || strings.Contains(csv, "baseline methods") {
		t.Errorf("depth_L names baseline methods:\n%s\n%s", md, csv)
	}
}

// TestBuildErrors: an unknown table, or a table without a recorded sweep.
func TestBuildErrors(t *testing.T) {
	s, _ := sweep.Open(filepath.Join(t.TempDir(), "r"))
	if _, err := Build(s, "nope", Options{}); err == nil {
		t.Error("unknown table accepted")
	}
	if _, err := Build(s, "depth_L", Options{}); err == nil || !strings.Contains(err.Error(), "softshape sweep -table depth_L") {
		t.Errorf("no sweep: %v", err)
	}
}

// TestOnDatasets: a paper table's "on N UCR datasets" names how many of them
// a table of ours covers, and other titles are kept.
func TestOnDatasets(t *testing.T) {
	for _, c := range []struct {
		title string
		n     int
		want  string
	}{
		{"Table 4 (appendix version): number of activated experts k on 18 UCR datasets", 6,
			"Table 4 (appendix version): number of activated experts k on 6 of its 18 UCR datasets"},
		{"Table 4: k on 18 UCR datasets", 18, "Table 4: k on 18 UCR datasets"},
		{" Table 2: ablation on 128 UCR datasets (detail) ", 1, "Table 2: ablation on 1 of its 128 UCR datasets (detail)"},
		{"Appendix: lambda", 3, "Appendix: lambda"},
		{"Table 3 on 18 UCR datasets", 0, "Table 3 on 18 UCR datasets"},
	} {
		if got := OnDatasets(c.title, c.n); got != c.want {
			t.Errorf("OnDatasets(%q, %d) = %q, want %q", c.title, c.n, got, c.want)
		}
	}
}
