package softshape

import (
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/model"
)

// moe is the intra-shape mixture of experts over the tokens of v [B, n, d]:
// a softmax router over Ĉ experts (weights initialised to zero, no bias), top-k
// gating renormalised over the selected experts (gate = p_i / (Σ_selected p + 1e-6),
// which for k=1 is the authors' p/(p+1e-6)), experts chosen by Config.MoEExpert
// (the paper's Linear→GELU→Dropout→Linear, an FCN block or TSLANet's ICB),
// a residual, then RMSNorm and GELU. It returns the output [B, n, d] and the
// auxiliary loss cv²(importance) + cv²(load).
//
// The paper's MLP experts run on the tokens routed to them only (mlpExperts:
// cost in proportion to k, not Ĉ); the convolutional experts (FCN, ICB) mix
// neighbouring tokens, so each of them runs on the whole sequence and is
// weighted by its gate (zero for experts not selected).
func (m *Model) moe(scope *model.Scope, v *Node) (*Node, *Node) {
	g := v.Graph()
	cfg, sh := m.Config, m.Shape
	b, n, d := v.Shape().Dimensions[0], v.Shape().Dimensions[1], v.Shape().Dimensions[2]
	e, k := sh.NumExperts, cfg.ExpertsK
	tokens := Reshape(v, b*n, d)
	router := scope.At("router").WithInitializer(zeroInit).
		VariableWithShape("weights", shapes.Make(v.DType(), d, e)).NodeValue(g)
	p := Softmax(matmul2D(tokens, router), -1) // [T, E]
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
		y = m.mlpExperts(scope.At("experts"), tokens, gates, mask, k)
	}
	y = Add(tokens, y)
	y = gelu(rmsNorm(scope.At("norm"), y))

	importance := ReduceSum(gates, 0)        // [E]
	load := StopGradient(ReduceSum(mask, 0)) // [E], token counts
	aux := Add(cv2(importance), cv2(load))
	return Reshape(y, b, n, d), aux
}

// mlpExperts evaluates the paper's experts Linear→GELU→Dropout→Linear (hidden
// width d) on tokens [T, d] and returns the gate-weighted sum of their outputs
// [T, d]; gates [T, E] are zero outside the k selected experts, marked by mask.
//
// When k < Ĉ and the sizes make it pay (dispatchBlock), each token runs only
// through its k experts (dispatchedMLP); otherwise all experts run on every
// token as one pair of matrix products and are weighted by the gates
// (denseMLP; with k=1, top1MLP, which runs the GELU on the selected expert's
// units only). All give the same result.
func (m *Model) mlpExperts(scope *model.Scope, tokens, gates, mask *Node, k int) *Node {
	g := tokens.Graph()
	t, d := tokens.Shape().Dimensions[0], tokens.Shape().Dimensions[1]
	e := gates.Shape().Dimensions[1]
	dh := d // the authors' hidden width
	w := expertWeights{
		w1: scope.At("fc1").WithInitializer(truncNormalInit(scope, 0.02)).
			VariableWithShape("weights", shapes.Make(tokens.DType(), d, e*dh)).NodeValue(g),
		b1: scope.At("fc1").WithInitializer(zeroInit).
			VariableWithShape("bias", shapes.Make(tokens.DType(), e*dh)).NodeValue(g),
		w2: scope.At("fc2").WithInitializer(truncNormalInit(scope, 0.02)).
			VariableWithShape("weights", shapes.Make(tokens.DType(), e*dh, d)).NodeValue(g),
		b2: scope.At("fc2").WithInitializer(zeroInit).
			VariableWithShape("bias", shapes.Make(tokens.DType(), e, d)).NodeValue(g),
	}
	dropout := func(x *Node) *Node { return layers.DropoutStatic(scope, x, m.Config.Dropout) }
	if blk := dispatchBlock(t, e, k, m.dispatch); blk > 0 {
		return dispatchedMLP(tokens, gates, mask, k, blk, w, dropout)
	}
	if k == 1 && e > 1 {
		return top1MLP(tokens, gates, mask, w, dropout)
	}
	return denseMLP(tokens, gates, w, dropout)
}

// top1MLP is denseMLP for top-1 gating (the authors' k=1; mask [T, E] one-hot):
// the first product still runs every expert on every token, but the GELU and
// the dropout run only on each token's selected expert's hidden units [T, dh],
// picked by the mask, then placed back in that expert's block of the second
// product's input (zeros elsewhere, where denseMLP's gates are zero). The same
// output and gradients as denseMLP (the unselected gates are zero and have no
// gradient, see topKGates), with 1/Ĉ of its element-wise work: at Ĉ=3 the
// experts' exact GELU is most of the MoE's cost on the pure-Go backend.
func top1MLP(tokens, gates, mask *Node, w expertWeights, dropout func(*Node) *Node) *Node {
	t, e := gates.Shape().Dimensions[0], gates.Shape().Dimensions[1]
	dh := w.w1.Shape().Dimensions[1] / e
	sel := Reshape(StopGradient(mask), t, e, 1)
	pre := Reshape(addBias(matmul2D(tokens, w.w1), w.b1), t, e, dh)
	hidden := dropout(gelu(ReduceSum(Mul(pre, sel), 1)))            // [T, dh]
	hidden = Mul(hidden, ReduceAndKeep(gates, ReduceSum, -1))       // × the selected gate
	placed := Reshape(Mul(Reshape(hidden, t, 1, dh), sel), t, e*dh) // [T, E·dh]
	return Add(matmul2D(placed, w.w2), matmul2D(gates, w.b2))
}

// denseMLP runs every expert on every token of tokens [T, d], as one pair of
// matrix products, and weights the outputs by gates [T, E].
func denseMLP(tokens, gates *Node, w expertWeights, dropout func(*Node) *Node) *Node {
	t, e := gates.Shape().Dimensions[0], gates.Shape().Dimensions[1]
	dh := w.w1.Shape().Dimensions[1] / e
	hidden := gelu(addBias(matmul2D(tokens, w.w1), w.b1)) // [T, E·dh]
	hidden = dropout(hidden)
	hidden = Mul(Reshape(hidden, t, e, dh), Reshape(gates, t, e, 1))
	return Add(matmul2D(Reshape(hidden, t, e*dh), w.w2), matmul2D(gates, w.b2))
}

// expertWeights are the MLP experts' variables, laid out for the dense form:
// w1 [d, E·dh], b1 [E·dh], w2 [E·dh, d], b2 [E, d] (expert-major blocks).
type expertWeights struct{ w1, b1, w2, b2 *Node }

// Dispatch chooses how the MLP experts run (Model.dispatch; tests set it).
type dispatchMode int

const (
	dispatchAuto   dispatchMode = iota // by dispatchBlock's cost rule
	dispatchDense                      // all experts on every token
	dispatchRouted                     // only the selected experts, whenever k < Ĉ
)

// dispatchBlock returns the block size of routed dispatch for t tokens, e
// experts and k selected per token, or 0 when the dense form is used: always
// when k ≥ e (every expert runs anyway), and, in auto mode, when the padded
// rows of routed dispatch would exceed a third of the dense form's t·e rows:
// the scatter, gathers, cumulative counts and batched products (slower than
// rank-2 products on pure Go) cost about what they save above that. Measured
// on 2 cores with GOEXPERIMENT=simd: at Ĉ=2, k=1 (rows ≈0.6 of dense) routed
// was equal on ONNX Runtime and 6% slower on pure Go; at Ĉ=3, k=1 (≈0.45)
// still 5% slower on pure Go; at Ĉ=5 (≈0.25) faster. Blocks are a power of two
// between 8 and 256, about a quarter of the average rows per expert, so
// padding adds at most about a quarter.
func dispatchBlock(t, e, k int, mode dispatchMode) int {
	if k >= e || mode == dispatchDense {
		return 0
	}
	a := t * k
	blk := 8
	for blk < 256 && 2*blk <= a/(4*e) {
		blk *= 2
	}
	if mode == dispatchAuto && routedRows(a, e, blk)*3 > t*e {
		return 0
	}
	return blk
}

// routedRows is the static row count of routed dispatch's padded buffer for a
// assignments, e experts and blocks of blk rows: every expert's rows rounded
// up to whole blocks fit in ⌈a/blk⌉ + e blocks.
func routedRows(a, e, blk int) int { return ((a+blk-1)/blk + e) * blk }

// dispatchedMLP runs each token of tokens [T, d] through only its k selected
// experts (mask [T, E]) and returns Σ gate·expert(token) [T, d], as the dense
// form does, with every shape static:
//
//  1. The j-th selected expert of each token, sel [T, k], and each assignment's
//     rank among the assignments of its expert (a cumulative count).
//  2. Every expert's assignments get a run of rows in a buffer [P, d], padded to
//     whole blocks of blk rows; one Scatter places the tokens (padding rows stay
//     zero), so every block belongs to one expert.
//  3. Each block multiplies its rows by its expert's weights, gathered per block
//     ([P/blk, d, dh]): one batched matrix product per layer.
//  4. One Gather brings every assignment's output back; the gates weight them.
//
// Gradients flow through the Scatter and Gathers (each the other's transpose)
// and the gates; the routing itself has none, as in the dense form.
func dispatchedMLP(tokens, gates, mask *Node, k, blk int, w expertWeights, dropout func(*Node) *Node) *Node {
	g := tokens.Graph()
	dt := tokens.DType()
	t, d := tokens.Shape().Dimensions[0], tokens.Shape().Dimensions[1]
	e := gates.Shape().Dimensions[1]
	dh := w.w1.Shape().Dimensions[1] / e
	a := t * k
	p := routedRows(a, e, blk)
	nb := p / blk

	// 1. sel[t, j] = #{experts e' : selected among 0..e' ≤ j}: the (j+1)-th selected.
	mask = StopGradient(mask)
	upTo := Reshape(CumSum(mask, -1), t, 1, e)
	js := Iota(g, shapes.Make(dt, t, k, e), 1)
	sel := ReduceSum(ConvertDType(LessOrEqual(upTo, js), dtypes.Int32), -1) // [T, k]
	onehot := OneHot(Reshape(sel, a), e, dt)                                // [A, E]
	rank := ReduceSum(Mul(Sub(CumSum(onehot, 0), OnesLike(onehot)), onehot), -1)
	// 2. Rows of each expert: [start, start+count) inside its padded run.
	counts := ReduceSum(onehot, 0) // [E]
	padded := MulScalar(Ceil(DivScalar(counts, float64(blk))), float64(blk))
	padEnd := CumSum(padded, 0)
	padStart := Sub(padEnd, padded)
	dst := Add(ReduceSum(Mul(onehot, Reshape(padStart, 1, e)), -1), rank)     // [A]
	dst = StopGradient(Reshape(ConvertDType(dst, dtypes.Int32), a, 1))        // [A, 1]
	rows := Reshape(BroadcastToDims(Reshape(tokens, t, 1, d), t, k, d), a, d) // [A, d]
	buf := Reshape(Scatter(dst, rows, shapes.Make(dt, p, d), false, true), nb, blk, d)
	// The expert of each block: how many experts' runs end at or before its start.
	starts := Iota(g, shapes.Make(dt, nb, 1), 0)
	starts = MulScalar(starts, float64(blk))
	blockExpert := ReduceSum(ConvertDType(LessOrEqual(Reshape(padEnd, 1, e), starts), dtypes.Int32), -1)
	blockExpert = Reshape(MinScalar(blockExpert, float64(e-1)), nb, 1) // trailing empty blocks: any expert
	blockExpert = StopGradient(blockExpert)
	// 3. Expert-major weights [E, …], one set per block.
	w1 := Gather(TransposeAllDims(Reshape(w.w1, d, e, dh), 1, 0, 2), blockExpert) // [nb, d, dh]
	b1 := Gather(Reshape(w.b1, e, dh), blockExpert)                               // [nb, dh]
	w2 := Gather(Reshape(w.w2, e, dh, d), blockExpert)                            // [nb, dh, d]
	b2 := Gather(w.b2, blockExpert)                                               // [nb, d]
	hidden := Add(Einsum("gbd,gdh->gbh", buf, w1), Reshape(b1, nb, 1, dh))
	hidden = dropout(gelu(hidden))
	out := Add(Einsum("gbh,ghd->gbd", hidden, w2), Reshape(b2, nb, 1, d)) // [nb, blk, d]
	// 4. Back to the assignments, weighted by their gates.
	back := Reshape(Gather(Reshape(out, p, d), dst), t, k, d)
	gate := ReduceSum(Mul(Reshape(gates, t, 1, e), Reshape(onehot, t, k, e)), -1) // [T, k]
	return ReduceSum(Mul(back, Reshape(gate, t, k, 1)), 1)
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
