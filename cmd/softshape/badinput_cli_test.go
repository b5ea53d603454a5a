package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/softshape"
)

// TestBadInputsFreshClone: the bad inputs of issue 34 that used to pass
// silently or fail late: a setting given twice, a flag and a setting that
// disagree, a -data folder (or $SOFTSHAPE_DATA) that does not exist, a
// -checkpoint folder that cannot be created. Each fails before any
// training, naming what is wrong.
func TestBadInputsFreshClone(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent")
	quickSweep := []string{"-table", "ablation", "-quick", "-datasets", "ItalyPowerDemand", "-offline", "-dry-run"}
	noFolder := "-data " + missing + ": no such folder"
	cases := []badInput{
		// Settings that silently lose.
		{name: "train -set key twice", cmd: "train", args: []string{"-set", "sparse_ratio=0.3;sparse_ratio=0.7"},
			want: []string{"sparse_ratio is given twice (sparse_ratio=0.3 and sparse_ratio=0.7)", "give each setting once"}},
		{name: "train -set protocol twice", cmd: "train", args: []string{"-set", "protocol=reference_fresh;reference_compat=true"},
			want: []string{"protocol is given twice"}},
		{name: "sweep -set key twice", cmd: "sweep", args: append([]string{"-data", bundledOnly(t), "-set", "epochs=2;epochs=3"}, quickSweep...),
			want: []string{"epochs is given twice (epochs=2 and epochs=3)"}},
		{name: "timing -set key twice", cmd: "timing", args: []string{"-set", "depth=2;depth=3", "-data", bundledOnly(t)},
			want: []string{"depth is given twice"}},
		{name: "train -epochs against -set epochs", cmd: "train", args: []string{"-set", "epochs=100;warmup_epochs=50", "-epochs", "3", "-warmup", "1"},
			want: []string{"-epochs 3 and -set epochs=100 disagree", "give the value once"}},
		{name: "train -warmup against -set warmup_epochs", cmd: "train", args: []string{"-set", "warmup_epochs=50", "-warmup", "1"},
			want: []string{"-warmup 1 and -set warmup_epochs=50 disagree"}},
		{name: "plot curves -epochs against -set epochs", cmd: "plot", args: []string{"curves", "-epochs", "3", "-set", "epochs=4"},
			want: []string{"-epochs 3 and -set epochs=4 disagree"}},
		{name: "timing -set sparse_ratio against -ratios", cmd: "timing", args: []string{"-set", "sparse_ratio=0.5", "-data", bundledOnly(t)},
			want: []string{"-set sparse_ratio: timing takes the sparse ratios from -ratios"}},
		// A -data folder that does not exist, on every command that reads one.
		{name: "train -data missing", cmd: "train", args: []string{"-data", missing, "-dataset", "GunPoint"},
			want: []string{noFolder, "leave -data and $SOFTSHAPE_DATA unset", "GunPoint"}},
		{name: "train $SOFTSHAPE_DATA missing", cmd: "train", prepare: func(t *testing.T) []string {
			t.Setenv(data.DataEnv, missing)
			return []string{"-dataset", "GunPoint"}
		}, want: []string{"$SOFTSHAPE_DATA=" + missing + ": no such folder"}},
		{name: "train -data is a file", cmd: "train", prepare: func(t *testing.T) []string {
			return []string{"-data", writeTemp(t, "data", "x"), "-dataset", "GunPoint"}
		}, want: []string{"is a file, not a folder of datasets"}},
		{name: "sweep -data missing", cmd: "sweep", args: append([]string{"-data", missing}, quickSweep...), want: []string{noFolder}},
		{name: "plot curves -data missing", cmd: "plot", args: []string{"curves", "-data", missing, "-dataset", "GunPoint"}, want: []string{noFolder}},
		{name: "timing -data missing", cmd: "timing", args: []string{"-data", missing}, want: []string{noFolder}},
		{name: "datasets -data missing", cmd: "datasets", args: []string{"-data", missing}, want: []string{noFolder}},
		{name: "datasets info -data missing", cmd: "datasets", args: []string{"info", "-data", missing, "GunPoint"}, want: []string{noFolder}},
		{name: "fidelity -data missing", cmd: "fidelity", args: []string{"-data", missing, "-results", t.TempDir()}, want: []string{noFolder}},
		// A checkpoint folder that cannot be created.
		{name: "train -checkpoint under a file", cmd: "train", prepare: func(t *testing.T) []string {
			return []string{"-checkpoint", filepath.Join(writeTemp(t, "notes.txt", "mine"), "ckpt"), "-folds", "1", "-epochs", "1"}
		}, want: []string{filepath.Join("notes.txt", "ckpt", "fold-1"), "not a directory"}},
	}
	if st, err := os.Stat("/sys/kernel"); runtime.GOOS == "linux" && err == nil && st.IsDir() {
		// sysfs refuses new folders to everyone, root included.
		dir := fmt.Sprintf("/sys/softshape-check-%d", os.Getpid())
		cases = append(cases, badInput{name: "train -checkpoint not writable", cmd: "train", args: []string{"-checkpoint", dir, "-epochs", "1"},
			want: []string{"checkpoint folder " + dir + "/fold-1 cannot be written: mkdir " + dir + ":"}})
	}
	checkBadInputs(t, cases)
}

// TestCheckpointCheckedBeforeTraining: a -checkpoint folder that cannot be
// created fails before the data is even loaded (nothing is printed), and
// the check leaves nothing behind when the run then fails for another
// reason.
func TestCheckpointCheckedBeforeTraining(t *testing.T) {
	var out bytes.Buffer
	bad := filepath.Join(writeTemp(t, "notes.txt", "mine"), "ckpt")
	if err := runTrain([]string{"-checkpoint", bad, "-folds", "1", "-epochs", "1", "-quiet"}, &out); err == nil {
		t.Fatal("no error")
	}
	if out.Len() > 0 {
		t.Errorf("printed before failing:\n%s", out.String())
	}
	root := t.TempDir()
	err := runTrain([]string{"-checkpoint", filepath.Join(root, "a", "b"), "-dataset", "NoSuchDataset", "-data", root, "-offline", "-quiet"}, &out)
	if err == nil || !strings.Contains(err.Error(), "NoSuchDataset") {
		t.Fatalf("unknown dataset: %v", err)
	}
	if entries, _ := os.ReadDir(root); len(entries) > 0 {
		t.Errorf("the checkpoint check left %s/%s behind", root, entries[0].Name())
	}
}

// sabotage is a stdout that, when the command prints the dataset line (the
// last before training), puts a file where the checkpoint folder goes: the
// check before training passed, the saves after it fail.
type sabotage struct {
	bytes.Buffer
	t    *testing.T
	path string
}

func (s *sabotage) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte("dataset: ")) {
		if err := os.WriteFile(s.path, []byte("in the way"), 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
	return s.Buffer.Write(p)
}

// TestCheckpointSaveFailsLate: a checkpoint that fails to save after
// training loses nothing: the per-fold table is printed, then the error
// names the folder and the real cause; one fold at a time and with the
// folds trained together alike.
func TestCheckpointSaveFailsLate(t *testing.T) {
	for _, maxRuns := range []string{"1", "0"} {
		dir := filepath.Join(t.TempDir(), "ckpt")
		out := &sabotage{t: t, path: dir}
		err := runTrain([]string{"-checkpoint", dir, "-folds", "1-2", "-epochs", "2", "-warmup", "1", "-set", "embed_dim=16",
			"-max-runs", maxRuns, "-quiet"}, out)
		if err == nil {
			t.Fatalf("-max-runs %s: no error\n%s", maxRuns, out.String())
		}
		contains(t, out.String(), "mean test accuracy", "over 2 folds")
		for _, want := range []string{"the results above are complete, but -checkpoint " + dir + " is incomplete",
			"checkpoint not saved to " + filepath.Join(dir, "fold-1"), filepath.Join(dir, "fold-2"), "not a directory"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("-max-runs %s: error %q does not say %q", maxRuns, err, want)
			}
		}
	}
}

// TestScheduleFlagAgreesWithSet: -epochs and -set epochs= may both be given
// when they agree; a flag alone overrides the default as before.
func TestScheduleFlagAgreesWithSet(t *testing.T) {
	for _, c := range []struct {
		args           []string
		set            string
		epochs, warmUp int
	}{
		{[]string{"-epochs", "7", "-warmup", "2"}, "epochs=7;warmup_epochs=2", 7, 2},
		{[]string{"-epochs", "7"}, "warmup_epochs=3", 7, 3},
		{nil, "epochs=9", 9, softshape.DefaultConfig().WarmUpEpochs},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		s := addScheduleFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		cfg, _, err := configFromFlags(c.set, s)
		if err != nil || cfg.Epochs != c.epochs || cfg.WarmUpEpochs != c.warmUp {
			t.Errorf("%v -set %q: epochs %d, warm-up %d, %v; want %d, %d", c.args, c.set, cfg.Epochs, cfg.WarmUpEpochs, err, c.epochs, c.warmUp)
		}
	}
}

// TestHelpExitsZero: -h and -help print the usage on stdout and exit 0 for
// the top level and for every command, as Go's own tools do; an unknown
// command exits 2 and a failing one 1.
func TestHelpExitsZero(t *testing.T) {
	calls := [][]string{{"-h"}, {"help"}, {"-help"}, {"plot", "curves", "-h"}, {"datasets", "info", "-h"}}
	for name := range commands() {
		calls = append(calls, []string{name, "-h"}, []string{name, "-help"})
	}
	for _, args := range calls {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 0 || !strings.Contains(out.String(), "Usage") || errOut.Len() > 0 {
			t.Errorf("softshape %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, firstLine(out.String()), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"nosuch"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), `unknown command "nosuch"`) {
		t.Errorf("unknown command: exit %d, stderr %q", code, errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"train", "-epochs", "0"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "softshape train: -epochs 0") {
		t.Errorf("failing command: exit %d, stderr %q", code, errOut.String())
	}
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestProgressLinesThrottled: away from a terminal the progress is plain
// lines, none redrawn: a line when a fold finishes, saying its epochs and
// best validation loss, and at most one progress line per interval however
// many epochs pass (here two folds of 30 epochs, one simulated second
// each, 10 s apart: 3 progress lines per fold).
func TestProgressLinesThrottled(t *testing.T) {
	var buf bytes.Buffer
	p := newTrainProgress(&buf, false, "folds 1-2", 30, 2)
	clock := time.Unix(0, 0)
	p.now = func() time.Time { return clock }
	p.last = clock
	for fold := range 2 {
		for e := range 30 {
			clock = clock.Add(time.Second)
			val := 1.0 / float64(1+min(e, 20)) // best at epoch 20 (0-based, as the table), then flat
			p.epoch(softshape.EpochStats{Fold: fold, Epoch: e, Epochs: 30, Phase: softshape.Sparse, ValLoss: val,
				Selected: e <= 20, Elapsed: time.Duration(e+1) * time.Second})
		}
	}
	p.finish()
	log := buf.String()
	if strings.Contains(log, "\r") {
		t.Errorf("carriage returns in the log:\n%q", log)
	}
	lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	want := []string{
		"fold 1: epoch 10/30 (sparse)", "fold 1: epoch 20/30 (sparse)", "fold 1: epoch 30/30 (sparse)",
		"fold 1 done: 30 epochs, best epoch 20 (val loss 0.0476), 30s",
		"fold 2: epoch 10/30 (sparse)", "fold 2: epoch 20/30 (sparse)", "fold 2: epoch 30/30 (sparse)",
		"fold 2 done: 30 epochs, best epoch 20 (val loss 0.0476), 30s",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), log)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want %q…", i+1, lines[i], w)
		}
	}
}

// TestTrainLogNotTerminal: train with stderr sent to a file (not a terminal)
// writes no progress-bar redraws: no carriage return, one "done" line per
// fold, and no more progress lines than one per 10 s of the run.
func TestTrainLogNotTerminal(t *testing.T) {
	var out bytes.Buffer
	start := time.Now()
	log, err := captureStderr(t, func() error {
		return runTrain([]string{"-folds", "1-2", "-epochs", "6", "-warmup", "2", "-set", "embed_dim=16"}, &out)
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if strings.Contains(log, "\r") {
		t.Errorf("carriage returns in the log:\n%q", log)
	}
	var done, progress int
	for _, line := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "fold 1 done: 6 epochs, best epoch"), strings.HasPrefix(line, "fold 2 done: 6 epochs, best epoch"):
			done++
		case strings.HasPrefix(line, "folds 1-2: "):
			progress++
		case slices.Contains([]string{"", "Go backend: parallelism set to -1"}, line):
		default:
			t.Errorf("unexpected line %q", line)
		}
	}
	if limit := int(time.Since(start)/progressInterval) + 1; done != 2 || progress > limit {
		t.Errorf("%d done lines (want 2), %d progress lines (at most %d):\n%s", done, progress, limit, log)
	}
}
