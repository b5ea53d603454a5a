package tablefigures

import (
	"errors"
	"slices"
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
	if !strings.Contains(f.Caption(), "Each line the mean") || !strings.Contains(f.Caption(), "Solid: ours under") {
		t.Errorf("experts_k caption %q: want lines", f.Caption())
	}
	// Columns without an order (an ablation's variants): markers, no lines.
	c.Name = "ablation"
	if f, err = Presets(c); err != nil {
		t.Fatal(err)
	}
	if cap := f.Caption(); !strings.Contains(cap, "Each marker the mean") || !strings.Contains(cap, "Markers: ours under reference_compat and reference_fresh; dashes: the paper's") {
		t.Errorf("ablation caption %q: want markers and dashes", cap)
	}
	c.Name = "shape_length_m" // three ways to choose m: no order either, as Sweep draws them
	if f, err = Presets(c); err != nil {
		t.Fatal(err)
	}
	if cap := f.Caption(); !strings.Contains(cap, "Each marker the mean") {
		t.Errorf("shape_length_m caption %q: want markers", cap)
	}
	c.Name = "experts_k"
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

// TestPresetRanksAreTheSummaryRows: each preset's rank bars and CD diagram
// are over the datasets complete under both presets, as the comparison's
// summary rows are, not over the preset's own complete datasets. Hand
// check: DC is complete under reference_compat only, so the ranks are over
// DA (k=3, k=2, k=1 best first) and DB (k=2, k=1, k=3): k=1 (3+2)/2 = 2.5,
// k=2 (2+1)/2 = 1.5, k=3 (1+3)/2 = 2; over all three datasets every
// column would rank 2.
func TestPresetRanksAreTheSummaryRows(t *testing.T) {
	a, b := handTable("experts_k", 3), handTable("experts_k", 3)
	for i := range b.Rows {
		for j := range b.Rows[i].Ours {
			b.Rows[i].Ours[j].Acc -= 0.05
			a.Rows[i].Paper[j], b.Rows[i].Paper[j] = 0.9, 0.9
		}
	}
	b.Rows[2].Ours[1].Runs = 1 // DC partial under reference_fresh
	c, err := tables.Compare([2]string{"reference_compat", "reference_fresh"}, [2]*tables.Table{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Common, []string{"DA", "DB"}) {
		t.Fatalf("common %v, want DA, DB", c.Common)
	}
	for i := range 2 {
		methods, ours, paper, err := presetRanks(c, i)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(methods, []string{"k=1", "k=2", "k=3"}) || !slices.Equal(ours, []float64{2.5, 1.5, 2}) || !slices.Equal(paper, []float64{1, 1, 1}) {
			t.Errorf("preset %d: methods %v, ranks %v, paper %v; want k=1..3, [2.5 1.5 2], [1 1 1] (ties get the best rank)", i, methods, ours, paper)
		}
		f, err := PresetRanks(c, i)
		if err != nil {
			t.Fatal(err)
		}
		if want := "Average rank, " + c.Labels[i]; !strings.HasPrefix(f.Title(), want) || !strings.Contains(f.Caption(), "2 UCR datasets (DA, DB)") {
			t.Errorf("preset %d: title %q, caption %q", i, f.Title(), f.Caption())
		}
		// The ranks above give ties the best rank (paper: every column 1);
		// the caption labels that convention, as the CD diagram's labels its own.
		if !strings.Contains(f.Caption(), "ties given the best rank") {
			t.Errorf("preset %d: caption %q does not label the rank convention", i, f.Caption())
		}
	}
	if _, err := PresetCD(c, 0, DefaultAlpha); !errors.Is(err, ErrNoFigure) || !strings.Contains(err.Error(), "has 3 and 2") {
		t.Errorf("a CD diagram over the 2 common datasets: %v", err)
	}
	b.Rows = b.Rows[:0] // nothing complete under reference_fresh
	if c, err = tables.Compare([2]string{"reference_compat", "reference_fresh"}, [2]*tables.Table{a, b}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := DrawPreset(KindRanks, c, 0, DefaultAlpha); !errors.Is(err, ErrNoFigure) || !strings.Contains(err.Error(), "no dataset complete under both") {
		t.Errorf("no common dataset: %v", err)
	}
}
