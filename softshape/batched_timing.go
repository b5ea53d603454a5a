package softshape

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/softshape-go/softshape/data"
)

// BatchTiming is one measurement of CompareBatched: all the runs of one
// protocol trained one at a time (R = 1, Train fold after fold, seed after
// seed) or R at a time by TrainRuns.
type BatchTiming struct {
	Dataset string
	// R is the number of runs per graph; 1 is Train, one run at a time.
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
}

// CompareBatched measures the full protocol of cfg on ds for every seed
// (opts.NumFolds folds each, default 5) one run at a time and then batched
// with each R in rs (TrainRuns with at most R runs per graph), rounds times in that order,
// and returns the measurements in the order taken. Ratios of the wall times of
// one round are comparable (same process, same load); timings swing between
// rounds on shared machines.
func CompareBatched(ds *data.Dataset, cfg Config, seeds []int64, rs []int, rounds int, opts RunOptions) ([]BatchTiming, error) {
	if opts.NumFolds == 0 {
		opts.NumFolds = ProtocolFolds
	}
	if opts.Backend == nil {
		b, err := NewBackend("")
		if err != nil {
			return nil, err
		}
		opts.Backend = b
	}
	var out []BatchTiming
	for range max(rounds, 1) {
		for _, r := range append([]int{1}, rs...) {
			resetPeakRSS()
			start := time.Now()
			var accs, epochs []float64
			if r == 1 {
				for _, seed := range seeds {
					o := opts
					o.Seed, o.Folds, o.MaxRuns = seed, nil, 1
					res, err := Train(ds, cfg, o)
					if err != nil {
						return out, fmt.Errorf("one run at a time, seed %d: %w", seed, err)
					}
					for _, f := range res.Folds {
						accs, epochs = append(accs, f.TestAcc), append(epochs, float64(f.EpochsRun))
					}
				}
			} else {
				var runs []RunSpec
				for _, seed := range seeds {
					for f := range opts.NumFolds {
						runs = append(runs, RunSpec{Config: cfg, Seed: seed, Fold: f})
					}
				}
				res, err := trainRuns(ds, runs, opts, r)
				if err != nil {
					return out, fmt.Errorf("batched R=%d: %w", r, err)
				}
				for _, f := range res {
					accs, epochs = append(accs, f.TestAcc), append(epochs, float64(f.EpochsRun))
				}
			}
			out = append(out, BatchTiming{Dataset: ds.Name, R: r, Runs: len(accs), Wall: time.Since(start),
				PeakRSS: peakRSS(), MeanAcc: stat.Mean(accs, nil), Epochs: stat.Mean(epochs, nil)})
		}
	}
	return out, nil
}

// FormatBatchTimings writes timings as a table: per dataset and R the wall
// time, its ratio to the one-run-at-a-time time of the same round, the peak
// memory and the mean accuracy.
func FormatBatchTimings(ts []BatchTiming) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-18s %4s %5s %10s %8s %10s %8s %7s\n", "dataset", "R", "runs", "wall", "speedup", "peak MiB", "acc", "epochs")
	var base time.Duration
	for _, t := range ts {
		if t.R == 1 {
			base = t.Wall
		}
		speed := "-"
		if base > 0 && t.R != 1 {
			speed = fmt.Sprintf("%.2fx", base.Seconds()/t.Wall.Seconds())
		}
		fmt.Fprintf(&b, "%-18s %4d %5d %10s %8s %10.0f %8.4f %7.1f\n", t.Dataset, t.R, t.Runs, t.Wall.Round(10*time.Millisecond),
			speed, float64(t.PeakRSS)/(1<<20), t.MeanAcc, t.Epochs)
	}
	return b.String()
}

// resetPeakRSS frees what the Go heap can give back and resets the kernel's
// peak-RSS counter (Linux: "5" to /proc/self/clear_refs); a no-op elsewhere.
func resetPeakRSS() {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS returns VmHWM from /proc/self/status in bytes, 0 where unknown.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fields := strings.Fields(rest)
			if len(fields) >= 1 {
				kb, err := strconv.ParseInt(fields[0], 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}
