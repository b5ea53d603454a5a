package reproduce

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/softshape-go/softshape/internal/english"

	"github.com/softshape-go/softshape/experiments/fidelity"
	"github.com/softshape-go/softshape/experiments/pipeline"
	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/paper"
	"github.com/softshape-go/softshape/plots"
	"github.com/softshape-go/softshape/softshape"
)

// CompatRow is one dataset of Compat: the mean test accuracy over folds and
// seeds with the default protocol (Off) and with reference_compat (On).
type CompatRow struct {
	Dataset string
	Off, On float64
	// OffFolds and OnFolds are the per-run accuracies (folds × seeds).
	OffFolds, OnFolds []float64
}

// CompatResult compares reference_compat=false with true.
type CompatResult struct {
	Params Params
	Rows   []CompatRow
	// Trained counts the runs (one fold each) that this call trained or
	// copied from an identical run; the others were read from the store.
	Trained int
}

// Compat trains the main table's SoftShape (fidelity.Table,
// fidelity.Variant) on every dataset of p (default: sweep.DefaultDatasets
// of "main") over p's folds and seeds, once with the default protocol and
// once with reference_compat=true (weights and Adam state carried from fold
// to fold, evaluation on the sparse path, unshuffled batches, the
// reference's validation statistic), and compares the accuracies. The runs
// go through the table pipeline into the results store p.Results, one record
// per fold: the records `softshape sweep -table main -variants SoftShape -set
// "reference_compat=true;<p.Settings>"` writes, which the runner trains as
// one chain of carried folds. Recorded runs are read, not trained again, so
// a second call trains nothing. Runs without a record are an error when
// training is not allowed (TrainMissing off, or full mode without Train).
func Compat(ctx context.Context, p Params) (*CompatResult, error) {
	p, err := p.Resolve()
	if err != nil {
		return nil, err
	}
	res := &CompatResult{Params: p}
	var accs [2]map[string][]float64 // off, on: dataset → accuracy per fold and seed
	var datasets []string
	for i, on := range []bool{false, true} {
		setting := fmt.Sprintf("%s=%v", softshape.ParamReferenceCompat, on)
		grid, err := pipeline.NewGrid(sweep.GridSpec{Table: fidelity.Table, Variants: []string{fidelity.Variant}, Datasets: p.Datasets,
			Folds: p.Folds, Seeds: p.Seeds, Quick: p.Quick, Settings: joinSettings(p.Settings, setting)}, p.DataRoot)
		if err != nil {
			return nil, err
		}
		datasets = grid.Spec.Datasets
		store, err := pipeline.Open(p.Results, grid)
		if err != nil {
			return nil, err
		}
		if todo := pipeline.Missing(store, grid.Cells); len(todo) > 0 {
			if !p.TrainMissing || p.TrainingOff() {
				return nil, fmt.Errorf("%s: %d runs without a record in %s (e.g. %s) and training is off (TrainMissing, or Train in full mode)",
					setting, len(todo), p.Results, todo[0].Key)
			}
			rep, err := pipeline.Train(ctx, store, todo, p.training(trainLog(p)))
			if err != nil {
				return nil, err
			}
			res.Trained += rep.Ran + rep.Reused
			if len(rep.Errors) > 0 {
				return nil, fmt.Errorf("%s: %d runs left without a record, e.g. %w", setting, len(rep.Errors), rep.Errors[0])
			}
		}
		accs[i] = map[string][]float64{}
		for _, c := range grid.Cells {
			rec, err := store.Read(c.Key)
			if err != nil {
				return nil, err
			}
			if rec.Status != sweep.StatusOK {
				return nil, fmt.Errorf("%s: run %s is %s (%s): see its record in %s", setting, c.Key, rec.Status, rec.Error, p.Results)
			}
			accs[i][c.Dataset] = append(accs[i][c.Dataset], float64(rec.TestAccuracy))
		}
	}
	for _, name := range datasets {
		off, on := accs[0][name], accs[1][name]
		res.Rows = append(res.Rows, CompatRow{Dataset: name, Off: mean(off), On: mean(on), OffFolds: off, OnFolds: on})
	}
	return res, nil
}

// mean is tables.Mean: the mean of x, NaN when empty.
func mean(x []float64) float64 { return tables.Mean(x) }

// Markdown is the comparison table with the two kinds of p-value.
func (c *CompatResult) Markdown() string {
	var b bytes.Buffer
	title := "reference_compat: the authors' protocol quirks on vs off"
	if c.Params.Quick {
		title += " — " + sweep.QuickLabel
	}
	fmt.Fprintf(&b, "### %s\n\nMean test accuracy over folds %v and seeds %v (one record per fold in the results store). Off = this project's default protocol.\n\n", title, c.Params.folds(), c.Params.Seeds)
	b.WriteString("| Dataset | default (off) | reference_compat (on) | Δ on − off |\n|---|---:|---:|---:|\n")
	for _, r := range c.Rows {
		fmt.Fprintf(&b, "| %s | %.4f | %.4f | %+.4f |\n", r.Dataset, r.Off, r.On, r.On-r.Off)
	}
	off, on := c.printed()
	fmt.Fprintf(&b, "| **mean** | **%.4f** | **%.4f** | **%+.4f** |\n\n", mean(off), mean(on), mean(on)-mean(off))
	b.WriteString(pLine(off, on))
	if c.Trained == 0 {
		b.WriteString("\n*Nothing trained: read from the stored results.*\n")
	}
	return b.String()
}

// pLine gives the paper's p-value and the Wilcoxon signed-rank p-value of
// two paired columns, or why they cannot be computed.
func pLine(ref, x []float64) string {
	if len(ref) < 2 {
		return fmt.Sprintf("p-values: not computed — they need at least 2 datasets (have %d).\n", len(ref))
	}
	pp, err1 := stats.PaperPValue(ref, x)
	w, err2 := stats.WilcoxonSignedRank(ref, x, stats.TwoSided)
	f := func(p float64, err error) string {
		if err != nil {
			return "n/a (" + err.Error() + ")"
		}
		return fmt.Sprintf("%.3g", p)
	}
	return fmt.Sprintf("p-values over %d datasets: the paper's column (half the two-sided paired t-test p) = %s; two-sided Wilcoxon signed-rank = %s.\n",
		len(ref), f(pp, err1), f(w.PValue, err2))
}

// PValues explains the paper's "Wilcoxon signed-rank P-value" row on its own
// per-dataset table name (e.g. "main"): for each method against the
// reference, the p-value the paper prints, half the two-sided paired t-test
// p-value (stats.PaperPValue), the two-sided t-test p-value, and a real
// two-sided Wilcoxon signed-rank test (stats.WilcoxonSignedRank), all on the
// paper's own accuracies. Methods are limited to maxMethods (0: all).
func PValues(name string, maxMethods int) (string, error) {
	pt, err := paper.PerDataset(name)
	if err != nil {
		return "", err
	}
	ps, err := paper.Summary(name)
	if err != nil {
		return "", err
	}
	ref, err := pt.Column(pt.Reference)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "### Where the p-values come from — %s (%d datasets, reference %s)\n\n", pt.Title, len(pt.Datasets), pt.Reference)
	b.WriteString("| method | printed by the paper | ½ · two-sided paired t-test (`stats.PaperPValue`) | two-sided paired t-test | two-sided Wilcoxon signed-rank (`stats.WilcoxonSignedRank`) |\n|---|---:|---:|---:|---:|\n")
	n := 0
	var tally pTally
	for _, m := range pt.Methods {
		if m == pt.Reference {
			continue
		}
		if maxMethods > 0 && n == maxMethods {
			break
		}
		n++
		col, err := pt.Column(m)
		if err != nil {
			return "", err
		}
		r, c := dropNaN(ref, col)
		printed, pv := "—", math.NaN()
		if v, ok := ps.PValue(m); ok {
			printed, pv = fmt.Sprintf("%.3g", v), v
		}
		cell := func(p float64, err error) string {
			if err != nil {
				return "n/a"
			}
			return fmt.Sprintf("%.3g", p)
		}
		pp, e1 := stats.PaperPValue(r, c)
		t, e2 := stats.PairedTTest(r, c, stats.TwoSided)
		w, e3 := stats.WilcoxonSignedRank(r, c, stats.TwoSided)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", m, printed, cell(pp, e1), cell(t.PValue, e2), cell(w.PValue, e3))
		if !math.IsNaN(pv) && e1 == nil && e3 == nil {
			tally.add(m, pv, pp, w.PValue)
		}
	}
	b.WriteString("\n" + tally.String() + "\n")
	return b.String(), nil
}

// pTally counts how the paper's printed p-values compare with the two tests
// recomputed from its per-dataset figures: PValues's closing lines.
type pTally struct {
	// N counts the printed p-values; T5 and T25 those within 5% and 26% of
	// ½ · the two-sided paired t-test, W5 those within 5% of the Wilcoxon
	// test; CloserT those closer (in ratio) to ½ · the t-test than to the
	// Wilcoxon test; Far names those further than 26% from ½ · the t-test.
	N, T5, T25, W5, CloserT int
	Far                     []string
}

// Tolerances of pTally, as |log10(printed / recomputed)|: 5% and 26%.
const (
	pWithin5  = 0.0212 // log10(1.05)
	pWithin26 = 0.1    // log10(1.26)
)

// add counts one printed p-value pv against ½ · the t-test (half) and the
// Wilcoxon test (w).
func (t *pTally) add(method string, pv, half, w float64) {
	dist := func(a, b float64) float64 {
		if a <= 0 || b <= 0 {
			return math.Inf(1)
		}
		return math.Abs(math.Log10(a) - math.Log10(b))
	}
	t.N++
	dt, dw := dist(pv, half), dist(pv, w)
	switch {
	case dt < pWithin5:
		t.T5++
	case dt < pWithin26:
		t.T25++
	default:
		t.Far = append(t.Far, fmt.Sprintf("%s: %.3g printed, %.3g recomputed", method, pv, half))
	}
	if dw < pWithin5 {
		t.W5++
	}
	if dt < dw {
		t.CloserT++
	}
}

// String says what the tally shows, every number from the tally, each count
// agreeing with its noun or verb (english.Agree).
func (t pTally) String() string {
	if t.N == 0 {
		return "The paper prints no p-value for these columns."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Recomputed from the paper's own per-dataset accuracies (as printed, 4 decimals): of the %d %s the paper prints here, "+
		"**%d %s ½ · the two-sided paired t-test p-value within 5%%**, %d more within 26%%",
		t.N, english.Agree(t.N, "p-value", "p-values"), t.T5, english.Agree(t.T5, "equals", "equal"), t.T25)
	if len(t.Far) > 0 {
		fmt.Fprintf(&b, ", and %d %s from it by more (%s)", len(t.Far), english.Agree(len(t.Far), "differs", "differ"), strings.Join(t.Far, "; "))
	}
	fmt.Fprintf(&b, "; %d %s a two-sided Wilcoxon signed-rank p-value within 5%%. %d of the %d %s closer to ½ · the t-test than to the Wilcoxon test.",
		t.W5, english.Agree(t.W5, "equals", "equal"), t.CloserT, t.N, english.Agree(t.CloserT, "is", "are"))
	if t.CloserT == t.N {
		b.WriteString("\n\nSo the row the paper labels *Wilcoxon signed-rank P-value* is best explained as half the two-sided paired t-test p-value (a one-sided paired t-test in the direction of the observed difference)")
		if n := len(t.Far); n > 0 {
			fmt.Fprintf(&b, "; the %s that %s from it more (listed above) %s not explained here", english.Agree(n, "value", "values"), english.Agree(n, "differs", "differ"), english.Agree(n, "is", "are"))
		}
		b.WriteString(". Our tables print that statistic, as the paper's p-value, beside a real two-sided Wilcoxon signed-rank test.")
	} else {
		n := t.N - t.CloserT
		fmt.Fprintf(&b, "\n\nSo the row the paper labels *Wilcoxon signed-rank P-value* is not one test throughout: %d of its values %s closer to a Wilcoxon test. Our tables print both tests.", n, english.Agree(n, "is", "are"))
	}
	return b.String()
}

func dropNaN(a, b []float64) ([]float64, []float64) {
	var x, y []float64
	for i := range a {
		if !math.IsNaN(a[i]) && !math.IsNaN(b[i]) {
			x, y = append(x, a[i]), append(y, b[i])
		}
	}
	return x, y
}

// printed returns each dataset's accuracy off and on as the table prints
// them (four decimals): the table's mean row and the figure's average are
// their means.
func (c *CompatResult) printed() (off, on []float64) {
	for _, r := range c.Rows {
		off, on = append(off, math.Round(r.Off*1e4)/1e4), append(on, math.Round(r.On*1e4)/1e4)
	}
	return off, on
}

// Figure draws each dataset's accuracy with the default protocol and with
// reference_compat (one line per dataset, with ± its SE over the runs), and
// the table's mean row thick.
func (c *CompatResult) Figure() (*plots.Figure, error) {
	var ss []plots.SweepSeries
	for _, r := range c.Rows {
		ss = append(ss, plots.SweepSeries{Label: r.Dataset, X: []float64{0, 1}, Y: []float64{r.Off, r.On},
			SE: []float64{tables.StandardError(r.OffFolds), tables.StandardError(r.OnFolds)}})
	}
	if len(ss) == 0 {
		return nil, fmt.Errorf("%w: no dataset", ErrNoFigure)
	}
	off, on := c.printed()
	avg := plots.SweepAverage{Label: fmt.Sprintf("mean, %d datasets", len(ss)), X: []float64{0, 1}, Y: []float64{mean(off), mean(on)}}
	meta := plots.Meta{Title: "Test accuracy: default protocol vs reference_compat", Quick: c.Params.Quick,
		Config: fmt.Sprintf("%d datasets; folds %v, seeds %v. Bars ± SE over the runs; thick: the table's mean row.", len(ss), c.Params.folds(), c.Params.Seeds)}
	return plots.SweepChart(meta, "protocol", []string{"default (off)", "reference_compat (on)"}, ss, nil, plots.WithYLabel("test accuracy"), plots.WithAverage(avg))
}

// Show shows Markdown, marked "table reference_compat" (MarkKey), and
// Figure.
func (c *CompatResult) Show() {
	showTable("reference_compat", c.Markdown())
	f, err := c.Figure()
	ShowFigure(c.Params.FigureDir(), "reference_compat", f, err)
}
