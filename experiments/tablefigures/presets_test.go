package tablefigures

import (
	"errors"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/tables"
)

// TestPresets: the comparison figure draws ours under both presets and the
// paper's, each the mean over the datasets complete under both, and says
// what is missing when no dataset is.
func TestPresets(t *testing.T) {
	a, b := handTable("experts_k", 3), handTable("experts_k", 3)
	for i := range b.Rows {
		for j := range b.Rows[i].Ours {
			b.Rows[i].Ours[j].Acc -= 0.05
			b.Rows[i].Paper[j] = 0.9
			a.Rows[i].Paper[j] = 0.9
		}
	}
	c, err := tables.Compare([2]string{"reference_compat", "reference_fresh"}, [2]*tables.Table{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Common) != 3 || c.Summaries[0] == nil || c.Summaries[1] == nil || c.Summaries[2] == nil {
		t.Fatalf("common %v, summaries %v", c.Common, c.Summaries)
	}
	f, err := Presets(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"experts_k: reference_compat and reference_fresh beside the paper", "mean over 3 datasets complete under both"} {
		if !strings.Contains(f.Title(), want) {
			t.Errorf("title %q lacks %q", f.Title(), want)
		}
	}
	if _, err := f.PNG(f.Size()); err != nil {
		t.Error(err)
	}
	b.Rows[0].Ours[0].Runs = 1 // no dataset complete under both: DA is now partial, DB, DC dropped below
	b.Rows = b.Rows[:1]
	c, err = tables.Compare([2]string{"reference_compat", "reference_fresh"}, [2]*tables.Table{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Presets(c); !errors.Is(err, ErrNoFigure) || !strings.Contains(err.Error(), "no dataset complete under both") {
		t.Errorf("no common dataset: %v", err)
	}
}
