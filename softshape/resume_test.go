package softshape

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/softshape/fit"
)

// resumeTestSetUp returns a short run of settings on the bundled
// ItalyPowerDemand (real data), shuffled so that the batch order is part
// of what a resumed run must continue, and options on the test backend.
func resumeTestSetUp(t *testing.T, settings string) (*data.Dataset, Config, RunOptions) {
	t.Helper()
	ds, err := data.LoadBundled("ItalyPowerDemand")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := DefaultConfig().WithSettings(settings + ";shuffle=true;embed_dim=16;epochs=7;warmup_epochs=3")
	if err != nil {
		t.Fatal(err)
	}
	return ds, cfg, RunOptions{Backend: testBackend(t), Seed: 5}
}

// sameFold reports how a fold trained in stretches differs from the one
// trained in one go: its history (training and validation loss and
// accuracy of every epoch, bit for bit), selected epoch, epochs, test
// accuracy and validation loss; "" when it does not.
func sameFold(got, want *FoldResult) string {
	if len(got.History) != len(want.History) {
		return "history lengths differ"
	}
	for i, g := range got.History {
		w := want.History[i]
		if g.TrainLoss != w.TrainLoss || g.ValLoss != w.ValLoss || g.TrainAcc != w.TrainAcc || g.ValAcc != w.ValAcc ||
			g.Selected != w.Selected || g.Phase != w.Phase {
			return fmt.Sprintf("epoch %d differs", i)
		}
	}
	if got.BestEpoch != want.BestEpoch || got.EpochsRun != want.EpochsRun || got.TestAcc != want.TestAcc ||
		got.ValLoss != want.ValLoss || got.SelectedPhase != want.SelectedPhase {
		return "outcome differs"
	}
	return ""
}

// trainSavingEvery trains fold with a resume file saved after every epoch
// and keeps a copy of the file as it stood after each epoch in stops
// (the epoch a run continues with), in a folder of the test's; it returns
// the result and the copies by epoch, and checks that the trained fold
// removed its file.
func trainSavingEvery(t *testing.T, ds *data.Dataset, cfg Config, fold int, opts RunOptions, stops ...int) (*FoldResult, map[int]string) {
	t.Helper()
	dir := t.TempDir()
	opts.ResumePath = filepath.Join(dir, "run.resume")
	opts.ResumeEvery = 1 // every epoch
	copies := map[int]string{}
	var saveErr error
	opts.OnResume = func(ev ResumeEvent) {
		if ev.Err != nil {
			saveErr = ev.Err
		}
		if ev.Loaded || !slices.Contains(stops, ev.Epoch) {
			return
		}
		b, err := os.ReadFile(ev.Path)
		if err == nil {
			copies[ev.Epoch] = filepath.Join(dir, fmt.Sprintf("after-%d.resume", ev.Epoch))
			err = os.WriteFile(copies[ev.Epoch], b, 0o644)
		}
		if err != nil {
			saveErr = err
		}
	}
	fr, _, err := TrainFold(ds, cfg, fold, opts)
	if err != nil || saveErr != nil {
		t.Fatalf("training with progress saved: %v, %v", err, saveErr)
	}
	if _, err := os.Stat(opts.ResumePath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the trained fold left its resume file (%v)", err)
	}
	if len(copies) != len(stops) {
		t.Fatalf("saved after epochs %v, want %v", copies, stops)
	}
	return fr, copies
}

// TestResumeMatchesUninterrupted: a fresh run stopped after a warm-up epoch
// or after a sparse epoch (where the MoE's variables exist) and continued
// from its resume file trains the fold exactly as the run that never
// stopped, which saving does not disturb either; ResumedAt says where it
// continued. Fresh runs of other seeds differ, so the check can fail.
func TestResumeMatchesUninterrupted(t *testing.T) {
	ds, cfg, opts := resumeTestSetUp(t, "protocol=reference_fresh")
	want, _, err := TrainFold(ds, cfg, 1, opts)
	if err != nil {
		t.Fatal(err)
	}
	saving, copies := trainSavingEvery(t, ds, cfg, 1, opts, 2, 5)
	if d := sameFold(saving, want); d != "" {
		t.Fatalf("saving progress changed the run: %s", d)
	}
	for _, epoch := range []int{2, 5} {
		in := opts
		in.ResumePath = copies[epoch]
		var loaded []int
		in.OnResume = func(ev ResumeEvent) {
			if ev.Loaded {
				loaded = append(loaded, ev.Epoch)
			}
		}
		got, _, err := TrainFold(ds, cfg, 1, in)
		if err != nil {
			t.Fatalf("continued at epoch %d: %v", epoch, err)
		}
		if d := sameFold(got, want); d != "" {
			t.Errorf("continued at epoch %d: %s from the uninterrupted run:\n got %+v\nwant %+v", epoch, d, got.History, want.History)
		}
		if !slices.Equal(got.ResumedAt, []int{epoch}) || !slices.Equal(loaded, []int{epoch}) {
			t.Errorf("continued at epoch %d: ResumedAt %v, told %v", epoch, got.ResumedAt, loaded)
		}
		if _, err := os.Stat(in.ResumePath); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the continued fold left its resume file (%v)", err)
		}
	}
	other := opts
	other.Seed = 6
	if o, _, err := TrainFold(ds, cfg, 1, other); err != nil || sameFold(o, want) == "" {
		t.Errorf("seed 6 trained fold 2 as seed 5 did (%v): the check cannot fail", err)
	}
}

// TestStopSavesAndContinues: a run told to stop (RunOptions.Stop closed
// during epoch 4, a sparse epoch) ends that epoch, saves its progress though
// no save was due (ResumeEvery an hour), and returns ErrStopped; continued
// from the file, it trains the fold exactly as the run that never stopped.
// Without a resume file it stops the same way and saves nothing; a run
// whose fold ends with the epoch in which Stop closes ends as usual.
func TestStopSavesAndContinues(t *testing.T) {
	ds, cfg, opts := resumeTestSetUp(t, "protocol=reference_fresh")
	want, _, err := TrainFold(ds, cfg, 1, opts)
	if err != nil {
		t.Fatal(err)
	}
	stopAt := func(in RunOptions, epoch int) RunOptions {
		stop := make(chan struct{})
		in.Stop = stop
		in.OnEpoch = func(e EpochStats) {
			if e.Epoch == epoch-1 { // the epoch before: Stop is closed while epoch trains
				close(stop)
			}
		}
		return in
	}
	in := stopAt(opts, 4)
	in.ResumePath, in.ResumeEvery = filepath.Join(t.TempDir(), "run.resume"), time.Hour
	var saved []int
	in.OnResume = func(ev ResumeEvent) {
		if !ev.Loaded && ev.Err == nil {
			saved = append(saved, ev.Epoch)
		}
	}
	if _, _, err := TrainFold(ds, cfg, 1, in); !errors.Is(err, ErrStopped) {
		t.Fatalf("stopped run: %v, want ErrStopped", err)
	}
	if e, err := ResumeEpoch(in.ResumePath); err != nil || e != 4 || !slices.Equal(saved, []int{4}) {
		t.Fatalf("stopped run saved %v; its file continues with epoch %d (%v), want 4", saved, e, err)
	}
	in.Stop, in.OnEpoch, in.OnResume = nil, nil, nil
	got, _, err := TrainFold(ds, cfg, 1, in)
	if err != nil {
		t.Fatal(err)
	}
	if d := sameFold(got, want); d != "" || !slices.Equal(got.ResumedAt, []int{4}) {
		t.Errorf("continued after the stop: %s from the uninterrupted run, resumed at %v", d, got.ResumedAt)
	}
	if _, _, err := TrainFold(ds, cfg, 1, stopAt(opts, 2)); !errors.Is(err, ErrStopped) {
		t.Errorf("stopped run without a resume file: %v, want ErrStopped", err)
	}
	last, _, err := TrainFold(ds, cfg, 1, stopAt(opts, cfg.Epochs))
	if err != nil || sameFold(last, want) != "" {
		t.Errorf("a stop in the fold's last epoch: %v; the fold should end as usual", err)
	}
}

// TestResumeCarriedFold: fold 2 of a fold_reset=carry chain, continued
// from the state carried out of fold 1 and stopped in its sparse phase,
// continues from its resume file (not from the carried state, which it
// holds already) exactly as the chain that never stopped trains it.
func TestResumeCarriedFold(t *testing.T) {
	ds, cfg, opts := resumeTestSetUp(t, "protocol=reference_compat")
	if !cfg.CarriesFolds() {
		t.Fatal("reference_compat does not carry folds")
	}
	want, _, err := TrainFold(ds, cfg, 1, opts)
	if err != nil {
		t.Fatal(err)
	}
	carried := filepath.Join(t.TempDir(), "after-fold-1")
	out := opts
	out.CarryOut = carried
	if _, _, err := TrainFold(ds, cfg, 0, out); err != nil {
		t.Fatal(err)
	}
	in := opts
	in.CarryIn = carried
	_, copies := trainSavingEvery(t, ds, cfg, 1, in, 4)
	in.ResumePath = copies[4]
	got, _, err := TrainFold(ds, cfg, 1, in)
	if err != nil {
		t.Fatal(err)
	}
	if d := sameFold(got, want); d != "" {
		t.Errorf("fold 2 continued at epoch 4: %s from the uninterrupted chain", d)
	}
}

// TestResumeRefusesOtherRuns: a resume file of another fold, or a file
// that is not one, is a *ResumeStateError naming it; nothing is trained
// and the file is left as it was. A resume file for several folds at once
// is refused.
func TestResumeRefusesOtherRuns(t *testing.T) {
	ds, cfg, opts := resumeTestSetUp(t, "protocol=reference_fresh")
	_, copies := trainSavingEvery(t, ds, cfg, 0, opts, 1)
	foreign := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(foreign, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		fold int
	}{{copies[1], 1}, {foreign, 0}} {
		before, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		in := opts
		in.ResumePath = c.path
		in.OnEpoch = func(EpochStats) { t.Errorf("%s: an epoch trained", c.path) }
		fr, _, err := TrainFold(ds, cfg, c.fold, in)
		var bad *ResumeStateError
		if !errors.As(err, &bad) || bad.Path != c.path || fr != nil {
			t.Errorf("%s for fold %d: %v, %v; want a *ResumeStateError naming it", c.path, c.fold+1, fr, err)
		}
		if after, err := os.ReadFile(c.path); err != nil || string(after) != string(before) {
			t.Errorf("%s changed (%v)", c.path, err)
		}
	}
	all := opts
	all.ResumePath = filepath.Join(t.TempDir(), "all.resume")
	if _, err := Train(ds, cfg, all); err == nil {
		t.Error("Train of five folds took one resume file")
	}
}

// TestContinueFromReplaysTracker: a run continued from saved progress
// selects and stops as the run that saved it would: its tracker has read
// the saved statistics, so a later epoch worse than the best one so far
// is not selected (a tracker that starts again would select it), and the
// saved history, selected weights and clock carry on.
func TestContinueFromReplaysTracker(t *testing.T) {
	cfg, err := DefaultConfig().WithSettings("warmup_epochs=3;epochs=10;patience=2")
	if err != nil {
		t.Fatal(err)
	}
	st := &runState{Run: fit.NewRun(4, 2, cfg.Epochs, nil), track: fit.NewTracker(cfg.FitRule()), fr: &FoldResult{}}
	h := resumeHeader{NextEpoch: 5, Order: []int{2, 0, 3, 1}, Stats: []float64{0.9, 0.8, 0.7, 0.2, 0.3},
		Result: FoldResult{BestEpoch: 3, EpochsRun: 5, History: make([]EpochStats, 5)}, Elapsed: time.Hour}
	best := map[string]*tensors.Tensor{"/w": tensors.FromValue([]float32{1, 2})}
	if err := st.continueFrom(&resumed{header: h, best: best}); err != nil {
		t.Fatal(err)
	}
	if st.Start != 5 || !slices.Equal(st.Order, h.Order) || len(st.fr.History) != 5 || st.best["/w"] == nil ||
		!slices.Equal(st.fr.ResumedAt, []int{5}) || time.Since(st.start) < time.Hour {
		t.Errorf("continued at epoch %d, order %v, %d epochs of history, best %v, resumed at %v, started %v ago",
			st.Start, st.Order, len(st.fr.History), st.best, st.fr.ResumedAt, time.Since(st.start))
	}
	if e, s := st.track.Best(); e != 3 || s != 0.2 {
		t.Errorf("tracker's best: epoch %d (%v), want 3 (0.2)", e, s)
	}
	// Epoch 5 at 0.25: worse than epoch 3's 0.2 (not kept), below epoch
	// 4's 0.3 (the rise ends); epoch 6 at 0.4 rises once, epoch 7 at 0.5
	// twice: patience 2 stops the fold.
	for i, c := range []struct {
		stat       float64
		keep, stop bool
	}{{0.25, false, false}, {0.4, false, false}, {0.5, false, true}} {
		if keep, stop := st.track.Next(c.stat); keep != c.keep || stop != c.stop {
			t.Errorf("epoch %d at %v: keep %v, stop %v; want %v, %v", 5+i, c.stat, keep, stop, c.keep, c.stop)
		}
	}
}
