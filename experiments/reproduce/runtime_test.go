package reproduce

import (
	"strings"
	"testing"
	"time"

	"github.com/softshape-go/softshape/experiments/sweep"
)

// TestEpochTimesPerCPU: the time per epoch read from the store is averaged
// per dataset and per processor the records name, never across two of
// either (machines of one name can differ several-fold; datasets differ in
// length), and records that name none form their own row.
func TestEpochTimesPerCPU(t *testing.T) {
	dir := t.TempDir()
	store, err := sweep.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	grid, err := sweep.NewGrid(sweep.GridSpec{Table: "depth_L", Datasets: []string{"GunPoint", "Trace"}, Variants: []string{"L=1", "L=2", "L=3"},
		Folds: []int{1, 2, 3}, Seeds: []int64{42}})
	if err != nil {
		t.Fatal(err)
	}
	// GunPoint, L=1: folds on two CPUs and one unrecorded; L=2: one CPU; L=3:
	// nothing. Trace: L=1 fold 1 on the fast CPU, 10× GunPoint's time.
	fast, slow := "A (family 25 model 17, x86-64-v4), 1 of 2 cores", "A (family 25 model 1, x86-64-v3), 1 of 2 cores"
	runs := map[string][]struct {
		cpu  string
		wall float64
	}{
		"L=1": {{fast, 10}, {slow, 40}, {"", 25}},
		"L=2": {{slow, 30}, {slow, 50}},
	}
	now := time.Now().UTC()
	for _, c := range grid.Cells {
		rs := runs[c.Variant]
		if c.Fold > len(rs) || c.Dataset == "Trace" && (c.Variant != "L=1" || c.Fold != 1) {
			continue
		}
		run := rs[c.Fold-1]
		if c.Dataset == "Trace" {
			run.wall *= 10
		}
		rec := &sweep.Record{Schema: sweep.SchemaVersion, Table: c.Table, Dataset: c.Dataset, Variant: c.Variant, Fold: c.Fold, Seed: c.Seed,
			Hash: c.Hash, Mode: "full", Status: sweep.StatusOK, TestAccuracy: 0.9, ValLoss: 0.1, EpochsRun: 100, Params: 1000,
			WallSeconds: sweep.Float(run.wall), InferenceSeconds: 0.5, Backend: "test", Config: c.Config.String(), Protocol: c.Config.ProtocolName(),
			Started: now, Finished: now, Hostname: "h", PID: 1, CPU: run.cpu}
		if err := store.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	r := &TableResult{Name: "depth_L", Params: Params{Results: dir}, Grid: grid}
	md, err := r.EpochTimes()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| GunPoint | L=1 | not recorded | 1 | 0.250 | 0.5000 | 1000 |",
		"| GunPoint | L=1 | " + slow + " | 1 | 0.400 | 0.5000 | 1000 |",
		"| GunPoint | L=1 | " + fast + " | 1 | 0.100 | 0.5000 | 1000 |",
		"| GunPoint | L=2 | " + slow + " | 2 | 0.400 | 0.5000 | 1000 |",
		"| GunPoint | L=3 | — | 0 | — | — | — |",
		"| Trace | L=1 | " + fast + " | 1 | 1.000 | 0.5000 | 1000 |",
		"| Trace | L=2 | — | 0 | — | — | — |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing row %q in:\n%s", want, md)
		}
	}
	if n := strings.Count(md, "\n| GunPoint |"); n != 5 {
		t.Errorf("%d GunPoint rows, want 5 (L=1 on three CPUs, L=2 on one, L=3 empty):\n%s", n, md)
	}
	if n := strings.Count(md, "\n| Trace |"); n != 3 {
		t.Errorf("%d Trace rows, want 3 (L=1 on one CPU, L=2 and L=3 empty):\n%s", n, md)
	}
}
