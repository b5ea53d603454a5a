package ablations

import (
	"fmt"
	"strconv"

	"github.com/softshape-go/softshape/softshape"
)

// SparseRatio returns the sparse ratio sweep of Table 3: "0%", "10%", "30%",
// "50%" (the default), "70%", "90%", i.e. softshape.Config.SparseRatio = 0,
// 0.1, 0.3, 0.5, 0.7, 0.9 (the fraction of shapes fused into one embedding).
func SparseRatio() []Variant {
	pcts := []int{0, 10, 30, 50, 70, 90}
	out := make([]Variant, len(pcts))
	for i, p := range pcts {
		eta := float64(p) / 100
		out[i] = Variant{
			Name:        strconv.Itoa(p) + "%",
			Description: fmt.Sprintf("sparse ratio %d%%: a fraction %g of the shapes is fused into one embedding (sparse_ratio=%g)", p, eta, eta),
			Apply:       set(func(c *softshape.Config) { c.SparseRatio = eta }),
		}
	}
	return out
}

// ExpertsK returns the sweep of the number of activated experts k of Table 4:
// "k=1" (the default) .. "k=4". k larger than the number of experts Ĉ (e.g.
// k=3 on a two-class dataset with Ĉ=C) is rejected by softshape.Config.Resolve.
func ExpertsK() []Variant {
	return countSweep("k=", 4, "each shape is routed to k=%d experts (experts_k=%d)",
		func(c *softshape.Config, k int) { c.ExpertsK = k })
}

// countSweep returns the variants prefix+"1" .. prefix+"n" of an integer
// setting: variant v is described by description with v for both of its two
// %d verbs, and apply sets v.
func countSweep(prefix string, n int, description string, apply func(c *softshape.Config, v int)) []Variant {
	out := make([]Variant, n)
	for i := range out {
		v := i + 1
		out[i] = Variant{
			Name:        prefix + strconv.Itoa(v),
			Description: fmt.Sprintf(description, v, v),
			Apply:       set(func(c *softshape.Config) { apply(c, v) }),
		}
	}
	return out
}

// StrideQ returns the sliding step sweep of Table 5: "q=1", "q=2", "q=3",
// "q=4", "q=m". "q=4" is the default stride "auto" (the authors' rule: 4,
// capped at m; see softshape.StrideAuto), the configuration behind the
// paper's q=4 column (equal to its default SoftShape results).
func StrideQ() []Variant {
	out := countSweep("q=", 3, "shapes start every %d time steps (stride=%d)",
		func(c *softshape.Config, q int) { c.Stride = softshape.Stride(strconv.Itoa(q)) })
	out = append(out,
		Variant{Name: "q=4", Description: "shapes start every 4 time steps, capped at m (stride=auto, the default)",
			Apply: set(func(c *softshape.Config) { c.Stride = softshape.StrideAuto })},
		Variant{Name: "q=m", Description: "non-overlapping shapes: the stride equals the shape length (stride=m)",
			Apply: set(func(c *softshape.Config) { c.Stride = softshape.StrideShapeLength })},
	)
	return out
}

// DepthL returns the depth sweep of Table 6: "L=1" .. "L=6" ("L=2" is the
// default).
func DepthL() []Variant {
	return countSweep("L=", 6, "%d stacked SoftShape layers (depth=%d)",
		func(c *softshape.Config, l int) { c.Depth = l })
}

// FixedName is the Table 7 column with the fixed shape length m = 8.
const FixedName = "Fixed-8"

// MultiSeqName is the Table 7 column that uses shapes of several lengths.
const MultiSeqName = "Multi-Seq"

// MultiSeqLengths are the shape lengths of the paper's Multi-Seq column.
const MultiSeqLengths = "8,16,32"

// ValSelectName is the paper's Table 7 column "Val-Select": the authors'
// per-dataset shape length (softshape.RefShapeLength), which they chose on
// validation data, i.e. the default configuration (its cells equal Table 3's
// η = 50% cells in the paper). Choosing m per fold among
// ValSelectCandidates by validation loss (RunValSelect) is a stricter and
// about nine times dearer reading that the paper's table does not use.
const ValSelectName = "Val-Select"

// ShapeLength returns the shape length variants of Table 7: "Fixed-8", the
// other Val-Select candidates (ValSelectCandidates) and "Multi-Seq" (three
// SoftShapes with m = 8, 16, 32 in parallel, fused by cross-scale residual
// fusion: softshape.Config.MultiSeq).
func ShapeLength() []Variant {
	out := ValSelectCandidates()
	return append(out, Variant{Name: MultiSeqName, Description: "three SoftShapes with m = 8, 16, 32 in parallel, cross-scale residual fusion (multi_seq=8,16,32)",
		Apply: set(func(c *softshape.Config) { c.MultiSeq = MultiSeqLengths })})
}

// ValSelectCandidates returns the shape lengths that Val-Select chooses from,
// m ∈ {4, 8, 16, 24, 32, 48, 64, 0.1T, 0.8T}, in that order; m = 8 is the
// "Fixed-8" variant. A candidate longer than the series (m > T) is rejected by
// softshape.Config.Resolve and is skipped by the selection.
func ValSelectCandidates() []Variant {
	var out []Variant
	for _, m := range []int{4, 8, 16, 24, 32, 48, 64} {
		name := "m=" + strconv.Itoa(m)
		if m == 8 {
			name = FixedName
		}
		out = append(out, Variant{
			Name:        name,
			Description: fmt.Sprintf("fixed shape length m=%d (shape_length=%d)", m, m),
			Apply:       set(func(c *softshape.Config) { c.ShapeLength, c.ShapeLengthRatio = m, 0 }),
		})
	}
	for _, r := range []float64{0.1, 0.8} {
		out = append(out, Variant{
			Name:        fmt.Sprintf("m=%gT", r),
			Description: fmt.Sprintf("shape length m = int(%g·T) (shape_length_ratio=%g)", r, r),
			Apply:       set(func(c *softshape.Config) { c.ShapeLengthRatio = r }),
		})
	}
	return out
}
