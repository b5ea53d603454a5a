package timing

import (
	"bytes"
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

	// 50% against 0% on a long series, steps alternated, at d=128, compared
	// in process CPU time (the wall time on a shared machine varies by 2×).
	// With moe_layers=all both run the MoE in every layer, so they differ
	// only in the tokens (≈20% less CPU for 50%).
	cfg := softshape.DefaultConfig()
	cfg.MoELayers = "all"
	comparePaired(t, Options{Batch: 8, Config: &cfg, DataRoot: ucrRoot(), Seed: 1}, 996, 0.5, 0.95, 4)
	// The authors' moe_layers=sparse: 0% merges nothing and so runs no MoE at
	// all, while 50% halves the last layer's tokens and adds the MoE there.
	// The multiply-adds then bound the saving at ≈14% (layer 0 never merges);
	// on pure Go, with routed experts, 50%'s fastest step took 3–6% less CPU
	// than 0%'s at T=3984 in four runs, cheaper in 3–5 of 5 alternated rounds
	// (before routing it was up to 18% more), and 90% ≈30% less. So: 50%
	// cheaper, in most rounds, and 90% clearly cheaper.
	authors := softshape.DefaultConfig()
	comparePaired(t, Options{Batch: 8, Config: &authors, DataRoot: ucrRoot(), Seed: 1}, 3984, 0.5, 1.0, 3)
	comparePaired(t, Options{Batch: 8, Config: &authors, DataRoot: ucrRoot(), Seed: 1}, 3984, 0.9, 0.85, 4)
}

// comparePaired times 0% against ratio r at length T over 5 alternated rounds
// and fails unless r's fastest step takes at most maxRatio of 0%'s (process
// CPU time, or wall time where there is none) and r is cheaper in at least
// minWins rounds.
func comparePaired(t *testing.T, opts Options, T int, r, maxRatio float64, minWins int) {
	t.Helper()
	p, err := CompareRatios(opts, T, 0, r, 5)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("T=%d, moe_layers=%s: wall 0%% %v, %.0f%% %v; CPU 0%% %v, %.0f%% %v; %.0f%% cheaper in %d of 5 rounds",
		T, opts.Config.MoELayers, p.StepsA, r*100, p.StepsB, p.CPUA, r*100, p.CPUB, r*100, p.Wins)
	a, b := p.MinCPUA, p.MinCPUB
	if a == 0 { // no CPU clock on this system
		a, b = p.MinA, p.MinB
	}
	if float64(b) > maxRatio*float64(a) || p.Wins < minWins {
		t.Errorf("T=%d, moe_layers=%s: %.0f%% sparse takes %v against %v for 0%% (%.2f×, at most %.2f× expected), cheaper in %d of 5 rounds (at least %d expected)",
			T, opts.Config.MoELayers, r*100, b, a, float64(b)/float64(a), maxRatio, p.Wins, minWins)
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
