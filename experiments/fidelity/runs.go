package fidelity

import (
	"errors"
	"io/fs"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"

	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/paper"
	"github.com/softshape-go/softshape/softshape"
)

// Table and Variant are the sweep cells a fidelity run trains: SoftShape with
// the main experiments' settings.
const (
	Table   = "main"
	Variant = "SoftShape"
)

// Spec is a fidelity benchmark: the full protocol on datasets × seeds under
// one preset (plus optional extra settings, which a report then names).
type Spec struct {
	Datasets []string
	Seeds    []int64
	Preset   string
	// Settings are applied after the preset (e.g. "batch_rule=paper");
	// empty for the benchmark proper.
	Settings string
}

// Grid returns the sweep grid of the spec: 5 folds of each dataset and seed.
func (s Spec) Grid() (*sweep.Grid, error) {
	if _, err := softshape.Preset(s.Preset); err != nil {
		return nil, err
	}
	settings := softshape.ParamProtocol + "=" + s.Preset
	if s.Settings != "" {
		settings += ";" + s.Settings
	}
	folds := make([]int, sweep.NumFolds)
	for i := range folds {
		folds[i] = i + 1
	}
	return sweep.NewGrid(sweep.GridSpec{Table: Table, Datasets: s.Datasets, Variants: []string{Variant},
		Folds: folds, Seeds: s.Seeds, Settings: settings})
}

// DatasetRuns are the stored results of one dataset under one spec.
type DatasetRuns struct {
	Dataset string
	// Seeds with all five folds recorded, their 5-fold mean test accuracies,
	// and per seed the selected epochs of the folds.
	Seeds      []int64
	PerSeed    []float64
	BestEpochs [][]int
	// WarmUpSelected counts folds whose selected model is a warm-up model;
	// Folds counts the folds recorded.
	WarmUpSelected, Folds int
	// WallSeconds is the summed training wall time of the recorded folds.
	WallSeconds float64
	// Missing counts expected folds without an ok record, and Incomplete
	// lists the seeds of the spec they belong to (left out of Seeds).
	Missing    int
	Incomplete []int64
	// Backends are the backends of the records.
	Backends []string
}

// Collect reads the records of grid's cells from store, one DatasetRuns per
// dataset in the grid's order. A seed counts only when all its folds are
// recorded.
func Collect(store *sweep.Store, grid *sweep.Grid) ([]DatasetRuns, error) {
	type seedKey struct {
		ds   string
		seed int64
	}
	accs := map[seedKey][]float64{}
	epochs := map[seedKey][]int{}
	out := make([]DatasetRuns, len(grid.Spec.Datasets))
	idx := map[string]int{}
	for i, ds := range grid.Spec.Datasets {
		out[i].Dataset, idx[ds] = ds, i
	}
	for _, c := range grid.Cells {
		dr := &out[idx[c.Dataset]]
		rec, err := store.Read(c.Key)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && rec.Status != sweep.StatusOK) {
			dr.Missing++
			continue
		}
		if err != nil {
			return nil, err
		}
		k := seedKey{c.Dataset, c.Seed}
		accs[k] = append(accs[k], float64(rec.TestAccuracy))
		epochs[k] = append(epochs[k], rec.BestEpoch)
		dr.Folds++
		dr.WallSeconds += float64(rec.WallSeconds)
		if rec.SelectedWarmUp {
			dr.WarmUpSelected++
		}
		if !containsString(dr.Backends, rec.Backend) {
			dr.Backends = append(dr.Backends, rec.Backend)
		}
	}
	for i := range out {
		for _, seed := range grid.Spec.Seeds {
			k := seedKey{out[i].Dataset, seed}
			if len(accs[k]) != len(grid.Spec.Folds) {
				out[i].Incomplete = append(out[i].Incomplete, seed)
				continue
			}
			out[i].Seeds = append(out[i].Seeds, seed)
			out[i].PerSeed = append(out[i].PerSeed, stat.Mean(accs[k], nil))
			out[i].BestEpochs = append(out[i].BestEpochs, epochs[k])
		}
		sort.Strings(out[i].Backends)
	}
	return out, nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// PaperAccuracy returns the paper's SoftShape accuracy on dataset (Table 1),
// NaN when the paper has none.
func PaperAccuracy(dataset string) (float64, error) {
	t, err := paper.PerDataset(Table)
	if err != nil {
		return math.NaN(), err
	}
	col, err := t.Column("SoftShape")
	if err != nil {
		return math.NaN(), err
	}
	for i, ds := range t.Datasets {
		if ds == dataset {
			return col[i], nil
		}
	}
	return math.NaN(), nil
}
