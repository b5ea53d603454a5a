package tablefigures

import (
	"errors"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/plots"
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
	if want := "Accuracy vs activated experts k, two protocols (appendix: experts_k) " + plots.QuickModeNote; f.Title() != want {
		t.Errorf("title %q, want %q", f.Title(), want)
	}
	for _, want := range []string{"mean over the 3 datasets complete under both presets (DA, DB, DC)", "folds 1, 2, seed 42", "ours under reference_compat and reference_fresh"} {
		if !strings.Contains(f.Caption(), want) {
			t.Errorf("caption %q lacks %q", f.Caption(), want)
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
