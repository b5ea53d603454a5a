package timing

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/hostinfo"
	"github.com/softshape-go/softshape/softshape"
)

// BatchTiming is one measurement of CompareBatched: all the runs of one
// protocol trained one at a time (R = 1, softshape.Train fold after fold, seed after
// seed) or R at a time by softshape.TrainRuns.
type BatchTiming struct {
	Dataset string
	// R is the number of runs per graph; 1 is softshape.Train, one run at a time.
	R int
	// Runs is the number of runs trained (folds × seeds).
	Runs int
	// Wall is the wall time of all the runs.
	Wall time.Duration
	// PeakRSS is the process's peak resident memory during the measurement
	// (bytes, Linux VmHWM reset before it; 0 where unknown). It includes what
	// the process held before (the Go heap, the backend).
	PeakRSS int64
	// MeanAcc is the mean test accuracy over the runs; Epochs the mean number
	// of epochs run.
	MeanAcc, Epochs float64
	// RunAxis says the runs trained as one model with a run axis
	// (softshape.RunOptions.RunAxis; R > 1), not each alone at the same
	// time.
	RunAxis bool
	// Graphs is the number of training and evaluation graphs softshape.TrainRuns built
	// (R > 1; 0 for R = 1, where each fold builds its own model's).
	Graphs int
}

// CompareBatched measures the full protocol of cfg on ds for every seed
// (opts.NumFolds folds each, default 5) with each R in rs, in the order given
// (R = 1: one run at a time; R > 1: softshape.TrainRuns with at most R runs per graph),
// rounds times, and returns the measurements in the order taken. Ratios of the
// wall times of one round are comparable (same process, same load); timings
// swing between rounds on shared machines. progress, when not nil, receives
// each measurement as soon as it is taken (a full protocol takes hours on a
// CPU, and a measurement cut short by a time limit is lost).
func CompareBatched(ds *data.Dataset, cfg softshape.Config, seeds []int64, rs []int, rounds int, opts softshape.RunOptions, progress func(BatchTiming)) ([]BatchTiming, error) {
	var out []BatchTiming
	for range max(rounds, 1) {
		for _, r := range rs {
			t, err := TimeRuns(ds, cfg, seeds, r, opts)
			if err != nil {
				return out, err
			}
			out = append(out, t)
			if progress != nil {
				progress(t)
			}
		}
	}
	return out, nil
}

// TimeRuns measures the full protocol of cfg on ds for every seed
// (opts.NumFolds folds each, default 5) with at most r runs per graph: r = 1
// is softshape.Train, fold after fold and seed after seed; r > 1 is softshape.TrainRuns, with
// opts.RunAxis. It is one measurement of CompareBatched.
func TimeRuns(ds *data.Dataset, cfg softshape.Config, seeds []int64, r int, opts softshape.RunOptions) (BatchTiming, error) {
	opts.NumFolds = opts.FoldCount()
	if opts.Backend == nil {
		b, err := backends.New("")
		if err != nil {
			return BatchTiming{}, err
		}
		opts.Backend = b
	}
	hostinfo.ResetPeakRSS()
	start := time.Now()
	var accs, epochs []float64
	graphs := 0
	if r == 1 {
		for _, seed := range seeds {
			o := opts
			o.Seed, o.Folds, o.MaxRuns = seed, nil, 1
			res, err := softshape.Train(ds, cfg, o)
			if err != nil {
				return BatchTiming{}, fmt.Errorf("one run at a time, seed %d: %w", seed, err)
			}
			for _, f := range res.Folds {
				accs, epochs = append(accs, f.TestAcc), append(epochs, float64(f.EpochsRun))
			}
		}
	} else {
		var runs []softshape.RunSpec
		for _, seed := range seeds {
			for f := range opts.NumFolds {
				runs = append(runs, softshape.RunSpec{Config: cfg, Seed: seed, Fold: f})
			}
		}
		o := opts
		o.MaxRuns = r
		var res []softshape.FoldResult
		var err error
		res, graphs, err = softshape.TrainRunsCounted(ds, runs, o)
		if err != nil {
			return BatchTiming{}, fmt.Errorf("batched R=%d: %w", r, err)
		}
		for _, f := range res {
			accs, epochs = append(accs, f.TestAcc), append(epochs, float64(f.EpochsRun))
		}
	}
	return BatchTiming{Dataset: ds.Name, R: r, Runs: len(accs), Wall: time.Since(start),
		PeakRSS: hostinfo.PeakRSS(), MeanAcc: stat.Mean(accs, nil), Epochs: stat.Mean(epochs, nil),
		RunAxis: r > 1 && opts.RunAxis.Enabled(opts.Backend), Graphs: graphs}, nil
}

// FormatBatchTimings writes timings as a table: per dataset and R the wall
// time, its speed-up over the one-run-at-a-time time (R = 1) of the same
// dataset and round, wherever in the round that was measured, the peak memory,
// the mean accuracy and epochs, and for R > 1 the form ("axis" for a run
// axis, "alone" for the runs each alone at the same time) and the graphs
// built. A round ends where a dataset's (R, form) repeats.
func FormatBatchTimings(ts []BatchTiming) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-18s %4s %5s %10s %8s %10s %8s %7s %7s %6s\n", "dataset", "R", "runs", "wall", "speedup", "peak MiB", "acc", "epochs", "form", "graphs")
	type arm struct {
		r    int
		form string
	}
	base := make([]time.Duration, len(ts))
	for lo := 0; lo < len(ts); {
		hi, seen := lo, map[arm]bool{}
		for hi < len(ts) && ts[hi].Dataset == ts[lo].Dataset && !seen[arm{ts[hi].R, ts[hi].form()}] {
			seen[arm{ts[hi].R, ts[hi].form()}] = true
			hi++
		}
		var one time.Duration
		for _, t := range ts[lo:hi] {
			if t.R == 1 {
				one = t.Wall
			}
		}
		for ; lo < hi; lo++ {
			base[lo] = one
		}
	}
	for i, t := range ts {
		speed, stopped, graphs := "-", "-", "-"
		if base[i] > 0 && t.R != 1 && t.Wall > 0 {
			speed = fmt.Sprintf("%.2fx", base[i].Seconds()/t.Wall.Seconds())
		}
		if t.R != 1 {
			stopped, graphs = t.form(), strconv.Itoa(t.Graphs)
		}
		fmt.Fprintf(&b, "%-18s %4d %5d %10s %8s %10.0f %8.4f %7.1f %7s %6s\n", t.Dataset, t.R, t.Runs, t.Wall.Round(10*time.Millisecond),
			speed, float64(t.PeakRSS)/(1<<20), t.MeanAcc, t.Epochs, stopped, graphs)
	}
	return b.String()
}

// form names how the runs of t trained: "axis" (a run axis) or "alone"
// (each alone, all at the same time).
func (t BatchTiming) form() string {
	if t.RunAxis {
		return "axis"
	}
	return "alone"
}
