package sweep

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestUnusableRecordAdvice: a record of a newer schema and a garbled one are
// corrupt cells whose detail names the file and says what to do; a sweep
// leaves both files as they are, and once they are moved aside as the advice
// says, it runs their cells again.
func TestUnusableRecordAdvice(t *testing.T) {
	s := openStore(t)
	g := mustGrid(t, GridSpec{Table: "shape_length_m", Datasets: []string{"CBF-a"}, Variants: []string{"Fixed-8"},
		Folds: []int{1, 2}, Seeds: []int64{42}, Settings: tinySettings})
	if err := s.SaveGrid(g); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Store: s, Load: cbfLoader, Train: fakeTrain(0)}
	if rep, err := r.Run(context.Background(), g.Cells); err != nil || rep.Ran != 2 {
		t.Fatalf("first sweep: %+v, %v", rep, err)
	}
	newer, garbled := s.RecordPath(g.Cells[0].Key), s.RecordPath(g.Cells[1].Key)
	b, err := os.ReadFile(newer)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte(`"schema": 1,`), []byte(`"schema": 2,`), 1)
	if err := os.WriteFile(newer, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(garbled, []byte(`{"schema": 1, "table": "shape`), 0o644); err != nil {
		t.Fatal(err)
	}
	wants := map[string]string{
		newer: "record " + newer + ": schema 2, written by a newer softshape (this one reads schema 1): use that newer softshape, " +
			"or move it aside (e.g. rename it to " + filepath.Base(newer) + ".bad) to have softshape sweep run the cell again",
		garbled: "record " + garbled + ": unexpected end of JSON input; softshape sweep never overwrites a record: " +
			"move it aside (e.g. rename it to " + filepath.Base(garbled) + ".bad) to have the cell run again",
	}
	for i, path := range []string{newer, garbled} {
		cs := s.CellStatus(g.Cells[i].Key)
		if cs.State != StateCorrupt || cs.Detail != wants[path] {
			t.Errorf("%s: %s %q,\nwant corrupt %q", filepath.Base(path), cs.State, cs.Detail, wants[path])
		}
	}

	rep, err := r.Run(context.Background(), g.Cells)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range rep.Errors {
		got = append(got, e.Error())
	}
	if rep.Ran != 0 || len(got) != 2 || !strings.HasSuffix(got[0], wants[newer]) || !strings.HasSuffix(got[1], wants[garbled]) {
		t.Errorf("sweep over the unusable records: ran %d, errors\n%s\nwant the two advices", rep.Ran, strings.Join(got, "\n"))
	}
	if after, _ := os.ReadFile(newer); !bytes.Equal(after, b) {
		t.Error("the sweep changed the record of the newer schema")
	}

	for _, path := range []string{newer, garbled} {
		if err := os.Rename(path, path+".bad"); err != nil {
			t.Fatal(err)
		}
	}
	if rep, err := r.Run(context.Background(), g.Cells); err != nil || len(rep.Errors) != 0 || rep.Ran != 2 {
		t.Fatalf("sweep after moving them aside: %+v, %v; want both cells run", rep, err)
	}
	for i, path := range []string{newer, garbled} {
		if cs := s.CellStatus(g.Cells[i].Key); cs.State != StateDone {
			t.Errorf("%s after the sweep: %s %s", filepath.Base(path), cs.State, cs.Detail)
		}
		if _, err := os.Stat(path + ".bad"); err != nil {
			t.Errorf("the file moved aside is gone: %v", err)
		}
	}
}

// TestNestedResultsHint: a folder above several results folders (one per
// protocol preset) records no sweep itself; the error names the folders
// below it that record the table and the -results that opens one.
func TestNestedResultsHint(t *testing.T) {
	root := filepath.Join(t.TempDir(), "results")
	for _, sub := range []struct {
		name   string
		tables []string
	}{{"reference_compat", []string{"experts_k"}}, {"reference_fresh", []string{"experts_k", "depth_L"}}, {".hidden", []string{"experts_k"}}} {
		s, err := Open(filepath.Join(root, sub.name))
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range sub.tables {
			if err := s.SaveGrid(mustGrid(t, GridSpec{Table: table, Datasets: []string{"GunPoint"}, Folds: []int{1}, Seeds: []int64{42}})); err != nil {
				t.Fatal(err)
			}
		}
	}
	top, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	_, err = top.Expected("experts_k", false, "")
	want := "no sweep recorded for table experts_k (full) under " + root + ": the results folders below it record table experts_k: " +
		"reference_compat, reference_fresh; name one of them, e.g. -results " + filepath.Join(root, "reference_compat")
	if !errors.Is(err, ErrNoSweep) || err.Error() != want {
		t.Errorf("Expected: %v\nwant %s", err, want)
	}
	if subs, err := NestedResults(root, "depth_L"); err != nil || !reflect.DeepEqual(subs, []string{"reference_fresh"}) {
		t.Errorf("NestedResults depth_L: %v, %v; want [reference_fresh]", subs, err)
	}
	if hint := NestedHint(root, ""); hint != "the results folders below it record sweeps: reference_compat, reference_fresh; "+
		"name one of them, e.g. -results "+filepath.Join(root, "reference_compat") {
		t.Errorf("NestedHint of any table: %q", hint)
	}
	// A results folder itself has none below it: the usual advice stays.
	sub, _ := Open(filepath.Join(root, "reference_compat"))
	if _, err := sub.Expected("depth_L", false, ""); err == nil || !strings.Contains(err.Error(), "run `softshape sweep -table depth_L` first") {
		t.Errorf("no sweep in a results folder: %v", err)
	}
	if hint := NestedHint(filepath.Join(root, "reference_compat"), ""); hint != "" {
		t.Errorf("NestedHint of a results folder: %q, want none", hint)
	}
}
