package sweep

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/internal/backends"
)

// SingleThreadGoBackend is the pure-Go backend config of one single-threaded
// run per worker, backends.SingleThread. AutoWorkers gives it, a
// backend per worker, to a pure-Go config that asks for parallelism=0.
const SingleThreadGoBackend = backends.SingleThread

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

// String is the plan in one line, e.g. "2 workers, sharing one backend
// (auto: ...)".
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
// On the pure-Go backend with its default setting ("", "go",
// "go:parallelism=-1", backends.Fastest when it resolves to pure Go here) and
// cpus ≥ 2 it is one worker per core, all sharing that one backend. Measured
// on 2 cores (whole quick sweeps of the CLI, see docs/performance.md): 2 workers
// sharing the all-cores backend finish a sweep ≈1.4× faster than 1 worker
// (one small-batch run keeps only ≈1.3–1.5 of 2 cores busy), and as fast as
// or slightly faster than 2 workers each on a single-threaded backend of its
// own, with less memory. A pure-Go config asking for parallelism=0 gets one
// worker per core each on its own backend of that config (ops_sequential
// added unless the config chooses the op scheduling: SingleThreadGoBackend).
// Any other pure-Go config (a bounded worker pool: parallelism=N ≥ 1, or
// options without parallelism) is kept with 1 worker: the bounded pool is
// the one that can deadlock on few cores.
//
// Everything else gets 1 worker: ONNX Runtime serialises the runs of one
// process behind a lock and gives each run one thread per CPU the process may
// use (backends.ONNXThreads), so parallel runs belong in separate processes,
// one per core (-shard i/n, each confined with taskset -c or a cpuset); XLA uses all the cores
// (or the GPU) for one run; an unknown backend is not guessed at. One CPU
// gets 1 worker on the config as given.
//
// Every worker holds one run in memory (≈0.2–0.4 GB at the default batch of
// ≤ 16; several GB with batch_rule=large): give -workers N explicitly when
// memory is short.
func AutoWorkers(backendConfig string, cpus int) WorkerPlan {
	cfg := strings.TrimSpace(backendConfig)
	if strings.EqualFold(cfg, backends.Fastest) {
		candidates, _ := backends.FastestCandidates()
		cfg = candidates[0]
	}
	name, opts, _ := strings.Cut(cfg, ":")
	name = strings.ToLower(strings.TrimSpace(name))
	one := func(reason string) WorkerPlan { return WorkerPlan{Workers: 1, Auto: true, Reason: "auto: " + reason} }
	switch name {
	case "", "go":
	case "onnx", "onnxruntime":
		return one("ONNX Runtime runs one graph at a time per process, with one thread per CPU the process may use; for parallel runs start one process per core with -shard i/n, each confined with taskset -c")
	case "xla":
		return one("XLA uses all cores (or the GPU) for one run")
	default:
		return one(fmt.Sprintf("backend %q: no automatic choice, give -workers N", name))
	}
	if cpus < 2 {
		return one("pure-Go backend on 1 CPU: one run on the backend as configured")
	}
	parallelism, set, scheduled := -1, false, false
	var kept []string
	for _, o := range strings.Split(opts, ",") {
		o = strings.TrimSpace(o)
		key, value, _ := strings.Cut(o, "=")
		switch {
		case o == "":
			continue
		case strings.TrimSpace(key) == "parallelism":
			p, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil {
				p = 1 // not a number: let the backend say so, with 1 worker
			}
			parallelism, set = p, true
			continue
		case o == "ops_sequential" || o == "ops_parallel":
			scheduled = true
		}
		kept = append(kept, o)
	}
	switch {
	case parallelism == 0:
		own := "go:parallelism=0"
		if !scheduled {
			kept = append([]string{"ops_sequential"}, kept...)
		}
		if len(kept) > 0 {
			own += "," + strings.Join(kept, ",")
		}
		return WorkerPlan{Workers: cpus, OwnBackend: own, Auto: true,
			Reason: fmt.Sprintf("auto: single-threaded pure-Go backend on %d CPUs: one run per core, each on its own backend", cpus)}
	case parallelism != -1 || (!set && len(kept) > 0):
		return one(fmt.Sprintf("the pure-Go config %q uses a bounded worker pool (deadlock-prone when shared); give -workers N for more", backendConfig))
	}
	return WorkerPlan{Workers: cpus, Auto: true,
		Reason: fmt.Sprintf("auto: pure-Go backend on %d CPUs: one run per core sharing the all-cores backend, measured ≈1.4× the sweep throughput of 1 worker", cpus)}
}

// PlanWorkers is the plan for a workers setting (the -workers flag,
// SOFTSHAPE_WORKERS) and a backend config as given to backends.New
// ("" means $GOMLX_BACKEND, else backends.Default), for cells cells
// to run (0: unknown) on cpus cores: 0 is AutoWorkers(backendConfig, cpus)
// with no more workers than cells; N > 0 is N goroutines sharing one
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
		if cells > 0 && cells < p.Workers {
			p.Workers = cells
			p.Reason += fmt.Sprintf("; %d cell(s) to run: %d worker(s)", cells, cells)
		}
		return p, nil
	}
	return WorkerPlan{Workers: workers, Reason: "as asked"}, nil
}

// Apply sets up r for the plan: r.Workers, and either r.NewBackend starting
// p.OwnBackend for every worker (the Runner finalizes those), or r.Backend,
// one backend started now from backendConfig with backends.New, which
// Apply returns for the caller to finalize after r.Run (nil in the first
// case). The error names the backend that failed to start.
func (p WorkerPlan) Apply(r *Runner, backendConfig string) (shared compute.Backend, err error) {
	r.Workers = max(1, p.Workers)
	if p.OwnBackend != "" {
		own := p.OwnBackend
		r.Backend, r.NewBackend = nil, func() (compute.Backend, error) { return backends.New(own) }
		return nil, nil
	}
	shared, err = backends.New(backendConfig)
	if err != nil {
		return nil, err
	}
	r.Backend, r.NewBackend = shared, nil
	return shared, nil
}
