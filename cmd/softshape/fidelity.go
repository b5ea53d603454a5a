package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/softshape-go/softshape/experiments/fidelity"
	"github.com/softshape-go/softshape/experiments/pipeline"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/softshape"
)

// runFidelity implements "softshape fidelity": the full protocol on a few
// datasets and seeds under protocol presets, ours beside the authors' code run
// on the same kind of machine and the paper.
func runFidelity(args []string, stdout io.Writer) error {
	fs := newFlagSet("fidelity", "Usage: softshape fidelity [flags]\n\nRuns the paper's full protocol (500 epochs, 150 warm-up, 5 folds) on -datasets × -seeds under each\n"+
		"of -presets and prints ours beside the authors' code (reference-runs.csv: reference_compat against\n"+
		"their published code, reference_fresh against it with fresh folds) and the paper: means over seeds\n"+
		"with standard errors, the difference, whether it is within ±2 pp and within two standard errors.\n"+
		"Minutes per dataset and seed; interrupted runs resume from -results.\n\nFlags:\n", stdout)
	xf := addExecFlags(fs, execParts{Data: "folder holding UCR datasets as NAME/NAME_TRAIN.tsv", Fast: speedFormsHelp + "; give them a -results folder of their own"})
	datasets := fs.String("datasets", "GunPoint,ECG200", "comma-separated dataset names")
	seeds := fs.String("seeds", "42,0,1,2", "comma-separated run seeds (the reference runs used 42, 0, 1, 2)")
	presets := fs.String("presets", softshape.ProtocolReferenceFresh+","+softshape.ProtocolReferenceCompat+","+softshape.ProtocolDefault,
		"comma-separated protocol presets")
	settings := addSettingsFlag(fs, "", "extra settings after the preset (the report then names them; leave empty for the benchmark proper)")
	results := fs.String("results", filepath.Join(sweep.DefaultRoot, "fidelity"), "results folder; one subfolder per preset (resumable)")
	reference := fs.String("reference", defaultReferenceRuns(), "the authors' per-seed runs (reference-runs.csv); empty: compare with the paper only")
	reportOnly := fs.Bool("report", false, "train nothing: report what -results holds")
	baseline := fs.String("baseline", "", "also compare with the same benchmark's runs in this results folder, paired by seed (e.g. -fast's runs against the plain graphs' in reproduction/fidelity)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	exec, err := xf.execution()
	if err != nil {
		return err
	}
	exec.Workers = 1
	seedList, err := parseSeeds(*seeds)
	if err != nil {
		return err
	}
	dsList := sweep.SplitList(*datasets)
	if len(dsList) == 0 {
		return errors.New("-datasets: give at least one dataset")
	}
	presetList := sweep.SplitList(*presets)
	if len(presetList) == 0 {
		return errors.New("-presets: give at least one preset")
	}
	for _, p := range presetList {
		if _, err := softshape.Preset(p); err != nil {
			return fmt.Errorf("-presets: %w", err)
		}
	}
	if !*reportOnly {
		if err := checkDataRoot(fs, exec.DataRoot); err != nil {
			return err
		}
	}
	var ref []fidelity.RefRun
	if *reference != "" {
		if ref, err = fidelity.ReadReference(*reference); err != nil {
			return fmt.Errorf("-reference: %w", err)
		}
	}
	for _, preset := range presetList {
		spec := fidelity.Spec{Datasets: dsList, Seeds: seedList, Preset: preset, Settings: *settings}
		grid, err := spec.Grid()
		if err != nil {
			return err
		}
		dir := filepath.Join(*results, preset)
		if *reportOnly {
			if err := checkSpeedForms(dir, grid, exec.Fast); err != nil {
				return err
			}
			continue
		}
		if err := runFidelityGrid(stdout, grid, dir, exec); err != nil {
			return err
		}
	}
	rows, err := fidelity.Report(fidelity.ReportSpec{Results: *results, Datasets: dsList, Seeds: seedList, Presets: presetList, Settings: *settings}, ref)
	if err != nil {
		if *reportOnly {
			return fmt.Errorf("-report: %w", err)
		}
		return err
	}
	title := "Fidelity: full protocol, ours beside the authors' code and the paper"
	if exec.Fast {
		title += " (the speed forms: softshape.RunOptions.Fast)"
	}
	if *settings != "" {
		title += fmt.Sprintf(" (extra settings %q: not the benchmark proper)", *settings)
	}
	fmt.Fprintf(stdout, "\n## %s\n\n", title)
	if *reference == "" {
		fmt.Fprintln(stdout, "No reference runs given (-reference): the authors' columns are empty.")
	}
	if err := fidelity.WriteMarkdown(stdout, rows); err != nil {
		return err
	}
	if leaks := fidelity.Leaks(rows); len(leaks) > 0 {
		fmt.Fprintf(stdout, "\n### The fold leak: reference_compat − reference_fresh, paired by seed\n\n")
		if err := fidelity.WriteLeaks(stdout, leaks); err != nil {
			return err
		}
	}
	if *baseline == "" {
		return nil
	}
	base, err := fidelity.Report(fidelity.ReportSpec{Results: *baseline, Datasets: dsList, Seeds: seedList, Presets: presetList, Settings: *settings}, nil)
	if err != nil {
		return fmt.Errorf("-baseline: %w", err)
	}
	fmt.Fprintf(stdout, "\n### Against the runs in %s: ours − baseline, paired by seed\n\n", *baseline)
	return fidelity.WriteShifts(stdout, fidelity.Shifts(rows, base))
}

// runFidelityGrid trains the grid's missing cells into dir as exec says
// (one at a time: Workers 1), with the speed forms when exec.Fast is set;
// it refuses a dir holding records of the grid trained the other way
// (pipeline.Train), which the report would otherwise mix in.
func runFidelityGrid(stdout io.Writer, grid *sweep.Grid, dir string, exec softshape.Execution) error {
	store, err := pipeline.Open(dir, grid)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "fidelity %s: %d runs (datasets × 5 folds × seeds)\n", grid.Spec.Settings, len(grid.Cells))
	rep, err := pipeline.Train(context.Background(), store, grid.Cells, pipeline.Training{Execution: exec, Log: stdout, BackendSetting: "-backend"})
	if err != nil {
		return err
	}
	if len(rep.Errors) > 0 {
		return fmt.Errorf("%d runs left without a record, e.g. %v", len(rep.Errors), rep.Errors[0])
	}
	if rep.Failed > 0 || rep.Invalid > 0 {
		fmt.Fprintf(stdout, "warning: %d runs failed, %d invalid: see their records in %s\n", rep.Failed, rep.Invalid, dir)
	}
	return nil
}

// defaultReferenceRuns is $SOFTSHAPE_SHARED/reference/reference-runs.csv, else
// ../shared/reference/reference-runs.csv, when the file exists; else "".
func defaultReferenceRuns() string { return fidelity.DefaultReferencePath(".") }

// checkSpeedForms is pipeline.CheckSpeedForms for the results folder dir,
// which may not exist yet (then it holds no records).
func checkSpeedForms(dir string, grid *sweep.Grid, fast bool) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	store, err := sweep.Open(dir)
	if err != nil {
		return err
	}
	return pipeline.CheckSpeedForms(store, grid.Cells, fast)
}
