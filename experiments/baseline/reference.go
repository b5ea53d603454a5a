package baseline

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
)

//go:embed reference_minirocket.csv
var referenceCSV string

//go:embed reference_multirocket_hydra.csv
var referenceMRHydraCSV string

// ReferenceAccuracy is the reference implementation's published accuracy
// on one UCR dataset.
type ReferenceAccuracy struct {
	Dataset string
	// Standard is the accuracy on the original train/test split (resample
	// 0; NaN where only the mean is published), Mean30 the mean over the
	// 30 resamples.
	Standard, Mean30 float64
}

// Reference returns MiniRocket's published accuracies on the 109 UCR
// datasets of its authors' results (github.com/angus924/minirocket,
// results/, at the commit named in reference_minirocket.csv), by dataset
// name.
func Reference() (map[string]ReferenceAccuracy, error) {
	return parseReference("reference_minirocket.csv", referenceCSV, true)
}

// ReferenceFor returns the published accuracies of method: Reference for
// MiniRocket; for MultiRocketHydra the 30-resample means of
// MultiRocket+Hydra on 112 UCR datasets from the Hydra authors' results
// (github.com/angus924/hydra, results/results_ucr112_variants.csv, at the
// commit named in reference_multirocket_hydra.csv), Standard NaN.
func ReferenceFor(method string) (map[string]ReferenceAccuracy, error) {
	switch method {
	case MiniRocket:
		return Reference()
	case MultiRocketHydra:
		return parseReference("reference_multirocket_hydra.csv", referenceMRHydraCSV, false)
	}
	return nil, fmt.Errorf("baseline: unknown method %q (known: %s)", method, strings.Join(Methods(), ", "))
}

// parseReference reads an embedded reference file: comment lines (#),
// then the header dataset,resample0,mean30 (withStandard) or
// dataset,mean30, then one row per dataset.
func parseReference(name, text string, withStandard bool) (map[string]ReferenceAccuracy, error) {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(strings.Join(lines, "\n"))).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	header := []string{"dataset", "mean30"}
	if withStandard {
		header = []string{"dataset", "resample0", "mean30"}
	}
	if len(rows) < 2 || !slices.Equal(rows[0], header) {
		return nil, fmt.Errorf("%s: header %v, want %s", name, rows[:min(1, len(rows))], strings.Join(header, ","))
	}
	out := map[string]ReferenceAccuracy{}
	for i, r := range rows[1:] {
		acc := make([]float64, len(r)-1)
		for j, v := range r[1:] {
			if acc[j], err = strconv.ParseFloat(v, 64); err != nil {
				return nil, fmt.Errorf("%s: data row %d (%s): accuracy %q does not parse", name, i+1, r[0], v)
			}
		}
		a := ReferenceAccuracy{Dataset: r[0], Standard: math.NaN(), Mean30: acc[len(acc)-1]}
		if withStandard {
			a.Standard = acc[0]
		}
		out[r[0]] = a
	}
	return out, nil
}

// Agreement is one dataset's standard-split accuracy, ours over seeds
// beside the reference's.
type Agreement struct {
	Dataset string
	// Seeds is the number of seeds of ours; Mean and SD their mean
	// accuracy and its standard deviation over seeds.
	Seeds    int
	Mean, SD float64
	// Reference is the reference's accuracy on the same split (its
	// 30-resample mean where only that is published) and Diff = Mean −
	// Reference.
	Reference, Diff float64
}

// Summary sums up a comparison: the mean and mean absolute difference
// (ours − reference, in accuracy), the standard error of the mean
// difference over datasets (0 for one dataset), and how many datasets are
// within the band.
type Summary struct {
	Datasets, Within int
	Band             float64
	MeanDiff         float64
	SEDiff           float64
	MeanAbsDiff      float64
}

// Compare sets standard-split records (any seeds) beside the reference,
// dataset by dataset (those the reference has), and sums up how many agree
// within band (e.g. 0.02 for ±2 pp).
func Compare(records []Record, ref map[string]ReferenceAccuracy, band float64) ([]Agreement, Summary, error) {
	byDataset := map[string][]float64{}
	var names []string
	for _, r := range records {
		if r.Protocol != ProtocolStandard {
			return nil, Summary{}, fmt.Errorf("compare: %s seed %d is a %s record, want %s", r.Dataset, r.Seed, r.Protocol, ProtocolStandard)
		}
		if _, ok := ref[r.Dataset]; !ok {
			continue
		}
		if byDataset[r.Dataset] == nil {
			names = append(names, r.Dataset)
		}
		byDataset[r.Dataset] = append(byDataset[r.Dataset], r.MeanAccuracy())
	}
	slices.Sort(names)
	sum := Summary{Band: band, Datasets: len(names)}
	var rows []Agreement
	var diffs []float64
	for _, name := range names {
		accs := byDataset[name]
		a := Agreement{Dataset: name, Seeds: len(accs), Mean: stat.Mean(accs, nil), Reference: ref[name].Standard}
		if math.IsNaN(a.Reference) {
			a.Reference = ref[name].Mean30
		}
		if len(accs) > 1 {
			a.SD = stat.StdDev(accs, nil)
		}
		a.Diff = a.Mean - a.Reference
		if math.Abs(a.Diff) <= band+1e-9 {
			sum.Within++
		}
		sum.MeanDiff += a.Diff / float64(len(names))
		sum.MeanAbsDiff += math.Abs(a.Diff) / float64(len(names))
		rows = append(rows, a)
		diffs = append(diffs, a.Diff)
	}
	if len(diffs) > 1 {
		sum.SEDiff = stat.StdDev(diffs, nil) / math.Sqrt(float64(len(diffs)))
	}
	return rows, sum, nil
}
