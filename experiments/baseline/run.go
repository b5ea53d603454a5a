package baseline

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/softshape-go/softshape/baselines/rocket"
	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/hostinfo"
)

// NumFolds is the number of folds of ProtocolFolds: SoftShape's 5.
const NumFolds = 5

// Options are the settings of a run.
type Options struct {
	// Method is the baseline (MiniRocket, MultiRocketHydra) and Protocol
	// the protocol (ProtocolFolds or ProtocolStandard).
	Method, Protocol string
	// Workers is the number of goroutines a fit uses (0: all cores).
	Workers int
	// Commit is recorded as the code's commit.
	Commit string
}

func (o Options) check() error {
	if !slices.Contains(Methods(), o.Method) {
		return fmt.Errorf("baseline: unknown method %q (known: %s)", o.Method, strings.Join(Methods(), ", "))
	}
	if o.Protocol != ProtocolFolds && o.Protocol != ProtocolStandard {
		return fmt.Errorf("baseline: unknown protocol %q (known: %s, %s)", o.Protocol, ProtocolFolds, ProtocolStandard)
	}
	return nil
}

// RunOne runs the method on one dataset with one seed and returns its
// record (not stored). Under ProtocolFolds it fits once per fold of
// data.Folds(ds, NumFolds, seed) on the fold's prepared train and
// validation rows and tests on its test rows; under ProtocolStandard it
// fits on the UCR train rows and tests on the test rows, the series as
// read (the dataset must have no missing values). The transforms' random
// parts (biases, Hydra's kernels) are drawn with the seed.
func RunOne(ds *data.Dataset, seed int64, opts Options) (*Record, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	r := &Record{Method: opts.Method, Protocol: opts.Protocol, Dataset: ds.Name, Seed: seed,
		Processor: hostinfo.Processor(), Workers: opts.Workers, Commit: opts.Commit}
	switch opts.Protocol {
	case ProtocolFolds:
		r.Fit = "train+val"
		splits, err := data.Folds(ds, NumFolds, seed)
		if err != nil {
			return nil, fmt.Errorf("%s seed %d: %w", ds.Name, seed, err)
		}
		for _, s := range splits {
			start, cpu := time.Now(), hostinfo.ProcessCPU()
			fd, err := data.Prepare(ds, s)
			if err != nil {
				return nil, fmt.Errorf("%s seed %d fold %d: %w", ds.Name, seed, s.Fold, err)
			}
			fit := append(append([][]float32{}, fd.TrainX...), fd.ValX...)
			fitY := append(append([]int{}, fd.TrainY...), fd.ValY...)
			fr, feats, err := fitAndTest(opts.Method, fit, fitY, fd.TestX, fd.TestY, seed, opts.Workers)
			if err != nil {
				return nil, fmt.Errorf("%s seed %d fold %d: %w", ds.Name, seed, s.Fold, err)
			}
			fr.Fold, fr.WallSeconds, fr.CPUSeconds = s.Fold, time.Since(start).Seconds(), (hostinfo.ProcessCPU() - cpu).Seconds()
			r.Features = feats
			r.Folds = append(r.Folds, fr)
		}
	case ProtocolStandard:
		r.Fit = "train"
		start, cpu := time.Now(), hostinfo.ProcessCPU()
		if ds.NumTrain == 0 || ds.NumTest() == 0 {
			return nil, fmt.Errorf("%s: no UCR train/test split (generated data?)", ds.Name)
		}
		if ds.HasMissing() {
			return nil, fmt.Errorf("%s: the standard-split check takes series of one length without missing values, as the reference's 109 datasets; this one has some", ds.Name)
		}
		x := make([][]float32, len(ds.Series))
		for i, s := range ds.Series {
			x[i] = make([]float32, len(s))
			for j, v := range s {
				x[i][j] = float32(v)
			}
		}
		n := ds.NumTrain
		fr, feats, err := fitAndTest(opts.Method, x[:n], ds.Labels[:n], x[n:], ds.Labels[n:], seed, opts.Workers)
		if err != nil {
			return nil, fmt.Errorf("%s seed %d: %w", ds.Name, seed, err)
		}
		fr.WallSeconds, fr.CPUSeconds = time.Since(start).Seconds(), (hostinfo.ProcessCPU() - cpu).Seconds()
		r.Features = feats
		r.Folds = []FoldResult{fr}
	}
	for _, f := range r.Folds {
		r.WallSeconds += f.WallSeconds
		r.CPUSeconds += f.CPUSeconds
	}
	return r, nil
}

// fitAndTest fits the method on (x, y) with workers goroutines and scores
// it on (tx, ty), returning the fold's result and the number of features.
func fitAndTest(method string, x [][]float32, y []int, tx [][]float32, ty []int, seed int64, workers int) (FoldResult, int, error) {
	var (
		pred     []int
		alpha    float64
		features int
		err      error
	)
	switch method {
	case MiniRocket:
		c, ferr := rocket.FitClassifier(x, y, uint64(seed), rocket.Options{Workers: workers})
		if ferr != nil {
			return FoldResult{}, 0, ferr
		}
		pred, err = c.Predict(tx)
		alpha, features = c.Ridge.Alpha, c.Transform.NumFeatures()
	case MultiRocketHydra:
		c, ferr := rocket.FitMultiRocketHydra(x, y, uint64(seed), rocket.MultiRocketHydraOptions{Workers: workers})
		if ferr != nil {
			return FoldResult{}, 0, ferr
		}
		pred, err = c.Predict(tx)
		alpha, features = c.Ridge.Alpha, c.NumFeatures()
	default:
		return FoldResult{}, 0, fmt.Errorf("unknown method %q", method)
	}
	if err != nil {
		return FoldResult{}, 0, err
	}
	return FoldResult{TestAccuracy: rocket.Accuracy(pred, ty), Alpha: alpha, NumFit: len(x), NumTest: len(tx)}, features, nil
}

// Run runs the method on each dataset and seed that dir does not yet hold
// (each dataset loaded from dataRoot, else the copy bundled in package data;
// nothing is downloaded), storing each record as it finishes, and writes a
// line per record to log. It stops at the first error or when ctx is done,
// keeping what it stored.
func Run(ctx context.Context, dir, dataRoot string, datasets []string, seeds []int64, opts Options, log io.Writer) error {
	if err := opts.check(); err != nil {
		return err
	}
	for _, name := range datasets {
		var ds *data.Dataset
		for _, seed := range seeds {
			if err := ctx.Err(); err != nil {
				return err
			}
			if Has(dir, opts.Method, opts.Protocol, name, seed) {
				continue
			}
			if ds == nil {
				var err error
				if ds, err = data.LoadOrDownloadContext(ctx, dataRoot, name, data.LoadOptions{Offline: true, Log: log}); err != nil {
					return fmt.Errorf("baseline: %w", err)
				}
			}
			r, err := RunOne(ds, seed, opts)
			if err != nil {
				return fmt.Errorf("baseline: %w", err)
			}
			if err := Save(dir, r); err != nil {
				return err
			}
			fmt.Fprintf(log, "%s %s %s seed %d: accuracy %.4f, %.1f s wall, %.1f s CPU\n", opts.Method, opts.Protocol, name, seed, r.MeanAccuracy(), r.WallSeconds, r.CPUSeconds)
		}
	}
	return nil
}
