package softshape

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/checkpointdir"
	"github.com/softshape-go/softshape/internal/testfs"
)

// quickTrained trains one fold of a small generated dataset for two epochs.
func quickTrained(t *testing.T) *Trained {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs, cfg.EmbedDim = 2, 1, 16
	_, trained, err := TrainFold(data.CBF(10, 32, 5), cfg, 0, RunOptions{Backend: testBackend(t), Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	return trained
}

// TestSaveCheckpointNeverDeletesForeignFiles: saving into a folder that holds
// a file the user put there (or a sub-folder, or a file where the folder
// should be) fails with an error naming the folder and the file, and
// deletes nothing, not even an earlier checkpoint beside the foreign file.
func TestSaveCheckpointNeverDeletesForeignFiles(t *testing.T) {
	trained := quickTrained(t)

	dir := filepath.Join(t.TempDir(), "precious")
	if err := trained.Save(dir); err != nil {
		t.Fatal(err)
	}
	before := testfs.List(t, dir)
	thesis := filepath.Join(dir, "thesis.txt")
	if err := os.WriteFile(thesis, []byte("three years of work"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := trained.Save(dir)
	var foreign *ForeignFileError
	if !errors.As(err, &foreign) {
		t.Fatalf("saving beside thesis.txt: got %v, want a *ForeignFileError (the public name of checkpointdir's)", err)
	}
	for _, part := range []string{dir, "thesis.txt", "not a checkpoint file", "deleting nothing"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not say %q", err, part)
		}
	}
	if b, err := os.ReadFile(thesis); err != nil || string(b) != "three years of work" {
		t.Errorf("thesis.txt after the save: %q, %v", b, err)
	}
	if after := testfs.List(t, dir); len(after) != len(before)+1 {
		t.Errorf("folder holds %v after the refused save, want %v plus thesis.txt", after, before)
	}

	// A sub-folder is foreign too, even an empty one.
	sub := filepath.Join(t.TempDir(), "withsub")
	if err := os.MkdirAll(filepath.Join(sub, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := trained.Save(sub); !errors.As(err, &foreign) || foreign.File != "notes" {
		t.Errorf("saving beside a sub-folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sub, "notes")); err != nil {
		t.Errorf("sub-folder gone: %v", err)
	}

	// A file where the folder should be.
	file := filepath.Join(t.TempDir(), "model")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := trained.Save(file); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("saving onto a file: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("the file was changed: %q", b)
	}
}

// TestSaveCheckpointTwiceLoadsSecond: a second save into the same folder
// replaces the first checkpoint (its .bin/.json and history) and loading
// gives the second.
func TestSaveCheckpointTwiceLoadsSecond(t *testing.T) {
	trained := quickTrained(t)
	dir := filepath.Join(t.TempDir(), "model")
	trained.Phase = Dense
	if err := trained.Save(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, checkpointdir.HistoryFile), []byte(`{"stale":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	trained.Phase = Sparse
	if err := trained.Save(dir); err != nil {
		t.Fatalf("second save: %v", err)
	}
	names := testfs.List(t, dir)
	if len(names) != 2 {
		t.Errorf("folder holds %v, want one checkpoint's .bin and .json (the first and its history removed)", names)
	}
	loaded, err := LoadCheckpoint(dir, testBackend(t))
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Phase != Sparse {
		t.Errorf("loaded phase %v, want the second save's %v", loaded.Phase, Sparse)
	}
}

// TestLoadCheckpointBadFolders: an empty folder, a foreign folder and a
// checkpoint whose .bin was truncated are errors naming the folder, not
// panics or a silently untrained model.
func TestLoadCheckpointBadFolders(t *testing.T) {
	backend := testBackend(t)
	empty := t.TempDir()
	if _, err := LoadCheckpoint(empty, backend); err == nil || !strings.Contains(err.Error(), "holds no checkpoint") {
		t.Errorf("empty folder: %v", err)
	}

	trained := quickTrained(t)
	dir := filepath.Join(t.TempDir(), "model")
	if err := trained.Save(dir); err != nil {
		t.Fatal(err)
	}
	var bin string
	for _, n := range testfs.List(t, dir) {
		if strings.HasSuffix(n, ".bin") {
			bin = filepath.Join(dir, n)
		}
	}
	st, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(bin, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	_, err = LoadCheckpoint(dir, backend)
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("truncated checkpoint: %v, want an error naming %s", err, dir)
	}
}

// TestCheckpointFoldDirsOneBased: Train and TrainRuns save fold index i in
// CheckpointDir/fold-<i+1> (checkpointdir.FoldDir; under seed-S/ when the
// runs have several seeds), the numbers of the command line, never fold-0,
// which marks a folder of the older 0-based layout
// (checkpointdir.LegacyFoldDirs).
func TestCheckpointFoldDirsOneBased(t *testing.T) {
	ds := data.CBF(10, 32, 5)
	cfg := DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs, cfg.EmbedDim = 2, 1, 16
	backend := testBackend(t)
	dir := t.TempDir()
	res, err := Train(ds, cfg, RunOptions{Execution: Execution{MaxRuns: 1}, Backend: backend, Seed: 5, Folds: []int{0, 2}, CheckpointDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(testfs.List(t, dir), " "); got != "fold-1 fold-3" {
		t.Errorf("Train -> %s, want fold-1 fold-3", got)
	}
	for _, f := range res.Folds {
		if h := f.History; len(h) == 0 || h[len(h)-1].TrainAcc <= 0 || h[len(h)-1].TrainAcc > 1 {
			t.Errorf("fold %d: training accuracy %v, want in (0, 1]", f.Fold+1, h)
		}
	}
	if _, err := LoadCheckpoint(checkpointdir.FoldDir(dir, 2), backend); err != nil {
		t.Error(err)
	}
	if checkpointdir.LegacyFoldDirs(dir) {
		t.Error("a folder of fold-1 and fold-3 taken for the 0-based layout")
	}
	runs := t.TempDir()
	if _, err := TrainRuns(ds, []RunSpec{{cfg, 5, 1}, {cfg, 6, 4}}, RunOptions{Execution: Execution{MaxRuns: testMaxRuns}, Backend: backend, CheckpointDir: runs}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"seed-5/fold-2", "seed-6/fold-5"} {
		if st, err := os.Stat(filepath.Join(runs, p)); err != nil || !st.IsDir() {
			t.Errorf("TrainRuns saved no %s: %v (%v)", p, err, testfs.List(t, runs))
		}
	}
}

// TestTrainKeepsResultsWhenSaveFails: a checkpoint that cannot be saved
// after training (here its folder's parent is a file) does not throw the
// training away: Train returns every fold's result with an error joining a
// *SaveError per fold that names the folder and the real cause, one fold
// at a time and with the folds trained together alike.
func TestTrainKeepsResultsWhenSaveFails(t *testing.T) {
	file := testfs.Write(t, t.TempDir(), "notes.txt", "mine")
	cfg := DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs, cfg.EmbedDim = 2, 1, 16
	for _, maxRuns := range []int{1, 2} {
		res, err := Train(data.CBF(10, 32, 5), cfg, RunOptions{Execution: Execution{MaxRuns: maxRuns}, Backend: testBackend(t), Seed: 5, Folds: []int{0, 1},
			CheckpointDir: filepath.Join(file, "ckpt")})
		if res == nil || len(res.Folds) != 2 {
			t.Fatalf("max runs %d: result %+v, %v; want both folds", maxRuns, res, err)
		}
		for _, fr := range res.Folds {
			if !(fr.TestAcc >= 0 && fr.TestAcc <= 1) || fr.EpochsRun != 2 {
				t.Errorf("max runs %d: fold %d: test accuracy %g, %d epochs", maxRuns, fr.Fold+1, fr.TestAcc, fr.EpochsRun)
			}
		}
		var se *SaveError
		if !errors.As(err, &se) || !onlySaveErrors(err) {
			t.Fatalf("max runs %d: error %v, want *SaveError", maxRuns, err)
		}
		for _, want := range []string{filepath.Join(file, "ckpt", "fold-1"), filepath.Join(file, "ckpt", "fold-2"), "not a directory"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("max runs %d: error %q does not name %q", maxRuns, err, want)
			}
		}
	}
}

// TestLoadsCheckpointOfEarlierLayout: a checkpoint written by 9ece8f6 (the
// layout before fresh folds trained as a run axis of one run: Adam's state
// saved beside the weights, files named …-step-NNN) still loads and scores as
// it did there. Made with `softshape train -set embed_dim=16 -epochs 3
// -warmup 1 -folds 1 -checkpoint DIR -backend go` at 9ece8f6 (generated CBF,
// seed 42); its expected scores are what 9ece8f6's LoadCheckpoint and
// Evaluate gave on data.CBF(10, 128, 7), on pure Go with and without
// GOEXPERIMENT=simd alike: accuracy 12/30, mean cross-entropy
// 1.0899447805519158. So does a copy whose store holds the parameters this
// code retired (withRetiredParams).
func TestLoadsCheckpointOfEarlierLayout(t *testing.T) {
	saved := filepath.Join("testdata", "checkpoint-9ece8f6")
	for name, dir := range map[string]string{"as saved": saved, "with retired params": withRetiredParams(t, saved)} {
		t.Run(name, func(t *testing.T) { checkEarlierCheckpoint(t, dir) })
	}
}

// checkEarlierCheckpoint loads the checkpoint of
// TestLoadsCheckpointOfEarlierLayout from dir and checks its scores.
func checkEarlierCheckpoint(t *testing.T, dir string) {
	loaded, err := LoadCheckpoint(dir, testBackend(t))
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Phase != Sparse {
		t.Errorf("phase %v, want the saved %v", loaded.Phase, Sparse)
	}
	ds := data.CBF(10, data.CBFDefaultLength, 7)
	acc, ce, err := loaded.Evaluate(float32Series(ds), ds.Labels)
	if err != nil {
		t.Fatal(err)
	}
	// The same weights and graph: equal up to the backend's summation order.
	if math.Abs(ce-1.0899447805519158) > 1e-5 || math.Abs(acc-0.4) > 1.5/30 {
		t.Errorf("accuracy %.4f, mean cross-entropy %.10f; 9ece8f6 gave 0.4000 and 1.0899447806", acc, ce)
	}
}

// float32Series returns the series of ds as Trained.Evaluate takes them.
func float32Series(ds *data.Dataset) [][]float32 {
	x := make([][]float32, len(ds.Series))
	for i, s := range ds.Series {
		x[i] = make([]float32, len(s))
		for j, v := range s {
			x[i][j] = float32(v)
		}
	}
	return x
}

// withRetiredParams copies the checkpoint folder dir into a temporary folder,
// its root scope given the parameters that earlier code read from stores and
// this code no longer does (softshape_runs, now Build.Runs; plain_kernels,
// now Build.Plain), and returns the copy.
func withRetiredParams(t *testing.T, dir string) string {
	return withParams(t, dir, func(params []any) []any {
		return append(params,
			map[string]any{"Scope": "/", "Key": "softshape_runs", "Value": 1, "ValueType": "int"},
			map[string]any{"Scope": "/", "Key": "plain_kernels", "Value": false, "ValueType": "bool"})
	})
}

// withParams copies the checkpoint folder dir into a temporary folder, its
// checkpoint's parameter list rewritten by edit, and returns the copy.
func withParams(t *testing.T, dir string, edit func(params []any) []any) string {
	t.Helper()
	out := t.TempDir()
	files, err := filepath.Glob(filepath.Join(dir, "checkpoint-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("checkpoint files of %s: %v", dir, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".json") {
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			params, _ := doc["Params"].([]any)
			doc["Params"] = edit(params)
			if b, err = json.Marshal(doc); err != nil {
				t.Fatal(err)
			}
		}
		testfs.Write(t, out, filepath.Base(f), string(b))
	}
	return out
}

// TestLoadsCheckpointOfLegacyStride: a checkpoint saved before stride "auto"
// followed the authors' rule (no data_stride_rule parameter) with a fixed
// m = 4 was trained at q = 2 (LegacyAutoStride); it loads at q = 2 and scores
// what it scored when saved, while the same folder marked with the rule
// would be a q = 4 model, whose positional embedding does not fit.
func TestLoadsCheckpointOfLegacyStride(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs, cfg.EmbedDim, cfg.ShapeLength, cfg.Stride = 2, 1, 16, 4, "2"
	ds := data.CBF(10, 24, 5)
	_, trained, err := TrainFold(ds, cfg, 0, RunOptions{Backend: testBackend(t), Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(t.TempDir(), "model")
	if err := trained.Save(saved); err != nil {
		t.Fatal(err)
	}
	legacy := withParams(t, saved, func(params []any) []any {
		var out []any
		for _, p := range params {
			switch p.(map[string]any)["Key"] {
			case paramStrideRule:
				continue
			case ParamStride:
				p.(map[string]any)["Value"] = string(StrideAuto)
			}
			out = append(out, p)
		}
		return out
	})
	loaded, err := LoadCheckpoint(legacy, testBackend(t))
	if err != nil {
		t.Fatal(err)
	}
	if s := loaded.Model().Shape; s.Stride != 2 || s.NumShapes != 11 || loaded.Model().Config.Stride != "2" {
		t.Errorf("legacy checkpoint loaded at q=%d, J=%d, stride setting %q; want q=2, J=11, \"2\"", s.Stride, s.NumShapes, loaded.Model().Config.Stride)
	}
	x := float32Series(ds)
	wantAcc, wantCE, err := trained.Evaluate(x, ds.Labels)
	if err != nil {
		t.Fatal(err)
	}
	acc, ce, err := loaded.Evaluate(x, ds.Labels)
	if err != nil || acc != wantAcc || ce != wantCE {
		t.Errorf("legacy checkpoint scores %.4f, %.10f (%v); saved model %.4f, %.10f", acc, ce, err, wantAcc, wantCE)
	}
	if s := trained.Model().Shape; s.Stride != 2 {
		t.Fatalf("trained at q=%d, want the explicit 2", s.Stride)
	}
}
