package softshape

// Execution is how runs execute, apart from what they compute: which
// backend runs the graphs, where the datasets come from, how many runs
// train at once and in which form. It is the one options type of how to
// run: RunOptions embeds it, and the CLI's flags, the sweeps
// (experiments/sweep.Runner, experiments/pipeline.Training), the notebooks
// (experiments/reproduce.Params) and the fidelity benchmark fill it. Only
// Fast changes a run's numbers (in the last bits); the rest changes its
// speed and memory.
type Execution struct {
	// BackendName names the backend to start (internal/backends.New): "go",
	// "onnx:cpu", "xla:cpu", "xla:cuda" or "fastest"; "" is $GOMLX_BACKEND,
	// else pure Go. A backend already started (RunOptions.Backend,
	// sweep.Runner.Backend) takes its place.
	BackendName string
	// DataRoot is the folder of the UCR datasets, one sub-folder each;
	// Offline forbids downloading one that is missing. Train and Fit take
	// their data loaded: these are for the callers that load it by name.
	DataRoot string
	Offline  bool
	// Workers is the number of a sweep's cells trained at once, each a
	// goroutine (0: automatic, experiments/sweep.PlanWorkers).
	Workers int
	// MaxRuns caps the runs Train, TrainRuns and the sweeps train at a time
	// (memory, speed): alone at the same time, or in one graph on a run
	// axis (RunAxis); 0 means backends.DefaultMaxRuns of the backend, 1 one
	// run at a time.
	MaxRuns int
	// RunAxis says whether the runs trained at a time (MaxRuns) share one
	// graph as one model with a leading run axis on every variable, where
	// the runs allow it (axisEligible), instead of each training alone:
	// RunAxisAuto (the zero value) is backends.DefaultRunAxis of the backend. A step
	// equals the run's alone within float rounding, which the sparse
	// phase's discrete choices (routing, top-K) can amplify over epochs
	// (docs/performance.md, "Many runs in one graph").
	RunAxis RunAxisMode
	// Fast trains the speed forms of speed.go (Build.Fast) instead of the
	// model's plain graphs: their sums run in other orders, so runs agree
	// with the plain ones to float32 rounding, not bit for bit. Off by
	// default: the fidelity benchmark has not been run on it. The gain is
	// in docs/performance.md, "Whole runs: where the time goes". A sweep's
	// record says which form trained it (speed_forms).
	Fast bool
}
