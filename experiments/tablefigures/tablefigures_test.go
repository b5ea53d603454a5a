package tablefigures

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/paper"
	"github.com/softshape-go/softshape/plots"
)

func TestSweptValues(t *testing.T) {
	for _, c := range []struct {
		names     []string
		logSpaced bool
		xs        []float64
		ticks     []string
	}{
		{[]string{"0%", "10%", "50%", "90%"}, false, []float64{0, 10, 50, 90}, nil},
		{[]string{"k=1", "k=2", "k=4"}, false, []float64{1, 2, 4}, nil},
		{[]string{"lambda = 0.0001", "lambda = 1", "lambda = 100"}, true, []float64{0, 1, 2}, []string{"lambda = 0.0001", "lambda = 1", "lambda = 100"}},
		{[]string{"q=1", "q=4", "q=m"}, false, []float64{0, 1, 2}, []string{"q=1", "q=4", "q=m"}},
		{[]string{"hatC=C/2", "hatC=C"}, false, []float64{0, 1}, []string{"hatC=C/2", "hatC=C"}},
		{[]string{"50%", "0.5"}, false, []float64{0, 1}, []string{"50%", "0.5"}}, // mixed units
	} {
		xs, ticks := sweptValues(c.names, c.logSpaced)
		if !slices.Equal(xs, c.xs) || !slices.Equal(ticks, c.ticks) {
			t.Errorf("sweptValues(%q, %v) = %v, %q; want %v, %q", c.names, c.logSpaced, xs, ticks, c.xs, c.ticks)
		}
	}
}

func TestKinds(t *testing.T) {
	for table, want := range map[string][]Kind{
		"sparse_ratio":          {KindSweep, KindRanks},
		"lambda":                {KindSweep, KindRanks},
		"main":                  {KindRanks, KindCD},
		"shared_expert_network": {KindRanks, KindCD},
		"params_inference_time": nil,
	} {
		if got := Kinds(table); !slices.Equal(got, want) {
			t.Errorf("Kinds(%s) = %v, want %v", table, got, want)
		}
	}
}

// handTable is a table of three measured columns over n datasets, with
// accuracies that rank the columns differently on each dataset.
func handTable(name string, n int) *tables.Table {
	cols := []string{"k=1", "k=2", "k=3"}
	t := &tables.Table{Name: name, Quick: true, Folds: []int{1, 2}, Seeds: []int64{42}, Grids: []string{"g1"},
		Protocol: "reference_fresh (fold_reset=fresh, eval_path=sparse); default (fold_reset=carry, eval_path=phase)"}
	s := &t.Summary
	for j, c := range cols {
		t.Columns = append(t.Columns, tables.Column{Name: c, Kind: tables.Ours, Variant: c})
		s.OursColumns = append(s.OursColumns, j)
		s.FromPaper = append(s.FromPaper, false)
	}
	for i := range n {
		r := tables.Row{Dataset: "D" + string(rune('A'+i))}
		for j := range cols {
			r.Ours = append(r.Ours, tables.Value{Acc: 0.7 + 0.01*float64((i+j)%3) + 0.001*float64(j), Runs: 2, Expected: 2})
			r.Paper = append(r.Paper, math.NaN())
		}
		t.Rows = append(t.Rows, r)
		s.Datasets = append(s.Datasets, r.Dataset)
	}
	s.Ours = &stats.Summary{Methods: cols, AvgRank: []float64{2, 2, 2}}
	return t
}

// TestTitles: every figure names the figure and table, the data, the runs
// with every protocol preset, and carries the quick-mode note.
func TestTitles(t *testing.T) {
	tb := handTable("experts_k", 3)
	for _, k := range AllKinds() {
		f, err := Draw(k, tb, DefaultAlpha)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		for _, want := range []string{" — experts_k — ", "folds 1,2, seeds 42, grid g1, protocol reference_fresh+default", plots.QuickModeNote} {
			if !strings.Contains(f.Title(), want) {
				t.Errorf("%s: title %q lacks %q", k, f.Title(), want)
			}
		}
	}
	tb.Grids = []string{"g1", "g2", "g3"}
	if f, err := Sweep(tb); err != nil || !strings.Contains(f.Title(), "seeds 42, 3 grids, protocol") {
		t.Errorf("three grids: the title should count them: %v", err)
	}
	one := handTable("experts_k", 1)
	if f, err := Sweep(one); err != nil || !strings.Contains(f.Title(), "— DA (") {
		t.Errorf("one dataset: the title should name it: %v", err)
	}
	if _, err := Draw("bars", tb, DefaultAlpha); err == nil {
		t.Error("an unknown kind was drawn")
	}
}

// TestCDMinimum: a CD diagram needs MinCDDatasets complete datasets, and α
// in (0, 1).
func TestCDMinimum(t *testing.T) {
	if _, err := CD(handTable("experts_k", MinCDDatasets-1), DefaultAlpha); !errors.Is(err, ErrNoFigure) {
		t.Errorf("%d datasets: %v, want ErrNoFigure", MinCDDatasets-1, err)
	}
	f, err := CD(handTable("experts_k", MinCDDatasets), 0.1)
	if err != nil {
		t.Fatalf("%d datasets: %v", MinCDDatasets, err)
	}
	if !strings.Contains(f.Title(), "Wilcoxon–Holm α=0.1") {
		t.Errorf("title %q does not give α", f.Title())
	}
	for _, a := range []float64{0, 1, math.NaN()} {
		if _, err := CD(handTable("experts_k", 4), a); err == nil || errors.Is(err, ErrNoFigure) {
			t.Errorf("α=%v: %v, want a parameter error", a, err)
		}
	}
	if _, err := PaperCD("main", DefaultAlpha); err != nil {
		t.Error(err)
	}
}

// TestPaperRanks: the paper's ranks over the same datasets where it has a
// per-dataset table, else the ranks it prints (the appendix studies).
func TestPaperRanks(t *testing.T) {
	printed, err := paper.Summary("num_experts")
	if err != nil {
		t.Fatal(err)
	}
	methods := []string{"hatC=C/2", "hatC=C", "hatC=2C", "hatC=4C"}
	s := tables.Summary{Ours: &stats.Summary{Methods: methods}, Datasets: []string{"A", "B"}, Printed: printed}
	ranks, note := paperRanks(s)
	want := []float64{2.33, 1.39, 1.83}
	if !slices.Equal(ranks[:3], want) || !math.IsNaN(ranks[3]) || !strings.Contains(note, "printed") {
		t.Errorf("printed ranks: %v (%q), want %v then NaN", ranks, note, want)
	}
	s.Paper = &stats.Summary{Methods: []string{"hatC=C", "hatC=2C"}, AvgRank: []float64{1.5, 1.5}}
	s.PaperDatasets = []string{"A"}
	ranks, note = paperRanks(s)
	if !math.IsNaN(ranks[0]) || ranks[1] != 1.5 || ranks[2] != 1.5 || note != "paper over the 1 of these datasets in its table" {
		t.Errorf("per-dataset ranks: %v (%q)", ranks, note)
	}
	if ranks, note := paperRanks(tables.Summary{Ours: &stats.Summary{Methods: methods}}); ranks != nil || note != "" {
		t.Errorf("no paper ranks: %v (%q)", ranks, note)
	}
}

// TestSweepColumns: the paper's values of a column we do not run are drawn
// (its dashed line goes on), our line is not broken by it, and the paper's
// baseline methods are left out.
func TestSweepColumns(t *testing.T) {
	tb := handTable("shape_length_m", 2)
	tb.Columns[1].Kind, tb.Columns[1].Name = tables.Blocked, "Multi-Seq"
	tb.Columns = append(tb.Columns, tables.Column{Name: "SoftShape", Kind: tables.Baseline})
	for i := range tb.Rows {
		tb.Rows[i].Paper[1] = 0.8
		tb.Rows[i].Ours = append(tb.Rows[i].Ours, tables.Value{Acc: math.NaN()})
		tb.Rows[i].Paper = append(tb.Rows[i].Paper, 0.9)
	}
	d, err := sweepSeries(tb)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.ticks, []string{"k=1", "Multi-Seq", "k=3"}) || len(d.ours) != 2 || len(d.paper) != 2 || !slices.Equal(d.datasets, []string{"DA", "DB"}) {
		t.Fatalf("ticks %q, %d ours and %d paper series, datasets %q", d.ticks, len(d.ours), len(d.paper), d.datasets)
	}
	if o, p := d.ours[0], d.paper[0]; !slices.Equal(o.X, []float64{0, 2}) || slices.ContainsFunc(o.Y, math.IsNaN) ||
		!slices.Equal(p.X, []float64{0, 1, 2}) || p.Y[1] != 0.8 || !math.IsNaN(p.Y[0]) {
		t.Errorf("ours %+v, paper %+v", o, p)
	}
	if _, err := Sweep(tb); err != nil {
		t.Fatal(err)
	}
	for j := range tb.Columns {
		tb.Columns[j].Kind = tables.Baseline
	}
	if _, err := Sweep(tb); !errors.Is(err, ErrNoFigure) {
		t.Errorf("no measured column: %v, want ErrNoFigure", err)
	}
}
