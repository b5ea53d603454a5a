package fidelity

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/softshape"
)

// ReportSpec says which stored fidelity runs a report reads: the datasets,
// seeds and presets of the benchmark (and its extra settings, if any), each
// preset's records under Results/<preset>.
type ReportSpec struct {
	Results  string
	Datasets []string
	Seeds    []int64
	Presets  []string
	Settings string
}

// Report reads the stored runs of spec and compares them, per preset and
// dataset, with the reference runs ref (nil: the paper only). A preset whose
// folder is missing is an error naming it.
func Report(spec ReportSpec, ref []RefRun) ([]Row, error) {
	var rows []Row
	for _, preset := range spec.Presets {
		grid, err := Spec{Datasets: spec.Datasets, Seeds: spec.Seeds, Preset: preset, Settings: spec.Settings}.Grid()
		if err != nil {
			return nil, err
		}
		dir := filepath.Join(spec.Results, preset)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("results folder %s not found (preset %s)", dir, preset)
		}
		store, err := sweep.Open(dir)
		if err != nil {
			return nil, err
		}
		runs, err := Collect(store, grid)
		if err != nil {
			return nil, err
		}
		for _, dr := range runs {
			paperAcc, err := PaperAccuracy(dr.Dataset)
			if err != nil {
				return nil, err
			}
			rows = append(rows, Row{Comparison: Compare(dr.Dataset, preset, dr.Seeds, dr.PerSeed, ref, paperAcc), Runs: dr})
		}
	}
	return rows, nil
}

// Leak is the fold leak measured on one dataset: the authors' protocol with
// weights and Adam carried across folds (reference_compat) minus the same
// protocol with fresh folds (reference_fresh), paired by seed.
type Leak struct {
	Dataset string
	// Seeds recorded under both presets; Compat and Fresh their 5-fold means.
	Seeds         []int64
	Compat, Fresh []float64
	// Diff is the mean over seeds of Compat − Fresh, with its standard error
	// (of the per-seed differences; NaN for one seed).
	Diff Estimate
}

// Leaks pairs the reference_compat and reference_fresh rows of the same
// dataset by seed. Datasets without a seed under both presets are left out.
func Leaks(rows []Row) []Leak {
	fresh := map[string]Row{}
	for _, r := range rows {
		if r.Preset == softshape.ProtocolReferenceFresh {
			fresh[r.Dataset] = r
		}
	}
	var out []Leak
	for _, c := range rows {
		f, ok := fresh[c.Dataset]
		if c.Preset != softshape.ProtocolReferenceCompat || !ok {
			continue
		}
		l := Leak{Dataset: c.Dataset}
		var diffs []float64
		for i, seed := range c.Seeds {
			for j, s := range f.Seeds {
				if s == seed {
					l.Seeds = append(l.Seeds, seed)
					l.Compat, l.Fresh = append(l.Compat, c.PerSeed[i]), append(l.Fresh, f.PerSeed[j])
					diffs = append(diffs, c.PerSeed[i]-f.PerSeed[j])
				}
			}
		}
		if len(diffs) == 0 {
			continue
		}
		l.Diff = EstimateOf(diffs)
		out = append(out, l)
	}
	return out
}

// Finding says whether the leak is beyond noise: its mean exceeds two
// standard errors of the paired differences.
func (l Leak) Finding() bool {
	return !math.IsNaN(l.Diff.SE) && math.Abs(l.Diff.Mean) > 2*l.Diff.SE
}

// WriteLeaks writes the leak table: per dataset, the paired seeds, both
// presets' means and the difference with its standard error.
func WriteLeaks(w io.Writer, leaks []Leak) error {
	var b strings.Builder
	b.WriteString("| dataset | seeds | reference_compat (leak) | reference_fresh | leak = compat − fresh (± SE) | beyond 2 SE |\n")
	b.WriteString("|---|---:|---:|---:|---:|:---:|\n")
	for _, l := range leaks {
		se := "—"
		if !math.IsNaN(l.Diff.SE) {
			se = fmt.Sprintf("%.4f", l.Diff.SE)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %+.4f ± %s | %s |\n", l.Dataset, len(l.Seeds),
			estimate(EstimateOf(l.Compat)), estimate(EstimateOf(l.Fresh)), l.Diff.Mean, se, yesNo(l.Finding()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// DefaultReferencePath is the authors' per-seed runs, reference-runs.csv,
// under $SOFTSHAPE_SHARED/reference or else ../shared/reference seen from
// dir; "" when it is not there (a user's clone: the paper is then the only
// target).
func DefaultReferencePath(dir string) string {
	root := os.Getenv("SOFTSHAPE_SHARED")
	if root == "" {
		root = filepath.Join(dir, "..", "shared")
	}
	path := filepath.Join(root, "reference", "reference-runs.csv")
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}
