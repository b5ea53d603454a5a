package softshape

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ui/commandline"

	"github.com/softshape-go/softshape/softshape/fit"
)

// Hyperparameter names, as stored in a GoMLX model.Store and as written in a
// settings string ("sparse_ratio=0.3;experts_k=2;depth=3"), with the paper's
// symbol where it has one. What each setting does, its default and allowed
// values are said once, in Settings (settings.go), which -set help and the
// table of docs/settings.md print.
const (
	ParamSparseRatio      = "sparse_ratio"       // 1−η (Table 3)
	ParamExpertsK         = "experts_k"          // k (Table 4)
	ParamNumExperts       = "num_experts"        // Ĉ (NumExperts)
	ParamStride           = "stride"             // q (Stride, Table 5)
	ParamDepth            = "depth"              // L (Table 6)
	ParamShapeLength      = "shape_length"       // m (Table 7)
	ParamShapeLengthRatio = "shape_length_ratio" // m/T
	ParamEmbedDim         = "embed_dim"          // d
	ParamAttnDim          = "attn_dim"           // d_attn
	ParamDropout          = "dropout"
	ParamMoELossWeight    = "moe_loss_weight" // λ
	ParamInceptionKernel  = "inception_kernel"
	ParamSchedule         = "sparsify_schedule" // Schedule
	ParamMoELayers        = "moe_layers"        // MoELayers
	ParamFusedToken       = "fused_token"       // Table 2, w/o Soft Sparse
	ParamIntra            = "intra"             // Table 2, w/o Intra
	ParamInter            = "inter"             // Table 2, w/o Inter
	ParamShapeEmbed       = "shape_embed"       // ShapeEmbed
	ParamMoEExpert        = "moe_expert"        // MoEExpert
	ParamSharedExpert     = "shared_expert"     // SharedExpert
	ParamMultiSeq         = "multi_seq"         // Table 7's Multi-Seq
	ParamWarmUpEpochs     = "warmup_epochs"
	ParamEpochs           = "epochs"
	ParamLearningRate     = "learning_rate"
	ParamBatchRule        = "batch_rule" // protocol switch (BatchRule)
	ParamPatience         = "patience"
	ParamShuffle          = "shuffle"          // protocol switch
	ParamFoldReset        = "fold_reset"       // protocol switch (FoldReset)
	ParamEvalPath         = "eval_path"        // protocol switch (EvalPath)
	ParamSelectionStat    = "selection_stat"   // protocol switch (SelectionStat)
	ParamSelectionWindow  = "selection_window" // protocol switch (SelectionWindow)
)

// Settings that are not hyperparameters of Config but choose several at once.
const (
	// ParamProtocol applies a preset of the protocol switches, one of the
	// names in Presets, before the other settings of the same string
	// ("protocol=reference_fresh;shuffle=true" changes one switch).
	ParamProtocol = "protocol"
	// ParamReferenceCompat is the older spelling of a preset:
	// reference_compat=true is protocol=reference_compat, false is
	// protocol=default.
	ParamReferenceCompat = "reference_compat"
)

// Names of the protocol presets (ParamProtocol).
const (
	// ProtocolDefault selects SoftShape's own model: fresh folds, evaluation on
	// the trained path, the paper's batch rule, shuffled batches, mean validation
	// CE, selection among post-warm-up epochs only.
	ProtocolDefault = "default"
	// ProtocolReferenceCompat is the authors' published code: weights and Adam
	// carried across folds, sparse evaluation, batch min(512, n_train), no
	// shuffling, the batch-scaled statistic, selection over all epochs.
	ProtocolReferenceCompat = "reference_compat"
	// ProtocolReferenceFresh is ProtocolReferenceCompat with fresh folds: the
	// authors' code minus the fold leak.
	ProtocolReferenceFresh = "reference_fresh"
	// ProtocolCustom names switch values that match no preset.
	ProtocolCustom = "custom"
)

// Protocol holds the protocol switches: the decisions of the training protocol
// that are not part of the model.
type Protocol struct {
	FoldReset       FoldReset
	EvalPath        EvalPath
	BatchRule       BatchRule
	Shuffle         bool
	SelectionStat   SelectionStat
	SelectionWindow SelectionWindow
}

// presets are the named protocols, in the order -set help lists them.
var presets = []struct {
	name, doc string
	p         Protocol
}{
	{ProtocolDefault, "SoftShape's own model, fresh folds (the default)",
		Protocol{FoldResetFresh, EvalPathPhase, BatchRulePaper, true, SelectionStatMean, SelectionWindowPostWarmUp}},
	{ProtocolReferenceCompat, "the authors' published code, fold leak included",
		Protocol{FoldResetCarry, EvalPathSparse, BatchRuleLarge, false, SelectionStatBatchScaled, SelectionWindowAll}},
	{ProtocolReferenceFresh, "the authors' code minus the fold leak",
		Protocol{FoldResetFresh, EvalPathSparse, BatchRuleLarge, false, SelectionStatBatchScaled, SelectionWindowAll}},
}

// Preset returns the protocol switches of a preset name.
func Preset(name string) (Protocol, error) {
	for _, p := range presets {
		if p.name == name {
			return p.p, nil
		}
	}
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.name
	}
	return Protocol{}, fmt.Errorf("%s=%q: want one of %s", ParamProtocol, name, strings.Join(names, ", "))
}

// PresetNames lists the preset names with a one-line description each.
func PresetNames() [][2]string {
	out := make([][2]string, len(presets))
	for i, p := range presets {
		out[i] = [2]string{p.name, p.doc}
	}
	return out
}

// Protocol returns c's protocol switches.
func (c Config) Protocol() Protocol {
	return Protocol{c.FoldReset, c.EvalPath, c.BatchRule, c.Shuffle, c.SelectionStat, c.SelectionWindow}
}

// WithProtocol returns c with the protocol switches of p.
func (c Config) WithProtocol(p Protocol) Config {
	c.FoldReset, c.EvalPath, c.BatchRule, c.Shuffle, c.SelectionStat, c.SelectionWindow =
		p.FoldReset, p.EvalPath, p.BatchRule, p.Shuffle, p.SelectionStat, p.SelectionWindow
	return c
}

// ProtocolName names c's protocol switches: the preset they equal, or
// ProtocolCustom.
func (c Config) ProtocolName() string {
	for _, p := range presets {
		if p.p == c.Protocol() {
			return p.name
		}
	}
	return ProtocolCustom
}

// ProtocolString lists the resolved switches, e.g.
// "reference_fresh (fold_reset=fresh, eval_path=sparse, ...)".
func (c Config) ProtocolString() string {
	return fmt.Sprintf("%s (%s=%s, %s=%s, %s=%s, %s=%t, %s=%s, %s=%s)", c.ProtocolName(),
		ParamFoldReset, c.FoldReset, ParamEvalPath, c.EvalPath, ParamBatchRule, c.BatchRule,
		ParamShuffle, c.Shuffle, ParamSelectionStat, c.SelectionStat, ParamSelectionWindow, c.SelectionWindow)
}

// EvalPhase is the path validation and test run on in an epoch trained on phase.
func (c Config) EvalPhase(phase Phase) Phase {
	if c.EvalPath == EvalPathSparse {
		return Sparse
	}
	return phase
}

// FitRule is the protocol's selection and early-stopping rule of c
// (warmup_epochs, selection_window, patience, selection_stat), which every
// training path applies through a fit.Tracker per fold.
func (c Config) FitRule() fit.Rule {
	stat := fit.StatMean
	if c.SelectionStat == SelectionStatBatchScaled {
		stat = fit.StatBatchScaled
	}
	return fit.Rule{WarmUpEpochs: c.WarmUpEpochs, SelectWarmUp: c.SelectionWindow == SelectionWindowAll,
		Patience: c.Patience, Stat: stat}
}

// Selectable reports whether model selection may choose the given epoch
// (0-based): FitRule's.
func (c Config) Selectable(epoch int) bool { return c.FitRule().Selectable(epoch) }

// SelectionLoss is the validation statistic of selection and early stopping,
// from the per-sample validation cross-entropies and the training batch size:
// FitRule's.
func (c Config) SelectionLoss(valCE []float64, batchSize int) float64 {
	return c.FitRule().Statistic(valCE, batchSize)
}

// CarriesFolds reports whether weights and Adam state carry from fold to fold.
func (c Config) CarriesFolds() bool { return c.FoldReset == FoldResetCarry }

// Config is the typed view of every SoftShape hyperparameter. DefaultConfig holds
// the defaults (the authors' code); Config.Apply writes a Config into a model.Store
// and ConfigFromStore reads it back, so the GoMLX settings syntax and Go code agree.
type Config struct {
	SparseRatio      float64
	ExpertsK         int
	NumExperts       NumExperts
	Stride           Stride
	Depth            int
	ShapeLength      int
	ShapeLengthRatio float64
	EmbedDim         int
	AttnDim          int
	Dropout          float64
	MoELossWeight    float64
	InceptionKernel  int
	Schedule         Schedule
	MoELayers        MoELayers
	FusedToken       bool
	Intra            bool
	Inter            bool
	ShapeEmbed       ShapeEmbed
	MoEExpert        MoEExpert
	SharedExpert     SharedExpert
	MultiSeq         string
	WarmUpEpochs     int
	Epochs           int
	LearningRate     float64
	BatchRule        BatchRule
	Patience         int
	Shuffle          bool
	// The protocol switches besides BatchRule and Shuffle (see Protocol).
	FoldReset       FoldReset
	EvalPath        EvalPath
	SelectionStat   SelectionStat
	SelectionWindow SelectionWindow
}

// DefaultConfig returns the defaults: the authors' model (the paper's Section 3 and
// its appendix settings) under the default protocol (ProtocolDefault).
func DefaultConfig() Config {
	c := Config{
		SparseRatio:     0.5,
		ExpertsK:        1,
		NumExperts:      NumExpertsC,
		Stride:          StrideAuto,
		Depth:           2,
		EmbedDim:        128,
		AttnDim:         8,
		Dropout:         0.15,
		MoELossWeight:   0.001,
		InceptionKernel: 40,
		Schedule:        ScheduleReference,
		MoELayers:       MoELayersSparse,
		FusedToken:      true,
		Intra:           true,
		Inter:           true,
		ShapeEmbed:      ShapeEmbedConv,
		MoEExpert:       MoEExpertMLP,
		SharedExpert:    SharedExpertInception,
		WarmUpEpochs:    150,
		Epochs:          500,
		LearningRate:    1e-3,
		Patience:        80,
	}
	p, _ := Preset(ProtocolDefault)
	return c.WithProtocol(p)
}

// Apply writes every hyperparameter of c into the store's root scope.
func (c Config) Apply(store *model.Store) {
	for _, p := range c.params() {
		store.RootScope().SetParam(p.name, p.value)
	}
}

// ConfigFromStore reads the typed Config from the store's root scope; missing
// parameters take their defaults.
func ConfigFromStore(store *model.Store) Config {
	s := store.RootScope()
	c := DefaultConfig()
	for _, p := range Settings() {
		switch f := p.field(&c).(type) {
		case *float64:
			*f = model.GetParamOr(s, p.Name, *f)
		case *int:
			*f = model.GetParamOr(s, p.Name, *f)
		case *string:
			*f = model.GetParamOr(s, p.Name, *f)
		case *bool:
			*f = model.GetParamOr(s, p.Name, *f)
		}
	}
	return c
}

// WithSettings returns c updated by a GoMLX settings string such as
// "sparse_ratio=0.3;experts_k=2;depth=3" (the syntax of the CLI's -set flag).
// Unknown names and unparsable values are errors naming the setting, and so
// is a setting given twice (see SettingNames): use JoinSettings to let one
// string's settings replace another's.
func (c Config) WithSettings(settings string) (Config, error) {
	if strings.TrimSpace(settings) == "" {
		return c, nil
	}
	if _, err := SettingNames(settings); err != nil {
		return c, err
	}
	// Presets first, so the other settings of the string override their switches.
	var rest []string
	for _, part := range strings.Split(settings, ";") {
		name, value, _ := strings.Cut(part, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		switch name {
		case ParamProtocol:
			p, err := Preset(value)
			if err != nil {
				return c, fmt.Errorf("parsing settings %q: %w", settings, err)
			}
			c = c.WithProtocol(p)
		case ParamReferenceCompat:
			on, err := strconv.ParseBool(value)
			if err != nil {
				return c, fmt.Errorf("parsing settings %q: %s=%q: want true or false (a preset: true is %s=%s)",
					settings, ParamReferenceCompat, value, ParamProtocol, ProtocolReferenceCompat)
			}
			preset := ProtocolDefault
			if on {
				preset = ProtocolReferenceCompat
			}
			p, _ := Preset(preset)
			c = c.WithProtocol(p)
		default:
			rest = append(rest, part)
		}
	}
	settings = strings.Join(rest, ";")
	if strings.TrimSpace(settings) == "" {
		return c, nil
	}
	store := model.NewStore()
	c.Apply(store)
	if _, err := commandline.ParseSettings(store, settings); err != nil {
		return c, fmt.Errorf("parsing settings %q: %w", settings, err)
	}
	return ConfigFromStore(store), nil
}

// String lists every hyperparameter as "name=value" separated by ";", the same
// syntax WithSettings accepts. It is for display and records; run keys hash
// the key string of experiments/sweep.KeySchema, which does not change when a
// setting is added.
func (c Config) String() string {
	parts := make([]string, 0, 32)
	for _, p := range Settings() {
		parts = append(parts, fmt.Sprintf("%s=%v", p.Name, p.Value(c)))
	}
	return strings.Join(parts, ";")
}

// Shape holds the data-dependent sizes of a model: series length T, classes C,
// and the resolved shape length m, stride q, number of shapes J and experts Ĉ.
type Shape struct {
	SeriesLen, NumClasses  int
	ShapeLen, Stride       int
	NumShapes, NumExperts  int
	DatasetShapeLenDefault int // the registry's per-dataset m (0 if unknown)
}

// autoStride is the stride "auto" for shape length m, the authors' rule
// (main_softshape.py): q = 4, or min(2, m) when m is a ratio of the series
// length and m ≤ 4; then q is capped at m. A shape length from the authors'
// per-dataset table counts as fixed: their table gives no ratio-derived
// m ≤ 4 on the 128 datasets (data.TestNoRatioShapeLengthAtMostFour), so
// both branches agree on every one of them.
func autoStride(m int, fromRatio bool) int {
	q := 4
	if fromRatio && m <= q {
		q = min(2, m)
	}
	return min(q, m)
}

// LegacyAutoStride is the stride "auto" gave before it followed the authors'
// rule (autoStride): 4, or min(2, m) when m ≤ 4, wherever m came from. It
// differs only for a fixed m of 3 or 4 (ItalyPowerDemand and 12 more of the
// 128 datasets), where the authors' code trains q = m. Run keys
// (experiments/sweep) and checkpoints use it to tell the runs trained before
// apart from those trained after.
func LegacyAutoStride(m int) int {
	if m <= 4 {
		return min(2, m)
	}
	return 4
}

// AutoStrideMoved reports whether c, on series of length seriesLen with C
// classes and the authors' shape length refShapeLen (as in Resolve), trains
// a stride "auto" that differs from LegacyAutoStride at any of its scales.
// A configuration Resolve rejects has moved nowhere (it trains nothing).
func (c Config) AutoStrideMoved(seriesLen, numClasses, refShapeLen int) bool {
	if c.Stride != StrideAuto && c.Stride != "" {
		return false
	}
	scales, err := c.ResolveScales(seriesLen, numClasses, refShapeLen)
	if err != nil {
		return false
	}
	for _, s := range scales {
		if s.Stride != LegacyAutoStride(s.ShapeLen) {
			return true
		}
	}
	return false
}

// Resolve checks c against a dataset of series length T and C classes and returns
// the resolved sizes. refShapeLen is the authors' per-dataset m (0 if unknown).
// Impossible values are rejected with an error naming the parameter, before any
// graph is built.
//
// With Multi-Seq (Config.MultiSeq) it checks every scale and returns the first;
// ResolveScales returns them all.
func (c Config) Resolve(seriesLen, numClasses, refShapeLen int) (Shape, error) {
	if c.MultiSeq != "" {
		scales, err := c.ResolveScales(seriesLen, numClasses, refShapeLen)
		if err != nil {
			return Shape{}, err
		}
		return scales[0], nil
	}
	s := Shape{SeriesLen: seriesLen, NumClasses: numClasses, DatasetShapeLenDefault: refShapeLen}
	if seriesLen < 1 {
		return s, fmt.Errorf("series length T=%d: must be ≥ 1", seriesLen)
	}
	if numClasses < 2 {
		return s, fmt.Errorf("number of classes C=%d: must be ≥ 2", numClasses)
	}
	if math.IsNaN(c.SparseRatio) || c.SparseRatio < 0 || c.SparseRatio >= 1 {
		return s, fmt.Errorf("%s=%g: the sparse ratio 1−η must be in [0, 1)", ParamSparseRatio, c.SparseRatio)
	}
	if c.Depth < 1 {
		return s, fmt.Errorf("%s=%d: the depth L must be ≥ 1", ParamDepth, c.Depth)
	}
	if c.EmbedDim < 4 {
		return s, fmt.Errorf("%s=%d: the embedding width d must be ≥ 4", ParamEmbedDim, c.EmbedDim)
	}
	if c.AttnDim < 1 {
		return s, fmt.Errorf("%s=%d: must be ≥ 1", ParamAttnDim, c.AttnDim)
	}
	if c.Dropout < 0 || c.Dropout >= 1 {
		return s, fmt.Errorf("%s=%g: must be in [0, 1)", ParamDropout, c.Dropout)
	}
	if c.MoELossWeight < 0 {
		return s, fmt.Errorf("%s=%g: λ must be ≥ 0", ParamMoELossWeight, c.MoELossWeight)
	}
	if c.InceptionKernel < 2 {
		return s, fmt.Errorf("%s=%d: must be ≥ 2", ParamInceptionKernel, c.InceptionKernel)
	}
	if c.WarmUpEpochs < 0 || c.Epochs < 1 {
		return s, fmt.Errorf("%s=%d, %s=%d: need warm-up ≥ 0 and epochs ≥ 1", ParamWarmUpEpochs, c.WarmUpEpochs, ParamEpochs, c.Epochs)
	}
	if c.LearningRate <= 0 {
		return s, fmt.Errorf("%s=%g: must be > 0", ParamLearningRate, c.LearningRate)
	}
	if c.Patience < 0 {
		return s, fmt.Errorf("%s=%d: must be ≥ 0 (0 disables early stopping)", ParamPatience, c.Patience)
	}
	for _, p := range Settings() {
		if p.Allowed == nil {
			continue
		}
		if err := oneOf(p.Name, p.Value(c).(string), p.Allowed...); err != nil {
			return s, err
		}
	}
	if err := c.checkProtocol(); err != nil {
		return s, err
	}
	if c.SharedExpert == SharedExpertTransformer && c.EmbedDim%TransformerHeads != 0 {
		return s, fmt.Errorf("%s=transformer needs %s divisible by its %d heads, got %d", ParamSharedExpert, ParamEmbedDim, TransformerHeads, c.EmbedDim)
	}

	// Shape length m.
	switch {
	case c.ShapeLengthRatio < 0 || c.ShapeLengthRatio > 1:
		return s, fmt.Errorf("%s=%g: must be in (0, 1], or 0 to use %s", ParamShapeLengthRatio, c.ShapeLengthRatio, ParamShapeLength)
	case c.ShapeLengthRatio > 0:
		s.ShapeLen = int(c.ShapeLengthRatio * float64(seriesLen))
		if s.ShapeLen < 1 {
			return s, fmt.Errorf("%s=%g gives m=%d for T=%d: m must be ≥ 1", ParamShapeLengthRatio, c.ShapeLengthRatio, s.ShapeLen, seriesLen)
		}
	case c.ShapeLength < 0:
		return s, fmt.Errorf("%s=%d: must be ≥ 1, or 0 for the per-dataset default", ParamShapeLength, c.ShapeLength)
	case c.ShapeLength > 0:
		s.ShapeLen = c.ShapeLength
	case refShapeLen > 0:
		s.ShapeLen = min(refShapeLen, seriesLen)
	default:
		s.ShapeLen = min(16, seriesLen)
	}
	if s.ShapeLen > seriesLen {
		return s, fmt.Errorf("%s: m=%d is longer than the series (T=%d)", ParamShapeLength, s.ShapeLen, seriesLen)
	}

	// Stride q.
	switch c.Stride {
	case StrideAuto, "":
		s.Stride = autoStride(s.ShapeLen, c.ShapeLengthRatio > 0)
	case StrideShapeLength:
		s.Stride = s.ShapeLen
	default:
		q, err := strconv.Atoi(string(c.Stride))
		if err != nil {
			return s, fmt.Errorf("%s=%q: want an integer ≥ 1, %q or %q", ParamStride, c.Stride, StrideShapeLength, StrideAuto)
		}
		if q < 1 {
			return s, fmt.Errorf("%s=%d: the stride q must be ≥ 1", ParamStride, q)
		}
		s.Stride = q
	}
	s.NumShapes = (seriesLen-s.ShapeLen)/s.Stride + 1

	// Experts Ĉ and k.
	e, err := resolveExperts(c.NumExperts, numClasses)
	if err != nil {
		return s, err
	}
	s.NumExperts = e
	if c.ExpertsK < 1 {
		return s, fmt.Errorf("%s=%d: k must be ≥ 1", ParamExpertsK, c.ExpertsK)
	}
	if c.ExpertsK > s.NumExperts {
		return s, fmt.Errorf("%s=%d: k must be ≤ the number of experts Ĉ=%d (%s=%q)", ParamExpertsK, c.ExpertsK, s.NumExperts, ParamNumExperts, c.NumExperts)
	}
	return s, nil
}

// checkProtocol checks that the protocol leaves an epoch to select.
func (c Config) checkProtocol() error {
	if c.SelectionWindow == SelectionWindowPostWarmUp && c.Epochs <= c.WarmUpEpochs {
		return fmt.Errorf("%s=%s with %s=%d, %s=%d: no epoch after the warm-up to select; train more epochs or set %s=%s",
			ParamSelectionWindow, c.SelectionWindow, ParamEpochs, c.Epochs, ParamWarmUpEpochs, c.WarmUpEpochs,
			ParamSelectionWindow, SelectionWindowAll)
	}
	return nil
}

// MultiSeqLengths parses Config.MultiSeq ("8,16,32") into shape lengths; nil
// when Multi-Seq is off.
func (c Config) MultiSeqLengths() ([]int, error) {
	if strings.TrimSpace(c.MultiSeq) == "" {
		return nil, nil
	}
	var out []int
	seen := map[int]bool{}
	for _, p := range strings.Split(c.MultiSeq, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%s=%q: want comma-separated shape lengths ≥ 1, e.g. \"8,16,32\"", ParamMultiSeq, c.MultiSeq)
		}
		if seen[v] {
			return nil, fmt.Errorf("%s=%q: shape length %d is given twice", ParamMultiSeq, c.MultiSeq, v)
		}
		seen[v] = true
		out = append(out, v)
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("%s=%q: Multi-Seq needs at least two shape lengths", ParamMultiSeq, c.MultiSeq)
	}
	return out, nil
}

// ResolveScales is Resolve for every scale: one Shape for a single SoftShape,
// one per shape length of Config.MultiSeq (which overrides shape_length and
// shape_length_ratio) otherwise. Errors name the offending setting.
func (c Config) ResolveScales(seriesLen, numClasses, refShapeLen int) ([]Shape, error) {
	lengths, err := c.MultiSeqLengths()
	if err != nil {
		return nil, err
	}
	if lengths == nil {
		s, err := c.Resolve(seriesLen, numClasses, refShapeLen)
		if err != nil {
			return nil, err
		}
		return []Shape{s}, nil
	}
	out := make([]Shape, len(lengths))
	for i, m := range lengths {
		one := c
		one.MultiSeq, one.ShapeLength, one.ShapeLengthRatio = "", m, 0
		if out[i], err = one.Resolve(seriesLen, numClasses, refShapeLen); err != nil {
			return nil, fmt.Errorf("%s=%q, scale m=%d: %w", ParamMultiSeq, c.MultiSeq, m, err)
		}
	}
	return out, nil
}

// resolveExperts turns "C", "C/2", "2C" or an integer into Ĉ for C classes.
func resolveExperts(spec NumExperts, numClasses int) (int, error) {
	var e int
	switch NumExperts(strings.ReplaceAll(string(spec), " ", "")) {
	case NumExpertsC, "":
		e = numClasses
	case NumExpertsHalfC:
		e = max(1, numClasses/2)
	case NumExpertsTwiceC:
		e = 2 * numClasses
	default:
		v, err := strconv.Atoi(string(spec))
		if err != nil {
			return 0, fmt.Errorf("%s=%q: want an integer ≥ 1, %q, %q or %q", ParamNumExperts, spec, NumExpertsC, NumExpertsHalfC, NumExpertsTwiceC)
		}
		e = v
	}
	if e < 1 {
		return 0, fmt.Errorf("%s=%q: the number of experts Ĉ must be ≥ 1", ParamNumExperts, spec)
	}
	return e, nil
}

func oneOf(name, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return fmt.Errorf("%s=%q: want one of %s", name, value, strings.Join(allowed, ", "))
}

// RemainFractions returns, for each of the L layers, the fraction of the current
// tokens that the layer keeps (1 = dense). With the "reference" schedule this is
// 1 − linspace(0, η, L) computed in float32 as the authors' torch.linspace, so
// L=2 keeps everything in layer 0 and 1−η in layer 1, and L=1 never sparsifies.
// With "every_layer" each layer keeps 1−η.
func (c Config) RemainFractions() []float64 {
	r := make([]float64, c.Depth)
	for l := range r {
		switch {
		case c.Schedule == ScheduleEveryLayer:
			r[l] = 1 - float64(float32(c.SparseRatio))
		case c.Depth == 1:
			r[l] = 1
		default:
			// torch.linspace(0, η, L) in float32: start + step·i, computed in float32.
			eta := float32(c.SparseRatio)
			step := eta / float32(c.Depth-1)
			v := step * float32(l)
			if l == c.Depth-1 {
				v = eta
			}
			r[l] = 1 - float64(v)
		}
	}
	return r
}

// KeptTokens returns K = ceil(remain·n), the number of tokens a layer keeps out of n
// (at least 1), computed as the authors' code does (remain in float32 precision).
func KeptTokens(remain float64, n int) int {
	k := int(math.Ceil(remain * float64(n)))
	return max(1, min(k, n))
}
