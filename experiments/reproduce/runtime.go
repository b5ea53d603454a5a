package reproduce

import (
	"bytes"
	"fmt"
	"math"
	"sort"

	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/timing"
	"github.com/softshape-go/softshape/plots"
	"github.com/softshape-go/softshape/softshape"
)

// EpochTimes is a Markdown table of the time per training epoch and the
// inference time recorded by the sweep for each variant of the table (mean
// over the ok records of the grid), one row per processor the records name
// (sweep.Record.CPU; records that do not name theirs form one row): the
// running-time side of a table read from the store, without new
// measurements.
func (r *TableResult) EpochTimes() (string, error) {
	store, err := sweep.Open(r.Params.Results)
	if err != nil {
		return "", err
	}
	type acc struct {
		perEpoch, infer []float64
		params          []float64
	}
	type row struct{ variant, cpu string }
	rows := map[row]*acc{}
	cpusOf := map[string][]string{} // variant → its records' processors, in order seen
	for _, c := range r.Grid.Cells {
		rec, err := store.Read(c.Key)
		if err != nil || rec == nil || rec.Status != sweep.StatusOK || rec.EpochsRun == 0 {
			continue
		}
		k := row{c.Variant, rec.CPU}
		a := rows[k]
		if a == nil {
			a = &acc{}
			rows[k] = a
			cpusOf[c.Variant] = append(cpusOf[c.Variant], rec.CPU)
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
	b.WriteString("\n\nMean over the ok records of this grid (wall time of the fold ÷ epochs run, which includes evaluation each epoch; for runs trained together in one batched job, the job's wall time ÷ its runs; inference = one pass over the fold's test split, not measured for batched runs), per processor the records name: machines of one name can differ several-fold, so compare rows of one CPU only.\n\n| variant | CPU | runs | s / epoch | inference s | parameters |\n|---|---|---:|---:|---:|---:|\n")
	for _, v := range r.Grid.Variants {
		cpus := cpusOf[v.Name]
		if len(cpus) == 0 {
			fmt.Fprintf(&b, "| %s | — | 0 | — | — | — |\n", v.Name)
			continue
		}
		sort.Strings(cpus) // "" (not recorded) first
		for _, cpu := range cpus {
			a := rows[row{v.Name, cpu}]
			infer := "—"
			if len(a.infer) > 0 {
				infer = fmt.Sprintf("%.4f", mean(a.infer))
			}
			name := cpu
			if name == "" {
				name = "not recorded"
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %.3f | %s | %.0f |\n", v.Name, name, len(a.perEpoch), mean(a.perEpoch), infer, mean(a.params))
		}
	}
	return b.String(), nil
}

// RunningTime measures the time of a training step against the series length
// (the paper's Fig 3) with experiments/timing for the sparse ratios given
// (nil: timing.DefaultRatios) and returns its Markdown table and the figure.
// Quick mode uses short lengths and one timed step.
func RunningTime(p Params, lengths []int, ratios []float64) (string, *plots.Figure, error) {
	p, err := p.Resolve()
	if err != nil {
		return "", nil, err
	}
	backend, err := softshape.NewBackend(p.Backend)
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
	series := res.Series(true)
	xs := make([]float64, len(res.Lengths))
	for i, l := range res.Lengths {
		xs[i] = float64(l)
	}
	keys := make([]string, 0, len(series))
	for k := range series {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if len(series[k]) != len(xs) {
			delete(series, k)
		}
		for _, v := range series[k] {
			if math.IsNaN(v) {
				delete(series, k)
				break
			}
		}
	}
	meta := plots.Meta{Title: "Running time per epoch vs series length", Dataset: res.Source, Config: res.Backend, Quick: p.Quick}
	fig, err := plots.RunningTime(meta, xs, series)
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
	backend, err := softshape.NewBackend(p.Backend)
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
