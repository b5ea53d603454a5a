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
		p, ok := pairBySeed(c, f)
		if !ok {
			continue
		}
		out = append(out, Leak{Dataset: c.Dataset, Seeds: p.seeds, Compat: p.a, Fresh: p.b, Diff: p.diff})
	}
	return out
}

// seedPairs are two rows' 5-fold means over the seeds both recorded, and the
// mean of their differences (a − b) with its standard error.
type seedPairs struct {
	seeds []int64
	a, b  []float64
	diff  Estimate
}

// pairBySeed pairs the per-seed means of rows a and b by seed; false when no
// seed is in both.
func pairBySeed(a, b Row) (seedPairs, bool) {
	var p seedPairs
	var diffs []float64
	for i, seed := range a.Seeds {
		for j, s := range b.Seeds {
			if s == seed {
				p.seeds = append(p.seeds, seed)
				p.a, p.b = append(p.a, a.PerSeed[i]), append(p.b, b.PerSeed[j])
				diffs = append(diffs, a.PerSeed[i]-b.PerSeed[j])
			}
		}
	}
	p.diff = EstimateOf(diffs)
	return p, len(diffs) > 0
}

// Shift is one dataset and preset's runs against the same benchmark's runs
// in a baseline results folder (e.g. the speed forms against the plain
// graphs), paired by seed.
type Shift struct {
	Dataset, Preset string
	// Seeds recorded in both; Ours and Baseline their 5-fold means.
	Seeds          []int64
	Ours, Baseline []float64
	// Diff is the mean over seeds of Ours − Baseline with its standard
	// error (of the per-seed differences; NaN for one seed).
	Diff Estimate
}

// Shifts pairs each row of rows with the baseline row of the same dataset and
// preset, by seed. Rows without a seed in both are left out.
func Shifts(rows, baseline []Row) []Shift {
	var out []Shift
	for _, r := range rows {
		for _, b := range baseline {
			if b.Dataset != r.Dataset || b.Preset != r.Preset {
				continue
			}
			if p, ok := pairBySeed(r, b); ok {
				out = append(out, Shift{Dataset: r.Dataset, Preset: r.Preset, Seeds: p.seeds, Ours: p.a, Baseline: p.b, Diff: p.diff})
			}
		}
	}
	return out
}

// Finding says whether the shift is beyond noise: its mean exceeds two
// standard errors of the paired differences.
func (s Shift) Finding() bool { return s.Diff.BeyondTwoSE() }

// WriteShifts writes the shift table: per dataset and preset, the paired
// seeds, both means and the difference with its standard error.
func WriteShifts(w io.Writer, shifts []Shift) error {
	return writeTable(w, "| dataset | preset | seeds | ours | baseline | ours − baseline (± SE) | beyond 2 SE |\n"+
		"|---|---|---:|---:|---:|---:|:---:|\n", shifts, func(b *strings.Builder, s Shift) {
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %s |\n", s.Dataset, s.Preset, len(s.Seeds),
			estimate(EstimateOf(s.Ours)), estimate(EstimateOf(s.Baseline)), signedEstimate(s.Diff), yesNo(s.Finding()))
	})
}

// writeTable writes the Markdown table of rows to w: head (the header and
// separator lines), then what row writes for each row.
func writeTable[R any](w io.Writer, head string, rows []R, row func(b *strings.Builder, r R)) error {
	var b strings.Builder
	b.WriteString(head)
	for _, r := range rows {
		row(&b, r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// signedEstimate formats a difference with its standard error ("—" when
// there is none).
func signedEstimate(e Estimate) string {
	se := "—"
	if !math.IsNaN(e.SE) {
		se = fmt.Sprintf("%.4f", e.SE)
	}
	return fmt.Sprintf("%+.4f ± %s", e.Mean, se)
}

// Finding says whether the leak is beyond noise: its mean exceeds two
// standard errors of the paired differences.
func (l Leak) Finding() bool { return l.Diff.BeyondTwoSE() }

// WriteLeaks writes the leak table: per dataset, the paired seeds, both
// presets' means and the difference with its standard error.
func WriteLeaks(w io.Writer, leaks []Leak) error {
	return writeTable(w, "| dataset | seeds | reference_compat (leak) | reference_fresh | leak = compat − fresh (± SE) | beyond 2 SE |\n"+
		"|---|---:|---:|---:|---:|:---:|\n", leaks, func(b *strings.Builder, l Leak) {
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s |\n", l.Dataset, len(l.Seeds),
			estimate(EstimateOf(l.Compat)), estimate(EstimateOf(l.Fresh)), signedEstimate(l.Diff), yesNo(l.Finding()))
	})
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
