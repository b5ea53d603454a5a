package softshape

// The values of the enumerated settings, as typed constants. Each type is the
// type of its Config (and Protocol) field; the settings table (Settings) takes
// its allowed values from these constants, so the spelling of every value lives
// here once. The values are the strings of the settings syntax and of
// Config.String, and so of every run's key (experiments/sweep.KeySchema): never respell one.

// NumExperts is Ĉ, the number of experts (ParamNumExperts, the appendix study of
// Ĉ): a decimal integer ≥ 1, or one of the NumExperts constants, relative to the
// number of classes C.
type NumExperts string

const (
	// NumExpertsC is Ĉ = C, one expert per class (the authors', the default).
	NumExpertsC NumExperts = "C"
	// NumExpertsHalfC is Ĉ = max(1, C/2) (appendix).
	NumExpertsHalfC NumExperts = "C/2"
	// NumExpertsTwiceC is Ĉ = 2C (appendix).
	NumExpertsTwiceC NumExperts = "2C"
)

// Stride is q, the stride between shapes (ParamStride, Table 5): a decimal
// integer ≥ 1, or one of the Stride constants.
type Stride string

const (
	// StrideAuto is the authors' rule (the default; the paper's q = 4
	// column of Table 5): q = 4, capped at m; where m is a ratio of the
	// series length (shape_length_ratio) and m ≤ 4, q = min(2, m). Until
	// 2026-11-27 it was min(2, m) for every m ≤ 4 (LegacyAutoStride): q = 2
	// rather than 4 on the 13 datasets whose m is a fixed 4.
	StrideAuto Stride = "auto"
	// StrideShapeLength is q = m: non-overlapping shapes (Table 5's q = m).
	StrideShapeLength Stride = "m"
)

// Schedule chooses how sparsification is spread over the layers
// (ParamSchedule, see Config.RemainFractions).
type Schedule string

const (
	// ScheduleReference is the authors' code: the layers merge the fractions
	// linspace(0, η, L), so only the last layer merges η (the default).
	ScheduleReference Schedule = "reference"
	// ScheduleEveryLayer is the paper's literal reading: every layer merges a
	// fraction η.
	ScheduleEveryLayer Schedule = "every_layer"
)

// MoELayers chooses where the MoE intra-shape learning runs (ParamMoELayers).
type MoELayers string

const (
	// MoELayersSparse runs the MoE only in layers that merge, never during
	// warm-up (the authors', the default).
	MoELayersSparse MoELayers = "sparse"
	// MoELayersAll runs the MoE in every layer, also during warm-up.
	MoELayersAll MoELayers = "all"
)

// ShapeEmbed chooses the shape embedding (ParamShapeEmbed, Table 2's ablation
// "with Linear Shape").
type ShapeEmbed string

const (
	// ShapeEmbedConv is the paper's 1-D CNN shape embedding (the default).
	ShapeEmbedConv ShapeEmbed = "conv"
	// ShapeEmbedLinear is a linear patch embedding (Table 2, "with Linear Shape").
	ShapeEmbedLinear ShapeEmbed = "linear"
)

// MoEExpert chooses the network of each MoE expert (ParamMoEExpert, the
// appendix study of the MoE expert networks, Appendix B.4).
type MoEExpert string

const (
	// MoEExpertMLP is the paper's expert, Linear→GELU→Dropout→Linear (the default).
	MoEExpertMLP MoEExpert = "mlp"
	// MoEExpertFCN is an FCN block: three same-padded convolutions over the
	// token axis (appendix).
	MoEExpertFCN MoEExpert = "fcn"
	// MoEExpertICB is TSLANet's interactive convolution block (appendix).
	MoEExpertICB MoEExpert = "icb"
)

// SharedExpert chooses the shared (inter-shape) expert network
// (ParamSharedExpert, the appendix study of the shared expert networks,
// Appendix B.4).
type SharedExpert string

const (
	// SharedExpertInception is the paper's Inception module (the default).
	SharedExpertInception SharedExpert = "inception"
	// SharedExpertTransformer is one Transformer encoder layer with
	// TransformerHeads heads (appendix).
	SharedExpertTransformer SharedExpert = "transformer"
	// SharedExpertMLP is a token-wise MLP d→2d→d (appendix).
	SharedExpertMLP SharedExpert = "mlp"
)

// BatchRule is the protocol switch choosing the batch size (ParamBatchRule);
// data.ParseBatchRule turns it into a data.BatchRule.
type BatchRule string

const (
	// BatchRulePaper is the paper's min(n_train/10, 16) (the default).
	BatchRulePaper BatchRule = "paper"
	// BatchRuleLarge is the authors' code's min(512, n_train).
	BatchRuleLarge BatchRule = "large"
)

// FoldReset is the protocol switch choosing what each fold starts from
// (ParamFoldReset).
type FoldReset string

const (
	// FoldResetFresh starts every fold from new weights and a new Adam
	// optimiser (the paper's protocol, the default).
	FoldResetFresh FoldReset = "fresh"
	// FoldResetCarry carries the weights and Adam state from fold to fold, as
	// the authors' published code does, so later folds have trained on their
	// own test samples.
	FoldResetCarry FoldReset = "carry"
)

// EvalPath is the protocol switch choosing the path validation and test run on
// during warm-up (ParamEvalPath, see Config.EvalPhase).
type EvalPath string

const (
	// EvalPathPhase evaluates on the path being trained: dense in warm-up,
	// sparse after (the default).
	EvalPathPhase EvalPath = "phase"
	// EvalPathSparse always evaluates on the sparse path with the MoE (the
	// authors' code).
	EvalPathSparse EvalPath = "sparse"
)

// SelectionStat is the protocol switch choosing the validation statistic of
// model selection and early stopping (ParamSelectionStat, see
// Config.SelectionLoss).
type SelectionStat string

const (
	// SelectionStatMean is the mean validation cross-entropy (the default).
	SelectionStatMean SelectionStat = "mean"
	// SelectionStatBatchScaled is the authors' Σ_batches mean CE / n_val.
	SelectionStatBatchScaled SelectionStat = "batch_scaled"
)

// SelectionWindow is the protocol switch choosing the epochs model selection
// chooses from (ParamSelectionWindow, see Config.Selectable).
type SelectionWindow string

const (
	// SelectionWindowPostWarmUp selects among the epochs after the warm-up
	// only, i.e. SoftShape's own sparse model (the default).
	SelectionWindowPostWarmUp SelectionWindow = "post_warmup"
	// SelectionWindowAll selects among all epochs, as the authors' code, which
	// can select a dense warm-up model.
	SelectionWindowAll SelectionWindow = "all"
)

// Names of the phases, as Phase.String writes them and checkpoints store the
// selected phase.
const (
	phaseNameDense  = "dense"
	phaseNameSparse = "sparse"
)

// allowed lists enumerated values as the strings of the settings table.
func allowed[T ~string](values ...T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}
