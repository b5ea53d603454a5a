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
	if blk := dispatchBlock(t, e, k, minDispatchBlock(g, d, dh), m.dispatch); blk > 0 {
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
// rows of routed dispatch would exceed 3/5 of the dense form's t·e rows: the
// gathers, cumulative counts and batched products cost about what they save
// above that. Blocks are a power of two between minBlock (at least 8) and 256,
// about a quarter of the average rows per expert, so padding adds at most about
// a quarter; minBlock keeps each block's product above a backend's
// small-matrix threshold (minDispatchBlock).
//
// Measured on 2 cores (GOEXPERIMENT=simd), the experts alone, forward and
// backward, 4,000 tokens, d=128, k=1: routed takes 0.55× the time of top1MLP
// at Ĉ=3 and 0.69× at Ĉ=2 on pure Go, 0.66× and 0.95× on ONNX Runtime; at
// 992 tokens with 256-row blocks (rows 0.60 and 0.77 of dense) 0.80× and 0.98×
// on pure Go, 0.9× and 1.07× on ONNX Runtime.
func dispatchBlock(t, e, k, minBlock int, mode dispatchMode) int {
	if k >= e || mode == dispatchDense {
		return 0
	}
	a := t * k
	blk := 8
	for blk < minBlock {
		blk *= 2
	}
	for blk < 256 && 2*blk <= a/(4*e) {
		blk *= 2
	}
	if mode == dispatchAuto && routedRows(a, e, blk)*5 > t*e*3 {
		return 0
	}
	return blk
}

// minDispatchBlock is the smallest block (a power of two) for routed dispatch
// of experts of widths d→dh on the backend of g: on the pure-Go backend each
// block's product [blk, d]×[d, dh] must reach the size (4 Mi multiply-adds)
// above which GoMLX multiplies with its packed, cache-blocked kernel; below
// it its simple kernel ran batched blocks at ≈3 GFLOP/s, a tenth of the
// packed one (256 rows at d = dh = 128). Other backends: 8.
func minDispatchBlock(g *Graph, d, dh int) int {
	if !onPureGo(g) {
		return 8
	}
	blk := 8
	for blk*d*dh < 4<<20 {
		blk *= 2
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
//     whole blocks of blk rows, so every block belongs to one expert: dst [A]
//     is each assignment's row, src [P] each row's assignment (A for padding).
//  3. Each block multiplies its rows by its expert's weights, selected per
//     block by a one-hot product ([P/blk, d, dh]): one batched matrix product
//     per layer (batchedMatmul).
//  4. Every assignment's output comes back by its row; the gates weight them.
//
// The tokens move only by Gather, in both directions (takeRows): the rows
// are a partial permutation, so the gradient of each Gather is a Gather by the
// inverse map, where automatic differentiation would scatter-add (on the
// pure-Go backend a Scatter of rows costs more than a Gather, and the block
// weights' Gather and its Scatter more than their one-hot products). The
// routing itself has no gradient, as in the dense form.
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
	dst := Add(ReduceSum(Mul(onehot, Reshape(padStart, 1, e)), -1), rank) // [A]
	dst = StopGradient(ConvertDType(dst, dtypes.Int32))
	// src = the inverse map: A everywhere, then each assignment's index at its row.
	assignment := Iota(g, shapes.Make(dtypes.Int32, a), 0)
	src := ScatterSum(BroadcastToDims(Scalar(g, dtypes.Int32, a), p), Reshape(dst, a, 1),
		SubScalar(assignment, float64(a)), false, true) // [P]
	src = StopGradient(src)
	srcToken := Where(Equal(src, Scalar(g, dtypes.Int32, a)), Scalar(g, dtypes.Int32, t), DivScalar(src, float64(k)))
	buf := withGradient([]*Node{tokens},
		func(in []*Node) *Node { return takeRowsOrZero(in[0], srcToken) }, // [P, d]
		func(_ []*Node, _, v *Node) []*Node {
			dTokens := takeRows(v, dst) // [A, d]
			if k > 1 {
				dTokens = ReduceSum(Reshape(dTokens, t, k, d), 1)
			}
			return []*Node{dTokens}
		})
	buf = Reshape(buf, nb, blk, d)
	// The expert of each block: how many experts' runs end at or before its start.
	starts := Iota(g, shapes.Make(dt, nb, 1), 0)
	starts = MulScalar(starts, float64(blk))
	blockExpert := ReduceSum(ConvertDType(LessOrEqual(Reshape(padEnd, 1, e), starts), dtypes.Int32), -1)
	blockExpert = MinScalar(blockExpert, float64(e-1))   // trailing empty blocks: any expert
	perBlock := StopGradient(OneHot(blockExpert, e, dt)) // [nb, E]
	// 3. Expert-major weights [E, …], one set per block.
	w1 := Reshape(matmul2D(perBlock, Reshape(TransposeAllDims(Reshape(w.w1, d, e, dh), 1, 0, 2), e, d*dh)), nb, d, dh)
	b1 := matmul2D(perBlock, Reshape(w.b1, e, dh))                       // [nb, dh]
	w2 := Reshape(matmul2D(perBlock, Reshape(w.w2, e, dh*d)), nb, dh, d) // [nb, dh, d]
	b2 := matmul2D(perBlock, w.b2)                                       // [nb, d]
	hidden := Add(batchedMatmul(buf, w1), Reshape(b1, nb, 1, dh))
	hidden = dropout(gelu(hidden))
	out := Add(batchedMatmul(hidden, w2), Reshape(b2, nb, 1, d)) // [nb, blk, d]
	// 4. Back to the assignments, weighted by their gates.
	back := withGradient([]*Node{Reshape(out, p, d)},
		func(in []*Node) *Node { return takeRows(in[0], dst) }, // [A, d]
		func(_ []*Node, _, v *Node) []*Node { return []*Node{takeRowsOrZero(v, src)} })
	gate := ReduceSum(Mul(Reshape(gates, t, 1, e), Reshape(onehot, t, k, e)), -1) // [T, k]
	if k == 1 {
		return Mul(back, gate)
	}
	return ReduceSum(Mul(Reshape(back, t, k, d), Reshape(gate, t, k, 1)), 1)
}

// takeRows returns the rows of x [N, d] at idx [M] (int32, each in [0, N)) as [M, d].
func takeRows(x, idx *Node) *Node { return Gather(x, Reshape(idx, idx.Shape().Size(), 1)) }

// takeRowsOrZero is takeRows where the index N also gives a row of zeros (the
// padding rows of routed dispatch): x is extended by one zero row first, a
// copy of x that takeRows by indices that never say N does without.
func takeRowsOrZero(x, idx *Node) *Node {
	zero := Zeros(x.Graph(), shapes.Make(x.DType(), 1, x.Shape().Dimensions[1]))
	return takeRows(Concatenate([]*Node{x, zero}, 0), idx)
}

// batchedMatmul multiplies x [G, B, K] by w [G, K, N] block by block into
// [G, B, N]. Its gradient is written by hand (see withGradient) so that the
// only copy is one transpose of x for the weight gradient: the input gradient
// v·wᵀ is a product in the layout the pure-Go backend multiplies directly,
// where GoMLX's own gradient transposes the weights, the output gradient and
// an identity permutation of the result.
func batchedMatmul(x, w *Node) *Node {
	return withGradient([]*Node{x, w},
		func(in []*Node) *Node { return DotGeneral(in[0], []int{2}, []int{0}, in[1], []int{1}, []int{0}) },
		func(in []*Node, _, v *Node) []*Node {
			x, w := in[0], in[1]
			dx := DotGeneral(v, []int{2}, []int{0}, w, []int{2}, []int{0})                            // [G, B, K]
			dw := DotGeneral(TransposeAllDims(x, 0, 2, 1), []int{2}, []int{0}, v, []int{1}, []int{0}) // [G, K, N]
			return []*Node{dx, dw}
		})
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
