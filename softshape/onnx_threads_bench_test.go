//go:build onnx && cgo

package softshape

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/benchflags"
	"github.com/softshape-go/softshape/internal/hostinfo"
)

// The settings of BenchmarkONNXThreads, flags of the test binary.
var (
	threadsEpochs = benchflags.Int("threads-epochs", 20, "epochs of BenchmarkONNXThreads, half of them warm-up")
	threadsRounds = benchflags.Int("threads-rounds", 2, "rounds of BenchmarkONNXThreads's arms")
	threadsArms   = benchflags.List("threads-arms", "1,0",
		"ONNX Runtime intra-op thread counts BenchmarkONNXThreads measures, in order (0: ORT's own default)", func(f string) (string, error) {
			if n, err := strconv.Atoi(f); err != nil || n < 0 {
				return "", fmt.Errorf("%q is not a thread count ≥ 0", f)
			}
			return f, nil
		})
	threadsCases = benchflags.String("threads-cases",
		"GunPoint/default ItalyPowerDemand/reference_fresh/depth=2 ItalyPowerDemand/reference_fresh/depth=4",
		`cases of BenchmarkONNXThreads, "dataset/protocol/settings" separated by spaces`)
)

// BenchmarkONNXThreads measures what ONNX Runtime's intra-op thread count
// does to whole training runs (backends.ONNXThreads): one fold of each case,
// -threads-epochs epochs (default 20, half of them warm-up), once
// per thread setting in -threads-arms (default "1,0"; 0 is ORT's
// own default, one spinning thread per physical core per session), the arms
// alternating over -threads-rounds rounds (default 2). Each arm
// starts a fresh model, hence fresh sessions, which take their thread count
// from $ORT_INTRA_OP_NUM_THREADS as it is then. It logs the wall and process
// CPU time of every arm and each arm's wall time against the first's. Cases
// (-threads-cases, "dataset/protocol/settings" separated by spaces):
// GunPoint under the default protocol, and ItalyPowerDemand under
// reference_fresh at depth 2 and 4 (batch 512, the reproduction's Table 6).
//
//	GOEXPERIMENT=simd go test -tags onnx -run '^$' -bench ONNXThreads -benchtime 1x ./softshape/
//
// Confine the process to the cores it should use (a cpuset cgroup, see
// environment.md "Pinning such processes") and keep other work off them.
func BenchmarkONNXThreads(b *testing.B) {
	epochs, rounds, arms := threadsEpochs(b), threadsRounds(b), threadsArms(b)
	cases := strings.Fields(threadsCases(b))
	backend, err := backends.New("onnx:cpu")
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv(backends.ONNXThreadsEnvVar, os.Getenv(backends.ONNXThreadsEnvVar)) // restored afterwards
	for range b.N {
		var out strings.Builder
		fmt.Fprintf(&out, "%-45s %7s %5s %9s %9s %8s %6s\n", "case", "threads", "round", "wall", "cpu", "vs first", "acc")
		for _, c := range cases {
			parts := strings.SplitN(c, "/", 3)
			ds := loadUCR(b, parts[0])
			cfg := DefaultConfig()
			if len(parts) > 1 {
				p, err := Preset(parts[1])
				if err != nil {
					b.Fatalf("-threads-cases %q: %v", c, err)
				}
				cfg = cfg.WithProtocol(p)
			}
			if len(parts) > 2 {
				if cfg, err = cfg.WithSettings(parts[2]); err != nil {
					b.Fatalf("-threads-cases %q: %v", c, err)
				}
			}
			cfg.Epochs, cfg.WarmUpEpochs = epochs, epochs/2
			first := map[int]time.Duration{}
			for r := range max(rounds, 1) {
				for i, arm := range arms {
					os.Setenv(backends.ONNXThreadsEnvVar, arm)
					cpu0, t0 := hostinfo.ProcessCPU(), time.Now()
					res, err := Train(ds, cfg, RunOptions{Execution: Execution{MaxRuns: 1}, Backend: backend, Seed: 42, Folds: []int{0},
						RefShapeLen: RefShapeLength(ds.Name, ds.Length)})
					if err != nil {
						b.Fatalf("%s, %s threads: %v", c, arm, err)
					}
					wall, cpu := time.Since(t0), hostinfo.ProcessCPU()-cpu0
					if i == 0 {
						first[r] = wall
					}
					line := fmt.Sprintf("%-45s %7s %5d %8.1fs %8.1fs %7.2f× %6.4f\n", c, arm, r+1, wall.Seconds(), cpu.Seconds(),
						first[r].Seconds()/wall.Seconds(), res.Folds[0].TestAcc)
					fmt.Fprint(os.Stderr, line)
					out.WriteString(line)
				}
			}
		}
		b.Logf("ONNX Runtime intra-op threads (0 = ORT's default), one fold, %d epochs; \"vs first\" = first arm's wall / this arm's, same round:\n%s", epochs, out.String())
	}
}
