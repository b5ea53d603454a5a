package sweep

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
)

// TestAutoWorkers: the default pure-Go backend gets one worker per core
// sharing it; a single-threaded pure-Go config one backend per worker; a
// bounded-pool config or one CPU 1 worker; ONNX Runtime, XLA and unknown
// backends 1 worker.
func TestAutoWorkers(t *testing.T) {
	for _, c := range []struct {
		config  string
		cpus    int
		workers int
		own     string
		reason  string
	}{
		{"", 2, 2, "", "pure-Go backend on 2 CPUs: one run per core sharing"},
		{"go", 16, 16, "", "sharing the all-cores backend"},
		{backends.Default, 2, 2, "", "sharing"},
		{"go:parallelism=-1,ops_sequential", 3, 3, "", "sharing"},
		{"go:parallelism=0", 4, 4, SingleThreadGoBackend, "each on its own backend"},
		{" GO:parallelism=0,ops_sequential", 2, 2, SingleThreadGoBackend, "single-threaded"},
		{"go:parallelism=0,dependency_order", 2, 2, SingleThreadGoBackend + ",dependency_order", ""},
		{"go:ops_parallel,parallelism=0", 2, 2, "go:parallelism=0,ops_parallel", ""},
		{"go:parallelism=4", 8, 1, "", "bounded worker pool"},
		{"go:parallelism=x", 8, 1, "", "bounded worker pool"},
		{"go:ops_sequential", 8, 1, "", "bounded worker pool"},
		{"go", 1, 1, "", "1 CPU"},
		{"", 0, 1, "", "1 CPU"},
		{"onnx:cpu", 2, 1, "", "ONNX Runtime"},
		{"onnx:cpu,/opt/ort/libonnxruntime.so", 16, 1, "", "-shard"},
		{"onnxruntime", 16, 1, "", "ONNX Runtime"},
		{"xla:cpu", 16, 1, "", "XLA"},
		{"xla:cuda", 4, 1, "", "XLA"},
		{"tpu", 4, 1, "", `backend "tpu"`},
	} {
		p := AutoWorkers(c.config, c.cpus)
		if p.Workers != c.workers || p.OwnBackend != c.own || !p.Auto || !strings.HasPrefix(p.Reason, "auto: ") || !strings.Contains(p.Reason, c.reason) {
			t.Errorf("AutoWorkers(%q, %d) = %+v, want %d workers, own backend %q, reason with %q", c.config, c.cpus, p, c.workers, c.own, c.reason)
		}
	}
	// "fastest" follows what it resolves to here.
	candidates, _ := backends.FastestCandidates()
	p := AutoWorkers("fastest", 2)
	if isGo := strings.HasPrefix(candidates[0], "go"); isGo != (p.Workers == 2 && p.OwnBackend == "") || !isGo && p.Workers != 1 {
		t.Errorf("AutoWorkers(fastest → %s) = %+v", candidates[0], p)
	}
	if s := AutoWorkers("go", 2).String(); s != "2 workers, sharing one backend (auto: pure-Go backend on 2 CPUs: one run per core sharing the all-cores backend, measured ≈1.4× the sweep throughput of 1 worker)" {
		t.Errorf("String() = %q", s)
	}
	if s := AutoWorkers("go:parallelism=0", 2).String(); !strings.HasPrefix(s, "2 workers, each on its own "+SingleThreadGoBackend+" backend (auto: ") {
		t.Errorf("String() = %q", s)
	}
}

// TestPlanWorkers: N > 0 is N workers sharing one backend; 0 is automatic,
// with no more workers than cells; "" follows $GOMLX_BACKEND; negative is an
// error.
func TestPlanWorkers(t *testing.T) {
	t.Setenv(compute.ConfigEnvVar, "")
	for _, c := range []struct {
		workers       int
		config        string
		cpus, cells   int
		wantWorkers   int
		wantOwn       string
		reasonContain string
	}{
		{3, "go", 2, 10, 3, "", "as asked"},
		{1, "go", 16, 10, 1, "", "as asked"},
		{2, "onnx:cpu", 16, 10, 2, "", "as asked"},
		{2, "go:parallelism=0", 16, 10, 2, "", "as asked"},
		{0, "go", 2, 10, 2, "", "auto: pure-Go"},
		{0, "", 8, 0, 8, "", "auto: pure-Go"},
		{0, "go", 8, 3, 3, "", "3 cell(s) to run: 3 worker(s)"},
		{0, "go:parallelism=0", 8, 3, 3, SingleThreadGoBackend, "3 cell(s) to run"},
		{0, "go", 2, 1, 1, "", "1 cell(s) to run: 1 worker(s)"},
		{0, "onnx:cpu", 16, 10, 1, "", "ONNX Runtime"},
	} {
		p, err := PlanWorkers(c.workers, c.config, c.cpus, c.cells)
		if err != nil || p.Workers != c.wantWorkers || p.OwnBackend != c.wantOwn || p.Auto != (c.workers == 0) || !strings.Contains(p.Reason, c.reasonContain) {
			t.Errorf("PlanWorkers(%d, %q, %d, %d) = %+v, %v; want %d workers, own backend %q, reason with %q",
				c.workers, c.config, c.cpus, c.cells, p, err, c.wantWorkers, c.wantOwn, c.reasonContain)
		}
	}
	if _, err := PlanWorkers(-1, "go", 2, 10); err == nil || !strings.Contains(err.Error(), "workers -1") {
		t.Errorf("PlanWorkers(-1): %v", err)
	}
	t.Setenv(compute.ConfigEnvVar, "xla:cuda")
	if p, _ := PlanWorkers(0, "", 8, 10); p.Workers != 1 || !strings.Contains(p.Reason, "XLA") {
		t.Errorf("with $GOMLX_BACKEND=xla:cuda: %+v", p)
	}
	t.Setenv(compute.ConfigEnvVar, "go:parallelism=0")
	if p, _ := PlanWorkers(0, "", 2, 10); p.Workers != 2 || p.OwnBackend != SingleThreadGoBackend {
		t.Errorf("with $GOMLX_BACKEND=go:parallelism=0: %+v", p)
	}
}

// TestWorkerPlanApply: a per-worker plan sets NewBackend and starts nothing;
// a shared plan starts the backend and hands it to the caller.
func TestWorkerPlanApply(t *testing.T) {
	r := &Runner{Execution: softshape.Execution{Workers: 7}}
	shared, err := AutoWorkers("go:parallelism=0", 2).Apply(r, "go:parallelism=0")
	if err != nil || shared != nil || r.NewBackend == nil || r.Backend != nil || r.Workers != 2 {
		t.Fatalf("per-worker plan: %v %v, runner %+v", shared, err, r)
	}
	b, err := r.NewBackend()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.Description(), "parallelism=0") {
		t.Errorf("per-worker backend %s", b.Description())
	}
	b.Finalize()
	shared, err = WorkerPlan{Workers: 1}.Apply(r, "go")
	if err != nil || shared == nil || r.Backend != shared || r.NewBackend != nil || r.Workers != 1 {
		t.Fatalf("shared plan: %v %v, runner %+v", shared, err, r)
	}
	if !strings.Contains(shared.Description(), "parallelism=-1") {
		t.Errorf("shared backend %s", shared.Description())
	}
	shared.Finalize()
	if _, err := (WorkerPlan{Workers: 1}).Apply(r, "nope:x"); err == nil || !strings.Contains(err.Error(), `"nope:x"`) {
		t.Errorf("unknown backend: %v", err)
	}
}

// fakeBackend is a compute.Backend that only knows its name and whether it
// was finalized (the fake Train functions never build graphs), and counts the
// cells training on it at once.
type fakeBackend struct {
	compute.Backend
	finalized atomic.Bool
	inUse     atomic.Int32
}

func (b *fakeBackend) Name() string        { return "fake" }
func (b *fakeBackend) Description() string { return "fake backend v0" }
func (b *fakeBackend) Finalize()           { b.finalized.Store(true) }
func (b *fakeBackend) IsFinalized() bool   { return b.finalized.Load() }

// TestRunnerPerWorkerBackends: with NewBackend, each worker starts one backend
// at its first cell, trains every cell of it there and never shares it, and
// Run finalizes them all; a Run with nothing to train starts none; a failing
// NewBackend fails the cell with the error; the default shared backend the
// Runner starts itself is finalized too.
func TestRunnerPerWorkerBackends(t *testing.T) {
	s := openStore(t)
	g := mustGrid(t, GridSpec{Table: "sparse_ratio", Datasets: []string{"CBF-a"}, Folds: []int{1, 2, 3}, Seeds: []int64{1}, Settings: tinySettings})
	var (
		mu      sync.Mutex
		created []*fakeBackend
		used    = map[*fakeBackend]int{}
		bad     []string
	)
	newBackend := func() (compute.Backend, error) {
		mu.Lock()
		defer mu.Unlock()
		b := &fakeBackend{}
		created = append(created, b)
		return b, nil
	}
	train := func(ds *data.Dataset, cfg softshape.Config, fold int, opts softshape.RunOptions) (*Outcome, error) {
		b, _ := opts.Backend.(*fakeBackend)
		mu.Lock()
		switch {
		case b == nil:
			bad = append(bad, "not a per-worker backend")
		case b.IsFinalized():
			bad = append(bad, "finalized backend in use")
		}
		used[b]++
		mu.Unlock()
		if b != nil && b.inUse.Add(1) != 1 {
			mu.Lock()
			bad = append(bad, "backend shared by two cells at once")
			mu.Unlock()
		}
		defer func() {
			if b != nil {
				b.inUse.Add(-1)
			}
		}()
		return fakeTrain(20*time.Millisecond)(ds, cfg, fold, opts)
	}
	r := &Runner{Execution: softshape.Execution{Workers: 3}, Store: s, Load: cbfLoader, Train: train, NewBackend: newBackend, NoReuse: true}
	rep, err := r.Run(context.Background(), g.Cells)
	if err != nil || rep.Ran != len(g.Cells) || rep.Failed != 0 || len(rep.Errors) != 0 {
		t.Fatalf("report %+v, %v", rep, err)
	}
	if len(bad) > 0 {
		t.Errorf("problems: %v", bad)
	}
	if len(created) < 2 || len(created) > 3 {
		t.Errorf("%d backends started for 3 workers and %d cells (want one per worker that trained, at least 2)", len(created), len(g.Cells))
	}
	total := 0
	for _, b := range created {
		total += used[b]
		if !b.IsFinalized() {
			t.Errorf("a worker's backend was not finalized")
		}
		if used[b] == 0 {
			t.Errorf("a backend was started for no cell")
		}
	}
	if total != len(g.Cells) {
		t.Errorf("%d cells trained on the per-worker backends, want %d", total, len(g.Cells))
	}
	rec, err := s.Read(g.Cells[0].Key)
	if err != nil || rec.Backend != "fake" || rec.BackendDetail != "fake backend v0" {
		t.Errorf("record backend %v %v", rec, err)
	}

	// Nothing left to train: no backend is started.
	n := len(created)
	if rep, _ := r.Run(context.Background(), g.Cells); rep.Done != len(g.Cells) || len(created) != n {
		t.Errorf("second run %+v started %d backends", rep, len(created)-n)
	}

	// A backend that cannot start fails the cell, naming the cause.
	r = &Runner{Execution: softshape.Execution{Workers: 2}, Store: openStore(t), Load: cbfLoader, Train: fakeTrain(0), NoReuse: true,
		NewBackend: func() (compute.Backend, error) { return nil, errors.New("no such backend") }}
	rep, err = r.Run(context.Background(), g.Cells[:2])
	if err != nil || rep.Failed != 2 {
		t.Fatalf("failing NewBackend: %+v %v", rep, err)
	}
	if rec, err := r.Store.Read(g.Cells[0].Key); err != nil || !strings.Contains(rec.Error, "Runner.NewBackend") || !strings.Contains(rec.Error, "no such backend") {
		t.Errorf("failing NewBackend record: %+v %v", rec, err)
	}

	// The default backend (Backend and NewBackend nil) is shared and finalized at the end.
	var got []compute.Backend
	r = &Runner{Execution: softshape.Execution{Workers: 2}, Store: openStore(t), Load: cbfLoader, NoReuse: true,
		Train: func(ds *data.Dataset, cfg softshape.Config, fold int, opts softshape.RunOptions) (*Outcome, error) {
			mu.Lock()
			got = append(got, opts.Backend)
			mu.Unlock()
			return fakeTrain(0)(ds, cfg, fold, opts)
		}}
	if rep, err := r.Run(context.Background(), g.Cells); err != nil || rep.Ran != len(g.Cells) {
		t.Fatalf("default backend: %+v %v", rep, err)
	}
	for _, b := range got {
		if b != got[0] || !b.IsFinalized() {
			t.Errorf("default backend: not one shared backend finalized at the end (%p vs %p, finalized %v)", b, got[0], b.IsFinalized())
		}
	}
	// A Backend given by the caller stays the caller's.
	given := &fakeBackend{}
	r = &Runner{Store: openStore(t), Load: cbfLoader, Train: fakeTrain(0), Backend: given, NoReuse: true}
	if rep, err := r.Run(context.Background(), g.Cells[:1]); err != nil || rep.Ran != 1 || given.IsFinalized() {
		t.Errorf("given backend: %+v %v, finalized %v", rep, err, given.IsFinalized())
	}
}
