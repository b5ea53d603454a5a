package data

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedEnv overrides the folder of the shared material (../../shared from
// this package, i.e. the shared/ folder beside the checkout).
const sharedEnv = "SOFTSHAPE_SHARED"

// sharedRoot returns the shared/ folder: $SOFTSHAPE_SHARED, else
// ../../shared relative to this package.
func sharedRoot() string {
	if dir := os.Getenv(sharedEnv); dir != "" {
		return dir
	}
	return filepath.Join("..", "..", "shared")
}

// ucrRoot returns the shared UCR folder, failing the test when it is
// missing (every developer and CI run has it).
func ucrRoot(t testing.TB) string {
	t.Helper()
	root := filepath.Join(sharedRoot(), "ucr")
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		t.Fatalf("shared UCR data not found at %s (set $%s to the shared/ folder): %v", root, sharedEnv, err)
	}
	return root
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

// loadShared loads one dataset of the shared UCR copy.
func loadShared(t testing.TB, name string) *Dataset {
	t.Helper()
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

// writeFile writes content to dir/name (creating dir) and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
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
