package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/checkpointdir"
	"github.com/softshape-go/softshape/softshape"
)

// runTrain implements "softshape train": the paper's protocol on one dataset.
func runTrain(args []string, stdout io.Writer) error {
	fs := newFlagSet("train", "Usage: softshape train [flags]\n\nTrains SoftShape on one dataset with the paper's protocol (stratified 5 folds, 60/20/20,\nmodel selection by validation loss) and prints the per-fold table.\n\nFlags:\n", stdout)
	rf := addRunFlags(fs, execParts{Graphs: true, MaxRunsMore: "; the folds of a fold_reset=fresh configuration then train together", Fast: speedFormsHelp})
	dataset := fs.String("dataset", data.CBFName, "dataset name: any UCR name, or "+data.CBFName+" (generated, needs no files)")
	seed := fs.Int64("seed", 42, "seed for folds, initial weights, dropout and batch order")
	schedule := addScheduleFlags(fs)
	settings := addSettingsFlag(fs, "", "hyperparameters, e.g. \"sparse_ratio=0.3;experts_k=2;depth=3\"; -set help lists them with defaults")
	checkpoints := fs.String("checkpoint", "", "folder to save the selected model and the per-epoch history of each fold (subfolders fold-1 … fold-5, numbered like -folds; plot curves/attention/tsne -checkpoint read them); a folder holding an earlier run is refused unless -overwrite")
	overwrite := fs.Bool("overwrite", false, "with -checkpoint: replace the earlier run that folder holds (the checkpoints of its every fold-N, trained now or not, are removed before training; anything else in it is kept, and a fold-N holding other files is refused)")
	quiet := fs.Bool("quiet", false, "no progress on stderr (a bar on a terminal; elsewhere a line per finished fold and at most one every 10 s)")
	if helped, err := parseDatasetFlags(fs, args, settings, stdout); err != nil || helped {
		return err
	}
	cfg, err := commandConfig("train", *settings, schedule)
	if err != nil {
		return err
	}
	exec, err := rf.execution()
	if err != nil {
		return err
	}
	if err := checkDataRoot(fs, exec.DataRoot); err != nil {
		return err
	}
	foldList, err := parseFolds(*rf.folds)
	if err != nil {
		return err
	}
	if *overwrite && *checkpoints == "" {
		return fmt.Errorf("-overwrite replaces the run of a -checkpoint folder: give -checkpoint too")
	}
	if *checkpoints != "" {
		if err := checkCheckpointFolders(*checkpoints, foldList, *overwrite); err != nil {
			return err
		}
	}
	ds, backend, err := openRun(exec, *dataset, *seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backend: %s\n", backends.Description(backend))
	fmt.Fprintf(stdout, "dataset: %s (%d series, %d classes, length %d)\n", ds.Name, len(ds.Series), ds.NumClasses(), ds.Length)

	opts := softshape.RunOptions{Execution: exec, Backend: backend, Seed: *seed, Folds: foldList, CheckpointDir: *checkpoints,
		RefShapeLen: softshape.RefShapeLength(ds.Name, ds.Length),
	}
	runs := opts.MaxRuns
	if runs == 0 {
		runs = backends.DefaultMaxRuns(backend)
	}
	together := runs > 1 && len(foldList) > 1 && !cfg.CarriesFolds()
	if together {
		form := "each alone, at the same time"
		if opts.RunAxis.Enabled(backend) && softshape.RunAxisSupported(cfg) == nil {
			form = "in one graph, one model on a run axis"
		}
		fmt.Fprintf(stdout, "folds %s trained together, at most %d at a time, %s\n", *rf.folds, runs, form)
	}
	var progress *trainProgress
	if !*quiet {
		// Together, one bar over every fold's epochs: the folds advance together.
		progress = newTrainProgress(os.Stderr, together, "folds "+*rf.folds, cfg.Epochs, len(foldList))
		opts.OnEpoch = progress.epoch
	}
	start := time.Now()
	res, err := softshape.Train(ds, cfg, opts)
	var jobWall time.Duration // folds trained together have one wall time, the job's
	if together {
		jobWall = time.Since(start)
	}
	if progress != nil {
		progress.finish()
	}
	if res == nil {
		return err
	}
	// With a result, err says which checkpoints were not saved: the table
	// comes first, then the error.
	saveErr := err
	if *checkpoints != "" && saveErr == nil {
		saveErr = saveHistories(*checkpoints, ds.Name, *seed, backend.Description(), res)
	}
	printResult(stdout, res, jobWall)
	if saveErr != nil {
		return fmt.Errorf("the results above are complete, but -checkpoint %s is incomplete: %w", *checkpoints, saveErr)
	}
	return nil
}

// checkCheckpointFolders checks, before any training, that train
// -checkpoint dir can save each fold's model (folds 0-based) into dir/fold-N,
// N the 1-based fold number (checkpointdir.FoldDir): dir is a folder
// (or missing), was not written with the older 0-based fold folders, and
// each fold-N holds nothing but an earlier checkpoint (see
// softshape.SaveCheckpoint). A dir holding an earlier run (a fold-N with a
// checkpoint, checkpointdir.Held) is refused unless overwrite; with
// overwrite, the checkpoints of every held fold-N are removed, so that the
// folder never mixes the new run's folds with the earlier run's, and
// nothing is removed unless every held fold-N holds checkpoint files only.
func checkCheckpointFolders(dir string, folds []int, overwrite bool) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("-checkpoint %s is a file, not a folder", dir)
	}
	if checkpointdir.LegacyFoldDirs(dir) {
		return legacyFoldDirsError("checkpoint", dir)
	}
	for _, f := range folds {
		if err := checkpointdir.Check(checkpointdir.FoldDir(dir, f)); err != nil {
			return fmt.Errorf("-checkpoint: %w", err)
		}
	}
	held, err := checkpointdir.Held(dir)
	if err != nil || len(held) == 0 {
		return err
	}
	names := make([]string, len(held))
	for i, h := range held {
		names[i] = filepath.Base(h)
	}
	if !overwrite {
		return fmt.Errorf("-checkpoint %s holds an earlier run (%s): not replacing it; give -overwrite to replace that run "+
			"(the checkpoints of all its folds are removed first), or choose a new folder", dir, strings.Join(names, ", "))
	}
	for _, h := range held {
		if _, err := checkpointdir.Files(h); err != nil {
			return fmt.Errorf("-checkpoint -overwrite: %w", err)
		}
	}
	for _, h := range held {
		if err := checkpointdir.Remove(h); err != nil {
			return fmt.Errorf("-checkpoint -overwrite: %w", err)
		}
	}
	return nil
}

// legacyFoldDirsError explains a checkpoint folder dir (of flag -flag)
// written with the older 0-based fold subfolders, which is not used so that
// no fold is read, or overwritten, as another.
func legacyFoldDirsError(flag, dir string) error {
	return fmt.Errorf("-%s %s holds fold-0: it was written by an older version of softshape, which numbered the fold subfolders from 0 "+
		"(fold-0 … fold-4 for folds 1-5), whereas they are now numbered like -fold and -folds (fold-1 … fold-5); "+
		"not using it: rename each fold-N to fold-N+1, from fold-4 down to fold-0, or train again into a new folder", flag, dir)
}

// numFolds is the number of folds of the paper's protocol.
const numFolds = softshape.ProtocolFolds

// parseFolds reads the -folds flag, 1-based ("1-5", "1,3", "2", see
// data.ParseFolds), into 0-based fold indices. The folds must be listed in
// increasing order without repeats: under fold_reset=carry the folds train
// in order, each continuing from the one before.
func parseFolds(s string) ([]int, error) {
	folds, err := data.ParseFolds(s, numFolds)
	if err != nil {
		// data.ParseFolds names the list as `folds "s": `; name the flag.
		return nil, fmt.Errorf("-folds %q: %s", s, strings.TrimPrefix(err.Error(), fmt.Sprintf("folds %q: ", s)))
	}
	// data.ParseFolds keeps the first mention of a fold: read the parts one
	// by one to find the repeats and the folds out of order.
	var listed []int
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		p, err := data.ParseFolds(part, numFolds)
		if err != nil {
			return nil, fmt.Errorf("-folds %q: %w", s, err)
		}
		if n := len(listed); n > 0 && p[0] <= listed[n-1] {
			return nil, fmt.Errorf("-folds %q: %q comes after fold %d: list folds in increasing order without repeats", s, strings.TrimSpace(part), listed[n-1])
		}
		listed = append(listed, p...)
	}
	out := make([]int, len(folds))
	for i, f := range folds {
		out[i] = f - 1
	}
	return out, nil
}

// printResult prints the per-fold table and the mean ± std. jobWall > 0
// says the folds trained together, in that wall time: a fold's own wall time
// then spans the others' training too, so the wall column reads "—" and
// jobWall is printed once.
func printResult(w io.Writer, res *softshape.Result, jobWall time.Duration) {
	fmt.Fprintf(w, "shape length m=%d, stride q=%d, %d shapes, %d experts\n", res.Shape.ShapeLen, res.Shape.Stride, res.Shape.NumShapes, res.Shape.NumExperts)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "fold\ttest acc\tval loss\tbest epoch\tepochs\tphase\tbatch\tparams\twall\t")
	for _, f := range res.Folds {
		wall := "—"
		if jobWall == 0 {
			wall = f.Wall.Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%d\t%.4f\t%.4f\t%d\t%d\t%s\t%d\t%d\t%s\t\n", f.Fold+1, f.TestAcc, f.ValLoss, f.BestEpoch, f.EpochsRun, f.SelectedPhase, f.BatchSize, f.Params, wall)
	}
	_ = tw.Flush()
	if jobWall > 0 {
		fmt.Fprintf(w, "wall %s for the %d folds, trained together (no time of their own: they share the job)\n", jobWall.Round(time.Millisecond), len(res.Folds))
	}
	fmt.Fprintf(w, "mean test accuracy %.4f ± %.4f over %d folds\n", res.MeanAcc, res.StdAcc, len(res.Folds))
}
