package reproduce

import (
	"context"
	"github.com/softshape-go/softshape/softshape"
	"os"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/experiments/pipeline"
	"github.com/softshape-go/softshape/experiments/sweep"
)

// tinySettings keep every training run to a few seconds on two cores.
const tinySettings = "epochs=2;warmup_epochs=1;embed_dim=16;patience=0"

func tinyParams(t *testing.T) Params {
	t.Helper()
	p := DefaultParams()
	p.Results = t.TempDir()
	p.Datasets = []string{data.CBFName}
	p.Folds = []int{1}
	p.Settings = tinySettings
	p.Log = testWriter{t}
	p, err := p.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

func TestTableTrainsThenRerendersFromStore(t *testing.T) {
	p := tinyParams(t)
	p.Variants = []string{"0%", "50%"}
	ctx := context.Background()
	r1, err := Table(ctx, "sparse_ratio", p)
	if err != nil {
		t.Fatal(err)
	}
	if r1.Trained != 2 || len(r1.Table.Missing) != 0 {
		t.Fatalf("first call: trained %d, missing %v; want 2 trained, none missing", r1.Trained, r1.Table.Missing)
	}
	md := r1.Markdown()
	for _, want := range []string{sweep.QuickLabel, data.CBFName, "trained 2 now"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	r2, err := Table(ctx, "sparse_ratio", p)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Trained != 0 || r2.Report.Ran != 0 {
		t.Fatalf("second call trained %d (ran %d); want nothing", r2.Trained, r2.Report.Ran)
	}
	if !strings.Contains(r2.Markdown(), "nothing trained, re-rendered from the stored records") {
		t.Errorf("second markdown does not say it re-rendered:\n%s", r2.Markdown())
	}
	figs := r2.Figures()
	if len(figs) == 0 || figs[0].Name != "sparse_ratio_sweep" || figs[0].Err != nil {
		t.Fatalf("figures: %+v", figs)
	}
	if png, err := figs[0].Figure.PNG(figs[0].Figure.Size()); err != nil || len(png) < 1000 {
		t.Fatalf("sweep PNG: %d bytes, %v", len(png), err)
	}
	// Blocked variants of another table are listed, never run.
	p.Variants = nil
	g, err := NewGrid("shape_length_m", p)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Blocked()) == 0 {
		t.Log("shape_length_m has no blocked variant any more (Multi-Seq implemented?)")
	}
}

func TestTableListsMissingWhenNotTraining(t *testing.T) {
	p := tinyParams(t)
	p.TrainMissing = false
	p.Variants = []string{"k=1", "k=2"}
	r, err := Table(context.Background(), "experts_k", p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Trained != 0 || len(r.NotTrained) != 2 || len(r.Table.Missing) != 2 {
		t.Fatalf("trained %d, not trained %d, missing %d; want 0, 2, 2", r.Trained, len(r.NotTrained), len(r.Table.Missing))
	}
	md := r.Markdown()
	if !strings.Contains(md, "2 runs not trained") || !strings.Contains(md, "k=2") {
		t.Errorf("markdown does not list the untrained runs:\n%s", md)
	}
	for _, n := range r.Figures() {
		if n.Figure == nil && n.Err == nil {
			t.Errorf("figure %s: neither figure nor reason", n.Name)
		}
	}
}

func TestParamsFromEnv(t *testing.T) {
	t.Setenv(EnvQuick, "0")
	t.Setenv(EnvDatasets, "GunPoint, ItalyPowerDemand")
	t.Setenv(EnvFolds, "1-2,4")
	t.Setenv(EnvSeeds, "1,2")
	t.Setenv(EnvResults, "/tmp/r")
	t.Setenv(EnvData, "/tmp/d")
	t.Setenv(EnvTrainMissing, "false")
	t.Setenv(EnvSettings, "epochs=3")
	t.Setenv(EnvBackend, "go")
	p, err := ParamsFromEnv(Params{Quick: true, Settings: "embed_dim=8", TrainMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Quick || p.TrainMissing || p.Results != "/tmp/r" || p.DataRoot != "/tmp/d" || p.BackendName != "go" ||
		strings.Join(p.Datasets, ",") != "GunPoint,ItalyPowerDemand" || len(p.Folds) != 3 || p.Folds[2] != 4 ||
		len(p.Seeds) != 2 || p.Settings != "embed_dim=8;epochs=3" {
		t.Fatalf("got %+v", p)
	}
	t.Setenv(EnvFolds, "0-9")
	if _, err := ParamsFromEnv(Params{}); err == nil {
		t.Error("folds 0-9 accepted")
	}
	t.Setenv(EnvFolds, "")
	t.Setenv(EnvQuick, "maybe")
	if _, err := ParamsFromEnv(Params{}); err == nil {
		t.Error("SOFTSHAPE_QUICK=maybe accepted")
	}
}

func TestResolveFindsRepoAndData(t *testing.T) {
	t.Setenv("GONB_DIR", "")
	t.Setenv(EnvData, "")
	p, err := Params{}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	root := RepoRoot()
	if _, err := os.Stat(root + "/go.mod"); err != nil {
		t.Fatalf("RepoRoot %q has no go.mod", root)
	}
	if p.Results != root+"/results" || len(p.Seeds) != 1 {
		t.Fatalf("got %+v", p)
	}
	if p, _ = (Params{Execution: softshape.Execution{DataRoot: "/abs"}, Results: "out/r"}).Resolve(); p.Results != root+"/out/r" || p.DataRoot != "/abs" {
		t.Fatalf("relative folders: got %q, %q", p.Results, p.DataRoot)
	}
}

func TestTrainModelCachesAndDraws(t *testing.T) {
	p := tinyParams(t)
	m, err := TrainModel(p, data.CBFName, 1, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if m.Cached || m.Result.TestAcc <= 0 {
		t.Fatalf("first model: cached %v acc %v", m.Cached, m.Result.TestAcc)
	}
	m2, err := TrainModel(p, data.CBFName, 1, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !m2.Cached || m2.Result.TestAcc != m.Result.TestAcc {
		t.Fatalf("second model: cached %v acc %v vs %v", m2.Cached, m2.Result.TestAcc, m.Result.TestAcc)
	}
	acc, _, err := m2.Trained.Evaluate(m2.Data.TestX, m2.Data.TestY)
	if err != nil || acc != m.Result.TestAcc {
		t.Errorf("reloaded model accuracy %v (err %v), stored %v", acc, err, m.Result.TestAcc)
	}
	if _, err := m2.CurvesFigure(); err != nil {
		t.Error(err)
	}
	figs, err := m2.AttentionFigures(2)
	if err != nil || len(figs) != 2 || figs[0].Err != nil {
		t.Fatalf("attention: %v %+v", err, figs)
	}
	if _, err := m2.TSNEFigure(40); err != nil {
		t.Error(err)
	}
	if h := m2.PanelHTML(); !strings.Contains(h, "data:image/png;base64,") {
		t.Errorf("panel HTML has no image: %.200s", h)
	}
}

func TestCompatAndPValues(t *testing.T) {
	p := tinyParams(t)
	c, err := Compat(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Trained != 2 || len(c.Rows) != 1 {
		t.Fatalf("trained %d rows %d", c.Trained, len(c.Rows))
	}
	// The runs are sweep records of the main table's SoftShape, the ones
	// `softshape sweep -table main -variants SoftShape -set ...` writes.
	store, err := sweep.Open(p.Results)
	if err != nil {
		t.Fatal(err)
	}
	for _, on := range []string{"false", "true"} {
		q := p
		q.Variants, q.Settings = []string{"SoftShape"}, p.Settings+";reference_compat="+on
		g, err := NewGrid("main", q)
		if err != nil {
			t.Fatal(err)
		}
		if m := pipeline.Missing(store, g.Cells); len(g.Cells) != 1 || len(m) != 0 {
			t.Errorf("reference_compat=%s: %d cells, %d without a record in the store", on, len(g.Cells), len(m))
		}
	}
	c2, err := Compat(context.Background(), p)
	if err != nil || c2.Trained != 0 || c2.Rows[0].On != c.Rows[0].On {
		t.Fatalf("second compat: %v, trained %d", err, c2.Trained)
	}
	if f, err := c2.Figure(); err != nil || f == nil {
		t.Errorf("compat figure: %v", err)
	}
	if md := c2.Markdown(); !strings.Contains(md, "need at least 2 datasets") || !strings.Contains(md, sweep.QuickLabel) {
		t.Errorf("compat markdown:\n%s", md)
	}
	md, err := PValues("main", 3)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(md, "\n| ") < 4 || !strings.Contains(md, "half the two-sided paired t-test") {
		t.Errorf("p-value markdown:\n%s", md)
	}
	if _, err := PaperCDFigure("main"); err != nil {
		t.Error(err)
	}
}

func TestPairedTiming(t *testing.T) {
	p := tinyParams(t)
	p.Quick = true
	md, err := PairedTiming(p, 332, []float64{0, 0.5, 0.9}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Paired step timing at T = 332 (batch 8) — " + sweep.QuickLabel, "Sparse ratio 50% against 0%, T = 332",
		"Sparse ratio 90% against 0%, T = 332", "| 2 |", "of 2 rounds"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	if _, err := PairedTiming(p, 332, []float64{0.5}, 2); err == nil {
		t.Error("one ratio accepted")
	}
	if _, err := PairedTiming(p, 100, []float64{0, 0.5}, 2); err == nil || !strings.Contains(err.Error(), "T=100") {
		t.Errorf("T=100: %v", err)
	}
}

// TestModelConfigLayers: a notebook's settings go on top of
// $SOFTSHAPE_SETTINGS (Params.Settings), a setting in both taking the
// notebook's value, as notebook 03 does with TinySettings under
// run-headless.sh's epochs=4; a setting given twice in one layer is an
// error naming it.
func TestModelConfigLayers(t *testing.T) {
	p := Params{Quick: true, Settings: "epochs=4;warmup_epochs=2;embed_dim=32"}
	cfg, err := ModelConfig(p, TinySettings+";sparse_ratio=0.3")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Epochs != 8 || cfg.WarmUpEpochs != 4 || cfg.EmbedDim != 32 || cfg.SparseRatio != 0.3 {
		t.Errorf("epochs %d, warm-up %d, d %d, η %g; want 8, 4, 32, 0.3", cfg.Epochs, cfg.WarmUpEpochs, cfg.EmbedDim, cfg.SparseRatio)
	}
	p.Settings = "depth=2;depth=3"
	if _, err := ModelConfig(p, ""); err == nil || !strings.Contains(err.Error(), "depth is given twice") {
		t.Errorf("depth twice: %v", err)
	}
}
