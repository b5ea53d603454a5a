package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/hostinfo"
	"github.com/softshape-go/softshape/softshape"
)

// TestRunnerOutcomes: invalid configurations (k > Ĉ) are recorded as invalid
// without training, training errors and panics as failed (re-run only with
// RetryFailed), a missing dataset leaves the cell missing with an error, and
// a second run skips everything.
func TestRunnerOutcomes(t *testing.T) {
	s := openStore(t)
	g := mustGrid(t, GridSpec{Table: "experts_k", Datasets: []string{"CBF-a", "Absent"}, Variants: []string{"k=1", "k=4"},
		Folds: []int{1, 2}, Seeds: []int64{7}, Settings: tinySettings})
	var calls execCounter
	train := func(ds *data.Dataset, cfg softshape.Config, fold int, opts softshape.RunOptions) (*Outcome, error) {
		if fold == 1 {
			panic("boom")
		}
		return nil, errors.New("no luck")
	}
	load := func(name string) (*data.Dataset, error) {
		if name == "Absent" {
			return nil, errors.New("dataset Absent: not found")
		}
		return cbfLoader(name)
	}
	r := &Runner{Execution: softshape.Execution{Workers: 2}, Store: s, Load: load, Train: train, OnExecute: calls.hook}
	rep, err := r.Run(context.Background(), g.Cells)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ran != 4 || rep.Invalid != 2 || rep.Failed != 2 || len(rep.Errors) != 4 {
		t.Fatalf("report %+v", rep)
	}
	for _, e := range rep.Errors {
		if !strings.Contains(e.Error(), "Absent") {
			t.Errorf("error %v does not name the cell", e)
		}
	}
	for _, c := range g.Cells {
		if c.Dataset == "Absent" {
			if st := s.CellStatus(c.Key); st.State != StateMissing {
				t.Errorf("%s: %v", c.Key, st)
			}
			continue
		}
		rec, err := s.Read(c.Key)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.Variant == "k=4":
			if rec.Status != StatusInvalid || !strings.Contains(rec.Error, "experts_k=4: k must be ≤ the number of experts Ĉ=3") || calls.n[c.Key] != 0 {
				t.Errorf("k=4 on 3 classes: %s %q, %d executions", rec.Status, rec.Error, calls.n[c.Key])
			}
		case c.Fold == 2:
			if rec.Status != StatusFailed || !strings.Contains(rec.Error, "training panicked: boom") {
				t.Errorf("panic: %s %q", rec.Status, rec.Error)
			}
		default:
			if rec.Status != StatusFailed || rec.Error != "no luck" {
				t.Errorf("error: %s %q", rec.Status, rec.Error)
			}
		}
	}
	// Resume: nothing runs again; with RetryFailed the failed cells do.
	r.Train = fakeTrain(0)
	rep, _ = r.Run(context.Background(), g.Cells)
	if rep.Ran != 0 || rep.Done != 4 {
		t.Errorf("second run %+v", rep)
	}
	r.RetryFailed = true
	rep, _ = r.Run(context.Background(), g.Cells)
	if rep.Ran != 2 || rep.Failed != 0 || rep.Done != 2 {
		t.Errorf("retry run %+v", rep)
	}
}

// TestResumeCountsOnlyCellsToTrain: a resumed sweep logs how many cells are
// already recorded and numbers its progress over the cells left, so a
// researcher sees "[2/2]", not "[2/4]" that never reaches 4.
func TestResumeCountsOnlyCellsToTrain(t *testing.T) {
	s := openStore(t)
	g := mustGrid(t, GridSpec{Table: "depth_L", Datasets: []string{"CBF-a"}, Variants: []string{"L=1", "L=2"},
		Folds: []int{1, 2}, Seeds: []int64{7}, Settings: tinySettings})
	var first strings.Builder
	r := &Runner{Store: s, Load: cbfLoader, Train: fakeTrain(0), Log: &first}
	if _, err := r.Run(context.Background(), g.Cells[:2]); err != nil {
		t.Fatal(err)
	}
	if out := first.String(); strings.Contains(out, "resuming") || !strings.Contains(out, "start  [2/2]") {
		t.Errorf("first run's log:\n%s", out)
	}
	var again strings.Builder
	r.Log = &again
	rep, err := r.Run(context.Background(), g.Cells)
	if err != nil || rep.Ran != 2 || rep.Done != 2 {
		t.Fatalf("resumed run %+v %v", rep, err)
	}
	out := again.String()
	if !strings.Contains(out, "resuming: 2 of 4 cells already recorded, 2 to train") ||
		!strings.Contains(out, "start  [1/2]") || !strings.Contains(out, "start  [2/2]") || strings.Contains(out, "/4]") {
		t.Errorf("resumed run's log:\n%s", out)
	}
}

// TestRunnerReuse: an ok record of the same computation made for another
// table is copied, not retrained; NoReuse trains.
func TestRunnerReuse(t *testing.T) {
	s := openStore(t)
	spec := GridSpec{Table: "depth_L", Datasets: []string{"CBF-a"}, Variants: []string{"L=2"}, Folds: []int{1}, Seeds: []int64{7}, Settings: tinySettings}
	var calls execCounter
	r := &Runner{Store: s, Load: cbfLoader, Train: fakeTrain(0), OnExecute: calls.hook}
	if _, err := r.Run(context.Background(), mustGrid(t, spec).Cells); err != nil {
		t.Fatal(err)
	}
	spec.Table, spec.Variants = "ablation", []string{"SoftShape"}
	g := mustGrid(t, spec)
	rep, _ := r.Run(context.Background(), g.Cells)
	if rep.Reused != 1 || rep.Ran != 0 || len(calls.n) != 1 {
		t.Fatalf("report %+v, executions %v", rep, calls.n)
	}
	rec, err := s.Read(g.Cells[0].Key)
	if err != nil || rec.ReusedFrom == "" || !strings.HasPrefix(rec.ReusedFrom, "depth_L/CBF-a/l-2/") || rec.Variant != "SoftShape" {
		t.Errorf("reused record %+v %v", rec, err)
	}
	// Both records name the processor that trained the run, with the share of
	// it this process could use.
	if want := hostinfo.CPU(); rec.CPU != want || !strings.Contains(want, fmt.Sprintf(" %d of ", runtime.NumCPU())) {
		t.Errorf("reused record's CPU %q, want %q (this process's %d cores)", rec.CPU, want, runtime.NumCPU())
	}
	spec.Table, spec.Variants = "num_experts", []string{"hatC=C"}
	r.NoReuse = true
	if rep, _ := r.Run(context.Background(), mustGrid(t, spec).Cells); rep.Ran != 1 || rep.Reused != 0 {
		t.Errorf("NoReuse: %+v", rep)
	}
}

// TestRunnerReusesOnlyItsOwnBuild: a record is copied for another table only
// by a binary of the same clean revision; other builds train the cell and say
// why; a build from uncommitted changes copies only the runs it trains itself.
func TestRunnerReusesOnlyItsOwnBuild(t *testing.T) {
	const buildA = "aaaaaaa000000000000000000000000000000001"
	const buildB = "bbbbbbb000000000000000000000000000000002"
	root := openStore(t).Root()
	// Each table's default column: the same computation in every table.
	def := map[string]string{"depth_L": "L=2", "ablation": "SoftShape", "num_experts": "hatC=C", "sparse_ratio": "50%", "experts_k": "k=1", "stride_q": "q=4"}
	spec := GridSpec{Table: "depth_L", Datasets: []string{"CBF-a"}, Variants: []string{"L=2"}, Folds: []int{1}, Seeds: []int64{7}, Settings: tinySettings}
	run := func(build string, tables ...string) (Report, string) {
		t.Helper()
		s, err := Open(root)
		if err != nil {
			t.Fatal(err)
		}
		s.build = build
		var cells []Cell
		for _, table := range tables {
			sp := spec
			sp.Table, sp.Variants = table, []string{def[table]}
			cells = append(cells, mustGrid(t, sp).Cells...)
		}
		var log strings.Builder
		rep, err := (&Runner{Store: s, Load: cbfLoader, Train: fakeTrain(0), Log: &log}).Run(context.Background(), cells)
		if err != nil {
			t.Fatal(err)
		}
		return rep, log.String()
	}
	if rep, _ := run(buildA, "depth_L"); rep.Ran != 1 {
		t.Fatalf("first run: %+v", rep)
	}
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Read(mustGrid(t, spec).Cells[0].Key)
	if err != nil || rec.CodeVersion != buildA {
		t.Fatalf("record's code version %q (%v), want %q", rec.CodeVersion, err, buildA)
	}
	rep, log := run(buildB, "ablation")
	if rep.Ran != 1 || rep.Reused != 0 || !strings.Contains(log, "by another build (aaaaaaa; this binary: bbbbbbb)") {
		t.Errorf("another build: %+v, log:\n%s", rep, log)
	}
	if rep, _ := run(buildA, "num_experts"); rep.Reused != 1 || rep.Ran != 0 {
		t.Errorf("the same build: %+v", rep)
	}
	rep, log = run(buildA+"+dirty", "sparse_ratio", "experts_k")
	if rep.Ran != 1 || rep.Reused != 1 || !strings.Contains(log, "with uncommitted changes or untracked files (aaaaaaa+dirty)") {
		t.Errorf("a dirty build: %+v (want the second cell copied from the first), log:\n%s", rep, log)
	}
	rep, log = run("", "stride_q")
	if rep.Ran != 1 || rep.Reused != 0 || !strings.Contains(log, "this binary: no revision recorded") {
		t.Errorf("a build without a revision: %+v, log:\n%s", rep, log)
	}
}

// TestConcurrentRunnersRunEachCellOnce: two runners with three workers each
// on one folder at the same time never both run a cell, and together run all.
func TestConcurrentRunnersRunEachCellOnce(t *testing.T) {
	s := openStore(t)
	g := mustGrid(t, GridSpec{Table: "sparse_ratio", Datasets: []string{"CBF-a", "CBF-b"}, Folds: []int{1, 2, 3, 4, 5},
		Seeds: []int64{1, 2}, Settings: tinySettings})
	var calls execCounter
	var wg sync.WaitGroup
	reps := make([]Report, 2)
	for i := range reps {
		st, err := Open(s.Root())
		if err != nil {
			t.Fatal(err)
		}
		cells := g.Cells
		if i == 1 { // the second runner goes through the cells backwards
			cells = make([]Cell, len(g.Cells))
			for j, c := range g.Cells {
				cells[len(cells)-1-j] = c
			}
		}
		r := &Runner{Execution: softshape.Execution{Workers: 3}, Store: st, Load: cbfLoader, Train: fakeTrain(2 * time.Millisecond), OnExecute: calls.hook, NoReuse: true}
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], _ = r.Run(context.Background(), cells)
		}()
	}
	wg.Wait()
	for _, c := range g.Cells {
		if calls.n[c.Key] != 1 {
			t.Errorf("%s ran %d times", c.Key, calls.n[c.Key])
		}
		if rec, err := s.Read(c.Key); err != nil || rec.Status != StatusOK {
			t.Errorf("%s: %v", c.Key, err)
		}
	}
	if ran := reps[0].Ran + reps[1].Ran; ran != len(g.Cells) || reps[0].Ran == 0 || reps[1].Ran == 0 {
		t.Errorf("runs %d + %d of %d cells (both runners should work)", reps[0].Ran, reps[1].Ran, len(g.Cells))
	}
	if n := len(recordFiles(t, s.Root())); n != len(g.Cells) {
		t.Errorf("%d record files for %d cells", n, len(g.Cells))
	}
	if l := leftovers(t, s.Root()); len(l) != 0 {
		t.Errorf("left over: %v", l)
	}
}

// TestDefaultTrainIsTrainOfOneFold: the runner's training of one fold gives
// the result of softshape.Train with Folds = {fold}, and times inference.
func TestDefaultTrainIsTrainOfOneFold(t *testing.T) {
	ds, _ := cbfLoader("CBF-x")
	cfg, err := BaseConfig(false, tinySettings)
	if err != nil {
		t.Fatal(err)
	}
	backend, err := backends.New("")
	if err != nil {
		t.Fatal(err)
	}
	opts := softshape.RunOptions{Backend: backend, Seed: 3, NumFolds: NumFolds}
	out, err := DefaultTrain(ds, cfg, 2, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Folds = []int{2}
	res, err := softshape.Train(ds, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	a, b := out.Result, res.Folds[0]
	if a.Fold != 2 || a.TestAcc != b.TestAcc || math.Abs(a.ValLoss-b.ValLoss) > 1e-9 || a.BestEpoch != b.BestEpoch || a.Params != b.Params {
		t.Errorf("DefaultTrain %+v\nTrain %+v", fmt.Sprint(a.Fold, a.TestAcc, a.ValLoss, a.BestEpoch, a.Params), fmt.Sprint(b.Fold, b.TestAcc, b.ValLoss, b.BestEpoch, b.Params))
	}
	if out.InferenceSeconds <= 0 {
		t.Errorf("inference time %v", out.InferenceSeconds)
	}
}

// TestRunnerSpeedForms: Runner.Fast reaches the training's options
// (softshape.RunOptions.Fast) and each record says which form trained it; a
// plain run's record has no speed_forms field, as records written before it.
func TestRunnerSpeedForms(t *testing.T) {
	g := mustGrid(t, GridSpec{Table: "sparse_ratio", Datasets: []string{"CBF-a"}, Folds: []int{1}, Seeds: []int64{1}, Settings: tinySettings})
	for _, fast := range []bool{false, true} {
		var got []bool
		r := &Runner{Execution: softshape.Execution{Fast: fast}, Store: openStore(t), Load: cbfLoader, NoReuse: true,
			Train: func(ds *data.Dataset, cfg softshape.Config, fold int, opts softshape.RunOptions) (*Outcome, error) {
				got = append(got, opts.Fast)
				return fakeTrain(0)(ds, cfg, fold, opts)
			}}
		c := g.Cells[0]
		if rep, err := r.Run(context.Background(), []Cell{c}); err != nil || rep.Ran != 1 {
			t.Fatalf("SpeedForms %v: %+v %v", fast, rep, err)
		}
		if len(got) != 1 || got[0] != fast {
			t.Errorf("SpeedForms %v: the training saw Fast %v", fast, got)
		}
		rec, err := r.Store.Read(c.Key)
		if err != nil || rec.SpeedForms != fast {
			t.Fatalf("SpeedForms %v: record %+v, %v", fast, rec, err)
		}
		raw, err := os.ReadFile(r.Store.RecordPath(c.Key))
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(string(raw), `"speed_forms"`); has != fast {
			t.Errorf("SpeedForms %v: the record file has a speed_forms field: %v", fast, has)
		}
	}
	// The batched path takes its options from the same place.
	r := &Runner{Execution: softshape.Execution{Fast: true}}
	if opts := r.runOptions(nil, 8); !opts.Fast || opts.RefShapeLen != 8 || opts.NumFolds != NumFolds {
		t.Errorf("runOptions: %+v", opts)
	}
}

// TestRunnerStartsTheNamedBackend: without a backend given, the runner
// starts the one its Execution names, so a name no backend has fails the
// cell with a record whose error names it.
func TestRunnerStartsTheNamedBackend(t *testing.T) {
	g := mustGrid(t, GridSpec{Table: "sparse_ratio", Datasets: []string{"CBF-a"}, Folds: []int{1}, Seeds: []int64{1}, Settings: tinySettings})
	r := &Runner{Execution: softshape.Execution{BackendName: "nosuchbackend", MaxRuns: 1}, Store: openStore(t), Load: cbfLoader, NoReuse: true}
	c := g.Cells[0]
	if rep, err := r.Run(context.Background(), []Cell{c}); err != nil || rep.Failed != 1 {
		t.Fatalf("report %+v, %v: want the one cell failed", rep, err)
	}
	rec, err := r.Store.Read(c.Key)
	if err != nil || rec.Status != StatusFailed || !strings.Contains(rec.Error, "nosuchbackend") {
		t.Fatalf("record %+v, %v: want failed, naming the backend", rec, err)
	}
}
