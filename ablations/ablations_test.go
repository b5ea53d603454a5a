package ablations

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/tensortest"
	"github.com/softshape-go/softshape/paper"
	"github.com/softshape-go/softshape/softshape"
)

// testBackend returns the backend tests run on (tensortest.Backend).
func testBackend(t testing.TB) compute.Backend { return tensortest.Backend(t) }

// settingsDiff lists the "name=value" settings of cfg that differ from the default.
func settingsDiff(cfg softshape.Config) []string {
	def := strings.Split(softshape.DefaultConfig().String(), ";")
	var diff []string
	for i, s := range strings.Split(cfg.String(), ";") {
		if s != def[i] {
			diff = append(diff, s)
		}
	}
	return diff
}

// TestVariantsChangeExactlyTheirSetting: every implemented variant changes
// exactly the settings its column names, and nothing else.
func TestVariantsChangeExactlyTheirSetting(t *testing.T) {
	want := map[string]string{
		"SoftShape": "", "w/o Soft Sparse": "fused_token=false", "w/o Intra": "intra=false", "w/o Inter": "inter=false",
		"w/o Intra & Inter": "intra=false;inter=false", "with Linear Shape": "shape_embed=linear",
		"0%": "sparse_ratio=0", "10%": "sparse_ratio=0.1", "30%": "sparse_ratio=0.3", "50%": "", "70%": "sparse_ratio=0.7", "90%": "sparse_ratio=0.9",
		"k=1": "", "k=2": "experts_k=2", "k=3": "experts_k=3", "k=4": "experts_k=4",
		"q=1": "stride=1", "q=2": "stride=2", "q=3": "stride=3", "q=4": "", "q=m": "stride=m",
		"L=1": "depth=1", "L=2": "", "L=3": "depth=3", "L=4": "depth=4", "L=5": "depth=5", "L=6": "depth=6",
		"m=4": "shape_length=4", "Fixed-8": "shape_length=8", "m=16": "shape_length=16", "m=24": "shape_length=24",
		"m=32": "shape_length=32", "m=48": "shape_length=48", "m=64": "shape_length=64",
		"m=0.1T": "shape_length_ratio=0.1", "m=0.8T": "shape_length_ratio=0.8",
		"hatC=C/2": "num_experts=C/2", "hatC=C": "", "hatC=2C": "num_experts=2C",
		"lambda = 0.0001": "moe_loss_weight=0.0001", "lambda = 0.001": "", "lambda = 0.01": "moe_loss_weight=0.01",
		"lambda = 0.1": "moe_loss_weight=0.1", "lambda = 1": "moe_loss_weight=1", "lambda = 10": "moe_loss_weight=10",
		"lambda = 100":        "moe_loss_weight=100",
		"Original MoE expert": "", "Shared expert: Inception": "",
		"MoE expert: FCN": "moe_expert=fcn", "MoE expert: TSLANet (ICB)": "moe_expert=icb",
		"Shared expert: Transformer": "shared_expert=transformer", "Shared expert: MLP": "shared_expert=mlp",
		"Multi-Seq": "multi_seq=8,16,32",
	}
	seen := map[string]bool{}
	for _, v := range All() {
		if seen[v.Name] {
			t.Errorf("duplicate variant name %q", v.Name)
		}
		seen[v.Name] = true
		if v.Description == "" {
			t.Errorf("%s: no description", v.Name)
		}
		got, err := Lookup(v.Name)
		if err != nil || got.Name != v.Name {
			t.Errorf("Lookup(%q) = %q, %v", v.Name, got.Name, err)
		}
		if !v.Implemented() {
			t.Errorf("variant %q is not implemented", v.Name)
			continue
		}
		w, ok := want[v.Name]
		if !ok {
			t.Errorf("implemented variant %q has no expected setting in this test", v.Name)
			continue
		}
		cfg, err := v.Config(softshape.DefaultConfig())
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if got := strings.Join(settingsDiff(cfg), ";"); got != w {
			t.Errorf("%s changes %q, want %q", v.Name, got, w)
		}
		// Every implemented variant is a valid model on a 4-class dataset of length 150.
		if _, err := cfg.Resolve(150, 4, 16); err != nil {
			t.Errorf("%s: %v", v.Name, err)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%d variants, want %d", len(seen), len(want))
	}
	if _, err := Lookup("w/o Everything"); err == nil || !strings.Contains(err.Error(), `unknown variant "w/o Everything"`) {
		t.Errorf("unknown variant: %v", err)
	}
}

// TestForTableMatchesPaper: every table's columns are the paper's, the trained
// columns name existing variants, and only the tables with baselines have them.
func TestForTableMatchesPaper(t *testing.T) {
	wantBaselines := map[string][]string{
		"main":                  {"FCN", "T-Loss", "SelfTime", "TS-TCC", "TST", "TS2Vec", "TimesNet", "PatchTST", "GPT4TS", "RDST", "MR-H", "InceptionTime", "ShapeConv", "ModernTCN", "TSLANet", "UniTS", "Medformer"},
		"lightts_shapeformer":   {"LightTS", "Shapeformer"},
		"params_inference_time": {"MR-H", "InceptionTime", "TSLANet", "Medformer"},
	}
	names := TableNames()
	if len(names) != 13 {
		t.Errorf("%d tables: %v", len(names), names)
	}
	for _, name := range names {
		p, err := ForTable(name)
		if err != nil {
			t.Fatal(err)
		}
		var methods []string
		if pt, err := paper.PerDataset(name); err == nil {
			methods = pt.Methods
		} else {
			s, err := paper.Summary(name)
			if err != nil {
				t.Fatal(err)
			}
			methods = s.Methods
		}
		var cols, baselines []string
		for _, c := range p.Columns {
			cols = append(cols, c.Name)
			if c.Baseline() {
				baselines = append(baselines, c.Name)
			}
		}
		if !slices.Equal(cols, methods) {
			t.Errorf("%s: columns %q, paper %q", name, cols, methods)
		}
		if !slices.Equal(baselines, wantBaselines[name]) {
			t.Errorf("%s: baselines %q, want %q", name, baselines, wantBaselines[name])
		}
		if _, ok := p.Column(p.Default); !ok {
			t.Errorf("%s: default column %q missing", name, p.Default)
		}
		if _, ok := p.Column(p.Reference); !ok {
			t.Errorf("%s: reference column %q missing", name, p.Reference)
		}
		if len(p.Variants()) == 0 {
			t.Errorf("%s: no variants", name)
		}
	}
	// The sweep columns set the hyperparameter value the paper gives them.
	setting := map[string]func(softshape.Config) float64{
		"sparse_ratio": func(c softshape.Config) float64 { return c.SparseRatio },
		"experts_k":    func(c softshape.Config) float64 { return float64(c.ExpertsK) },
		"depth_L":      func(c softshape.Config) float64 { return float64(c.Depth) },
		"stride_q": func(c softshape.Config) float64 {
			if c.Stride == softshape.StrideAuto {
				return 4 // the authors' default q=4 (q=min(2,m) when m ≤ 4)
			}
			q, _ := strconv.Atoi(string(c.Stride))
			return float64(q)
		},
		"shape_length_m": func(c softshape.Config) float64 { return float64(c.ShapeLength) },
	}
	for table, get := range setting {
		pt, _ := paper.PerDataset(table)
		p, _ := ForTable(table)
		for j, m := range pt.Methods {
			c, _ := p.Column(m)
			v, ok := pt.Value(m)
			if !ok || c.Variant == "" {
				continue
			}
			vv, _ := Lookup(c.Variant)
			cfg, err := vv.Config(softshape.DefaultConfig())
			if err != nil || get(cfg) != v {
				t.Errorf("%s column %s (value %v): variant %s sets %v, %v", table, m, pt.Values[j], c.Variant, get(cfg), err)
			}
		}
	}
	if v, _ := Lookup("q=m"); true {
		if cfg, _ := v.Config(softshape.DefaultConfig()); cfg.Stride != "m" {
			t.Errorf("q=m sets stride %q", cfg.Stride)
		}
	}

	p, _ := ForTable("shape_length_m")
	vs := p.Variants()
	if len(vs) != 3 || vs[0].Name != DefaultName || vs[1].Name != FixedName || vs[2].Name != MultiSeqName {
		t.Errorf("shape_length_m variants %v, want the default (Val-Select), Fixed-8, Multi-Seq", vs)
	}
	if c, _ := p.Column(ValSelectName); c.Variant != DefaultName {
		t.Errorf("Val-Select column %+v, want the default configuration (the authors' per-dataset m)", c)
	}
	if p.Reference != MultiSeqName || p.Default != ValSelectName {
		t.Errorf("shape_length_m reference %q default %q", p.Reference, p.Default)
	}
	if p, _ := ForTable("sparse_ratio"); p.Reference != "0%" {
		t.Errorf("sparse_ratio reference %q, want the paper's 0%%", p.Reference)
	}
	if p, _ := ForTable("lambda"); p.Reference != "λ = 0.001" {
		t.Errorf("lambda reference %q, want the default column", p.Reference)
	}
	// The appendix studies of Ĉ and λ: the paper's labels as columns, the
	// variants (the names of their records in the sweep store) unchanged.
	for table, want := range map[string][][2]string{
		"num_experts": {{"Ĉ=C/2", "hatC=C/2"}, {"Ĉ=C", "hatC=C"}, {"Ĉ=2C", "hatC=2C"}},
		"lambda": {{"λ = 0.0001", "lambda = 0.0001"}, {"λ = 0.001", "lambda = 0.001"}, {"λ = 0.01", "lambda = 0.01"},
			{"λ = 0.1", "lambda = 0.1"}, {"λ = 1", "lambda = 1"}, {"λ = 10", "lambda = 10"}, {"λ = 100", "lambda = 100"}},
	} {
		p, err := ForTable(table)
		if err != nil {
			t.Fatal(err)
		}
		var got [][2]string
		for _, c := range p.Columns {
			got = append(got, [2]string{c.Name, c.Variant})
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s columns (label, variant) %v, want %v", table, got, want)
		}
	}
	if _, err := ForTable("nope"); err == nil {
		t.Error("unknown table accepted")
	}
}

// TestValSelectHandMade: the lowest finite validation loss wins, ties go to the
// earlier candidate, NaN and Inf are ignored.
func TestValSelectHandMade(t *testing.T) {
	fr := func(val, acc float64) softshape.FoldResult { return softshape.FoldResult{ValLoss: val, TestAcc: acc} }
	cases := []struct {
		in   []softshape.FoldResult
		want int
	}{
		{[]softshape.FoldResult{fr(0.5, 0.9), fr(0.3, 0.7), fr(0.4, 1)}, 1},
		{[]softshape.FoldResult{fr(math.NaN(), 1), fr(0.3, 0.7), fr(0.3, 0.8)}, 1},
		{[]softshape.FoldResult{fr(math.Inf(-1), 1), fr(2, 0.7)}, 1},
		{[]softshape.FoldResult{fr(0.1, 0.2)}, 0},
	}
	for i, c := range cases {
		if got, err := ValSelect(c.in); err != nil || got != c.want {
			t.Errorf("case %d: %d, %v; want %d", i, got, err, c.want)
		}
	}
	if _, err := ValSelect([]softshape.FoldResult{fr(math.NaN(), 1)}); !errors.Is(err, ErrNoCandidate) {
		t.Errorf("all NaN: %v", err)
	}
	if _, err := ValSelect(nil); !errors.Is(err, ErrNoCandidate) {
		t.Errorf("none: %v", err)
	}
}

// tiny is the small test schedule.
func tiny() softshape.Config {
	cfg := softshape.DefaultConfig()
	cfg.EmbedDim, cfg.Epochs, cfg.WarmUpEpochs = 16, 2, 1
	return cfg
}

// TestRunValSelect trains two candidates on a tiny dataset, skips one longer
// than the series, and keeps the lower validation loss.
func TestRunValSelect(t *testing.T) {
	ds := data.CBF(10, 64, 3)
	cands := []Variant{ValSelectCandidates()[0], ValSelectCandidates()[1], {
		Name: "m=100", Description: "too long", Apply: set(func(c *softshape.Config) { c.ShapeLength = 100 }),
	}}
	sel, err := RunValSelect(ds, tiny(), 1, softshape.RunOptions{Backend: testBackend(t), Seed: 5}, cands)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sel.Tried, []string{"m=4", FixedName}) || len(sel.Results) != 2 {
		t.Fatalf("tried %v", sel.Tried)
	}
	if err := sel.Skipped["m=100"]; err == nil || !strings.Contains(err.Error(), "longer than the series") {
		t.Errorf("m=100 not skipped for T=64: %v", err)
	}
	other := sel.Results[0]
	if sel.Chosen == "m=4" {
		other = sel.Results[1]
	}
	if sel.Result.ValLoss > other.ValLoss || sel.Result.Fold != 1 {
		t.Errorf("chose %s (val %.4f, fold %d) over val %.4f", sel.Chosen, sel.Result.ValLoss, sel.Result.Fold, other.ValLoss)
	}
}

// TestParameterCount reproduces the reference formula for the default model
// (C=2, T=150, m=16: 228371) and removes exactly the MoE for "w/o Intra"
// (128Ĉ + 33024Ĉ + 128 = 66432 parameters for Ĉ=2).
func TestParameterCount(t *testing.T) {
	b := testBackend(t)
	cfg := softshape.DefaultConfig()
	cfg.ShapeLength = 16
	full, err := VariantParameterCount(Table2()[0], cfg, 150, 2, 0, b)
	if err != nil || full != 228371 {
		t.Fatalf("SoftShape: %d, %v; want 228371", full, err)
	}
	noIntra, err := VariantParameterCount(Table2()[2], cfg, 150, 2, 0, b)
	if err != nil || noIntra != full-66432 {
		t.Errorf("w/o Intra: %d, %v; want %d", noIntra, err, full-66432)
	}
	// The appendix's shared-expert parameter counts differ by 422.5K − 179.5K
	// (Transformer) and 179.5K − 157.8K (MLP); ours by exactly 242,944 and 21,760.
	shared := SharedExpertNetwork()
	if n, err := VariantParameterCount(shared[0], cfg, 150, 2, 0, b); err != nil || n != full+242944 {
		t.Errorf("%s: %d, %v; want %d", shared[0].Name, n, err, full+242944)
	}
	if n, err := VariantParameterCount(shared[1], cfg, 150, 2, 0, b); err != nil || n != full-21760 {
		t.Errorf("%s: %d, %v; want %d", shared[1].Name, n, err, full-21760)
	}
	k3, _ := Lookup("k=3")
	if _, err := VariantParameterCount(k3, cfg, 150, 2, 0, b); err == nil || !strings.Contains(err.Error(), "experts_k=3") {
		t.Errorf("k=3 with Ĉ=2: %v", err)
	}
}

// TestParameterCountOfAShape: the count of a configuration at another data
// shape is the reference formula's (softshape's
// TestParameterCountMatchesReference), and a shape the model rejects is an
// error, not a panic.
func TestParameterCountOfAShape(t *testing.T) {
	backend := testBackend(t)
	cfg := softshape.DefaultConfig()
	cfg.ShapeLength = 16
	if n, err := ParameterCount(cfg, 500, 2, 0, backend); err != nil || n != 239635 {
		t.Errorf("ParameterCount(T=500, C=2, m=16) = %d, %v; want 239635", n, err)
	}
	cfg.ShapeLength = 64
	if _, err := ParameterCount(cfg, 8, 2, 0, backend); err == nil {
		t.Error("ParameterCount accepted a shape longer than the series")
	}
}
