package timing

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/benchenv"
	"github.com/softshape-go/softshape/internal/ucrtest"
	"github.com/softshape-go/softshape/softshape"
)

// BenchmarkTrainRunsProtocol measures the protocol of 5 folds × the seeds one
// run at a time (softshape.Train) and batched (softshape.TrainRuns, R = 10 by default), in one
// process, and logs the table of FormatBatchTimings (wall, speed-up, peak
// memory per R). Its schedule is short by default (SOFTSHAPE_BATCH_EPOCHS=10:
// 5 dense + 5 sparse epochs); SOFTSHAPE_BATCH_EPOCHS=500 is the full protocol
// (150 warm-up epochs, early stopping). SOFTSHAPE_BATCH_DATASETS lists the UCR
// datasets (default GunPoint,ECG200,ItalyPowerDemand), SOFTSHAPE_BATCH_R the
// R values in the order measured (default 1,10; 1 is one run at a time),
// SOFTSHAPE_BATCH_SEEDS the seeds (default 1,2), SOFTSHAPE_BATCH_ROUNDS the
// rounds (default 1), SOFTSHAPE_BATCH_PROTOCOL the protocol preset (default
// "default"; e.g. reference_fresh, the reproduction's), SOFTSHAPE_BATCH_RUN_AXIS
// the run-axis modes (softshape.RunOptions.RunAxis) measured for each R > 1
// (default auto, the backend's default; e.g. off,on: the runs each alone at
// the same time, then on a run axis). Each measurement is written to stderr
// as it is taken. Run with -benchtime 1x: one iteration is the whole
// comparison:
//
//	GOEXPERIMENT=simd go test -run '^$' -bench TrainRunsProtocol -benchtime 1x ./experiments/timing/
func BenchmarkTrainRunsProtocol(b *testing.B) {
	epochs := benchenv.Int(b, "SOFTSHAPE_BATCH_EPOCHS", 10)
	rounds := benchenv.Int(b, "SOFTSHAPE_BATCH_ROUNDS", 1)
	names := strings.Split(benchenv.Or("SOFTSHAPE_BATCH_DATASETS", "GunPoint,ECG200,ItalyPowerDemand"), ",")
	rs := benchenv.List(b, "SOFTSHAPE_BATCH_R", "1,10", benchenv.Count)
	seeds := benchenv.List(b, "SOFTSHAPE_BATCH_SEEDS", "1,2", func(f string) (int64, error) {
		seed, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a seed", f)
		}
		return seed, nil
	})
	if v := os.Getenv("SOFTSHAPE_BATCH_STOPPED"); v != "" {
		b.Fatalf("SOFTSHAPE_BATCH_STOPPED=%s: the stopped-runs policies are gone (they change nothing); SOFTSHAPE_BATCH_RUN_AXIS=on measures the run axis (was \"axis\"), off the runs alone", v)
	}
	axes := benchenv.List(b, "SOFTSHAPE_BATCH_RUN_AXIS", string(softshape.RunAxisAuto), softshape.ParseRunAxis)
	protocolName := benchenv.Or("SOFTSHAPE_BATCH_PROTOCOL", softshape.ProtocolDefault)
	cfg := softshape.DefaultConfig()
	protocol, err := softshape.Preset(protocolName)
	if err != nil {
		b.Fatalf("SOFTSHAPE_BATCH_PROTOCOL: %v", err)
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
			ds := ucrtest.Load(b, strings.TrimSpace(name))
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
