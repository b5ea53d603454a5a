package softshape

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/model"
)

// forwardMultiSeq is the paper's Table 7 "Multi-Seq": one SoftShape per shape
// length of Config.MultiSeq (the paper's 8, 16, 32), run in parallel on the same
// series, each with its own variables (scope "scale_<m>"), fused by cross-scale
// residual fusion (Scale-teaching, Liu et al. 2023) from the first scale to the
// last:
//
//	z_s = mean_n(sEnd_s · h_s)                       the bag embedding of scale s, [B, d]
//	f_1 = z_1,  f_s = z_s + GELU(W_s [z_s ; f_{s−1}] + b_s)
//	logits = W_head f_S + b_head
//
// The paper gives no more detail than "cross-scale residual fusion"; this is the
// fine-to-coarse residual form of Scale-teaching written down in one place. The
// auxiliary MoE loss is the sum over the scales; ShapeScores and Kept are the
// first scale's (Model.Shape), Stages the last scale's.
func (m *Model) forwardMultiSeq(scope *model.Scope, x *Node, phase Phase) *Outputs {
	res := &Outputs{AuxLoss: ScalarZero(x.Graph(), x.DType())}
	var fused *Node
	for i, sh := range m.Scales {
		sub := &Model{Config: m.Config, Shape: sh, Build: m.Build, dispatch: m.dispatch}
		sub.Fast = false // the scales build the plain forms, as they always have
		out, h, sEnd := sub.body(scope.In("scale_%d", sh.ShapeLen), x, phase)
		z := ReduceMean(Mul(h, sEnd), 1) // [B, d]
		if i == 0 {
			fused = z
			res.ShapeScores, res.Kept, res.KeptScores, res.KeptLayer = out.ShapeScores, out.Kept, out.KeptScores, out.KeptLayer
		} else {
			cat := Concatenate([]*Node{z, fused}, -1)
			fused = Add(z, m.gelu(m.linear(scope.In("fusion_%d", i), cat, m.Config.EmbedDim, true)))
		}
		res.AuxLoss = Add(res.AuxLoss, out.AuxLoss)
		res.Stages = out.Stages
	}
	res.Logits = m.linear(scope.In("head"), fused, m.Shape.NumClasses, true)
	return res
}
