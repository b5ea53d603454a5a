package reproduce

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testRecord is the part of a committed JSON run record the tests check
// against, read straight from the file (not through the sweep package).
type testRecord struct {
	Variant string  `json:"variant"`
	Fold    int     `json:"fold"`
	Seed    int64   `json:"seed"`
	Status  string  `json:"status"`
	Acc     float64 `json:"test_accuracy"`
}

// readRecords reads every committed record matching the glob pattern.
func readRecords(t *testing.T, pattern string) []testRecord {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	var out []testRecord
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r testRecord
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, r)
	}
	return out
}

// pairedDiff is the mean of a[k] − b[k] over the keys k in both maps, and
// how many there are (n = 0: none, and mean is 0).
func pairedDiff[K comparable](a, b map[K]float64) (mean float64, n int) {
	sum := 0.0
	for k, x := range a {
		if y, ok := b[k]; ok {
			sum += x - y
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

// seedMeans reads the committed fidelity records of one dataset under one
// preset straight from their JSON files and returns each seed's mean test
// accuracy over its folds.
func seedMeans(t *testing.T, preset, dataset string) map[int64]float64 {
	t.Helper()
	recs := readRecords(t, filepath.Join(RepoRoot(), "reproduction", "fidelity", preset, "main", dataset, "softshape", "fold*.json"))
	if len(recs) == 0 {
		t.Fatalf("no committed records of %s under %s", dataset, preset)
	}
	sum, n := map[int64]float64{}, map[int64]int{}
	for _, r := range recs {
		sum[r.Seed] += r.Acc
		n[r.Seed]++
	}
	out := map[int64]float64{}
	for s, v := range sum {
		if n[s] == 5 {
			out[s] = v / 5
		}
	}
	return out
}

// TestCommittedFidelity: the notebook's fidelity cell renders the committed
// runs, and its leak for each dataset equals the mean over seeds of
// reference_compat − reference_fresh computed here from the JSON records.
func TestCommittedFidelity(t *testing.T) {
	md, err := CommittedFidelity()
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range []string{"GunPoint", "ECG200"} {
		compat, fresh := seedMeans(t, "reference_compat", ds), seedMeans(t, "reference_fresh", ds)
		diff, k := pairedDiff(compat, fresh)
		if k == 0 {
			t.Fatalf("%s: no seed recorded under both presets", ds)
		}
		row := fmt.Sprintf("| %s | %d | ", ds, k)
		want := fmt.Sprintf("%+.4f ±", diff)
		found := false
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, row) && strings.Contains(line, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no leak row %q…%q in\n%s", ds, row, want, md)
		}
		// Each row's seeds column counts the seeds with all five folds in
		// the records; a row short of the benchmark's seeds says which.
		seeds := committedFidelity(RepoRoot()).Seeds
		for _, preset := range []string{"reference_fresh", "reference_compat", "default"} {
			n := len(seedMeans(t, preset, ds))
			if !strings.Contains(md, fmt.Sprintf("| %s | %s | %d | ", ds, preset, n)) {
				t.Errorf("%s: no %s row with %d seeds in\n%s", ds, preset, n, md)
			}
			short := fmt.Sprintf("- %s, %s: ", ds, preset)
			holds := fmt.Sprintf("so the row holds %d of its %d seeds\n", n, len(seeds))
			if got := strings.Contains(md, short) && strings.Contains(md, holds); got != (n < len(seeds)) {
				t.Errorf("%s, %s: %d of %d seeds recorded, but the line %q…%q shown: %v", ds, preset, n, len(seeds), short, holds, got)
			}
		}
	}
}
