package softshape

import (
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
)

// Two independent formulations of soft shape sparsification, kept as test
// references for merge (the model used each of them before the linear form).

// mergePairwise ranks the tokens pairwise (topKMask, n² comparisons), and a
// one-hot placement matrix [B, K, n] moves the kept tokens into place with one
// batched matrix product.
func mergePairwise(u, s *Node, k int, fused bool) *Node {
	b, n := u.Shape().Dimensions[0], u.Shape().Dimensions[1]
	w := Mul(u, s)
	keep := topKMask(Reshape(s, b, n), k) // [B, n], 1 where kept
	slot := Sub(CumSum(keep, 1), OnesLike(keep))
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

// mergeSorted takes the indices of the K best scores (TopK, stable), sorts them
// back into temporal order and gathers the kept tokens; the fused token is the
// sum of all weighted tokens minus the kept ones. (Not on ONNX Runtime: no sort.)
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
