package sweep

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
)

// TestSweepContinuesSavedProgress: a cell whose fold was stopped after its
// fourth epoch, its progress saved in the store (Store.ResumePath, as the
// sweep saves it), is continued from there by the next sweep, with the
// record of the fold trained in one go, and its saved progress is gone
// afterwards. A file there that is not saved progress is not used: the
// fold trains from its first epoch, with the same record. Before it,
// status says where the stopped fold will continue.
func TestSweepContinuesSavedProgress(t *testing.T) {
	settings := "protocol=reference_fresh;shuffle=true;embed_dim=16;epochs=6;warmup_epochs=2"
	spec := GridSpec{Table: "depth_L", Datasets: []string{"CBF-r"}, Variants: []string{"L=2"}, Folds: []int{2}, Seeds: []int64{4}, Settings: settings}
	g := mustGrid(t, spec)
	c := g.Cells[0]
	backend, err := backends.New("")
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := cbfLoader("CBF-r")
	opts := softshape.RunOptions{Backend: backend, Seed: 4, NumFolds: NumFolds}
	want, _, err := softshape.TrainFold(ds, c.Config, 1, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, saved := range []bool{true, false} {
		s := openStore(t)
		path := s.ResumePath(c.Key)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if saved {
			stop := opts
			stop.ResumePath, stop.ResumeEvery = filepath.Join(t.TempDir(), "run.resume"), 1
			stop.OnResume = func(ev softshape.ResumeEvent) {
				if ev.Epoch == 4 && !ev.Loaded {
					b, err := os.ReadFile(ev.Path)
					if err == nil {
						err = os.WriteFile(path, b, 0o644)
					}
					if err != nil {
						t.Error(err)
					}
				}
			}
			if _, _, err := softshape.TrainFold(ds, c.Config, 1, stop); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(path, []byte("not saved progress"), 0o644); err != nil {
			t.Fatal(err)
		}
		if st := s.CellStatus(c.Key); saved && (st.State != StateMissing || !strings.Contains(st.Detail, "progress saved after epoch 4 ")) {
			t.Errorf("status of the stopped fold: %s, %q; want missing, with its progress saved after epoch 4", st.State, st.Detail)
		} else if !saved && st.Detail != "" {
			t.Errorf("status beside a foreign file: %q, want no detail", st.Detail)
		}
		var log strings.Builder
		r := &Runner{Store: s, Backend: backend, Load: cbfLoader, Log: &log}
		if rep, err := r.Run(context.Background(), g.Cells); err != nil || rep.Ran != 1 || rep.Failed != 0 {
			t.Fatalf("saved %v: %+v, %v", saved, rep, err)
		}
		rec, err := s.Read(c.Key)
		if err != nil {
			t.Fatal(err)
		}
		if float64(rec.TestAccuracy) != want.TestAcc || float64(rec.ValLoss) != want.ValLoss || rec.BestEpoch != want.BestEpoch || rec.EpochsRun != want.EpochsRun {
			t.Errorf("saved %v: record acc %v val %v best %d epochs %d; in one go %v %v %d %d", saved,
				rec.TestAccuracy, rec.ValLoss, rec.BestEpoch, rec.EpochsRun, want.TestAcc, want.ValLoss, want.BestEpoch, want.EpochsRun)
		}
		if wantAt := map[bool]int{true: 1, false: 0}[saved]; len(rec.ResumedAt) != wantAt || (saved && rec.ResumedAt[0] != 4) {
			t.Errorf("saved %v: record resumed at epochs %v", saved, rec.ResumedAt)
		}
		line := "resume " + c.Key.String() + " at epoch 5 from its saved progress"
		if !saved {
			line = "saved progress " + path + " not used"
		}
		if !strings.Contains(log.String(), line) {
			t.Errorf("saved %v: log lacks %q:\n%s", saved, line, log.String())
		}
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("saved %v: the progress of the recorded fold is still there (%v)", saved, err)
		}
		if got := leftovers(t, s.root); len(got) != 0 {
			t.Errorf("saved %v: left %v", saved, got)
		}
	}
}

// TestCancelledSweepSavesTheFoldInTraining: a sweep whose context is
// cancelled while a cell trains (here as it starts) stops that cell at the
// end of its epoch with its progress saved, writes no record for it and
// starts no other; the next sweep continues the fold from there, with the
// record of the fold trained in one go.
func TestCancelledSweepSavesTheFoldInTraining(t *testing.T) {
	settings := "protocol=reference_fresh;shuffle=true;embed_dim=16;epochs=6;warmup_epochs=2"
	g := mustGrid(t, GridSpec{Table: "depth_L", Datasets: []string{"CBF-r"}, Variants: []string{"L=2"}, Folds: []int{1, 2}, Seeds: []int64{4}, Settings: settings})
	c := g.Cells[1]
	backend, err := backends.New("")
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := cbfLoader("CBF-r")
	want, _, err := softshape.TrainFold(ds, c.Config, 1, softshape.RunOptions{Backend: backend, Seed: 4, NumFolds: NumFolds})
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log strings.Builder
	r := &Runner{Execution: softshape.Execution{MaxRuns: 1}, Store: s, Backend: backend, Load: cbfLoader, Log: &log, OnExecute: func(Key) { cancel() }}
	rep, err := r.Run(ctx, []Cell{c, g.Cells[0]}) // err may be nil: the feed can end before it sees the cancel
	if rep.Stopped != 1 || rep.Ran != 0 {
		t.Fatalf("cancelled sweep: %+v, %v; want one cell stopped, none trained", rep, err)
	}
	if _, err := s.Read(c.Key); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the stopped cell has a record (%v)", err)
	}
	if e, err := softshape.ResumeEpoch(s.ResumePath(c.Key)); err != nil || e != 1 || !strings.Contains(log.String(), "the next sweep continues it") {
		t.Fatalf("the stopped cell's progress: epoch %d (%v), want 1; log:\n%s", e, err, log.String())
	}
	r.OnExecute = nil
	if rep, err := r.Run(context.Background(), []Cell{c}); err != nil || rep.Ran != 1 || rep.Failed != 0 {
		t.Fatalf("the next sweep: %+v, %v", rep, err)
	}
	rec, err := s.Read(c.Key)
	if err != nil {
		t.Fatal(err)
	}
	if float64(rec.TestAccuracy) != want.TestAcc || float64(rec.ValLoss) != want.ValLoss || rec.BestEpoch != want.BestEpoch ||
		rec.EpochsRun != want.EpochsRun || len(rec.ResumedAt) != 1 || rec.ResumedAt[0] != 1 {
		t.Errorf("record acc %v val %v best %d epochs %d resumed at %v; in one go %v %v %d %d, resumed at [1]",
			rec.TestAccuracy, rec.ValLoss, rec.BestEpoch, rec.EpochsRun, rec.ResumedAt, want.TestAcc, want.ValLoss, want.BestEpoch, want.EpochsRun)
	}
}
