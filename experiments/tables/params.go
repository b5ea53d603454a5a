package tables

import (
	"math"

	"github.com/softshape-go/softshape/paper"
)

// ParamsRow is one dataset of the parameter and inference time section.
type ParamsRow struct {
	// Dataset is the dataset name.
	Dataset string
	// Params is our mean trainable parameter count; Inference our mean time
	// in seconds to evaluate one fold's test split (≈20% of the dataset) on
	// the recording machine; NaN without runs.
	Params, Inference float64
	// PaperInference is the paper's printed inference time for the dataset
	// ("" when the paper gives none).
	PaperInference string
}

// ParamsSection is the parameter count and inference time comparison of the
// "params_inference_time" table.
type ParamsSection struct {
	// Rows has one row per dataset.
	Rows []ParamsRow
	// PaperParams is the paper's printed parameter count of SoftShape.
	PaperParams string
	// Baselines are the paper's printed rows of the other methods: method →
	// metric → value.
	Baselines map[string]map[string]string
}

// paramsSection builds the section from our SoftShape column.
func paramsSection(t *Table, ps *paper.SummaryTable) *ParamsSection {
	sec := &ParamsSection{Baselines: map[string]map[string]string{}}
	sec.PaperParams, _ = ps.Value(paper.MetricParams, "SoftShape")
	col := -1
	for j, c := range t.Columns {
		if c.Name == "SoftShape" && c.Measured() {
			col = j
		}
	}
	for _, r := range t.Rows {
		row := ParamsRow{Dataset: r.Dataset, Params: math.NaN(), Inference: math.NaN()}
		if col >= 0 {
			row.Params, row.Inference = r.Ours[col].Params, r.Ours[col].Inference
		}
		row.PaperInference, _ = ps.Value(paper.MetricInferencePrefix+r.Dataset, "SoftShape")
		sec.Rows = append(sec.Rows, row)
	}
	for _, m := range ps.Methods {
		if m == "SoftShape" {
			continue
		}
		sec.Baselines[m] = map[string]string{}
		for _, metric := range ps.Metrics {
			if v, ok := ps.Value(metric, m); ok {
				sec.Baselines[m][metric] = v
			}
		}
	}
	return sec
}
