package tablefigures

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/experiments/sweep"
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
		{[]string{"λ = 0.0001", "λ = 1", "λ = 100"}, true, []float64{0, 1, 2}, []string{"λ = 0.0001", "λ = 1", "λ = 100"}},
		{[]string{"q=1", "q=4", "q=m"}, false, []float64{0, 1, 2}, []string{"q=1", "q=4", "q=m"}},
		{[]string{"Ĉ=C/2", "Ĉ=C"}, false, []float64{0, 1}, []string{"Ĉ=C/2", "Ĉ=C"}},
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
		acc := make([]float64, len(cols))
		for j, v := range r.Ours {
			acc[j] = math.Round(v.Acc*1e4) / 1e4
		}
		s.Acc = append(s.Acc, acc)
	}
	avg := make([]float64, len(cols))
	for j := range cols {
		for _, r := range t.Rows {
			avg[j] += r.Ours[j].Acc / float64(n)
		}
	}
	s.Ours = &stats.Summary{Methods: cols, AvgRank: []float64{2, 2, 2}, AvgAcc: avg}
	return t
}

// TestTitles: every figure's title says what it shows and of which table,
// in one short line (and the dataset when there is one); the caption names the
// data, the runs with every protocol preset, and the quick-mode note stays.
func TestTitles(t *testing.T) {
	tb := handTable("experts_k", 3)
	tb.Title = "Table 4: number of activated experts k on 18 UCR datasets"
	for _, k := range AllKinds() {
		f, err := Draw(k, tb, DefaultAlpha)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if !strings.HasSuffix(f.Title(), "(Table 4) "+plots.QuickModeNote) || strings.Contains(f.Title(), "18 UCR") || strings.Contains(f.Title(), "grid") {
			t.Errorf("%s: title %q, want a short title ending with (Table 4) and the quick-mode note", k, f.Title())
		}
		for _, want := range []string{"3 UCR datasets (DA, DB, DC)", "folds 1, 2, seed 42", "protocol reference_fresh+default"} {
			if !strings.Contains(f.Caption(), want) {
				t.Errorf("%s: caption %q lacks %q", k, f.Caption(), want)
			}
		}
	}
	one := handTable("lambda", 1)
	if f, err := Sweep(one); err != nil || f.Title() != "Accuracy vs MoE loss weight λ (log-spaced) (appendix: lambda) — DA "+plots.QuickModeNote {
		t.Errorf("one dataset: the title should name it and the appendix table: %q, %v", f.Title(), err)
	}
	// The notebooks show a rank figure per preset: its title names the preset.
	tb.Protocol = "reference_compat (fold_reset=carry)"
	if f, err := Draw("ranks", tb, DefaultAlpha); err != nil || !strings.HasPrefix(f.Title(), "Average rank, reference_compat (Table 4)") {
		t.Errorf("ranks under one preset: title %q (%v), want it to name the preset", f.Title(), err)
	}
	if _, err := Draw("bars", tb, DefaultAlpha); err == nil {
		t.Error("an unknown kind was drawn")
	}
	if got := intRanges([]int{1, 2, 3, 4, 5}); got != "1–5" {
		t.Errorf("intRanges(1..5) = %q", got)
	}
	if got := intRanges([]int{1, 3, 4, 6, 7, 8}); got != "1, 3, 4, 6–8" {
		t.Errorf("intRanges = %q", got)
	}
}

// TestSweepDataIsTheTables builds Table 4 (experts_k) from the committed
// reproduction, where k = 3 and 4 are invalid on the four two-class datasets,
// and checks what its figure draws against the table: the average at each k
// is the table's Avg. Acc — ours, over the datasets of its summary (the two
// with valid k ≥ 3 runs), not over the datasets that have a run at that k;
// every dataset with runs has its series, with the standard error of each
// point over its folds; every series is a dataset, drawn in its own
// colour (plots.DatasetStyle).
func TestSweepDataIsTheTables(t *testing.T) {
	store, err := sweep.Open(filepath.Join("..", "..", "reproduction", "results", "reference_compat"))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := tables.Build(store, "experts_k", tables.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := tb.Summary
	if s.Ours == nil || len(s.Datasets) < 1 || len(s.Datasets) == len(tb.Rows) {
		t.Fatalf("the committed Table 4 should have a summary over some but not all of its %d datasets: %v", len(tb.Rows), s.Datasets)
	}
	d, err := sweepSeries(tb)
	if err != nil {
		t.Fatal(err)
	}
	if d.avgOurs == nil || len(d.avgOurs.Y) != 4 {
		t.Fatalf("average %+v, want one point per k", d.avgOurs)
	}
	for i, x := range d.avgOurs.X {
		j := slices.IndexFunc(tb.Columns, func(c tables.Column) bool { return c.Name == "k="+strconv.Itoa(int(x)) })
		k := slices.Index(s.OursColumns, j)
		// The table's number, and the same by hand: the mean of the
		// summary datasets' accuracies as the table prints them.
		hand := 0.0
		for _, ds := range s.Datasets {
			r := tb.Rows[slices.IndexFunc(tb.Rows, func(r tables.Row) bool { return r.Dataset == ds })]
			hand += math.Round(r.Ours[j].Acc*1e4) / 1e4
		}
		hand /= float64(len(s.Datasets))
		if got := d.avgOurs.Y[i]; got != s.Ours.AvgAcc[k] || math.Abs(got-hand) > 1e-12 {
			t.Errorf("k=%v: the figure's average %v, the table's Avg. Acc %v, by hand %v", x, got, s.Ours.AvgAcc[k], hand)
		}
		if se := d.avgOurs.SE[i]; !(se > 0 && se < 0.1) {
			t.Errorf("k=%v: the average's SE %v", x, se)
		}
	}
	if !strings.Contains(d.averageNote, strings.Join(s.Datasets, ", ")) {
		t.Errorf("the caption %q does not name the averaged datasets %v", d.averageNote, s.Datasets)
	}
	var withRuns []string
	for _, r := range tb.Rows {
		if slices.ContainsFunc(r.Ours, func(v tables.Value) bool { return v.Runs > 0 }) {
			withRuns = append(withRuns, r.Dataset)
		}
	}
	if !slices.Equal(d.datasets, withRuns) || len(d.ours) != len(withRuns) {
		t.Errorf("series of %v, datasets with runs %v", d.datasets, withRuns)
	}
	for _, o := range d.ours {
		r := tb.Rows[slices.IndexFunc(tb.Rows, func(r tables.Row) bool { return r.Dataset == o.Label })]
		if _, ok := plots.DatasetStyle(o.Label); !ok {
			t.Errorf("series %q is not drawn in a dataset's colour", o.Label)
		}
		for i, y := range o.Y {
			j := slices.IndexFunc(tb.Columns, func(c tables.Column) bool { return c.Name == "k="+strconv.Itoa(int(o.X[i])) })
			v := r.Ours[j]
			if !(y == v.Acc || math.IsNaN(y) && math.IsNaN(v.Acc)) {
				t.Errorf("%s k=%v: drawn %v, table %v", o.Label, o.X[i], y, v.Acc)
			}
			if v.Runs >= 2 && !(o.SE[i] > 0 || o.SE[i] == 0 && allEqual(v.PerRun)) {
				t.Errorf("%s k=%v: SE %v over %d runs", o.Label, o.X[i], o.SE[i], v.Runs)
			}
		}
	}
	if _, err := Sweep(tb); err != nil {
		t.Fatal(err)
	}
}

// allEqual reports whether every run has the same accuracy.
func allEqual(runs []tables.RunAcc) bool {
	for _, r := range runs {
		if r.Acc != runs[0].Acc {
			return false
		}
	}
	return true
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
	if !strings.Contains(f.Caption(), "Wilcoxon–Holm α=0.1") {
		t.Errorf("caption %q does not give α", f.Caption())
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
	methods := []string{"Ĉ=C/2", "Ĉ=C", "Ĉ=2C", "Ĉ=4C"}
	s := tables.Summary{Ours: &stats.Summary{Methods: methods}, Datasets: []string{"A", "B"}, Printed: printed}
	ranks, note := paperRanks(s)
	want := []float64{2.33, 1.39, 1.83}
	if !slices.Equal(ranks[:3], want) || !math.IsNaN(ranks[3]) || !strings.Contains(note, "printed") {
		t.Errorf("printed ranks: %v (%q), want %v then NaN", ranks, note, want)
	}
	s.Paper = &stats.Summary{Methods: []string{"Ĉ=C", "Ĉ=2C"}, AvgRank: []float64{1.5, 1.5}}
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

// TestSweepCaptionOneDataset: a table of one dataset (the committed grid of
// ItalyPowerDemand's Table 3 seeds 0 and 1) says its average is over that
// dataset, not over "all 1 dataset".
func TestSweepCaptionOneDataset(t *testing.T) {
	store, err := sweep.Open(filepath.Join("..", "..", "reproduction", "results", "reference_fresh"))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := tables.Build(store, "sparse_ratio", tables.Options{Grid: "5ba9c4d214"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != 1 || len(tb.Summary.Datasets) != 1 {
		t.Fatalf("rows %d, summary datasets %v: want ItalyPowerDemand alone, complete", len(tb.Rows), tb.Summary.Datasets)
	}
	d, err := sweepSeries(tb)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.averageNote, "the mean over the one dataset,") || strings.Contains(d.averageNote, "all 1 dataset") {
		t.Errorf("caption note %q", d.averageNote)
	}
}

// TestSweepCaptionPaperLines: the caption promises the paper's dashed lines
// only where the paper gives per-dataset values; for a table without them
// (an appendix study, printed as a summary only) it says so instead.
func TestSweepCaptionPaperLines(t *testing.T) {
	tb := handTable("experts_k", 2) // every paper value NaN
	f, err := Sweep(tb)
	if err != nil {
		t.Fatal(err)
	}
	if c := f.Caption(); strings.Contains(c, "dashed") || !strings.Contains(c, "the paper gives no per-dataset values for this table") {
		t.Errorf("no paper values, caption %q", c)
	}
	tb.Rows[0].Paper[1] = 0.8
	if f, err = Sweep(tb); err != nil {
		t.Fatal(err)
	}
	if c := f.Caption(); !strings.Contains(c, "dashed: the paper's values") || strings.Contains(c, "no per-dataset values") {
		t.Errorf("a paper value, caption %q", c)
	}
}

// TestSweepCaptionUnordered: a table whose columns are no values of one
// hyperparameter (an ablation's variants) is drawn without lines, and its
// caption says markers and dashes, not solid and dashed lines; a swept
// table keeps its lines.
func TestSweepCaptionUnordered(t *testing.T) {
	tb := handTable("ablation", 2)
	tb.Rows[0].Paper[1] = 0.8
	f, err := Sweep(tb)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Caption()
	for _, want := range []string{"Markers: ours, bars ± SE", "dashes: the paper's values", "Black, right of each column: the mean over all 2 datasets, the table's Avg. Acc, bar ± its SE"} {
		if !strings.Contains(c, want) {
			t.Errorf("ablation caption %q lacks %q", c, want)
		}
	}
	if strings.Contains(strings.ToLower(c), "solid") || strings.Contains(c, "band") {
		t.Errorf("ablation caption %q promises lines or a band", c)
	}
	tb.Name = "shape_length_m" // three ways to choose m: no order either
	if f, err = Sweep(tb); err != nil {
		t.Fatal(err)
	}
	if c := f.Caption(); !strings.Contains(c, "Markers: ours") {
		t.Errorf("shape_length_m caption %q: want markers", c)
	}
	tb.Name = "experts_k"
	if f, err = Sweep(tb); err != nil {
		t.Fatal(err)
	}
	if c := f.Caption(); !strings.Contains(c, "Solid: ours") || !strings.Contains(c, "band ± its SE") {
		t.Errorf("experts_k caption %q: want solid lines and a band", c)
	}
}
