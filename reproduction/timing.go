package reproduction

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strings"

	"github.com/softshape-go/softshape/experiments/timing"
)

// TimingDir is the folder of the committed running-time measurements (paper
// Fig 3) under a reproduction folder dir: one sub-folder per backend
// (TimingBackends), each holding what "softshape timing -out" and
// "softshape timing -paired -out" write: timing.json (every timed step
// against the series length), paired.json (sparse ratios compared step by
// step at one length), timing.md and the figures.
func TimingDir(dir string) string { return filepath.Join(dir, "timing") }

// TimingBackend is one backend's committed measurement: its folder under
// TimingDir, how its binary was built, and the two commands that measured
// it (each confined to one core with taskset).
type TimingBackend struct {
	Folder, Build, SweepCommand, PairedCommand string
}

// TimingBackends are the committed measurements, the fast CPU path first:
// ONNX Runtime with one thread and pure Go with its SIMD kernels, measured
// one after the other on one core of one machine while its other core ran a
// Table 1 sweep on small datasets (the paired comparisons ran both backends
// at once, one per core: alternating the steps cancels such load).
var TimingBackends = []TimingBackend{
	{Folder: "onnxruntime-cpu", Build: "go build -tags onnx",
		SweepCommand:  "softshape timing -lengths full -steps 7 -backend onnx:cpu -out reproduction/timing/onnxruntime-cpu",
		PairedCommand: "softshape timing -paired 3984 -rounds 11 -batch 8 -ratios 0,50,90 -backend onnx:cpu -out reproduction/timing/onnxruntime-cpu"},
	{Folder: "go", Build: "GOEXPERIMENT=simd go build",
		SweepCommand:  "softshape timing -lengths full -steps 7 -backend go -out reproduction/timing/go",
		PairedCommand: "softshape timing -paired 3984 -rounds 11 -batch 8 -ratios 0,50,90 -backend go -out reproduction/timing/go"},
}

// Timing is one backend's committed measurement, read back.
type Timing struct {
	TimingBackend
	// Dir is its folder; Result the length sweep (timing.json) and Paired
	// the step-by-step comparison (paired.json).
	Dir    string
	Result *timing.Result
	Paired *timing.PairedRun
}

// LoadTiming reads every backend's committed measurement under the
// reproduction folder dir; a backend whose folder or files are missing is an
// error naming the file and the command that makes it.
func LoadTiming(dir string) ([]Timing, error) {
	var out []Timing
	for _, b := range TimingBackends {
		t := Timing{TimingBackend: b, Dir: filepath.Join(TimingDir(dir), b.Folder)}
		var err error
		if t.Result, err = timing.Load(filepath.Join(t.Dir, timing.ResultFile)); err != nil {
			return nil, madeBy(err, b.SweepCommand)
		}
		if t.Paired, err = timing.LoadPaired(filepath.Join(t.Dir, timing.PairedFile)); err != nil {
			return nil, madeBy(err, b.PairedCommand)
		}
		out = append(out, t)
	}
	return out, nil
}

// madeBy adds to a missing file's error the command that makes it.
func madeBy(err error, command string) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w (made by: %s)", err, command)
	}
	return err
}

// LinearExponent is the growth exponent b (step time ∝ T^b, over the
// longer half of the lengths) below which "linear in the series length"
// holds: nearer linear (1) than quadratic (2), the contrast the paper draws
// between SoftShape's gated attention and Medformer's self-attention.
const LinearExponent = 1.5

// PairedAlpha is the one-sided p-value below which a paired timing calls a
// sparse ratio cheaper (or dearer) than the baseline.
const PairedAlpha = 0.05

// RunningTimeVerdicts is the Markdown table of the paper's running-time
// claims (Fig 3 and Table 3's "η = 50% for efficiency") as the committed
// measurements answer them, one row per claim and backend:
//   - training time grows linearly with the series length: holds when every
//     series' growth exponent over the longer half of the lengths
//     (timing.Result.Exponent) is below LinearExponent, opposite when one is
//     above it; the least-squares line's R² is given beside it;
//   - a higher sparse ratio costs less per step: holds when the paired
//     comparison's one-sided Wilcoxon p < PairedAlpha, opposite when the
//     reverse test's is, else not shown.
func RunningTimeVerdicts(ts []Timing) string {
	var b strings.Builder
	b.WriteString("### Verdicts: running time (paper Fig 3)\n\n")
	b.WriteString("From the committed measurements (`reproduction/timing`), whatever the mode; nothing measured. " +
		fmt.Sprintf("Linear: the step's CPU time grows as T^b over the longer half of the lengths, b from a least-squares line of log time against log T; holds when every series' b < %g (nearer linear than quadratic, the paper's contrast with self-attention), opposite otherwise; R²: the straight line's fit over all lengths. ", LinearExponent) +
		fmt.Sprintf("Cheaper: one step of each sparse ratio alternated on the same batch, compared round by round in process CPU time; holds when the one-sided Wilcoxon signed-rank p < %g, opposite when the reverse test's is. ", PairedAlpha) +
		"The paper's comparisons with MR-H, InceptionTime, TSLANet and Medformer are not measured here.\n\n")
	b.WriteString("| claim | backend | ours | verdict |\n|---|---|---|---|\n")
	for _, t := range ts {
		r := t.Result
		from := r.Lengths[len(r.Lengths)/2]
		maxB, worst, minR2 := math.Inf(-1), "", math.Inf(1)
		for _, f := range r.Fits {
			if e := r.Exponent(f.Label, from); e > maxB || worst == "" {
				maxB, worst = e, f.Label
			}
			minR2 = math.Min(minR2, f.R2)
		}
		word := "holds"
		if !(maxB < LinearExponent) {
			word = "opposite"
		}
		fmt.Fprintf(&b, "| training time linear in T (%d–%d) | %s | largest b = %.2f (%s, T ≥ %d); least R² %.3f | **%s** |\n",
			r.Lengths[0], r.Lengths[len(r.Lengths)-1], t.Folder, maxB, worst, from, minR2, word)
	}
	for _, t := range ts {
		for _, p := range t.Paired.Pairs {
			fmt.Fprintf(&b, "| sparse ratio %.0f%% cheaper than %.0f%% per step (T = %d) | %s | %.3f× (median of %d rounds; cheaper in %d; p = %.3g) | **%s** |\n",
				100*p.RatioB, 100*p.RatioA, p.Length, t.Folder, p.MedianRatio, len(p.Ratios), p.Wins, p.PValue, pairedVerdict(p))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// pairedVerdict is RunningTimeVerdicts's word for a paired comparison.
func pairedVerdict(p *timing.Paired) string {
	switch {
	case p.PValue < PairedAlpha:
		return "holds"
	case p.PValueDearer < PairedAlpha:
		return "opposite"
	}
	return "not shown"
}

// RenderTiming is the generated timing block of docs/reproduction.md,
// markers included (without measurements, the commands that make them):
// the running-time verdicts (RunningTimeVerdicts), then
// per backend where it was measured, its figure (the CPU time per epoch
// that "softshape timing" drew beside timing.json) and a table of the
// median CPU time per step of each series at each length, the figure's
// points.
func RenderTiming(ts []Timing) string {
	var b strings.Builder
	b.WriteString(TimingBlock.Begin + "\n\n")
	if len(ts) == 0 {
		b.WriteString("No committed running-time measurement. Each backend's is made by:\n\n")
		for _, t := range TimingBackends {
			fmt.Fprintf(&b, "- %s (binary: `%s`): `%s`, then `%s`\n", t.Folder, t.Build, t.SweepCommand, t.PairedCommand)
		}
		b.WriteString("\n" + TimingBlock.End)
		return b.String()
	}
	b.WriteString(strings.Replace(RunningTimeVerdicts(ts), "### Verdicts: running time (paper Fig 3)", "#### Verdicts", 1))
	for _, t := range ts {
		r := t.Result
		rel := "../reproduction/timing/" + t.Folder + "/"
		fmt.Fprintf(&b, "#### %s\n\n%s, measured %s by build %s (binary: `%s`; `%s`): %d timed steps per point, batch %d, %s series, m = %d, q = %d. "+
			"Every point with its spread and the fits: [timing.md](%stiming.md); every step: [timing.json](%stiming.json); the paired rounds: [paired.json](%spaired.json).\n\n",
			t.Folder, r.Backend, r.Measured.Format("2006-01-02"), ShortRevision(r.Build), t.Build, t.SweepCommand, r.Steps, r.Batch, r.Source, r.ShapeLen, r.Stride, rel, rel, rel)
		fmt.Fprintf(&b, "Processor: %s.\n\n![%s: CPU time per epoch against the series length](%srunning_time.svg)\n\n", r.CPU, t.Folder, rel)
		labels := r.Labels()
		b.WriteString("| T | J |")
		for _, l := range labels {
			fmt.Fprintf(&b, " %s (ms) |", l)
		}
		b.WriteString("\n|---:|---:|" + strings.Repeat("---:|", len(labels)) + "\n")
		for _, T := range r.Lengths {
			j := 0
			cells := ""
			for _, l := range labels {
				p, ok := r.Point(l, T)
				if !ok {
					cells += " — |"
					continue
				}
				j = p.NumShapes
				cells += fmt.Sprintf(" %.1f |", float64(p.CPU.Microseconds())/1000)
			}
			fmt.Fprintf(&b, "| %d | %d |%s\n", T, j, cells)
		}
		b.WriteString("\nMedian process CPU time per training step.\n\n")
	}
	b.WriteString(TimingBlock.End)
	return b.String()
}

// ShortRevision is a build revision cut to 7 hex digits, its "+dirty" kept.
func ShortRevision(rev string) string {
	if len(rev) >= 40 {
		return rev[:7] + rev[40:]
	}
	return rev
}
