package kernels

import (
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
)

// MLPExperts evaluates the paper's experts Linear→GELU→Dropout→Linear
// (Eq. 8; hidden width dh = w.W1's columns / Ĉ) on tokens [T, d] and returns
// the gate-weighted sum of their outputs [T, d]; gates [T, Ĉ] are zero
// outside the k selected experts, marked by mask.
//
// When k < Ĉ and the sizes make it pay (DispatchBlock), each token runs only
// through its k experts (DispatchedMLP); otherwise all experts run on every
// token as one pair of matrix products and are weighted by the gates
// (DenseMLP; with k=1, Top1MLP, which runs the GELU on the selected expert's
// units only). All give the same result; mode can force one form.
func MLPExperts(tokens, gates, mask *Node, k int, w ExpertWeights, dropout func(*Node) *Node, mode DispatchMode) *Node {
	t, d := tokens.Shape().Dimensions[0], tokens.Shape().Dimensions[1]
	e := gates.Shape().Dimensions[1]
	dh := w.W1.Shape().Dimensions[1] / e
	if blk := DispatchBlock(t, e, k, MinDispatchBlock(tokens.Graph(), d, dh), mode); blk > 0 {
		return DispatchedMLP(tokens, gates, mask, k, blk, w, dropout)
	}
	if k == 1 && e > 1 {
		return Top1MLP(tokens, gates, mask, w, dropout)
	}
	return DenseMLP(tokens, gates, w, dropout)
}

// ExpertWeights are the MLP experts' variables, laid out for the dense form:
// W1 [d, Ĉ·dh], B1 [Ĉ·dh], W2 [Ĉ·dh, d], B2 [Ĉ, d] (expert-major blocks).
type ExpertWeights struct{ W1, B1, W2, B2 *Node }

// DispatchMode chooses how MLPExperts runs the experts (the model's tests
// force each form).
type DispatchMode int

const (
	// DispatchAuto chooses by DispatchBlock's cost rule.
	DispatchAuto DispatchMode = iota
	// DispatchDense runs all experts on every token.
	DispatchDense
	// DispatchRouted runs only the selected experts, whenever k < Ĉ.
	DispatchRouted
)

// Top1MLP is DenseMLP for top-1 gating (the authors' k=1; mask [T, E] one-hot):
// the first product still runs every expert on every token, but the GELU and
// the dropout run only on each token's selected expert's hidden units [T, dh],
// picked by the mask, then placed back in that expert's block of the second
// product's input (zeros elsewhere, where DenseMLP's gates are zero). The same
// output and gradients as DenseMLP (the unselected gates are zero and have no
// gradient, see topKGates), with 1/Ĉ of its element-wise work: at Ĉ=3 the
// experts' exact GELU is most of the MoE's cost on the pure-Go backend.
func Top1MLP(tokens, gates, mask *Node, w ExpertWeights, dropout func(*Node) *Node) *Node {
	t, e := gates.Shape().Dimensions[0], gates.Shape().Dimensions[1]
	dh := w.W1.Shape().Dimensions[1] / e
	sel := Reshape(StopGradient(mask), t, e, 1)
	pre := Reshape(AddBias(MatMul2D(tokens, w.W1), w.B1), t, e, dh)
	hidden := dropout(GELU(ReduceSum(Mul(pre, sel), 1)))            // [T, dh]
	hidden = Mul(hidden, ReduceAndKeep(gates, ReduceSum, -1))       // × the selected gate
	placed := Reshape(Mul(Reshape(hidden, t, 1, dh), sel), t, e*dh) // [T, E·dh]
	return Add(MatMul2D(placed, w.W2), MatMul2D(gates, w.B2))
}

// DenseMLP runs every expert on every token of tokens [T, d], as one pair of
// matrix products, and weights the outputs by gates [T, E].
func DenseMLP(tokens, gates *Node, w ExpertWeights, dropout func(*Node) *Node) *Node {
	t, e := gates.Shape().Dimensions[0], gates.Shape().Dimensions[1]
	dh := w.W1.Shape().Dimensions[1] / e
	hidden := GELU(AddBias(MatMul2D(tokens, w.W1), w.B1)) // [T, E·dh]
	hidden = dropout(hidden)
	hidden = Mul(Reshape(hidden, t, e, dh), Reshape(gates, t, e, 1))
	return Add(MatMul2D(Reshape(hidden, t, e*dh), w.W2), MatMul2D(gates, w.B2))
}

// DispatchBlock returns the block size of routed dispatch for t tokens, e
// experts and k selected per token, or 0 when the dense form is used: always
// when k ≥ e (every expert runs anyway), and, in auto mode, when the padded
// rows of routed dispatch would exceed 3/5 of the dense form's t·e rows: the
// gathers, cumulative counts and batched products cost about what they save
// above that. Blocks are a power of two between minBlock (at least 8) and 256,
// about a quarter of the average rows per expert, so padding adds at most about
// a quarter; minBlock keeps each block's product above a backend's
// small-matrix threshold (MinDispatchBlock). The measurements behind the 3/5
// are in docs/performance.md, "Why the kernels take their forms".
func DispatchBlock(t, e, k, minBlock int, mode DispatchMode) int {
	if k >= e || mode == DispatchDense {
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
	if mode == DispatchAuto && routedRows(a, e, blk)*5 > t*e*3 {
		return 0
	}
	return blk
}

// MinDispatchBlock is the smallest block (a power of two) for routed dispatch
// of experts of widths d→dh on the backend of g: on the pure-Go backend each
// block's product [blk, d]×[d, dh] must reach the size (4 Mi multiply-adds)
// above which GoMLX multiplies with its packed, cache-blocked kernel (below
// it, its simple kernel runs batched blocks about ten times slower). Other
// backends: 8.
func MinDispatchBlock(g *Graph, d, dh int) int {
	if !OnPureGo(g) {
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

// DispatchedMLP runs each token of tokens [T, d] through only its k selected
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
//     per layer (BatchedMatMul).
//  4. Every assignment's output comes back by its row; the gates weight them.
//
// The tokens move only by Gather, in both directions (takeRows): the rows
// are a partial permutation, so the gradient of each Gather is a Gather by the
// inverse map, where automatic differentiation would scatter-add (on the
// pure-Go backend a Scatter of rows costs more than a Gather, and the block
// weights' Gather and its Scatter more than their one-hot products). The
// routing itself has no gradient, as in the dense form.
func DispatchedMLP(tokens, gates, mask *Node, k, blk int, w ExpertWeights, dropout func(*Node) *Node) *Node {
	g := tokens.Graph()
	dt := tokens.DType()
	t, d := tokens.Shape().Dimensions[0], tokens.Shape().Dimensions[1]
	e := gates.Shape().Dimensions[1]
	dh := w.W1.Shape().Dimensions[1] / e
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
	buf := WithGradient([]*Node{tokens},
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
	w1 := Reshape(MatMul2D(perBlock, Reshape(TransposeAllDims(Reshape(w.W1, d, e, dh), 1, 0, 2), e, d*dh)), nb, d, dh)
	b1 := MatMul2D(perBlock, Reshape(w.B1, e, dh))                       // [nb, dh]
	w2 := Reshape(MatMul2D(perBlock, Reshape(w.W2, e, dh*d)), nb, dh, d) // [nb, dh, d]
	b2 := MatMul2D(perBlock, w.B2)                                       // [nb, d]
	hidden := Add(BatchedMatMul(buf, w1), Reshape(b1, nb, 1, dh))
	hidden = dropout(GELU(hidden))
	out := Add(BatchedMatMul(hidden, w2), Reshape(b2, nb, 1, d)) // [nb, blk, d]
	// 4. Back to the assignments, weighted by their gates.
	back := WithGradient([]*Node{Reshape(out, p, d)},
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
