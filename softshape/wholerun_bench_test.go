package softshape

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/internal/benchflags"
	"github.com/softshape-go/softshape/internal/hostinfo"
)

// The settings of BenchmarkWholeRun, flags of the test binary.
var (
	wholerunDatasets = benchflags.Names("wholerun-datasets", "MiddlePhalanxTW,ArrowHead",
		"UCR datasets of BenchmarkWholeRun, bundled or under the shared data folder")
	wholerunEpochs = benchflags.Int("wholerun-epochs", 20,
		"epochs of BenchmarkWholeRun, the first half dense warm-up (500: the full protocol, 150 warm-up epochs, early stopping)")
	wholerunProtocol = benchflags.String("wholerun-protocol", ProtocolReferenceFresh, "protocol preset of BenchmarkWholeRun")
	wholerunRounds   = benchflags.Int("wholerun-rounds", 2, "rounds of BenchmarkWholeRun's arms")
	wholerunFolds    = benchflags.Int("wholerun-folds", ProtocolFolds, "folds of BenchmarkWholeRun, the first ones")
	wholerunArms     = benchflags.List("wholerun-arms", "plain,fast", "arms of BenchmarkWholeRun, in order: plain graphs, speed forms", func(f string) (bool, error) {
		switch f {
		case "plain":
			return true, nil
		case "fast":
			return false, nil
		}
		return false, fmt.Errorf("%q: want plain or fast", f)
	})
)

// BenchmarkWholeRun times whole training runs, every fold of the protocol,
// with the model's plain graphs and with its speed forms (RunOptions.Fast),
// the two arms alternating in one process so that their ratio survives a
// loaded machine. Per dataset and round it logs each arm's wall and process
// CPU time, the mean test accuracy, the epochs trained over all folds (early
// stopping can end the arms' folds at different epochs), and the ratios
// fast/plain of both times and of the CPU time per epoch.
//
// Settings (flags of the test binary): -wholerun-datasets (default
// MiddlePhalanxTW,ArrowHead; UCR names, bundled or under the shared data
// folder), -wholerun-epochs (default 20, the first half dense
// warm-up; 500 is the full protocol with its 150 warm-up epochs and early
// stopping), -wholerun-protocol (default reference_fresh),
// -wholerun-rounds (default 2), -wholerun-folds (default
// 5, the first folds), -wholerun-arms (default "plain,fast").
// The backend is $GOMLX_BACKEND, else ONNX Runtime when compiled in and
// installed, else pure Go; ONNX Runtime gets one thread per CPU the process
// may use, so run it under taskset -c 0 for the one-core figures:
//
//	eval "$(scripts/install-onnxruntime.sh)"
//	GOEXPERIMENT=simd taskset -c 0 go test -tags onnx -run '^$' -bench WholeRun -benchtime 1x ./softshape/ -args -wholerun-epochs=500
func BenchmarkWholeRun(b *testing.B) {
	names, epochs, rounds := wholerunDatasets(b), wholerunEpochs(b), wholerunRounds(b)
	numFolds, arms, protocol := wholerunFolds(b), wholerunArms(b), wholerunProtocol(b)
	p, err := Preset(protocol)
	if err != nil {
		b.Fatalf("-wholerun-protocol: %v", err)
	}
	bb := benchBackend{"env", strings.TrimSpace(os.Getenv(compute.ConfigEnvVar))}
	if bb.config == "" {
		bbs := benchBackends()
		bb = bbs[len(bbs)-1] // ONNX Runtime, else pure Go
	}
	backend := bb.get(b)
	folds := make([]int, min(numFolds, ProtocolFolds))
	for i := range folds {
		folds[i] = i
	}
	armName := func(plain bool) string {
		if plain {
			return "plain"
		}
		return "fast"
	}
	for range b.N {
		var out strings.Builder
		fmt.Fprintf(&out, "backend %s, %s, %d epochs, %d folds\n", backend.Description(), protocol, epochs, len(folds))
		fmt.Fprintf(&out, "%-18s %5s %6s %9s %9s %7s %6s %10s %10s %14s\n", "dataset", "round", "arm", "wall", "cpu", "acc", "epochs", "wall/first", "cpu/first", "cpu/ep./first")
		for _, name := range names {
			ds := loadUCR(b, name)
			cfg := DefaultConfig().WithProtocol(p)
			cfg.Epochs, cfg.WarmUpEpochs = epochs, min(epochs/2, DefaultConfig().WarmUpEpochs)
			for r := range max(rounds, 1) {
				var firstWall, firstCPU time.Duration
				var firstEpochs int
				for i, plain := range arms {
					cpu0, t0 := hostinfo.ProcessCPU(), time.Now()
					res, err := Train(ds, cfg, RunOptions{Execution: Execution{MaxRuns: 1, Fast: !plain}, Backend: backend, Seed: 42, Folds: folds,
						RefShapeLen: RefShapeLength(ds.Name, ds.Length)})
					if err != nil {
						b.Fatalf("%s, %s: %v", name, armName(plain), err)
					}
					wall, cpu := time.Since(t0), hostinfo.ProcessCPU()-cpu0
					epochs := 0 // early stopping can end the arms' folds at other epochs
					for _, f := range res.Folds {
						epochs += f.EpochsRun
					}
					if i == 0 {
						firstWall, firstCPU, firstEpochs = wall, cpu, epochs
					}
					perEpoch := cpu.Seconds() / float64(epochs) / (firstCPU.Seconds() / float64(firstEpochs))
					line := fmt.Sprintf("%-18s %5d %6s %8.1fs %8.1fs %7.4f %6d %9.3f× %9.3f× %13.3f×\n", name, r+1, armName(plain),
						wall.Seconds(), cpu.Seconds(), res.MeanAcc, epochs, wall.Seconds()/firstWall.Seconds(), cpu.Seconds()/firstCPU.Seconds(), perEpoch)
					fmt.Fprint(os.Stderr, line)
					out.WriteString(line)
				}
			}
		}
		b.Logf("whole runs, arms alternating; epochs: trained over all folds; wall/first, cpu/first and cpu/ep./first (CPU per epoch) are this arm's over the round's first arm's:\n%s", out.String())
	}
}
