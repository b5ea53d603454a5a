package softshape

import (
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"

	"github.com/gomlx/gomlx/ml/model"
)

// paramCount builds cfg for series length T and C classes and counts its
// trainable parameters.
func paramCount(t *testing.T, cfg Config, seriesLen, numClasses int) int {
	t.Helper()
	m, err := New(cfg, seriesLen, numClasses, 0)
	if err != nil {
		t.Fatal(err)
	}
	store := model.NewStore()
	cfg.Apply(store)
	buildAll(t, testBackend(t), m, store)
	return ParameterCount(store)
}

// TestSharedExpertParameterCounts: the appendix reports 422.5K (Transformer),
// 157.8K (MLP) and 179.5K (Inception) parameters for the shared-expert networks.
// Its base configuration is not stated, but the differences are: with d=128 and
// L=2, the Transformer encoder layer (d_ff = 4d) adds exactly 2·(198,272 −
// 76,800) = 242,944 parameters (422.5K − 179.5K = 243.0K) and the MLP
// (d→2d→d) removes 2·(76,800 − 65,920) = 21,760 (179.5K − 157.8K = 21.7K).
func TestSharedExpertParameterCounts(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ShapeLength = 16
	counts := map[SharedExpert]int{}
	for _, s := range []SharedExpert{SharedExpertInception, SharedExpertTransformer, SharedExpertMLP} {
		c := cfg
		c.SharedExpert = s
		counts[s] = paramCount(t, c, 150, 2)
	}
	if counts["inception"] != 228371 {
		t.Errorf("inception: %d parameters, want the reference's 228371", counts["inception"])
	}
	// Per layer by hand: Transformer 4d²+4d (attention) + (4d²+4d) + (4d²+d) (FF) + 4d (2 LayerNorms).
	d := 128
	transformer := 4*d*d + 4*d + 4*d*d + 4*d + 4*d*d + d + 4*d
	inception := d*(d/4) + (39+19+9)*(d/4)*(d/4) + d*(d/4)
	mlp := d*2*d + 2*d + 2*d*d + d
	if transformer != 198272 || inception != 76800 || mlp != 65920 {
		t.Fatalf("hand counts %d/%d/%d", transformer, inception, mlp)
	}
	if got := counts["transformer"] - counts["inception"]; got != 2*(transformer-inception) {
		t.Errorf("transformer − inception = %d, want %d (appendix: 422.5K − 179.5K)", got, 2*(transformer-inception))
	}
	if got := counts["inception"] - counts["mlp"]; got != 2*(inception-mlp) {
		t.Errorf("inception − mlp = %d, want %d (appendix: 179.5K − 157.8K)", got, 2*(inception-mlp))
	}
}

// TestMoEExpertParameterCounts: per expert, the paper's MLP has 2d²+2d
// parameters, the FCN block 8·d·d + 5·d·2d + 3·2d·d = 24d² (no biases before
// the normalisations) and TSLANet's ICB d²+d + 3d²+d + d²+d = 5d²+3d.
func TestMoEExpertParameterCounts(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ShapeLength = 16
	const classes = 3 // Ĉ = C = 3 experts
	d := 128
	base := paramCount(t, cfg, 150, classes)
	for _, tc := range []struct {
		expert    MoEExpert
		perExpert int
	}{{MoEExpertFCN, 24 * d * d}, {MoEExpertICB, 5*d*d + 3*d}} {
		c := cfg
		c.MoEExpert = tc.expert
		got := paramCount(t, c, 150, classes) - base
		want := classes * (tc.perExpert - (2*d*d + 2*d))
		if got != want {
			t.Errorf("%s: %+d parameters relative to the MLP experts, want %+d", tc.expert, got, want)
		}
	}
}

// TestMultiSeqParameterCount: Multi-Seq is the three single models (m = 8, 16,
// 32), each without its own head, plus one head on the fused embedding and two
// fusion layers Linear(2d→d).
func TestMultiSeqParameterCount(t *testing.T) {
	const T, C, d = 150, 2, 128
	cfg := DefaultConfig()
	sum := 0
	for _, m := range []int{8, 16, 32} {
		c := cfg
		c.ShapeLength = m
		sum += paramCount(t, c, T, C) - (d*C + C)
	}
	multi := cfg
	multi.MultiSeq = "8,16,32"
	want := sum + (d*C + C) + 2*(2*d*d+d)
	if got := paramCount(t, multi, T, C); got != want {
		t.Errorf("Multi-Seq: %d parameters, want %d", got, want)
	}
}

// TestVariantsGetGradients: in every expert-network variant and in Multi-Seq,
// every trainable variable of the sparse graph gets a non-zero gradient, and the
// variant's own variables are there.
func TestVariantsGetGradients(t *testing.T) {
	cases := []struct {
		name    string
		set     func(*Config)
		mustUse string
	}{
		{"moe_expert=fcn", func(c *Config) { c.MoEExpert = "fcn" }, "experts/conv_2/weights"},
		{"moe_expert=icb", func(c *Config) { c.MoEExpert = "icb" }, "experts/conv3/weights"},
		{"shared_expert=transformer", func(c *Config) { c.SharedExpert = "transformer" }, "transformer/norm2"},
		{"shared_expert=mlp", func(c *Config) { c.SharedExpert = "mlp" }, "shared_mlp/fc2/weights"},
		{"multi_seq=4,8", func(c *Config) { c.MultiSeq = "4,8" }, "fusion_1/weights"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.EmbedDim, cfg.ShapeLength, cfg.ExpertsK = 32, 8, 3
			tc.set(&cfg)
			paths, grads := sparseGradients(t, cfg, 60, 3)
			found := false
			for i, g := range grads {
				if strings.Contains(paths[i], tc.mustUse) {
					found = true
				}
				if sumOf(g) == 0 {
					t.Errorf("variable %s gets a zero gradient", paths[i])
				}
			}
			if !found {
				t.Errorf("no variable matching %q among %v", tc.mustUse, paths)
			}
		})
	}
}

// TestVariantsRejectBadSettings: the new switches name themselves in errors.
func TestVariantsRejectBadSettings(t *testing.T) {
	cases := []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.MoEExpert = "cnn" }, `moe_expert="cnn": want one of mlp, fcn, icb`},
		{func(c *Config) { c.SharedExpert = "lstm" }, `shared_expert="lstm": want one of inception, transformer, mlp`},
		{func(c *Config) { c.SharedExpert, c.EmbedDim = "transformer", 36 }, "shared_expert=transformer needs embed_dim divisible by its 8 heads, got 36"},
		{func(c *Config) { c.MultiSeq = "8" }, `multi_seq="8": Multi-Seq needs at least two shape lengths`},
		{func(c *Config) { c.MultiSeq = "8,x" }, `multi_seq="8,x": want comma-separated shape lengths`},
		{func(c *Config) { c.MultiSeq = "8,8" }, `multi_seq="8,8": shape length 8 is given twice`},
		{func(c *Config) { c.MultiSeq = "8,16,32" }, `multi_seq="8,16,32", scale m=32: shape_length: m=32 is longer than the series (T=24)`},
	}
	for _, tc := range cases {
		cfg := DefaultConfig()
		tc.set(&cfg)
		_, err := New(cfg, 24, 2, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got error %v, want one containing %q", err, tc.want)
		}
	}
}

// TestVariantsLearnCBF: each appendix variant trains on the generated
// Cylinder-Bell-Funnel data (8 dense + 8 sparse epochs) to a test accuracy well
// above chance (1/3): the switches build working models, not just graphs.
func TestVariantsLearnCBF(t *testing.T) {
	if testing.Short() {
		t.Skip("trains five models; skipped with -short")
	}
	ds := data.CBF(40, data.CBFDefaultLength, 11)
	for _, set := range []string{"moe_expert=fcn", "moe_expert=icb", "shared_expert=transformer", "shared_expert=mlp", "multi_seq=8,16,32"} {
		cfg, err := DefaultConfig().WithSettings(set)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Epochs, cfg.WarmUpEpochs, cfg.EmbedDim = 16, 8, 64
		res, err := Train(ds, cfg, RunOptions{Backend: testBackend(t), Seed: 5, Folds: []int{0}})
		if err != nil {
			t.Fatalf("%s: %v", set, err)
		}
		f := res.Folds[0]
		t.Logf("%s: CBF test accuracy %.3f (%s)", set, f.TestAcc, f.Wall)
		if f.TestAcc < 0.8 {
			t.Errorf("%s: CBF test accuracy %.3f, want ≥ 0.8", set, f.TestAcc)
		}
	}
}
