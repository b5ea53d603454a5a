package softshape

import (
	"fmt"
	"strings"
)

// Setting describes one hyperparameter of Config. Settings() is the one place
// that names each setting, gives its symbol in the paper, documents it and
// lists its allowed values: Config.Apply, ConfigFromStore, Config.String, the
// checks of enumerated values, -set help and the settings table of
// docs/settings.md (both written by cmd/softshape, the table kept equal by a
// test) all read it.
type Setting struct {
	// Name is the name in the settings syntax ("sparse_ratio").
	Name string
	// Symbol is the paper's symbol ("k", "1−η"), "" where the paper has none.
	Symbol string
	// Doc says what the setting does, in one line.
	Doc string
	// Allowed lists the values of an enumerated setting; nil otherwise.
	Allowed []string
	// field returns a pointer to the setting's field of c: a *float64, *int,
	// *bool or *string, a field of a named string type (the enumerated
	// settings, enums.go) converted to *string so the store holds plain strings.
	field func(c *Config) any
}

// Value returns the setting's value in c.
func (s Setting) Value(c Config) any {
	switch p := s.field(&c).(type) {
	case *float64:
		return *p
	case *int:
		return *p
	case *string:
		return *p
	case *bool:
		return *p
	}
	panic(fmt.Sprintf("setting %s: unsupported field type", s.Name))
}

// Settings lists every hyperparameter in the order Config.String writes them.
// Run keys do not depend on it, but a new setting needs an entry in the key
// schema of experiments/sweep too (its KeySchema says how).
func Settings() []Setting {
	return []Setting{
		{ParamSparseRatio, "1−η", "sparse ratio: fraction of the shapes fused into one embedding by the last layer, in [0, 1) (Table 3; the paper keeps the top η)", nil, func(c *Config) any { return &c.SparseRatio }},
		{ParamExpertsK, "k", "experts each shape is routed to, 1 ≤ k ≤ Ĉ (Table 4)", nil, func(c *Config) any { return &c.ExpertsK }},
		{ParamNumExperts, "Ĉ", "number of experts: an integer, `C` (classes, the authors'), `C/2` or `2C` (appendix)", nil, func(c *Config) any { return (*string)(&c.NumExperts) }},
		{ParamStride, "q", "shape stride: an integer ≥ 1, `m` (no overlap) or `auto` (the authors' rule: 4, capped at m; min(2, m) when m ≤ 4 is a ratio of the series length) (Table 5)", nil, func(c *Config) any { return (*string)(&c.Stride) }},
		{ParamDepth, "L", "number of SoftShape layers (Table 6)", nil, func(c *Config) any { return &c.Depth }},
		{ParamShapeLength, "m", "shape length; 0 = the authors' per-dataset m (min(16, T) for an unknown dataset) (Table 7)", nil, func(c *Config) any { return &c.ShapeLength }},
		{ParamShapeLengthRatio, "m/T", "when > 0, m = int(ratio·T) (the paper's 0.1T, 0.8T), overriding shape_length", nil, func(c *Config) any { return &c.ShapeLengthRatio }},
		{ParamEmbedDim, "d", "width of the shape embeddings", nil, func(c *Config) any { return &c.EmbedDim }},
		{ParamAttnDim, "d_attn", "hidden width of the gated attention head", nil, func(c *Config) any { return &c.AttnDim }},
		{ParamDropout, "", "dropout rate (positional embedding, experts, final layer)", nil, func(c *Config) any { return &c.Dropout }},
		{ParamMoELossWeight, "λ", "weight of the MoE importance and load losses (appendix)", nil, func(c *Config) any { return &c.MoELossWeight }},
		{ParamInceptionKernel, "", "largest Inception kernel (40 gives kernels 39, 19, 9)", nil, func(c *Config) any { return &c.InceptionKernel }},
		{ParamSchedule, "", "how sparsification spreads over the layers: the authors' merge fractions linspace(0, 1−η, L), or the sparse ratio 1−η in every layer (the paper's literal reading)", allowed(ScheduleReference, ScheduleEveryLayer), func(c *Config) any { return (*string)(&c.Schedule) }},
		{ParamMoELayers, "", "where the MoE runs: only in layers that merge, never in warm-up (the authors'), or in every layer", allowed(MoELayersSparse, MoELayersAll), func(c *Config) any { return (*string)(&c.MoELayers) }},
		{ParamFusedToken, "", "append the score-weighted sum of the merged shapes as one fused token (false: ablation w/o Soft Sparse, Table 2)", nil, func(c *Config) any { return &c.FusedToken }},
		{ParamIntra, "", "MoE intra-shape learning (false: ablation w/o Intra, Table 2)", nil, func(c *Config) any { return &c.Intra }},
		{ParamInter, "", "Inception inter-shape learning (false: ablation w/o Inter, Table 2)", nil, func(c *Config) any { return &c.Inter }},
		{ParamShapeEmbed, "", "shape embedding: 1-D CNN (the paper's) or a linear patch embedding (ablation, Table 2)", allowed(ShapeEmbedConv, ShapeEmbedLinear), func(c *Config) any { return (*string)(&c.ShapeEmbed) }},
		{ParamMoEExpert, "", "network of each MoE expert: the paper's MLP, an FCN block or TSLANet's ICB (appendix)", allowed(MoEExpertMLP, MoEExpertFCN, MoEExpertICB), func(c *Config) any { return (*string)(&c.MoEExpert) }},
		{ParamSharedExpert, "", "shared (inter-shape) expert: the paper's Inception, a Transformer layer or a token-wise MLP (appendix)", allowed(SharedExpertInception, SharedExpertTransformer, SharedExpertMLP), func(c *Config) any { return (*string)(&c.SharedExpert) }},
		{ParamMultiSeq, "", "Table 7 Multi-Seq: comma-separated shape lengths run in parallel, e.g. `8,16,32`; empty: off", nil, func(c *Config) any { return &c.MultiSeq }},
		{ParamWarmUpEpochs, "", "dense (non-sparse) epochs before sparsification starts", nil, func(c *Config) any { return &c.WarmUpEpochs }},
		{ParamEpochs, "", "maximum number of training epochs", nil, func(c *Config) any { return &c.Epochs }},
		{ParamLearningRate, "", "Adam's learning rate", nil, func(c *Config) any { return &c.LearningRate }},
		{ParamPatience, "", "early-stopping patience after warm-up (the authors' rule); 0 disables it", nil, func(c *Config) any { return &c.Patience }},
		{ParamFoldReset, "", "protocol: a fresh model and Adam per fold, or the previous fold's last weights and Adam state (the authors' leak)", allowed(FoldResetFresh, FoldResetCarry), func(c *Config) any { return (*string)(&c.FoldReset) }},
		{ParamEvalPath, "", "protocol: validation/test during warm-up on the trained path, or always on the sparse path (the authors')", allowed(EvalPathPhase, EvalPathSparse), func(c *Config) any { return (*string)(&c.EvalPath) }},
		{ParamBatchRule, "", "protocol: batch min(n_train/10, 16) (the paper's) or min(512, n_train) (the authors' code)", allowed(BatchRulePaper, BatchRuleLarge), func(c *Config) any { return (*string)(&c.BatchRule) }},
		{ParamShuffle, "", "protocol: shuffle the training batches every epoch (the authors' code does not)", nil, func(c *Config) any { return &c.Shuffle }},
		{ParamSelectionStat, "", "protocol: selection and stopping statistic, mean validation CE or the authors' Σ_batches mean CE / n_val", allowed(SelectionStatMean, SelectionStatBatchScaled), func(c *Config) any { return (*string)(&c.SelectionStat) }},
		{ParamSelectionWindow, "", "protocol: select among post-warm-up epochs only (SoftShape's own model) or among all epochs (the authors')", allowed(SelectionWindowPostWarmUp, SelectionWindowAll), func(c *Config) any { return (*string)(&c.SelectionWindow) }},
	}
}

// params lists c as name → value, in Settings order.
func (c Config) params() []struct {
	name  string
	value any
} {
	out := make([]struct {
		name  string
		value any
	}, 0, 32)
	for _, s := range Settings() {
		out = append(out, struct {
			name  string
			value any
		}{s.Name, s.Value(c)})
	}
	return out
}

// settingName is the name a part "name=value" of a settings string sets:
// the trimmed name, without a GoMLX scope path ("scope/name" sets name), and
// ParamProtocol for ParamReferenceCompat, since both choose the preset.
func settingName(part string) string {
	name, _, _ := strings.Cut(part, "=")
	name = strings.TrimSpace(name)
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	if name == ParamReferenceCompat {
		return ParamProtocol
	}
	return name
}

// settingParts splits a settings string at ";", leaving out empty parts.
func settingParts(settings string) []string {
	var parts []string
	for _, p := range strings.Split(settings, ";") {
		if strings.TrimSpace(p) != "" {
			parts = append(parts, p)
		}
	}
	return parts
}

// SettingNames returns the names a settings string ("epochs=3;depth=2", the
// syntax of Config.WithSettings) sets, in order. An item that is not
// name=value (no "=", or no name: "=1") is an error naming it, except
// GoMLX's "file:path", which reads settings from a file. A setting given twice is an
// error naming it and both values, since only one of them could win; so are
// ParamProtocol and ParamReferenceCompat together, which both choose the
// protocol preset.
func SettingNames(settings string) ([]string, error) {
	var names []string
	first := map[string]string{}
	for _, part := range settingParts(settings) {
		name := settingName(part)
		if _, _, ok := strings.Cut(part, "="); (!ok || name == "") && !strings.HasPrefix(strings.TrimSpace(part), "file:") {
			return nil, fmt.Errorf("settings %q: item %q is not name=value (e.g. depth=3; items are separated by \";\")",
				settings, strings.TrimSpace(part))
		}
		if prev, ok := first[name]; ok {
			return nil, fmt.Errorf("settings %q: %s is given twice (%s and %s): give each setting once",
				settings, name, strings.TrimSpace(prev), strings.TrimSpace(part))
		}
		first[name] = part
		names = append(names, name)
	}
	return names, nil
}

// JoinSettings returns the settings of base, less those that over sets too,
// followed by over's: over's values win. It is how a layer of settings (a
// notebook's, on top of $SOFTSHAPE_SETTINGS) replaces another; a name given
// twice within base or within over is left for WithSettings to report.
func JoinSettings(base, over string) string {
	replaced := map[string]bool{}
	for _, p := range settingParts(over) {
		replaced[settingName(p)] = true
	}
	var parts []string
	for _, p := range settingParts(base) {
		if !replaced[settingName(p)] {
			parts = append(parts, strings.TrimSpace(p))
		}
	}
	for _, p := range settingParts(over) {
		parts = append(parts, strings.TrimSpace(p))
	}
	return strings.Join(parts, ";")
}
