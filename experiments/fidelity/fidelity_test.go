package fidelity

import (
	"math"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/softshape"
)

const refCSV = `dataset,protocol,seed,fold1,fold2,fold3,fold4,fold5,mean
ECG200,published_leaky,42,0.925,0.950,0.950,0.975,1.000,0.9600
ECG200,fresh_folds,42,0.925,0.700,0.675,0.900,0.950,0.8300
ECG200,fresh_folds,0,,,,,,0.8200
ECG200,fresh_folds,1,,,,,,0.9050
ECG200,fresh_folds,2,,,,,,0.7700
`

// TestCompareByHand: the estimates, difference and verdicts of a comparison
// equal hand-computed values.
func TestCompareByHand(t *testing.T) {
	ref, err := parseReference(strings.NewReader(refCSV))
	if err != nil {
		t.Fatal(err)
	}
	if len(ref) != 5 || ref[0].Folds[3] != 0.975 || ref[2].Folds != nil || ref[4].Mean != 0.77 {
		t.Fatalf("parsed %+v", ref)
	}
	// Ours: 0.80 and 0.86 → mean 0.83, sd 0.0424264, SE 0.03.
	c := Compare("ECG200", "reference_fresh", []int64{42, 0}, []float64{0.80, 0.86}, ref, 0.9475)
	// Reference fresh: 0.83, 0.82, 0.905, 0.77 → mean 0.83125, sd 0.0557337, SE 0.0278669.
	if c.RefProtocol != FreshFolds || c.Ref.N != 4 || math.Abs(c.Ref.Mean-0.83125) > 1e-12 || math.Abs(c.Ref.SE-0.0278669) > 1e-6 {
		t.Errorf("reference estimate %+v", c.Ref)
	}
	if math.Abs(c.Ours.Mean-0.83) > 1e-12 || math.Abs(c.Ours.SE-0.03) > 1e-12 {
		t.Errorf("our estimate %+v", c.Ours)
	}
	if math.Abs(c.Diff+0.00125) > 1e-12 || math.Abs(c.DiffSE-math.Sqrt(0.03*0.03+0.0278669*0.0278669)) > 1e-6 || !c.Within() || !c.Noise() {
		t.Errorf("diff %v ± %v, within %v, noise %v", c.Diff, c.DiffSE, c.Within(), c.Noise())
	}
	// reference_compat against the one leaky seed: no SE, so no noise verdict.
	c = Compare("ECG200", "reference_compat", []int64{42, 0}, []float64{0.90, 0.92}, ref, 0.9475)
	if c.Ref.N != 1 || math.Abs(c.Diff-(0.91-0.96)) > 1e-12 || c.Within() || c.Noise() {
		t.Errorf("compat: %+v within %v noise %v", c, c.Within(), c.Noise())
	}
	// The default protocol has no like-for-like reference.
	if c := Compare("ECG200", "default", []int64{42}, []float64{0.9}, ref, 0.9475); c.RefProtocol != "" || c.Ref.N != 0 || !math.IsNaN(c.Diff) || c.Within() {
		t.Errorf("default: %+v", c)
	}
}

// TestReadReferenceErrors: a malformed reference file is an error naming the line.
func TestReadReferenceErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"dataset,protocol,seed\n", "line 1: header"},
		{"dataset,protocol,seed,fold1,fold2,fold3,fold4,fold5,mean\nX,leaky,1,,,,,,0.5\n", `line 2: protocol "leaky"`},
		{"dataset,protocol,seed,fold1,fold2,fold3,fold4,fold5,mean\nX,fresh_folds,one,,,,,,0.5\n", `line 2: seed "one"`},
		{"dataset,protocol,seed,fold1,fold2,fold3,fold4,fold5,mean\nX,fresh_folds,1,1.5,,,,,0.5\n", `line 2: fold1: "1.5"`},
		{"dataset,protocol,seed,fold1,fold2,fold3,fold4,fold5,mean\nX,fresh_folds,1,,,,,,\n", `line 2: mean: ""`},
		{"dataset,protocol,seed,fold1,fold2,fold3,fold4,fold5,mean\nX,fresh_folds,1,,,\n", "line 2"},
	} {
		if _, err := parseReference(strings.NewReader(c.body)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.body, err, c.want)
		}
	}
	if _, err := ReadReference("no/such/reference-runs.csv"); err == nil || !strings.Contains(err.Error(), "no/such/reference-runs.csv") {
		t.Errorf("missing file: %v", err)
	}
}

// TestPaperAccuracy reads Table 1's SoftShape column.
func TestPaperAccuracy(t *testing.T) {
	for ds, want := range map[string]float64{"GunPoint": 0.99, "ECG200": 0.9475} {
		got, err := PaperAccuracy(ds)
		if err != nil || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: %v (%v), want %v", ds, got, err, want)
		}
	}
	if got, err := PaperAccuracy("NoSuchSet"); err != nil || !math.IsNaN(got) {
		t.Errorf("unknown dataset: %v, %v", got, err)
	}
}

// TestWriteMarkdownSeeds: a row holding fewer seeds than its benchmark
// counts those it holds in its seeds column, and the line under the table
// names the seeds it lacks.
func TestWriteMarkdownSeeds(t *testing.T) {
	full := Row{Comparison: Compare("GunPoint", softshape.ProtocolReferenceFresh, []int64{42, 0, 1, 2}, []float64{0.99, 0.98, 0.99, 1}, nil, 0.99),
		Runs: DatasetRuns{Dataset: "GunPoint", Seeds: []int64{42, 0, 1, 2}, PerSeed: []float64{0.99, 0.98, 0.99, 1}, BestEpochs: make([][]int, 4), Folds: 20}}
	short := Row{Comparison: Compare("GunPoint", softshape.ProtocolDefault, []int64{42, 0}, []float64{0.99, 0.98}, nil, 0.99),
		Runs: DatasetRuns{Dataset: "GunPoint", Seeds: []int64{42, 0}, PerSeed: []float64{0.99, 0.98}, BestEpochs: make([][]int, 2), Folds: 11,
			Missing: 9, Incomplete: []int64{1, 2}}}
	var b strings.Builder
	if err := WriteMarkdown(&b, []Row{full, short}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, w := range []string{"| GunPoint | reference_fresh | 4 | ", "| GunPoint | default | 2 | ",
		"- GunPoint, default: 9 folds not recorded yet (seeds 1, 2), so the row holds 2 of its 4 seeds\n"} {
		if !strings.Contains(md, w) {
			t.Errorf("no %q in\n%s", w, md)
		}
	}
	if strings.Contains(md, "reference_fresh: ") {
		t.Errorf("a line about the missing seeds of the complete row:\n%s", md)
	}
}
