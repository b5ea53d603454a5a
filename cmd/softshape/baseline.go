package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/experiments/baseline"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/timing"
	"github.com/softshape-go/softshape/internal/hostinfo"
)

// baselineDir is where the committed baseline records live.
const baselineDir = "reproduction/baselines"

// runBaseline implements "softshape baseline": a baseline classifier on
// SoftShape's folds (or on the UCR standard split, beside its authors'
// published accuracies), resumable, then its per-dataset table.
func runBaseline(args []string, stdout io.Writer) error {
	fs := newFlagSet("baseline", "Usage: softshape baseline [flags]\n\nTrains a baseline (MiniRocket or MultiRocket-Hydra) on SoftShape's folds (-protocol\nfolds: the same seeds and 60/20/20 folds, fitted on train+validation, tested on the\nfold's test part) or on the UCR standard split (-protocol standard, beside the\nreference's published accuracies: MiniRocket's on that split, MultiRocket-Hydra's\n30-resample means). Each dataset and seed is one record under -out; a rerun skips what\nis stored and never overwrites a record. Then prints the table of what is stored.\n\nFlags:\n", stdout)
	method := fs.String("method", baseline.MiniRocket, "the baseline: "+strings.Join(baseline.Methods(), " or "))
	protocol := fs.String("protocol", baseline.ProtocolFolds, "folds (SoftShape's folds) or standard (the UCR train/test split)")
	datasets := fs.String("datasets", "", "comma-separated datasets (default: every registry dataset under -data; for -protocol standard, those the reference has)")
	seeds := fs.String("seeds", "42,0,1", "comma-separated seeds: the folds' and the transform's")
	root := fs.String("data", data.DefaultRoot(), "folder of the UCR datasets, one sub-folder each")
	out := fs.String("out", baselineDir, "folder of the records")
	workers := fs.Int("workers", 0, "goroutines per fit (0: all cores)")
	report := fs.Bool("report", false, "only print the table of the stored records; run nothing")
	band := fs.Float64("band", 0.02, "with -protocol standard: the agreement band, in accuracy (0.02: ±2 pp)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	seedList, err := sweep.ParseSeeds(*seeds)
	if err != nil {
		return fmt.Errorf("-seeds: %w", err)
	}
	if len(seedList) == 0 {
		return fmt.Errorf("-seeds: no seeds")
	}
	if *workers < 0 {
		return fmt.Errorf("-workers %d: want 0 (all cores) or more", *workers)
	}
	ref, err := baseline.ReferenceFor(*method)
	if err != nil {
		return err
	}
	opts := baseline.Options{Method: *method, Protocol: *protocol, Workers: *workers, Commit: codeCommit()}
	if !*report {
		names := sweep.SplitList(*datasets)
		if names == nil {
			for _, info := range data.Registry() {
				if _, has := ref[info.Name]; data.Present(*root, info.Name) && (has || *protocol != baseline.ProtocolStandard) {
					names = append(names, info.Name)
				}
			}
			if names == nil {
				return fmt.Errorf("no UCR dataset under %s (give -data or -datasets)", *root)
			}
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		hostinfo.ResetPeakRSS()
		if err := baseline.Run(ctx, *out, *root, names, seedList, opts, os.Stderr); err != nil {
			return err
		}
		if rss := hostinfo.PeakRSS(); rss > 0 {
			fmt.Fprintf(os.Stderr, "peak memory (RSS) of this run: %.0f MiB\n", float64(rss)/(1<<20))
		}
	}
	recs, err := baseline.LoadProtocol(*out, *method, *protocol)
	if err != nil {
		return err
	}
	if *protocol == baseline.ProtocolStandard {
		return printAgreement(stdout, recs, ref, *band)
	}
	return printFoldRecords(stdout, recs)
}

// printFoldRecords prints one line per dataset: its seeds, the mean test
// accuracy over the folds of each seed, their mean, and the wall and CPU seconds
// per seed.
func printFoldRecords(w io.Writer, recs []baseline.Record) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataset\tseeds\taccuracy per seed\tmean\twall s per seed\tCPU s per seed\t")
	for _, d := range baseline.PerDataset(recs) {
		seeds := make([]string, len(d.Seeds))
		for i, seed := range d.Seeds {
			seeds[i] = strconv.FormatInt(seed, 10)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.4f\t%s\t%s\t\n", d.Dataset, strings.Join(seeds, ","), joinFloats(d.Accuracy, "%.4f"), d.MeanAccuracy(), joinFloats(d.WallSeconds, "%.1f"), joinFloats(d.CPUSeconds, "%.1f"))
	}
	return tw.Flush()
}

// printAgreement prints the standard-split accuracies beside the
// reference's and the summary.
func printAgreement(w io.Writer, recs []baseline.Record, ref map[string]baseline.ReferenceAccuracy, band float64) error {
	rows, sum, err := baseline.Compare(recs, ref, band)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataset\tseeds\tours\tsd\treference\tdiff (pp)\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%.4f\t%.4f\t%.4f\t%+.2f\t\n", r.Dataset, r.Seeds, r.Mean, r.SD, r.Reference, 100*r.Diff)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d datasets: mean difference %+.2f ± %.2f pp (SE), mean absolute difference %.2f pp, %d within ±%.1f pp\n",
		sum.Datasets, 100*sum.MeanDiff, 100*sum.SEDiff, 100*sum.MeanAbsDiff, sum.Within, 100*sum.Band)
	return nil
}

// joinFloats formats each of xs with format, space-separated.
func joinFloats(xs []float64, format string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf(format, x)
	}
	return strings.Join(s, " ")
}

// codeCommit is the commit a baseline record names: the revision this
// binary was built from (timing.BuildRevision), else, for a build without
// VCS information (go run), the working directory's git commit, with
// "+dirty" when its Go sources have uncommitted changes, or "unknown". The
// binary's own revision comes first so that a binary built from one commit
// and run in a checkout at another records the code that ran.
func codeCommit() string {
	if rev := timing.BuildRevision(); rev != "unknown" {
		return rev
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(head))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no", "--", "*.go").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "+dirty"
	}
	return c
}
