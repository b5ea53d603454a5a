package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatusCountsEveryState: done, failed, invalid, running (live lock),
// missing (no record, or a stale lock) and corrupt cells are counted and the
// cells not done are listed.
func TestStatusCountsEveryState(t *testing.T) {
	s := openStore(t)
	g := mustGrid(t, GridSpec{Table: "shape_length_m", Datasets: []string{"CBF-a"}, Variants: []string{"Fixed-8"},
		Folds: []int{1, 2, 3, 4, 5}, Seeds: []int64{42}, Settings: tinySettings})
	g2 := mustGrid(t, GridSpec{Table: "shape_length_m", Datasets: []string{"CBF-a"}, Variants: []string{"Multi-Seq"},
		Folds: []int{1, 2}, Seeds: []int64{42}, Settings: tinySettings})
	for _, gr := range []*Grid{g, g2} {
		if err := s.SaveGrid(gr); err != nil {
			t.Fatal(err)
		}
	}
	r := &Runner{Store: s, Load: cbfLoader, Train: fakeTrain(0)}
	// Fixed-8: fold 1 done, fold 2 failed, fold 3 running, fold 4 stale
	// (missing), fold 5 corrupt; Multi-Seq: fold 1 invalid, fold 2 missing.
	if _, err := r.Run(context.Background(), g.Cells[:1]); err != nil {
		t.Fatal(err)
	}
	rec := okRecord(s, "", "", "", 0)
	failed := *rec
	k := g.Cells[1].Key
	failed.Table, failed.Dataset, failed.Variant, failed.Fold, failed.Seed, failed.Hash, failed.Config = k.Table, k.Dataset, k.Variant, k.Fold, k.Seed, k.Hash, g.Cells[1].Config.String()
	failed.Status, failed.Error, failed.TestAccuracy = StatusFailed, "loss is NaN", Float(nanValue())
	if err := s.Write(&failed); err != nil {
		t.Fatal(err)
	}
	writeLock(t, s, g.Cells[2].Key, LockInfo{PID: os.Getppid(), Hostname: s.host, Started: time.Now()})
	writeLock(t, s, g.Cells[3].Key, LockInfo{PID: deadPID(t), Hostname: s.host, Started: time.Now()})
	os.MkdirAll(filepath.Dir(s.RecordPath(g.Cells[4].Key)), 0o755)
	os.WriteFile(s.RecordPath(g.Cells[4].Key), []byte(`{"schema": 1, "table": "shape`), 0o644)
	inv := failed
	k = g2.Cells[0].Key
	inv.Variant, inv.Fold, inv.Hash, inv.Config = k.Variant, k.Fold, k.Hash, g2.Cells[0].Config.String()
	inv.Status, inv.Error = StatusInvalid, `multi_seq="8,16,32", scale m=32: shape_length: m=32 is longer than the series (T=24)`
	if err := s.Write(&inv); err != nil {
		t.Fatal(err)
	}

	sts, _, err := s.Status("")
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != 1 {
		t.Fatalf("%d table statuses", len(sts))
	}
	st := sts[0]
	want := map[CellState]int{StateDone: 1, StateFailed: 1, StateRunning: 1, StateMissing: 2, StateCorrupt: 1, StateInvalid: 1}
	for _, state := range States() {
		if st.Counts[state] != want[state] {
			t.Errorf("%s: %d, want %d (%v)", state, st.Counts[state], want[state], st.Counts)
		}
	}
	if st.Total != 7 || len(st.Cells) != 6 || len(st.Grids) != 2 || len(st.Blocked) != 0 {
		t.Errorf("status %+v", st)
	}
	details := ""
	for _, c := range st.Cells {
		details += string(c.State) + ": " + c.Detail + "\n"
	}
	for _, w := range []string{"failed: loss is NaN", "running: pid", "missing: stale lock of dead pid", `invalid: multi_seq="8,16,32"`, "corrupt: record"} {
		if !strings.Contains(details, w) {
			t.Errorf("details lack %q:\n%s", w, details)
		}
	}
}

// TestMergeShards: two shards run into separate folders merge into one
// folder holding the whole grid; a conflicting record is reported and kept.
func TestMergeShards(t *testing.T) {
	g := mustGrid(t, GridSpec{Table: "depth_L", Datasets: []string{"CBF-a", "CBF-b"}, Folds: []int{1, 2, 3}, Seeds: []int64{1}, Settings: tinySettings})
	var roots []string
	for i := 1; i <= 2; i++ {
		s := openStore(t)
		if err := s.SaveGrid(g); err != nil {
			t.Fatal(err)
		}
		r := &Runner{Store: s, Load: cbfLoader, Train: fakeTrain(0)}
		if _, err := r.Run(context.Background(), Shard{i, 2}.Select(g.Cells)); err != nil {
			t.Fatal(err)
		}
		roots = append(roots, s.Root())
	}
	dst := openStore(t)
	total := 0
	for _, root := range roots {
		rep, err := dst.Merge(root)
		if err != nil || len(rep.Errors) > 0 || len(rep.Conflicts) > 0 {
			t.Fatalf("merge %s: %+v %v", root, rep, err)
		}
		total += rep.Copied
	}
	if total != len(g.Cells) {
		t.Errorf("copied %d records for %d cells", total, len(g.Cells))
	}
	sts, _, err := dst.Status("depth_L")
	if err != nil || len(sts) != 1 || sts[0].Counts[StateDone] != len(g.Cells) || len(sts[0].Grids) != 1 {
		t.Fatalf("merged status %+v %v", sts, err)
	}
	// Merging again copies nothing; a record that differs is a conflict.
	rep, _ := dst.Merge(roots[0])
	if rep.Copied != 0 || rep.Identical != len(g.Cells)/2 {
		t.Errorf("second merge %+v", rep)
	}
	k := Shard{1, 2}.Select(g.Cells)[0].Key
	rec, _ := dst.Read(k)
	rec.TestAccuracy = 0.123
	dst.Write(rec)
	if rep, _ := dst.Merge(roots[0]); len(rep.Conflicts) != 1 {
		t.Errorf("conflict not reported: %+v", rep)
	}
	if got, _ := dst.Read(k); got.TestAccuracy != 0.123 {
		t.Error("merge overwrote the destination's record")
	}
}

// TestExportAeon: one file per variant in the aeon layout, quick files and
// the README labelled, incomplete datasets left out and listed.
func TestExportAeon(t *testing.T) {
	s := openStore(t)
	g := mustGrid(t, GridSpec{Table: "ablation", Datasets: []string{"CBF-a", "CBF-b"}, Variants: []string{"SoftShape", "w/o Intra"},
		Folds: []int{1, 2}, Seeds: []int64{1, 2}, Quick: true, Settings: tinySettings})
	if err := s.SaveGrid(g); err != nil {
		t.Fatal(err)
	}
	var cells []Cell
	for _, c := range g.Cells {
		if !(c.Dataset == "CBF-b" && c.Variant == "w/o Intra" && c.Fold == 2 && c.Seed == 2) {
			cells = append(cells, c)
		}
	}
	if _, err := (&Runner{Store: s, Load: cbfLoader, Train: fakeTrain(0)}).Run(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	exp, err := s.ExportAeon("ablation", true, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "classification", "accuracy", "QUICK-SoftShape_accuracy.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// fakeTrain gives 0.5 + 0.1·(fold−1).
	want := "Resamples:,0,1,2,3\nCBF-a,0.5,0.6,0.5,0.6\nCBF-b,0.5,0.6,0.5,0.6\n"
	if string(b) != want {
		t.Errorf("SoftShape file:\n%s\nwant\n%s", b, want)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "classification", "accuracy", "QUICK-SoftShape-w-o-intra_accuracy.csv"))
	if string(b) != "Resamples:,0,1,2,3\nCBF-a,0.5,0.6,0.5,0.6\n" {
		t.Errorf("w/o Intra file:\n%s", b)
	}
	if len(exp.Incomplete) != 1 || !strings.Contains(exp.Incomplete[0], "w/o Intra/CBF-b: seed 2 fold 2 missing") {
		t.Errorf("incomplete %v", exp.Incomplete)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.txt"))
	for _, w := range []string{QuickLabel, "3: seed 2 fold 2", "Resamples:"} {
		if !strings.Contains(string(readme), w) {
			t.Errorf("README lacks %q:\n%s", w, readme)
		}
	}
	if _, err := s.ExportAeon("ablation", false, "", dir); err == nil || !strings.Contains(err.Error(), "no sweep recorded") {
		t.Errorf("full-mode export of a quick sweep: %v", err)
	}
}
