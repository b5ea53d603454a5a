package fidelity

import (
	"math"
	"strings"
	"testing"
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
