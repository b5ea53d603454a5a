package ablations

import "github.com/softshape-go/softshape/softshape"

// DefaultName is the name of the unmodified configuration.
const DefaultName = "SoftShape"

// Table2 returns the variants of the paper's ablation study (Table 2), in the
// paper's column order.
func Table2() []Variant {
	return []Variant{
		{Name: DefaultName, Description: "the full model: soft shape sparsification, MoE intra-shape and Inception inter-shape learning, conv shape embedding",
			Apply: set(func(*softshape.Config) {})},
		{Name: "w/o Soft Sparse", Description: "hard top-K shape selection: the merged shapes are dropped instead of fused into one embedding (fused_token=false)",
			Apply: set(func(c *softshape.Config) { c.FusedToken = false })},
		{Name: "w/o Intra", Description: "no MoE intra-shape learning (intra=false)",
			Apply: set(func(c *softshape.Config) { c.Intra = false })},
		{Name: "w/o Inter", Description: "no Inception inter-shape learning (inter=false)",
			Apply: set(func(c *softshape.Config) { c.Inter = false })},
		{Name: "w/o Intra & Inter", Description: "neither intra- nor inter-shape learning (intra=false, inter=false)",
			Apply: set(func(c *softshape.Config) { c.Intra, c.Inter = false, false })},
		{Name: "with Linear Shape", Description: "linear patch embedding of the shapes instead of the 1-D CNN (shape_embed=linear)",
			Apply: set(func(c *softshape.Config) { c.ShapeEmbed = softshape.ShapeEmbedLinear })},
	}
}
