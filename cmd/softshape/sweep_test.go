package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/sweep"
)

// tinySweepSettings make CLI sweeps take a second.
const tinySweepSettings = "embed_dim=16;epochs=2;warmup_epochs=1"

// sweepCLI runs "softshape sweep" on the bundled ItalyPowerDemand
// into results, quick mode, with the given extra flags.
func sweepCLI(t *testing.T, results string, extra ...string) (string, error) {
	t.Helper()
	args := append([]string{"-table", "ablation", "-datasets", "ItalyPowerDemand", "-variants", "SoftShape,w/o Intra",
		"-folds", "1", "-quick", "-set", tinySweepSettings, "-results", results, "-data", bundledOnly(t), "-offline"}, extra...)
	var out bytes.Buffer
	err := runSweep(args, &out)
	return out.String(), err
}

// TestSweepCommand: a dry run writes nothing; a sweep records its runs; a
// second sweep trains nothing; shards split the grid; bad flags are errors.
func TestSweepCommand(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results")
	out, err := sweepCLI(t, results, "-dry-run")
	if err != nil {
		t.Fatal(err)
	}
	contains(t, out, "sweep ablation (QUICK MODE — not a reproduction)", "1 datasets × 1 folds × 1 seeds × 2 variants = 2 cells; shard 1/1: 2 cells",
		"missing  ablation/ItalyPowerDemand/SoftShape fold 1 seed 42 quick", "dry run: 2 cells (2 missing); nothing trained")
	if _, err := os.Stat(results); err == nil {
		t.Error("the dry run created the results folder")
	}
	out, err = sweepCLI(t, results, "-shard", "2/2")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	contains(t, out, "shard 2/2: 1 cells", "sweep ablation: 1 trained (0 failed, 0 invalid)", "workers: "+autoPlan(t, 1))
	out, err = sweepCLI(t, results, "-workers", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	contains(t, out, "1 trained", "1 already done", "done   ablation/ItalyPowerDemand/", "2 worker(s)", "workers: 2 workers, sharing one backend (as asked)\n")
	out, _ = sweepCLI(t, results)
	contains(t, out, "0 trained (0 failed, 0 invalid), 0 reused, 2 already done")
	files, _ := filepath.Glob(filepath.Join(results, "ablation", "ItalyPowerDemand", "*", "fold1-seed42-*.json"))
	if len(files) != 2 {
		t.Errorf("record files %v", files)
	}
	out, _ = sweepCLI(t, results, "-dry-run")
	contains(t, out, "dry run: 2 cells (2 done)")

	// -fast trains the speed forms, and the records say so; plain records do not.
	fastResults := filepath.Join(t.TempDir(), "fast")
	if out, err := sweepCLI(t, fastResults, "-fast", "-variants", "SoftShape"); err != nil || !strings.Contains(out, "1 trained (0 failed, 0 invalid)") {
		t.Fatalf("-fast: %v\n%s", err, out)
	}
	for dir, want := range map[string]bool{fastResults: true, results: false} {
		recs, _ := filepath.Glob(filepath.Join(dir, "ablation", "ItalyPowerDemand", "*", "fold1-seed42-*.json"))
		if len(recs) == 0 {
			t.Fatalf("%s: no records", dir)
		}
		for _, rec := range recs {
			raw, err := os.ReadFile(rec)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(raw), `"speed_forms": true`); got != want {
				t.Errorf("%s: speed_forms true in the record: %v, want %v", rec, got, want)
			}
		}
	}

	// A store holds one form: -fast refuses to resume the plain records'
	// folder (their keys do not say the form), and the plain graphs the
	// speed forms' folder, before training anything.
	for dir, flags := range map[string][]string{results: {"-fast"}, fastResults: nil} {
		out, err := sweepCLI(t, dir, flags...)
		if err == nil || !strings.Contains(err.Error(), "results folder "+dir+" holds runs of the ") || strings.Contains(out, "start ") {
			t.Errorf("%s %v: want a refusal naming the folder before any run, got %v\n%s", dir, flags, err, out)
		}
	}

	// A configuration that every dataset rejects is recorded as invalid, and
	// the sweep, with nothing trained, is an error saying so.
	out, err = sweepCLI(t, filepath.Join(t.TempDir(), "r"), "-set", "experts_k=0")
	if err == nil || !strings.Contains(err.Error(), "all 2 cells are recorded invalid") ||
		!strings.Contains(out, "2 trained (0 failed, 2 invalid)") || !strings.Contains(out, "workers: "+autoPlan(t, 2)+"\n") {
		t.Errorf("experts_k=0: %v\n%s", err, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-table", "nope"}, `unknown table "nope"`},
		{[]string{"-table", ""}, "-table is required"},
		{[]string{"-shard", "3/2"}, `-shard "3/2"`},
		{[]string{"-variants", "k=1"}, `variant "k=1" is not in this table`},
		{[]string{"-seeds", "x"}, `-seeds "x"`},
		{[]string{"-folds", "0"}, `-folds "0"`},
		{[]string{"-folds", "6"}, `-folds "6": fold 6 does not exist (want 1..5)`},
		{[]string{"-set", "no_such=1"}, "no_such"},
		{[]string{"-x"}, "flag provided but not defined"},
		{[]string{"-workers", "-1"}, "-workers -1: want 0 (automatic) or a positive number"},
		{[]string{"-datasets", "NotADataset"}, "2 cells left without a record"},
	} {
		out, err := sweepCLI(t, filepath.Join(t.TempDir(), "r"), c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q\n%s", c.args, err, c.want, out)
		}
	}
}

// autoPlan is the line the sweep prints for -workers 0 (the default) and
// cells cells on this machine and $GOMLX_BACKEND.
func autoPlan(t *testing.T, cells int) string {
	t.Helper()
	p, err := sweep.PlanWorkers(0, "", runtime.GOMAXPROCS(0), cells)
	if err != nil {
		t.Fatal(err)
	}
	return p.String()
}
