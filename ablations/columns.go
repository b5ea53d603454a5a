package ablations

import (
	"fmt"
	"strings"

	"github.com/softshape-go/softshape/paper"
)

// Column is one column of a paper table and how our value for it is obtained.
type Column struct {
	// Name is the paper's column label (a method or a setting).
	Name string
	// Variant names the variant whose runs give our value; "" for a baseline
	// method of the paper (not run here).
	Variant string
}

// Baseline reports a column that this project does not run (a method of the
// paper such as FCN or LightTS): only the paper's figures exist for it.
func (c Column) Baseline() bool { return c.Variant == "" }

// Plan is how one paper table maps onto variants.
type Plan struct {
	// Table is the table name of package paper.
	Table string
	// Columns are the table's columns in the paper's order.
	Columns []Column
	// Reference is the column the summary's p-values compare against: the
	// paper's reference column, or Default where the paper prints none.
	Reference string
	// Default is the column of the configuration used in the main experiments.
	Default string
}

// Variants returns the variants the table needs, each once, in column order,
// including those that need model support.
func (p Plan) Variants() []Variant {
	var out []Variant
	seen := map[string]bool{}
	add := func(name string) {
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		v, err := Lookup(name)
		if err != nil {
			panic(fmt.Sprintf("ablations: table %s names %v", p.Table, err)) // a bug in this package's tables
		}
		out = append(out, v)
	}
	for _, c := range p.Columns {
		add(c.Variant)
	}
	return out
}

// Column returns the named column; ok is false when the table lacks it.
func (p Plan) Column(name string) (Column, bool) {
	for _, c := range p.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// tableSpec maps a table's paper columns to variant names; columns missing
// from variants are baselines.
type tableSpec struct {
	variants   map[string]string
	def        string
	summaryRef bool // the table has no per-dataset paper table: use paper.Summary
}

// byLabel maps the paper's label of each variant of vs (paper.Notation of
// its name: "Ĉ=C/2" for the variant "hatC=C/2"; most names are their own
// label, such as "q=4") to its name, which names its records in the sweep
// store.
func byLabel(vs []Variant) map[string]string {
	m := make(map[string]string, len(vs))
	for _, v := range vs {
		m[paper.Notation(v.Name)] = v.Name
	}
	return m
}

// tableSpecs returns the column mappings of every table name.
func tableSpecs() map[string]tableSpec {
	return map[string]tableSpec{
		"main":                  {variants: map[string]string{"SoftShape": DefaultName}, def: "SoftShape"},
		"ablation":              {variants: byLabel(Table2()), def: "SoftShape"},
		"lightts_shapeformer":   {variants: map[string]string{"SoftShape": DefaultName}, def: "SoftShape"},
		"sparse_ratio":          {variants: byLabel(SparseRatio()), def: "50%"},
		"experts_k":             {variants: byLabel(ExpertsK()), def: "k=1"},
		"stride_q":              {variants: byLabel(StrideQ()), def: "q=4"},
		"depth_L":               {variants: byLabel(DepthL()), def: "L=2"},
		"shape_length_m":        {variants: map[string]string{ValSelectName: DefaultName, FixedName: FixedName, MultiSeqName: MultiSeqName}, def: ValSelectName},
		"num_experts":           {variants: byLabel(NumExperts()), def: "Ĉ=C", summaryRef: true},
		"lambda":                {variants: byLabel(Lambda()), def: "λ = 0.001", summaryRef: true},
		"moe_expert_network":    {variants: map[string]string{"FCN": "MoE expert: FCN", "TSLANet (ICB)": "MoE expert: TSLANet (ICB)", "Original MoE expert": "Original MoE expert"}, def: "Original MoE expert", summaryRef: true},
		"shared_expert_network": {variants: map[string]string{"Transformer": "Shared expert: Transformer", "MLP": "Shared expert: MLP", "Inception": "Shared expert: Inception"}, def: "Inception", summaryRef: true},
		"params_inference_time": {variants: map[string]string{"SoftShape": DefaultName}, def: "SoftShape", summaryRef: true},
	}
}

// TableNames returns the table names ForTable accepts, in the paper's order
// (those of paper.Names).
func TableNames() []string {
	specs := tableSpecs()
	var out []string
	for _, n := range paper.Names() {
		if _, ok := specs[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// ForTable returns how the named paper table maps onto variants. The columns
// are the paper's (paper.PerDataset, or paper.Summary for the tables that have
// only summary rows); Table 7's "Val-Select" is the default configuration
// (ValSelectName).
func ForTable(table string) (Plan, error) {
	spec, ok := tableSpecs()[table]
	if !ok {
		return Plan{}, fmt.Errorf("ablations: no variants for table %q (have %s)", table, strings.Join(TableNames(), ", "))
	}
	var methods []string
	var reference string
	if spec.summaryRef {
		s, err := paper.Summary(table)
		if err != nil {
			return Plan{}, err
		}
		methods, reference = s.Methods, s.Reference
	} else {
		t, err := paper.PerDataset(table)
		if err != nil {
			return Plan{}, err
		}
		methods, reference = t.Methods, t.Reference
	}
	if reference == "" {
		reference = spec.def
	}
	p := Plan{Table: table, Reference: reference, Default: spec.def}
	for _, m := range methods {
		p.Columns = append(p.Columns, Column{Name: m, Variant: spec.variants[m]})
	}
	return p, nil
}
