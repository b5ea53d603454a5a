package softshape

// The values of the enumerated settings, as typed constants. Each type is the
// type of its Config (and Protocol) field; the settings table (Settings) takes
// its allowed values from these constants, so the spelling of every value lives
// here once. The values are the strings of the settings syntax and of
// Config.String, and so of every run's key (experiments/sweep.KeySchema): never respell one.

// NumExperts is Ĉ, the number of experts (ParamNumExperts, the appendix study of
// Ĉ): a decimal integer ≥ 1, or a multiple of the number of classes C.
type NumExperts string

// The values of NumExperts besides an integer.
const (
	NumExpertsC      NumExperts = "C"   // one expert per class (the authors', the default)
	NumExpertsHalfC  NumExperts = "C/2" // max(1, C/2) (appendix)
	NumExpertsTwiceC NumExperts = "2C"  // 2C (appendix)
)

// Stride is q, the stride between shapes (ParamStride, Table 5): a decimal
// integer ≥ 1, StrideShapeLength (q = m, non-overlapping shapes, Table 5's
// q = m) or StrideAuto, the authors' rule and the default (the paper's q = 4
// column): q = 4, capped at m; where m is a ratio of the series length
// (shape_length_ratio) and m ≤ 4, q = min(2, m). Until 2026-11-27 auto was
// min(2, m) for every m ≤ 4 (LegacyAutoStride): q = 2 rather than 4 on the 13
// datasets whose m is a fixed 4.
type Stride string

// The values of Stride besides an integer.
const (
	StrideAuto        Stride = "auto"
	StrideShapeLength Stride = "m"
)

// Schedule chooses how sparsification is spread over the layers
// (ParamSchedule, see Config.RemainFractions).
type Schedule string

// The values of Schedule.
const (
	ScheduleReference  Schedule = "reference"   // the authors': merge fractions linspace(0, η, L), only the last layer merges η (the default)
	ScheduleEveryLayer Schedule = "every_layer" // the paper's literal reading: every layer merges η
)

// MoELayers chooses where the MoE intra-shape learning runs (ParamMoELayers).
type MoELayers string

// The values of MoELayers.
const (
	MoELayersSparse MoELayers = "sparse" // only in layers that merge, never during warm-up (the authors', the default)
	MoELayersAll    MoELayers = "all"    // in every layer, also during warm-up
)

// ShapeEmbed chooses the shape embedding (ParamShapeEmbed).
type ShapeEmbed string

// The values of ShapeEmbed.
const (
	ShapeEmbedConv   ShapeEmbed = "conv"   // the paper's 1-D CNN (the default)
	ShapeEmbedLinear ShapeEmbed = "linear" // a linear patch embedding (Table 2, "with Linear Shape")
)

// MoEExpert chooses the network of each MoE expert (ParamMoEExpert, the
// appendix study of the expert networks, Appendix B.4).
type MoEExpert string

// The values of MoEExpert.
const (
	MoEExpertMLP MoEExpert = "mlp" // the paper's Linear→GELU→Dropout→Linear (the default)
	MoEExpertFCN MoEExpert = "fcn" // an FCN block: three same-padded convolutions over the token axis
	MoEExpertICB MoEExpert = "icb" // TSLANet's interactive convolution block
)

// SharedExpert chooses the shared (inter-shape) expert network
// (ParamSharedExpert, Appendix B.4).
type SharedExpert string

// The values of SharedExpert.
const (
	SharedExpertInception   SharedExpert = "inception"   // the paper's Inception module (the default)
	SharedExpertTransformer SharedExpert = "transformer" // one Transformer encoder layer of TransformerHeads heads
	SharedExpertMLP         SharedExpert = "mlp"         // a token-wise MLP d→2d→d
)

// BatchRule is the protocol switch choosing the batch size (ParamBatchRule);
// data.ParseBatchRule turns it into a data.BatchRule.
type BatchRule string

// The values of BatchRule.
const (
	BatchRulePaper BatchRule = "paper" // the paper's min(n_train/10, 16) (the default)
	BatchRuleLarge BatchRule = "large" // the authors' code's min(512, n_train)
)

// FoldReset is the protocol switch choosing what each fold starts from
// (ParamFoldReset).
type FoldReset string

// The values of FoldReset.
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

// The values of EvalPath.
const (
	EvalPathPhase  EvalPath = "phase"  // the path being trained: dense in warm-up, sparse after (the default)
	EvalPathSparse EvalPath = "sparse" // always the sparse path with the MoE (the authors')
)

// SelectionStat is the protocol switch choosing the validation statistic of
// model selection and early stopping (ParamSelectionStat, see
// Config.SelectionLoss).
type SelectionStat string

// The values of SelectionStat.
const (
	SelectionStatMean        SelectionStat = "mean"         // the mean validation cross-entropy (the default)
	SelectionStatBatchScaled SelectionStat = "batch_scaled" // the authors' Σ_batches mean CE / n_val
)

// SelectionWindow is the protocol switch choosing the epochs model selection
// chooses from (ParamSelectionWindow, see Config.Selectable).
type SelectionWindow string

// The values of SelectionWindow.
const (
	SelectionWindowPostWarmUp SelectionWindow = "post_warmup" // after the warm-up only: SoftShape's own sparse model (the default)
	SelectionWindowAll        SelectionWindow = "all"         // all epochs, as the authors' code, which can select a dense warm-up model
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
