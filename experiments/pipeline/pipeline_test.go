package pipeline

import (
	"bytes"
	"context"
	"github.com/softshape-go/softshape/softshape"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/tables"
)

// tiny is a schedule that trains in a second or two.
const tiny = "epochs=2;warmup_epochs=1;embed_dim=16;patience=0"

// TestNewGridDefaults: a grid given no folds and no seeds gets all five
// folds and seed 42; an unknown table is an error naming the tables.
func TestNewGridDefaults(t *testing.T) {
	g, err := NewGrid(sweep.GridSpec{Table: "main", Datasets: []string{data.CBFName}, Variants: []string{"SoftShape"}, Quick: true, Settings: tiny}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Spec.Folds, []int{1, 2, 3, 4, 5}) || !slices.Equal(g.Spec.Seeds, []int64{42}) || len(g.Cells) != 5 {
		t.Errorf("folds %v, seeds %v, %d cells; want 1..5, [42], 5 cells", g.Spec.Folds, g.Spec.Seeds, len(g.Cells))
	}
	_, err = NewGrid(sweep.GridSpec{Table: "nope"}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `unknown table "nope"`) || !strings.Contains(err.Error(), "experts_k") {
		t.Errorf("unknown table: %v", err)
	}
}

// TestTrainThenTable runs the pipeline on one generated-data cell: the store
// records the grid, Train trains the missing cell once, the table has its
// row and no missing run, and Stored reads the same table back; a second
// Train trains nothing.
func TestTrainThenTable(t *testing.T) {
	root := filepath.Join(t.TempDir(), "results")
	if _, _, err := Stored(root, "main", tables.Options{}); err == nil || !strings.Contains(err.Error(), "run softshape sweep -table main first") {
		t.Errorf("absent results folder: %v", err)
	}
	g, err := NewGrid(sweep.GridSpec{Table: "main", Datasets: []string{data.CBFName}, Variants: []string{"SoftShape"}, Folds: []int{1}, Quick: true, Settings: tiny}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	store, err := Open(root, g)
	if err != nil {
		t.Fatal(err)
	}
	if m := Missing(store, g.Cells); len(m) != 1 {
		t.Fatalf("%d cells missing before training, want 1", len(m))
	}
	if _, err := Train(context.Background(), store, g.Cells, Training{Execution: softshape.Execution{BackendName: "go", Workers: -1}, WorkersSetting: "-workers"}); err == nil || !strings.HasPrefix(err.Error(), "-workers: ") {
		t.Errorf("workers -1: %v", err)
	}
	var log bytes.Buffer
	rep, err := Train(context.Background(), store, g.Cells, Training{Execution: softshape.Execution{BackendName: "go", Workers: 1}, Log: &log})
	if err != nil || rep.Ran != 1 || len(rep.Errors) != 0 {
		t.Fatalf("train: %v, report %+v", err, rep)
	}
	if s := log.String(); !strings.Contains(s, "backend: ") || !strings.Contains(s, "1 worker(s), results in "+root) || !strings.Contains(s, "\nworkers: ") {
		t.Errorf("log:\n%s", s)
	}
	if m := Missing(store, g.Cells); len(m) != 0 {
		t.Errorf("%d cells missing after training", len(m))
	}
	tb, err := Build(store, g)
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != 1 || len(tb.Missing) != 0 || !tb.Quick || !slices.Equal(tb.Grids, []string{g.ID()}) {
		t.Errorf("table: %d rows, %d missing, quick %v, grids %v", len(tb.Rows), len(tb.Missing), tb.Quick, tb.Grids)
	}
	_, st, err := Stored(root, "main", tables.Options{Quick: true, Grid: g.ID()})
	if err != nil || len(st.Rows) != 1 || st.Rows[0].Dataset != tb.Rows[0].Dataset {
		t.Errorf("stored table: %v, %+v", err, st)
	}
	rep, err = Train(context.Background(), store, g.Cells, Training{Execution: softshape.Execution{BackendName: "go", Workers: 1}})
	if err != nil || rep.Ran != 0 || rep.Done != 1 {
		t.Errorf("second train: %v, report %+v", err, rep)
	}
}
