package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/softshape-go/softshape/experiments/pipeline"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/internal/testfs"
)

// Sweeps and results folders that read as success while wrong: two forms in
// one folder, a swept setting overridden, every cell invalid, one bad grid
// file hiding the others.

// TestOneFormPerStore: a plain sweep and a -fast sweep started together on
// one empty results folder: exactly one of them runs, and the other is
// refused naming the folder; the folder holds one form.
func TestOneFormPerStore(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, extra := range [][]string{{"-variants", "SoftShape"}, {"-variants", "SoftShape", "-fast"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = sweepCLI(t, results, extra...)
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("plain and -fast sweeps on one empty folder: errors %v and %v; want exactly one", errs[0], errs[1])
	}
	refused := errs[0]
	if refused == nil {
		refused = errs[1]
	}
	if !strings.Contains(refused.Error(), "results folder "+results+" holds runs of the") {
		t.Errorf("the refused sweep says %q", refused)
	}
	forms := map[bool]int{}
	store, err := sweep.Open(results)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Walk("", func(path string, r *sweep.Record, err error) error {
		if err != nil {
			return err
		}
		forms[r.SpeedForms]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(forms) != 1 {
		t.Errorf("records of both forms in one folder: %v", forms)
	}
}

// TestSweptSettingNotOverridden: a -set of the setting a table sweeps is
// refused, naming the setting and the variant, even an invalid value,
// instead of being overridden by each variant.
func TestSweptSettingNotOverridden(t *testing.T) {
	for _, set := range []string{"sparse_ratio=1.5", "sparse_ratio=0.3"} {
		var out bytes.Buffer
		err := runSweep([]string{"-table", "sparse_ratio", "-variants", "50%", "-quick", "-datasets", "ItalyPowerDemand", "-folds", "1",
			"-set", set, "-results", filepath.Join(t.TempDir(), "r"), "-data", bundledOnly(t), "-offline", "-dry-run"}, &out)
		if err == nil {
			t.Errorf("-set %s on the sparse_ratio table: no error\n%s", set, out.String())
			continue
		}
		value := strings.TrimPrefix(set, "sparse_ratio=")
		for _, want := range []string{"settings sparse_ratio=" + value, `variant "50%", which sets sparse_ratio=0.5`, "the table sweeps sparse_ratio"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("-set %s: error %q does not say %q", set, err, want)
			}
		}
	}
}

// TestAllInvalidSweepFails: a sweep whose every cell is recorded invalid
// (no epoch to train) exits with an error saying so, though every cell got
// its record; one with some valid cells succeeds.
func TestAllInvalidSweepFails(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results")
	sweepInvalid := func() (string, error) {
		var out bytes.Buffer
		err := runSweep([]string{"-table", "ablation", "-datasets", "ItalyPowerDemand", "-variants", "SoftShape,w/o Intra", "-folds", "1", "-quick",
			"-set", "embed_dim=16;epochs=0;warmup_epochs=2", "-results", results, "-data", bundledOnly(t), "-offline"}, &out)
		return out.String(), err
	}
	out, err := sweepInvalid()
	if err == nil {
		t.Fatalf("every cell invalid: no error\n%s", out)
	}
	for _, want := range []string{"all 2 cells are recorded invalid", "ItalyPowerDemand"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	contains(t, out, "2 trained (0 failed, 2 invalid)")
	// Run again: the cells are done, still all invalid, still an error.
	if _, err := sweepInvalid(); err == nil {
		t.Error("the same sweep again: no error")
	}
}

// TestStatusPastBadGrid: a grid file that is not one (a foreign file, cut
// short) is named, and the other grids of the folder are still reported.
func TestStatusPastBadGrid(t *testing.T) {
	results := t.TempDir()
	grid, err := pipeline.NewGrid(sweep.GridSpec{Table: "ablation", Datasets: []string{"ItalyPowerDemand"}, Variants: []string{"SoftShape"},
		Folds: []int{1}, Seeds: []int64{42}, Quick: true}, bundledOnly(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pipeline.Open(results, grid); err != nil {
		t.Fatal(err)
	}
	bad := testfs.Write(t, filepath.Join(results, "depth_L"), "grid-0123456789ab.json", `{"schema": 1, "spec": `)
	var out bytes.Buffer
	err = runStatus([]string{"-results", results}, &out)
	contains(t, out.String(), "grid file "+bad, "ablation (QUICK MODE — not a reproduction), grid "+grid.ID(), "1 cells: 0 done")
	if err == nil || !strings.Contains(err.Error(), "1 grid files unreadable") {
		t.Errorf("status with an unreadable grid file: error %v", err)
	}
}
