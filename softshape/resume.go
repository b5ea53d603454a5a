package softshape

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// A run of one fold can stop at the end of any epoch and continue later
// (RunOptions.ResumePath): what the next epoch starts from is the run's
// whole state, saved in one file (saveResume): every variable of its store
// (weights, Adam's moments and step, the dropout generator), the
// batch-order generator and the epoch's sample order, the validation
// statistics the tracker has read (replayed, they give back its selection
// and early-stopping state), the selected epoch's weights and the result so
// far (history, selected epoch). Loaded (loadResume), it makes the run go on
// exactly as the one that stopped would have: same graphs, same inputs.

// DefaultResumeEvery is the least time between two saves of a run's
// progress when RunOptions.ResumeEvery is 0.
const DefaultResumeEvery = 10 * time.Minute

// resumeMagic starts a resume file; resumeVersion is its layout.
const (
	resumeMagic   = "softshape resume state"
	resumeVersion = 1
)

// ResumeStateError reports a resume file (RunOptions.ResumePath) that the
// run cannot continue from: unreadable, not a resume state, or of another
// dataset, configuration, seed, fold, forms or backend. Nothing was trained
// and the file was left as it is.
type ResumeStateError struct {
	// Path is the file; Err the cause.
	Path string
	Err  error
}

// Error names the file and the cause.
func (e *ResumeStateError) Error() string { return fmt.Sprintf("resume state %s: %v", e.Path, e.Err) }

// Unwrap returns the cause.
func (e *ResumeStateError) Unwrap() error { return e.Err }

// ResumeEvent tells RunOptions.OnResume of a run's progress saved to, or
// continued from, its resume file.
type ResumeEvent struct {
	// Path is the resume file; Epoch the epoch (0-based) the saved progress
	// continues with, i.e. the epochs trained before it.
	Path  string
	Epoch int
	// Loaded is true when the run continues from the file, false when it
	// saved to it; Err, when not nil, is why the save failed (the run goes
	// on, and tries again at the next save).
	Loaded bool
	Err    error
}

// resumeTo is where and how often a run saves its progress (no path: never).
type resumeTo struct {
	path  string
	every time.Duration
	// saved is when the run last saved, or started; on is RunOptions.OnResume.
	saved time.Time
	on    func(ResumeEvent)
}

// resumeHeader is a resume file's description of the run and its progress;
// the variables' values and the selected weights follow it, in its order.
type resumeHeader struct {
	Version                            int
	Config                             string
	Seed                               int64
	Fold                               int
	SeriesLen, NumClasses, RefShapeLen int
	Fast                               bool
	Backend                            string
	// NextEpoch is the epoch to train next; Order the sample order of the
	// epoch before it; Shuffle the batch-order generator's state.
	NextEpoch int
	Order     []int
	Shuffle   []byte
	// Stats are the validation statistics the tracker read; Result the
	// fold's result so far; Elapsed its wall time so far.
	Stats   []float64
	Result  FoldResult
	Elapsed time.Duration
	// Vars are the store's variables; Best the paths of the selected
	// epoch's weights (none before an epoch is selected).
	Vars []resumeVar
	Best []string
}

// resumeVar is one saved variable of the store.
type resumeVar struct {
	Path      string
	Trainable bool
}

// resumed is the progress of a run read from its resume file that is not in
// the store: what its runState continues from (continueFrom).
type resumed struct {
	header resumeHeader
	best   map[string]*tensors.Tensor
}

// ResumeEpoch returns the epoch (0-based) that the progress saved in the
// resume file at path continues with, i.e. the epochs its fold has
// trained, reading only the file's description of the run. A file that is
// not a resume state is a *ResumeStateError.
func ResumeEpoch(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h, err := readResumeHeader(path, gob.NewDecoder(bufio.NewReader(f)))
	if err != nil {
		return 0, err
	}
	return h.NextEpoch, nil
}

// resumeStateError is a *ResumeStateError of the file at path, its cause
// formatted as by fmt.Errorf.
func resumeStateError(path, format string, args ...any) error {
	return &ResumeStateError{Path: path, Err: fmt.Errorf(format, args...)}
}

// readResumeHeader reads the start of the resume file at path from dec:
// its mark and its description of the run (the values follow). Its errors
// are *ResumeStateError values.
func readResumeHeader(path string, dec *gob.Decoder) (resumeHeader, error) {
	var magic string
	var h resumeHeader
	if err := dec.Decode(&magic); err != nil || magic != resumeMagic {
		return h, resumeStateError(path, "not a resume state")
	}
	if err := dec.Decode(&h); err != nil {
		return h, resumeStateError(path, "reading: %w", err)
	}
	if h.Version != resumeVersion {
		return h, resumeStateError(path, "layout version %d, want %d", h.Version, resumeVersion)
	}
	return h, nil
}

// oneRun returns the chain of a job of one run of one fold, or an error.
func (j *job) oneRun() (*chainSpec, error) {
	if len(j.chains) != 1 || len(j.chains[0].folds) != 1 {
		return nil, errors.New("a resume state (RunOptions.ResumePath) is of one run of one fold")
	}
	return j.chains[0], nil
}

// loadResume sets up the progress saving of the job's one run to path
// (none when path is ""), every every (0: DefaultResumeEvery), and, when
// path holds a resume state, loads it: the store's variables and the
// batch-order generator at once, the rest into the chain for its run
// (newRunState, continueFrom). A state the run cannot continue from is a
// *ResumeStateError.
func (j *job) loadResume(path string, every time.Duration, on func(ResumeEvent)) error {
	if path == "" {
		return nil
	}
	c, err := j.oneRun()
	if err != nil {
		return err
	}
	if every <= 0 {
		every = DefaultResumeEvery
	}
	c.resumeTo = resumeTo{path: path, every: every, on: on}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &ResumeStateError{Path: path, Err: err}
	}
	defer f.Close()
	dec := gob.NewDecoder(bufio.NewReader(f))
	h, err := readResumeHeader(path, dec)
	if err != nil {
		return err
	}
	fail := func(format string, args ...any) error { return resumeStateError(path, format, args...) }
	want := j.resumeHeader(c)
	for _, p := range []struct {
		name      string
		got, want any
	}{
		{"configuration", h.Config, want.Config},
		{"seed", h.Seed, want.Seed},
		{"fold (0-based)", h.Fold, want.Fold},
		{"series length", h.SeriesLen, want.SeriesLen},
		{"number of classes", h.NumClasses, want.NumClasses},
		{"authors' shape length", h.RefShapeLen, want.RefShapeLen},
		{"speed forms", h.Fast, want.Fast},
		{"backend", h.Backend, want.Backend},
	} {
		if p.got != p.want {
			return fail("it is of %s %v, not %v", p.name, p.got, p.want)
		}
	}
	values := make([]*tensors.Tensor, len(h.Vars))
	for i, v := range h.Vars {
		if values[i], err = tensors.GobDeserialize(dec); err != nil {
			return fail("variable %s: %w", v.Path, err)
		}
	}
	best := map[string]*tensors.Tensor{}
	for _, p := range h.Best {
		if best[p], err = tensors.GobDeserialize(dec); err != nil {
			return fail("selected weights %s: %w", p, err)
		}
	}
	if err := c.pcg.UnmarshalBinary(h.Shuffle); err != nil {
		return fail("batch-order generator: %w", err)
	}
	// The variables take their saved values and kinds now; the graphs the
	// run builds find them and initialise nothing.
	for i, sv := range h.Vars {
		v := j.store.GetVariable(sv.Path)
		if v == nil {
			v, err = j.store.CreateVariable(sv.Path, values[i])
		} else {
			err = v.SetValue(values[i])
		}
		if err != nil {
			return fail("variable %s: %w", sv.Path, err)
		}
		v.SetTrainable(sv.Trainable)
	}
	c.resumed = &resumed{header: h, best: best}
	if on != nil {
		on(ResumeEvent{Path: path, Epoch: h.NextEpoch, Loaded: true})
	}
	return nil
}

// resumeHeader returns the description of chain c's run that its resume
// file must carry (the identity part of a resumeHeader).
func (j *job) resumeHeader(c *chainSpec) resumeHeader {
	return resumeHeader{Version: resumeVersion, Config: c.cfg.String(), Seed: c.seed, Fold: c.folds[0],
		SeriesLen: c.m.Shape.SeriesLen, NumClasses: c.m.Shape.NumClasses,
		RefShapeLen: model.GetParamOr(j.store.RootScope(), paramRefShapeLen, 0), Fast: c.m.Fast, Backend: j.backend.Name()}
}

// continueFrom sets st, a run that has not trained yet, to the progress r
// (loadResume): it starts at r's next epoch, with its sample order, its
// tracker replayed through the statistics read so far, its result, its
// selected weights, and its clock set back by the time already spent.
func (st *runState) continueFrom(r *resumed) error {
	h := r.header
	if len(h.Order) != len(st.Order) {
		return resumeStateError(st.resume.path, "it has %d training samples, not %d", len(h.Order), len(st.Order))
	}
	st.Start = h.NextEpoch
	copy(st.Order, h.Order)
	for _, s := range h.Stats {
		st.track.Next(s)
	}
	st.stats = slices.Clone(h.Stats)
	fr := h.Result
	fr.ResumedAt = append(slices.Clone(fr.ResumedAt), h.NextEpoch)
	st.fr = &fr
	if len(r.best) > 0 {
		st.best = r.best
	}
	st.start = time.Now().Add(-h.Elapsed)
	return nil
}

// saveResumeIfDue saves st's progress (saveResume) when st saves any, goes
// on, and its last save (or start) is at least its interval ago; a failed
// save is told to OnResume, and the run goes on.
func (j *job) saveResumeIfDue(st *runState) {
	r := &st.resume
	if r.path == "" || st.Done || st.Err != nil || time.Since(r.saved) < r.every {
		return
	}
	_ = j.saveResumeNow(st) // told to OnResume; the run goes on
}

// saveResumeNow saves st's progress (saveResume), notes when, tells
// OnResume, and returns the save's error.
func (j *job) saveResumeNow(st *runState) error {
	r := &st.resume
	err := j.saveResume(st)
	r.saved = time.Now()
	if r.on != nil {
		r.on(ResumeEvent{Path: r.path, Epoch: st.Epoch + 1, Err: err})
	}
	return err
}

// ErrStopped is what training returns, wrapped, when RunOptions.Stop stopped
// it before its folds had trained.
var ErrStopped = errors.New("training stopped (RunOptions.Stop)")

// stopRun stops the training at the end of st's epoch (RunOptions.Stop),
// saving st's progress first when st saves any, and returns the error that
// says so: ErrStopped, wrapped with the epoch and, when the save failed, why.
func (j *job) stopRun(st *runState) error {
	path := st.resume.path
	if path == "" || st.Err != nil {
		return fmt.Errorf("after epoch %d: %w", st.Epoch+1, ErrStopped)
	}
	if err := j.saveResumeNow(st); err != nil {
		return fmt.Errorf("after epoch %d, its progress not saved (%v): %w", st.Epoch+1, err, ErrStopped)
	}
	return fmt.Errorf("after epoch %d, its progress saved to %s: %w", st.Epoch+1, path, ErrStopped)
}

// saveResume writes st's progress after its epoch in progress to its resume
// file, replacing the earlier one at once (a temporary file renamed over
// it), so that a kill leaves one or the other whole.
func (j *job) saveResume(st *runState) error {
	c := j.chains[st.si]
	h := j.resumeHeader(c)
	shuffle, err := c.pcg.MarshalBinary()
	if err != nil {
		return fmt.Errorf("batch-order generator: %w", err)
	}
	h.NextEpoch, h.Order, h.Shuffle = st.Epoch+1, st.Order, shuffle
	h.Stats, h.Result, h.Elapsed = st.stats, *st.fr, time.Since(st.start)
	var values []*tensors.Tensor
	for v := range j.store.IterVariables() {
		t, err := v.Value()
		if err != nil {
			return fmt.Errorf("reading variable %s: %w", v.Path(), err)
		}
		h.Vars = append(h.Vars, resumeVar{Path: v.Path(), Trainable: v.Trainable})
		values = append(values, t)
	}
	for _, p := range slices.Sorted(maps.Keys(st.best)) {
		h.Best = append(h.Best, p)
		values = append(values, st.best[p])
	}
	dir, base := filepath.Split(st.resume.path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // nothing left to remove once renamed
	w := bufio.NewWriter(f)
	enc := gob.NewEncoder(w)
	err = f.Chmod(0o644) // as the records beside it, not CreateTemp's 0600
	if err == nil {
		err = enc.Encode(resumeMagic)
	}
	if err == nil {
		err = enc.Encode(h)
	}
	for _, t := range values {
		if err != nil {
			break
		}
		err = t.GobSerialize(enc)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, st.resume.path)
	}
	if err != nil {
		return fmt.Errorf("saving %s: %w", st.resume.path, err)
	}
	return nil
}

// removeResume deletes the resume file of the job's run, once its fold has
// trained: the file is the run's own (loaded or saved by it).
func (j *job) removeResume() error {
	if len(j.chains) != 1 || j.chains[0].resumeTo.path == "" {
		return nil
	}
	if err := os.Remove(j.chains[0].resumeTo.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the resume state of a trained fold: %w", err)
	}
	return nil
}
