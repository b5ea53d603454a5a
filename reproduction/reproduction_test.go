package reproduction

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/internal/hostinfo"
	"github.com/softshape-go/softshape/softshape"
)

// TestCommittedResults is the check that cannot rot: it loads the committed
// results store, checks every record (full protocol, the preset of its folder),
// rebuilds every table, and requires manifest.json and the generated blocks
// (status and results) of docs/reproduction.md to equal what the records give — so neither can drift
// from the data, and a table the manifest calls complete has every run.
func TestCommittedResults(t *testing.T) {
	entries, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, me := range m.Entries {
		for _, e := range entries {
			if e.Table == me.Table && e.Preset == me.Preset && slices.Equal(e.Seeds, me.Seeds) && me.Complete && !e.Complete() {
				t.Errorf("manifest calls %s under %s complete, but %d of %d runs are recorded", me.Table, me.Preset, e.Recorded, e.Expected)
			}
		}
	}
	want := NewManifest(entries, m.CodeCommit, m.Machine).JSON()
	got, err := os.ReadFile("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("manifest.json differs from the results; run `softshape reproduction`.\nhave:\n%s\nwant:\n%s", got, want)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "reproduction.md"))
	if err != nil {
		t.Fatal(err)
	}
	timings, err := LoadTiming(".")
	if err != nil {
		t.Fatal(err)
	}
	want2, err := RenderDocument(string(doc), entries, timings)
	if err != nil {
		t.Fatal(err)
	}
	if string(doc) != want2 {
		t.Errorf("docs/reproduction.md's generated blocks differ from the results; run `softshape reproduction`")
	}
	block, err := ResultsBlock.In(want2)
	if err != nil {
		t.Fatal(err)
	}
	status, err := StatusBlock.In(want2)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Index(want2, status) > strings.Index(want2, block) {
		t.Error("the status block is not above the results")
	}
	// Every item of the plan (each table under each preset, and the items
	// of more seeds) has a row in the status table, complete or not started.
	for _, e := range entries {
		if !strings.Contains(status, "| "+rowTitle(e)+" | "+e.Preset+" | "+runsCell(e)+" |") {
			t.Errorf("no status row of %s under %s (%s)", e.Table, e.Preset, runsCell(e))
		}
	}
	for _, e := range entries {
		if e.Complete() && !strings.Contains(block, "#### "+e.Preset) {
			t.Errorf("%s under %s is complete but not rendered", e.Table, e.Preset)
		}
	}
	// Every figure the block links is committed, a PNG, and of these records
	// (its name hashes the data drawn); no figure of older records is left.
	figDir := filepath.Join("..", "docs", filepath.FromSlash(FigureDir))
	linked := map[string]bool{}
	for _, f := range Figures(entries) {
		linked[f.Name] = true
		if !strings.Contains(block, FigureDir+"/"+f.Name) {
			t.Errorf("figure %s is not linked from the generated block", f.Name)
		}
		r, err := os.Open(filepath.Join(figDir, f.Name))
		if err != nil {
			t.Errorf("figure of %s under %s: %v; run `softshape reproduction`", f.Table, f.Preset, err)
			continue
		}
		if _, err := png.DecodeConfig(r); err != nil {
			t.Errorf("%s: not a PNG: %v", r.Name(), err)
		}
		r.Close()
	}
	des, _ := os.ReadDir(figDir)
	for _, d := range des {
		if IsFigureFile(d.Name()) && !linked[d.Name()] {
			t.Errorf("%s is a figure of other records; run `softshape reproduction`", filepath.Join(figDir, d.Name()))
		}
	}
}

// TestLoadRejectsForeignRecords: a quick-mode record, a shortened schedule or
// another preset's run in a preset's folder is an error naming the file.
func TestLoadRejectsForeignRecords(t *testing.T) {
	grid, err := PlannedGrid("depth_L", "reference_fresh")
	if err != nil {
		t.Fatal(err)
	}
	c := grid.Cells[0]
	for _, tc := range []struct {
		name string
		edit func(r *sweep.Record)
		want string
	}{
		{"quick", func(r *sweep.Record) { r.Quick, r.Mode = true, sweep.QuickLabel }, "quick-mode record"},
		{"short", func(r *sweep.Record) { r.Config = strings.Replace(r.Config, "epochs=500", "epochs=40", 1) }, "schedule epochs=40"},
		{"preset", func(r *sweep.Record) {
			r.Config = strings.Replace(r.Config, "fold_reset=fresh", "fold_reset=carry", 1)
			r.Protocol = "reference_compat"
		}, "protocol reference_compat"},
	} {
		dir := t.TempDir()
		store, err := sweep.Open(ResultsDir(dir, "reference_fresh"))
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		r := &sweep.Record{Schema: sweep.SchemaVersion, Table: c.Table, Dataset: c.Dataset, Variant: c.Variant, Fold: c.Fold, Seed: c.Seed,
			Hash: c.Hash, Mode: "full", Status: sweep.StatusOK, TestAccuracy: 0.9, ValLoss: 0.1, EpochsRun: 200, Params: 10,
			WallSeconds: 1, Backend: "test", Config: c.Config.String(), Protocol: "reference_fresh", Started: now, Finished: now, Hostname: "h", PID: 1}
		tc.edit(r)
		if r.Hash, err = sweep.ConfigStringHash(r.Config, r.Quick); err != nil {
			t.Fatal(err)
		}
		if err := store.Write(r); err != nil {
			t.Fatal(err)
		}
		path := store.RecordPath(r.Key())
		_, err = Load(dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want %q naming %s", tc.name, err, tc.want, path)
		}
	}
}

// TestLoadNamesAMissingGridFile: records of two sweeps (GunPoint and
// ItalyPowerDemand, committed) with only GunPoint's grid file: the table would
// silently lack ItalyPowerDemand, so Load fails saying a grid file is missing.
func TestLoadNamesAMissingGridFile(t *testing.T) {
	const table = "sparse_ratio"
	src := filepath.Join(ResultsDir(".", "reference_fresh"), table)
	dir := t.TempDir()
	dst := filepath.Join(ResultsDir(dir, "reference_fresh"), table)
	for _, ds := range []string{"GunPoint", "ItalyPowerDemand"} {
		if err := os.CopyFS(filepath.Join(dst, ds), os.DirFS(filepath.Join(src, ds))); err != nil {
			t.Fatal(err)
		}
	}
	grids, _ := filepath.Glob(filepath.Join(src, "grid-*.json"))
	for _, g := range grids {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"GunPoint"`) && !strings.Contains(string(b), `"ItalyPowerDemand"`) {
			if err := os.WriteFile(filepath.Join(dst, filepath.Base(g)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "60 runs have an ok record") || !strings.Contains(err.Error(), "holds 30") {
		t.Errorf("Load: %v, want the 60 recorded runs against the table's 30", err)
	}
}

// TestLoadCountsInvalidAndReusedRuns: in Table 4 a setting the dataset cannot
// take (k = 4 > Ĉ = C = 3 classes) is recorded as invalid without training,
// and k = 1 reuses Table 3's η = 50% run. Both count as recorded; neither adds
// training wall time (an invalid record has none: the sum was NaN), an
// invalid record no empty backend, and the status row says how many there are.
func TestLoadCountsInvalidAndReusedRuns(t *testing.T) {
	const preset = "reference_fresh"
	dir := t.TempDir()
	store, err := sweep.Open(ResultsDir(dir, preset))
	if err != nil {
		t.Fatal(err)
	}
	load := func(name string) (*data.Dataset, error) {
		ds := data.CBF(10, 128, 1) // 3 classes
		ds.Name = name
		return ds, nil
	}
	train := func(ds *data.Dataset, cfg softshape.Config, fold int, opts softshape.RunOptions) (*sweep.Outcome, error) {
		return &sweep.Outcome{Result: softshape.FoldResult{Fold: fold, TestAcc: 0.9, ValLoss: 0.1, EpochsRun: 300, Params: 10,
			Wall: 100 * time.Second}}, nil
	}
	r := &sweep.Runner{Store: store, Load: load, Train: train}
	for _, table := range []string{"sparse_ratio", "experts_k"} {
		grid, err := PlannedGrid(table, preset)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.SaveGrid(grid); err != nil {
			t.Fatal(err)
		}
		var cells []sweep.Cell
		for _, c := range grid.Cells {
			if c.Dataset == "GunPoint" && c.Fold == 1 && (table == "experts_k" || c.Variant == "50%") {
				cells = append(cells, c)
			}
		}
		if rep, err := r.Run(context.Background(), cells); err != nil || len(rep.Errors) > 0 {
			t.Fatalf("%s: %+v %v", table, rep, err)
		}
	}
	entries, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var e Entry
	for _, x := range entries {
		if x.Table == "experts_k" && x.Preset == preset {
			e = x
		}
	}
	if e.Recorded != 4 || e.Invalid != 1 || e.Reused != 1 || e.WallSeconds != 200 || len(e.Backends) != 1 || e.Backends[0] == "" {
		t.Errorf("experts_k: recorded %d, invalid %d, reused %d, wall %v s, backends %q; want 4, 1, 1, 200 s (k = 2, 3), the one that trained",
			e.Recorded, e.Invalid, e.Reused, e.WallSeconds, e.Backends)
	}
	block, err := Render(entries)
	if err != nil {
		t.Fatal(err)
	}
	status := RenderStatus(entries)
	if !strings.Contains(status, "| **4 of 120 (partial)** (1 invalid, 1 reused) | 0.06 h |") {
		t.Errorf("status of experts_k not rendered as 4 of 120 with 1 invalid, 1 reused, 0.06 h:\n%s", status)
	}
	// The runs name the processor they trained on, and the status says it.
	if cpu := hostinfo.CPU(); !slices.Equal(e.CPUs, []string{cpu}) || e.CPUUnrecorded != 0 || !strings.Contains(block, "| "+cpu+" |") {
		t.Errorf("experts_k: CPUs %q (%d unrecorded), want [%q] in the status table", e.CPUs, e.CPUUnrecorded, cpu)
	}
	// A test binary records no revision; a record that names its binary's
	// is collected, and the manifest lists it beside the count of the others.
	if len(e.CodeVersions) != 0 || e.CodeVersionUnrecorded != 3 {
		t.Errorf("experts_k: code versions %q (%d unrecorded), want none (3 unrecorded)", e.CodeVersions, e.CodeVersionUnrecorded)
	}
	const rev = "aaaaaaa000000000000000000000000000000001"
	grid, err := PlannedGrid("experts_k", preset)
	if err != nil {
		t.Fatal(err)
	}
	// editOne edits the first trained ok record that edit takes (it returns
	// whether it did), then loads the store again.
	editOne := func(edit func(*sweep.Record) bool) {
		t.Helper()
		for _, c := range grid.Cells {
			if rec, err := store.Read(c.Key); err == nil && rec.Status == sweep.StatusOK && rec.ReusedFrom == "" && edit(rec) {
				if err := store.Write(rec); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
		if entries, err = Load(dir); err != nil {
			t.Fatal(err)
		}
		for _, x := range entries {
			if x.Table == "experts_k" && x.Preset == preset {
				e = x
			}
		}
	}
	editOne(func(rec *sweep.Record) bool { rec.CodeVersion = rev; return true })
	if !slices.Equal(e.CodeVersions, []string{rev}) || e.CodeVersionUnrecorded != 2 {
		t.Errorf("experts_k after naming one run's binary: code versions %q (%d unrecorded), want [%s] (2 unrecorded)", e.CodeVersions, e.CodeVersionUnrecorded, rev)
	}
	if js := string(NewManifest(entries, "aaaaaaa (Table 4)", "m").JSON()); !strings.Contains(js, `"code_versions": [
        "`+rev+`"
      ],
      "runs_without_code_version": 2,`) {
		t.Errorf("manifest does not list experts_k's code version and the runs without one:\n%s", js)
	}
	// Every run so far trained the plain graphs; a record of the speed forms
	// adds that form, and the manifest lists both.
	if !slices.Equal(e.Forms, []string{"plain graphs"}) {
		t.Errorf("experts_k: forms %q, want [plain graphs]", e.Forms)
	}
	editOne(func(rec *sweep.Record) bool {
		if rec.CodeVersion != "" { // the run edited above
			return false
		}
		rec.SpeedForms = true
		return true
	})
	forms := slices.Sorted(slices.Values(e.Forms))
	if js := string(NewManifest(entries, "aaaaaaa (Table 4)", "m").JSON()); !slices.Equal(forms, []string{"plain graphs", "speed forms (-fast)"}) ||
		!strings.Contains(js, `"forms": [`) || !strings.Contains(js, `"speed forms (-fast)"`) {
		t.Errorf("experts_k after one speed-form run: forms %q, want both; manifest:\n%s", e.Forms, js)
	}
}

// TestCheckCodeCommit: the manifest's code commit must name the binary of
// every run whose record names its own, and none may be a dirty build.
func TestCheckCodeCommit(t *testing.T) {
	const a = "aaaaaaa000000000000000000000000000000001"
	const b = "bbbbbbb000000000000000000000000000000002"
	entries := []Entry{{Table: "main", Preset: "reference_fresh", CodeVersions: []string{a}},
		{Table: "depth_L", Preset: "reference_compat", CodeVersions: []string{b}}, {Table: "ablation", Preset: "reference_compat"}}
	for _, tc := range []struct {
		name, commit, wantErr string
		entries               []Entry
	}{
		{"both named", "aaaaaaa (Table 1); bbbbbbb0 (Table 6)", "", entries},
		{"one unnamed", "aaaaaaa (Table 1)", `depth_L under reference_compat: runs trained by bbbbbbb, which the manifest's code commit "aaaaaaa (Table 1)" does not name`, entries},
		{"a dirty build", "aaaaaaa", "main under reference_fresh: runs trained by aaaaaaa+dirty, a binary built from a checkout with uncommitted changes or untracked files",
			[]Entry{{Table: "main", Preset: "reference_fresh", CodeVersions: []string{a + "+dirty"}}}},
		{"no run names its binary", "", "", []Entry{{Table: "main", CodeVersionUnrecorded: 310}}},
	} {
		err := CheckCodeCommit(tc.entries, tc.commit)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.wantErr)
		}
	}
}

// TestCPUCellSaysWhatIsUnrecorded: records written before records held their
// processor are counted, not hidden, beside the processors of the others.
func TestCPUCellSaysWhatIsUnrecorded(t *testing.T) {
	for _, tc := range []struct {
		e    Entry
		want string
	}{
		{Entry{}, "—"},
		{Entry{CPUUnrecorded: 42}, "not recorded (42 runs)"},
		{Entry{CPUs: []string{"A (x86-64-v3), 1 of 2 cores", "B (x86-64-v4), 1 of 2 cores"}, CPUUnrecorded: 3},
			"A (x86-64-v3), 1 of 2 cores; B (x86-64-v4), 1 of 2 cores; not recorded (3 runs)"},
	} {
		if got := cpuCell(tc.e); got != tc.want {
			t.Errorf("cpuCell(%+v) = %q, want %q", tc.e, got, tc.want)
		}
	}
}

// TestLoadCountsBatchedWallOnce: the runs of one batched job (a GPU sweep's
// five folds on a run axis) each record the job's wall time; the table's
// compute counts it once, not five times, beside a run trained alone.
func TestLoadCountsBatchedWallOnce(t *testing.T) {
	const preset = "reference_fresh"
	dir := t.TempDir()
	store, err := sweep.Open(ResultsDir(dir, preset))
	if err != nil {
		t.Fatal(err)
	}
	grid, err := PlannedGrid("depth_L", preset)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SaveGrid(grid); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	for _, c := range grid.Cells {
		if c.Dataset != "GunPoint" || (c.Variant != "L=1" && (c.Variant != "L=2" || c.Fold != 1)) {
			continue
		}
		r := &sweep.Record{Schema: sweep.SchemaVersion, Table: c.Table, Dataset: c.Dataset, Variant: c.Variant, Fold: c.Fold, Seed: c.Seed,
			Hash: c.Hash, Mode: "full", Status: sweep.StatusOK, TestAccuracy: 0.9, ValLoss: 0.1, EpochsRun: 200, Params: 10,
			WallSeconds: 7, Backend: "test", Config: c.Config.String(), Protocol: preset, Started: now, Finished: now, Hostname: "h", PID: 1}
		if c.Variant == "L=1" {
			r.WallSeconds, r.BatchRuns, r.RunAxis = 50, 5, true
		}
		if err := store.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Table == "depth_L" && e.Preset == preset {
			if e.Recorded != 6 || e.WallSeconds != 57 {
				t.Errorf("depth_L: recorded %d, wall %v s; want 6 runs, 50 s (one job of 5) + 7 s", e.Recorded, e.WallSeconds)
			}
			return
		}
	}
	t.Error("no depth_L entry")
}
