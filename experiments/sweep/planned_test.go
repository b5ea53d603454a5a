package sweep

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestExpectedPlanned: planned grids are merged as if recorded, by the rules
// of the recorded ones (seeds, conflicts), but listed apart; a planned grid
// that is recorded adds nothing; bad combinations are errors that say why.
func TestExpectedPlanned(t *testing.T) {
	s := openStore(t)
	spec := GridSpec{Table: "sparse_ratio", Datasets: []string{"GunPoint"}, Variants: []string{"10%", "50%"}, Folds: []int{1, 2}, Seeds: []int64{42}}
	rec := mustGrid(t, spec)
	if err := s.SaveGrid(rec); err != nil {
		t.Fatal(err)
	}
	spec.Datasets, spec.Seeds = []string{"GunPoint", "Trace"}, []int64{0, 1}
	plan := mustGrid(t, spec)

	e, err := s.ExpectedPlanned("sparse_ratio", false, "", []int64{42, 0}, []*Grid{rec, plan})
	if err != nil {
		t.Fatal(err)
	}
	// Seed 1 is not wanted: 2 datasets × 2 variants × 2 folds of seed 0,
	// and GunPoint's 4 cells of seed 42.
	if !slices.Equal(e.Grids, []string{rec.ID()}) || !slices.Equal(e.Planned, []string{plan.ID()}) || len(e.Cells) != 12 ||
		!slices.Equal(e.Seeds, []int64{0, 42}) || !slices.Equal(e.Datasets, []string{"GunPoint", "Trace"}) {
		t.Errorf("grids %v, planned %v, %d cells, seeds %v, datasets %v; want [%s], [%s], 12, [0 42], [GunPoint Trace]",
			e.Grids, e.Planned, len(e.Cells), e.Seeds, e.Datasets, rec.ID(), plan.ID())
	}
	// A planned grid none of whose seeds is wanted is left out.
	if e, err := s.ExpectedPlanned("sparse_ratio", false, "", []int64{42}, []*Grid{plan}); err != nil || len(e.Planned) != 0 || len(e.Cells) != 4 {
		t.Errorf("seed 42 with a plan of seeds 0, 1: %+v, %v; want GunPoint's 4 recorded cells alone", e, err)
	}
	// A table with no grid recorded: its planned grid alone is expected;
	// with none planned either, there is no sweep.
	depth := mustGrid(t, GridSpec{Table: "depth_L", Datasets: []string{"GunPoint"}, Folds: []int{1}, Seeds: []int64{0}})
	if e, err := s.ExpectedPlanned("depth_L", false, "", nil, []*Grid{depth}); err != nil || len(e.Grids) != 0 ||
		!slices.Equal(e.Planned, []string{depth.ID()}) || len(e.Cells) != len(depth.Cells) {
		t.Errorf("depth_L planned alone: %+v, %v; want its %d cells, planned, no grid recorded", e, err, len(depth.Cells))
	}
	if e, err := s.ExpectedPlanned("depth_L", false, "", nil, nil); !errors.Is(err, ErrNoSweep) {
		t.Errorf("no grid recorded or planned: %+v, %v; want ErrNoSweep", e, err)
	}

	for _, c := range []struct {
		name    string
		grid    string
		planned *Grid
		want    string
	}{
		{"with a chosen grid", rec.ID(), plan, "choose one or the other"},
		{"of another table", "", depth, "not of table sparse_ratio"},
		{"of quick mode", "", mustGrid(t, GridSpec{Table: "sparse_ratio", Datasets: []string{"GunPoint"}, Folds: []int{1}, Seeds: []int64{0}, Quick: true}), "not of table sparse_ratio (full)"},
		{"under another configuration", "", mustGrid(t, GridSpec{Table: "sparse_ratio", Datasets: []string{"GunPoint"}, Variants: []string{"10%"},
			Folds: []int{1}, Seeds: []int64{42}, Settings: "embed_dim=16"}), "both run sparse_ratio/GunPoint/10% fold 1 seed 42, under different configurations"},
	} {
		_, err := s.ExpectedPlanned("sparse_ratio", false, c.grid, nil, []*Grid{c.planned})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("a planned grid %s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
