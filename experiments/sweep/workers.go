package sweep

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/softshape"
)

// SingleThreadGoBackend is the pure-Go backend config that AutoWorkers gives
// each worker: every op runs on the calling goroutine (parallelism=0: no
// worker pool, so the pool deadlock of the default pure-Go setting cannot
// occur) and the ops of a graph run one after the other (ops_sequential: with
// parallelism=0 the parallel scheduler only adds bookkeeping, measured as
// ≈10–20% more CPU time per run), so one run keeps exactly one core busy.
const SingleThreadGoBackend = "go:parallelism=0,ops_sequential"

// WorkerPlan is how a sweep uses the machine's cores: how many cells train at
// once, and whether each worker has a backend of its own.
type WorkerPlan struct {
	// Workers is the number of cells trained at once (≥ 1).
	Workers int
	// OwnBackend, when not "", is the backend config every worker starts for
	// itself (Runner.NewBackend); "" means the workers share one backend
	// started from the sweep's backend config (Runner.Backend).
	OwnBackend string
	// Auto tells whether AutoWorkers chose the plan (-workers 0).
	Auto bool
	// Reason says in a few words why, for the sweep's log.
	Reason string
}

// String is the plan in one line, e.g. "2 workers, each on its own
// go:parallelism=0 backend (auto: ...)".
func (p WorkerPlan) String() string {
	how := "sharing one backend"
	switch {
	case p.OwnBackend != "":
		how = "each on its own " + p.OwnBackend + " backend"
	case p.Workers == 1:
		how = "on one backend"
	}
	plural := "s"
	if p.Workers == 1 {
		plural = ""
	}
	return fmt.Sprintf("%d worker%s, %s (%s)", p.Workers, plural, how, p.Reason)
}

// AutoWorkers is the automatic choice of workers (-workers 0,
// SOFTSHAPE_WORKERS=0) for a sweep on backendConfig with cpus usable cores
// (runtime.GOMAXPROCS(0), which follows the CPU affinity and cgroup limit of
// the process, hence a Slurm task's --cpus-per-task).
//
// On the pure-Go backend ("" and "go", "go:options"; FastestBackend when it
// resolves to pure Go here) with cpus ≥ 2 it is one worker per core, each
// with a backend of its own running every op single-threaded
// (SingleThreadGoBackend, the other options of the config kept): measured on
// 2 cores, two single-threaded runs side by side train ≈1.3–1.6× the samples
// per second of one run using both cores (BenchmarkSweepThroughput, and whole
// quick sweeps of the CLI; see environment.md), because one small-batch run
// keeps only ≈1.4 of 2 cores busy. A pure-Go config that sets its own
// parallelism (other than -1 or 0) is kept as it is, with 1 worker.
//
// Everything else gets 1 worker: ONNX Runtime serialises the runs of one
// process behind a lock (parallel runs belong in separate processes, e.g.
// -shard i/n) and already uses every core for one run; XLA uses all the cores
// (or the GPU) for one run; an unknown backend is not guessed at. One CPU
// gets 1 worker on the config as given.
//
// Every worker holds one run in memory (≈0.1–0.3 GB at the default batch of
// ≤ 16; several GB with batch_rule=large): give -workers N explicitly when
// memory is short.
func AutoWorkers(backendConfig string, cpus int) WorkerPlan {
	cfg := strings.TrimSpace(backendConfig)
	if strings.EqualFold(cfg, softshape.FastestBackend) {
		candidates, _ := softshape.FastestCandidates()
		cfg = candidates[0]
	}
	name, opts, _ := strings.Cut(cfg, ":")
	name = strings.ToLower(strings.TrimSpace(name))
	one := func(reason string) WorkerPlan { return WorkerPlan{Workers: 1, Auto: true, Reason: "auto: " + reason} }
	switch name {
	case "", "go":
	case "onnx", "onnxruntime":
		return one("ONNX Runtime runs one graph at a time per process and uses all cores for it; for parallel runs start separate processes with -shard i/n")
	case "xla":
		return one("XLA uses all cores (or the GPU) for one run")
	default:
		return one(fmt.Sprintf("backend %q: no automatic choice, give -workers N", name))
	}
	if cpus < 2 {
		return one("pure-Go backend on 1 CPU: one run on the backend as configured")
	}
	var kept []string
	for _, o := range strings.Split(opts, ",") {
		o = strings.TrimSpace(o)
		key, value, _ := strings.Cut(o, "=")
		switch {
		case o == "" || o == "ops_sequential":
		case strings.TrimSpace(key) == "parallelism":
			if p, err := strconv.Atoi(strings.TrimSpace(value)); err != nil || (p != -1 && p != 0) {
				return one(fmt.Sprintf("the backend config %q sets its own parallelism; give -workers N for more", backendConfig))
			}
		default:
			kept = append(kept, o)
		}
	}
	own := SingleThreadGoBackend
	if len(kept) > 0 {
		own += "," + strings.Join(kept, ",")
	}
	return WorkerPlan{Workers: cpus, OwnBackend: own, Auto: true,
		Reason: fmt.Sprintf("auto: pure-Go backend on %d CPUs: one single-threaded run per core trains more samples per second than one run on all cores", cpus)}
}

// PlanWorkers is the plan for a workers setting (the -workers flag,
// SOFTSHAPE_WORKERS) and a backend config as given to softshape.NewBackend
// ("" means $GOMLX_BACKEND, else softshape.DefaultBackend), for cells cells
// to run (0: unknown) on cpus cores: 0 is AutoWorkers(backendConfig, cpus)
// with no more per-core workers than cells, and a single cell on the backend
// as configured (all cores); N > 0 is N goroutines sharing one
// backend started from backendConfig (what -workers N always meant); N < 0 is
// an error.
func PlanWorkers(workers int, backendConfig string, cpus, cells int) (WorkerPlan, error) {
	if strings.TrimSpace(backendConfig) == "" {
		backendConfig = os.Getenv(compute.ConfigEnvVar)
	}
	switch {
	case workers < 0:
		return WorkerPlan{}, fmt.Errorf("workers %d: want 0 (automatic) or a positive number", workers)
	case workers == 0:
		p := AutoWorkers(backendConfig, cpus)
		switch {
		case p.OwnBackend == "" || cells <= 0 || cells >= p.Workers:
		case cells == 1:
			p = WorkerPlan{Workers: 1, Auto: true, Reason: "auto: 1 cell to run: one run on the backend as configured (all cores)"}
		default:
			p.Workers = cells
			p.Reason += fmt.Sprintf("; %d cells to run: %d workers", cells, cells)
		}
		return p, nil
	}
	return WorkerPlan{Workers: workers, Reason: "as asked"}, nil
}

// Apply sets up r for the plan: r.Workers, and either r.NewBackend starting
// p.OwnBackend for every worker (the Runner finalizes those), or r.Backend,
// one backend started now from backendConfig with softshape.NewBackend, which
// Apply returns for the caller to finalize after r.Run (nil in the first
// case). The error names the backend that failed to start.
func (p WorkerPlan) Apply(r *Runner, backendConfig string) (shared compute.Backend, err error) {
	r.Workers = max(1, p.Workers)
	if p.OwnBackend != "" {
		own := p.OwnBackend
		r.Backend, r.NewBackend = nil, func() (compute.Backend, error) { return softshape.NewBackend(own) }
		return nil, nil
	}
	shared, err = softshape.NewBackend(backendConfig)
	if err != nil {
		return nil, err
	}
	r.Backend, r.NewBackend = shared, nil
	return shared, nil
}
