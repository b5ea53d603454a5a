package timing

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/softshape-go/softshape/softshape"
)

func ucrRoot() string {
	shared := os.Getenv("SOFTSHAPE_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "..", "..", "shared")
	}
	return filepath.Join(shared, "ucr")
}

func smallConfig() *softshape.Config {
	cfg := softshape.DefaultConfig()
	cfg.EmbedDim = 32
	return &cfg
}

func TestLinearFit(t *testing.T) {
	f := LinearFit("x", []float64{1, 2, 3, 4}, []float64{3, 5, 7, 9})
	if math.Abs(f.Slope-2) > 1e-12 || math.Abs(f.Intercept-1) > 1e-12 || math.Abs(f.R2-1) > 1e-12 || f.N != 4 {
		t.Errorf("fit %+v, want 1 + 2x with R² = 1", f)
	}
	if f := LinearFit("x", []float64{1}, []float64{1}); !math.IsNaN(f.Slope) {
		t.Errorf("one point: %+v", f)
	}
}

func TestConcatBatch(t *testing.T) {
	base := [][]float64{make([]float64, BaseLength), make([]float64, BaseLength), make([]float64, BaseLength)}
	for i := range base {
		for j := range base[i] {
			base[i][j] = float64(i)
		}
	}
	x, y := concatBatch(base, []int{0, 1, 2}, 2, 2)
	if got := x.Shape().Dimensions; got[0] != 2 || got[1] != 2*BaseLength {
		t.Fatalf("shape %v", got)
	}
	flat := x.Value().([][]float32)
	// Row 1 concatenates base series 2 and 0 (cycling), labelled by series 2.
	if flat[0][0] != 0 || flat[0][BaseLength] != 1 || flat[1][0] != 2 || flat[1][BaseLength] != 0 {
		t.Errorf("rows start %v %v %v %v", flat[0][0], flat[0][BaseLength], flat[1][0], flat[1][BaseLength])
	}
	if lab := y.Value().([][]int32); lab[0][0] != 0 || lab[1][0] != 2 {
		t.Errorf("labels %v", lab)
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, o := range []Options{{Lengths: []int{100}}, {Ratios: []float64{1}}, {Batch: -1}, {Ratios: []float64{}, NoDense: true}} {
		if _, err := Measure(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestScaling measures small sizes and checks the two properties of paper
// Fig 3: the time per step grows linearly with the series length, and
// fusing 50% of the shapes makes a step on long series cheaper than fusing
// none. Skipped with -short (about a minute on 2 cores).
func TestScaling(t *testing.T) {
	if testing.Short() {
		t.Skip("timing measurements are skipped with -short")
	}
	var log bytes.Buffer
	opts := Options{Lengths: []int{166, 498, 830, 1162}, Ratios: []float64{0.5}, Batch: 8, Steps: 7, Config: smallConfig(),
		DataRoot: ucrRoot(), Seed: 1, Log: &log}
	res, err := Measure(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", log.String())
	if len(res.Points) != 8 || len(res.Fits) != 2 || res.ShapeLen != 64 || res.Stride != 4 {
		t.Fatalf("%d points, %d fits, m=%d q=%d", len(res.Points), len(res.Fits), res.ShapeLen, res.Stride)
	}
	for _, label := range res.Labels() {
		var xs, ys []float64
		for _, p := range res.Points {
			if p.Label() == label {
				xs, ys = append(xs, float64(p.Length)), append(ys, p.CPU.Seconds())
				if p.CPU == 0 { // no CPU clock on this system
					ys[len(ys)-1] = p.Min.Seconds()
				}
			}
		}
		f := LinearFit(label, xs, ys)
		t.Logf("%s: %.1f ms + %.3f ms/step·T, R² %.4f", label, f.Intercept*1e3, f.Slope*1e3, f.R2)
		// Four points timed on a shared 2-core machine: R² is a loose check (it
		// was 0.89–0.999 across runs; with 3 steps per point, CI running
		// another package beside it once gave 0.78, so each point is the
		// median of 7 steps); the ratio below is the one that tells
		// linear from quadratic cost.
		if f.Slope <= 0 || f.R2 < 0.8 {
			t.Errorf("%s: time per step vs T not linear: slope %g, R² %.4f", label, f.Slope, f.R2)
		}
		// Linear, not quadratic: 7× the length costs well under 7²/2 times as much.
		if ratio := ys[len(ys)-1] / ys[0]; ratio > 20 {
			t.Errorf("%s: T ×7 costs ×%.1f", label, ratio)
		}
	}
	var md, csv bytes.Buffer
	if err := res.Markdown(&md); err != nil || !strings.Contains(md.String(), "| 1162 | sparse | 50% | 275 | 138 | 27444 |") {
		t.Errorf("markdown (%v):\n%s", err, md.String())
	}
	if err := res.CSV(&csv); err != nil || strings.Count(csv.String(), "\n") != 9 {
		t.Errorf("csv (%v):\n%s", err, csv.String())
	}
	if s := res.Series(true); len(s) != 2 || len(s["sparse 50%"]) != 4 {
		t.Errorf("series %v", s)
	}

	// 50% against 0% on a long series, steps alternated, compared round by
	// round in process CPU time (the wall time on a shared machine varies by
	// 2×). With moe_layers=all both run the MoE in every layer, so they differ
	// only in the tokens: ≈16–20% less CPU for 50%.
	cfg := softshape.DefaultConfig()
	cfg.MoELayers = "all"
	comparePaired(t, Options{Batch: 8, Config: &cfg, DataRoot: ucrRoot(), Seed: 1}, 996, 0.5, 11, 0.95, 0.01)
	// The authors' moe_layers=sparse: 0% merges nothing and so runs no MoE at
	// all, while 50% halves the last layer's tokens and adds the MoE there.
	// The multiply-adds bound the saving at ≈14% (layer 0 never merges). On
	// pure Go the median round measured 2–5% less CPU at T=3984 (before the
	// routed experts it was up to 18% more); rounds vary by ±7% on a quiet
	// machine and ±13% beside another test process, so this check asks only
	// that 50% not cost more, and TestONNXScaling (ONNX Runtime, 9–11% less)
	// asks for a significant saving. 90% saves ≈30% on both. 21 rounds: with
	// 11 the median ranged 0.917–0.995 over nine runs, too near the bound.
	authors := softshape.DefaultConfig()
	comparePaired(t, Options{Batch: 8, Config: &authors, DataRoot: ucrRoot(), Seed: 1}, 3984, 0.5, 21, 1.02, 1)
	comparePaired(t, Options{Batch: 8, Config: &authors, DataRoot: ucrRoot(), Seed: 1}, 3984, 0.9, 7, 0.85, 0.05)
}

// comparePaired times 0% against ratio r at length T over alternated rounds
// and fails unless the median round's cost ratio r/0% is at most maxMedian
// and the one-sided Wilcoxon p-value of "r is cheaper" is at most maxP
// (process CPU time, or wall time where there is none).
func comparePaired(t *testing.T, opts Options, T int, r float64, rounds int, maxMedian, maxP float64) {
	t.Helper()
	p, err := CompareRatios(opts, T, 0, r, rounds)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Ratios) != rounds || p.Backend == "" {
		t.Fatalf("%d ratios for %d rounds, backend %q", len(p.Ratios), rounds, p.Backend)
	}
	what := fmt.Sprintf("T=%d, moe_layers=%s, %s, %.0f%% vs 0%%", T, opts.Config.MoELayers, p.Backend, r*100)
	t.Logf("%s: wall 0%% %v, %.0f%% %v; CPU 0%% %v, %.0f%% %v; ratios %.3f: median %.3f, cheaper in %d of %d rounds, Wilcoxon p %.4f",
		what, p.StepsA, r*100, p.StepsB, p.CPUA, r*100, p.CPUB, p.Ratios, p.MedianRatio, p.Wins, rounds, p.PValue)
	if p.MedianRatio > maxMedian || p.PValue > maxP {
		t.Errorf("%s: the median round costs %.3f× (at most %.2f× expected), cheaper in %d of %d rounds, Wilcoxon p %.4f (at most %g expected)",
			what, p.MedianRatio, maxMedian, p.Wins, rounds, p.PValue, maxP)
	}
}

func TestPairedMarkdown(t *testing.T) {
	p := &Paired{Backend: "go", Length: 332, RatioA: 0, RatioB: 0.5,
		StepsA: []time.Duration{10 * time.Millisecond, 12 * time.Millisecond}, StepsB: []time.Duration{9 * time.Millisecond, 13 * time.Millisecond},
		CPUA: []time.Duration{20 * time.Millisecond, 20 * time.Millisecond}, CPUB: []time.Duration{18 * time.Millisecond, 21 * time.Millisecond},
		Ratios: []float64{0.9, 1.05}}
	p.MedianRatio, p.Wins, p.PValue = compareRounds(p.Ratios)
	var md bytes.Buffer
	if err := p.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Sparse ratio 50% against 0%, T = 332, go", "| 1 | 10.0 | 9.0 | 20.0 | 18.0 | 0.900 |", "| 2 | 12.0 | 13.0 | 20.0 | 21.0 | 1.050 |",
		"50% costs 0.975× 0%; cheaper in 1 of 2 rounds"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("no %q in\n%s", want, md.String())
		}
	}
}

func TestCompareRounds(t *testing.T) {
	// Logs -0.105, -0.223, +0.095, -0.357, -0.051: the one positive
	// difference has rank 2, so R+ = 2; under the null, 3 of the 32 sign
	// patterns of ranks 1..5 have R+ ≤ 2 ({}, {1}, {2}): p = 3/32.
	med, wins, p := compareRounds([]float64{0.9, 0.8, 1.1, 0.7, 0.95})
	if med != 0.9 || wins != 4 || math.Abs(p-3.0/32) > 1e-12 {
		t.Errorf("median %v, wins %d, p %v; want 0.9, 4, 3/32", med, wins, p)
	}
	// All five cheaper: only the all-negative pattern is as extreme, 1/32.
	if med, wins, p := compareRounds([]float64{0.9, 0.8, 0.85, 0.7, 0.95, 0.75}[:5]); med != 0.85 || wins != 5 || math.Abs(p-1.0/32) > 1e-12 {
		t.Errorf("median %v, wins %d, p %v; want 0.85, 5, 1/32", med, wins, p)
	}
	// Even count: the mean of the middle two; one round: p = 1.
	if med, _, _ := compareRounds([]float64{1.2, 0.8, 1.0, 0.9}); math.Abs(med-0.95) > 1e-12 {
		t.Errorf("median of 4: %v, want 0.95", med)
	}
	if _, _, p := compareRounds([]float64{0.5}); p != 1 {
		t.Errorf("one round: p %v, want 1", p)
	}
}

func TestParamsInference(t *testing.T) {
	if testing.Short() {
		t.Skip("timing measurements are skipped with -short")
	}
	rows, err := ParamsInference([]string{"HouseTwenty"}, ucrRoot(), *smallConfig(), nil, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.SeriesLen != 2000 || r.NumClasses != 2 || r.TestSeries != 32 || r.ShapeLen != 8 || r.NumShapes != 499 || r.Params <= 0 ||
		r.Inference <= 0 || r.Inference > time.Minute {
		t.Errorf("row %+v", r)
	}
	var md bytes.Buffer
	if err := ParamsMarkdown(&md, rows, "test"); err != nil || !strings.Contains(md.String(), "| HouseTwenty | 2000 | 2 | 8 | 4 | 499 |") {
		t.Errorf("markdown (%v):\n%s", err, md.String())
	}
}
