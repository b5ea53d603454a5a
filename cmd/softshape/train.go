package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/softshape"
)

// runTrain implements "softshape train": the paper's protocol on one dataset.
func runTrain(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stdout)
	rf := addRunFlags(fs)
	dataset := fs.String("dataset", data.CBFName, "dataset name: any UCR name, or "+data.CBFName+" (generated, needs no files)")
	seed := fs.Int64("seed", 42, "seed for folds, initial weights, dropout and batch order")
	schedule := addScheduleFlags(fs)
	settings := fs.String("set", "", "hyperparameters, e.g. \"sparse_ratio=0.3;experts_k=2;depth=3\"; -set help lists them with defaults")
	checkpoints := fs.String("checkpoint", "", "folder to save the selected model and the per-epoch history of each fold (fold-N subfolders, N from 0; plot curves/attention/tsne -checkpoint read them)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	maxRuns := fs.Int("max-runs", 0, maxRunsHelp+"; the folds of a fold_reset=fresh configuration then train together")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: softshape train [flags]\n\nTrains SoftShape on one dataset with the paper's protocol (stratified 5 folds, 60/20/20,\nmodel selection by validation loss) and prints the per-fold table.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (name the dataset with -dataset)", fs.Arg(0))
	}
	if *settings == "help" {
		fmt.Fprint(stdout, softshape.SettingsHelp())
		return nil
	}
	cfg, err := softshape.DefaultConfig().WithSettings(*settings)
	if err != nil {
		return err
	}
	warning, err := schedule.apply(&cfg)
	if err != nil {
		return err
	}
	if warning != "" {
		fmt.Fprintln(os.Stderr, "softshape train: "+warning)
	}
	if err := checkMaxRuns(*maxRuns); err != nil {
		return err
	}
	foldList, err := parseFolds(*rf.folds)
	if err != nil {
		return err
	}
	if last := foldList[len(foldList)-1]; last >= 5 {
		return fmt.Errorf("-folds %q: fold %d does not exist (the protocol has folds 1-5)", *rf.folds, last+1)
	}
	if *checkpoints != "" {
		if err := checkCheckpointFolders(*checkpoints, foldList); err != nil {
			return err
		}
	}
	ds, err := data.LoadOrDownload(*rf.dataRoot, *dataset, data.LoadOptions{Seed: *seed, Offline: *rf.offline, Log: os.Stderr})
	if err != nil {
		return err
	}
	backend, err := softshape.NewBackend(*rf.backend)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backend: %s\n", backend.Description())
	fmt.Fprintf(stdout, "dataset: %s (%d series, %d classes, length %d)\n", ds.Name, len(ds.Series), ds.NumClasses(), ds.Length)

	var bar *progressbar.ProgressBar
	opts := softshape.RunOptions{
		Backend: backend, Seed: *seed, Folds: foldList, CheckpointDir: *checkpoints,
		RefShapeLen: softshape.RefShapeLength(ds.Name, ds.Length), MaxRuns: *maxRuns,
	}
	runs := opts.MaxRuns
	if runs == 0 {
		runs = softshape.DefaultMaxRuns(backend)
	}
	if runs > 1 && len(foldList) > 1 && !cfg.CarriesFolds() {
		fmt.Fprintf(stdout, "folds %s trained together, at most %d per graph\n", *rf.folds, runs)
		if !*quiet {
			// One bar over every fold's epochs: the folds advance together.
			bar = progressbar.NewOptions(cfg.Epochs*len(foldList), progressbar.OptionSetWriter(os.Stderr),
				progressbar.OptionSetDescription("folds "+*rf.folds), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
			opts.OnEpoch = func(softshape.EpochStats) { _ = bar.Add(1) }
		}
	} else if !*quiet {
		opts.OnEpoch = func(s softshape.EpochStats) {
			if s.Epoch == 0 {
				bar = progressbar.NewOptions(s.Epochs, progressbar.OptionSetWriter(os.Stderr),
					progressbar.OptionSetDescription(fmt.Sprintf("fold %d", s.Fold+1)), progressbar.OptionShowCount(),
					progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
			}
			bar.Describe(fmt.Sprintf("fold %d %s loss %.3f val %.3f acc %.3f", s.Fold+1, s.Phase, s.TrainLoss, s.ValLoss, s.ValAcc))
			_ = bar.Add(1)
		}
	}
	res, err := softshape.Train(ds, cfg, opts)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return err
	}
	if *checkpoints != "" {
		if err := saveHistories(*checkpoints, ds.Name, *seed, backend.Description(), res); err != nil {
			return err
		}
	}
	printResult(stdout, res)
	return nil
}

// checkCheckpointFolders checks, before any training, that train
// -checkpoint dir can save each fold's model into dir/fold-N: dir is a
// folder (or missing) and each fold-N holds nothing but an earlier
// checkpoint (see softshape.SaveCheckpoint).
func checkCheckpointFolders(dir string, folds []int) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("-checkpoint %s is a file, not a folder", dir)
	}
	for _, f := range folds {
		if err := softshape.CheckCheckpointFolder(filepath.Join(dir, fmt.Sprintf("fold-%d", f))); err != nil {
			return fmt.Errorf("-checkpoint: %w", err)
		}
	}
	return nil
}

// parseFolds reads "1-5", "1,3" or "2" (1-based) into 0-based fold indices.
func parseFolds(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 1 {
			return nil, fmt.Errorf("-folds %q: %q is not a fold number ≥ 1", s, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("-folds %q: bad range %q", s, part)
			}
		}
		if len(out) > 0 && a <= out[len(out)-1]+1 {
			return nil, fmt.Errorf("-folds %q: list folds in increasing order without repeats", s)
		}
		for f := a; f <= b; f++ {
			out = append(out, f-1)
		}
	}
	return out, nil
}

// printResult prints the per-fold table and the mean ± std.
func printResult(w io.Writer, res *softshape.Result) {
	fmt.Fprintf(w, "shape length m=%d, stride q=%d, %d shapes, %d experts\n", res.Shape.ShapeLen, res.Shape.Stride, res.Shape.NumShapes, res.Shape.NumExperts)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "fold\ttest acc\tval loss\tbest epoch\tepochs\tphase\tbatch\tparams\twall\t")
	for _, f := range res.Folds {
		fmt.Fprintf(tw, "%d\t%.4f\t%.4f\t%d\t%d\t%s\t%d\t%d\t%s\t\n", f.Fold+1, f.TestAcc, f.ValLoss, f.BestEpoch, f.EpochsRun, f.SelectedPhase, f.BatchSize, f.Params, f.Wall.Round(time.Millisecond))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "mean test accuracy %.4f ± %.4f over %d folds\n", res.MeanAcc, res.StdAcc, len(res.Folds))
}
