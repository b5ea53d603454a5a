package softshape

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/softshape-go/softshape/internal/benchflags"
	"github.com/softshape-go/softshape/internal/kernels"
)

// batchR is BenchmarkBatchedStep's R, a flag of the test binary.
var batchR = benchflags.Counts("batch-r", "10", "runs in one graph R of BenchmarkBatchedStep: the largest of the list (1,10 is 10, as given to experiments/timing)")

// BenchmarkBatchedStep times one training step of R GunPoint runs (batch 12,
// T=150, m=32) in one graph, on a run axis, against R steps of separate runs, after the
// graphs are compiled: the per-step cost without compilation. R is
// -batch-r's largest value (default 10), so the "1,10" of
// experiments/timing's BenchmarkTrainRunsProtocol means R = 10 here too; the
// phase is sparse.
func BenchmarkBatchedStep(b *testing.B) {
	r := slices.Max(batchR(b))
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
	batched, err := newJob(backend, chains, ref)
	if err != nil {
		b.Fatal(err)
	}
	defer batched.finalize()
	const bs = 12
	mstart := time.Now()
	if err := batched.materialize(Sparse, bs); err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "R=%d: variables of %d runs initialised in %s\n", r, r, time.Since(mstart).Round(time.Millisecond))
	idx := make([]int, bs)
	for i := range idx {
		idx[i] = i
	}
	rows := make([]int, r)
	active := make([]float32, r)
	for si := range rows {
		rows[si], active[si] = bs, 1
	}
	batchedStep := func() {
		exec, err := batched.trainExec(Sparse, rows, bs)
		if err != nil {
			b.Fatal(err)
		}
		x, y, _ := packBatch(batched.m.Shape.SeriesLen, rows, func(si int) ([][]float32, []int, []int) {
			fd := batched.chains[si].fds[0]
			return fd.TrainX, fd.TrainY, idx
		})
		at := tensors.FromFlatDataAndDimensions(active, r)
		outs, err := exec.Call(x, y, at)
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range append(outs, x, y, at) {
			t.FinalizeAll()
		}
	}
	m, err := New(cfg, ds.Length, ds.NumClasses(), ref)
	if err != nil {
		b.Fatal(err)
	}
	var solos []*job
	for i := range r {
		s, err := newRunJob(backend, m, int64(i), ref)
		if err != nil {
			b.Fatal(err)
		}
		defer s.finalize()
		solos = append(solos, s)
	}
	fd := batched.chains[0].fds[0]
	soloSteps := func() {
		for _, s := range solos {
			runStep(b, s, fd.TrainX, fd.TrainY, idx, Sparse)
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
// form R runs alone build; "run-axis" is one product
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
