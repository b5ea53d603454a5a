package softshape

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/train"
)

// Benchmarks at the configuration the authors' PyTorch code was timed at
// (reference notes §4): batch 16, T=500, m=16, q=4, d=128, C=2 (J=122 shapes; the
// sparse phase keeps 61 plus the fused one in layer 2). Reference on a 2-core CPU:
// ≈55 ms (dense) and ≈73 ms (sparse) per forward+backward with 2 threads; ≈16 ms
// per inference forward. Each benchmark also reports the process's peak resident
// memory (VmHWM) in MB.

func benchSession(b *testing.B, batch int) (*session, [][]float32, []int) {
	b.Helper()
	cfg := DefaultConfig()
	cfg.ShapeLength, cfg.Stride = 16, "4"
	m, err := New(cfg, 500, 2, 0)
	if err != nil {
		b.Fatal(err)
	}
	sess, err := newSession(testBackend(b), m, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	x := make([][]float32, batch)
	y := make([]int, batch)
	for i := range x {
		x[i] = make([]float32, 500)
		for t := range x[i] {
			x[i][t] = float32(math.Sin(float64(t*(i%2+1)) * 0.05))
		}
		y[i] = i % 2
	}
	return sess, x, y
}

func benchTrainStep(b *testing.B, phase Phase, batch int) {
	sess, x, y := benchSession(b, batch)
	idx := make([]int, batch)
	for i := range idx {
		idx[i] = i
	}
	step := func() {
		xt, yt := batchTensors(x, y, idx)
		metrics, err := sess.trainer.TrainStep(train.Batch{Inputs: []*tensors.Tensor{xt}, Labels: []*tensors.Tensor{yt}, Spec: phase})
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range metrics {
			m.FinalizeAll()
		}
	}
	step() // graph build and compilation are not timed
	step()
	b.ResetTimer()
	for range b.N {
		step()
	}
	b.StopTimer()
	reportPeak(b, batch)
}

func benchInference(b *testing.B, phase Phase, batch int) {
	sess, x, y := benchSession(b, batch)
	if _, _, err := sess.evaluate(x, y, phase); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, _, err := sess.evaluate(x, y, phase); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportPeak(b, batch)
}

// reportPeak reports the peak resident set (MB) and the per-sample throughput.
func reportPeak(b *testing.B, batch int) {
	if kb := vmHWM(); kb > 0 {
		b.ReportMetric(float64(kb)/1024, "peak-MB")
	}
	if sec := b.Elapsed().Seconds(); sec > 0 {
		b.ReportMetric(float64(b.N*batch)/sec, "samples/s")
	}
}

// vmHWM reads the process's peak resident set size in kB from /proc (0 elsewhere).
func vmHWM() int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb
		}
	}
	return 0
}

// BenchmarkTrainStepDense: one forward+backward+Adam step of the warm-up path.
func BenchmarkTrainStepDense(b *testing.B) { benchTrainStep(b, Dense, 16) }

// BenchmarkTrainStepSparse: one training step with sparsification (η=0.5) and the MoE.
func BenchmarkTrainStepSparse(b *testing.B) { benchTrainStep(b, Sparse, 16) }

// BenchmarkInferenceDense: one inference batch on the dense path.
func BenchmarkInferenceDense(b *testing.B) { benchInference(b, Dense, 16) }

// BenchmarkInferenceSparse: one inference batch on the sparse path.
func BenchmarkInferenceSparse(b *testing.B) { benchInference(b, Sparse, 16) }
