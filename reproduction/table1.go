package reproduction

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/softshape-go/softshape/experiments/baseline"
	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/experiments/tablefigures"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/paper"
)

// The plan of Table 1, the paper's headline: SoftShape's default
// configuration on every UCR dataset of the local archive, under both
// presets, seed 42; and the appendix's LightTS/Shapeformer table read from
// the same runs.
const (
	// Table1 is the key of the paper's Table 1 (128 UCR datasets, SoftShape
	// beside 17 baselines).
	Table1 = "main"
	// LightTSShapeformer is the appendix table of LightTS, Shapeformer and
	// SoftShape on 18 UCR datasets, built from Table 1's runs
	// (tables.FromRuns): the same computation, never swept apart.
	LightTSShapeformer = "lightts_shapeformer"
)

// Table1Datasets are the 62 UCR datasets of the local archive that Table 1 is
// planned on (53 of fixed length, 9 of variable length), in the order the
// sweeps run them, cheapest first. A list, not whatever a folder holds, so
// that every clone renders the same document.
var Table1Datasets = []string{
	"SmoothSubspace", "ECG200", "BirdChicken", "BME", "ItalyPowerDemand", "UMD", "Beef", "GunPoint", "OliveOil",
	"PickupGestureWiimoteZ", "ShakeGestureWiimoteZ", "Fungi", "DistalPhalanxOutlineAgeGroup", "DistalPhalanxTW",
	"SonyAIBORobotSurface1", "MiddlePhalanxTW", "MiddlePhalanxOutlineAgeGroup", "DodgerLoopDay", "DodgerLoopWeekend",
	"Lightning7", "ProximalPhalanxOutlineAgeGroup", "PowerCons", "ArrowHead", "Trace", "SonyAIBORobotSurface2",
	"GunPointMaleVersusFemale", "GunPointOldVersusYoung", "DistalPhalanxOutlineCorrect", "MiddlePhalanxOutlineCorrect",
	"ProximalPhalanxOutlineCorrect", "ToeSegmentation1", "Lightning2", "MelbournePedestrian", "TwoLeadECG", "ShapeletSim",
	"DiatomSizeReduction", "MedicalImages", "CBF", "ECGFiveDays", "GestureMidAirD1", "GestureMidAirD3", "GesturePebbleZ1",
	"GesturePebbleZ2", "InsectEPGSmallTrain", "Fish", "InsectEPGRegularTrain", "OSULeaf", "Rock", "PhalangesOutlinesCorrect",
	"Worms", "WormsTwoClass", "CricketX", "CricketY", "CricketZ", "Earthquakes", "FiftyWords", "WordSynonyms", "HouseTwenty",
	"AllGestureWiimoteX", "AllGestureWiimoteY", "AllGestureWiimoteZ", "EOGVerticalSignal",
}

// Table1Items are the planned items of Table 1 and of the LightTS/Shapeformer
// table read from its runs, under each preset, seed 42.
func Table1Items() []Item {
	var out []Item
	for _, table := range []string{Table1, LightTSShapeformer} {
		for _, preset := range Presets {
			out = append(out, Item{Table: table, Preset: preset, Seeds: Seeds})
		}
	}
	return out
}

// PlanDatasets are the datasets a table is planned on: Table1Datasets for
// Table 1, those of them in the paper's LightTS/Shapeformer table for that
// one, Datasets for the sweep tables.
func PlanDatasets(table string) []string {
	switch table {
	case Table1:
		return Table1Datasets
	case LightTSShapeformer:
		pt, err := paper.PerDataset(table)
		if err != nil {
			return nil
		}
		return slices.DeleteFunc(slices.Clone(Table1Datasets), func(d string) bool { return !slices.Contains(pt.Datasets, d) })
	}
	return Datasets
}

// SourceTable is the table whose runs a table is built from: Table 1's for
// the LightTS/Shapeformer table, else its own.
func SourceTable(table string) string {
	if table == LightTSShapeformer {
		return Table1
	}
	return table
}

// SweepCommand is the command that trains one dataset of Table 1 under a
// preset into the committed reproduction.
func SweepCommand(preset string) string {
	return fmt.Sprintf("softshape sweep -table %s -datasets <dataset> -seeds 42 -set protocol=%s -results reproduction/results/%s", Table1, preset, preset)
}

// SameFold is a column of accuracies measured on SoftShape's own folds and
// seed (a baseline this project trains on them), for Table 1 beside the
// paper's printed baselines: Acc maps a dataset to its mean test accuracy
// over the folds. A dataset it lacks leaves the dataset out of the summary.
// The per-dataset table, the summary rows, the verdict and the CD diagrams
// take it in as one more method. SameFoldColumns loads them with Table 1's
// entries.
type SameFold struct {
	Name string
	Acc  map[string]float64
	// FoldCPU maps a dataset to the mean process CPU time of one fold
	// (fit and test), in seconds; Processors are those of its records.
	FoldCPU    map[string]float64
	Processors []string
}

// MiniRocketSameFold and MultiRocketHydraSameFold name the columns of
// MiniRocket and MultiRocket-Hydra trained on SoftShape's folds
// (experiments/baseline), stored under BaselinesDir; the tables show them
// as "<name> (same folds)". MultiRocket-Hydra is the paper's MR-H, named in
// full so that it stays apart from the paper's printed MR-H column.
const (
	MiniRocketSameFold       = "MiniRocket"
	MultiRocketHydraSameFold = "MultiRocket-Hydra"
)

// sameFoldMethods returns the same-fold columns in table order: the
// column's name and the baseline's method (experiments/baseline).
func sameFoldMethods() []struct{ name, method string } {
	return []struct{ name, method string }{
		{MiniRocketSameFold, baseline.MiniRocket},
		{MultiRocketHydraSameFold, baseline.MultiRocketHydra},
	}
}

// BaselinesDir is the folder of the baselines' records (experiments/baseline)
// under the reproduction folder dir.
func BaselinesDir(dir string) string { return filepath.Join(dir, "baselines") }

// SameFoldColumns are the same-fold columns of Table 1 from the records under
// BaselinesDir(dir): each method's mean test accuracy over the 5 folds of
// seed Seeds[0], the folds and seed of ours, per dataset it has a record
// of. A method with no record gives no column.
func SameFoldColumns(dir string) ([]SameFold, error) {
	var cols []SameFold
	for _, m := range sameFoldMethods() {
		recs, err := baseline.Load(BaselinesDir(dir), m.method)
		if err != nil {
			return nil, fmt.Errorf("table 1's same-fold columns: %w", err)
		}
		col := SameFold{Name: m.name, Acc: map[string]float64{}, FoldCPU: map[string]float64{}}
		for _, r := range recs {
			if r.Seed == Seeds[0] {
				col.Acc[r.Dataset] = r.MeanAccuracy()
				col.FoldCPU[r.Dataset] = r.CPUSeconds / float64(len(r.Folds))
				col.Processors = addOnce(col.Processors, r.Processor)
			}
		}
		if len(col.Acc) > 0 {
			cols = append(cols, col)
		}
	}
	return cols, nil
}

// Headline is Table 1 under both presets (Presets order): the entries of the
// plan, the summary of each preset recomputed over its complete datasets
// (every column: ours, the same-fold columns, the paper's 17 baselines), the
// per-dataset fold leak and the verdict.
type Headline struct {
	Entries [2]Entry
	// SameFold are the columns trained on SoftShape's folds; a preset's
	// summary ranks those that hold all its datasets (Unranked: the rest).
	SameFold []SameFold
	// Summaries are each preset's summary (nil without a complete dataset);
	// Acc the matrix it summarises (rows SummaryDatasets, columns its
	// Methods), Problems why a summary is missing.
	Summaries       [2]*stats.Summary
	Acc             [2][][]float64
	SummaryDatasets [2][]string
	Problems        [2]string
	// Unranked says, per preset, which same-fold columns sit out of the
	// summary because they lack some of its datasets (still being run).
	Unranked [2][]string
	// Leak is the per-dataset difference reference_compat − reference_fresh
	// over the datasets complete under both (Pair.Diff, Fold 0: the
	// dataset's mean over its folds), LeakMean its mean ± SE over datasets.
	Leak     []tables.Pair
	LeakMean tables.Difference
}

// minSummaryDatasets is the fewest complete datasets a preset's summary
// (its p-values) needs.
const minSummaryDatasets = 2

// NewHeadline builds Table 1's report from the entries of Table 1 (Load):
// each preset's summary over its complete datasets, with the same-fold
// columns given (by default those loaded with the entries), and the leak. Entries of other tables are ignored.
func NewHeadline(entries []Entry, sameFold ...SameFold) (*Headline, error) {
	h := &Headline{SameFold: sameFold}
	found := 0
	for _, e := range entries {
		if e.Table != Table1 || e.Extra() {
			continue
		}
		i := slices.Index(Presets, e.Preset)
		if i < 0 {
			return nil, fmt.Errorf("table 1: preset %q is not one of %v", e.Preset, Presets)
		}
		h.Entries[i] = e
		found++
	}
	if found != len(Presets) {
		return nil, fmt.Errorf("table 1: %d of the %d presets' entries given", found, len(Presets))
	}
	if len(sameFold) == 0 {
		h.SameFold = h.Entries[0].SameFold // loaded with the entries (LoadItem)
	}
	for i, e := range h.Entries {
		h.summarize(i, e)
	}
	h.leak()
	return h, nil
}

// summarize fills preset i's summary: the table's summary matrix (ours and
// the paper's baselines over the datasets where ours is complete) with the
// same-fold columns that hold every one of those datasets; one that lacks
// some is still being run and waits (Unranked), rather than shrinking the
// summary to the datasets it has.
func (h *Headline) summarize(i int, e Entry) {
	if e.Built == nil || e.Built.Summary.Ours == nil {
		h.Problems[i] = "no dataset has all its runs recorded yet"
		return
	}
	s := e.Built.Summary
	var datasets []string
	for _, ds := range Table1Datasets { // the plan's order, whatever the grids'
		if slices.Contains(s.Datasets, ds) {
			datasets = append(datasets, ds)
		}
	}
	methods := slices.Clone(s.Ours.Methods)
	var ranked []SameFold
	for _, c := range h.SameFold {
		if missing := missingFrom(c, datasets); missing > 0 {
			h.Unranked[i] = append(h.Unranked[i], fmt.Sprintf("%s (same folds) has %d of these %d datasets so far", c.Name, len(datasets)-missing, len(datasets)))
			continue
		}
		ranked = append(ranked, c)
		methods = append(methods, c.Name)
	}
	acc := make([][]float64, len(datasets))
	for r, ds := range datasets {
		acc[r] = slices.Clone(s.Acc[slices.Index(s.Datasets, ds)])
		for _, c := range ranked {
			acc[r] = append(acc[r], math.Round(c.Acc[ds]*1e4)/1e4) // as the paper prints it, as ours is
		}
	}
	if len(datasets) < minSummaryDatasets {
		h.Problems[i] = fmt.Sprintf("%d complete dataset(s): the summary needs %d", len(datasets), minSummaryDatasets)
		return
	}
	sum, err := stats.Summarize(methods, acc, e.Built.Default)
	if err != nil {
		h.Problems[i] = err.Error()
		return
	}
	h.Summaries[i], h.Acc[i], h.SummaryDatasets[i] = &sum, acc, datasets
}

// missingFrom is the number of datasets c has no accuracy for.
func missingFrom(c SameFold, datasets []string) int {
	n := 0
	for _, ds := range datasets {
		if v, ok := c.Acc[ds]; !ok || math.IsNaN(v) {
			n++
		}
	}
	return n
}

// leak fills Leak and LeakMean from the datasets complete under both presets.
func (h *Headline) leak() {
	a, b := h.Entries[0].Built, h.Entries[1].Built
	if a == nil || b == nil {
		h.LeakMean = tables.DifferenceOf("leak", nil)
		return
	}
	for _, ds := range Table1Datasets {
		va, okA := oursValue(a, ds)
		vb, okB := oursValue(b, ds)
		if okA && okB && va.Complete() && vb.Complete() && va.Invalid == "" && vb.Invalid == "" {
			h.Leak = append(h.Leak, tables.Pair{Dataset: ds, Seed: Seeds[0], Diff: va.Acc - vb.Acc})
		}
	}
	h.LeakMean = tables.DifferenceOf("leak", h.Leak)
}

// oursValue is the value of t's default column (SoftShape, ours) on a
// dataset.
func oursValue(t *tables.Table, dataset string) (tables.Value, bool) {
	j := slices.IndexFunc(t.Columns, func(c tables.Column) bool { return c.Name == t.Default && c.Kind == tables.Ours })
	r := slices.IndexFunc(t.Rows, func(r tables.Row) bool { return r.Dataset == dataset })
	if j < 0 || r < 0 {
		return tables.Value{}, false
	}
	return t.Rows[r].Ours[j], true
}

// DatasetsDone is how many of Table1Datasets preset i has complete.
func (h *Headline) DatasetsDone(i int) int { return len(h.Entries[i].DatasetsDone) }

// Complete reports whether every planned run of both presets is recorded.
func (h *Headline) Complete() bool { return h.Entries[0].Complete() && h.Entries[1].Complete() }

// PartialLabel is the bold line that labels Table 1 partial, naming how
// many of its datasets each preset has complete; "" when both are complete.
func (h *Headline) PartialLabel() string {
	if h.Complete() {
		return ""
	}
	var parts []string
	for i, e := range h.Entries {
		parts = append(parts, fmt.Sprintf("%d of %d datasets under %s (%d of %d runs)", h.DatasetsDone(i), len(Table1Datasets), e.Preset, e.Recorded, e.Expected))
	}
	return fmt.Sprintf("**PARTIAL: %s. Not Table 1 yet:** every number below is over the datasets complete so far.\n\n", strings.Join(parts, "; "))
}

// Verdict is one preset's verdict on Table 1: SoftShape's place by average
// rank among the summary's methods, and its paired difference over datasets
// from each of the three best-ranked printed baselines and from each
// same-fold column.
type Verdict struct {
	Preset string
	// Rank is SoftShape's place (1 best; tied average ranks share the
	// better place) among Methods methods, AvgRank its average rank, over
	// Datasets datasets.
	Rank, Methods, Datasets int
	AvgRank                 float64
	// Leads are ours − each of the three best-ranked printed baselines,
	// paired by dataset (mean ± SE over datasets; Trend: beyond 2 SE).
	Leads []tables.Difference
	// SameFold are ours − each same-fold column (trained on ours' folds and
	// seed), paired by dataset as Leads.
	SameFold []tables.Difference
}

// Verdicts returns the verdict of each preset with a summary.
func (h *Headline) Verdicts() []Verdict {
	var out []Verdict
	for i, s := range h.Summaries {
		if s == nil {
			continue
		}
		ref := slices.Index(s.Methods, s.Reference)
		v := Verdict{Preset: h.Entries[i].Preset, Methods: len(s.Methods), Datasets: len(h.Acc[i]), AvgRank: s.AvgRank[ref], Rank: place(s.AvgRank, ref)}
		var others []int // the paper's printed baselines
		for k := range s.AvgRank {
			if k != ref && !slices.ContainsFunc(h.SameFold, func(c SameFold) bool { return c.Name == s.Methods[k] }) {
				others = append(others, k)
			}
		}
		sort.SliceStable(others, func(a, b int) bool { return s.AvgRank[others[a]] < s.AvgRank[others[b]] })
		for _, k := range others[:min(3, len(others))] {
			v.Leads = append(v.Leads, h.lead(i, ref, k))
		}
		for _, c := range h.SameFold {
			if k := slices.Index(s.Methods, c.Name); k >= 0 {
				v.SameFold = append(v.SameFold, h.lead(i, ref, k))
			}
		}
		out = append(out, v)
	}
	return out
}

// lead is ours (column ref) − column k of preset i's summary matrix, paired
// by dataset: the mean ± SE over datasets.
func (h *Headline) lead(i, ref, k int) tables.Difference {
	pairs := make([]tables.Pair, len(h.Acc[i]))
	for r, row := range h.Acc[i] {
		pairs[r] = tables.Pair{Dataset: h.SummaryDatasets[i][r], Seed: Seeds[0], Diff: row[ref] - row[k]}
	}
	return tables.DifferenceOf(h.Summaries[i].Methods[k], pairs)
}

// place is the place of method ref by average rank (1 best): one more than
// the methods ranked strictly better, so tied methods share the better place.
func place(avgRanks []float64, ref int) int {
	n := 1
	for k, r := range avgRanks {
		if k != ref && r < avgRanks[ref] {
			n++
		}
	}
	return n
}

// String is the verdict on one line.
func (v Verdict) String() string {
	describe := func(ds []tables.Difference) string {
		var leads []string
		for _, d := range ds {
			verdict := "within 2 SE"
			switch d.Trend() {
			case 1:
				verdict = "ahead beyond 2 SE"
			case -1:
				verdict = "behind beyond 2 SE"
			}
			leads = append(leads, fmt.Sprintf("%s %s (%s)", d.Column, ppSE(d), verdict))
		}
		return strings.Join(leads, "; ")
	}
	line := fmt.Sprintf("SoftShape ranks %s of %d methods (Avg. Rank %.2f) on %d dataset(s); ours − each of the three best-ranked printed baselines, paired over datasets: %s",
		ordinal(v.Rank), v.Methods, v.AvgRank, v.Datasets, describe(v.Leads))
	if len(v.SameFold) > 0 {
		line += "; on the same folds and seed, ours − " + describe(v.SameFold)
	}
	return line
}

// ordinal is "1st", "2nd", "3rd", "11th", ...
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// BaselinesNote says plainly where the baselines' numbers come from.
const BaselinesNote = "**The 17 baselines are the paper's printed numbers**, each produced under its own protocol (its authors' or the paper's runs: " +
	"other splits, schedules and model selection), not trained here on SoftShape's folds; a difference from them mixes the method with the protocol. " +
	"The columns marked \"(same folds)\", " + MiniRocketSameFold + " and " + MultiRocketHydraSameFold + " (the paper's MR-H, aeon's MultiRocketHydraClassifier), " +
	"are trained here on exactly ours' folds and seed (`docs/baselines.md`): the comparisons in this table of like with like."

// Markdown writes the Table 1 section: the partial label, where the
// baselines come from, the verdict, per dataset ours under both presets with
// the leak beside the paper's SoftShape and baselines, each preset's summary
// rows and CD diagram (figs: the diagrams to link, by preset), and the leak's
// mean ± SE.
func (h *Headline) Markdown(b *strings.Builder, figs map[string]Figure) error {
	title := tables.OnDatasets(table1Title(), len(Table1Datasets))
	fmt.Fprintf(b, "### %s, the SoftShape column\n\n", title)
	b.WriteString(h.PartialLabel())
	if h.Entries[0].Built == nil && h.Entries[1].Built == nil {
		fmt.Fprintf(b, "No run recorded yet under either preset: `%s` trains one dataset (the plan: the %d datasets of `reproduction.Table1Datasets`, seed 42).\n\n",
			SweepCommand("<preset>"), len(Table1Datasets))
		b.WriteString(BaselinesNote + "\n\n")
		return nil
	}
	b.WriteString(BaselinesNote + "\n\n")
	b.WriteString("#### Verdict\n\n")
	verdicts := h.Verdicts()
	for i, e := range h.Entries {
		fmt.Fprintf(b, "- %s: ", e.Preset)
		k := slices.IndexFunc(verdicts, func(v Verdict) bool { return v.Preset == e.Preset })
		if k < 0 {
			fmt.Fprintf(b, "no verdict yet (%s).\n", h.Problems[i])
			continue
		}
		b.WriteString(verdicts[k].String())
		if len(h.Unranked[i]) > 0 {
			b.WriteString("; not ranked yet: " + strings.Join(h.Unranked[i], "; "))
		}
		b.WriteString(".\n")
	}
	b.WriteString("\n")
	h.markdownRows(b)
	for i, e := range h.Entries {
		fmt.Fprintf(b, "#### Summary rows, %s\n\n", e.Preset)
		if h.Summaries[i] == nil {
			fmt.Fprintf(b, "Not computed: %s.\n\n", h.Problems[i])
			continue
		}
		h.markdownSummary(b, i)
		if _, paperLine := rankLine(e); paperLine != "—" {
			fmt.Fprintf(b, "The paper's own SoftShape figures on the datasets of ours' summary: %s.\n\n", paperLine)
		}
		if f, ok := figs[e.Preset]; ok {
			fmt.Fprintf(b, "![Table 1 under %s: critical-difference diagram of SoftShape (ours) and the paper's baselines over %d datasets](%s/%s)\n\n",
				e.Preset, len(h.Acc[i]), FigureDir, f.Name)
		}
	}
	h.markdownLeak(b)
	h.markdownTimes(b)
	return nil
}

// markdownTimes writes the training time per fold of each dataset with runs
// under both presets: ours (wall time of a run, one thread on one core, so
// close to its CPU time) beside each same-fold column's CPU time per fold.
func (h *Headline) markdownTimes(b *strings.Builder) {
	var rows, listed, reused []string
	for _, ds := range Table1Datasets {
		n0, n1 := h.Entries[0].DatasetTimed[ds], h.Entries[1].DatasetTimed[ds]
		if n0 == 0 || n1 == 0 {
			v0, ok0 := valueIn(h.Entries[0].Built, ds)
			v1, ok1 := valueIn(h.Entries[1].Built, ds)
			if ok0 && ok1 && v0.Runs > 0 && v1.Runs > 0 {
				reused = append(reused, ds)
			}
			continue
		}
		w0, w1 := h.Entries[0].DatasetWall[ds]/float64(n0), h.Entries[1].DatasetWall[ds]/float64(n1)
		row := fmt.Sprintf("| %s | %.1f (%d) | %.1f (%d) |", ds, w0, n0, w1, n1)
		for _, c := range h.SameFold {
			if x, ok := c.FoldCPU[ds]; ok {
				row += fmt.Sprintf(" %.2f | %.0f× |", x, (w0+w1)/2/x)
			} else {
				row += " — | — |"
			}
		}
		rows, listed = append(rows, row), append(listed, ds)
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("#### Training time per fold\n\n")
	fmt.Fprintf(b, "Listed: the %d datasets with runs trained for this table under both presets; "+
		"a dataset with runs under one preset only joins once the other preset has one. ", len(rows))
	b.WriteString("Seconds per fold, mean over the dataset's runs trained for this table (their count in brackets). Ours: the run's wall time (500 epochs with evaluation, " +
		"ONNX Runtime with one thread on one core, so close to its CPU time), on the processors of the status table; sessions whose machines carried other load inflate it. ")
	for _, c := range h.SameFold {
		fmt.Fprintf(b, "%s (same folds): the process CPU time of a fold (transform, ridge fit, test), seed %d, on %s; ratio: the mean of ours under both presets over it. ",
			c.Name, Seeds[0], strings.Join(c.Processors, "; "))
	}
	b.WriteString("\n\n| Dataset | ours, " + Presets[0] + " (s) | ours, " + Presets[1] + " (s) |")
	for _, c := range h.SameFold {
		b.WriteString(" " + c.Name + " (same folds, CPU s) | ours ÷ " + c.Name + " |")
	}
	b.WriteString("\n|---|---:|---:|" + strings.Repeat("---:|---:|", len(h.SameFold)) + "\n")
	b.WriteString(strings.Join(rows, "\n") + "\n\n")
	if n, groups := h.otherProcessors(listed); n > 0 {
		fmt.Fprintf(b, "Ours trained on another processor than the same-fold columns for %d of these datasets, so their ratios compare two machines as well: %s.\n\n",
			n, strings.Join(groups, "; "))
	}
	if len(reused) > 0 {
		fmt.Fprintf(b, "Not timed here (%d), their runs read from another table's and timed there: %s.\n\n", len(reused), strings.Join(reused, ", "))
	}
}

// otherProcessors returns, of datasets, how many have runs of ours (under
// either preset) on a processor that none of the same-fold columns ran on,
// or whose record does not name its processor, and those processors, each
// with its datasets ("processor: dataset, dataset"); none when no same-fold
// column names its processors.
func (h *Headline) otherProcessors(datasets []string) (n int, groups []string) {
	var same []string
	for _, c := range h.SameFold {
		for _, p := range c.Processors {
			same = addOnce(same, p)
		}
	}
	if len(same) == 0 {
		return 0, nil
	}
	var procs []string
	byProc := map[string][]string{}
	for _, ds := range datasets {
		other := false
		for _, e := range h.Entries {
			for _, p := range e.DatasetProcessors[ds] {
				if slices.Contains(same, p) {
					continue
				}
				p = cmp.Or(p, "processor not recorded")
				procs = addOnce(procs, p)
				byProc[p] = addOnce(byProc[p], ds)
				other = true
			}
		}
		if other {
			n++
		}
	}
	for _, p := range procs {
		groups = append(groups, p+": "+strings.Join(byProc[p], ", "))
	}
	return n, groups
}

// table1Title is the paper's title of Table 1.
func table1Title() string {
	if t, err := paper.PerDataset(Table1); err == nil {
		return strings.TrimSpace(t.Title)
	}
	return "Table 1"
}

// markdownRows writes the per-dataset table: every planned dataset with a run
// under either preset.
func (h *Headline) markdownRows(b *strings.Builder) {
	ref := h.Entries[0].Built
	if ref == nil {
		ref = h.Entries[1].Built
	}
	var baselines []int
	for j, c := range ref.Columns {
		if c.Kind != tables.Ours {
			baselines = append(baselines, j)
		}
	}
	j0 := slices.IndexFunc(ref.Columns, func(c tables.Column) bool { return c.Name == ref.Default })
	b.WriteString("#### Per dataset\n\n")
	fmt.Fprintf(b, "Ours: mean test accuracy over the 5 folds (n/m: n of its m runs recorded so far); leak: %s − %s on the datasets complete under both.\n\n", Presets[0], Presets[1])
	b.WriteString("| Dataset | ours, " + Presets[0] + " | ours, " + Presets[1] + " | leak |")
	for _, c := range h.SameFold {
		b.WriteString(" " + c.Name + " (same folds) |")
	}
	b.WriteString(" " + ref.Default + " (paper) |")
	for _, j := range baselines {
		b.WriteString(" " + ref.Columns[j].Name + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", 4+len(h.SameFold)+len(baselines)) + "\n")
	var notStarted []string
	for _, ds := range Table1Datasets {
		v0, ok0 := valueIn(h.Entries[0].Built, ds)
		v1, ok1 := valueIn(h.Entries[1].Built, ds)
		if !(ok0 && v0.Runs > 0) && !(ok1 && v1.Runs > 0) {
			notStarted = append(notStarted, ds)
			continue
		}
		leak := "—"
		if k := slices.IndexFunc(h.Leak, func(p tables.Pair) bool { return p.Dataset == ds }); k >= 0 {
			leak = fmt.Sprintf("%+.4f", h.Leak[k].Diff)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |", ds, cellOf(v0, ok0), cellOf(v1, ok1), leak)
		for _, c := range h.SameFold {
			b.WriteString(" " + accCell(c.Acc[ds], c.Acc != nil && hasKey(c.Acc, ds)) + " |")
		}
		row := paperRow(ref, ds)
		b.WriteString(" " + accCell(row[j0], true) + " |")
		for _, j := range baselines {
			b.WriteString(" " + accCell(row[j], true) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	if len(notStarted) > 0 {
		fmt.Fprintf(b, "No run yet (%d): %s.\n\n", len(notStarted), strings.Join(notStarted, ", "))
	}
}

func hasKey(m map[string]float64, k string) bool { _, ok := m[k]; return ok }

// valueIn is ours on a dataset of t (nil t: none).
func valueIn(t *tables.Table, ds string) (tables.Value, bool) {
	if t == nil {
		return tables.Value{}, false
	}
	return oursValue(t, ds)
}

func cellOf(v tables.Value, ok bool) string {
	if !ok {
		return "—"
	}
	return v.Cell()
}

func accCell(x float64, ok bool) string {
	if !ok || math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.4f", x)
}

// paperRow is the paper's figures of a dataset, indexed like t.Columns
// (NaN everywhere when the paper's table lacks the dataset).
func paperRow(t *tables.Table, ds string) []float64 {
	for _, r := range t.Rows {
		if r.Dataset == ds {
			return r.Paper
		}
	}
	out := make([]float64, len(t.Columns))
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}

// markdownSummary writes preset i's summary rows, one row per method.
func (h *Headline) markdownSummary(b *strings.Builder, i int) {
	s := h.Summaries[i]
	ref := slices.Index(s.Methods, s.Reference)
	holm := stats.Holm(s.WilcoxonP)
	printed, _ := paper.Summary(Table1)
	fmt.Fprintf(b, "Over the %d dataset(s) complete under %s (%s). Every column ranked together: ours (SoftShape), ", len(h.Acc[i]), h.Entries[i].Preset, strings.Join(h.SummaryDatasets[i], ", "))
	if slices.ContainsFunc(h.SameFold, func(c SameFold) bool { return slices.Contains(s.Methods, c.Name) }) {
		b.WriteString("the same-fold baselines, ")
	}
	b.WriteString("and the paper's 17 baselines with its per-dataset figures (accuracies rounded to 4 decimals first). " +
		"Avg. Rank gives tied methods the minimum rank (the paper's rule); the P-value is the paper's statistic (half the two-sided paired t-test p) against ours, " +
		"beside a real two-sided Wilcoxon signed-rank test and its Holm correction over the other methods. The last column is the paper's printed Avg. Rank over its 128 datasets.\n\n")
	b.WriteString("| method | Avg. Acc | Avg. Rank | Win | P-value (paper's) | Wilcoxon p | Wilcoxon p, Holm | Avg. Rank, paper printed (128) |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	order := make([]int, len(s.Methods))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, c int) bool { return s.AvgRank[order[a]] < s.AvgRank[order[c]] })
	for _, k := range order {
		name := s.Methods[k]
		if k == ref {
			name = "**" + name + " (ours)**"
		} else if slices.ContainsFunc(h.SameFold, func(c SameFold) bool { return c.Name == s.Methods[k] }) {
			name += " (same folds)"
		}
		pr := "—"
		if printed != nil {
			if v, ok := printed.Value(paper.MetricAvgRank, s.Methods[k]); ok && v != "" {
				pr = v
			}
		}
		fmt.Fprintf(b, "| %s | %.4f | %.2f | %d | %s | %s | %s | %s |\n", name, s.AvgAcc[k], s.AvgRank[k], s.Wins[k], pCell(s.PaperP[k]), pCell(s.WilcoxonP[k]), pCell(holm[k]), pr)
	}
	b.WriteString("\n")
	if len(h.Unranked[i]) > 0 {
		fmt.Fprintf(b, "Not ranked yet, still being run: %s; a same-fold column joins these rows when it has every dataset of them.\n\n", strings.Join(h.Unranked[i], "; "))
	}
}

func pCell(p float64) string {
	if math.IsNaN(p) {
		return "—"
	}
	return strings.ToUpper(fmt.Sprintf("%.2e", p))
}

// markdownLeak writes the per-dataset leak's mean ± SE over datasets.
func (h *Headline) markdownLeak(b *strings.Builder) {
	fmt.Fprintf(b, "#### The fold leak on Table 1: %s − %s\n\n", Presets[0], Presets[1])
	if len(h.Leak) == 0 {
		b.WriteString("No dataset is complete under both presets yet.\n\n")
		return
	}
	fmt.Fprintf(b, "Over the %d dataset(s) complete under both presets, the mean per-dataset difference (each dataset's mean over its 5 folds, column \"leak\" above) is %s (± the standard error over datasets).\n\n",
		len(h.Leak), ppSE(h.LeakMean))
}

// Table1Figures are the CD diagrams of Table 1, one per preset with a
// summary of at least tablefigures.MinCDDatasets datasets, named by a hash
// of what they draw (Figure.Draw draws one).
func Table1Figures(entries []Entry) []Figure {
	h, err := NewHeadline(entries)
	if err != nil {
		return nil
	}
	var out []Figure
	for i, e := range h.Entries {
		if f, ok := h.cdFigure(i, e); ok {
			out = append(out, f)
		}
	}
	return out
}

// cdFigure is the figure of preset i's CD diagram; ok is false without one.
func (h *Headline) cdFigure(i int, e Entry) (Figure, bool) {
	s := h.Summaries[i]
	if s == nil || len(h.Acc[i]) < tablefigures.MinCDDatasets {
		return Figure{}, false
	}
	acc, datasets := h.Acc[i], h.SummaryDatasets[i]
	methods := slices.Clone(s.Methods)
	methods[slices.Index(methods, s.Reference)] += " (ours)"
	fig, err := tablefigures.CDOf(e.Built, methods, acc, datasets, tablefigures.DefaultAlpha, "the baselines: the paper's printed numbers")
	if err != nil {
		return Figure{}, false
	}
	var key strings.Builder
	fmt.Fprintf(&key, "%s|%s|%s\n%v\n", Table1CD, e.Preset, fig.Title(), methods)
	for r, row := range acc {
		fmt.Fprintf(&key, "%s %v\n", datasets[r], row)
	}
	return Figure{Table: Table1, Preset: e.Preset, Label: e.Preset, Name: figureName(Table1CD, e.Preset, key.String()), Built: e.Built, fig: fig}, true
}

// Table1CD names the files of Table 1's CD diagrams under FigureDir.
const Table1CD = "main_cd"

// LoadTable1 reads the state of Table 1 and of the LightTS/Shapeformer
// table read from its runs (Table1Items) from dir (the reproduction folder),
// checking every record as Load does.
func LoadTable1(dir string) ([]Entry, error) { return loadItems(dir, Table1Items()) }

// Table1Markdown is the Table 1 section of docs/reproduction.md without its
// figure links, for a notebook that draws the figures itself
// (Table1Figures): the partial label, the verdict, per dataset, each
// preset's summary rows and the leak.
func Table1Markdown(entries []Entry) (string, error) {
	h, err := NewHeadline(entries)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := h.Markdown(&b, nil); err != nil {
		return "", err
	}
	return b.String(), nil
}

// LightTSMarkdown is the LightTS/Shapeformer section of docs/reproduction.md:
// each preset's table read from Table 1's runs beside the paper's.
func LightTSMarkdown(entries []Entry) (string, error) {
	var b strings.Builder
	if err := writeLightTS(&b, entries); err != nil {
		return "", err
	}
	return b.String(), nil
}

// writeTable1 writes the Table 1 section of the generated block (Headline's
// Markdown, with its CD diagrams) and the LightTS/Shapeformer table read
// from the same runs, each preset's beside the paper's.
func writeTable1(b *strings.Builder, entries []Entry) error {
	h, err := NewHeadline(entries)
	if err != nil {
		return err
	}
	figs := map[string]Figure{}
	for i, e := range h.Entries {
		if f, ok := h.cdFigure(i, e); ok {
			figs[e.Preset] = f
		}
	}
	if err := h.Markdown(b, figs); err != nil {
		return err
	}
	return writeLightTS(b, entries)
}

// writeLightTS writes the LightTS/Shapeformer table of each preset, read
// from Table 1's runs on the datasets it shares with the paper's 18.
func writeLightTS(b *strings.Builder, entries []Entry) error {
	var byPreset []Entry
	for _, e := range entries {
		if e.Table == LightTSShapeformer {
			byPreset = append(byPreset, e)
		}
	}
	if len(byPreset) == 0 {
		return nil
	}
	title := LightTSShapeformer
	if pt, err := paper.PerDataset(LightTSShapeformer); err == nil {
		title = strings.TrimSpace(pt.Title)
	}
	fmt.Fprintf(b, "### %s, from Table 1's runs\n\n", title)
	fmt.Fprintf(b, "SoftShape's column is Table 1's runs on the %d of the paper's 18 datasets that are local (%s); LightTS and Shapeformer are the paper's printed numbers.\n\n",
		len(PlanDatasets(LightTSShapeformer)), strings.Join(PlanDatasets(LightTSShapeformer), ", "))
	for _, e := range byPreset {
		fmt.Fprintf(b, "#### %s, LightTS/Shapeformer\n\n", e.Preset)
		if e.Built == nil {
			fmt.Fprintf(b, "No run recorded yet: 0 of %d runs (`%s`).\n\n", e.Expected, SweepCommand(e.Preset))
			continue
		}
		b.WriteString(partialLine(e))
		var sec strings.Builder
		if err := e.Built.MarkdownResults(&sec); err != nil {
			return err
		}
		b.WriteString(demote(sec.String()))
	}
	return nil
}
