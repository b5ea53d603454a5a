package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/buildinfo"
	"github.com/softshape-go/softshape/internal/checkpointdir"
	"github.com/softshape-go/softshape/softshape"
)

// Runner trains the cells of a grid into a Store.
type Runner struct {
	// Store receives the records.
	Store *Store
	// Execution is how the cells train. Workers is the number trained at
	// once (goroutines; 0 means 1; PlanWorkers and AutoWorkers choose it,
	// and NewBackend, for the machine). DataRoot is the folder of the UCR
	// datasets, Offline forbids downloads. MaxRuns caps the runs trained
	// together by the default training (softshape.TrainRuns; a
	// fold_reset=carry run's folds count as one, as they train in order):
	// 0 means backends.DefaultMaxRuns of the backend, 1 trains one cell at
	// a time (DefaultTrain); cells of tables that report time per run
	// (TimedTable) always train one at a time, as do all cells when Train
	// is set, and every run's record is written as soon as its group of
	// runs has finished, so a killed sweep loses only the runs of the
	// groups in flight. RunAxis says whether a group trains as one model
	// with a run axis where its runs allow it. Fast trains the model's
	// speed forms instead of its plain graphs (another run in the last
	// bits, as with another thread count); each record says which
	// (Record.SpeedForms). BackendName names the backend started when
	// Backend and NewBackend are nil.
	softshape.Execution
	// Backend runs the graphs of every worker when NewBackend is nil; nil
	// means backends.New(BackendName), started at the first cell trained and
	// finalized when Run returns. A Backend given here is the caller's to
	// finalize.
	Backend compute.Backend
	// NewBackend, when set, gives every worker a backend of its own (e.g. a
	// single-threaded pure-Go backend per core, SingleThreadGoBackend): a worker
	// calls it before the first cell it trains (a worker that trains nothing
	// starts nothing) and finalizes that backend when Run returns. If it
	// fails, the cell is recorded as failed with the error and the worker
	// tries again at its next cell. Backend is then unused.
	NewBackend func() (compute.Backend, error)
	// Load returns a dataset by name; nil means data.LoadOrDownload from
	// DataRoot. Each dataset is loaded once per Run.
	Load func(name string) (*data.Dataset, error)
	// Train trains one fold; nil means the default training: the cells of one
	// dataset batched by softshape.TrainRuns, MaxRuns runs at a time.
	Train TrainFunc
	// Log receives one line per cell started and finished; nil discards.
	Log io.Writer
	// NoReuse trains every cell even when an ok record of the same
	// computation (dataset, fold, seed, configuration hash) exists elsewhere.
	NoReuse bool
	// RetryFailed re-runs cells whose record has status "failed" (never
	// "invalid", which is a property of the configuration).
	RetryFailed bool
	// OnExecute, when set, is called when a cell starts training (after its
	// lock is taken), e.g. to count executions in tests.
	OnExecute func(Key)
	// ResumeEvery is how often a cell that trains alone (the default
	// training, one cell at a time) saves its progress beside its record
	// (Store.ResumePath; softshape.RunOptions.ResumePath), so that a sweep
	// killed in the middle of a fold continues that fold from its last
	// save, bit for bit, instead of from its first epoch: 0 means
	// softshape.DefaultResumeEvery, a negative value never saves.
	ResumeEvery time.Duration
}

// Report counts what Run did with the cells it was given.
type Report struct {
	// Ran counts cells trained (ok, failed or invalid), Reused cells copied
	// from an existing record of the same computation, Done cells that
	// already had a record, Busy cells held by another live process,
	// Stopped cells whose training the Run's context stopped at the end of
	// an epoch, their progress saved (no record: a later sweep continues
	// them).
	Ran, Reused, Done, Busy, Stopped int
	// Failed and Invalid count the cells of Ran that ended so.
	Failed, Invalid int
	// Errors lists the cells left without a record (dataset not found,
	// unreadable record, store errors), one error each, naming the cell.
	Errors []error
}

// runState is the shared state of one Run.
type runState struct {
	r       *Runner
	backend compute.Backend // shared by the workers when r.NewBackend is nil
	owned   bool            // backend was started by Run: finalize it at the end
	total   int
	started atomic.Int64

	// stop is the Run's context's Done: it stops the cells in training
	// that save their progress (keepProgress).
	stop <-chan struct{}

	mu       sync.Mutex
	rep      Report
	datasets map[string]*loadedDataset
	reuse    map[string]string // reuseID → record path
	// otherCode maps the reuseID of an ok record that reuse leaves out,
	// because another build made it, to that build (for the log).
	otherCode map[string]string
}

// loadedDataset is a dataset loaded once per Run.
type loadedDataset struct {
	once sync.Once
	ds   *data.Dataset
	err  error
}

// worker is one goroutine of a Run, with its own backend when
// Runner.NewBackend is set.
type worker struct {
	st      *runState
	backend compute.Backend // started by r.NewBackend, nil until the first cell trained
}

// Run trains every cell that has no record yet, Workers at a time, skipping
// cells held by other processes. It first fixes, or checks, the form of the
// store's runs (Store.ClaimForm), then removes stale locks and temporary
// files of dead processes in the cells' tables. Cancelling ctx stops starting
// new cells; a cell in training that saves its progress (the default
// training, one cell at a time, with ResumeEvery ≥ 0) stops at the end of
// its epoch in progress, its progress saved and no record written
// (Report.Stopped: a later Run continues it), and the others (batched jobs,
// Runner.Train) finish. Every backend Run started (per worker
// with NewBackend, or the default one) is finalized before it returns. The
// error is for failures to start (e.g. the store); per-cell problems are in
// Report.Errors.
func (r *Runner) Run(ctx context.Context, cells []Cell) (Report, error) {
	st := &runState{r: r, total: len(cells), datasets: map[string]*loadedDataset{}, stop: ctx.Done()}
	if r.Store == nil {
		return st.rep, errors.New("sweep runner: no store")
	}
	if err := r.Store.ClaimForm(r.Fast); err != nil {
		return st.rep, err
	}
	tables := map[string]bool{}
	for _, c := range cells {
		tables[c.Table] = true
	}
	for t := range tables {
		if _, err := r.Store.Clean(t); err != nil {
			return st.rep, err
		}
	}
	if !r.NoReuse {
		if err := st.buildReuseIndex(); err != nil {
			return st.rep, err
		}
	}
	st.countRecorded(cells)
	st.backend = r.Backend
	defer func() {
		if st.owned && st.backend != nil {
			st.backend.Finalize()
		}
	}()
	workers := max(1, r.Workers)
	groups := batchGroups(carryGroups(cells), r.batchSize())
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{st: st}
			defer w.close()
			for jb := range jobs {
				if ctx.Err() != nil {
					continue
				}
				if jb.batched {
					w.runBatch(jb.cells)
					continue
				}
				for _, c := range jb.cells {
					if ctx.Err() != nil {
						break
					}
					w.runCell(c)
				}
			}
		}()
	}
	var err error
feed:
	for _, group := range groups {
		select {
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		case jobs <- group:
		}
	}
	close(jobs)
	wg.Wait()
	return st.rep, err
}

// countRecorded sets the progress total to the cells that still have to be
// trained and logs, when resuming, how many already have a record. A record
// it cannot read counts as still to train; the cell reports the error.
func (st *runState) countRecorded(cells []Cell) {
	recorded := 0
	for _, c := range cells {
		if done, err := st.existing(c.Key); err == nil && done {
			recorded++
		}
	}
	st.total = len(cells) - recorded
	if recorded > 0 {
		st.logf("resuming: %d of %d cells already recorded, %d to train", recorded, len(cells), st.total)
	}
}

// buildReuseIndex maps every ok record of the store that this binary's code
// made by its computation. A record is the same computation as a cell only if
// the same code made it: the store's build (Record.CodeVersion) must be equal
// and, when known, clean (a build from a checkout with uncommitted changes or
// untracked files reuses only the runs it trains itself). A binary without a revision (go run, tests) reuses
// only records without one, as before records carried it. Records left out
// for their build are noted in otherCode for the log.
func (st *runState) buildReuseIndex() error {
	st.reuse, st.otherCode = map[string]string{}, map[string]string{}
	build := st.r.Store.build
	if build != "" && !buildinfo.Clean(build) {
		st.logf("reuse: this binary was built from a checkout with uncommitted changes or untracked files (%s): it copies no record of another run, and trains every cell; build it from a clean checkout to reuse", buildinfo.Short(build))
		return nil
	}
	return st.r.Store.Walk("", func(path string, rec *Record, err error) error {
		if err != nil || rec.Status != StatusOK || rec.ReusedFrom != "" {
			return nil
		}
		if rec.CodeVersion != build {
			st.otherCode[rec.Key().reuseID()] = rec.CodeVersion
			return nil
		}
		st.reuse[rec.Key().reuseID()] = path
		return nil
	})
}

// logf writes a progress line.
func (st *runState) logf(format string, args ...any) {
	if st.r.Log == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	fmt.Fprintf(st.r.Log, format+"\n", args...)
}

// count updates the report under the lock.
func (st *runState) count(f func(*Report)) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f(&st.rep)
}

// fail records a cell left without a record.
func (st *runState) fail(k Key, err error) {
	st.count(func(r *Report) { r.Errors = append(r.Errors, fmt.Errorf("%s: %w", k, err)) })
	st.logf("error  %s: %v", k, err)
}

// existing reports whether k has a record that Run must keep.
func (st *runState) existing(k Key) (bool, error) {
	rec, err := st.r.Store.Read(k)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case rec.Status == StatusFailed && st.r.RetryFailed:
		return false, nil
	}
	return true, nil
}

// getBackend returns the worker's backend: its own (started at the first
// call) when Runner.NewBackend is set, else the shared one.
func (w *worker) getBackend() (compute.Backend, error) {
	if w.st.r.NewBackend == nil {
		return w.st.getBackend()
	}
	if w.backend == nil {
		b, err := w.st.r.NewBackend()
		if err == nil && b == nil {
			err = errors.New("NewBackend returned no backend")
		}
		if err != nil {
			return nil, fmt.Errorf("starting the backend of a sweep worker (Runner.NewBackend): %w", err)
		}
		w.backend = b
	}
	return w.backend, nil
}

// close finalizes the worker's own backend.
func (w *worker) close() {
	if w.backend != nil {
		w.backend.Finalize()
		w.backend = nil
	}
}

// runCell runs one cell if nobody has.
func (w *worker) runCell(c Cell) {
	st := w.st
	claim := st.claim(c.Key)
	if claim == nil {
		return
	}
	defer st.release(c.Key, claim)
	ds, err := st.dataset(c.Dataset)
	if err != nil {
		st.fail(c.Key, err)
		return
	}
	if rec := st.train(c, ds, w.getBackend, w.trainFunc(c)); rec != nil {
		st.write(c, rec)
	}
}

// claim takes the lock of cell k when it still has to be trained: no record
// (or a failed one with RetryFailed), not held by another live process, and
// no record of the same computation to reuse. It returns nil, having counted
// the cell, when there is nothing to train.
func (st *runState) claim(k Key) *Claim {
	if st.settled(k) {
		return nil
	}
	claim, err := st.r.Store.Claim(k)
	if errors.Is(err, ErrBusy) {
		st.count(func(r *Report) { r.Busy++ })
		return nil
	}
	if err != nil {
		st.fail(k, err)
		return nil
	}
	if !st.stillToRun(k) {
		st.release(k, claim)
		return nil
	}
	return claim
}

// settled reports whether cell k is out of this run's hands by its record:
// one that needs no training (counted as done), or one that cannot be read
// (counted as failed).
func (st *runState) settled(k Key) bool {
	done, err := st.existing(k)
	if err != nil {
		st.fail(k, err)
		return true
	}
	if done {
		st.count(func(r *Report) { r.Done++ })
	}
	return done
}

// release gives back the lock of cell k.
func (st *runState) release(k Key, claim *Claim) {
	if err := claim.Release(); err != nil {
		st.fail(k, err)
	}
}

// stillToRun is called with c's claim held: it reports whether the cell must
// be trained, i.e. no other process finished it between the first check and
// the claim and no record of the same computation can be reused.
func (st *runState) stillToRun(k Key) bool {
	if st.settled(k) {
		return false
	}
	if ok, err := st.reuseRecord(k); ok || err != nil {
		if err != nil {
			st.fail(k, err)
		}
		return false
	}
	return true
}

// write stores the record of a cell trained (ok, failed or invalid), counts
// it and logs it.
func (st *runState) write(c Cell, rec *Record) {
	s := st.r.Store
	if err := s.Write(rec); err != nil {
		st.fail(c.Key, err)
		return
	}
	st.count(func(r *Report) {
		r.Ran++
		switch rec.Status {
		case StatusFailed:
			r.Failed++
		case StatusInvalid:
			r.Invalid++
		}
	})
	if rec.Status == StatusOK {
		st.mu.Lock()
		if st.reuse != nil {
			st.reuse[c.reuseID()] = s.RecordPath(c.Key)
		}
		st.mu.Unlock()
		st.logf("done   %s: test accuracy %.4f, val loss %.4f, %d epochs, %.1fs", c.Key, float64(rec.TestAccuracy), float64(rec.ValLoss), rec.EpochsRun, float64(rec.WallSeconds))
	} else {
		st.logf("%-6s %s: %s", rec.Status, c.Key, rec.Error)
	}
}

// reuseRecord copies an ok record of the same computation made for another
// variant or table, if the index has one.
func (st *runState) reuseRecord(k Key) (bool, error) {
	st.mu.Lock()
	src, ok := st.reuse[k.reuseID()]
	other, byOther := st.otherCode[k.reuseID()]
	st.mu.Unlock()
	if !ok {
		if byOther {
			st.logf("train  %s: the same computation is recorded, but by another build (%s; this binary: %s), so it is not copied", k, describeBuild(other), describeBuild(st.r.Store.build))
		}
		return false, nil
	}
	rec, err := st.r.Store.readFile(src)
	if err != nil || rec.Status != StatusOK || rec.Key().reuseID() != k.reuseID() {
		return false, nil // the source is gone or changed: train instead
	}
	rel, err := filepath.Rel(st.r.Store.root, src)
	if err != nil {
		rel = src
	}
	cp := *rec
	cp.Table, cp.Variant, cp.ReusedFrom = k.Table, k.Variant, filepath.ToSlash(rel)
	if err := st.r.Store.Write(&cp); err != nil {
		return false, err
	}
	st.count(func(r *Report) { r.Reused++ })
	st.logf("reused %s: test accuracy %.4f (from %s)", k, float64(cp.TestAccuracy), cp.ReusedFrom)
	return true, nil
}

// describeBuild names a build in a log line.
func describeBuild(rev string) string {
	if rev == "" {
		return "no revision recorded"
	}
	return buildinfo.Short(rev)
}

// dataset loads a dataset once per Run.
func (st *runState) dataset(name string) (*data.Dataset, error) {
	st.mu.Lock()
	l, ok := st.datasets[name]
	if !ok {
		l = &loadedDataset{}
		st.datasets[name] = l
	}
	st.mu.Unlock()
	l.once.Do(func() {
		if st.r.Load != nil {
			l.ds, l.err = st.r.Load(name)
		} else {
			l.ds, l.err = data.LoadOrDownload(st.r.DataRoot, name, data.LoadOptions{Offline: st.r.Offline})
		}
		if l.err == nil && l.ds == nil {
			l.err = fmt.Errorf("dataset %s: loader returned nothing", name)
		}
	})
	return l.ds, l.err
}

// getBackend returns the shared backend, starting the default one at the
// first call when Runner.Backend is nil.
func (st *runState) getBackend() (compute.Backend, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.backend == nil {
		b, err := backends.New(st.r.BackendName)
		if err != nil {
			return nil, err
		}
		st.backend, st.owned = b, true
	}
	return st.backend, nil
}

// train runs one cell on the backend getBackend returns and returns its
// record (ok, failed or invalid), or nil when the Run's context stopped the
// cell's training, its progress saved (softshape.ErrStopped): the cell
// stays without a record, and a later sweep continues it.
func (st *runState) train(c Cell, ds *data.Dataset, getBackend func() (compute.Backend, error), trainFn TrainFunc) *Record {
	rec := st.newRecord(c)
	refM := softshape.RefShapeLength(ds.Name, ds.Length)
	if err := checkResolves(c, ds, refM); err != nil {
		return rec.finish(StatusInvalid, err)
	}
	backend, err := getBackend()
	if err != nil {
		return rec.finish(StatusFailed, err)
	}
	rec.setBackend(backend)
	st.starting(c)
	opts := st.r.runOptions(backend, refM)
	opts.Seed = c.Seed
	out, err := safeTrain(trainFn, ds, c.Config, c.Fold-1, opts)
	if errors.Is(err, softshape.ErrStopped) {
		st.count(func(r *Report) { r.Stopped++ })
		st.logf("stop   %s: %v; the next sweep continues it", c.Key, err)
		return nil
	}
	if err != nil {
		return rec.finish(StatusFailed, err)
	}
	rec.InferenceSeconds = Float(out.InferenceSeconds)
	return rec.fill(out.Result)
}

// setBackend names in r the backend that trains its run: Backend and
// BackendDetail.
// runOptions are the options of every training the runner starts on
// backend, for a dataset whose authors' shape length is refM; the caller adds
// what differs per training (a single run's seed, a batch's runs).
func (r *Runner) runOptions(backend compute.Backend, refM int) softshape.RunOptions {
	return softshape.RunOptions{Execution: r.Execution, Backend: backend, NumFolds: NumFolds, RefShapeLen: refM}
}

func (r *Record) setBackend(b compute.Backend) {
	r.Backend, r.BackendDetail = b.Name(), backends.Description(b)
}

// newRecord starts the record of cell c: its key, configuration and
// provenance, the result fields NaN until filled.
func (st *runState) newRecord(c Cell) *Record {
	return &Record{Schema: SchemaVersion, Table: c.Table, Dataset: c.Dataset, Variant: c.Variant, Fold: c.Fold, Seed: c.Seed,
		Quick: c.Quick, Hash: c.Hash, Mode: modeOf(c.Quick), Config: c.Config.String(), Protocol: c.Config.ProtocolName(),
		SpeedForms: st.r.Fast, Started: time.Now().UTC(), Hostname: st.r.Store.host, PID: st.r.Store.pid, CPU: st.r.Store.cpu, CodeVersion: st.r.Store.build,
		TestAccuracy: Float(nanValue()), ValLoss: Float(nanValue()), WallSeconds: Float(nanValue()), InferenceSeconds: Float(nanValue())}
}

// checkResolves reports, as the reason of an invalid record, a configuration
// that cannot be built for the dataset (e.g. k > Ĉ).
func checkResolves(c Cell, ds *data.Dataset, refM int) error {
	if _, err := c.Config.Resolve(ds.Length, ds.NumClasses(), refM); err != nil {
		return fmt.Errorf("dataset %s (T=%d, C=%d): %w", ds.Name, ds.Length, ds.NumClasses(), err)
	}
	return nil
}

// starting counts and logs a cell whose training starts.
func (st *runState) starting(c Cell) {
	if st.r.OnExecute != nil {
		st.r.OnExecute(c.Key)
	}
	n := st.started.Add(1)
	st.logf("start  [%d/%d] %s", n, st.total, c.Key)
}

// finish closes the record with its status and error.
func (rec *Record) finish(status Status, err error) *Record {
	rec.Status = status
	if err != nil {
		rec.Error = err.Error()
	}
	rec.Finished = time.Now().UTC()
	return rec
}

// fill closes the record of a run trained to the end with its result; a
// result that fails Validate makes it a failed record.
func (rec *Record) fill(fr softshape.FoldResult) *Record {
	rec.TestAccuracy, rec.ValLoss = Float(fr.TestAcc), Float(fr.ValLoss)
	rec.BestEpoch, rec.EpochsRun, rec.SelectedPhase = fr.BestEpoch, fr.EpochsRun, fr.SelectedPhase.String()
	rec.SelectedWarmUp = fr.SelectedWarmUp
	rec.BatchSize, rec.Params, rec.RunAxis = fr.BatchSize, fr.Params, fr.RunAxis
	rec.ResumedAt = fr.ResumedAt
	rec.WallSeconds = Float(fr.Wall.Seconds())
	rec.finish(StatusOK, nil)
	if err := rec.Validate(); err != nil {
		rec.TestAccuracy = Float(nanValue())
		return rec.finish(StatusFailed, fmt.Errorf("incomplete training result: %w", err))
	}
	return rec
}

// safeTrain calls the training function, turning a panic into an error.
func safeTrain(f TrainFunc, ds *data.Dataset, cfg softshape.Config, fold int, opts softshape.RunOptions) (out *Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("training panicked: %v\n%s", r, debug.Stack())
		}
	}()
	out, err = f(ds, cfg, fold, opts)
	if err == nil && out == nil {
		err = errors.New("training returned no result")
	}
	return out, err
}

// trainFunc is Runner.Train, or DefaultTrain continuing a fold_reset=carry
// run's chain (trainFold), for cell c.
func (w *worker) trainFunc(c Cell) TrainFunc {
	if w.st.r.Train != nil {
		return w.st.r.Train
	}
	return func(ds *data.Dataset, cfg softshape.Config, fold int, opts softshape.RunOptions) (*Outcome, error) {
		return w.trainFold(c, ds, cfg, fold, opts)
	}
}

// trainFold is DefaultTrain, except that the fold keeps its progress in
// the store (Store.ResumePath, every Runner.ResumeEvery) and continues from
// it after a kill, and that a fold_reset=carry run continues from the state
// the store holds from the run's previous fold (Store.CarryPath), else
// trains the earlier folds again (then without saving its progress, which
// is of one fold). After each fold but the last it saves the state carried
// out of it in the store, so that the next fold, in this sweep or in one
// resumed after a kill, continues without training the earlier folds again.
func (w *worker) trainFold(c Cell, ds *data.Dataset, cfg softshape.Config, fold int, opts softshape.RunOptions) (*Outcome, error) {
	st, store := w.st, w.st.r.Store
	tmp := ""
	if cfg.CarriesFolds() {
		var err error
		if tmp, err = store.carryOut(c.Key, opts.FoldCount()); err != nil {
			return nil, err
		}
		if tmp != "" {
			defer checkpointdir.Remove(tmp) // nothing left to remove once renamed
		}
		opts.CarryIn, opts.CarryOut = store.carriedIn(c.Key), tmp
		if opts.CarryIn != "" {
			st.logf("resume %s from the state carried out of fold %d (%s)", c.Key, fold, opts.CarryIn)
		}
	}
	if err := w.keepProgress(c, &opts); err != nil {
		return nil, err
	}
	out, err := trainAndTime(ds, cfg, fold, opts)
	var bad *softshape.CarriedStateError
	if opts.CarryIn != "" && errors.As(err, &bad) {
		st.logf("carried state %s not used (%v): training folds 1–%d of %s again", bad.Dir, bad.Err, fold, c.Key)
		opts.CarryIn, opts.ResumePath = "", ""
		out, err = trainAndTime(ds, cfg, fold, opts)
	}
	var stale *softshape.ResumeStateError
	if errors.As(err, &stale) {
		// The store's own file, of another run of this cell (another
		// version of the code, say): it trains the fold from the start.
		st.logf("saved progress %s not used (%v): training %s from its first epoch", stale.Path, stale.Err, c.Key)
		if err := os.Remove(stale.Path); err != nil {
			return nil, fmt.Errorf("removing unusable saved progress: %w", err)
		}
		out, err = trainAndTime(ds, cfg, fold, opts)
	}
	if out == nil {
		return nil, err
	}
	if !cfg.CarriesFolds() {
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	if err == nil {
		err = store.keepCarried(tmp, c.Key)
	}
	if err != nil {
		st.logf("%s: carried state not saved (%v): a resumed sweep trains this chain's folds again", c.Key, err)
	}
	return out, nil
}

// keepProgress sets opts to save cell c's progress in the store
// (Store.ResumePath, every Runner.ResumeEvery) and to continue from it,
// unless Runner.ResumeEvery is negative or the cell's fold cannot be
// trained alone (a fold_reset=carry fold after the first with no carried
// state trains the folds before it too); a continuation and a failed save
// are logged.
func (w *worker) keepProgress(c Cell, opts *softshape.RunOptions) error {
	st := w.st
	if st.r.ResumeEvery < 0 || (c.Config.CarriesFolds() && c.Fold > 1 && opts.CarryIn == "") {
		return nil
	}
	path := st.r.Store.ResumePath(c.Key)
	if err := st.r.Store.mkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	opts.ResumePath, opts.ResumeEvery, opts.Stop = path, st.r.ResumeEvery, st.stop
	opts.OnResume = func(ev softshape.ResumeEvent) {
		switch {
		case ev.Loaded:
			st.logf("resume %s at epoch %d from its saved progress (%s)", c.Key, ev.Epoch+1, ev.Path)
		case ev.Err != nil:
			st.logf("%s: progress not saved (%v): the fold goes on", c.Key, ev.Err)
		}
	}
	return nil
}

// carryGroups splits cells (in key order) into the units a worker takes:
// the consecutive folds of one fold_reset=carry run (same table, dataset,
// variant, seed and configuration) form one group, so one worker trains the
// chain once; every other cell is a group of its own.
func carryGroups(cells []Cell) [][]Cell {
	var out [][]Cell
	for i, c := range cells {
		if i > 0 && c.Config.CarriesFolds() {
			p := cells[i-1]
			if p.Table == c.Table && p.Dataset == c.Dataset && p.Variant == c.Variant && p.Seed == c.Seed &&
				p.Hash == c.Hash && p.Fold < c.Fold {
				out[len(out)-1] = append(out[len(out)-1], c)
				continue
			}
		}
		out = append(out, []Cell{c})
	}
	return out
}
