package fidelity

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/softshape-go/softshape/internal/english"
)

// Row is one line of a fidelity report: a comparison with the runs behind it.
type Row struct {
	Comparison
	Runs DatasetRuns
}

// WriteMarkdown writes the report: per dataset and preset, ours (mean ± SE
// over seeds of the 5-fold means) beside the authors' code on the preset's
// reference protocol and the paper, the difference with its standard error,
// whether it is within ±2 pp and within noise (two standard errors), the folds
// that selected a warm-up model and the training wall time; then the selected
// epochs per seed, and per row whose seeds are not all recorded, which seeds
// it lacks (the seeds column counts those it holds).
func WriteMarkdown(w io.Writer, rows []Row) error {
	var b strings.Builder
	b.WriteString("| dataset | preset | seeds | ours (mean ± SE) | authors' code | Δ ± SE | within ±2 pp | within 2 SE | paper | warm-up selected | wall |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|:---:|:---:|---:|---:|---:|\n")
	for _, r := range rows {
		ref, diff, within, noise := "—", "—", "—", "—"
		if r.RefProtocol == "" {
			ref = "no like-for-like run"
		} else if r.Ref.N > 0 {
			ref = fmt.Sprintf("%s (%s, %d seeds)", estimate(r.Ref), r.RefProtocol, r.Ref.N)
			if !math.IsNaN(r.Diff) {
				diff = fmt.Sprintf("%+.4f ± %s", r.Diff, num(r.DiffSE))
				within, noise = yesNo(r.Within()), yesNo(r.Noise())
			}
		} else {
			ref = fmt.Sprintf("not in the reference file (%s)", r.RefProtocol)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %d of %d | %s |\n",
			r.Dataset, r.Preset, r.Ours.N, estimate(r.Ours), ref, diff, within, noise, num(r.Paper),
			r.Runs.WarmUpSelected, r.Runs.Folds, (time.Duration(r.Runs.WallSeconds) * time.Second).String())
	}
	b.WriteString("\nSelected epochs (0-based) per seed, folds 1–5:\n\n")
	for _, r := range rows {
		for i, seed := range r.Runs.Seeds {
			fmt.Fprintf(&b, "- %s, %s, seed %d: mean %.4f, epochs %v\n", r.Dataset, r.Preset, seed, r.Runs.PerSeed[i], r.Runs.BestEpochs[i])
		}
		if r.Runs.Missing > 0 {
			fmt.Fprintf(&b, "- %s, %s: %d folds not recorded yet (%s %s), so the row holds %d of its %d seeds\n", r.Dataset, r.Preset, r.Runs.Missing,
				english.Agree(len(r.Runs.Incomplete), "seed", "seeds"), joinSeeds(r.Runs.Incomplete), len(r.Runs.Seeds), len(r.Runs.Seeds)+len(r.Runs.Incomplete))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// joinSeeds lists seeds: "1, 2".
func joinSeeds(seeds []int64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ", ")
}

func estimate(e Estimate) string {
	if e.N == 0 {
		return "—"
	}
	if e.N == 1 {
		return fmt.Sprintf("%.4f (1 seed)", e.Mean)
	}
	return fmt.Sprintf("%.4f ± %.4f", e.Mean, e.SE)
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.4f", v)
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}
