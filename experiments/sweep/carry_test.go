package sweep

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
)

// TestCarrySweepMatchesTrain: under fold_reset=carry (protocol=reference_compat)
// each fold's record equals the fold of softshape.Train over the folds in
// order — the sweep carries weights and Adam state from fold to fold instead of
// training each fold afresh — also when a resumed sweep has only a later fold
// left to train.
func TestCarrySweepMatchesTrain(t *testing.T) {
	settings := "protocol=reference_compat;embed_dim=16;epochs=3;warmup_epochs=1"
	spec := GridSpec{Table: "depth_L", Datasets: []string{"CBF-c"}, Variants: []string{"L=2"}, Folds: []int{1, 2, 3}, Seeds: []int64{4}, Settings: settings}
	g := mustGrid(t, spec)
	if !g.Cells[0].Config.CarriesFolds() {
		t.Fatalf("settings %q: the grid's configuration does not carry folds", settings)
	}
	backend, err := backends.New("")
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := cbfLoader("CBF-c")
	want, err := softshape.Train(ds, g.Cells[0].Config, softshape.RunOptions{Backend: backend, Seed: 4, NumFolds: NumFolds, Folds: []int{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	check := func(s *Store, cells []Cell) {
		t.Helper()
		for _, c := range cells {
			rec, err := s.Read(c.Key)
			if err != nil {
				t.Fatal(err)
			}
			w := want.Folds[c.Fold-1]
			if float64(rec.TestAccuracy) != w.TestAcc || math.Abs(float64(rec.ValLoss)-w.ValLoss) > 1e-9 || rec.BestEpoch != w.BestEpoch {
				t.Errorf("fold %d: record acc %.4f val %.6f best %d, Train gives %.4f %.6f %d", c.Fold,
					float64(rec.TestAccuracy), float64(rec.ValLoss), rec.BestEpoch, w.TestAcc, w.ValLoss, w.BestEpoch)
			}
			if rec.Protocol != softshape.ProtocolReferenceCompat || rec.SelectedWarmUp != (w.BestEpoch < 1) {
				t.Errorf("fold %d: record protocol %q, selected_warmup %v (best epoch %d)", c.Fold, rec.Protocol, rec.SelectedWarmUp, rec.BestEpoch)
			}
		}
	}
	// Fold 3 trained afresh starts elsewhere, so the checks below can fail.
	freshCfg := g.Cells[0].Config
	freshCfg.FoldReset = softshape.FoldResetFresh
	alone, err := softshape.Train(ds, freshCfg, softshape.RunOptions{Backend: backend, Seed: 4, NumFolds: NumFolds, Folds: []int{2}})
	if err != nil {
		t.Fatal(err)
	}
	if alone.Folds[0].History[0].ValLoss == want.Folds[2].History[0].ValLoss {
		t.Fatal("fold 3 starts at the same validation loss fresh and carried: weights were not carried")
	}
	s := openStore(t)
	r := &Runner{Execution: softshape.Execution{Workers: 2}, Store: s, Backend: backend, Load: cbfLoader}
	if rep, err := r.Run(context.Background(), g.Cells); err != nil || rep.Ran != 3 {
		t.Fatalf("run: %+v, %v", rep, err)
	}
	check(s, g.Cells)
	// Only the state carried out of the last fold trained is kept (fold 3 of 5).
	for _, c := range g.Cells {
		_, err := os.Stat(s.CarryPath(c.Key))
		if kept := err == nil; kept != (c.Fold == 3) {
			t.Errorf("after folds 1–3: state of fold %d present %v (%v), want only fold 3's", c.Fold, kept, err)
		}
	}

	// A resumed sweep with only fold 3 missing and no carried state trains
	// folds 1 and 2 again in its chain.
	s2 := openStore(t)
	r2 := &Runner{Store: s2, Backend: backend, Load: cbfLoader}
	if rep, err := r2.Run(context.Background(), g.Cells[2:]); err != nil || rep.Ran != 1 {
		t.Fatalf("resumed run: %+v, %v", rep, err)
	}
	check(s2, g.Cells[2:])

	// A sweep stopped after fold 2 resumes fold 3 from the state carried out
	// of fold 2, with the result of the chain that never stopped; with that
	// state damaged, it trains folds 1 and 2 again, with the same result.
	for _, damaged := range []bool{false, true} {
		s3 := openStore(t)
		r3 := &Runner{Store: s3, Backend: backend, Load: cbfLoader}
		if rep, err := r3.Run(context.Background(), g.Cells[:2]); err != nil || rep.Ran != 2 {
			t.Fatalf("folds 1–2: %+v, %v", rep, err)
		}
		state := s3.CarryPath(g.Cells[1].Key)
		bins, _ := filepath.Glob(filepath.Join(state, "checkpoint-*.bin"))
		if len(bins) != 1 {
			t.Fatalf("state after fold 2 %s: %d checkpoint .bin files, want 1", state, len(bins))
		}
		if damaged {
			if err := os.Truncate(bins[0], 10); err != nil {
				t.Fatal(err)
			}
		}
		var log strings.Builder
		r3 = &Runner{Store: s3, Backend: backend, Load: cbfLoader, Log: &log}
		if rep, err := r3.Run(context.Background(), g.Cells[2:]); err != nil || rep.Ran != 1 {
			t.Fatalf("fold 3 (state damaged %v): %+v, %v", damaged, rep, err)
		}
		check(s3, g.Cells[2:])
		want := "resume " + g.Cells[2].Key.String() + " from the state carried out of fold 2"
		if damaged {
			want = "carried state " + state + " not used"
		}
		if !strings.Contains(log.String(), want) {
			t.Errorf("state damaged %v: log lacks %q:\n%s", damaged, want, log.String())
		}
		if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("state damaged %v: the state of fold 2 is still there after fold 3 (%v)", damaged, err)
		}
	}
}

// TestCleanRemovesHalfSavedStates: Clean removes the temporary folder of a
// carried state that a dead process was saving, but not one holding a file
// it did not write.
func TestCleanRemovesHalfSavedStates(t *testing.T) {
	s := openStore(t)
	k := Key{Table: "depth_L", Dataset: "CBF-c", Variant: "L=2", Fold: 2, Seed: 4, Hash: strings.Repeat("a", HashLen)}
	dir := filepath.Dir(s.RecordPath(k))
	half := filepath.Join(dir, fmt.Sprintf(".%s.tmp-%d-00ab@%s", filepath.Base(s.CarryPath(k)), deadPID(t), s.hostTag()))
	mine := filepath.Join(dir, fmt.Sprintf(".%s.tmp-%d-00cd@%s", filepath.Base(s.CarryPath(k)), deadPID(t), s.hostTag()))
	for _, d := range []string{half, mine} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "checkpoint-n0000001-20261125-120000-step-00000010.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Clean("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(half); !errors.Is(err, fs.ErrNotExist) || len(rep.TempFiles) != 1 || rep.TempFiles[0] != half {
		t.Errorf("half-saved state: stat %v, Clean removed %v, want exactly %s", err, rep.TempFiles, half)
	}
	if _, err := os.Stat(filepath.Join(mine, "notes.txt")); err != nil {
		t.Errorf("Clean deleted a folder holding a file it did not write: %v", err)
	}
}

// TestCarryGroups: the consecutive folds of one carry run form one group;
// fresh cells and other runs are groups of their own.
func TestCarryGroups(t *testing.T) {
	carry, err := BaseConfig(false, "protocol=reference_compat")
	if err != nil {
		t.Fatal(err)
	}
	fresh := softshape.DefaultConfig()
	cell := func(cfg softshape.Config, variant string, seed int64, fold int) Cell {
		return Cell{Key: Key{Table: "t", Dataset: "d", Variant: variant, Seed: seed, Fold: fold, Hash: ConfigHash(cfg, false)}, Config: cfg}
	}
	cells := []Cell{
		cell(carry, "a", 1, 1), cell(carry, "a", 1, 2), cell(carry, "a", 1, 3),
		cell(carry, "a", 2, 1), cell(carry, "a", 2, 2),
		cell(fresh, "b", 1, 1), cell(fresh, "b", 1, 2),
	}
	var sizes []int
	for _, g := range carryGroups(cells) {
		sizes = append(sizes, len(g))
	}
	if len(sizes) != 4 || sizes[0] != 3 || sizes[1] != 2 || sizes[2] != 1 || sizes[3] != 1 {
		t.Errorf("group sizes %v, want [3 2 1 1]", sizes)
	}
}
