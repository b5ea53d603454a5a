package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/checkpointdir"
	"github.com/softshape-go/softshape/internal/testfs"
)

// A -checkpoint folder holds one run: an earlier run is never replaced, nor
// mixed with a new one, unasked.

// savedConfig returns the configuration string of the history saved in
// the fold folder dir/fold-N.
func savedConfig(t *testing.T, dir string, fold int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(checkpointdir.FoldDir(dir, fold-1), checkpointdir.HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	var h savedHistory
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	return h.Config
}

// TestCheckpointHoldsOneRun: training into a -checkpoint folder that holds
// an earlier run is refused, naming the folder and -overwrite, and leaves
// the earlier run as it was; with -overwrite the new run replaces the whole
// earlier one, so that no fold of it is left beside the new run's.
func TestCheckpointHoldsOneRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	train := func(extra ...string) error {
		args := append([]string{"-epochs", "2", "-warmup", "1", "-quiet", "-checkpoint", dir}, extra...)
		return runTrain(args, &bytes.Buffer{})
	}
	if err := train("-folds", "1-2", "-set", "embed_dim=16"); err != nil {
		t.Fatal(err)
	}
	if c := savedConfig(t, dir, 1); !strings.Contains(c, "sparse_ratio=0.5;") {
		t.Fatalf("fold-1 config %s", c)
	}
	err := train("-folds", "1", "-set", "embed_dim=16;sparse_ratio=0.9")
	if err == nil {
		t.Fatal("a second run into the folder of the first was accepted")
	}
	for _, want := range []string{"-checkpoint " + dir + " holds an earlier run (fold-1, fold-2)", "give -overwrite to replace that run"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if c := savedConfig(t, dir, 1); !strings.Contains(c, "sparse_ratio=0.5;") {
		t.Errorf("the refused run changed fold-1: %s", c)
	}
	if err := train("-folds", "1", "-set", "embed_dim=16;sparse_ratio=0.9", "-overwrite"); err != nil {
		t.Fatal(err)
	}
	if c := savedConfig(t, dir, 1); !strings.Contains(c, "sparse_ratio=0.9;") {
		t.Errorf("-overwrite: fold-1 config %s", c)
	}
	if _, err := os.Stat(checkpointdir.FoldDir(dir, 1)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("-overwrite left fold-2 of the earlier run beside the new run's fold-1 (%v)", err)
	}
	// A user's file in a fold of the earlier run: -overwrite deletes nothing.
	testfs.Write(t, checkpointdir.FoldDir(dir, 0), "notes.txt", "mine")
	if err := train("-folds", "2", "-set", "embed_dim=16", "-overwrite"); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("-overwrite over a folder with a user's file: %v", err)
	}
	if files, _ := filepath.Glob(filepath.Join(checkpointdir.FoldDir(dir, 0), "checkpoint-*")); len(files) == 0 {
		t.Error("the refused -overwrite deleted fold-1's checkpoint")
	}
}
