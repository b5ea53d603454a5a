package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/softshape-go/softshape/ablations"
	"github.com/softshape-go/softshape/experiments/pipeline"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/internal/english"
	"github.com/softshape-go/softshape/softshape"
)

// runSweep implements "softshape sweep": the runs behind one paper table,
// resumable, shardable, into a results folder.
func runSweep(args []string, stdout io.Writer) error {
	fs := newFlagSet("sweep", "Usage: softshape sweep -table NAME [flags]\n\nRuns the grid datasets × folds × variants × seeds of one paper table, one fold per run,\n"+
		"writing one JSON record per finished run under -results. Interrupted sweeps resume where they\nstopped; several processes (or machines with -shard) may share one results folder.\n"+
		"With -emit-slurm FILE it writes instead the sbatch array job running the grid as -slurm-tasks shards\n(-only-incomplete: only the shards with cells left to run).\n\nFlags:\n", stdout)
	rf := addRunFlags(fs, execParts{
		Workers: "cells trained at once: 0 = automatic (pure-Go backend: one worker per core (GOMAXPROCS) sharing the backend, or each on its own with -backend go:parallelism=0; ONNX Runtime, XLA: 1); N = N goroutines sharing one backend",
		Graphs:  true,
		Fast:    speedFormsHelp + "; each record says which form trained it (speed_forms)",
	})
	table := fs.String("table", "", "paper table to run: "+strings.Join(ablations.TableNames(), ", "))
	datasets := fs.String("datasets", "", "comma-separated dataset names (default: the table's datasets; quick mode: a few small ones)")
	variants := fs.String("variants", "", "comma-separated variants of the table to run (default: all)")
	quick := fs.Bool("quick", false, fmt.Sprintf("quick mode: %d epochs (%d warm-up), few datasets; results labelled %q", sweep.QuickEpochs, sweep.QuickWarmUp, sweep.QuickLabel))
	shard := fs.String("shard", "", "run only shard i of n (\"i/n\", 1-based): cells whose index in the sorted grid is i-1 mod n")
	results := fs.String("results", sweep.DefaultRoot, "results folder (one JSON record per run)")
	seeds := fs.String("seeds", "42", "comma-separated run seeds")
	settings := addSettingsFlag(fs, "", "hyperparameters applied before each variant, e.g. \"embed_dim=64\" (part of every run's key)")
	dryRun := fs.Bool("dry-run", false, "list the cells of this shard and their state; train nothing, write nothing")
	retry := fs.Bool("retry-failed", false, "run again the cells whose record says failed")
	noReuse := fs.Bool("no-reuse", false, "train even when a binary of this commit recorded the same computation for another variant or table")
	saveProgress := fs.Duration("save-progress", softshape.DefaultResumeEvery, "how often a fold in training (one cell at a time) saves its progress beside its record (<record>.resume), so that a sweep killed in the middle of a fold continues it from its last save, bit for bit; 0: never")
	sf := addSlurmFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *table == "" {
		return fmt.Errorf("-table is required: one of %s", strings.Join(ablations.TableNames(), ", "))
	}
	if *saveProgress < 0 {
		return fmt.Errorf("-save-progress %v: want a duration of 0 (never) or more", *saveProgress)
	}
	resumeEvery := *saveProgress
	if resumeEvery == 0 {
		resumeEvery = -1 // the runner's "never"
	}
	if *sf.emit == "" { // a Slurm job's -data is a folder of the cluster's
		if err := checkDataRoot(fs, rf.e.DataRoot); err != nil {
			return err
		}
	}
	exec, err := rf.execution()
	if err != nil {
		return err
	}
	spec := sweep.GridSpec{Table: *table, Quick: *quick, Settings: *settings, Variants: sweep.SplitList(*variants), Datasets: sweep.SplitList(*datasets)}
	foldList, err := parseFolds(*rf.folds)
	if err != nil {
		return err
	}
	for _, f := range foldList {
		spec.Folds = append(spec.Folds, f+1)
	}
	if spec.Seeds, err = parseSeeds(*seeds); err != nil {
		return err
	}

	sh, err := sweep.ParseShard(*shard)
	if err != nil {
		return err
	}
	grid, err := pipeline.NewGrid(spec, exec.DataRoot)
	if err != nil {
		return err
	}
	spec = grid.Spec
	if *sf.emit != "" {
		if *shard != "" || *dryRun {
			return errors.New("-emit-slurm writes the job of every shard: leave out -shard and -dry-run")
		}
		return emitSlurm(stdout, sf, slurmSweep{spec: spec, grid: grid, folds: *rf.folds, seeds: *seeds, exec: rf.e,
			results: *results, retryFailed: *retry, noReuse: *noReuse, saveProgress: *saveProgress})
	}
	cells := sh.Select(grid.Cells)
	mode := "full"
	if *quick {
		mode = sweep.QuickLabel
	}
	fmt.Fprintf(stdout, "sweep %s (%s), grid %s: %d datasets × %d folds × %d seeds × %d variants = %d cells; shard %s: %d cells\n",
		*table, mode, grid.ID(), len(spec.Datasets), len(spec.Folds), len(spec.Seeds), len(grid.Variants)-len(grid.Blocked()), len(grid.Cells), sh, len(cells))
	for _, v := range grid.Blocked() {
		fmt.Fprintf(stdout, "not run: %s\n", v.Blocked)
	}
	if *dryRun {
		return dryRunCells(stdout, *results, cells)
	}
	store, err := pipeline.Open(*results, grid)
	if err != nil {
		return err
	}
	ctx, done := stopOnSignal(stdout)
	defer done()
	rep, err := pipeline.Train(ctx, store, cells, pipeline.Training{Execution: exec, NoReuse: *noReuse, RetryFailed: *retry, ResumeEvery: resumeEvery, Log: stdout, WorkersSetting: "-workers", BackendSetting: "-backend"})
	if err != nil && !(errors.Is(err, context.Canceled) && ctx.Err() != nil) { // a signal's stop is told below
		return err
	}
	fmt.Fprintf(stdout, "sweep %s: %d trained (%d failed, %d invalid), %d reused, %d already done, %d held by other processes, %d left without a record\n",
		*table, rep.Ran, rep.Failed, rep.Invalid, rep.Reused, rep.Done, rep.Busy, len(rep.Errors))
	if ctx.Err() != nil {
		return fmt.Errorf("sweep %s stopped by a signal (%d %s stopped in training, %s saved): the same command continues %s and the cells not started",
			*table, rep.Stopped, english.Agree(rep.Stopped, "fold", "folds"), english.Agree(rep.Stopped, "its progress", "their progress"), english.Agree(rep.Stopped, "it", "them"))
	}
	if len(rep.Errors) > 0 {
		for _, e := range rep.Errors {
			fmt.Fprintf(stdout, "  %v\n", e)
		}
		return fmt.Errorf("%d cells left without a record (listed above)", len(rep.Errors))
	}
	if err := store.CheckNotAllInvalid(cells); err != nil {
		return fmt.Errorf("sweep %s: %w", *table, err)
	}
	if inv := store.InvalidCells(cells); len(inv) > 0 {
		fmt.Fprintf(stdout, "sweep %s: %d of %d cells recorded invalid (the dataset rejects the configuration; softshape status lists them), e.g. %s · %s: %s\n",
			*table, len(inv), len(cells), inv[0].Key.Dataset, inv[0].Key.Variant, inv[0].Detail)
	}
	return nil
}

// dryRunCells lists cells with their state in the results folder (which is
// not created).
func dryRunCells(w io.Writer, root string, cells []sweep.Cell) error {
	var store *sweep.Store
	if st, err := os.Stat(root); err == nil && st.IsDir() {
		var err error
		if store, err = sweep.Open(root); err != nil {
			return err
		}
	}
	counts := map[sweep.CellState]int{}
	for _, c := range cells {
		state := sweep.StateMissing
		if store != nil {
			state = store.CellStatus(c.Key).State
		}
		counts[state]++
		fmt.Fprintf(w, "%-8s %s\n", state, c.Key)
	}
	var parts []string
	for _, s := range sweep.States() {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	fmt.Fprintf(w, "dry run: %d cells (%s); nothing trained\n", len(cells), strings.Join(parts, ", "))
	return nil
}

// parseSeeds reads a comma-separated list of integers.
func parseSeeds(s string) ([]int64, error) {
	out, err := sweep.ParseSeeds(s)
	if err != nil {
		return nil, fmt.Errorf("-seeds %q: %w", s, err)
	}
	if len(out) == 0 {
		return nil, errors.New("-seeds: give at least one seed")
	}
	return out, nil
}

// stopOnSignal returns a context that the first SIGINT or SIGTERM cancels
// (a Slurm time limit sends SIGTERM, then SIGKILL after its KillWait): the
// sweep then starts no cell, and the folds in training stop at the end of
// their epoch with their progress saved (sweep.Runner.Run). It says so on w;
// a second signal ends the process at once. Call done when the sweep ends.
func stopOnSignal(w io.Writer) (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	finished := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs) // a second signal ends the process at once
			fmt.Fprintf(w, "sweep: %v: stopping: no cell starts; a fold training alone saves its progress at the end of its epoch and stops, a batched job finishes (a second signal ends at once)\n", s)
			cancel()
		case <-finished:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(finished)
		cancel()
	}
}
