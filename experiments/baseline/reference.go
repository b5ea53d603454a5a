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

// ReferenceAccuracy is the reference implementation's published accuracy
// on one UCR dataset.
type ReferenceAccuracy struct {
	Dataset string
	// Standard is the accuracy on the original train/test split (resample
	// 0), Mean30 the mean over the 30 resamples.
	Standard, Mean30 float64
}

// Reference returns MiniRocket's published accuracies on the 109 UCR
// datasets of its authors' results (github.com/angus924/minirocket,
// results/, at the commit named in reference_minirocket.csv), by dataset
// name.
func Reference() (map[string]ReferenceAccuracy, error) {
	var lines []string
	for _, l := range strings.Split(referenceCSV, "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(strings.Join(lines, "\n"))).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reference_minirocket.csv: %w", err)
	}
	if len(rows) < 2 || !slices.Equal(rows[0], []string{"dataset", "resample0", "mean30"}) {
		return nil, fmt.Errorf("reference_minirocket.csv: header %v, want dataset,resample0,mean30", rows[:min(1, len(rows))])
	}
	out := map[string]ReferenceAccuracy{}
	for i, r := range rows[1:] {
		a, errA := strconv.ParseFloat(r[1], 64)
		m, errM := strconv.ParseFloat(r[2], 64)
		if errA != nil || errM != nil {
			return nil, fmt.Errorf("reference_minirocket.csv: data row %d (%s): accuracies %q, %q do not parse", i+1, r[0], r[1], r[2])
		}
		out[r[0]] = ReferenceAccuracy{Dataset: r[0], Standard: a, Mean30: m}
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
	// Reference is the reference's accuracy on the same split and Diff =
	// Mean − Reference.
	Reference, Diff float64
}

// Summary sums up a comparison: the mean and mean absolute difference
// (ours − reference, in accuracy), and how many datasets are within the
// band.
type Summary struct {
	Datasets, Within int
	Band             float64
	MeanDiff         float64
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
	for _, name := range names {
		accs := byDataset[name]
		a := Agreement{Dataset: name, Seeds: len(accs), Mean: stat.Mean(accs, nil), Reference: ref[name].Standard}
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
	}
	return rows, sum, nil
}
