// Package fidelity compares full-protocol runs of this toolkit with the
// authors' PyTorch code run on the same kind of machine (per-seed test
// accuracies, ../shared/reference/reference-runs.csv) and with the paper's
// published numbers: means over seeds, their standard errors, the difference
// and whether it is within a tolerance and within noise.
package fidelity

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/softshape-go/softshape/softshape"
)

// Reference protocols of reference-runs.csv.
const (
	// PublishedLeaky is the authors' code as published (weights and Adam
	// carried from fold to fold).
	PublishedLeaky = "published_leaky"
	// FreshFolds is the authors' code with a fresh model and optimiser per fold.
	FreshFolds = "fresh_folds"
)

// Tolerance is the largest |ours − reference| (accuracy) counted as a match.
const Tolerance = 0.02

// ReferenceProtocol returns the reference protocol a preset is measured
// against: published_leaky for reference_compat, fresh_folds for
// reference_fresh, "" for any other protocol (no like-for-like reference).
func ReferenceProtocol(preset string) string {
	switch preset {
	case softshape.ProtocolReferenceCompat:
		return PublishedLeaky
	case softshape.ProtocolReferenceFresh:
		return FreshFolds
	}
	return ""
}

// RefRun is one row of reference-runs.csv: the authors' code on one dataset,
// protocol and seed.
type RefRun struct {
	Dataset, Protocol string
	Seed              int64
	// Folds are the per-fold test accuracies (nil when not published).
	Folds []float64
	// Mean is the 5-fold mean test accuracy.
	Mean float64
}

// ReadReference reads reference-runs.csv (header dataset, protocol, seed,
// fold1..fold5, mean; empty fold cells allowed). Errors name the file and line.
func ReadReference(path string) ([]RefRun, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reference runs: %w", err)
	}
	defer f.Close()
	runs, err := parseReference(f)
	if err != nil {
		return nil, fmt.Errorf("reference runs %s: %w", path, err)
	}
	return runs, nil
}

func parseReference(r io.Reader) ([]RefRun, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("line 1: %w", err)
	}
	want := []string{"dataset", "protocol", "seed", "fold1", "fold2", "fold3", "fold4", "fold5", "mean"}
	if strings.Join(header, ",") != strings.Join(want, ",") {
		return nil, fmt.Errorf("line 1: header %q, want %q", strings.Join(header, ","), strings.Join(want, ","))
	}
	var out []RefRun
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		run := RefRun{Dataset: rec[0], Protocol: rec[1]}
		if run.Protocol != PublishedLeaky && run.Protocol != FreshFolds {
			return nil, fmt.Errorf("line %d: protocol %q, want %s or %s", line, run.Protocol, PublishedLeaky, FreshFolds)
		}
		if run.Seed, err = strconv.ParseInt(rec[2], 10, 64); err != nil {
			return nil, fmt.Errorf("line %d: seed %q: not an integer", line, rec[2])
		}
		for i, cell := range rec[3:8] {
			if cell == "" {
				continue
			}
			v, err := accuracy(cell)
			if err != nil {
				return nil, fmt.Errorf("line %d: fold%d: %w", line, i+1, err)
			}
			if run.Folds == nil {
				run.Folds = make([]float64, 5)
				for j := range run.Folds {
					run.Folds[j] = math.NaN()
				}
			}
			run.Folds[i] = v
		}
		if run.Mean, err = accuracy(rec[8]); err != nil {
			return nil, fmt.Errorf("line %d: mean: %w", line, err)
		}
		out = append(out, run)
	}
}

func accuracy(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 1 {
		return 0, fmt.Errorf("%q: want an accuracy in [0, 1]", s)
	}
	return v, nil
}

// Estimate is a mean over seeds with its standard error (sample standard
// deviation / √n; NaN for fewer than two seeds).
type Estimate struct {
	Mean, SE float64
	N        int
}

// BeyondTwoSE says whether the mean exceeds two standard errors (a finding,
// not noise); false without a standard error.
func (e Estimate) BeyondTwoSE() bool {
	return !math.IsNaN(e.SE) && math.Abs(e.Mean) > 2*e.SE
}

// EstimateOf summarises per-seed values.
func EstimateOf(perSeed []float64) Estimate {
	e := Estimate{Mean: math.NaN(), SE: math.NaN(), N: len(perSeed)}
	if len(perSeed) == 0 {
		return e
	}
	e.Mean = stat.Mean(perSeed, nil)
	if len(perSeed) > 1 {
		e.SE = stat.StdDev(perSeed, nil) / math.Sqrt(float64(len(perSeed)))
	}
	return e
}

// Comparison is ours against a target on one dataset under one preset.
type Comparison struct {
	Dataset, Preset string
	// Ours holds the per-seed 5-fold means, in seed order, and Seeds the seeds.
	Seeds   []int64
	PerSeed []float64
	Ours    Estimate
	// RefProtocol is the reference protocol compared with ("" when none);
	// Ref its estimate over the reference's seeds (N 0 when absent).
	RefProtocol string
	Ref         Estimate
	// Diff is Ours.Mean − Ref.Mean and DiffSE √(SE²+SE²).
	Diff, DiffSE float64
	// Paper is the paper's published accuracy (NaN if unknown).
	Paper float64
}

// Within reports whether |Diff| ≤ Tolerance (false without a reference).
func (c Comparison) Within() bool { return !math.IsNaN(c.Diff) && math.Abs(c.Diff) <= Tolerance }

// Noise reports whether |Diff| ≤ 2·DiffSE: the difference is within the
// scatter of the seeds, not a finding.
func (c Comparison) Noise() bool {
	return !math.IsNaN(c.Diff) && !math.IsNaN(c.DiffSE) && math.Abs(c.Diff) <= 2*c.DiffSE
}

// Compare builds the comparison of our per-seed means (seeds[i] ↦ perSeed[i])
// with the reference runs of preset's reference protocol on dataset; paper is
// the paper's number (NaN if unknown).
func Compare(dataset, preset string, seeds []int64, perSeed []float64, ref []RefRun, paper float64) Comparison {
	c := Comparison{Dataset: dataset, Preset: preset, Seeds: seeds, PerSeed: perSeed, Ours: EstimateOf(perSeed),
		RefProtocol: ReferenceProtocol(preset), Diff: math.NaN(), DiffSE: math.NaN(), Paper: paper}
	var rs []RefRun
	for _, r := range ref {
		if r.Dataset == dataset && r.Protocol == c.RefProtocol {
			rs = append(rs, r)
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Seed < rs[j].Seed })
	means := make([]float64, len(rs))
	for i, r := range rs {
		means[i] = r.Mean
	}
	c.Ref = EstimateOf(means)
	if c.Ref.N > 0 && c.Ours.N > 0 {
		c.Diff = c.Ours.Mean - c.Ref.Mean
		c.DiffSE = math.Sqrt(sq(c.Ours.SE) + sq(c.Ref.SE))
	}
	return c
}

func sq(x float64) float64 { return x * x }
