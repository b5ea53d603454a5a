package reproduce

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/reproduction"
)

// TestFullModeRendersCommittedStore: in full mode with no results folder, a
// table of the reproduction comes from the committed store under the preset
// asked for, training nothing and writing nothing; a table outside the
// reproduction does not.
func TestFullModeRendersCommittedStore(t *testing.T) {
	dir := filepath.Join(RepoRoot(), "reproduction")
	for _, c := range []struct{ settings, preset string }{
		{"", CommittedPreset},
		{"protocol=reference_fresh", "reference_fresh"},
	} {
		p := Params{Quick: false, Settings: c.settings}
		results := reproduction.ResultsDir(dir, c.preset)
		before := listFiles(t, results)
		r, err := Table(context.Background(), "sparse_ratio", p)
		if _, statErr := os.Stat(results); statErr != nil {
			// A clone without committed results: the error says what to run.
			if err == nil || !strings.Contains(err.Error(), "run reproduction/run-sweeps.sh") {
				t.Errorf("%q: no committed store, error %v", c.settings, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Params.Results != results || r.Trained != 0 || r.Params.Quick {
			t.Errorf("%q: results %s, trained %d, quick %v; want %s, 0, false", c.settings, r.Params.Results, r.Trained, r.Params.Quick, results)
		}
		if !strings.Contains(r.Table.FullTitle(), "protocol "+c.preset) && len(r.Table.Grids) > 0 {
			t.Errorf("%q: title %q lacks the preset", c.settings, r.Table.FullTitle())
		}
		if after := listFiles(t, results); strings.Join(after, "\n") != strings.Join(before, "\n") {
			t.Errorf("%q: rendering changed the committed store", c.settings)
		}
	}
	if _, err := CommittedTable("main", CommittedPreset); err == nil || !strings.Contains(err.Error(), "not part of the committed reproduction") {
		t.Errorf("main: %v", err)
	}
}

// listFiles lists the files under dir (nil when it does not exist).
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			out = append(out, path)
		}
		return nil
	})
	return out
}
