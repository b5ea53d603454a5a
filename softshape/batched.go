package softshape

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
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
// in one compiled graph per step, and returns one FoldResult per run in the
// order given. Each run is the computation Train performs for its fold (same
// folds, initial weights, dropout stream, batch order, model selection, early
// stopping and test evaluation as Train with RunOptions.Seed = spec.Seed): one
// graph holds one copy of the model per run under its own scope, the runs'
// losses are summed (their parameters are disjoint, so each gets its own
// gradient) and a per-run Adam updates each copy with its own step count and
// learning rate. A run whose epoch has fewer steps than the others' (a smaller
// fold, a different batch rule) sits out the extra steps, and a run that
// stopped early leaves the graph: its weights, Adam state and dropout stream no
// longer change (with opts.StoppedRuns = StoppedRunsRide it stays in the
// graphs instead, its selected weights and results kept as they were when it
// stopped). No sample is dropped and nothing is padded, so a run's numbers do
// not depend on which runs share its graph.
//
// The runs may differ in any setting (λ, dropout, learning rate, epochs, even
// the architecture: each run is its own subgraph). Runs with fold_reset=carry
// form chains (same Config and Seed) whose folds are trained in order, 0 up to
// the last one asked for, each continuing from the weights and Adam state the
// previous one ended with (not its selected weights: the authors' code never
// restores them); chains are batched with each other and with fresh
// runs, never the folds of one chain with each other.
//
// At most opts.MaxRuns runs (0: DefaultMaxRuns(backend)) share a graph; the
// job trains groups of that many one after the other (a fold_reset=carry
// chain counts as one run). opts.Seed and
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
	stopped, err := ParseStoppedRuns(string(opts.StoppedRuns))
	if err != nil {
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
		job, err := newBatchJob(backend, group, opts.RefShapeLen)
		if err != nil {
			return nil, graphs, err
		}
		job.ride = stopped == StoppedRunsRide
		if axis && axisEligible(group) == nil {
			if err := job.axisStart(); err != nil {
				job.finalize()
				return nil, graphs, err
			}
			job.ride = false // stopped runs stay in the run axis, masked
		}
		errs, err := job.train(ds, opts, len(seeds) > 1, results)
		graphs += job.graphs
		job.finalize()
		if err != nil {
			return nil, graphs, err
		}
		runErrs = append(runErrs, errs...)
	}
	return results, graphs, errors.Join(runErrs...)
}

// DefaultMaxRuns is the default cap on R, the runs per graph of TrainRuns,
// Train and the sweeps, chosen per backend from measurements (docs/performance.md,
// "Many runs in one graph"): the CPU backends on this project's 2-core machines,
// CUDA on an H100 and an H200:
//
//   - pure Go: 10. Its executor runs the R independent subgraphs on both
//     cores: a GunPoint step of R runs in one graph cost 1/1.2–1/1.4 of the R
//     separate steps, and 5 folds × 2 seeds of a 20-epoch protocol trained
//     1.9× as fast, for ≈60 MiB more peak memory per run.
//   - ONNX Runtime: 1. A step is bound by arithmetic; with ORT's own thread
//     pool on both cores R runs in one graph ran 0.84–0.89× as fast per step
//     and 0.66–0.81× over the protocol, and with one thread in a one-core
//     cpuset (backends.ONNXThreads) 0.81–0.91× over a 20-epoch protocol and
//     0.95–1.00× over the full one (GunPoint, ECG200); a run axis 0.91–1.01×.
//   - XLA on a GPU: 10, with the run axis DefaultRunAxis turns on there. A
//     step is latency-bound, and one kernel serves all R runs: on an H100
//     the full protocol of GunPoint took 83.6 s for 5 runs as R = 5 and
//     129.4 s for 10 as R = 10, against 160.3 s for 5 one at a time (1.9×
//     and 2.5×). As model copies (a run axis off) R runs launch R times the
//     kernels and compile a graph per set of runs: 0.85× on an H200 at
//     R = 10, 1.1× on the H100 at R = 5 with stopped runs riding.
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
// the CPU backends, where it measured 0.91–1.01× on ONNX Runtime and a step is
// bound by arithmetic, nor with pure Go's copies, which already use both cores.
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
		m.fast = opts.Fast
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

// batchJob is one store holding the model copies ("slots") of up to R chains,
// and the compiled graphs that train and evaluate any subset of them.
type batchJob struct {
	backend compute.Backend
	store   *model.Store
	slots   []*slot
	rngVar  *model.Variable // the store's own RNG state, swapped for each slot's
	execs   map[string]*model.Exec
	// ride keeps runs that stopped early in the graphs (StoppedRunsRide).
	ride bool
	// graphs counts the training and evaluation graphs built.
	graphs int
	// axis, when not nil, trains and validates the slots as one model with
	// a run axis (RunOptions.RunAxis, RunAxisMode.Enabled; batched_axis.go).
	axis *axisRuns
}

// slot is one chain's model copy in the job: its scope, its own RNG state
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
	j := &batchJob{backend: backend, store: store, execs: map[string]*model.Exec{},
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
	return j, nil
}

func (j *batchJob) finalize() {
	if j.axis != nil {
		j.axis.finalize()
		j.axis = nil
	}
	for _, e := range j.execs {
		e.Finalize()
	}
	j.execs = nil
	j.store.Finalize()
}

// part is one slot's share of a graph: which slot, on which path.
type part struct {
	slot  int
	phase Phase
}

func partsKey(kind string, parts []part) string {
	var b strings.Builder
	b.WriteString(kind)
	for _, p := range parts {
		fmt.Fprintf(&b, "|%d%c", p.slot, p.phase.String()[0])
	}
	return b.String()
}

// forward builds slot s's model on x, drawing its random numbers (dropout)
// from the slot's own RNG state instead of the store's.
func (j *batchJob) forward(root *model.Scope, s *slot, x *graph.Node, phase Phase) *Outputs {
	g := x.Graph()
	saved := j.rngVar.NodeValue(g)
	j.rngVar.SetNodeValue(s.rng.NodeValue(g))
	out := s.chain.m.Forward(root.Store().Scope(s.scope), x, phase)
	s.rng.SetNodeValue(j.rngVar.NodeValue(g))
	j.rngVar.SetNodeValue(saved)
	return out
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

// trainExec returns the graph of one training step of parts: inputs x, y per
// part; outputs per part the total loss (CE + λ·aux, as Train's) and the
// number of correct predictions.
func (j *batchJob) trainExec(parts []part) (*model.Exec, error) {
	key := partsKey("train", parts)
	if e, ok := j.execs[key]; ok {
		return e, nil
	}
	ps := slices.Clone(parts)
	e, err := model.NewExec(j.backend, j.store, func(scope *model.Scope, inputs []*graph.Node) []*graph.Node {
		g := inputs[0].Graph()
		j.store.SetTraining(g, true)
		outs := make([]*graph.Node, 0, 2*len(ps))
		var total *graph.Node
		for i, p := range ps {
			s := j.slots[p.slot]
			x, y := inputs[2*i], inputs[2*i+1]
			out := j.forward(scope, s, x, p.phase)
			l := runLoss(out.Logits, y, out.AuxLoss, s.lambda)
			if total == nil {
				total = l
			} else {
				total = graph.Add(total, l)
			}
			outs = append(outs, l, correctCount(out.Logits, y))
		}
		grads := scope.BuildTrainableVariablesGradientsGraph(total)
		j.adamUpdate(scope, g, grads, total.DType())
		return outs
	})
	if err != nil {
		return nil, fmt.Errorf("batched train graph: %w", err)
	}
	j.graphs++
	j.execs[key] = e
	return e, nil
}

// correctCount is the number of rows of logits [B, C] whose arg-max is y [B, 1].
func correctCount(logits, y *graph.Node) *graph.Node {
	pred := graph.ArgMax(logits, -1, y.DType())
	hit := graph.Equal(pred, graph.Reshape(y, y.Shape().Dimensions[0]))
	return graph.ReduceAllSum(graph.ConvertDType(hit, dtypes.Float32))
}

// adamUpdate is fit.AdamUpdate with one step counter and learning rate per
// slot: each trainable variable in the graph is updated with its slot's.
// Variables of slots not in the graph are untouched.
func (j *batchJob) adamUpdate(scope *model.Scope, g *graph.Graph, grads []*graph.Node, dtype dtypes.DType) {
	rates := map[string]fit.AdamRates{}
	fit.AdamUpdate(j.store, "/adam", scope, g, grads, dtype, func(v *model.Variable) (fit.AdamRates, *graph.Node) {
		p := v.Path()
		for _, s := range j.slots {
			if !strings.HasPrefix(p, s.scope+"/") {
				continue
			}
			if r, ok := rates[s.scope]; ok {
				return r, nil
			}
			os := j.store.Scope(s.scope + "/optimizer")
			lr := os.VariableWithValue("learning_rate", shapes.CastAsDType(s.lr, dtype)).SetTrainable(false).NodeValue(g)
			stepVar := os.WithInitializer(initializer.Zero).VariableWithShape("adam_step", shapes.Make(dtype)).SetTrainable(false)
			step := graph.AddScalar(stepVar.NodeValue(g), 1)
			stepVar.SetNodeValue(step)
			r := fit.NewAdamRates(lr, step)
			rates[s.scope] = r
			return r, nil
		}
		panic(fmt.Sprintf("batched Adam: variable %s belongs to no run", p))
	})
}

// evalExec returns the inference graph of parts: one input x per part, its
// logits out.
func (j *batchJob) evalExec(parts []part) (*model.Exec, error) {
	key := partsKey("eval", parts)
	if e, ok := j.execs[key]; ok {
		return e, nil
	}
	ps := slices.Clone(parts)
	e, err := model.NewExec(j.backend, j.store, func(scope *model.Scope, inputs []*graph.Node) []*graph.Node {
		j.store.SetTraining(inputs[0].Graph(), false)
		outs := make([]*graph.Node, len(ps))
		for i, p := range ps {
			outs[i] = j.slots[p.slot].chain.m.Forward(scope.Store().Scope(j.slots[p.slot].scope), inputs[i], p.phase).Logits
		}
		return outs
	})
	if err != nil {
		return nil, fmt.Errorf("batched evaluation graph: %w", err)
	}
	j.graphs++
	j.execs[key] = e
	return e, nil
}

// dropExecs finalises the compiled graphs that include slot si (it left the
// job: they will not run again).
func (j *batchJob) dropExecs(si int) {
	tag := fmt.Sprintf("|%d", si)
	for k, e := range j.execs {
		for _, f := range strings.Split(k, "|")[1:] {
			if "|"+f[:len(f)-1] == tag {
				e.Finalize()
				delete(j.execs, k)
				break
			}
		}
	}
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
		st.Rides = j.ride && !s.chain.cfg.CarriesFolds()
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

// trainEpoch is the engine's: on the run axis or as model copies.
func (j *batchJob) trainEpoch(act []*runState, epoch, maxSteps int) error {
	if j.axis != nil {
		return j.axisTrainEpoch(act, epoch, maxSteps)
	}
	return j.copiesTrainEpoch(act, epoch, maxSteps)
}

// trainAcc is the engine's: the running mean of the batches' accuracies,
// as GoMLX's trainer keeps it (fit.Run.TrainAcc).
func (j *batchJob) trainAcc(st *runState) float64 { return st.TrainAcc() }

// validate is the engine's: on the run axis or as model copies.
func (j *batchJob) validate(sts []*runState, sets []evalSet) ([]fit.Scores, error) {
	if j.axis != nil {
		return j.axisEvaluate(sts, sets)
	}
	return j.evaluate(sts, sets)
}

// leave is the engine's: the graphs that include st's slot go.
func (j *batchJob) leave(st *runState) { j.dropExecs(st.si) }

// finish is the engine's: on a run axis of several runs, every run's
// current weights are written into its model copy, as the model copies hold
// them when training ends (the selected ones are restored over them next).
// One run's (R = 1) stay in its store.
func (j *batchJob) finish() error {
	if j.axis != nil && !j.single() {
		return j.axisFinish()
	}
	return nil
}

// scoreSelected is the engine's: the model copies hold the selected weights,
// or one run's (R = 1) store, whose validation graph scores them.
func (j *batchJob) scoreSelected(sts []*runState, sets []evalSet) ([]fit.Scores, error) {
	if j.single() {
		return j.axisEvaluate(sts, sets)
	}
	return j.evaluate(sts, sets)
}

// describe is the engine's: a run axis of one run (R = 1) is the run alone.
func (j *batchJob) describe(st *runState) {
	st.fr.RunAxis = j.axis != nil && len(j.slots) > 1
	st.fr.Params = j.paramCount(st.si)
}

// copiesTrainEpoch runs the steps of one epoch on the model copies: step k
// trains every run that has a k-th batch, in one graph.
func (j *batchJob) copiesTrainEpoch(act []*runState, epoch, maxSteps int) error {
	for k := range maxSteps {
		var parts []part
		var in []*runState
		for _, st := range act {
			if k < st.StepsN && st.Err == nil {
				parts = append(parts, part{st.si, st.phase()})
				in = append(in, st)
			}
		}
		if len(parts) == 0 {
			return nil
		}
		args := make([]any, 0, 2*len(in))
		for _, st := range in {
			if err := j.materialize(st.si, st.phase(), min(st.BatchSize, len(st.Order))); err != nil {
				return err
			}
			x, y := batchTensors(st.fd.TrainX, st.fd.TrainY, st.Batch(k))
			args = append(args, x, y)
		}
		exec, err := j.trainExec(parts)
		if err != nil {
			return err
		}
		outs, err := exec.Call(args...)
		for _, a := range args {
			a.(*tensors.Tensor).FinalizeAll()
		}
		if err != nil {
			return fmt.Errorf("epoch %d step %d: %w", epoch, k, err)
		}
		for i, st := range in {
			if st.Riding() { // its loss is not used
				continue
			}
			st.addStep(scalarOf(outs[2*i]), int(scalarOf(outs[2*i+1])), k)
		}
		for _, t := range outs {
			t.FinalizeAll()
		}
	}
	return nil
}

// evaluate returns, for each run, the scores of its model copy's weights on
// its set, in inference mode: pass c of fit.Evaluate runs every run that has
// samples left in one graph.
func (j *batchJob) evaluate(sts []*runState, sets []evalSet) ([]fit.Scores, error) {
	return fit.Evaluate(labelsOf(sets), func(c int, rows []int) ([][]float32, error) {
		var parts []part
		var args []any
		for i, n := range rows {
			if n == 0 {
				continue
			}
			if err := j.materialize(sts[i].si, sets[i].phase, min(fit.EvalChunk, len(sets[i].y))); err != nil {
				return nil, err
			}
			parts = append(parts, part{sts[i].si, sets[i].phase})
			args = append(args, chunkTensor(sets[i].x, c, n))
		}
		exec, err := j.evalExec(parts)
		var outs []*tensors.Tensor
		if err == nil {
			outs, err = exec.Call(args...)
		}
		for _, a := range args {
			a.(*tensors.Tensor).FinalizeAll()
		}
		if err != nil {
			return nil, err
		}
		defer func() {
			for _, t := range outs {
				t.FinalizeAll()
			}
		}()
		logits := make([][]float32, len(rows))
		a := 0
		for i, n := range rows {
			if n == 0 {
				continue
			}
			if logits[i], err = tensors.CopyFlatData[float32](outs[a]); err != nil {
				return nil, err
			}
			a++
		}
		return logits, nil
	})
}

// slotVars yields slot si's trainable variables: those of its model copy,
// or of its store when it trains alone on a run axis (R = 1).
func (j *batchJob) slotVars(si int) []*model.Variable {
	store, prefix := j.store, j.slots[si].scope+"/"
	if j.single() {
		store, prefix = j.axis.store, "/"
	}
	var vs []*model.Variable
	for v := range store.IterVariables() {
		if v.Trainable && strings.HasPrefix(v.Path(), prefix) {
			vs = append(vs, v)
		}
	}
	return vs
}

// snapshot copies slot si's trainable variables (reusing prev's map).
func (j *batchJob) snapshot(si int, prev map[string]*tensors.Tensor) (map[string]*tensors.Tensor, error) {
	if j.axis != nil && !j.single() {
		return j.axisSnapshot(si, prev)
	}
	return snapshotVariables(j.slotVars(si), prev)
}

// restore writes a snapshot back into the store: the model copies', or one
// run's on a run axis (R = 1).
func (j *batchJob) restore(snap map[string]*tensors.Tensor) error {
	if j.single() {
		return restoreSnapshot(j.axis.store, snap)
	}
	return restoreSnapshot(j.store, snap)
}

// slotWeights are the weights of one slot of a job, as a runState keeps them.
type slotWeights struct {
	j  *batchJob
	si int
}

func (w slotWeights) snapshot(prev map[string]*tensors.Tensor) (map[string]*tensors.Tensor, error) {
	return w.j.snapshot(w.si, prev)
}

func (w slotWeights) restore(snap map[string]*tensors.Tensor) error { return w.j.restore(snap) }

func (j *batchJob) paramCount(si int) int {
	n := 0
	for _, v := range j.slotVars(si) {
		n += v.Shape().Size()
	}
	return n
}

// runStore copies slot si's trainable variables and hyperparameters into a
// store of its own, laid out as Train's (no run scope), e.g. for a checkpoint.
func (j *batchJob) runStore(si int, seed int64) (*model.Store, error) {
	s := j.slots[si]
	store := model.NewStore()
	s.chain.cfg.Apply(store)
	root := store.RootScope()
	root.SetParam(paramSeriesLen, s.chain.m.Shape.SeriesLen)
	root.SetParam(paramNumClasses, s.chain.m.Shape.NumClasses)
	root.SetParam(paramRefShapeLen, model.GetParamOr(j.store.Scope(s.scope), paramRefShapeLen, 0))
	root.SetParam(model.ParamInitialSeed, seed)
	prefix := s.scope
	if j.single() {
		prefix = ""
	}
	for _, v := range j.slotVars(si) {
		val, err := v.Value()
		if err != nil {
			return nil, err
		}
		c, err := val.LocalClone()
		if err != nil {
			return nil, err
		}
		if _, err := store.CreateVariable(strings.TrimPrefix(v.Path(), prefix), c); err != nil {
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
// (fold_reset=fresh) configuration and seed, trained by TrainRuns in as few
// graphs as opts.MaxRuns (or DefaultMaxRuns) allows. ok is false when Train
// should use its one-run-at-a-time path instead: fold_reset=carry (folds
// depend on each other), fewer than two folds, or a cap of one run per graph
// (the default on CPU backends).
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
