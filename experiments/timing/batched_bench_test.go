package timing

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/benchflags"
	"github.com/softshape-go/softshape/internal/ucrtest"
	"github.com/softshape-go/softshape/softshape"
)

// The settings of BenchmarkTrainRunsProtocol, flags of the test binary.
var (
	batchEpochs = benchflags.Int("batch-epochs", 10,
		"epochs of BenchmarkTrainRunsProtocol's schedule, the first half dense warm-up (500: the full protocol, 150 warm-up epochs, early stopping)")
	batchRounds   = benchflags.Int("batch-rounds", 1, "rounds of BenchmarkTrainRunsProtocol's arms")
	batchDatasets = benchflags.Names("batch-datasets", "GunPoint,ECG200,ItalyPowerDemand", "UCR datasets of BenchmarkTrainRunsProtocol")
	batchR        = benchflags.Counts("batch-r", "1,10", "runs per graph R of BenchmarkTrainRunsProtocol's arms, in the order measured (1: one run at a time)")
	batchSeeds    = benchflags.List("batch-seeds", "1,2", "seeds of BenchmarkTrainRunsProtocol", func(f string) (int64, error) {
		seed, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a seed", f)
		}
		return seed, nil
	})
	batchRunAxis = benchflags.List("batch-run-axis", string(softshape.RunAxisAuto),
		"run-axis modes (auto, on, off) BenchmarkTrainRunsProtocol measures for each R > 1", softshape.ParseRunAxis)
	batchProtocol = benchflags.String("batch-protocol", softshape.ProtocolDefault, "protocol preset of BenchmarkTrainRunsProtocol")
)

// BenchmarkTrainRunsProtocol measures the protocol of 5 folds × the seeds one
// run at a time (softshape.Train) and batched (softshape.TrainRuns, R = 10 by default), in one
// process, and logs the table of FormatBatchTimings (wall, speed-up, peak
// memory per R). Its schedule is short by default (-batch-epochs=10:
// 5 dense + 5 sparse epochs); -batch-epochs=500 is the full protocol
// (150 warm-up epochs, early stopping). -batch-datasets lists the UCR
// datasets (default GunPoint,ECG200,ItalyPowerDemand), -batch-r the
// R values in the order measured (default 1,10; 1 is one run at a time),
// -batch-seeds the seeds (default 1,2), -batch-rounds the
// rounds (default 1), -batch-protocol the protocol preset (default
// "default"; e.g. reference_fresh, the reproduction's), -batch-run-axis
// the run-axis modes (softshape.RunOptions.RunAxis) measured for each R > 1
// (default auto, the backend's default; e.g. off,on: the runs each alone at
// the same time, then on a run axis). Each measurement is written to stderr
// as it is taken. Run with -benchtime 1x: one iteration is the whole
// comparison:
//
//	GOEXPERIMENT=simd go test -run '^$' -bench TrainRunsProtocol -benchtime 1x ./experiments/timing/ -args -batch-epochs=500
func BenchmarkTrainRunsProtocol(b *testing.B) {
	epochs, rounds, names := batchEpochs(b), batchRounds(b), batchDatasets(b)
	rs, seeds, axes := batchR(b), batchSeeds(b), batchRunAxis(b)
	protocolName := batchProtocol(b)
	cfg := softshape.DefaultConfig()
	protocol, err := softshape.Preset(protocolName)
	if err != nil {
		b.Fatalf("-batch-protocol: %v", err)
	}
	cfg = cfg.WithProtocol(protocol)
	cfg.Epochs = epochs
	if epochs < 500 {
		cfg.WarmUpEpochs = epochs / 2
	}
	backend, err := backends.New("")
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		var all []BatchTiming
		for _, name := range names {
			ds := ucrtest.Load(b, name)
			var done []BatchTiming
			progress := func(t BatchTiming) {
				done = append(done, t)
				fmt.Fprintf(os.Stderr, "%s", FormatBatchTimings(done))
			}
			for range max(rounds, 1) {
				for ai, axis := range axes {
					arms := rs
					if ai > 0 { // R = 1 once per round
						arms = slices.DeleteFunc(slices.Clone(rs), func(r int) bool { return r == 1 })
					}
					opts := softshape.RunOptions{Execution: softshape.Execution{RunAxis: axis}, Backend: backend, RefShapeLen: softshape.RefShapeLength(ds.Name, ds.Length)}
					ts, err := CompareBatched(ds, cfg, seeds, arms, 1, opts, progress)
					if err != nil {
						b.Fatal(err)
					}
					all = append(all, ts...)
				}
			}
		}
		b.Logf("backend %s, protocol %s, %d epochs (warm-up %d), 5 folds x %d seeds:\n%s", backend.Description(),
			protocolName, cfg.Epochs, cfg.WarmUpEpochs, len(seeds), FormatBatchTimings(all))
	}
}
