package softshape

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/checkpointdir"
	"github.com/softshape-go/softshape/softshape/fit"
)

// The protocol driver. A fresh run trains alone in four calls from Fit or
// from the protocol's run loop:
//
//	Fit → trainAlone → trainOne → fit.Train → job.TrainEpoch (the step)
//	Train → trainRuns (the run loop) → trainOne → fit.Train → job.TrainEpoch
//
// fit.Train applies the protocol to every run (runState) the same way on
// every path. What only some runs need sits beside that path, behind the
// same fit.Engine: a fold_reset=carry chain, whose folds train in order,
// one continuing from the last (job.train, round by round), and runs that
// share one graph on a run axis (runaxis.go, on an accelerator), which
// trainRuns hands to a job of several chains.

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

// Error names the run's seed and the cause, which names its dataset and
// fold (1-based); Run is for code, not for the reader.
func (e *RunError) Error() string {
	return fmt.Sprintf("seed %d: %v", e.Spec.Seed, e.Err)
}

// Unwrap returns the cause, so errors.Is(err, ErrNonFinite) sees through.
func (e *RunError) Unwrap() error { return e.Err }

// TrainRuns trains runs, independent training runs of one dataset, and
// returns one FoldResult per run in the order given. Each run is the
// computation Train performs for its fold with RunOptions.Seed = spec.Seed
// (same folds, initial weights, dropout stream, batch order, model
// selection, early stopping and test evaluation).
//
// At most opts.MaxRuns runs (0: backends.DefaultMaxRuns(backend)) train at a time,
// groups of that many one after the other: in one graph on a run axis
// where opts.RunAxis enables it and the runs allow it (axisEligible), else
// each alone, one goroutine each, sharing the backend. The runs may differ
// in any setting. Runs with fold_reset=carry form chains (same Config and
// Seed) that train their folds in order from fold 0, each continuing from
// the weights and Adam state the previous one ended with (not its selected
// weights, as in the authors' code); a chain counts as one run and trains
// alone.
//
// opts.Seed and opts.Folds are ignored (the RunSpecs carry them).
// opts.OnEpoch is called after every epoch of every run, from the calling
// goroutine. With opts.CheckpointDir the selected model of each run is saved
// to CheckpointDir/fold-N, or to CheckpointDir/seed-S/fold-N when the runs
// have several seeds (checkpointdir.FoldDir).
//
// The error joins one *RunError per failed run (a non-finite loss; its
// FoldResult holds the epochs run and a NaN test accuracy, and the other
// runs' results are complete) and one *SaveError per checkpoint not saved
// (that run's result is complete).
func TrainRuns(ds *data.Dataset, runs []RunSpec, opts RunOptions) ([]FoldResult, error) {
	res, _, err := TrainRunsCounted(ds, runs, opts)
	return res, err
}

// TrainRunsCounted is TrainRuns that also returns the number of training and
// evaluation graphs it built, not counting each one's compilations per input
// shape (what XLA spends its compilation time on), which the batched timings
// of experiments/timing report.
func TrainRunsCounted(ds *data.Dataset, runs []RunSpec, opts RunOptions) ([]FoldResult, int, error) {
	out := &outputs{}
	graphs, err := trainRuns(ds, runs, opts, out)
	return out.results, graphs, err
}

// TrainFold trains fold (0-based) of ds as Train does and returns its
// result and the selected model. Under fold_reset=carry the folds before it
// train first, unless opts.CarryIn continues the chain. A checkpoint or
// carried state not saved is an error joining *SaveError values, returned
// with the result and model, which are complete.
//
// A fresh fold (no fold_reset=carry, no carried state) is split and
// prepared (PrepareFold), then trained as Fit trains its sets (trainAlone).
func TrainFold(ds *data.Dataset, cfg Config, fold int, opts RunOptions) (*FoldResult, *Trained, error) {
	if !cfg.CarriesFolds() && opts.CarryIn == "" && opts.CarryOut == "" {
		fd, err := PrepareFold(ds, opts, fold)
		if err != nil {
			return nil, nil, err
		}
		return trainAlone(ds, fd, cfg, fold, opts)
	}
	out := &outputs{models: make([]*Trained, 1)}
	_, err := trainRuns(ds, []RunSpec{{Config: cfg, Seed: opts.Seed, Fold: fold}}, opts, out)
	if err != nil && !onlySaveErrors(err) {
		return nil, nil, err
	}
	return &out.results[0], out.models[0], err
}

// trainAlone trains one fresh run of cfg on fd, the prepared fold fold of
// ds, alone (trainOne), seeded by opts.Seed plus fold, and returns its
// result and selected model: the training path of Fit and of TrainFold.
// With opts.CheckpointDir the selected model is saved to its fold-N folder;
// one not saved is an error joining *SaveError values, returned with the
// result and model, which are complete.
func trainAlone(ds *data.Dataset, fd *data.FoldData, cfg Config, fold int, opts RunOptions) (*FoldResult, *Trained, error) {
	if _, err := ParseRunAxis(string(opts.RunAxis)); err != nil {
		return nil, nil, err
	}
	if err := opts.withDefaults(); err != nil {
		return nil, nil, err
	}
	m, err := newModel(ds, cfg, opts)
	if err != nil {
		return nil, nil, err
	}
	c := &chainSpec{cfg: cfg, seed: opts.Seed, folds: []int{fold}, want: []int{0}, m: m, fds: []*data.FoldData{fd}}
	out := &outputs{results: make([]FoldResult, 1), models: make([]*Trained, 1)}
	_, runErr, err := trainOne(ds, c, opts, out)
	if err != nil {
		return nil, nil, err
	}
	if runErr != nil && !onlySaveErrors(runErr) {
		return nil, nil, runErr
	}
	return &out.results[0], out.models[0], runErr // runErr: the checkpoint not saved (*SaveError)
}

// trainOne trains c, one fresh run (one fold, no fold_reset=carry), alone
// on opts.Backend: its job of one run (R = 1, the single-run model) is
// fit.Train's engine, which runs the protocol's epochs and steps
// (job.TrainEpoch); then the selected model is tested and saved (finish)
// and its outcome goes into out (collect). It returns the graphs built, the
// run's own error (a *RunError when it failed, a *SaveError when its
// checkpoint was not saved) and a failure of the training itself.
func trainOne(ds *data.Dataset, c *chainSpec, opts RunOptions, out *outputs) (graphs int, runErr, err error) {
	j, err := newJob(opts.Backend, []*chainSpec{c}, opts.RefShapeLen)
	if err != nil {
		return 0, nil, err
	}
	defer j.finalize()
	if err := j.loadResume(opts.ResumePath, opts.ResumeEvery, opts.OnResume); err != nil {
		return j.graphs, nil, err
	}
	st, err := j.newRunState(0, 0)
	if err != nil {
		return 0, nil, err
	}
	st.checkpoint = out.checkpoint(opts.CheckpointDir, st.want, c.seed, st.fold)
	j.onEpoch, j.stop = opts.OnEpoch, opts.Stop
	if err := fit.Train(j, []*runState{st}); err != nil {
		return j.graphs, nil, err
	}
	if err := j.finish([]*runState{st}); err != nil {
		return j.graphs, nil, err
	}
	runErr, err = j.collect(st, ds, out)
	if err == nil {
		err = j.removeResume()
	}
	return j.graphs, runErr, err
}

// outputs is what a TrainRuns call's jobs produce, by run: the results,
// and the selected models when models is not nil (TrainFold). manySeeds
// says whether the runs have several seeds (checkpointdir.FoldDir).
type outputs struct {
	results   []FoldResult
	models    []*Trained
	manySeeds bool
}

// checkpoint is the folder under dir that receives the selected model of
// the run wanted at index want (none: -1), of seed and fold:
// checkpointdir.FoldDir's, under dir/seed-S when the runs have several
// seeds; "" when dir is "" or the run is not wanted.
func (out *outputs) checkpoint(dir string, want int, seed int64, fold int) string {
	if dir == "" || want < 0 {
		return ""
	}
	if out.manySeeds {
		dir = filepath.Join(dir, fmt.Sprintf("seed-%d", seed))
	}
	return checkpointdir.FoldDir(dir, fold)
}

// trainRuns is TrainRunsCounted filling out (out.models when not nil);
// out.results is nil after an error other than *RunError and *SaveError
// values.
func trainRuns(ds *data.Dataset, runs []RunSpec, opts RunOptions, out *outputs) (int, error) {
	if len(runs) == 0 {
		return 0, nil
	}
	axisMode, err := ParseRunAxis(string(opts.RunAxis))
	if err != nil {
		return 0, err
	}
	if err := opts.withDefaults(); err != nil {
		return 0, err
	}
	maxRuns := opts.MaxRuns
	axis := axisMode.Enabled(opts.Backend)
	chains, err := planChains(ds, runs, opts)
	if err != nil {
		return 0, err
	}
	if opts.ResumePath != "" && (len(chains) != 1 || len(chains[0].folds) != 1) {
		return 0, errors.New("a resume state (RunOptions.ResumePath) is of one run of one fold: these runs train several folds")
	}
	seeds := map[int64]bool{}
	for _, r := range runs {
		seeds[r.Seed] = true
	}
	out.results, out.manySeeds = make([]FoldResult, len(runs)), len(seeds) > 1
	var runErrs []error
	graphs := 0
	// The run loop: maxRuns runs at a time, each fresh one alone
	// (trainOne), each fold_reset=carry chain in a job of its own, or all
	// of them in one job on a run axis where it is on and they allow it.
	for lo := 0; lo < len(chains); lo += maxRuns {
		group := chains[lo:min(lo+maxRuns, len(chains))]
		var tasks []task
		if axis && len(group) > 1 && axisEligible(group) == nil {
			tasks = []task{jobTask(ds, group, out)}
		} else {
			for _, c := range group {
				if c.cfg.CarriesFolds() {
					tasks = append(tasks, jobTask(ds, []*chainSpec{c}, out))
					continue
				}
				tasks = append(tasks, func(o RunOptions) ([]error, int, error) {
					graphs, runErr, err := trainOne(ds, c, o, out)
					if runErr != nil {
						return []error{runErr}, graphs, err
					}
					return nil, graphs, err
				})
			}
		}
		errs, n, err := together(opts, tasks)
		graphs += n
		if err != nil {
			out.results = nil
			return graphs, err
		}
		runErrs = append(runErrs, errs...)
	}
	return graphs, errors.Join(runErrs...)
}

// task trains some of a TrainRuns call's runs with opts, filling the
// outputs it was made for: it returns the runs' own errors (*RunError,
// *SaveError), the graphs it built, and a failure of its own.
type task func(opts RunOptions) (runErrs []error, graphs int, err error)

// jobTask is the task of a job of chains (newJob): a fold_reset=carry
// chain alone (continued from its carried state, if any), or fresh runs
// sharing a run axis.
func jobTask(ds *data.Dataset, chains []*chainSpec, out *outputs) task {
	return func(opts RunOptions) ([]error, int, error) {
		j, err := newJob(opts.Backend, chains, opts.RefShapeLen)
		if err != nil {
			return nil, 0, err
		}
		defer j.finalize()
		if err := j.loadResume(opts.ResumePath, opts.ResumeEvery, opts.OnResume); err != nil {
			return nil, j.graphs, err
		}
		// A resume state holds all a carried state would give, and more.
		if chains[0].carryIn != "" && chains[0].resumed == nil {
			if err := j.resumeCarried(chains[0].carryIn); err != nil {
				return nil, j.graphs, err
			}
		}
		errs, err := j.train(ds, opts, out)
		if err == nil {
			err = j.removeResume()
		}
		return errs, j.graphs, err
	}
}

// together runs tasks at the same time, one goroutine each, sharing
// opts.Backend; opts.OnEpoch is called from the calling goroutine. It
// returns the tasks' run errors (in the tasks' order) and the graphs they
// built; the error is the first failure of a task itself.
func together(opts RunOptions, tasks []task) ([]error, int, error) {
	type outcome struct {
		errs   []error
		graphs int
		err    error
	}
	epochs := make(chan EpochStats)
	done := make(chan int)
	outs := make([]outcome, len(tasks))
	o := opts
	if opts.OnEpoch != nil {
		o.OnEpoch = func(es EpochStats) { epochs <- es }
	}
	for i, t := range tasks {
		go func() {
			defer func() { done <- i }()
			outs[i].errs, outs[i].graphs, outs[i].err = t(o)
		}()
	}
	for left := len(tasks); left > 0; {
		select {
		case es := <-epochs:
			opts.OnEpoch(es)
		case <-done:
			left--
		}
	}
	var runErrs []error
	graphs := 0
	for _, oc := range outs {
		if oc.err != nil {
			return nil, graphs, oc.err
		}
		runErrs = append(runErrs, oc.errs...)
		graphs += oc.graphs
	}
	return runErrs, graphs, nil
}

// axisEligible reports why chains cannot share a run axis, or nil. One
// chain alone is always eligible, fresh or fold_reset=carry: its run axis
// (R = 1) is the single-run model, of any architecture. Several share one
// when every run is a fresh one (no fold_reset=carry), of an architecture
// with a run axis, and the runs' settings differ at most in λ and the
// learning rate (which the loss and Adam take per run), the epochs and the
// patience.
func axisEligible(chains []*chainSpec) error {
	if len(chains) == 0 {
		return errors.New("no runs")
	}
	if len(chains) == 1 {
		return nil
	}
	norm := func(c Config) string {
		c.MoELossWeight, c.LearningRate, c.Epochs, c.Patience = 0, 0, 0, 0
		return c.String()
	}
	first := norm(chains[0].cfg)
	for _, c := range chains {
		if c.cfg.CarriesFolds() {
			return errors.New("fold_reset=carry chains train alone")
		}
		if err := RunAxisSupported(c.cfg); err != nil {
			return err
		}
		if norm(c.cfg) != first {
			return fmt.Errorf("settings differ beyond %s, %s, %s and %s", ParamMoELossWeight, ParamLearningRate, ParamEpochs, ParamPatience)
		}
	}
	return nil
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
	// initSeed, the seed plus the first fold, seeds the initial weights,
	// dropout and batch order; order draws the batch order from pcg (kept
	// to save a carried chain's state, saveCarried). newJob sets them.
	initSeed int64
	order    *rand.Rand
	pcg      *rand.PCG
	// carryIn and carryOut are RunOptions.CarryIn and CarryOut of the one
	// fold_reset=carry chain of a TrainRuns call.
	carryIn, carryOut string
	// resumeTo is where its one fold saves its progress (RunOptions.
	// ResumePath); resumed the progress it continues from (loadResume),
	// nil when it starts the fold.
	resumeTo resumeTo
	resumed  *resumed
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
		fd, err := prepareFold(ds, splits, fold)
		if err != nil {
			return nil, err
		}
		prepared[[2]int64{seed, int64(fold)}] = fd
		return fd, nil
	}
	var chains []*chainSpec
	carry := map[string]*chainSpec{}
	for i, r := range runs {
		m, err := newModel(ds, r.Config, opts)
		if err != nil {
			return nil, fmt.Errorf("run %d: %w", i, err)
		}
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
	if opts.CarryIn != "" || opts.CarryOut != "" {
		if err := carryEnds(chains, opts); err != nil {
			return nil, err
		}
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

// carryEnds gives the one fold_reset=carry chain of chains its carried
// states (RunOptions.CarryIn and CarryOut); with CarryIn it starts at its
// first fold requested.
func carryEnds(chains []*chainSpec, opts RunOptions) error {
	var c *chainSpec
	for _, ch := range chains {
		if !ch.cfg.CarriesFolds() {
			continue
		}
		if c != nil {
			return errors.New("a carried state (RunOptions.CarryIn, CarryOut) is of one fold_reset=carry chain: the runs form several")
		}
		c = ch
	}
	if c == nil {
		return fmt.Errorf("a carried state (RunOptions.CarryIn, CarryOut) needs %s=%s", ParamFoldReset, FoldResetCarry)
	}
	c.carryIn, c.carryOut = opts.CarryIn, opts.CarryOut
	if c.carryIn == "" {
		return nil
	}
	first := slices.IndexFunc(c.want, func(w int) bool { return w >= 0 })
	if first == 0 {
		return &CarriedStateError{Dir: c.carryIn, Err: errors.New("nothing is carried into fold 1, which starts the chain")}
	}
	c.folds, c.want = c.folds[first:], c.want[first:]
	return nil
}

// train runs the job's chains round by round (round k trains the k-th fold of
// every chain that has one) and fills out, then saves the carried state
// of a chain with carryOut. It returns the failed runs' errors and the
// states not saved; the error is for failures of the job itself.
func (j *job) train(ds *data.Dataset, opts RunOptions, out *outputs) ([]error, error) {
	var runErrs []error
	rounds := 0
	for _, c := range j.chains {
		rounds = max(rounds, len(c.folds))
	}
	failed := make([]bool, len(j.chains))
	for k := range rounds {
		errs, err := j.round(k, ds, opts, out, failed)
		if err != nil {
			return nil, err
		}
		runErrs = append(runErrs, errs...)
	}
	for si, c := range j.chains {
		if c.carryOut != "" && !failed[si] {
			if err := j.saveCarried(si, c.folds[len(c.folds)-1], c.carryOut); err != nil {
				runErrs = append(runErrs, err)
			}
		}
	}
	return runErrs, nil
}

// round trains round k of the job: the k-th fold of every chain that has one
// and has not failed (failed, by run, is updated), all in lockstep to the
// end of each one's protocol (fit.Train), then finishes them (finish); each
// result (and selected model, keep) goes into out at its want index. It
// returns the failed runs' errors (*RunError) and the checkpoints not saved
// (*SaveError); the error is for failures of the job itself.
func (j *job) round(k int, ds *data.Dataset, opts RunOptions, out *outputs, failed []bool) ([]error, error) {
	var states []*runState
	for si, c := range j.chains {
		if k >= len(c.folds) || failed[si] {
			continue
		}
		st, err := j.newRunState(si, k)
		if err != nil {
			return nil, err
		}
		st.checkpoint = out.checkpoint(opts.CheckpointDir, st.want, c.seed, st.fold)
		states = append(states, st)
	}
	j.onEpoch, j.stop = opts.OnEpoch, opts.Stop
	if err := fit.Train(j, states); err != nil {
		return nil, err
	}
	if err := j.finish(states); err != nil {
		return nil, err
	}
	var runErrs []error
	for _, st := range states {
		failed[st.si] = st.Err != nil
		runErr, err := j.collect(st, ds, out)
		if err != nil {
			return nil, err
		}
		if runErr != nil {
			runErrs = append(runErrs, runErr)
		}
	}
	return runErrs, nil
}

// collect puts run st's outcome into out at its want index (nothing when
// it is -1): its result, with a NaN test accuracy and validation loss when
// it failed, and its selected model (keep). It returns the run's own
// error: a *RunError when it failed, the *SaveError of its checkpoint not
// saved (the result stands), or nil; the error is a failure of the job.
func (j *job) collect(st *runState, ds *data.Dataset, out *outputs) (runErr, err error) {
	if st.Err != nil {
		fr := *st.fr
		fr.TestAcc, fr.ValLoss = math.NaN(), math.NaN()
		fr.Wall = time.Since(st.start)
		if st.want >= 0 {
			out.results[st.want] = fr
		}
		return &RunError{Run: st.want, Spec: RunSpec{Config: st.cfg, Seed: j.chains[st.si].seed, Fold: st.fold},
			Err: fmt.Errorf("dataset %s fold %d: %w", ds.Name, st.fold+1, st.Err)}, nil
	}
	if st.want >= 0 {
		out.results[st.want] = *st.fr
		if err := j.keep(st, out); err != nil {
			return nil, err
		}
	}
	return st.saveErr, nil
}

// keep puts run st's selected model into out.models (when wanted): its
// weights in a store of its own, laid out as a run alone's (runStore).
func (j *job) keep(st *runState, out *outputs) error {
	if out.models == nil {
		return nil
	}
	store, err := j.runStore(st.si)
	if err == nil && st.cfg.CarriesFolds() && st.best != nil {
		err = restoreRun(store, 0, st.best) // the store holds the carried weights
	}
	if err != nil {
		return err
	}
	out.models[st.want] = newTrained(j.backend, j.chains[st.si].m, store, st.fr.SelectedPhase)
	return nil
}

// finish ends the training of a round's runs: each run that did not fail
// has its selected weights restored, tested and saved (a checkpoint not
// saved is its saveErr), its result filled, and, under fold_reset=carry,
// the weights it ended with written back for its next fold. A run that
// failed keeps its error in its state; the error returned is a failure of
// the round.
func (j *job) finish(states []*runState) error {
	var fin []*runState
	for _, st := range states {
		if st.Err != nil {
			continue
		}
		if err := st.restoreSelected(); err != nil {
			return err
		}
		fin = append(fin, st)
	}
	sets := make([]evalSet, len(fin))
	for i, st := range fin {
		sets[i] = evalSet{st.fr.SelectedPhase, st.fd.TestX, st.fd.TestY}
	}
	tests, err := j.scoreSelected(fin, sets)
	if err != nil {
		return fmt.Errorf("test evaluation: %w", err)
	}
	var meanVal []*runState
	for i, st := range fin {
		st.fr.TestAcc = tests[i].Acc
		st.fr.RunAxis = len(j.chains) > 1 // a run axis of one run is the run alone
		st.fr.Params = ParameterCount(j.store) / len(j.chains)
		st.fr.Wall = time.Since(st.start)
		if st.cfg.SelectionStat != SelectionStatMean {
			meanVal = append(meanVal, st)
		}
	}
	if len(meanVal) > 0 {
		// The plain mean validation loss of the selected model, so that
		// the reported value is comparable across protocols (NaN on error).
		sets = sets[:0]
		for _, st := range meanVal {
			sets = append(sets, evalSet{st.fr.SelectedPhase, st.fd.ValX, st.fd.ValY})
		}
		vals, err := j.scoreSelected(meanVal, sets)
		for i, st := range meanVal {
			if err != nil {
				st.fr.ValLoss = math.NaN()
			} else {
				st.fr.ValLoss = meanOf(vals[i].CE)
			}
		}
	}
	for _, st := range fin {
		if st.checkpoint != "" {
			if err := j.save(st.si, st.fr.SelectedPhase, st.checkpoint); err != nil {
				if !onlySaveErrors(err) {
					return err
				}
				st.saveErr = err
			}
		}
		if err := st.resumeCarry(); err != nil {
			return err
		}
	}
	return nil
}

// runState is one run's current fold as fit.Train trains it: its progress
// (fit.Run), its result so far, the fit.Tracker that applies the protocol's
// rule to it (which epoch's model is kept, when the fold stops), the weights
// it keeps aside and its data.
type runState struct {
	fit.Run
	cfg   Config
	fr    *FoldResult
	track *fit.Tracker
	// j is the run's job, si its index there; want the index of its result
	// in TrainRuns' runs (-1: none wanted).
	j        *job
	si, want int
	fold     int
	fd       *data.FoldData
	// best holds the selected epoch's weights; last, under
	// fold_reset=carry, those the fold ended with.
	best, last map[string]*tensors.Tensor
	start      time.Time
	// checkpoint is the folder that receives the selected model ("" none),
	// saveErr the *SaveError of a checkpoint not saved (the result stands).
	checkpoint string
	saveErr    error
	// stats are the validation statistics the tracker has read, epoch by
	// epoch (what a resumed run's tracker replays); resume is where and
	// how often the run saves its progress (none: a zero resumeTo).
	stats  []float64
	resume resumeTo
}

// newRunState starts the k-th fold of run si of j, its batch order drawn
// from its chain's generator (when its configuration shuffles); its ValLoss
// stays NaN until an epoch is selected.
func (j *job) newRunState(si, k int) (*runState, error) {
	c := j.chains[si]
	shuffle := c.order
	if !c.cfg.Shuffle {
		shuffle = nil
	}
	fd, fold := c.fds[k], c.folds[k]
	bs, err := batchSize(c.cfg, len(fd.TrainY))
	if err != nil {
		return nil, err
	}
	st := &runState{Run: fit.NewRun(len(fd.TrainY), bs, c.cfg.Epochs, shuffle),
		cfg: c.cfg, fr: &FoldResult{Fold: fold, BatchSize: bs, ValLoss: math.NaN()}, track: fit.NewTracker(c.cfg.FitRule()),
		j: j, si: si, want: c.want[k], fold: fold, fd: fd, start: time.Now(), resume: c.resumeTo}
	st.resume.saved = st.start
	if k == 0 && c.resumed != nil {
		if err := st.continueFrom(c.resumed); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// FitRun is fit.Runner's.
func (st *runState) FitRun() *fit.Run { return &st.Run }

// phase is the phase of the epoch in progress: dense during the warm-up.
func (st *runState) phase() Phase {
	if st.Epoch < st.cfg.WarmUpEpochs {
		return Dense
	}
	return Sparse
}

// addStep adds step k's loss and correct predictions (of its batch) to st's
// epoch, or marks st failed when the loss is not finite.
func (st *runState) addStep(l float64, right, k int) {
	if math.IsNaN(l) || math.IsInf(l, 0) {
		st.Err = fmt.Errorf("epoch %d step %d (%s phase): training loss is %v: %w", st.Epoch, k, st.phase(), l, ErrNonFinite)
		return
	}
	st.AddStep(l, right, len(st.Batch(k)))
}

// endEpoch ends st's epoch, validated with val: when the rule keeps this
// epoch's model it records the selection in the result and snapshots the
// weights; it appends the epoch's EpochStats to the history, calls onEpoch
// (if not nil) and marks st done when the rule stops the fold. A validation
// loss that is not finite fails the run (an error wrapping ErrNonFinite,
// and nothing recorded), not the round.
func (st *runState) endEpoch(val fit.Scores, onEpoch func(EpochStats)) error {
	evalPhase := st.cfg.EvalPhase(st.phase())
	es := EpochStats{Fold: st.fold, Epoch: st.Epoch, Epochs: st.cfg.Epochs, Phase: st.phase(), TrainLoss: st.TrainLoss(),
		TrainAcc: st.TrainAcc(), ValLoss: meanOf(val.CE), ValAcc: val.Acc, Elapsed: time.Since(st.start)}
	fr := st.fr
	var selected, stop bool
	var selLoss float64
	if len(st.fd.ValY) == 0 {
		// No validation set (Fit without one): nothing is selected and
		// nothing stops the run early; the model is the last epoch's.
		fr.BestEpoch, fr.SelectedPhase, fr.SelectedWarmUp = es.Epoch, evalPhase, es.Phase == Dense
	} else {
		if math.IsNaN(es.ValLoss) || math.IsInf(es.ValLoss, 0) {
			st.Err = fmt.Errorf("epoch %d (%s phase): validation loss is %v: %w", es.Epoch, evalPhase, es.ValLoss, ErrNonFinite)
			st.Done = true
			return nil
		}
		// The selection and stopping statistic: the mean CE, or the reference's
		// batch-scaled sum (Σ_batches mean CE / n_val).
		selLoss = st.cfg.SelectionLoss(val.CE, st.BatchSize)
		selected, stop = st.track.Next(selLoss)
		st.stats = append(st.stats, selLoss)
	}
	if selected {
		fr.ValLoss, fr.BestEpoch, fr.SelectedPhase = selLoss, es.Epoch, evalPhase
		fr.SelectedWarmUp = es.Phase == Dense
		var err error
		if st.best, err = st.j.snapshot(st.si, st.best); err != nil {
			return err
		}
		es.Selected = true
	}
	fr.History = append(fr.History, es)
	fr.EpochsRun = es.Epoch + 1
	if onEpoch != nil {
		onEpoch(es)
	}
	if stop {
		st.Done = true
	}
	return nil
}

// restoreSelected ends the fold's training: it writes the selected model's
// weights back for the test evaluation and the checkpoint (none when no
// epoch was selected). Under fold_reset=carry it first keeps the weights the
// fold ended with aside, for resumeCarry: the next fold continues from them
// (the authors' code never restores the selected ones).
func (st *runState) restoreSelected() error {
	if st.cfg.CarriesFolds() {
		last, err := st.j.snapshot(st.si, nil)
		if err != nil {
			return err
		}
		st.last = last
	}
	return restoreRun(st.j.store, st.si, st.best)
}

// resumeCarry writes back, under fold_reset=carry, the weights the fold
// ended with, which the next fold starts from; otherwise it does nothing.
func (st *runState) resumeCarry() error {
	if st.last == nil {
		return nil
	}
	return restoreRun(st.j.store, st.si, st.last)
}
