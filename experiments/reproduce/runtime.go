package reproduce

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/timing"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/plots"
	"github.com/softshape-go/softshape/reproduction"
)

// EpochTimes is a Markdown table of the time per training epoch and the
// inference time recorded by the sweep for each dataset and variant of the
// table (mean over the ok records of the grid), one row per processor the
// records name (sweep.Record.CPU; records that do not name theirs form one
// row): the running-time side of a table read from the store, without new
// measurements. A row never averages two datasets or two processors, so
// rows compare like with like within one dataset and processor. For Table 3
// each dataset's rows end with a line saying which sparse ratio was fastest
// and why 0% may be (epochOrder).
func (r *TableResult) EpochTimes() (string, error) {
	md, _, err := r.epochTimes()
	return md, err
}

// epochRow is one row of EpochTimes: a variant's runs of one dataset on one
// processor.
type epochRow struct {
	dataset, variant, cpu string
	perEpoch              []float64
	infer, params         []float64
}

// epochTimes returns EpochTimes's Markdown and its rows.
func (r *TableResult) epochTimes() (string, []*epochRow, error) {
	store, err := sweep.Open(r.Params.Results)
	if err != nil {
		return "", nil, err
	}
	type key struct{ dataset, variant, cpu string }
	rows := map[key]*epochRow{}
	cpusOf := map[[2]string][]string{} // (dataset, variant) → its records' processors, in order seen
	for _, c := range r.Grid.Cells {
		rec, err := store.Read(c.Key)
		if err != nil || rec == nil || rec.Status != sweep.StatusOK || rec.EpochsRun == 0 {
			continue
		}
		k := key{c.Dataset, c.Variant, rec.CPU}
		a := rows[k]
		if a == nil {
			a = &epochRow{dataset: c.Dataset, variant: c.Variant, cpu: rec.CPU}
			rows[k] = a
			dv := [2]string{c.Dataset, c.Variant}
			cpusOf[dv] = append(cpusOf[dv], rec.CPU)
		}
		a.perEpoch = append(a.perEpoch, rec.RunWallSeconds()/float64(rec.EpochsRun))
		if x := float64(rec.InferenceSeconds); !math.IsNaN(x) {
			a.infer = append(a.infer, x)
		}
		a.params = append(a.params, float64(rec.Params))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "### Time per epoch from the stored runs — %s", r.Name)
	if r.Params.Quick {
		b.WriteString(" — " + sweep.QuickLabel)
	}
	b.WriteString("\n\nMean over the ok records of this grid, per dataset and per processor the records name (wall time of the fold ÷ epochs run, which includes evaluation each epoch; for runs trained together in one batched job, the job's wall time ÷ its runs; inference = one pass over the fold's test split, not measured for batched runs). " +
		"Each row is one dataset on one processor: machines of one name can differ several-fold, so compare rows of one dataset and one CPU only.\n\n" +
		"| dataset | variant | CPU | runs | s / epoch | inference s | parameters |\n|---|---|---|---:|---:|---:|---:|\n")
	var shown []*epochRow
	var notes []string
	for _, ds := range r.Grid.Spec.Datasets {
		var ofDataset []*epochRow
		for _, v := range r.Grid.Variants {
			cpus := cpusOf[[2]string{ds, v.Name}]
			if len(cpus) == 0 {
				fmt.Fprintf(&b, "| %s | %s | — | 0 | — | — | — |\n", ds, v.Name)
				continue
			}
			sort.Strings(cpus) // "" (not recorded) first
			for _, cpu := range cpus {
				a := rows[key{ds, v.Name, cpu}]
				ofDataset = append(ofDataset, a)
				infer := "—"
				if len(a.infer) > 0 {
					infer = fmt.Sprintf("%.4f", mean(a.infer))
				}
				name := cpu
				if name == "" {
					name = "not recorded"
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %d | %.3f | %s | %.0f |\n", ds, v.Name, name, len(a.perEpoch), mean(a.perEpoch), infer, mean(a.params))
			}
		}
		shown = append(shown, ofDataset...)
		if r.Name == "sparse_ratio" {
			if note := epochOrder(ofDataset); note != "" {
				notes = append(notes, fmt.Sprintf("- **%s**: %s", ds, note))
			}
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, "\n%s\n", strings.Join(notes, "\n"))
		if slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "0% took less") }) {
			fmt.Fprintf(&b, "\n%s\n", zeroFastNote)
		}
	}
	return b.String(), shown, nil
}

// epochOrder says, for Table 3's rows of one dataset when they come from
// one processor (or none recorded), which sparse ratio took the least and
// the most time per epoch and which ratios 0% was faster than (why is
// zeroFastNote, written once under the table). For rows of several
// processors it says why it ranks none (the notebook's prose promises one
// line or the other).
func epochOrder(rows []*epochRow) string {
	if len(rows) < 2 {
		return ""
	}
	for _, r := range rows {
		if r.cpu != rows[0].cpu {
			return "No fastest sparse ratio is named: these rows come from several processors, and records of one name may come from several machines, " +
				"so their times rank the machines as much as the ratios."
		}
	}
	byTime := slices.Clone(rows)
	slices.SortStableFunc(byTime, func(a, b *epochRow) int { return cmp.Compare(mean(a.perEpoch), mean(b.perEpoch)) })
	fast, slow := byTime[0], byTime[len(byTime)-1]
	s := fmt.Sprintf("Fastest per epoch here: %s (%.3f s); slowest: %s (%.3f s).", fast.variant, mean(fast.perEpoch), slow.variant, mean(slow.perEpoch))
	i := slices.IndexFunc(byTime, func(r *epochRow) bool { return r.variant == "0%" })
	if i < 0 || i == len(byTime)-1 {
		return s
	}
	var slower []string
	for _, r := range byTime[i+1:] {
		slower = append(slower, r.variant)
	}
	return s + fmt.Sprintf(" 0%% took less time per epoch than %s.", strings.Join(slower, ", "))
}

// zeroFastNote is why 0% may take less time per epoch than other sparse
// ratios, written under Table 3's epoch times when a dataset's line says so.
const zeroFastNote = "Where 0% took less time per epoch than other ratios, two causes are known: at the authors' schedule (`moe_layers=sparse`) a sparse ratio of 0% merges nothing and runs no MoE, " +
	"while every other ratio adds the merge and the MoE to the last layer, a fixed cost that fusing a few shapes of short series does not recover; " +
	"and these are wall times on a shared machine, which vary by up to 2× (docs/performance.md, \"Running time\", compares the ratios step by step in CPU time on one machine). " +
	"The paper's claim that the running time falls as the sparse ratio grows is about long series (Fig 3, below)."

// RunningTime measures the time of a training step against the series length
// (the paper's Fig 3) with experiments/timing for the sparse ratios given
// (nil: timing.DefaultRatios) and returns its Markdown table and the figure
// (timing.Result.Figure: the CPU time per epoch). Quick mode uses short
// lengths and one timed step.
func RunningTime(p Params, lengths []int, ratios []float64) (string, *plots.Figure, error) {
	p, err := p.Resolve()
	if err != nil {
		return "", nil, err
	}
	backend, err := backends.New(p.BackendName)
	if err != nil {
		return "", nil, err
	}
	cfg, err := ModelConfig(p, "")
	if err != nil {
		return "", nil, err
	}
	opts := timing.Options{Lengths: lengths, Ratios: ratios, Backend: backend, DataRoot: p.DataRoot, Config: &cfg, Seed: p.Seeds[0]}
	if p.Quick {
		opts.Steps = 1
	}
	res, err := timing.Measure(opts)
	if err != nil {
		return "", nil, err
	}
	var b bytes.Buffer
	if err := res.Markdown(&b); err != nil {
		return "", nil, err
	}
	fig, err := res.Figure(true, p.Quick)
	return b.String(), fig, err
}

// PairedTiming compares, at series length T, a training step at ratios[0]
// against one at each other sparse ratio, alternating the steps for rounds
// rounds (timing.CompareRatios), and returns the Markdown of each comparison:
// per-round times and cost ratios, their median, wins and one-sided Wilcoxon
// p-value. This is the measurement behind "50% is cheaper than 0% on long
// series" of Fig 3, less disturbed by load than two separate timings.
func PairedTiming(p Params, T int, ratios []float64, rounds int) (string, error) {
	p, err := p.Resolve()
	if err != nil {
		return "", err
	}
	backend, err := backends.New(p.BackendName)
	if err != nil {
		return "", err
	}
	cfg, err := ModelConfig(p, "")
	if err != nil {
		return "", err
	}
	opts := timing.Options{Backend: backend, DataRoot: p.DataRoot, Config: &cfg, Seed: p.Seeds[0], Batch: 8}
	pairs, err := timing.CompareToBaseline(opts, T, ratios, rounds)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "### Paired step timing at T = %d (batch %d)", T, opts.Batch)
	if p.Quick {
		b.WriteString(" — " + sweep.QuickLabel)
	}
	b.WriteString("\n\n")
	for _, res := range pairs {
		if err := res.Markdown(&b); err != nil {
			return "", err
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}

// TimingView is one backend's committed running-time measurement as a
// notebook shows it: a name for the figure, the Markdown (where and how it
// was measured, every point with its spread, the fits) and the figure.
type TimingView struct {
	Name     string
	Markdown string
	Figure   *plots.Figure
}

// CommittedRunningTime is paper Fig 3 from the committed measurements
// (reproduction.LoadTiming), one view per backend, measuring nothing: the
// figure is the CPU time per training epoch against the series length, with
// a bar from the fastest to the slowest timed step, drawn from the same
// points as the table.
func CommittedRunningTime() ([]TimingView, error) {
	ts, err := reproduction.LoadTiming(committedDir())
	if err != nil {
		return nil, err
	}
	var out []TimingView
	for _, t := range ts {
		var b bytes.Buffer
		fmt.Fprintf(&b, "*Committed measurement `%s` (%s, measured %s by build %s; binary: `%s`; re-measure with `%s`, confined to one core with `taskset`), nothing measured now.*\n\n",
			repoPath(filepath.Join(t.Dir, timing.ResultFile)), t.Folder, t.Result.Measured.Format("2006-01-02"), reproduction.ShortRevision(t.Result.Build), t.Build, t.SweepCommand)
		if err := t.Result.Markdown(&b); err != nil {
			return nil, err
		}
		fig, err := t.Result.Figure(true, false)
		if err != nil {
			return nil, err
		}
		out = append(out, TimingView{Name: "running_time_" + t.Folder, Markdown: b.String(), Figure: fig})
	}
	return out, nil
}

// CommittedPairedTiming is the committed step-by-step comparison of sparse
// ratios (reproduction.LoadTiming's paired.json), per backend, as Markdown.
func CommittedPairedTiming() (string, error) {
	ts, err := reproduction.LoadTiming(committedDir())
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	for _, t := range ts {
		run := t.Paired
		fmt.Fprintf(&b, "#### %s: paired step timing at T = %d (batch %d)\n\n*Committed measurement `%s` on %s, measured %s by build %s; binary: `%s`; re-measure with `%s`.*\n\n",
			t.Folder, run.Pairs[0].Length, run.Batch, repoPath(filepath.Join(t.Dir, timing.PairedFile)), run.CPU, run.Measured.Format("2006-01-02"), reproduction.ShortRevision(run.Build), t.Build, t.PairedCommand)
		for _, p := range run.Pairs {
			if err := p.Markdown(&b); err != nil {
				return "", err
			}
			b.WriteString("\n")
		}
	}
	return b.String(), nil
}
