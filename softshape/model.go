package softshape

import (
	"math"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/softshape-go/softshape/internal/kernels"
)

// Phase chooses which path of the model a graph runs.
type Phase int

const (
	// Dense is the warm-up path: no sparsification (and, by default, no MoE).
	Dense Phase = iota
	// Sparse is the path after warm-up: soft shape sparsification and the MoE.
	Sparse
)

// String returns "dense" or "sparse".
func (p Phase) String() string {
	if p == Sparse {
		return phaseNameSparse
	}
	return phaseNameDense
}

// Outputs is everything one forward pass produces.
type Outputs struct {
	// Logits [B, C]: the conjunctive-pooling output (no softmax).
	Logits *Node
	// AuxLoss is the sum over MoE layers of the importance and load losses
	// (squared coefficients of variation), unweighted; a scalar zero when no MoE ran.
	AuxLoss *Node
	// ShapeScores [B, J]: the attention score of every input shape in layer 0
	// (before any merging), for MIL-style heat maps over the series.
	ShapeScores *Node
	// Kept [B, J]: 1 where the first layer that sparsifies (KeptLayer) keeps
	// the shape as a token of its own, 0 where it fuses it into the one fused
	// token (Eq. 5). The layers before it keep every token, so its tokens are
	// still the J shapes in order. Nil in the dense phase, and where no layer
	// sparsifies.
	Kept *Node
	// KeptScores [B, J] are the attention scores that layer KeptLayer ranked
	// to choose Kept (ShapeScores when that is layer 0).
	KeptScores *Node
	// KeptLayer is the layer (0-based) that Kept is of.
	KeptLayer int
	// Stages are token-mean-pooled embeddings [B, d] at four stages, for t-SNE:
	// the input shape embeddings, and the last layer's intra-shape (MoE) output,
	// inter-shape (shared expert) output and final output.
	Stages [4]*Node
}

// StageNames names Outputs.Stages in order.
func StageNames() [4]string {
	return [4]string{"input shapes", "intra-shape (MoE)", "inter-shape (shared expert)", "output"}
}

// Model is a SoftShape network for one dataset shape: the hyperparameters and
// the resolved data-dependent sizes. Build it with New.
type Model struct {
	Config Config
	// Shape holds the resolved sizes; for Multi-Seq, those of the first (finest)
	// scale, whose attention scores Outputs.ShapeScores reports.
	Shape Shape
	// Scales holds one Shape per shape length of Multi-Seq (Config.MultiSeq), in
	// the order given; it is nil for a single SoftShape.
	Scales []Shape
	// Build says how the graph is built: the runs it trains at once and the
	// forms of its kernels. The zero value is one run with the kernels.
	Build

	// dispatch forces the dense or the routed form of the MLP experts (tests
	// compare them); the zero value chooses by cost (kernels.DispatchBlock).
	dispatch kernels.DispatchMode
}

// Build says how a Model's graph is built, never what one run computes: its
// layer helpers (layers.go, runaxis.go, plain.go) read it.
type Build struct {
	// Runs is R, the independent runs the graph trains at once on a run axis
	// (runaxis.go); 0 or 1: one run, exactly the single-run graph.
	Runs int
	// Plain builds the plain forms of the layers whose kernels
	// (internal/kernels) have a hand-written gradient (plain.go) instead of
	// the kernels: the same maths, differentiated by GoMLX.
	Plain bool
	// Fast builds the speed forms of speed.go (RunOptions.Fast) instead of
	// the plain graphs: the same maths, summed in other orders.
	Fast bool
}

// New validates cfg against a dataset with series length T, C classes and the
// authors' per-dataset shape length refShapeLen (0 if unknown), and returns the model.
func New(cfg Config, seriesLen, numClasses, refShapeLen int) (*Model, error) {
	scales, err := cfg.ResolveScales(seriesLen, numClasses, refShapeLen)
	if err != nil {
		return nil, err
	}
	m := &Model{Config: cfg, Shape: scales[0]}
	if cfg.MultiSeq != "" {
		m.Scales = scales
	}
	return m, nil
}

// Forward builds the forward graph of x [B, T] (float32) for the given phase.
// Variables are created (and initialised) in scope on first use.
func (m *Model) Forward(scope *model.Scope, x *Node, phase Phase) *Outputs {
	if x.Rank() != 2 || x.Shape().Dimensions[1] != m.Shape.SeriesLen {
		exceptions.Panicf("softshape: input shape %s, want [batch, %d]", x.Shape(), m.Shape.SeriesLen)
	}
	scope = scope.ResetVisited()
	if m.Scales != nil {
		return m.forwardMultiSeq(scope, x, phase)
	}
	out, h, sEnd := m.body(scope, x, phase)
	// Conjunctive pooling (Section 4.4, Eq. 13): per-shape logits φ(O)
	// weighted by the attention scores α(O), averaged over the shapes.
	tokenLogits := m.linear(scope.In("head"), h, m.Shape.NumClasses, true) // [B, n, C]
	out.Logits = ReduceMean(Mul(tokenLogits, sEnd), 1)
	return out
}

// body runs the shape embedding and the L soft shape learning blocks of one
// scale (the paper's Section 4.1 and Algorithm 1). It returns the outputs without logits, the last layer's tokens h [B, n, d] and
// their final attention scores sEnd [B, n, 1].
func (m *Model) body(scope *model.Scope, x *Node, phase Phase) (out *Outputs, h, sEnd *Node) {
	cfg, sh := m.Config, m.Shape
	g := x.Graph()
	d := cfg.EmbedDim
	out = &Outputs{}

	// Shape embedding (Eq. 2): windows of length m, stride q → [B, J, d],
	// plus learnable positional embeddings.
	h = m.embedShapes(scope.In("shape_embedding"), x)
	out.Stages[0] = ReduceMean(h, 1)
	pos := m.param(scope.In("positional").WithInitializer(zeroInit), "embedding", h.DType(), 1, sh.NumShapes, d).NodeValue(g)
	h = addBroadcast(h, pos)
	h = m.dropout(scope, h, cfg.Dropout)

	remain := cfg.RemainFractions()
	aux := ScalarZero(g, h.DType())
	attnScope := scope.In("attention")
	moeScope := scope.In("moe")
	var intra, inter *Node
	for l := 0; l < cfg.Depth; l++ {
		ls := scope.In("layer_%d", l)
		r := 1.0
		if phase == Sparse {
			r = remain[l]
		}
		sparse := r < 1

		// Soft shape sparsification (Section 4.2): scores (Eq. 3), soft
		// shapes (Eq. 4) and, in the sparse phase, the fused shape (Eq. 5).
		u := m.rmsNorm(ls.In("norm1"), h)
		s := m.attention(attnScope, u) // [B, n, 1]
		if l == 0 {
			out.ShapeScores = Reshape(s, s.Shape().Dimensions[0], s.Shape().Dimensions[1])
		}
		if sparse {
			k := KeptTokens(r, u.Shape().Dimensions[1])
			scores := Reshape(s, s.Shape().Dimensions[0], s.Shape().Dimensions[1])
			keep := topKMaskLinear(scores, k) // [B, n], 1 where kept
			if out.Kept == nil {
				out.Kept, out.KeptScores, out.KeptLayer = keep, scores, l
			}
			u = mergeKept(u, s, keep, k, cfg.FusedToken)
		} else {
			u = Mul(u, s)
		}
		// Soft shape learning block (Section 4.3): the sparsified shapes plus
		// the shared expert's inter-shape and the MoE's intra-shape outputs.
		v := m.rmsNorm(ls.In("norm2"), u)
		y := u
		intra, inter = v, v
		if cfg.Inter {
			inter = m.sharedExpert(ls, v)
			y = Add(y, inter)
		}
		if cfg.Intra && (sparse || cfg.MoELayers == MoELayersAll) {
			var moeAux *Node
			intra, moeAux = m.moe(moeScope, v)
			y = Add(y, intra)
			aux = Add(aux, moeAux)
		}
		if l == cfg.Depth-1 {
			y = m.dropout(scope, y, cfg.Dropout)
			sEnd = m.attention(attnScope, y)
		}
		h = m.gelu(y) // each layer's output through GELU (Section 4.4)
	}
	out.Stages[1] = ReduceMean(intra, 1)
	out.Stages[2] = ReduceMean(inter, 1)
	out.Stages[3] = ReduceMean(h, 1)
	out.AuxLoss = aux
	return out, h, sEnd
}

// embedShapes maps x [B, T] to shape embeddings [B, J, d]: a 1-D convolution with
// kernel m and stride q (the paper's Eq. 2), or a linear patch embedding (ablation
// "with Linear Shape": the same map with nn.Linear's initialisation).
func (m *Model) embedShapes(scope *model.Scope, x *Node) *Node {
	sh, d := m.Shape, m.Config.EmbedDim
	g := x.Graph()
	b := x.Shape().Dimensions[0]
	patches := windows(Reshape(x, b, sh.SeriesLen, 1), sh.ShapeLen, sh.Stride, sh.NumShapes) // [B, J, m]
	if m.Config.ShapeEmbed == ShapeEmbedLinear {
		return m.linear(scope, patches, d, true)
	}
	w := m.convWeights(scope, x.DType(), sh.ShapeLen, 1, d).NodeValue(g)
	bound := 1 / math.Sqrt(float64(sh.ShapeLen))
	bias := m.param(scope.WithInitializer(uniformInit(scope, bound)), "bias", x.DType(), d).NodeValue(g)
	return addBias(m.matMul(patches, w), bias)
}

// attention is the gated attention head α of Eq. 3, σ(W₂·tanh(W₁·S + b₁) + b₂):
// Linear(d→d_attn) → tanh → Linear(d_attn→1) → sigmoid, giving a score in
// (0,1) per token [B, n, 1]. One
// instance is shared by every layer and the output pooling: every call re-enters
// the same variables of scope.
func (b Build) attention(scope *model.Scope, x *Node) *Node {
	hidden := Tanh(b.linear(scope.At("hidden"), x, attnDimOf(scope), true))
	return Sigmoid(b.linear(scope.At("score"), hidden, 1, true))
}

// attnDimOf reads d_attn from the scope's hyperparameters.
func attnDimOf(scope *model.Scope) int {
	return model.GetParamOr(scope, ParamAttnDim, DefaultConfig().AttnDim)
}

// merge is soft shape sparsification (Section 4.2). u [B, n, d] and scores
// s [B, n, 1]: the K tokens with the highest scores are kept, each multiplied by
// its score (the soft shapes of Eq. 4), in their original order; the other n−K,
// multiplied by their scores, are summed into one fused token (Eq. 5) appended
// last (when fused is true). The result is [B, K(+1), d].
// Ties go to the earlier token.
//
// It needs no sort and no n×n comparison, so its cost is linear in n and it
// runs on every backend (ONNX Runtime has no sort): topKMaskLinear marks the
// kept tokens, cumulative counts give every token its own slot (the kept ones
// first, then the dropped ones, each in order), one Scatter moves the weighted
// tokens there, and the dropped ones are summed by a reduction. The gradient
// of the Scatter is a Gather.
//
// No two tokens share a slot: ONNX Runtime's CPU scatter-add splits the
// updates over threads with no synchronisation, so tokens added into one slot
// come out in a varying order, and now and then one is lost
// (TestONNXMergeIsExactAndRepeatable).
func merge(u, s *Node, k int, fused bool) *Node {
	b, n := u.Shape().Dimensions[0], u.Shape().Dimensions[1]
	return mergeKept(u, s, topKMaskLinear(Reshape(s, b, n), k), k, fused)
}

// mergeKept is merge given keep [B, n], the 0/1 mask of the K tokens with the
// highest scores (topKMaskLinear of s), which Forward also reports.
func mergeKept(u, s, keep *Node, k int, fused bool) *Node {
	g := u.Graph()
	b, n, d := u.Shape().Dimensions[0], u.Shape().Dimensions[1], u.Shape().Dimensions[2]
	w := Mul(u, s)
	drop := OneMinus(keep)
	// Slot of a kept token: the number of kept tokens before it; of a dropped
	// token: K plus the number of dropped tokens before it.
	slot := Where(ConvertDType(keep, dtypes.Bool),
		Sub(CumSum(keep, 1), OnesLike(keep)),
		AddScalar(Sub(CumSum(drop, 1), OnesLike(drop)), float64(k)))
	rows := Iota(g, shapes.Make(dtypes.Int32, b, n, 1), 0)
	indices := Concatenate([]*Node{rows, Reshape(ConvertDType(slot, dtypes.Int32), b, n, 1)}, -1) // [B, n, 2]
	sorted := Scatter(StopGradient(indices), w, shapes.Make(w.DType(), b, n, d), false, true)     // [B, n, d]
	kept := Slice(sorted, AxisRange(), AxisRange(0, k))
	if !fused {
		return kept
	}
	var fusedToken *Node
	if k < n {
		fusedToken = ReduceAndKeep(Slice(sorted, AxisRange(), AxisRange(k, n)), ReduceSum, 1) // [B, 1, d]
	} else {
		fusedToken = Zeros(g, shapes.Make(w.DType(), b, 1, d))
	}
	return Concatenate([]*Node{kept, fusedToken}, 1)
}

// topKMaskLinear returns a 0/1 mask [rows, n] (dtype of x) marking, in each row
// of x [rows, n], the k largest entries; ties go to the earlier index, as
// topKMask and TopK's stable order. Instead of ranking, it finds the k-th
// largest value by bisection between the row's minimum and maximum (a fixed
// thresholdSteps halvings, each one comparison and one count, so cost linear in
// n), keeps every entry above it and, among the entries equal to it, the
// earliest ones up to k (a cumulative count). When the bisection has narrowed
// to adjacent float32 values the result is exactly topKMask's; it has whenever
// the k-th value v satisfies |v| ≥ 2⁻⁴⁰·(max−min) in its row; below that,
// entries within 2⁻⁶⁴·(max−min) of each other count as ties. No gradient.
func topKMaskLinear(x *Node, k int) *Node {
	g := x.Graph()
	dt := x.DType()
	x = StopGradient(x)
	kk := Scalar(g, dtypes.Int32, k)
	count := func(m *Node) *Node { return ReduceAndKeep(ConvertDType(m, dtypes.Int32), ReduceSum, -1) }
	// Invariants: count(x ≥ lo) ≥ k, count(x ≥ hi) < k.
	lo := ReduceAndKeep(x, ReduceMin, -1)
	mx := ReduceAndKeep(x, ReduceMax, -1)
	hi := Add(mx, AddScalar(MulScalar(Abs(mx), 1.0/1024), 1e-30))
	for range thresholdSteps {
		mid := MulScalar(Add(lo, hi), 0.5)
		enough := GreaterOrEqual(count(GreaterOrEqual(x, mid)), kk)
		lo = Where(enough, mid, lo)
		hi = Where(enough, hi, mid)
	}
	above := GreaterOrEqual(x, hi) // fewer than k: all kept
	tied := LogicalAnd(GreaterOrEqual(x, lo), LogicalNot(above))
	need := Sub(kk, count(above))
	tiedRank := CumSum(ConvertDType(tied, dtypes.Int32), -1) // 1-based among the tied
	keep := LogicalOr(above, LogicalAnd(tied, LessOrEqual(tiedRank, need)))
	return ConvertDType(keep, dt)
}

// thresholdSteps is the number of bisection steps of topKMaskLinear: 64
// halvings of the row's range reach adjacent float32 values for every k-th
// value down to 2⁻⁴⁰ of the range.
const thresholdSteps = 64

// Input dtypes used by the model.
const (
	// InputDType is the dtype of the series fed to the model.
	InputDType = dtypes.Float32
	// LabelDType is the dtype of the class labels.
	LabelDType = dtypes.Int32
)
