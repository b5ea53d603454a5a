package softshape

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/train"

	"github.com/softshape-go/softshape/softshape/internal/kernels"
)

// envInt reads an integer environment variable, def when unset.
func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		b.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// BenchmarkTrainRunsProtocol measures the protocol of 5 folds × the seeds one
// run at a time (Train) and batched (TrainRuns, R = 10 by default), in one
// process, and logs the table of FormatBatchTimings (wall, speed-up, peak
// memory per R). Its schedule is short by default (SOFTSHAPE_BATCH_EPOCHS=10:
// 5 dense + 5 sparse epochs); SOFTSHAPE_BATCH_EPOCHS=500 is the full protocol
// (150 warm-up epochs, early stopping). SOFTSHAPE_BATCH_DATASETS lists the UCR
// datasets (default GunPoint,ECG200,ItalyPowerDemand), SOFTSHAPE_BATCH_R the
// R values in the order measured (default 1,10; 1 is one run at a time),
// SOFTSHAPE_BATCH_SEEDS the seeds (default 1,2), SOFTSHAPE_BATCH_ROUNDS the
// rounds (default 1), SOFTSHAPE_BATCH_PROTOCOL the protocol preset (default
// "default"; e.g. reference_fresh, the reproduction's), SOFTSHAPE_BATCH_STOPPED
// the forms measured for each R > 1: stopped-runs policies of model copies
// and "axis", a run axis (RunOptions.RunAxis) (default leave; e.g.
// leave,ride,axis). Each measurement is written to stderr as it is taken. Run
// with -benchtime 1x: one iteration is the whole comparison.
func BenchmarkTrainRunsProtocol(b *testing.B) {
	epochs := envInt(b, "SOFTSHAPE_BATCH_EPOCHS", 10)
	rounds := envInt(b, "SOFTSHAPE_BATCH_ROUNDS", 1)
	names := strings.Split(envOr("SOFTSHAPE_BATCH_DATASETS", "GunPoint,ECG200,ItalyPowerDemand"), ",")
	rs := envList(b, "SOFTSHAPE_BATCH_R", "1,10", parseR)
	seeds := envList(b, "SOFTSHAPE_BATCH_SEEDS", "1,2", func(f string) (int64, error) {
		seed, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a seed", f)
		}
		return seed, nil
	})
	type form struct {
		stopped StoppedRuns
		axis    RunAxisMode // on for "axis", off for the copies' policies
	}
	policies := envList(b, "SOFTSHAPE_BATCH_STOPPED", string(StoppedRunsLeave), func(f string) (form, error) {
		if f == "axis" {
			return form{axis: RunAxisOn}, nil
		}
		p, err := ParseStoppedRuns(f)
		return form{stopped: p, axis: RunAxisOff}, err
	})
	protocolName := envOr("SOFTSHAPE_BATCH_PROTOCOL", ProtocolDefault)
	cfg := DefaultConfig()
	protocol, err := Preset(protocolName)
	if err != nil {
		b.Fatalf("SOFTSHAPE_BATCH_PROTOCOL: %v", err)
	}
	cfg = cfg.WithProtocol(protocol)
	cfg.Epochs = epochs
	if epochs < 500 {
		cfg.WarmUpEpochs = epochs / 2
	}
	backend := testBackend(b)
	for range b.N {
		var all []BatchTiming
		for _, name := range names {
			ds := loadUCR(b, strings.TrimSpace(name))
			var done []BatchTiming
			progress := func(t BatchTiming) {
				done = append(done, t)
				fmt.Fprintf(os.Stderr, "%s", FormatBatchTimings(done))
			}
			for range max(rounds, 1) {
				for pi, pol := range policies {
					arms := rs
					if pi > 0 { // R = 1 once per round
						arms = slices.DeleteFunc(slices.Clone(rs), func(r int) bool { return r == 1 })
					}
					opts := RunOptions{Backend: backend, RefShapeLen: RefShapeLength(ds.Name, ds.Length), StoppedRuns: pol.stopped, RunAxis: pol.axis}
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

// envList parses the comma-separated environment variable name (def when
// unset) with parse, each item trimmed; a bad item fails the benchmark.
func envList[T any](b *testing.B, name, def string, parse func(string) (T, error)) []T {
	var out []T
	for _, f := range strings.Split(envOr(name, def), ",") {
		v, err := parse(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		out = append(out, v)
	}
	return out
}

// parseR parses a number of runs per graph, R ≥ 1.
func parseR(f string) (int, error) {
	r, err := strconv.Atoi(f)
	if err != nil || r < 1 {
		return 0, fmt.Errorf("%q is not an R ≥ 1", f)
	}
	return r, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// BenchmarkBatchedStep times one training step of R GunPoint runs (batch 12,
// T=150, m=32) in one graph against R steps of separate sessions, after the
// graphs are compiled: the per-step cost without compilation. R is
// SOFTSHAPE_BATCH_R's largest value (default 10), so the protocol benchmark's
// "1,10" means R = 10 here too; the phase is sparse.
func BenchmarkBatchedStep(b *testing.B) {
	r := slices.Max(envList(b, "SOFTSHAPE_BATCH_R", "10", parseR))
	ds := loadUCR(b, "GunPoint")
	ref := RefShapeLength(ds.Name, ds.Length)
	cfg := DefaultConfig()
	cfg.WarmUpEpochs = 0
	backend := testBackend(b)
	var runs []RunSpec
	for f := range r {
		runs = append(runs, RunSpec{Config: cfg, Seed: int64(f / 5), Fold: f % 5})
	}
	chains, err := planChains(ds, runs, RunOptions{NumFolds: 5, RefShapeLen: ref})
	if err != nil {
		b.Fatal(err)
	}
	job, err := newBatchJob(backend, chains, ref)
	if err != nil {
		b.Fatal(err)
	}
	defer job.finalize()
	const bs = 12
	var parts []part
	mstart := time.Now()
	for si := range job.slots {
		parts = append(parts, part{si, Sparse})
		if err := job.materialize(si, Sparse, bs); err != nil {
			b.Fatal(err)
		}
	}
	fmt.Fprintf(os.Stderr, "R=%d: variables of %d runs initialised in %s\n", r, r, time.Since(mstart).Round(time.Millisecond))
	idx := make([]int, bs)
	for i := range idx {
		idx[i] = i
	}
	batchedStep := func() {
		exec, err := job.trainExec(parts)
		if err != nil {
			b.Fatal(err)
		}
		args := make([]any, 0, 2*r)
		for si := range job.slots {
			fd := job.slots[si].chain.fds[0]
			x, y := batchTensors(fd.TrainX, fd.TrainY, idx)
			args = append(args, x, y)
		}
		outs, err := exec.Call(args...)
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range outs {
			t.FinalizeAll()
		}
	}
	m, err := New(cfg, ds.Length, ds.NumClasses(), ref)
	if err != nil {
		b.Fatal(err)
	}
	var sessions []*session
	for i := range r {
		s, err := newSession(backend, m, int64(i), ref)
		if err != nil {
			b.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	fd := job.slots[0].chain.fds[0]
	soloSteps := func() {
		for _, s := range sessions {
			x, y := batchTensors(fd.TrainX, fd.TrainY, idx)
			metrics, err := s.trainer.TrainStep(train.Batch{Inputs: []*tensors.Tensor{x}, Labels: []*tensors.Tensor{y}, Spec: Sparse})
			if err != nil {
				b.Fatal(err)
			}
			for _, t := range metrics {
				t.FinalizeAll()
			}
		}
	}
	// Compile and warm up; the compilation times go to stderr as they are
	// measured (on XLA CUDA they dominate a short schedule).
	for i := range 3 {
		note := ""
		if i == 0 {
			note = ", compilation included"
		}
		start := time.Now()
		batchedStep()
		fmt.Fprintf(os.Stderr, "R=%d: batched step %d%s: %s\n", r, i+1, note, time.Since(start).Round(time.Millisecond))
		start = time.Now()
		soloSteps()
		fmt.Fprintf(os.Stderr, "R=%d: %d single-run steps, pass %d%s: %s\n", r, r, i+1, note, time.Since(start).Round(time.Millisecond))
	}
	var tb, ts time.Duration
	for range b.N {
		start := time.Now()
		batchedStep()
		tb += time.Since(start)
		start = time.Now()
		soloSteps()
		ts += time.Since(start)
	}
	b.ReportMetric(float64(tb.Microseconds())/float64(b.N)/1000, "ms/batched-step")
	b.ReportMetric(float64(ts.Microseconds())/float64(b.N)/1000, "ms/R-solo-steps")
	b.ReportMetric(ts.Seconds()/tb.Seconds(), "speedup")
}

// BenchmarkRunAxisProduct weighs the two ways to put R runs in one graph on
// the model's most common operation, a token × weight product with its
// gradients (forward, dx and dw; R = 10, 360 tokens = batch 12 × 30 shapes,
// 128 → 128 features, float32): "per-run" is R rank-2 products (MatMul2D), the
// form TrainRuns builds with one model copy per run; "run-axis" is one product
// over a leading run axis (Einsum "rti,rio->rto"), the form a model with a
// leading run axis on every variable would build. Run on ONNX Runtime with
// `go test -tags onnx` and GOMLX_BACKEND=onnx:cpu; on pure Go by default.
func BenchmarkRunAxisProduct(b *testing.B) {
	const r, tokens, in, out = 10, 360, 128, 128
	backend := testBackend(b)
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(dims ...int) *tensors.Tensor {
		n := 1
		for _, d := range dims {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return tensors.FromFlatDataAndDimensions(v, dims...)
	}
	x, w := fill(r, tokens, in), fill(r, in, out)
	forms := []struct {
		name string
		fn   func(x, w *graph.Node) []*graph.Node
	}{
		{"per-run", func(x, w *graph.Node) []*graph.Node {
			var loss *graph.Node
			var xs, ws []*graph.Node
			for i := range r {
				xi := graph.Squeeze(graph.Slice(x, graph.AxisElem(i)), 0)
				wi := graph.Squeeze(graph.Slice(w, graph.AxisElem(i)), 0)
				s := graph.ReduceAllSum(graph.Square(kernels.MatMul2D(xi, wi)))
				if loss == nil {
					loss = s
				} else {
					loss = graph.Add(loss, s)
				}
				xs, ws = append(xs, xi), append(ws, wi)
			}
			return append(graph.Gradient(loss, append(xs, ws...)...), loss)
		}},
		{"run-axis", func(x, w *graph.Node) []*graph.Node {
			loss := graph.ReduceAllSum(graph.Square(graph.Einsum("rti,rio->rto", x, w)))
			return append(graph.Gradient(loss, x, w), loss)
		}},
	}
	for _, f := range forms {
		b.Run(f.name, func(b *testing.B) {
			exec, err := graph.NewExec(backend, f.fn)
			if err != nil {
				b.Fatal(err)
			}
			call := func() {
				outs, err := exec.Call(x, w)
				if err != nil {
					b.Fatal(err)
				}
				for _, t := range outs {
					t.FinalizeAll()
				}
			}
			call() // compile
			b.ResetTimer()
			for range b.N {
				call()
			}
		})
	}
}
