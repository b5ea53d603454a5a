package softshape

import (
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/softshape-go/softshape/internal/kernels"
)

// moe is intra-shape learning (the paper's Section 4.3.1) over the tokens of
// v [B, n, d]:
//   - the router G = TOP_k(softmax(W_t·S̃)) (Eq. 6–7; W_t initialised to zero,
//     no bias), its k gates renormalised over the selected experts
//     (gate = p_i / (Σ_selected p + 1e-6), which for k=1 is the authors'
//     p/(p+1e-6); the paper's Eq. 9 writes a softmax over the selected);
//   - the experts h_e (Eq. 8), chosen by Config.MoEExpert: the paper's
//     Linear→GELU→Dropout→Linear, or for the appendix's study of MoE expert
//     networks an FCN block or TSLANet's ICB;
//   - the residual S̃ + Σ_e h_e (after Zoph et al.), then RMSNorm and GELU.
//
// It returns the output [B, n, d] and the auxiliary loss L_imp + L_load
// (Eq. 10–11, unweighted): cv²(importance) + cv²(load).
//
// The MLP experts run on the tokens routed to them only (kernels.MLPExperts);
// the convolutional experts (FCN, ICB) mix neighbouring tokens, so each of
// them runs on the whole sequence and is weighted by its gate (zero for
// experts not selected).
func (m *Model) moe(scope *model.Scope, v *Node) (*Node, *Node) {
	g := v.Graph()
	cfg, sh := m.Config, m.Shape
	b, n, d := v.Shape().Dimensions[0], v.Shape().Dimensions[1], v.Shape().Dimensions[2]
	e, k := sh.NumExperts, cfg.ExpertsK
	tokens := Reshape(v, b*n, d)
	router := m.param(scope.At("router").WithInitializer(zeroInit), "weights", v.DType(), d, e).NodeValue(g)
	p := Softmax(m.matMul(tokens, router), -1) // [T, E]
	gates, mask := topKGates(p, k)

	var y *Node // [T, d]: the gate-weighted sum of the experts' outputs
	switch cfg.MoEExpert {
	case MoEExpertFCN, MoEExpertICB:
		var outs *Node // [B, n, E, d]
		if cfg.MoEExpert == MoEExpertFCN {
			outs = m.fcnExperts(scope.At("experts"), v, e)
		} else {
			outs = m.icbExperts(scope.At("experts"), v, e, cfg.Dropout)
		}
		y = Reshape(Einsum("bne,bned->bnd", Reshape(gates, b, n, e), outs), b*n, d)
	default:
		y = m.mlpExperts(scope.At("experts"), tokens, gates, mask, k)
	}
	y = Add(tokens, y)
	y = m.gelu(m.rmsNorm(scope.At("norm"), y))

	importance := m.sumTokens(scope, gates)        // [E] ([R, E] with a run axis)
	load := StopGradient(m.sumTokens(scope, mask)) // [E], token counts
	aux := Add(cv2(importance), cv2(load))
	return Reshape(y, b, n, d), aux
}

// mlpExperts creates the paper's MLP experts (Eq. 8: Linear→GELU→Dropout→
// Linear, hidden width d, shared by every layer) and returns the gate-weighted
// sum of their outputs on tokens [T, d]; gates [T, Ĉ] are zero outside the k
// selected experts, marked by mask. kernels.MLPExperts runs them.
func (m *Model) mlpExperts(scope *model.Scope, tokens, gates, mask *Node, k int) *Node {
	g := tokens.Graph()
	d := tokens.Shape().Dimensions[1]
	e := gates.Shape().Dimensions[1]
	dh := d // the authors' hidden width
	dt := tokens.DType()
	w := kernels.ExpertWeights{
		W1: m.param(scope.At("fc1").WithInitializer(truncNormalInit(scope, 0.02)), "weights", dt, d, e*dh).NodeValue(g),
		B1: m.param(scope.At("fc1").WithInitializer(zeroInit), "bias", dt, e*dh).NodeValue(g),
		W2: m.param(scope.At("fc2").WithInitializer(truncNormalInit(scope, 0.02)), "weights", dt, e*dh, d).NodeValue(g),
		B2: m.param(scope.At("fc2").WithInitializer(zeroInit), "bias", dt, e, d).NodeValue(g),
	}
	dropout := func(x *Node) *Node { return layers.DropoutStatic(scope, x, m.Config.Dropout) }
	return expertsByRun(scope, tokens, gates, mask, w, func(tokens, gates, mask *Node, w kernels.ExpertWeights) *Node {
		return kernels.MLPExperts(tokens, gates, mask, k, w, dropout, m.dispatch)
	})
}

// topKGates is the router's TOP_k (Eq. 7) with the authors' renormalisation:
// for each row of the router probabilities p [T, E] it keeps the k largest and
// renormalises them: gate_i = p_i / (Σ_selected p + 1e-6) for the selected
// experts, 0 for the others. mask [T, E] is 1 for the selected experts.
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

// topKMask returns a 0/1 mask [rows, n] (dtype of x) marking, in each row of
// x [rows, n], the k largest entries; ties go to the earlier index, as TopK's
// stable order. It ranks entries pairwise (rank_i = #{j: x_j > x_i, or x_j = x_i
// and j < i}) and keeps rank < k: no sort, and no gradient (it is a selection).
// Its n² comparisons suit the router's few experts; long token sequences use
// topKMaskLinear.
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

// cv2 is CV(x)² of L_imp and L_load (Eq. 10–11): the squared coefficient of
// variation var(x)/(mean(x)²+1e-10) with the unbiased variance, as the
// authors' code; 0 for a single expert. With a run axis x is [R, E] and the
// result [R].
func cv2(x *Node) *Node {
	if x.Rank() == 2 { // a run axis: one per run
		return perRunCV2(x)
	}
	e := x.Shape().Dimensions[0]
	if e < 2 {
		return ScalarZero(x.Graph(), x.DType())
	}
	mean := ReduceAllMean(x)
	variance := DivScalar(ReduceAllSum(Square(Sub(x, mean))), float64(e-1))
	return Div(variance, AddScalar(Square(mean), 1e-10))
}
