package ablations

import (
	"fmt"
	"strconv"

	"github.com/softshape-go/softshape/softshape"
)

// NumExperts returns the appendix study of the total number of experts Ĉ
// relative to the number of classes C: "hatC=C/2", "hatC=C" (the default),
// "hatC=2C".
func NumExperts() []Variant {
	specs := []softshape.NumExperts{softshape.NumExpertsHalfC, softshape.NumExpertsC, softshape.NumExpertsTwiceC}
	out := make([]Variant, len(specs))
	for i, s := range specs {
		out[i] = Variant{
			Name:        "hatC=" + string(s),
			Description: fmt.Sprintf("total number of experts Ĉ = %s (num_experts=%s)", s, s),
			Apply:       set(func(c *softshape.Config) { c.NumExperts = s }),
		}
	}
	return out
}

// LambdaValues are the MoE loss weights λ of the appendix study.
var lambdaValues = []float64{1e-4, 1e-3, 1e-2, 0.1, 1, 10, 100}

// Lambda returns the appendix study of the MoE loss weight λ:
// "lambda = 0.0001" .. "lambda = 100" ("lambda = 0.001" is the default).
func Lambda() []Variant {
	out := make([]Variant, len(lambdaValues))
	for i, l := range lambdaValues {
		out[i] = Variant{
			Name:        "lambda = " + strconv.FormatFloat(l, 'f', -1, 64),
			Description: fmt.Sprintf("MoE importance and load loss weight λ = %g (moe_loss_weight)", l),
			Apply:       set(func(c *softshape.Config) { c.MoELossWeight = l }),
		}
	}
	return out
}

// MoEExpertNetwork returns the appendix study of the network used as each
// MoE expert (softshape.Config.MoEExpert): an FCN block, TSLANet's interactive
// convolution block, and the paper's MLP.
func MoEExpertNetwork() []Variant {
	return []Variant{
		{Name: "MoE expert: FCN", Description: "an FCN block (convolutions 8, 5, 3 over the tokens) as each MoE expert (moe_expert=fcn)", Apply: set(func(c *softshape.Config) { c.MoEExpert = softshape.MoEExpertFCN })},
		{Name: "MoE expert: TSLANet (ICB)", Description: "TSLANet's interactive convolution block as each MoE expert (moe_expert=icb)", Apply: set(func(c *softshape.Config) { c.MoEExpert = softshape.MoEExpertICB })},
		{Name: "Original MoE expert", Description: "the paper's MoE expert: Linear→GELU→Dropout→Linear (the default)", Apply: set(func(*softshape.Config) {})},
	}
}

// SharedExpertNetwork returns the appendix study of the network used as the
// shared (inter-shape) expert (softshape.Config.SharedExpert): a Transformer
// encoder layer, a token-wise MLP, and the paper's Inception module.
func SharedExpertNetwork() []Variant {
	return []Variant{
		{Name: "Shared expert: Transformer", Description: "a Transformer encoder layer (8 heads, d_ff=4d) as the shared expert (shared_expert=transformer)", Apply: set(func(c *softshape.Config) { c.SharedExpert = softshape.SharedExpertTransformer })},
		{Name: "Shared expert: MLP", Description: "a token-wise MLP d→2d→d as the shared expert (shared_expert=mlp)", Apply: set(func(c *softshape.Config) { c.SharedExpert = softshape.SharedExpertMLP })},
		{Name: "Shared expert: Inception", Description: "the paper's Inception module as the shared expert (the default)", Apply: set(func(*softshape.Config) {})},
	}
}
