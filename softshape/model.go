package softshape

import (
	"math"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
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
		return "sparse"
	}
	return "dense"
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
	// Conjunctive pooling: per-shape logits weighted by attention, averaged.
	tokenLogits := linear(scope.In("head"), h, m.Shape.NumClasses, true) // [B, n, C]
	out.Logits = ReduceMean(Mul(tokenLogits, sEnd), 1)
	return out
}

// body runs the shape embedding and the L SoftShape layers of one scale. It
// returns the outputs without logits, the last layer's tokens h [B, n, d] and
// their final attention scores sEnd [B, n, 1].
func (m *Model) body(scope *model.Scope, x *Node, phase Phase) (out *Outputs, h, sEnd *Node) {
	cfg, sh := m.Config, m.Shape
	g := x.Graph()
	d := cfg.EmbedDim
	out = &Outputs{}

	// Shape embedding: windows of length m, stride q → [B, J, d].
	h = m.embedShapes(scope.In("shape_embedding"), x)
	out.Stages[0] = ReduceMean(h, 1)
	pos := scope.In("positional").WithInitializer(zeroInit).
		VariableWithShape("embedding", shapes.Make(h.DType(), 1, sh.NumShapes, d)).NodeValue(g)
	h = Add(h, pos)
	h = layers.DropoutStatic(scope, h, cfg.Dropout)

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

		u := rmsNorm(ls.In("norm1"), h)
		s := attention(attnScope, u) // [B, n, 1]
		if l == 0 {
			out.ShapeScores = Reshape(s, s.Shape().Dimensions[0], s.Shape().Dimensions[1])
		}
		if sparse {
			u = merge(u, s, KeptTokens(r, u.Shape().Dimensions[1]), cfg.FusedToken)
		} else {
			u = Mul(u, s)
		}
		v := rmsNorm(ls.In("norm2"), u)
		y := u
		intra, inter = v, v
		if cfg.Inter {
			inter = m.sharedExpert(ls, v)
			y = Add(y, inter)
		}
		if cfg.Intra && (sparse || cfg.MoELayers == "all") {
			var moeAux *Node
			intra, moeAux = m.moe(moeScope, v)
			y = Add(y, intra)
			aux = Add(aux, moeAux)
		}
		if l == cfg.Depth-1 {
			y = layers.DropoutStatic(scope, y, cfg.Dropout)
			sEnd = attention(attnScope, y)
		}
		h = gelu(y)
	}
	out.Stages[1] = ReduceMean(intra, 1)
	out.Stages[2] = ReduceMean(inter, 1)
	out.Stages[3] = ReduceMean(h, 1)
	out.AuxLoss = aux
	return out, h, sEnd
}

// embedShapes maps x [B, T] to shape embeddings [B, J, d]: a 1-D convolution with
// kernel m and stride q (the paper's), or a linear patch embedding (ablation
// "with Linear Shape": the same map with nn.Linear's initialisation).
func (m *Model) embedShapes(scope *model.Scope, x *Node) *Node {
	sh, d := m.Shape, m.Config.EmbedDim
	g := x.Graph()
	b := x.Shape().Dimensions[0]
	patches := windows(Reshape(x, b, sh.SeriesLen, 1), sh.ShapeLen, sh.Stride, sh.NumShapes) // [B, J, m]
	if m.Config.ShapeEmbed == "linear" {
		return linear(scope, patches, d, true)
	}
	w := convWeights(scope, x.DType(), sh.ShapeLen, 1, d).NodeValue(g)
	bound := 1 / math.Sqrt(float64(sh.ShapeLen))
	bias := scope.WithInitializer(uniformInit(scope, bound)).VariableWithShape("bias", shapes.Make(x.DType(), d)).NodeValue(g)
	return addBias(matmul2D(patches, w), bias)
}

// attention is the gated attention head A: Linear(d→d_attn) → tanh →
// Linear(d_attn→1) → sigmoid, giving a score in (0,1) per token [B, n, 1]. One
// instance is shared by every layer and the output pooling: every call re-enters
// the same variables of scope.
func attention(scope *model.Scope, x *Node) *Node {
	hidden := Tanh(linear(scope.At("hidden"), x, attnDimOf(scope), true))
	return Sigmoid(linear(scope.At("score"), hidden, 1, true))
}

// attnDimOf reads d_attn from the scope's hyperparameters.
func attnDimOf(scope *model.Scope) int {
	return model.GetParamOr(scope, ParamAttnDim, DefaultConfig().AttnDim)
}

// merge is soft shape sparsification. u [B, n, d] and scores s [B, n, 1]: the K
// tokens with the highest scores are kept, each multiplied by its score, in their
// original order; the other n−K, multiplied by their scores, are summed into one
// fused token appended last (when fused is true). The result is [B, K(+1), d].
// Ties go to the earlier token.
//
// Up to pairwiseMaxTokens tokens the selection is sort-free (mergePairwise), the
// faster form for the usual sizes; beyond, its n² cost would dominate long
// series, and mergeSorted (TopK, sort, gather: n log n) takes over. Both give
// the same result.
func merge(u, s *Node, k int, fused bool) *Node {
	if u.Shape().Dimensions[1] > pairwiseMaxTokens {
		return mergeSorted(u, s, k, fused)
	}
	return mergePairwise(u, s, k, fused)
}

// pairwiseMaxTokens is the largest token count merged by pairwise ranking.
const pairwiseMaxTokens = 256

// mergePairwise: topKMask ranks the tokens pairwise, and a one-hot placement
// matrix [B, K, n] moves the kept tokens into place with one batched matrix
// product, whose gradient is another matrix product (no gather/scatter).
func mergePairwise(u, s *Node, k int, fused bool) *Node {
	b, n := u.Shape().Dimensions[0], u.Shape().Dimensions[1]
	w := Mul(u, s)
	keep := topKMask(Reshape(s, b, n), k) // [B, n], 1 where kept
	// Output slot of each kept token: the number of kept tokens before it.
	slot := Sub(CumSum(keep, 1), OnesLike(keep)) // [B, n]
	slots := Iota(w.Graph(), shapes.Make(w.DType(), b, k, n), 1)
	place := Mul(
		ConvertDType(Equal(slots, BroadcastToDims(Reshape(slot, b, 1, n), b, k, n)), w.DType()),
		BroadcastToDims(Reshape(keep, b, 1, n), b, k, n)) // [B, K, n]
	kept := Einsum("bkn,bnd->bkd", StopGradient(place), w) // [B, K, d]
	if !fused {
		return kept
	}
	dropMask := Reshape(OneMinus(keep), b, n, 1)
	fusedTok := ReduceAndKeep(Mul(w, dropMask), ReduceSum, 1) // [B, 1, d]
	return Concatenate([]*Node{kept, fusedTok}, 1)
}

// mergeSorted: the indices of the K best scores (TopK, stable), sorted back
// into temporal order, pick the kept tokens with one batched gather; the fused
// token is the sum of all weighted tokens minus the kept ones.
func mergeSorted(u, s *Node, k int, fused bool) *Node {
	g := u.Graph()
	b, n := u.Shape().Dimensions[0], u.Shape().Dimensions[1]
	w := Mul(u, s)
	_, idx := TopK(StopGradient(Reshape(s, b, n)), k, -1) // [B, K]
	idx = Sort(ConvertDType(idx, dtypes.Int32), -1, true)
	rows := Iota(g, shapes.Make(dtypes.Int32, b, k, 1), 0)
	indices := Concatenate([]*Node{rows, Reshape(idx, b, k, 1)}, -1) // [B, K, 2]
	kept := Gather(w, StopGradient(indices), true)                   // [B, K, d]
	if !fused {
		return kept
	}
	fusedTok := Sub(ReduceAndKeep(w, ReduceSum, 1), ReduceAndKeep(kept, ReduceSum, 1)) // [B, 1, d]
	return Concatenate([]*Node{kept, fusedTok}, 1)
}

// topKMask returns a 0/1 mask [rows, n] (dtype of x) marking, in each row of
// x [rows, n], the k largest entries; ties go to the earlier index, as TopK's
// stable order. It ranks entries pairwise (rank_i = #{j: x_j > x_i, or x_j = x_i
// and j < i}) and keeps rank < k: no sort, and no gradient (it is a selection).
func topKMask(x *Node, k int) *Node {
	g := x.Graph()
	rows, n := x.Shape().Dimensions[0], x.Shape().Dimensions[1]
	x = StopGradient(x)
	xi := BroadcastToDims(Reshape(x, rows, n, 1), rows, n, n)
	xj := BroadcastToDims(Reshape(x, rows, 1, n), rows, n, n)
	jBeforeI := LessThan(Iota(g, shapes.Make(dtypes.Int32, rows, n, n), 2), Iota(g, shapes.Make(dtypes.Int32, rows, n, n), 1))
	beats := LogicalOr(GreaterThan(xj, xi), LogicalAnd(Equal(xj, xi), jBeforeI))
	rank := ReduceSum(ConvertDType(beats, dtypes.Int32), 2) // [rows, n]
	return ConvertDType(LessThan(rank, Scalar(g, dtypes.Int32, k)), x.DType())
}

// moe is the intra-shape mixture of experts over the tokens of v [B, n, d]:
// a softmax router over Ĉ experts (weights initialised to zero, no bias), top-k
// gating renormalised over the selected experts (gate = p_i / (Σ_selected p + 1e-6),
// which for k=1 is the authors' p/(p+1e-6)), experts chosen by Config.MoEExpert
// (the paper's Linear→GELU→Dropout→Linear, an FCN block or TSLANet's ICB),
// a residual, then RMSNorm and GELU. It returns the output [B, n, d] and the
// auxiliary loss cv²(importance) + cv²(load).
//
// Every expert is evaluated densely and weighted by its gate (zero for experts not
// selected), which equals sparse dispatch and keeps shapes static on every backend.
func (m *Model) moe(scope *model.Scope, v *Node) (*Node, *Node) {
	g := v.Graph()
	cfg, sh := m.Config, m.Shape
	b, n, d := v.Shape().Dimensions[0], v.Shape().Dimensions[1], v.Shape().Dimensions[2]
	e, k := sh.NumExperts, cfg.ExpertsK
	tokens := Reshape(v, b*n, d)
	router := scope.At("router").WithInitializer(zeroInit).
		VariableWithShape("weights", shapes.Make(v.DType(), d, e)).NodeValue(g)
	p := Softmax(Dot(tokens, router).Product(), -1) // [T, E]
	gates, mask := topKGates(p, k)

	var y *Node // [T, d]: the gate-weighted sum of the experts' outputs
	switch cfg.MoEExpert {
	case "fcn", "icb":
		var outs *Node // [B, n, E, d]
		if cfg.MoEExpert == "fcn" {
			outs = fcnExperts(scope.At("experts"), v, e)
		} else {
			outs = icbExperts(scope.At("experts"), v, e, cfg.Dropout)
		}
		y = Reshape(Einsum("bne,bned->bnd", Reshape(gates, b, n, e), outs), b*n, d)
	default:
		y = m.mlpExperts(scope.At("experts"), tokens, gates)
	}
	y = Add(tokens, y)
	y = gelu(rmsNorm(scope.At("norm"), y))

	importance := ReduceSum(gates, 0)        // [E]
	load := StopGradient(ReduceSum(mask, 0)) // [E], token counts
	aux := Add(cv2(importance), cv2(load))
	return Reshape(y, b, n, d), aux
}

// mlpExperts evaluates the paper's experts Linear→GELU→Dropout→Linear (hidden
// width d) on tokens [T, d], all experts as one pair of matrix products, and
// returns the gate-weighted sum of their outputs [T, d] (gates [T, E]).
func (m *Model) mlpExperts(scope *model.Scope, tokens, gates *Node) *Node {
	g := tokens.Graph()
	t, d := tokens.Shape().Dimensions[0], tokens.Shape().Dimensions[1]
	e := gates.Shape().Dimensions[1]
	dh := d
	w1 := scope.At("fc1").WithInitializer(truncNormalInit(scope, 0.02)).
		VariableWithShape("weights", shapes.Make(tokens.DType(), d, e*dh)).NodeValue(g)
	b1 := scope.At("fc1").WithInitializer(zeroInit).
		VariableWithShape("bias", shapes.Make(tokens.DType(), e*dh)).NodeValue(g)
	w2 := scope.At("fc2").WithInitializer(truncNormalInit(scope, 0.02)).
		VariableWithShape("weights", shapes.Make(tokens.DType(), e*dh, d)).NodeValue(g)
	b2 := scope.At("fc2").WithInitializer(zeroInit).
		VariableWithShape("bias", shapes.Make(tokens.DType(), e, d)).NodeValue(g)
	hidden := gelu(addBias(Dot(tokens, w1).Product(), b1)) // [T, E·dh]
	hidden = layers.DropoutStatic(scope, hidden, m.Config.Dropout)
	hidden = Mul(Reshape(hidden, t, e, dh), Reshape(gates, t, e, 1))
	return Add(Dot(Reshape(hidden, t, e*dh), w2).Product(), Dot(gates, b2).Product())
}

// topKGates keeps, for each row of the router probabilities p [T, E], the k
// largest and renormalises them: gate_i = p_i / (Σ_selected p + 1e-6) for the
// selected experts, 0 for the others. mask [T, E] is 1 for the selected experts.
// Gradients flow through p (not through the top-k choice).
func topKGates(p *Node, k int) (gates, mask *Node) {
	e := p.Shape().Dimensions[1]
	if k == 1 {
		mask = OneHot(ArgMax(StopGradient(p), -1), e, p.DType()) // [T, E]; ties go to the lowest index
	} else {
		mask = topKMask(p, k) // [T, E]
	}
	selected := Mul(p, mask)
	gates = Div(selected, AddScalar(ReduceAndKeep(selected, ReduceSum, -1), 1e-6))
	return gates, mask
}

// cv2 is the squared coefficient of variation var(x)/(mean(x)²+1e-10) with the
// unbiased variance, as the authors' code; 0 for a single expert.
func cv2(x *Node) *Node {
	e := x.Shape().Dimensions[0]
	if e < 2 {
		return ScalarZero(x.Graph(), x.DType())
	}
	mean := ReduceAllMean(x)
	variance := DivScalar(ReduceAllSum(Square(Sub(x, mean))), float64(e-1))
	return Div(variance, AddScalar(Square(mean), 1e-10))
}

// Input dtypes used by the model.
const (
	// InputDType is the dtype of the series fed to the model.
	InputDType = dtypes.Float32
	// LabelDType is the dtype of the class labels.
	LabelDType = dtypes.Int32
)
