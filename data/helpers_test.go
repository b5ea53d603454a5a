package data

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/shareddata"
)

// ucrRoot returns the shared UCR folder, skipping the test when it is
// missing (see internal/shareddata).
func ucrRoot(t testing.TB) string {
	t.Helper()
	return shareddata.UCR(t)
}

// sharedNames returns the dataset folders of the shared UCR copy.
func sharedNames(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(ucrRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Fatal("no datasets in the shared UCR folder")
	}
	return names
}

// loadShared loads one UCR dataset: the bundled copy of a bundled dataset
// (so that the test runs on any clone), else the shared UCR copy's,
// skipping the test when that is missing.
func loadShared(t testing.TB, name string) *Dataset {
	t.Helper()
	if IsBundled(name) {
		d, err := LoadBundled(name)
		if err != nil {
			t.Fatalf("LoadBundled(%s): %v", name, err)
		}
		return d
	}
	d, err := Load(ucrRoot(t), name)
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	return d
}

// wantError fails unless err is non-nil and its text contains every part.
func wantError(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

// sameFloats reports whether a and b are equal element by element, NaN
// equal to NaN.
func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// sameSeries compares two sets of rows with sameFloats.
func sameSeries(a, b [][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameFloats(a[i], b[i]) {
			return false
		}
	}
	return true
}

// nan is math.NaN() for short test tables.
var nan = math.NaN()
