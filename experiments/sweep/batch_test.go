package sweep

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/softshape"
)

// TestBatchGroups: units of one table, dataset and variant are packed up to
// the cap; another variant or dataset, a cap of one or a timed table starts a
// job of its own, and a job of one unit is not batched.
func TestBatchGroups(t *testing.T) {
	cell := func(table, ds string, fold int) Cell {
		return Cell{Key: Key{Table: table, Dataset: ds, Variant: "v", Fold: fold, Seed: 1, Hash: "h"}}
	}
	other := cell("depth_L", "A", 1)
	other.Variant, other.Hash = "w", "h2"
	units := [][]Cell{
		{cell("depth_L", "A", 1)}, {cell("depth_L", "A", 2)}, {cell("depth_L", "A", 3)}, {other},
		{cell("depth_L", "B", 1)},
		{cell("depth_L", "C", 1), cell("depth_L", "C", 2)}, {cell("depth_L", "C", 3)},
		{cell("params_inference_time", "C", 1)}, {cell("params_inference_time", "C", 2)},
	}
	describe := func(jobs []job) [][2]int { // (cells, batched) per job
		var out [][2]int
		for _, j := range jobs {
			b := 0
			if j.batched {
				b = 1
			}
			out = append(out, [2]int{len(j.cells), b})
		}
		return out
	}
	for _, tc := range []struct {
		size int
		want [][2]int
	}{
		{2, [][2]int{{2, 1}, {1, 0}, {1, 0}, {1, 0}, {3, 1}, {1, 0}, {1, 0}}},
		{10, [][2]int{{3, 1}, {1, 0}, {1, 0}, {3, 1}, {1, 0}, {1, 0}}},
		{1, [][2]int{{1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {2, 0}, {1, 0}, {1, 0}, {1, 0}}},
	} {
		got := describe(batchGroups(units, tc.size))
		if len(got) != len(tc.want) {
			t.Errorf("cap %d: jobs %v, want %v", tc.size, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("cap %d: jobs %v, want %v", tc.size, got, tc.want)
				break
			}
		}
	}
}

// TestRunAxisSweep: Runner.RunAxis trains a job's runs on a run axis and
// says so in their records (run_axis); with η = 0 and k = Ĉ nothing discrete
// can flip, so the records equal the one-at-a-time ones (selection, epochs,
// accuracy; validation loss within 1e-5).
func TestRunAxisSweep(t *testing.T) {
	settings := "embed_dim=16;epochs=4;warmup_epochs=2;sparse_ratio=0;experts_k=3;moe_layers=all"
	spec := GridSpec{Table: "depth_L", Datasets: []string{"CBF-b1"}, Variants: []string{"L=2"}, Folds: []int{1, 2, 3},
		Seeds: []int64{5}, Settings: settings}
	g := mustGrid(t, spec)
	one, axis := openStore(t), openStore(t)
	for _, run := range []struct {
		s    *Store
		max  int
		axis softshape.RunAxisMode
	}{{one, 1, softshape.RunAxisOff}, {axis, 4, softshape.RunAxisOn}} {
		r := &Runner{Execution: softshape.Execution{MaxRuns: run.max, RunAxis: run.axis}, Store: run.s, Load: cbfLoader, NoReuse: true}
		rep, err := r.Run(context.Background(), g.Cells)
		if err != nil || len(rep.Errors) > 0 || rep.Ran != len(g.Cells) || rep.Failed > 0 {
			t.Fatalf("MaxRuns %d run axis %v: report %+v, err %v", run.max, run.axis, rep, err)
		}
	}
	for _, c := range g.Cells {
		a, err := one.Read(c.Key)
		if err != nil {
			t.Fatal(err)
		}
		b, err := axis.Read(c.Key)
		if err != nil {
			t.Fatal(err)
		}
		if a.TestAccuracy != b.TestAccuracy || a.BestEpoch != b.BestEpoch || a.EpochsRun != b.EpochsRun ||
			math.Abs(float64(a.ValLoss-b.ValLoss)) > 1e-5*math.Abs(float64(a.ValLoss)) {
			t.Errorf("%s: run axis acc %v epoch %d/%d val %v; one at a time %v %d/%d %v", c.Key,
				b.TestAccuracy, b.BestEpoch, b.EpochsRun, b.ValLoss, a.TestAccuracy, a.BestEpoch, a.EpochsRun, a.ValLoss)
		}
		if a.RunAxis || !b.RunAxis || b.BatchRuns != len(g.Cells) {
			t.Errorf("%s: run_axis %v one at a time, %v with the run axis (batch_runs %d)", c.Key, a.RunAxis, b.RunAxis, b.BatchRuns)
		}
	}
}

// TestBatchedSweepMatchesOneAtATime: the same grid swept with up to four runs
// per graph (Runner.MaxRuns) and one cell at a time gives, cell by cell, the
// same test accuracy, selected epoch and epochs run and validation losses
// within 1e-5 relative, for fresh folds and for fold_reset=carry chains (two
// seeds per variant, whose chains share a graph). Batched records say how
// many runs shared the job.
func TestBatchedSweepMatchesOneAtATime(t *testing.T) {
	for _, settings := range []string{
		"embed_dim=16;epochs=4;warmup_epochs=2",
		"protocol=reference_compat;embed_dim=16;epochs=4;warmup_epochs=2",
	} {
		spec := GridSpec{Table: "depth_L", Datasets: []string{"CBF-b1"}, Variants: []string{"L=1", "L=2"}, Folds: []int{1, 2, 3},
			Seeds: []int64{5, 6}, Settings: settings}
		g := mustGrid(t, spec)
		one, batched := openStore(t), openStore(t)
		for _, run := range []struct {
			s   *Store
			max int
		}{{one, 1}, {batched, 4}} {
			r := &Runner{Execution: softshape.Execution{MaxRuns: run.max, RunAxis: softshape.RunAxisOff}, Store: run.s, Load: cbfLoader, NoReuse: true}
			rep, err := r.Run(context.Background(), g.Cells)
			if err != nil || len(rep.Errors) > 0 || rep.Ran != len(g.Cells) || rep.Failed > 0 {
				t.Fatalf("%s, MaxRuns %d: report %+v, err %v", settings, run.max, rep, err)
			}
		}
		for _, c := range g.Cells {
			a, err := one.Read(c.Key)
			if err != nil {
				t.Fatal(err)
			}
			b, err := batched.Read(c.Key)
			if err != nil {
				t.Fatal(err)
			}
			if a.TestAccuracy != b.TestAccuracy || a.BestEpoch != b.BestEpoch || a.EpochsRun != b.EpochsRun ||
				math.Abs(float64(a.ValLoss-b.ValLoss)) > 1e-5*math.Abs(float64(a.ValLoss)) {
				t.Errorf("%s %s: batched acc %v epoch %d/%d val %v; one at a time %v %d/%d %v", settings, c.Key,
					b.TestAccuracy, b.BestEpoch, b.EpochsRun, b.ValLoss, a.TestAccuracy, a.BestEpoch, a.EpochsRun, a.ValLoss)
			}
			if a.BatchRuns != 0 || b.BatchRuns < 2 {
				t.Errorf("%s %s: batch_runs %d one at a time, %d batched", settings, c.Key, a.BatchRuns, b.BatchRuns)
			}
			if a.BackendDetail == "" || a.BackendDetail != b.BackendDetail || !strings.Contains(a.BackendDetail, "Go") {
				t.Errorf("%s %s: backend_detail %q one at a time, %q batched (want the pure-Go backend's description)",
					settings, c.Key, a.BackendDetail, b.BackendDetail)
			}
		}
	}
}
