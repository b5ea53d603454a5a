package sweep

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
)

// TimedTable reports whether table's records report time per run (wall time
// per epoch, inference time): such cells always train one at a time, since a
// run sharing its graph with others has no time of its own.
func TimedTable(table string) bool { return table == "params_inference_time" }

// job is what a worker takes: one cell, the folds of one fold_reset=carry run
// (trained in order by one worker), or, batched, several such units of one
// dataset and variant (its folds × seeds) trained together by
// softshape.TrainRuns.
type job struct {
	cells   []Cell
	batched bool
}

// batchSize is the number of units (cells, or carry runs) the default
// training puts in one graph: MaxRuns, else backends.DefaultMaxRuns of the
// runner's backend; 1 when Train is set.
func (r *Runner) batchSize() int {
	switch {
	case r.Train != nil:
		return 1
	case r.MaxRuns > 0:
		return r.MaxRuns
	}
	return backends.DefaultMaxRuns(r.Backend)
}

// batchGroups packs units (from carryGroups, in key order) into jobs: up to
// size consecutive units of one table, dataset and variant (configuration
// hash: its folds and seeds) form a batched job when there are at least two
// of them and the table is not timed; every other unit is a job of its own.
// Keeping variants apart keeps a job's wall time that of one configuration.
func batchGroups(units [][]Cell, size int) []job {
	var out []job
	n := 0 // units in the last job
	for _, u := range units {
		if size > 1 && len(out) > 0 && !TimedTable(u[0].Table) && n < size {
			last := &out[len(out)-1]
			p := last.cells[0]
			if p.Table == u[0].Table && p.Dataset == u[0].Dataset && p.Hash == u[0].Hash && !TimedTable(p.Table) {
				last.cells = append(last.cells, u...)
				last.batched = true
				n++
				continue
			}
		}
		out = append(out, job{cells: slices.Clone(u)})
		n = 1
	}
	return out
}

// runBatch trains the cells of one dataset that nobody has trained yet
// together (softshape.TrainRuns), holding their claims until their records
// are written. A run that fails gets a failed record; the others are kept.
func (w *worker) runBatch(cells []Cell) {
	st := w.st
	var todo []Cell
	claims := map[Key]*Claim{}
	defer func() {
		for _, c := range todo {
			st.release(c.Key, claims[c.Key])
		}
	}()
	for _, c := range cells {
		if claim := st.claim(c.Key); claim != nil {
			todo = append(todo, c)
			claims[c.Key] = claim
		}
	}
	if len(todo) == 0 {
		return
	}
	ds, err := st.dataset(todo[0].Dataset)
	if err != nil {
		for _, c := range todo {
			st.fail(c.Key, err)
		}
		return
	}
	refM := softshape.RefShapeLength(ds.Name, ds.Length)
	var runs []softshape.RunSpec
	var recs []*Record
	var live []Cell
	for _, c := range todo {
		rec := st.newRecord(c)
		if err := checkResolves(c, ds, refM); err != nil {
			st.write(c, rec.finish(StatusInvalid, err))
			continue
		}
		runs = append(runs, softshape.RunSpec{Config: c.Config, Seed: c.Seed, Fold: c.Fold - 1})
		recs = append(recs, rec)
		live = append(live, c)
	}
	if len(live) == 0 {
		return
	}
	backend, err := w.getBackend()
	if err != nil {
		for i, c := range live {
			st.write(c, recs[i].finish(StatusFailed, err))
		}
		return
	}
	for i, c := range live {
		recs[i].setBackend(backend)
		recs[i].BatchRuns = len(live)
		st.starting(c)
	}
	opts := st.r.runOptions(backend, refM)
	opts.MaxRuns = len(runs)
	results, err := safeTrainRuns(ds, runs, opts)
	failed := map[int]error{}
	var runErr *softshape.RunError
	for _, e := range unwrapJoined(err) {
		if errors.As(e, &runErr) && runErr.Run >= 0 {
			failed[runErr.Run] = e
		} else {
			// The job itself failed: no run has a trustworthy result.
			for i := range live {
				failed[i] = err
			}
			break
		}
	}
	for i, c := range live {
		if e, ok := failed[i]; ok {
			st.write(c, recs[i].finish(StatusFailed, e))
			continue
		}
		st.write(c, recs[i].fill(results[i]))
	}
}

// unwrapJoined lists the errors joined in err (errors.Join), or err itself.
func unwrapJoined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// safeTrainRuns calls softshape.TrainRuns, turning a panic into an error.
func safeTrainRuns(ds *data.Dataset, runs []softshape.RunSpec, opts softshape.RunOptions) (res []softshape.FoldResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("batched training panicked: %v\n%s", r, debug.Stack())
		}
	}()
	res, err = softshape.TrainRuns(ds, runs, opts)
	if err == nil && len(res) != len(runs) {
		err = fmt.Errorf("batched training returned %d results for %d runs", len(res), len(runs))
	}
	return res, err
}
