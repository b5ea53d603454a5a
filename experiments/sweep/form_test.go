package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaimForm: the first claim on an empty store fixes its form in
// FormFile; the same form is accepted again and the other refused, naming
// the folder. A store with records but no FormFile (written before it
// existed) is left to its records; an unreadable FormFile is named.
func TestClaimForm(t *testing.T) {
	s := openStore(t)
	if err := s.ClaimForm(true); err != nil {
		t.Fatal(err)
	}
	if err := s.ClaimForm(true); err != nil {
		t.Errorf("the same form again: %v", err)
	}
	err := s.ClaimForm(false)
	if err == nil || !strings.Contains(err.Error(), "results folder "+s.Root()+" holds runs of the speed forms (-fast)") {
		t.Errorf("the other form: %v", err)
	}

	old := openStore(t)
	if err := old.Write(okRecord(old, "ablation", "CBF", "SoftShape", 1)); err != nil {
		t.Fatal(err)
	}
	if err := old.ClaimForm(true); err != nil {
		t.Errorf("a store of records without %s: %v", FormFile, err)
	}
	if _, err := os.Stat(filepath.Join(old.Root(), FormFile)); !os.IsNotExist(err) {
		t.Errorf("%s written into a store that holds records (%v)", FormFile, err)
	}

	bad := openStore(t)
	path := filepath.Join(bad.Root(), FormFile)
	if err := os.WriteFile(path, []byte(`{"other": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := bad.ClaimForm(false); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("an unreadable %s: %v", FormFile, err)
	}
}

// TestReadGridsPastBadFile: a grid file that does not parse is reported,
// naming it, beside the grids that do; LoadGrids fails on it.
func TestReadGridsPastBadFile(t *testing.T) {
	s := openStore(t)
	g := mustGrid(t, GridSpec{Table: "ablation", Datasets: []string{"CBF"}, Variants: []string{"SoftShape"}, Folds: []int{1}, Seeds: []int64{42}, Quick: true})
	if err := s.SaveGrid(g); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(s.Root(), "depth_L", "grid-0123456789ab.json")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	grids, unreadable, err := s.ReadGrids("")
	if err != nil {
		t.Fatal(err)
	}
	if len(grids) != 1 || grids[0].ID() != g.ID() || len(unreadable) != 1 || !strings.Contains(unreadable[0].Error(), bad) {
		t.Errorf("grids %d, unreadable %v; want grid %s and %s named", len(grids), unreadable, g.ID(), bad)
	}
	if _, err := s.LoadGrids(""); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("LoadGrids: %v", err)
	}
}
