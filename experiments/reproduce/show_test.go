package reproduce

import (
	"context"
	"errors"
	"fmt"
	"github.com/softshape-go/softshape/softshape"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/reproduction"
)

// TestCommittedTablesBothPresets: the full-mode Table 3 shows the committed
// runs of both presets beside the paper, training and writing nothing; its
// fold leak per setting equals the mean ± SE of reference_compat −
// reference_fresh computed here straight from the JSON records, paired by
// dataset, fold and seed; it says which preset to report.
func TestCommittedTablesBothPresets(t *testing.T) {
	dir := filepath.Join(RepoRoot(), "reproduction", "results")
	if _, err := os.Stat(filepath.Join(dir, "reference_fresh", "sparse_ratio")); err != nil {
		t.Skip("no committed Table 3 in this checkout")
	}
	before := listFiles(t, dir)
	c, err := CommittedTables("sparse_ratio")
	if err != nil {
		t.Fatal(err)
	}
	if after := listFiles(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Error("rendering changed the committed store")
	}
	for i, e := range c.Entries {
		if e.Preset != reproduction.Presets[i] || !e.Complete() {
			t.Errorf("entry %d: %s, %d of %d runs; Table 3 is complete under both presets", i, e.Preset, e.Recorded, e.Expected)
		}
	}
	// Records sit under <dataset>/<variant>/: keyed by dataset, variant, fold, seed.
	byDataset := func(preset string) map[string]float64 {
		out := map[string]float64{}
		files, _ := filepath.Glob(filepath.Join(dir, preset, "sparse_ratio", "*"))
		for _, d := range files {
			for _, r := range readRecords(t, filepath.Join(d, "*", "fold*.json")) {
				if r.Status == "ok" {
					out[fmt.Sprintf("%s/%s/%d/%d", filepath.Base(d), r.Variant, r.Fold, r.Seed)] = r.Acc
				}
			}
		}
		return out
	}
	compat, fresh := byDataset("reference_compat"), byDataset("reference_fresh")
	md := c.Markdown()
	checked := 0
	for _, col := range c.Comparison.SummaryColumns {
		var diffs []float64
		for k, a := range compat {
			parts := strings.Split(k, "/")
			if parts[1] != col {
				continue
			}
			if f, ok := fresh[k]; ok {
				diffs = append(diffs, a-f)
			}
		}
		if len(diffs) < 2 {
			continue
		}
		mean, ss := 0.0, 0.0
		for _, d := range diffs {
			mean += d / float64(len(diffs))
		}
		for _, d := range diffs {
			ss += (d - mean) * (d - mean)
		}
		se := math.Sqrt(ss/float64(len(diffs)-1)) / math.Sqrt(float64(len(diffs)))
		cell := fmt.Sprintf("%+.4f ± %.4f (n=%d)", mean, se, len(diffs))
		j := strings.Index(md, "| **fold leak: reference_compat − reference_fresh**, all folds |")
		if j < 0 {
			t.Fatalf("no leak row in\n%s", md)
		}
		row := md[j : j+strings.Index(md[j:], "\n")]
		if !strings.Contains(row, "| "+cell+" |") {
			t.Errorf("%s: leak %s not in the row %q", col, cell, row)
		}
		checked++
	}
	if checked != len(c.Comparison.SummaryColumns) || checked == 0 {
		t.Errorf("checked the leak of %d of %d columns", checked, len(c.Comparison.SummaryColumns))
	}
	for _, want := range []string{PresetIntro, PresetAdvice, "**Every p-value and difference compares with 50%**",
		"| | ours, reference_compat |", "| | ours, reference_fresh |", "P-value (paper's: ½ two-sided paired t-test vs 50%) — ours, reference_fresh |"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	// The seed-42 table is complete; the section of more seeds below it is
	// labelled partial while its runs are not all in, and only then.
	main, more, _ := strings.Cut(md, "\n## reference_fresh, seeds 42, 0, 1\n")
	if c.Comparison.Partial() || strings.Contains(main, "Partial") {
		t.Error("complete Table 3 labelled partial")
	}
	if len(c.More) == 1 {
		if e := c.More[0]; strings.Contains(more, "**Partial: ") != (e.Built != nil && e.Recorded < e.Expected) {
			t.Errorf("seeds 0, 1: %d of %d runs recorded, section labelled partial %v:\n%s", e.Recorded, e.Expected, strings.Contains(more, "**Partial: "), more)
		}
	}
	// Seeds 0 and 1 under reference_fresh follow (reproduction.MoreSeeds):
	// once recorded, pooled with seed 42 and the SE between seeds apart.
	if len(c.More) != 1 || !strings.Contains(md, "\n## reference_fresh, seeds 42, 0, 1\n") {
		t.Errorf("%d entries of more seeds; no section of seeds 42, 0, 1 in\n%s", len(c.More), md)
	} else if e := c.More[0]; e.Built != nil && e.Recorded == e.Expected && !strings.Contains(md, "| between seeds |") {
		t.Errorf("seeds 0, 1 complete but no SE between seeds in\n%s", md)
	} else if e.Built != nil && e.Recorded < e.Expected && !strings.Contains(md, fmt.Sprintf("(%d of %d recorded so far)", e.Recorded, e.Expected)) {
		t.Errorf("seeds 0, 1 partly recorded (%d of %d), not said so in\n%s", e.Recorded, e.Expected, md)
	}
	figs := c.Figures()
	// The sweep charts are docs/reproduction.md's (SE bands, every seed an
	// entry pools): one per entry, the file of each committed under docs/.
	sweeps := []string{"sparse_ratio_sweep_reference_compat", "sparse_ratio_sweep_reference_fresh", "sparse_ratio_sweep_reference_fresh_seeds_42_0_1"}
	var names []string
	for _, n := range figs {
		names = append(names, n.Name)
	}
	if want := append(slices.Clone(sweeps), "sparse_ratio_ranks_reference_compat", "sparse_ratio_ranks_reference_fresh"); !slices.Equal(names, want) {
		t.Fatalf("figures %v, want %v", names, want)
	}
	docFigs := reproduction.Figures(append(c.Entries[:], c.More...))
	for i, n := range figs[:3] {
		if n.Err != nil || docFigs[i].Preset != n.Preset {
			t.Errorf("%s: %v, preset %q, want the figure of %s", n.Name, n.Err, n.Preset, docFigs[i].Label)
			continue
		}
		if _, err := os.Stat(filepath.Join(RepoRoot(), "docs", reproduction.FigureDir, docFigs[i].Name)); err != nil {
			t.Errorf("%s: docs/reproduction.md's figure %s: %v", n.Name, docFigs[i].Name, err)
		}
		if want := len(docFigs[i].Built.Seeds); strings.Contains(n.Figure.Caption(), "seeds 0, 1, 42") != (want == 3) {
			t.Errorf("%s: caption %q, want the %d seeds its runs pool", n.Name, n.Figure.Caption(), want)
		}
	}
	for _, n := range figs[3:] { // each preset's ranks: over the summary rows' datasets
		if n.Err != nil || !strings.Contains(n.Figure.Caption(), "("+strings.Join(c.Comparison.Common, ", ")+")") {
			t.Errorf("%s: %v, not over the datasets complete under both presets %v", n.Name, n.Err, c.Comparison.Common)
		}
	}
	t.Run("clone without runs", func(t *testing.T) {
		repositoryWithoutRuns(t)
		if _, err := CommittedTables("moe_expert_network"); !errors.Is(err, ErrNotCommitted) || !strings.Contains(err.Error(), "TABLES=moe_expert_network reproduction/run-sweeps.sh") {
			t.Errorf("a table without committed runs: %v", err)
		}
	})
	// Its figures' places: rank bars and a CD diagram, no line chart over
	// its (not swept) columns.
	if figs := uncommittedFigures("moe_expert_network"); len(figs) != 2 || figs[0].Name != "moe_expert_network_ranks" || figs[1].Name != "moe_expert_network_cd" || !errors.Is(figs[0].Err, ErrNoFigure) {
		t.Errorf("the places of an uncommitted table's figures: %+v", figs)
	}
}

// TestCommittedEpochTimes: the full-mode epoch times come from the committed
// runs of each preset and name the machine of the records that predate the
// CPU field.
func TestCommittedEpochTimes(t *testing.T) {
	if !IsCommitted("sparse_ratio") {
		t.Skip("no committed Table 3 in this checkout")
	}
	md, err := CommittedEpochTimes("sparse_ratio")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Time per epoch from the stored runs — sparse_ratio, reference_compat", "### Time per epoch from the stored runs — sparse_ratio, reference_fresh"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	// Each dataset's order note stands where its rows come from one
	// processor, and only there (epochOrder, TestEpochOrder).
	for _, sec := range strings.Split(md, "### Time per epoch from the stored runs")[1:] {
		cpus := map[string]map[string]bool{} // dataset → processors of its rows
		for _, line := range strings.Split(sec, "\n") {
			if cells := strings.Split(line, " | "); strings.HasPrefix(line, "| ") && len(cells) == 7 && cells[2] != "CPU" && cells[2] != "—" && !strings.HasPrefix(cells[2], "---") {
				ds := strings.TrimPrefix(cells[0], "| ")
				if cpus[ds] == nil {
					cpus[ds] = map[string]bool{}
				}
				cpus[ds][cells[2]] = true
			}
		}
		if len(cpus) < 2 {
			t.Errorf("rows of %d datasets, want the committed six:\n%s", len(cpus), sec)
		}
		for ds, c := range cpus {
			prefix := "- **" + ds + "**: "
			if got, want := strings.Contains(sec, prefix+"Fastest per epoch here:"), len(c) == 1; got != want {
				t.Errorf("%s: rows of %d processors, order note %v:\n%s", ds, len(c), got, sec)
			}
			if got, want := strings.Contains(sec, prefix+"No fastest sparse ratio is named"), len(c) > 1; got != want {
				t.Errorf("%s: rows of %d processors, line saying why none is ranked %v:\n%s", ds, len(c), got, sec)
			}
		}
	}
	if strings.Contains(md, "| not recorded |") && !strings.Contains(md, "reproduction/manifest.json says where the committed runs trained") {
		t.Errorf("records without a CPU, and no machine named:\n%s", md)
	}
}

// TestFullModeTrainsNothing: in full mode without Train no function a
// notebook cell calls trains or measures: a table lists its runs without a
// record and says how to train them, the timing cells show the committed
// measurements, and the slider and compat cells show one line saying what
// they would do.
func TestFullModeTrainsNothing(t *testing.T) {
	p := Params{Quick: false, Results: t.TempDir(), Datasets: []string{"GunPoint"}, Folds: []int{1}, TrainMissing: true}
	p, err := p.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if !p.TrainingOff() || p.UsesCommitted("sparse_ratio") || !strings.Contains(p.String(), "train: false") {
		t.Fatalf("full mode with a results folder: training off %v, committed %v, %q", p.TrainingOff(), p.UsesCommitted("sparse_ratio"), p.String())
	}
	r, err := Table(context.Background(), "sparse_ratio", p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Trained != 0 || len(r.NotTrained) != len(r.Grid.Cells) || !strings.Contains(r.Markdown(), "set `p.Train = true` in the parameter cell or SOFTSHAPE_TRAIN=1") {
		t.Errorf("trained %d, not trained %d of %d:\n%s", r.Trained, len(r.NotTrained), len(r.Grid.Cells), r.Markdown())
	}
	out := captureStdout(t, func() {
		ShowRunningTime(p)
		ShowPairedTiming(p)
		SparseRatioSlider(p)
		ShowCompat(context.Background(), p)
	})
	// The timing cells show the committed measurements instead, measuring
	// nothing; the slider and the compat cells say they did not run.
	if n := strings.Count(out, "*Not run: full mode trains and measures nothing unless asked"); n != 2 {
		t.Errorf("%d of the 2 training cells said they did not run:\n%s", n, out)
	}
	for _, want := range []string{"Committed measurement `reproduction/timing/onnxruntime-cpu/timing.json`", "Committed measurement `reproduction/timing/go/paired.json`"} {
		if !strings.Contains(out, want) {
			t.Errorf("the timing cells do not show %q:\n%s", want, out)
		}
	}
	for _, f := range listFiles(t, p.Results) {
		if strings.HasPrefix(filepath.Base(f), "fold") {
			t.Errorf("full mode without Train wrote a run record: %s", f)
		}
	}
	// Notebooks 00 and 09: a fold with no saved model is not trained; each
	// cell says so in one line, with the marks its `// expect:` line wants.
	m, err := TrainModel(p, data.CBFName, 1, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if m.NotTrained == "" || m.Trained != nil || m.Result != nil {
		t.Fatalf("full mode without Train trained fold 1: NotTrained %q, trained %v", m.NotTrained, m.Trained != nil)
	}
	if _, err := os.Stat(m.Dir); !os.IsNotExist(err) {
		t.Errorf("full mode without Train made the model folder %s (%v)", m.Dir, err)
	}
	if _, err := m.TestSummary(); err == nil || !strings.Contains(err.Error(), "no saved model") {
		t.Errorf("TestSummary of an untrained fold: %v", err)
	}
	if _, err := m.TSNEFigure(10); err == nil {
		t.Error("TSNEFigure of an untrained fold: no error")
	}
	if !strings.Contains(m.Summary(), "no saved model") {
		t.Errorf("the summary does not say the model is missing: %q", m.Summary())
	}
	// One line per fold and cell: ShowSummary leaves it to the Show method
	// that follows, whose line names the fold, its seed, the folder its
	// model would be saved in, and how to train it.
	if out := captureStdout(t, m.ShowSummary); out != "" {
		t.Errorf("ShowSummary of an untrained fold showed %q, want nothing", out)
	}
	notRun := "*Not run: no saved model of **" + data.CBFName + "** fold 1 (seed 42) under `" + repoPath(m.Dir) +
		"`, and full mode trains nothing unless asked. Set `p.Train = true` in the parameter cell (or " + EnvTrain +
		"=1) to train it at the full schedule (500 epochs, 150 warm-up; minutes to hours on a CPU) and save it there for the cells below.*"
	for _, show := range []func(){func() { m.ShowSummary(); m.ShowCurves() }, m.ShowTestSummary, func() { m.ShowAttention(2) },
		func() { m.ShowSummary(); m.ShowTSNE(50) }} {
		out := captureStdout(t, show)
		if n := strings.Count(out, "\n"); n != 1 || !strings.Contains(out, notRun) {
			t.Errorf("a model cell of an untrained fold showed %d lines, want the one %q:\n%s", n, notRun, out)
		}
	}
	q := p
	q.Train = true
	if q.TrainingOff() {
		t.Error("Train: true still turns training off")
	}

	// Without a results folder, a table nobody committed (the appendix's
	// number of experts, in a clone before any sweep ran) is one line
	// naming the command that makes it, and each of its figures' places
	// says why it is empty: no archive needed, nothing trained.
	t.Run("clone without runs", func(t *testing.T) {
		repositoryWithoutRuns(t)
		full, err := Params{Execution: softshape.Execution{DataRoot: t.TempDir()}, Quick: false}.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		out := captureStdout(t, func() {
			ShowTable(context.Background(), "num_experts", full)
			ShowFigures(context.Background(), "num_experts", full)
		})
		for _, want := range []string{"no committed full-protocol runs of num_experts", "`TABLES=num_experts reproduction/run-sweeps.sh`",
			"*Figure num_experts_ranks not drawn: no figure: no committed full-protocol runs of num_experts yet", "*Figure num_experts_sweep not drawn:"} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in\n%s", want, out)
			}
		}
	})
	full, err := Params{Execution: softshape.Execution{DataRoot: t.TempDir()}, Quick: false}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	// Table 1 renders its section of docs/reproduction.md from the
	// committed runs, however many there are (none: it says so, and names
	// the command), beside the paper's printed summary.
	out = captureStdout(t, func() { ShowTable(context.Background(), "main", full) })
	for _, want := range []string{"the SoftShape column", "**The 17 baselines are the paper's printed numbers**", "The paper's printed summary, over all its datasets"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// captureStdout returns what f prints.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	defer func() { os.Stdout = old }()
	f()
	w.Close()
	return <-done
}

// TestQuickFiguresNoStatistics: a quick-mode table draws no rank bars or CD
// diagram, saying why.
func TestQuickFiguresNoStatistics(t *testing.T) {
	for _, name := range []string{"sparse_ratio", "ablation"} {
		r := &TableResult{Name: name, Table: &tables.Table{Name: name, Quick: true}}
		for _, n := range r.Figures() {
			if strings.HasSuffix(n.Name, "_sweep") {
				continue
			}
			if !errors.Is(n.Err, ErrQuickStatistics) || n.Figure != nil {
				t.Errorf("%s: %v, want ErrQuickStatistics", n.Name, n.Err)
			}
		}
	}
}

// TestEpochOrder: the line under Table 3's epoch times names the fastest and
// slowest sparse ratio and, when 0% is not the slowest, why; for rows of two
// processors, why it ranks none.
func TestEpochOrder(t *testing.T) {
	row := func(v, cpu string, s ...float64) *epochRow { return &epochRow{variant: v, cpu: cpu, perEpoch: s} }
	got := epochOrder([]*epochRow{row("0%", "", 0.10, 0.12), row("10%", "", 0.13), row("50%", "", 0.09), row("90%", "", 0.08)})
	for _, want := range []string{"Fastest per epoch here: 90% (0.080 s); slowest: 10% (0.130 s).", "0% took less time per epoch than 10%."} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in %q", want, got)
		}
	}
	if got := epochOrder([]*epochRow{row("0%", "", 0.2), row("50%", "", 0.1)}); strings.Contains(got, "took less") {
		t.Errorf("0%% slowest, yet %q", got)
	}
	if got := epochOrder([]*epochRow{row("0%", "A", 0.2), row("50%", "B", 0.1)}); !strings.HasPrefix(got, "No fastest sparse ratio is named: these rows come from several processors") || strings.Contains(got, "Fastest") {
		t.Errorf("two processors: %q, want the line saying why no ratio is ranked", got)
	}
}

// TestPTally: the closing lines of PValues count by hand-checked ratios, each
// count agreeing in number with its noun or verb.
func TestPTally(t *testing.T) {
	var tl pTally
	tl.add("a", 1e-3, 1.02e-3, 5e-3) // within 5% of ½ t
	tl.add("b", 1e-3, 1.2e-3, 5e-3)  // within 26%
	tl.add("c", 1e-3, 1e-6, 9e-4)    // far from ½ t, within 5%... of W? 11%: no; closer to W
	if tl.N != 3 || tl.T5 != 1 || tl.T25 != 1 || len(tl.Far) != 1 || tl.W5 != 0 || tl.CloserT != 2 {
		t.Fatalf("%+v", tl)
	}
	s := tl.String()
	for _, want := range []string{"of the 3 p-values the paper prints here, **1 equals ½ · the two-sided paired t-test p-value within 5%**, 1 more within 26%, and 1 differs from it by more (c: 0.001 printed, 1e-06 recomputed)",
		"; 0 equal a two-sided Wilcoxon", "2 of the 3 are closer to ½ · the t-test", "is not one test throughout: 1 of its values is closer to a Wilcoxon test"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in %q", want, s)
		}
	}

	// Two far from ½ t but closer to it than to W; one within 5% of both.
	var two pTally
	two.add("a", 1e-3, 1.01e-3, 1.02e-3) // within 5% of ½ t and of W
	two.add("d", 1e-3, 2e-3, 1e-1)       // far (×2), closer to ½ t
	two.add("e", 1e-3, 3e-3, 1e-1)       // far (×3), closer to ½ t
	if two.N != 3 || two.T5 != 1 || two.T25 != 0 || len(two.Far) != 2 || two.W5 != 1 || two.CloserT != 3 {
		t.Fatalf("%+v", two)
	}
	s = two.String()
	for _, want := range []string{"**1 equals ½ ·", ", and 2 differ from it by more (d: ", "; 1 equals a two-sided Wilcoxon", "3 of the 3 are closer",
		"; the values that differ from it more (listed above) are not explained here."} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in %q", want, s)
		}
	}

	// One printed value, close to both tests: nothing left unexplained.
	var one pTally
	one.add("a", 1e-3, 1.01e-3, 1.02e-3)
	s = one.String()
	for _, want := range []string{"of the 1 p-value the paper prints here, **1 equals ½ ·", "1 of the 1 is closer", "direction of the observed difference). Our tables"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in %q", want, s)
		}
	}
	if strings.Contains(s, "by more") || strings.Contains(s, "not explained") {
		t.Errorf("no value differs, yet %q", s)
	}
}

// TestPaperPValueClaims checks what the notebooks say of the paper's p-value
// row — that it matches half the two-sided paired t-test, not a Wilcoxon
// test — on the paper's own tables: every printed value is closer to the
// former.
func TestPaperPValueClaims(t *testing.T) {
	closer := regexp.MustCompile(`(\d+) of the (\d+) (?:is|are) closer to ½ · the t-test`)
	for _, name := range []string{"main", "sparse_ratio", "ablation"} {
		md, err := PValues(name, 0)
		if err != nil {
			t.Fatal(err)
		}
		m := closer.FindStringSubmatch(md)
		if m == nil || m[1] != m[2] || !strings.Contains(md, "is best explained as half the two-sided paired t-test p-value") {
			t.Errorf("%s: not every printed p-value is closer to ½ · the t-test:\n%s", name, md)
		}
		if n, _ := strconv.Atoi(m[2]); n < 5 {
			t.Errorf("%s: %d printed p-values", name, n)
		}
	}
}

// TestDatasetSummary: an archive dataset gives its train/test split, the
// generated CBF data says it is generated (it has no archive split).
func TestDatasetSummary(t *testing.T) {
	p, err := Params{Quick: true}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, want string }{
		{"GunPoint", "**GunPoint**: 200 series (50 train + 150 test in the archive's split; the protocol merges them into 5 stratified folds of 60/20/20), length 150, 2 classes"},
		{data.CBFName, "**" + data.CBFName + "**: 300 series (generated; the protocol splits them into 5 stratified folds of 60/20/20), length 128, 3 classes"},
	} {
		ds, err := LoadDataset(p, c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := DatasetSummary(ds); !strings.HasPrefix(got, c.want) {
			t.Errorf("DatasetSummary(%s) = %q, want prefix %q", c.name, got, c.want)
		}
	}
}

// TestCommittedFiguresAreTheSummaryRows: each preset's rank figure of a
// committed table is over the datasets its comparison's summary rows cover
// (complete under both presets), not over that preset's own complete
// datasets. Here DC is complete under reference_compat only: the
// reference_compat figure must name DA and DB, as the table's rows do, not
// the three datasets of that preset's own summary.
func TestCommittedFiguresAreTheSummaryRows(t *testing.T) {
	table := func(shift float64, partial string) *tables.Table {
		tb := &tables.Table{Name: "experts_k", Title: "Table 4: number of activated experts k", Folds: []int{1, 2}, Seeds: []int64{42}, Default: "k=1"}
		cols := []string{"k=1", "k=2", "k=3"}
		for _, c := range cols {
			tb.Columns = append(tb.Columns, tables.Column{Name: c, Kind: tables.Ours, Variant: c})
		}
		for i, ds := range []string{"DA", "DB", "DC"} {
			r := tables.Row{Dataset: ds}
			for j := range cols {
				v := tables.Value{Acc: 0.7 + 0.01*float64((i+j)%3) + 0.001*float64(j) - shift, Runs: 2, Expected: 2}
				if ds == partial {
					v.Runs = 1
				}
				r.Ours = append(r.Ours, v)
				r.Paper = append(r.Paper, 0.9)
			}
			tb.Rows = append(tb.Rows, r)
			if ds != partial { // the preset's own summary, as tables.Build makes it
				tb.Summary.Datasets = append(tb.Summary.Datasets, ds)
			}
		}
		tb.Summary.OursColumns, tb.Summary.FromPaper = []int{0, 1, 2}, []bool{false, false, false}
		tb.Summary.Ours = &stats.Summary{Methods: cols, AvgRank: []float64{2, 2, 2}, AvgAcc: []float64{0.7, 0.7, 0.7}}
		return tb
	}
	a, b := table(0, ""), table(0.05, "DC")
	cmp, err := tables.Compare([2]string{"reference_compat", "reference_fresh"}, [2]*tables.Table{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &Committed{Name: "experts_k", Comparison: cmp}
	c.Entries[0] = reproduction.Entry{Table: "experts_k", Preset: "reference_compat", Built: a, DatasetsDone: []string{"DA", "DB", "DC"}}
	c.Entries[1] = reproduction.Entry{Table: "experts_k", Preset: "reference_fresh", Built: b, DatasetsDone: []string{"DA", "DB"}}
	figs := c.Figures()
	if len(figs) != 4 || figs[2].Name != "experts_k_ranks_reference_compat" {
		t.Fatalf("figures %+v", figs)
	}
	// The sweep charts are each preset's own (docs/reproduction.md's): over
	// its complete datasets.
	if !strings.Contains(captionOf(figs[0]), "DA, DB, DC") || strings.Contains(captionOf(figs[1]), "DC") {
		t.Errorf("sweep charts over each preset's complete datasets: %q, %q", captionOf(figs[0]), captionOf(figs[1]))
	}
	for _, n := range figs[2:] {
		if n.Err != nil || !strings.Contains(n.Figure.Caption(), "(DA, DB)") || strings.Contains(n.Figure.Caption(), "DC") {
			t.Errorf("%s: %v, caption %q: want the datasets complete under both, DA and DB", n.Name, n.Err, captionOf(n))
		}
	}
}

// captionOf is n's caption, "" without a figure.
func captionOf(n Named) string {
	if n.Figure == nil {
		return ""
	}
	return n.Figure.Caption()
}

// TestInvalidCellsCounted: Table 4's committed comparison says over how
// many datasets its rows run where invalid cells (k > Ĉ) leave some out:
// the datasets with an invalid run counted from the records, the rows over
// the rest, and each paired difference's cell counting its own datasets.
func TestInvalidCellsCounted(t *testing.T) {
	c, err := CommittedTables("experts_k")
	if errors.Is(err, ErrNotCommitted) {
		t.Skip("no committed Table 4")
	} else if err != nil {
		t.Fatal(err)
	}
	invalid := map[string]bool{}
	for _, e := range c.Entries {
		if e.Built != nil {
			for _, m := range e.Built.Invalid {
				invalid[m.Key.Dataset] = true
			}
		}
	}
	if len(invalid) == 0 {
		t.Skip("no invalid cell in the committed Table 4")
	}
	md := c.Markdown()
	if want := fmt.Sprintf("leave %d of the %d datasets", len(invalid), len(c.Comparison.Datasets)); !strings.Contains(md, want) {
		t.Errorf("no %q in\n%s", want, md)
	}
	if want := fmt.Sprintf("rows run over %d dataset(s)", len(c.Comparison.Common)); !strings.Contains(md, want) {
		t.Errorf("no %q in\n%s", want, md)
	}
	for _, d := range c.Comparison.Differences[0] {
		if !strings.Contains(md, d.DatasetsString()) || d.Datasets < len(c.Comparison.Common) {
			t.Errorf("%s: %s (%d datasets) not in the table, or fewer than the %d of the summary", d.Column, d.DatasetsString(), d.Datasets, len(c.Comparison.Common))
		}
	}
}
