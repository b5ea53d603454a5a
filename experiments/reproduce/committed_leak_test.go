package reproduce

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommittedLeak: the notebook's leak cell, for each dataset of Table 3
// recorded under both presets, equals the mean of reference_compat −
// reference_fresh computed here straight from the JSON records, paired by
// setting and fold; fold 1 (the same computation under both presets) is
// reported too.
func TestCommittedLeak(t *testing.T) {
	md, err := CommittedLeak()
	if err != nil {
		t.Fatal(err)
	}
	acc := func(preset, dataset string) map[string]float64 {
		out := map[string]float64{}
		for _, r := range readRecords(t, filepath.Join(RepoRoot(), "reproduction", "results", preset, "sparse_ratio", dataset, "*", "fold*.json")) {
			if r.Status == "ok" {
				out[fmt.Sprintf("%s/%d/%d", r.Variant, r.Fold, r.Seed)] = r.Acc
			}
		}
		return out
	}
	checked := 0
	for _, ds := range []string{"ItalyPowerDemand", "GunPoint", "DistalPhalanxOutlineAgeGroup"} {
		compat, fresh := acc("reference_compat", ds), acc("reference_fresh", ds)
		leak, n := pairedDiff(compat, fresh)
		if n == 0 {
			continue
		}
		checked++
		row := fmt.Sprintf("| %s | %+.4f (n=%d) |", ds, leak, n)
		if !strings.Contains(md, row) {
			t.Errorf("%s: no row %q in\n%s", ds, row, md)
		}
	}
	if checked == 0 {
		t.Fatal("no dataset of Table 3 recorded under both presets")
	}
	if !strings.Contains(md, "##### The fold leak: reference_compat − reference_fresh") {
		t.Errorf("no leak section in\n%s", md)
	}
}
