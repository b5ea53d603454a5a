package softshape

import (
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/benchflags"
	"github.com/softshape-go/softshape/internal/hostinfo"
)

// The performance suite. Configuration of the authors' PyTorch timing (see
// docs/performance.md, "Speed, and what to compare it with"): T=500, m=16, q=4,
// d=128, C=2 (J=122 shapes; the sparse phase keeps 61 plus the fused one in
// layer 2). Reference on a 2-core CPU: ≈55 ms (dense) and ≈73 ms (sparse) per
// forward+backward with 2 threads; ≈16 ms per inference forward at batch 16.
//
// Every benchmark has one sub-benchmark per available backend, named by it: "go"
// (pure Go, go:parallelism=-1) always; "onnx" (ONNX Runtime, CPU) when built with
// -tags onnx and the library is found (scripts/install-onnxruntime.sh); and the
// backend $GOMLX_BACKEND names when it is another one (e.g. "xla"):
//
//	BenchmarkTrainStepDense/go, BenchmarkTrainStepSparse/onnx    batch 16 training step
//	BenchmarkInferenceDense/go, BenchmarkInferenceSparse/onnx    batch 16 inference
//	BenchmarkTrainStepBatch/64/sparse/go, .../512/dense/onnx     larger batches (512: the reference's full batch)
//	BenchmarkInferenceBatch/64/dense/go, ...
//	BenchmarkSweepThroughput/1run-all-cores, /2runs-shared, /2runs-1-thread   pure Go: one run on both cores vs two side by side
//
// Metrics: ns/op (one step or one inference batch), samples/s, and peak-MB, the
// process's peak resident memory (VmHWM) since the benchmark started (reset via
// /proc/self/clear_refs; it includes what the process already held, so for exact
// figures run one benchmark per process, e.g. -bench 'TrainStepDense/onnx$').
// Graph building and compilation (and two warm-up steps) are not timed.
// -benchmem adds Go heap allocations (ONNX Runtime's own memory is not in them).
//
//	GOEXPERIMENT=simd go test -run '^$' -bench 'TrainStep(Dense|Sparse)' -benchtime 20x ./softshape/
//	GOEXPERIMENT=simd go test -tags onnx -run '^$' -bench . -benchtime 20x ./softshape/

// benchBackend is one backend the suite runs on.
type benchBackend struct {
	name   string
	config string
}

var benchBackendCache sync.Map // config → compute.Backend

// benchBackends lists the backends available here (see the top of the file).
func benchBackends() []benchBackend {
	list := []benchBackend{{"go", backends.Default}}
	if backends.ONNXCompiledIn() && backends.FindONNXRuntime() != "" {
		list = append(list, benchBackend{"onnx", "onnx:cpu"})
	}
	if env := strings.TrimSpace(os.Getenv(compute.ConfigEnvVar)); env != "" && !strings.EqualFold(env, backends.Fastest) {
		name, _, _ := strings.Cut(env, ":")
		if name != "go" && !backends.IsONNXName(name) {
			list = append(list, benchBackend{name, env})
		}
	}
	return list
}

func (bb benchBackend) get(b *testing.B) compute.Backend {
	b.Helper()
	if v, ok := benchBackendCache.Load(bb.config); ok {
		return v.(compute.Backend)
	}
	backend, err := backends.New(bb.config)
	if err != nil {
		b.Fatal(err)
	}
	v, _ := benchBackendCache.LoadOrStore(bb.config, backend)
	return v.(compute.Backend)
}

// forEachBackend runs fn as one sub-benchmark per available backend.
func forEachBackend(b *testing.B, fn func(b *testing.B, backend compute.Backend)) {
	for _, bb := range benchBackends() {
		b.Run(bb.name, func(b *testing.B) { fn(b, bb.get(b)) })
	}
}

// benchSession builds the benchmark model on backend, one run of it
// (newRunJob), and a batch of batch series (two classes of sines).
func benchSession(b *testing.B, backend compute.Backend, batch int) (*job, [][]float32, []int) {
	b.Helper()
	cfg := DefaultConfig()
	cfg.ShapeLength, cfg.Stride = 16, "4"
	m, err := New(cfg, 500, 2, 0)
	if err != nil {
		b.Fatal(err)
	}
	sess, err := newRunJob(backend, m, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(sess.finalize)
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

// trainStepper returns a function running one training step on (x, y).
func trainStepper(b *testing.B, sess *job, x [][]float32, y []int, phase Phase) func() {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	return func() { runStep(b, sess, x, y, idx, phase) }
}

func benchTrainStep(b *testing.B, backend compute.Backend, phase Phase, batch int) {
	hostinfo.ResetPeakRSS()
	sess, x, y := benchSession(b, backend, batch)
	step := trainStepper(b, sess, x, y, phase)
	step() // graph build and compilation are not timed
	step()
	for b.Loop() {
		step()
	}
	reportPeak(b, batch)
}

func benchInference(b *testing.B, backend compute.Backend, phase Phase, batch int) {
	hostinfo.ResetPeakRSS()
	sess, x, y := benchSession(b, backend, batch)
	for range 2 { // compilation and warm-up are not timed
		if _, _, err := runScores(sess, x, y, phase); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, _, err := runScores(sess, x, y, phase); err != nil {
			b.Fatal(err)
		}
	}
	reportPeak(b, batch)
}

// reportPeak reports the peak resident set (MB) and the per-sample throughput.
func reportPeak(b *testing.B, batch int) {
	if kb := int(hostinfo.PeakRSS() >> 10); kb > 0 {
		b.ReportMetric(float64(kb)/1024, "peak-MB")
	}
	if sec := b.Elapsed().Seconds(); sec > 0 {
		b.ReportMetric(float64(b.N*batch)/sec, "samples/s")
	}
}

// BenchmarkTrainStepDense: one forward+backward+Adam step of the warm-up path, batch 16.
func BenchmarkTrainStepDense(b *testing.B) {
	forEachBackend(b, func(b *testing.B, be compute.Backend) { benchTrainStep(b, be, Dense, 16) })
}

// BenchmarkTrainStepSparse: one training step with sparsification (η=0.5) and the MoE, batch 16.
func BenchmarkTrainStepSparse(b *testing.B) {
	forEachBackend(b, func(b *testing.B, be compute.Backend) { benchTrainStep(b, be, Sparse, 16) })
}

// BenchmarkInferenceDense: one inference batch of 16 on the dense path.
func BenchmarkInferenceDense(b *testing.B) {
	forEachBackend(b, func(b *testing.B, be compute.Backend) { benchInference(b, be, Dense, 16) })
}

// BenchmarkInferenceSparse: one inference batch of 16 on the sparse path.
func BenchmarkInferenceSparse(b *testing.B) {
	forEachBackend(b, func(b *testing.B, be compute.Backend) { benchInference(b, be, Sparse, 16) })
}

// stepBatches gives the batch sizes of BenchmarkTrainStepBatch and
// BenchmarkInferenceBatch, a flag of the test binary: by default 64, and 512,
// the reference's full batch (batch_rule=large; ≈2.6 GB peak on pure Go,
// ≈3.5 GB on ONNX Runtime; several seconds per pure-Go step); -step-batches
// lists others, e.g. 160 (10 runs' batches of 16 side by side: what one step
// over a run axis would compute, to weigh against R steps of
// BenchmarkTrainStepSparse).
var stepBatches = benchflags.Counts("step-batches", "64,512", "batch sizes of BenchmarkTrainStepBatch and BenchmarkInferenceBatch")

// BenchmarkTrainStepBatch: training steps at batch 64 and 512 (or
// -step-batches), both phases.
func BenchmarkTrainStepBatch(b *testing.B) { benchLargeBatches(b, benchTrainStep) }

// BenchmarkInferenceBatch: inference at batch 64 and 512 (or
// -step-batches), both phases.
func BenchmarkInferenceBatch(b *testing.B) { benchLargeBatches(b, benchInference) }

// benchLargeBatches runs bench at each of stepBatches' sizes, in both
// phases, on every backend.
func benchLargeBatches(b *testing.B, bench func(b *testing.B, be compute.Backend, phase Phase, batch int)) {
	for _, batch := range stepBatches(b) {
		b.Run(strconv.Itoa(batch), func(b *testing.B) {
			for _, phase := range []Phase{Dense, Sparse} {
				b.Run(phase.String(), func(b *testing.B) {
					forEachBackend(b, func(b *testing.B, be compute.Backend) { bench(b, be, phase, batch) })
				})
			}
		})
	}
}

// BenchmarkSweepThroughput compares three ways of using the cores for a sweep
// of independent runs on the pure-Go backend (batch 16, sparse-phase steps,
// which are most of a paper-schedule run): "1run-all-cores" is one run on the
// default backend (go:parallelism=-1, all of GOMAXPROCS); "2runs-shared" is two
// runs side by side sharing that one backend (what `sweep -workers 2` does);
// "2runs-1-thread" is two runs side by side, each on its own backend with
// go:parallelism=0 (every op single-threaded). One op is one step of each run;
// samples/s counts the samples of all runs. The parent logs the best. (ONNX
// Runtime serialises runs within a process: compare separate processes there.)
func BenchmarkSweepThroughput(b *testing.B) {
	rate := map[string]float64{}
	sweep := func(name, config string, runs int, own bool) {
		b.Run(name, func(b *testing.B) {
			hostinfo.ResetPeakRSS()
			steps := make([]func(), runs)
			for r := range runs {
				backend := benchBackend{name: config, config: config}.get(b)
				if r > 0 && own {
					// Each run gets its own backend (its own worker pool).
					be, err := backends.New(config)
					if err != nil {
						b.Fatal(err)
					}
					backend = be
				}
				sess, x, y := benchSession(b, backend, 16)
				steps[r] = trainStepper(b, sess, x, y, Sparse)
				steps[r]()
				steps[r]()
			}
			var wg sync.WaitGroup
			for b.Loop() {
				for _, step := range steps {
					wg.Go(step)
				}
				wg.Wait()
			}
			reportPeak(b, 16*runs)
			rate[name] = float64(b.N*16*runs) / b.Elapsed().Seconds()
		})
	}
	names := []string{"1run-all-cores", "2runs-shared", "2runs-1-thread"}
	sweep(names[0], backends.Default, 1, false)
	sweep(names[1], backends.Default, 2, false)
	sweep(names[2], "go:parallelism=0", 2, true)
	best := ""
	for _, n := range names {
		if rate[n] > 0 && (best == "" || rate[n] > rate[best]) {
			best = n
		}
	}
	if best != "" && rate[names[0]] > 0 {
		b.Logf("sweep throughput (GOMAXPROCS=%d): %s %.1f, %s %.1f, %s %.1f samples/s: best %s (×%.2f of one run)",
			runtime.GOMAXPROCS(0), names[0], rate[names[0]], names[1], rate[names[1]], names[2], rate[names[2]], best, rate[best]/rate[names[0]])
	}
}
