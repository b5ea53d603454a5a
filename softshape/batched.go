package softshape

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"gonum.org/v1/gonum/stat"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape/fit"
)

// RunSpec is one training run of a batched job (TrainRuns): a configuration,
// the protocol seed and a fold.
type RunSpec struct {
	// Config holds the run's hyperparameters and protocol switches.
	Config Config
	// Seed plays the role of RunOptions.Seed in Train: it fixes the folds
	// (data.Folds with this seed) and, with Fold, the run's initial weights,
	// dropout stream and batch order (those of Train's fold with RunOptions.Seed
	// Seed).
	Seed int64
	// Fold is the 0-based fold index.
	Fold int
}

// RunError reports a run of TrainRuns that failed (a non-finite loss, say);
// the other runs of the job go on. TrainRuns joins one per failed run.
type RunError struct {
	// Run is the index of the run in TrainRuns' runs.
	Run  int
	Spec RunSpec
	Err  error
}

// Error names the run, its seed, its fold by number (1-based) and the cause.
func (e *RunError) Error() string {
	return fmt.Sprintf("run %d (seed %d fold %d): %v", e.Run, e.Spec.Seed, e.Spec.Fold+1, e.Err)
}

// Unwrap returns the cause, so errors.Is(err, ErrNonFinite) sees through.
func (e *RunError) Unwrap() error { return e.Err }

// TrainRuns trains runs, independent training runs of one dataset, R at a time
// at a time, and returns one FoldResult per run in the order given. Each run
// is the computation Train performs for its fold (same folds, initial
// weights, dropout stream, batch order, model selection, early stopping and
// test evaluation as Train with RunOptions.Seed = spec.Seed).
//
// The R runs of a group train one of two ways. With a run axis
// (opts.RunAxis, RunAxisMode.Enabled: by default on XLA with a GPU) and runs
// that allow one (axisEligible: fresh runs whose settings differ at most in
// λ, the learning rate, the epochs and the patience), they share one
// compiled graph per step: one model with a leading run axis on every
// variable, each run with its own Adam state, learning rate, λ and RNG
// stream; a run with fewer steps in an epoch, or that stopped, stays in the
// graph masked. Otherwise each run trains alone (a run axis of one: the
// single-run model, as Train trains it), the R runs at the same time, one
// goroutine each sharing the backend (the pure Go executor runs their
// graphs concurrently; compute-onnx serialises a process's graphs), so a
// run's numbers are exactly those of training it alone.
//
// The runs may differ in any setting. Runs with fold_reset=carry form chains
// (same Config and Seed) whose folds are trained in order, 0 up to the last
// one asked for, each continuing from the weights and Adam state the
// previous one ended with (not its selected weights: the authors' code never
// restores them); a chain trains alone, beside the other runs of its group.
//
// At most opts.MaxRuns runs (0: DefaultMaxRuns(backend)) train at a time;
// the job trains groups of that many one after the other (a
// fold_reset=carry chain counts as one run). opts.StoppedRuns changes
// nothing (a stopped run always stays in its run axis, masked). opts.Seed and
// opts.Folds are ignored (the RunSpecs carry them); opts.OnEpoch is called
// after every epoch of every run, from the calling goroutine; with
// opts.CheckpointDir the selected model of each run is saved to
// CheckpointDir/fold-N when all runs share one seed, else to
// CheckpointDir/seed-S/fold-N, N the 1-based fold number (CheckpointFoldDir).
//
// Runs that fail (a non-finite loss) are reported by the returned error, which
// joins one *RunError per failed run; their FoldResult holds the epochs run
// and a NaN test accuracy, and the other runs' results are complete. A
// checkpoint not saved joins a *SaveError; that run's result is complete.
func TrainRuns(ds *data.Dataset, runs []RunSpec, opts RunOptions) ([]FoldResult, error) {
	return trainRuns(ds, runs, opts, opts.MaxRuns)
}

// TrainRunsCounted is TrainRuns that also returns the number of training and
// evaluation graphs it built (trainRunsCounted), which the batched timings of
// experiments/timing report.
func TrainRunsCounted(ds *data.Dataset, runs []RunSpec, opts RunOptions) ([]FoldResult, int, error) {
	return trainRunsCounted(ds, runs, opts, opts.MaxRuns)
}

// trainRuns is TrainRuns with at most maxRuns runs per graph (0: DefaultMaxRuns).
func trainRuns(ds *data.Dataset, runs []RunSpec, opts RunOptions, maxRuns int) ([]FoldResult, error) {
	res, _, err := trainRunsCounted(ds, runs, opts, maxRuns)
	return res, err
}

// trainRunsCounted is trainRuns that also returns the number of graphs it
// built (training and evaluation graphs of the jobs, not counting each one's
// compilations per input shape): what XLA spends its compilation time on.
func trainRunsCounted(ds *data.Dataset, runs []RunSpec, opts RunOptions, maxRuns int) ([]FoldResult, int, error) {
	if len(runs) == 0 {
		return nil, 0, nil
	}
	if _, err := ParseStoppedRuns(string(opts.StoppedRuns)); err != nil {
		return nil, 0, err
	}
	axisMode, err := ParseRunAxis(string(opts.RunAxis))
	if err != nil {
		return nil, 0, err
	}
	if opts.NumFolds == 0 {
		opts.NumFolds = ProtocolFolds
	}
	backend := opts.Backend
	if backend == nil {
		if backend, err = backends.New(""); err != nil {
			return nil, 0, err
		}
	}
	if maxRuns <= 0 {
		maxRuns = DefaultMaxRuns(backend)
	}
	axis := axisMode.Enabled(backend)
	chains, err := planChains(ds, runs, opts)
	if err != nil {
		return nil, 0, err
	}
	seeds := map[int64]bool{}
	for _, r := range runs {
		seeds[r.Seed] = true
	}
	results := make([]FoldResult, len(runs))
	var runErrs []error
	graphs := 0
	for lo := 0; lo < len(chains); lo += maxRuns {
		group := chains[lo:min(lo+maxRuns, len(chains))]
		var jobs [][]*chainSpec
		if axis && len(group) > 1 && axisEligible(group) == nil {
			jobs = [][]*chainSpec{group}
		} else {
			for _, c := range group {
				jobs = append(jobs, []*chainSpec{c})
			}
		}
		errs, n, err := trainJobs(backend, ds, jobs, opts, len(seeds) > 1, results)
		graphs += n
		if err != nil {
			return nil, graphs, err
		}
		runErrs = append(runErrs, errs...)
	}
	return results, graphs, errors.Join(runErrs...)
}

// trainJobs trains jobs, each the chains of one batchJob, at the same time,
// one goroutine each, sharing backend, and fills results. opts.OnEpoch is
// called from the calling goroutine. It returns the jobs' run errors (in
// the jobs' order) and the graphs they built; the error is the first
// failure of a job itself.
func trainJobs(backend compute.Backend, ds *data.Dataset, jobs [][]*chainSpec, opts RunOptions, manySeeds bool, results []FoldResult) ([]error, int, error) {
	type outcome struct {
		errs   []error
		graphs int
		err    error
	}
	epochs := make(chan EpochStats)
	done := make(chan int)
	outs := make([]outcome, len(jobs))
	o := opts
	if opts.OnEpoch != nil {
		o.OnEpoch = func(es EpochStats) { epochs <- es }
	}
	for i, chains := range jobs {
		go func() {
			defer func() { done <- i }()
			job, err := newBatchJob(backend, chains, opts.RefShapeLen)
			if err != nil {
				outs[i].err = err
				return
			}
			outs[i].errs, outs[i].err = job.train(ds, o, manySeeds, results)
			outs[i].graphs = job.graphs
			job.finalize()
		}()
	}
	for left := len(jobs); left > 0; {
		select {
		case es := <-epochs:
			opts.OnEpoch(es)
		case <-done:
			left--
		}
	}
	var runErrs []error
	graphs := 0
	for _, out := range outs {
		if out.err != nil {
			return nil, graphs, out.err
		}
		runErrs = append(runErrs, out.errs...)
		graphs += out.graphs
	}
	return runErrs, graphs, nil
}

// DefaultMaxRuns is the default cap on R, the runs TrainRuns, Train and the
// sweeps train at a time, chosen per backend from measurements
// (docs/performance.md, "Many runs in one graph"): the CPU backends on this
// project's 2-core machines, CUDA on an H100 and an H200:
//
//   - pure Go: 10, trained alone at the same time. R runs as independent
//     subgraphs of one graph (the model copies TrainRuns had until issue
//     38) kept both cores busy: a GunPoint step of R runs cost 1/1.2–1/1.4
//     of the R separate steps, and 5 folds × 2 seeds of a 20-epoch protocol
//     trained 1.9× as fast, for ≈60 MiB more peak memory per run; R runs
//     alone at once keep them busy the same way.
//   - ONNX Runtime: 1. A step is bound by arithmetic; with ORT's own thread
//     pool on both cores R runs in one graph ran 0.84–0.89× as fast per step
//     and 0.66–0.81× over the protocol, and with one thread in a one-core
//     cpuset (backends.ONNXThreads) 0.81–0.91× over a 20-epoch protocol and
//     0.95–1.00× over the full one (GunPoint, ECG200); a run axis 0.91–1.01×.
//   - XLA on a GPU: 10, with the run axis DefaultRunAxis turns on there. A
//     step is latency-bound, and one kernel serves all R runs: on an H100
//     the full protocol of GunPoint took 83.6 s for 5 runs as R = 5 and
//     129.4 s for 10 as R = 10, against 160.3 s for 5 one at a time (1.9×
//     and 2.5×). As model copies (R subgraphs in one graph, which TrainRuns
//     no longer builds) R runs launched R times the kernels: 0.85× on an
//     H200 at R = 10, 1.1× on the H100 at R = 5.
//   - anything else (XLA on a CPU): 1, unmeasured.
//
// RunOptions.MaxRuns and the CLI's -max-runs override it.
func DefaultMaxRuns(backend compute.Backend) int {
	if backend == nil {
		return 1
	}
	if strings.HasPrefix(strings.ToLower(backend.Name()), "go") || DefaultRunAxis(backend) { // "Go Backend"; XLA on a GPU
		return 10
	}
	return 1
}

// DefaultRunAxis reports whether TrainRuns uses a run axis on backend when
// RunOptions.RunAxis is RunAxisAuto: on XLA with an accelerator (CUDA), where
// it trained 1.9–2.5× as fast as one run at a time (DefaultMaxRuns); not on
// the CPU backends, where a step is bound by arithmetic: it measured
// 0.91–1.01× on ONNX Runtime and slower than one run at a time on pure Go,
// where runs alone at the same time use both cores instead.
func DefaultRunAxis(backend compute.Backend) bool {
	return backend != nil && xlaOnAccelerator(backend.Name(), backend.Description())
}

// xlaOnAccelerator reports whether a backend of this name and description is
// XLA with a plugin other than the CPU one: go-xla's backend is named "xla"
// and described as "xla:PLUGIN - ...".
func xlaOnAccelerator(name, description string) bool {
	if name != "xla" {
		return false
	}
	plugin, _, _ := strings.Cut(strings.TrimPrefix(description, "xla:"), " ")
	return plugin != "" && plugin != "cpu"
}

// chainSpec is the unit of batching: one fresh run, or the folds of one
// fold_reset=carry chain in training order. want[i] is the index in TrainRuns'
// runs of the i-th fold's result, or -1 when that fold only feeds the chain.
type chainSpec struct {
	cfg   Config
	seed  int64
	folds []int
	want  []int
	m     *Model
	fds   []*data.FoldData
}

// planChains validates the runs, prepares their folds and groups carry runs
// into chains.
func planChains(ds *data.Dataset, runs []RunSpec, opts RunOptions) ([]*chainSpec, error) {
	splitsBySeed := map[int64][]data.Split{}
	prepared := map[[2]int64]*data.FoldData{}
	prepare := func(seed int64, fold int) (*data.FoldData, error) {
		if fd, ok := prepared[[2]int64{seed, int64(fold)}]; ok {
			return fd, nil
		}
		splits, ok := splitsBySeed[seed]
		if !ok {
			var err error
			if splits, err = data.Folds(ds, opts.NumFolds, seed); err != nil {
				return nil, fmt.Errorf("dataset %s: %w", ds.Name, err)
			}
			splitsBySeed[seed] = splits
		}
		if fold < 0 || fold >= len(splits) {
			return nil, fmt.Errorf("fold index %d out of range: %d folds (indices 0..%d)", fold, len(splits), len(splits)-1)
		}
		fd, err := data.Prepare(ds, splits[fold])
		if err != nil {
			return nil, fmt.Errorf("dataset %s fold %d: %w", ds.Name, fold+1, err)
		}
		prepared[[2]int64{seed, int64(fold)}] = fd
		return fd, nil
	}
	var chains []*chainSpec
	carry := map[string]*chainSpec{}
	for i, r := range runs {
		m, err := New(r.Config, ds.Length, ds.NumClasses(), opts.RefShapeLen)
		if err != nil {
			return nil, fmt.Errorf("dataset %s run %d: %w", ds.Name, i, err)
		}
		m.Fast = opts.Fast
		if _, err := prepare(r.Seed, r.Fold); err != nil {
			return nil, fmt.Errorf("run %d: %w", i, err)
		}
		if !r.Config.CarriesFolds() {
			chains = append(chains, &chainSpec{cfg: r.Config, seed: r.Seed, folds: []int{r.Fold}, want: []int{i}, m: m})
			continue
		}
		key := fmt.Sprintf("%d|%s", r.Seed, r.Config)
		c, ok := carry[key]
		if !ok {
			c = &chainSpec{cfg: r.Config, seed: r.Seed, m: m}
			carry[key] = c
			chains = append(chains, c)
		}
		for len(c.folds) <= r.Fold {
			c.folds = append(c.folds, len(c.folds))
			c.want = append(c.want, -1)
		}
		if c.want[r.Fold] >= 0 {
			return nil, fmt.Errorf("run %d repeats run %d (seed %d fold %d, fold_reset=carry)", i, c.want[r.Fold], r.Seed, r.Fold+1)
		}
		c.want[r.Fold] = i
	}
	for _, c := range chains {
		for _, f := range c.folds {
			fd, err := prepare(c.seed, f)
			if err != nil {
				return nil, err
			}
			c.fds = append(c.fds, fd)
		}
	}
	return chains, nil
}

// batchJob trains up to R chains ("slots") as one model with a run axis
// (axisRuns), R = 1 being the single-run model. Its store holds a model copy
// per slot, under the slot's scope, only to create a run axis of several
// runs' variables (materialize, stackRuns).
type batchJob struct {
	backend compute.Backend
	store   *model.Store
	slots   []*slot
	rngVar  *model.Variable // the store's own RNG state, swapped for each slot's
	// graphs counts the training and evaluation graphs built.
	graphs int
	// axis trains and validates the slots as one model with a run axis
	// (batched_axis.go), set by axisStart.
	axis *axisRuns
	// apart holds the runs' selected models apart (runModel), by slot.
	apart map[int]*Trained
}

// slot is one chain in the job: its model copy's scope, its own RNG state
// variable (dropout, initialisation), batch-order generator and the phases
// whose variables exist already.
type slot struct {
	chain *chainSpec
	scope string
	rng   *model.Variable
	// order draws the batch order from pcg (kept to save a carried
	// chain's state, FoldChain.SaveCarried).
	order      *rand.Rand
	pcg        *rand.PCG
	made       map[Phase]bool
	lambda, lr float64
}

func newBatchJob(backend compute.Backend, chains []*chainSpec, refShapeLen int) (*batchJob, error) {
	store := model.NewStore()
	if err := store.SetRNGStateFromSeed(0); err != nil {
		return nil, fmt.Errorf("seeding the batched store: %w", err)
	}
	j := &batchJob{backend: backend, store: store,
		rngVar: store.GetVariable(model.JoinPath("/", model.RNGStateVariableName))}
	if j.rngVar == nil {
		return nil, errors.New("batched store: no RNG state variable after seeding")
	}
	for i, c := range chains {
		name := fmt.Sprintf("run_%d", i)
		sc := store.RootScope().In("%s", name)
		for _, p := range c.cfg.params() {
			sc.SetParam(p.name, p.value)
		}
		sc.SetParam(paramSeriesLen, c.m.Shape.SeriesLen)
		sc.SetParam(paramNumClasses, c.m.Shape.NumClasses)
		sc.SetParam(paramRefShapeLen, refShapeLen)
		seed := c.seed + int64(c.folds[0])
		state, err := graph.RNGStateFromSeed(seed)
		if err != nil {
			return nil, fmt.Errorf("seeding run %d: %w", i, err)
		}
		v, err := sc.CreateVariable("rng_state", state)
		if err != nil {
			return nil, fmt.Errorf("run %d RNG state: %w", i, err)
		}
		v.SetTrainable(false)
		pcg := rand.NewPCG(uint64(seed), 0x50f75a9e)
		j.slots = append(j.slots, &slot{
			chain: c, scope: "/" + name, rng: v, made: map[Phase]bool{},
			order: rand.New(pcg), pcg: pcg,
			lambda: c.cfg.MoELossWeight, lr: c.cfg.LearningRate,
		})
	}
	if err := j.axisStart(); err != nil {
		j.finalize()
		return nil, err
	}
	return j, nil
}

func (j *batchJob) finalize() {
	if j.axis != nil {
		j.axis.finalize()
		j.axis = nil
	}
	for _, t := range j.apart {
		t.finalize()
	}
	j.apart = nil
	j.store.Finalize()
}

// materialize creates and initialises the variables slot s's model has on
// phase (initVariables), drawing their initial values from the slot's RNG
// state exactly as one run alone draws them from its store's, before any
// graph sharing them with other slots is built (whose lazy initialisation
// would draw from the store's RNG).
func (j *batchJob) materialize(si int, phase Phase, batch int) error {
	s := j.slots[si]
	if s.made[phase] {
		return nil
	}
	val, err := s.rng.Value()
	if err != nil {
		return fmt.Errorf("reading run %d RNG state: %w", si, err)
	}
	c, err := val.LocalClone()
	if err != nil {
		return err
	}
	if err := j.rngVar.SetValue(c); err != nil {
		return err
	}
	if err := initVariables(j.backend, j.store, j.store.Scope(s.scope), s.chain.m, phase, batch); err != nil {
		return fmt.Errorf("run %d %s variables: %w", si, phase, err)
	}
	after, err := j.rngVar.Value()
	if err != nil {
		return err
	}
	c, err = after.LocalClone()
	if err != nil {
		return err
	}
	if err := s.rng.SetValue(c); err != nil {
		return err
	}
	s.made[phase] = true
	return nil
}

// initVariables creates and initialises the variables m has on phase in
// scope of store, drawing their initial values from store's RNG state: it
// builds an inference forward pass on zeros (batch series), which creates
// the variables, but returns only a sum of the graph's parameters:
// compilers drop the unused pass, so only the initialisation graph costs
// compilation (the whole forward pass had cost ≈6 s a run on XLA CUDA).
func initVariables(backend compute.Backend, store *model.Store, scope *model.Scope, m *Model, phase Phase, batch int) error {
	e, err := model.NewExec(backend, store, func(_ *model.Scope, x *graph.Node) *graph.Node {
		g := x.Graph()
		store.SetTraining(g, false)
		m.Forward(scope, x, phase)
		// Every parameter feeds the output (pure Go's executor wants each one
		// used), the forward pass does not.
		sum := graph.ScalarZero(g, dtypes.Float32)
		for i := range g.NumParameters() {
			p := g.GetParameterByHandle(graph.ParameterHandle(i))
			sum = graph.Add(sum, graph.ReduceAllSum(graph.ConvertDType(p, dtypes.Float32)))
		}
		return sum
	})
	if err != nil {
		return err
	}
	defer e.Finalize()
	x := tensors.FromFlatDataAndDimensions(make([]float32, batch*m.Shape.SeriesLen), batch, m.Shape.SeriesLen)
	out, err := e.Call(x)
	x.FinalizeAll()
	if err != nil {
		return fmt.Errorf("initialising: %w", err)
	}
	for _, t := range out {
		t.FinalizeAll()
	}
	return nil
}

// correctCount is the number of rows of logits [B, C] whose arg-max is y [B, 1].
func correctCount(logits, y *graph.Node) *graph.Node {
	pred := graph.ArgMax(logits, -1, y.DType())
	hit := graph.Equal(pred, graph.Reshape(y, y.Shape().Dimensions[0]))
	return graph.ReduceAllSum(graph.ConvertDType(hit, dtypes.Float32))
}

// train runs the job's chains round by round (round k trains the k-th fold of
// every chain that has one) and fills results. It returns the failed runs'
// errors; the error is for failures of the job itself.
func (j *batchJob) train(ds *data.Dataset, opts RunOptions, manySeeds bool, results []FoldResult) ([]error, error) {
	var runErrs []error
	rounds := 0
	for _, s := range j.slots {
		rounds = max(rounds, len(s.chain.folds))
	}
	failed := make([]bool, len(j.slots))
	for k := range rounds {
		_, errs, err := j.round(k, ds, opts, manySeeds, results, failed)
		if err != nil {
			return nil, err
		}
		runErrs = append(runErrs, errs...)
	}
	return runErrs, nil
}

// round trains round k of the job: the k-th fold of every chain that has one
// and has not failed (failed, by slot, is updated), each result into
// results at its want index. It returns the runs' states, the failed runs'
// errors (*RunError) and the checkpoints not saved (*SaveError); the error is
// for failures of the job itself.
func (j *batchJob) round(k int, ds *data.Dataset, opts RunOptions, manySeeds bool, results []FoldResult, failed []bool) ([]*runState, []error, error) {
	var states []*runState
	for si, s := range j.slots {
		if k >= len(s.chain.folds) || failed[si] {
			continue
		}
		st, err := newRunState(si, s.chain.want[k], s.chain.folds[k], s.chain.cfg, s.chain.fds[k], slotWeights{j, si}, s.order)
		if err != nil {
			return nil, nil, err
		}
		if opts.CheckpointDir != "" && st.want >= 0 {
			st.checkpoint = CheckpointFoldDir(opts.CheckpointDir, st.fold)
			if manySeeds {
				st.checkpoint = CheckpointFoldDir(filepath.Join(opts.CheckpointDir, fmt.Sprintf("seed-%d", s.chain.seed)), st.fold)
			}
		}
		states = append(states, st)
	}
	if err := trainRound(j, states, opts); err != nil {
		return nil, nil, err
	}
	var runErrs []error
	for _, st := range states {
		if st.Err != nil {
			failed[st.si] = true
			fr := *st.fr
			fr.TestAcc, fr.ValLoss = math.NaN(), math.NaN()
			fr.Wall = time.Since(st.start)
			if st.want >= 0 {
				results[st.want] = fr
			}
			s := j.slots[st.si]
			runErrs = append(runErrs, &RunError{Run: st.want, Spec: RunSpec{Config: s.chain.cfg, Seed: s.chain.seed, Fold: st.fold},
				Err: fmt.Errorf("dataset %s fold %d: %w", ds.Name, st.fold+1, st.Err)})
			continue
		}
		if st.want >= 0 {
			results[st.want] = *st.fr
		}
		if st.saveErr != nil {
			runErrs = append(runErrs, st.saveErr) // the result stands
		}
	}
	return states, runErrs, nil
}

// trainEpoch is the engine's: on the run axis.
func (j *batchJob) trainEpoch(act []*runState, epoch, maxSteps int) error {
	return j.axisTrainEpoch(act, epoch, maxSteps)
}

// trainAcc is the engine's: the running mean of the batches' accuracies,
// as GoMLX's trainer keeps it (fit.Run.TrainAcc).
func (j *batchJob) trainAcc(st *runState) float64 { return st.TrainAcc() }

// validate is the engine's: on the run axis.
func (j *batchJob) validate(sts []*runState, sets []evalSet) ([]fit.Scores, error) {
	return j.axisEvaluate(sts, sets)
}

// scoreSelected is the engine's. One run's (R = 1) store holds its selected
// weights, which its validation graph scores. On a run axis of several runs
// each run's selected model is scored apart, on the single-run graph
// (runModel), as the run alone scores it: the run axis's products round
// otherwise, and a run's test accuracy should not depend on which runs
// shared its graph.
func (j *batchJob) scoreSelected(sts []*runState, sets []evalSet) ([]fit.Scores, error) {
	if j.single() {
		return j.axisEvaluate(sts, sets)
	}
	scores := make([]fit.Scores, len(sts))
	for i, st := range sts {
		t, err := j.runModel(st.si)
		if err != nil {
			return nil, err
		}
		built := len(t.evals)
		ce, acc, err := t.evaluate(sets[i].x, sets[i].y, sets[i].phase)
		j.graphs += len(t.evals) - built
		if err != nil {
			return nil, err
		}
		scores[i] = fit.Scores{CE: ce, Acc: acc}
	}
	return scores, nil
}

// runModel returns run si's model apart, its weights as the run axis holds
// them now (the selected ones, when scoreSelected asks), built once per
// job: a run axis of several runs trains fresh runs only, whose weights do
// not change after their selected ones are restored.
func (j *batchJob) runModel(si int) (*Trained, error) {
	if j.apart == nil {
		j.apart = map[int]*Trained{}
	}
	if t, ok := j.apart[si]; ok {
		return t, nil
	}
	s := j.slots[si]
	store, err := j.runStore(si, s.chain.seed+int64(s.chain.folds[0]))
	if err != nil {
		return nil, err
	}
	t := newTrained(j.backend, s.chain.m, store, Dense)
	j.apart[si] = t
	return t, nil
}

// describe is the engine's: a run axis of one run (R = 1) is the run alone.
func (j *batchJob) describe(st *runState) {
	st.fr.RunAxis = len(j.slots) > 1
	st.fr.Params = j.paramCount()
}

// axisVars yields the run axis's trainable variables.
func (j *batchJob) axisVars() []*model.Variable {
	var vs []*model.Variable
	for v := range j.axis.store.IterVariables() {
		if v.Trainable {
			vs = append(vs, v)
		}
	}
	return vs
}

// snapshot copies slot si's trainable variables (reusing prev's map): its
// rows of the run axis's, or the variables themselves with one run.
func (j *batchJob) snapshot(si int, prev map[string]*tensors.Tensor) (map[string]*tensors.Tensor, error) {
	if !j.single() {
		return j.axisSnapshot(si, prev)
	}
	return snapshotVariables(j.axisVars(), prev)
}

// restore writes a snapshot of slot si back: into its rows of the run
// axis's variables, or the variables themselves with one run.
func (j *batchJob) restore(si int, snap map[string]*tensors.Tensor) error {
	if !j.single() {
		return j.axisRestore(si, snap)
	}
	return restoreSnapshot(j.axis.store, snap)
}

// slotWeights are the weights of one slot of a job, as a runState keeps them.
type slotWeights struct {
	j  *batchJob
	si int
}

func (w slotWeights) snapshot(prev map[string]*tensors.Tensor) (map[string]*tensors.Tensor, error) {
	return w.j.snapshot(w.si, prev)
}

func (w slotWeights) restore(snap map[string]*tensors.Tensor) error { return w.j.restore(w.si, snap) }

// paramCount is the number of trainable parameters of one run.
func (j *batchJob) paramCount() int {
	n := 0
	for _, v := range j.axisVars() {
		n += v.Shape().Size()
	}
	return n / len(j.slots)
}

// runStore copies slot si's trainable variables (its rows of the run
// axis's) and hyperparameters into a store of its own, laid out as a run
// alone's (no run axis), e.g. for a checkpoint.
func (j *batchJob) runStore(si int, seed int64) (*model.Store, error) {
	s := j.slots[si]
	store := model.NewStore()
	s.chain.cfg.Apply(store)
	root := store.RootScope()
	root.SetParam(paramSeriesLen, s.chain.m.Shape.SeriesLen)
	root.SetParam(paramNumClasses, s.chain.m.Shape.NumClasses)
	root.SetParam(paramRefShapeLen, model.GetParamOr(j.store.Scope(s.scope), paramRefShapeLen, 0))
	root.SetParam(model.ParamInitialSeed, seed)
	for _, v := range j.axisVars() {
		val, err := v.Value()
		if err != nil {
			return nil, err
		}
		var c *tensors.Tensor
		if j.single() {
			if c, err = val.LocalClone(); err != nil {
				return nil, err
			}
		} else {
			c = runRowTensor(val, si)
		}
		if _, err := store.CreateVariable(v.Path(), c); err != nil {
			return nil, fmt.Errorf("copying variable %s: %w", v.Path(), err)
		}
	}
	return store, nil
}

// save is the engine's: a store of st's slot alone (runStore).
func (j *batchJob) save(st *runState, dir string) error {
	s := j.slots[st.si]
	store, err := j.runStore(st.si, s.chain.seed+int64(s.chain.folds[0]))
	if err != nil {
		return err
	}
	defer store.Finalize()
	store.RootScope().SetParam(paramPhase, st.fr.SelectedPhase.String())
	return SaveCheckpoint(store, dir)
}

// trainFoldsBatched is Train's batched path: the folds of ds under one fresh
// (fold_reset=fresh) configuration and seed, trained by TrainRuns as many at
// a time as opts.MaxRuns (or DefaultMaxRuns) allows. ok is false when Train
// should use its one-run-at-a-time path instead: fold_reset=carry (folds
// depend on each other), fewer than two folds, or a cap of one run (the
// default on ONNX Runtime).
func trainFoldsBatched(ds *data.Dataset, cfg Config, opts RunOptions) (res *Result, ok bool, err error) {
	if cfg.CarriesFolds() || opts.Backend == nil {
		return nil, false, nil
	}
	maxRuns := opts.MaxRuns
	if maxRuns <= 0 {
		maxRuns = DefaultMaxRuns(opts.Backend)
	}
	if maxRuns == 1 || (opts.Folds != nil && len(opts.Folds) < 2) {
		return nil, false, nil
	}
	backend, m, splits, err := setUp(ds, cfg, &opts)
	if err != nil {
		return nil, true, err
	}
	folds := opts.Folds
	if folds == nil {
		for i := range splits {
			folds = append(folds, i)
		}
	}
	runs := make([]RunSpec, len(folds))
	for i, f := range folds {
		if f < 0 || f >= len(splits) {
			return nil, true, fmt.Errorf("fold index %d out of range: %d folds (indices 0..%d)", f, len(splits), len(splits)-1)
		}
		runs[i] = RunSpec{Config: cfg, Seed: opts.Seed, Fold: f}
	}
	frs, err := trainRuns(ds, runs, opts, maxRuns)
	if err != nil && !onlySaveErrors(err) {
		return nil, true, err
	}
	res = &Result{Dataset: ds.Name, Backend: backend.Description(), Config: cfg, Shape: m.Shape, Folds: frs}
	accs := make([]float64, len(frs))
	for i, fr := range frs {
		accs[i] = fr.TestAcc
	}
	res.MeanAcc = meanOf(accs)
	if len(accs) > 1 {
		res.StdAcc = stat.StdDev(accs, nil)
	}
	return res, true, err // err: checkpoints not saved (*SaveError)
}
