package sweep

import (
	"fmt"
	"slices"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/paper"
)

// quickDatasets are the small datasets that quick mode prefers.
func quickDatasets() []string { return []string{"ItalyPowerDemand", "GunPoint"} }

// paramsDatasets are the datasets of the paper's parameter and inference
// time table.
func paramsDatasets() []string { return []string{"ChlorineConcentration", "HouseTwenty"} }

// DefaultDatasets returns the datasets a sweep of table uses when none are
// given: for "main" and "ablation" the registry datasets present under
// dataRoot; for the 18-dataset tables and the appendix studies the paper's 18
// analysis datasets (missing ones are fetched by the runner, or reported);
// for "params_inference_time" ChlorineConcentration and HouseTwenty. Quick
// mode keeps only the small datasets ItalyPowerDemand and GunPoint when the
// list has them, else the first one present under dataRoot (or the first).
func DefaultDatasets(table string, quick bool, dataRoot string) ([]string, error) {
	var list []string
	switch table {
	case "main", "ablation":
		for _, info := range data.Registry() {
			if data.Present(dataRoot, info.Name) {
				list = append(list, info.Name)
			}
		}
		if len(list) == 0 {
			return nil, fmt.Errorf("table %s: none of the 128 UCR datasets is under %s (give -data or -datasets)", table, dataRoot)
		}
	case "params_inference_time":
		list = paramsDatasets()
	case "lightts_shapeformer":
		t, err := paper.PerDataset(table)
		if err != nil {
			return nil, err
		}
		list = t.Datasets
	default:
		t, err := paper.PerDataset("sparse_ratio") // the 18 analysis datasets
		if err != nil {
			return nil, err
		}
		list = t.Datasets
	}
	if !quick {
		return list, nil
	}
	var out []string
	for _, d := range quickDatasets() {
		if slices.Contains(list, d) {
			out = append(out, d)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	for _, d := range list {
		if data.Present(dataRoot, d) {
			return []string{d}, nil
		}
	}
	return list[:1], nil
}
