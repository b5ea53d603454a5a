package reproduction

import (
	"path/filepath"
	"testing"

	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/softshape"
)

// TestRunKeysSurviveANewSetting: with a made-up setting added to the run key
// schema at its default, every cell of every committed grid (the results of
// both presets, every table, and the fidelity runs) keeps its key, whether
// its configuration string names the new setting (Config.String of code that
// has it) or not (the grid files and records written before it); every
// record on disk is the record of such a cell under its existing file name;
// and a value other than the default gives another key.
func TestRunKeysSurviveANewSetting(t *testing.T) {
	schema := sweep.RunKeySchema()
	schema.Added = append(schema.Added, sweep.KeySetting{Name: "made_up", Baseline: "0"})
	hash := func(config string, quick bool, strideMark string) string {
		t.Helper()
		key, err := schema.KeyString(config)
		if err != nil {
			t.Fatal(err)
		}
		return sweep.KeyHash(key+strideMark, quick)
	}
	var roots []string
	for _, dir := range []string{"results", "fidelity"} {
		grids, err := filepath.Glob(filepath.Join(dir, "*", "*", "grid-*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range grids {
			if root := filepath.Dir(filepath.Dir(g)); len(roots) == 0 || roots[len(roots)-1] != root {
				roots = append(roots, root)
			}
		}
	}
	if len(roots) < 5 { // results/{reference_compat,reference_fresh}, fidelity/{default,reference_compat,reference_fresh}
		t.Fatalf("results folders with grids: %v", roots)
	}
	records, grids := 0, 0
	for _, root := range roots {
		store, err := sweep.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := store.LoadGrids("")
		if err != nil {
			t.Fatal(err)
		}
		cells := map[string]bool{} // record paths of the cells, keyed under the extended schema
		for _, g := range loaded {
			grids++
			// The cells as a sweep of this spec resolves them today.
			rebuilt, err := sweep.NewGrid(g.Spec)
			if err != nil {
				t.Fatalf("%s grid %s: %v", root, g.ID(), err)
			}
			if len(rebuilt.Cells) != len(g.Cells) {
				t.Fatalf("%s grid %s: %d cells rebuilt, %d in the grid file", root, g.ID(), len(rebuilt.Cells), len(g.Cells))
			}
			for i, c := range rebuilt.Cells {
				k := c.Key
				mark := sweep.StrideMark(c.Config, c.Dataset)
				k.Hash = hash(c.Config.String()+";made_up=0", c.Quick, mark)
				if k != g.Cells[i].Key {
					t.Errorf("%s: cell %s keyed %s with the new setting at its default", root, g.Cells[i].Key, k)
				}
				if other := hash(c.Config.String()+";made_up=1", c.Quick, mark); other == k.Hash {
					t.Errorf("%s: made_up=1 keeps the key of %s", root, k)
				}
				cells[store.RecordPath(k)] = true
			}
			for _, v := range g.Variants {
				if v.Blocked == "" && hash(v.Config, g.Spec.Quick, "") != v.Hash {
					t.Errorf("%s grid %s: variant %s's stored configuration no longer gives #%s", root, g.ID(), v.Name, v.Hash)
				}
			}
		}
		err = store.Walk("", func(path string, r *sweep.Record, err error) error {
			if err != nil {
				return err
			}
			records++
			if !cells[path] {
				t.Errorf("record %s is no cell of the grids of %s with the new setting", path, root)
			}
			cfg, err := softshape.DefaultConfig().WithSettings(r.Config)
			if err != nil {
				t.Fatalf("record %s: %v", path, err)
			}
			if h := hash(r.Config, r.Quick, sweep.StrideMark(cfg, r.Dataset)); h != r.Hash {
				t.Errorf("record %s: its configuration gives #%s with the new setting", path, h)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// 1,149 records and 46 grid files were committed when this test was
	// written; sweeps only add to them.
	if records < 1149 || grids < 46 {
		t.Errorf("%d records in %d grids checked, want at least 1149 in 46", records, grids)
	}
	t.Logf("%d records of %d grids in %d results folders found under their names", records, grids, len(roots))
}
