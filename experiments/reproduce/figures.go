package reproduce

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/experiments/tablefigures"
	"github.com/softshape-go/softshape/paper"
	"github.com/softshape-go/softshape/plots"
	"github.com/softshape-go/softshape/reproduction"
)

// ErrNoFigure is wrapped by the figure constructors when the table has no
// data for that figure (e.g. a CD diagram of two datasets); it is
// tablefigures.ErrNoFigure.
var ErrNoFigure = tablefigures.ErrNoFigure

// Named is a figure with a short name (for files) or the reason it could not
// be drawn.
type Named struct {
	Name   string
	Figure *plots.Figure
	// Err says why Figure is nil.
	Err error
	// Preset is the protocol preset of a committed figure's runs, "" for
	// a figure of a table built from one results folder.
	Preset string
}

// Figures returns the standard figures of the table (tablefigures.Kinds): a
// sweep chart (ours solid, paper dashed) and average-rank bars (ours beside
// the paper's) for hyperparameter tables, rank bars and a
// critical-difference diagram for the others, none for
// params_inference_time (a single configuration). Each is named
// <table>_<kind>; a figure that cannot be drawn carries its reason in Err.
//
// In quick mode only the sweep chart (per-dataset numbers) is drawn: the rank
// bars and CD diagram are statistics, and carry ErrQuickStatistics instead.
func (r *TableResult) Figures() []Named {
	var out []Named
	for _, k := range tablefigures.Kinds(r.Name) {
		var f *plots.Figure
		err := ErrQuickStatistics
		if k == tablefigures.KindSweep || !r.Table.Quick {
			f, err = r.Figure(k)
		}
		out = append(out, Named{Name: figureName(r.Name, k, ""), Figure: f, Err: err})
	}
	return out
}

// figureName is the name (and file name, before its extension) of the
// figure of kind k of the named table: <table>_<kind>, or
// <table>_<kind>_<preset> for one preset's figure of the committed
// reproduction (Committed.Figures). A notebook cell's `// expect:` line
// names its figures by these (TestNotebookExpectsItsTables).
func figureName(table string, k tablefigures.Kind, preset string) string {
	if preset == "" {
		return table + "_" + string(k)
	}
	return table + "_" + string(k) + "_" + preset
}

// ErrQuickStatistics is why a quick-mode table draws no rank bars or CD
// diagram (TableResult.Figures); it wraps ErrNoFigure.
var ErrQuickStatistics = fmt.Errorf("%w: quick mode shows per-dataset numbers only; ranks and critical differences of a short schedule's numbers would mean nothing", ErrNoFigure)

// Figures returns the figures of the committed table: for a sweep table the
// sweep charts of docs/reproduction.md (reproduction.Figures: per entry, ours
// per dataset with ± SE bars, their mean with its SE band, the paper's
// dashed, over the entry's complete datasets and every seed it pools),
// named <table>_sweep_<preset>, with _seeds_42_0_1 for an entry of more
// seeds; then each preset's standard figures other than the sweep chart,
// named <table>_<kind>_<preset> (their titles name the preset too), drawn
// from the comparison's summary rows (tablefigures.DrawPreset): over the
// datasets complete under both presets, so each figure shows the table's
// numbers.
func (c *Committed) Figures() []Named {
	var out []Named
	if slices.Contains(tablefigures.Kinds(c.Name), tablefigures.KindSweep) {
		entries := append(slices.Clone(c.Entries[:]), c.More...)
		figs := reproduction.Figures(entries)
		for _, f := range figs {
			fig, err := f.Draw()
			out = append(out, Named{Name: figureName(c.Name, tablefigures.KindSweep, labelSlug(f.Label)), Figure: fig, Err: err, Preset: f.Preset})
		}
		if len(figs) == 0 {
			out = append(out, Named{Name: figureName(c.Name, tablefigures.KindSweep, ""),
				Err: fmt.Errorf("%w: no dataset of %s has every run recorded under either preset yet", ErrNoFigure, c.Name)})
		}
	}
	for i, e := range c.Entries {
		for _, k := range tablefigures.Kinds(c.Name) {
			if k != tablefigures.KindSweep {
				f, err := tablefigures.DrawPreset(k, c.Comparison, i, tablefigures.DefaultAlpha)
				out = append(out, Named{Name: figureName(c.Name, k, e.Preset), Figure: f, Err: err, Preset: e.Preset})
			}
		}
	}
	return out
}

// labelSlug is a figure's label as part of a file name:
// "reference_fresh, seeds 42, 0, 1" → "reference_fresh_seeds_42_0_1".
func labelSlug(label string) string {
	return strings.NewReplacer(", ", "_", " ", "_").Replace(label)
}

// Figure draws one figure of the table, any kind for any table, with the
// paper's α for a CD diagram: the figure "softshape plot KIND -table NAME"
// draws from the same results. tablefigures.CD takes another α.
func (r *TableResult) Figure(kind tablefigures.Kind) (*plots.Figure, error) {
	return tablefigures.Draw(kind, r.Table, tablefigures.DefaultAlpha)
}

// PaperCDFigure draws the critical-difference diagram of the paper's own
// per-dataset table (e.g. "main": the 128 UCR datasets) at the paper's α, for
// comparison with ours.
func PaperCDFigure(name string) (*plots.Figure, error) {
	return tablefigures.PaperCD(name, tablefigures.DefaultAlpha)
}

// PaperCDRanks returns, as Markdown, the numbers PaperCDFigure(name) draws
// beside those the paper prints: per method, in the diagram's order, its
// average rank with ties averaged (the diagram's labels), the same with
// ties given the best rank (the paper's convention), both over the
// diagram's datasets, and the paper's printed Avg. Rank.
func PaperCDRanks(name string) (string, error) {
	pt, acc, err := tablefigures.PaperCDData(name)
	if err != nil {
		return "", err
	}
	averaged, err := stats.CDAverageRanks(acc)
	if err != nil {
		return "", fmt.Errorf("paper's %s: %w", name, err)
	}
	best, err := stats.AverageRanks(acc, stats.TiesMin)
	if err != nil {
		return "", fmt.Errorf("paper's %s: %w", name, err)
	}
	printed, _ := paper.Summary(name) // nil: the paper prints no summary of this table
	order := make([]int, len(pt.Methods))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return averaged[order[a]] < averaged[order[b]] })
	var b strings.Builder
	fmt.Fprintf(&b, "The diagram's numbers: average ranks of the paper's accuracies over its %d datasets with every column. "+
		"The diagram (and its Wilcoxon–Holm cliques) ranks ties averaged; the paper's Avg. Rank gives tied methods the best rank, "+
		"recomputed here over the same datasets beside the value it prints.\n\n", len(acc))
	b.WriteString("| method | avg. rank, ties averaged (the diagram's) | avg. rank, ties best (the paper's rule), recomputed | Avg. Rank printed by the paper |\n|---|---:|---:|---:|\n")
	for _, i := range order {
		p := "—"
		if printed != nil {
			if v, ok := printed.AvgRank(pt.Methods[i]); ok {
				p = fmt.Sprintf("%.2f", v)
			}
		}
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %s |\n", pt.Methods[i], averaged[i], best[i], p)
	}
	return b.String(), nil
}

// ShowPaperCD shows PaperCDFigure(name), then its numbers (PaperCDRanks),
// marked "table <name>_paper_cd".
func ShowPaperCD(p Params, name string) {
	f, err := PaperCDFigure(name)
	ShowFigure(p.FigureDir(), name+"_paper_cd", f, err)
	md, err := PaperCDRanks(name)
	if err != nil {
		markdownAs(missingMark(markTable+" "+name+"_paper_cd"), fmt.Sprintf("*No ranks of the paper's %s: %s*", name, mdLine(err.Error())))
		return
	}
	showTable(name+"_paper_cd", md)
}
