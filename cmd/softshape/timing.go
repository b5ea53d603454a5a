package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/experiments/timing"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/hostinfo"
	"github.com/softshape-go/softshape/plots"
	"github.com/softshape-go/softshape/softshape"
)

// runTiming implements "softshape timing": training time per step and per
// epoch against the series length for several sparse ratios (paper Fig 3),
// and the parameter count and inference time per dataset (appendix table).
func runTiming(args []string, stdout io.Writer) error {
	fs := newFlagSet("timing", fmt.Sprintf("Usage: softshape timing [flags]\n\nTimes SoftShape training steps against the series length (paper Fig 3): series of\n"+
		"%s (or generated CBF) concatenated to each length, the dense (warm-up) phase and the sparse\nphase at each sparse ratio, "+
		"compile time reported apart. Prints the table and the linear fit of time\nagainst length, and writes the running-time figures and %s (every step,\nfor re-drawing). With -paired T, compares sparse ratios at one length instead,\nstep by step, and saves every round to -out as %s.\n\nFlags:\n", timing.BaseDataset, timing.ResultFile, timing.PairedFile), stdout)
	lengths := fs.String("lengths", "", fmt.Sprintf("comma-separated series lengths, multiples of %d (default quick: %s; \"full\": %d..%d)",
		timing.BaseLength, joinInts(timing.QuickLengths()), timing.BaseLength, slices.Max(timing.FullLengths())))
	ratios := fs.String("ratios", "0,50,90", "sparse ratios in percent (the fraction of shapes fused, sparse_ratio×100) timed in the sparse phase; \"\" for none")
	noDense := fs.Bool("no-dense", false, "leave out the dense (warm-up) phase")
	batch := fs.Int("batch", 16, "batch size")
	steps := fs.Int("steps", 3, "timed training steps per point (after one compile and one warm-up step)")
	backendName := fs.String("backend", "", backendHelp)
	dataRoot := fs.String("data", data.DefaultRoot(), "UCR folder searched for "+timing.BaseDataset+" (the generated CBF data is used when it is missing)")
	settings := addSettingsFlag(fs, "", "hyperparameters of the timed model, e.g. \"embed_dim=64;depth=3\"")
	out := fs.String("out", "timing", "folder for the figures, timing.csv and timing.md; \"\" writes no files")
	redraw := fs.String("redraw", "", "measure nothing: redraw the figures of the measurement saved in this folder (its "+timing.ResultFile+"), into it or -out")
	figures := fs.String("figures", defaultFigureFormats, "comma-separated file formats of the figures: "+strings.Join(plots.Formats(), ", "))
	dpi := fs.Int("dpi", plots.FileDPI, "PNG resolution of the figures in dots per inch")
	format := fs.String("format", "markdown", "table printed on stdout: markdown or csv")
	params := fs.Bool("params", true, "also measure parameters and inference time on "+strings.Join(timing.ParamsDatasets(), " and "))
	seed := fs.Int64("seed", 42, "seed of the weights and of the generated data")
	paired := fs.Int("paired", 0, "instead of the length sweep: at this series length, alternate training steps of the first of -ratios and each other one, and compare them round by round (median cost ratio, wins, one-sided Wilcoxon p)")
	rounds := fs.Int("rounds", 15, "rounds of -paired")
	maxRatio := fs.String("max-ratio", "", "with -paired: fail when a sparse ratio's median round costs more than this multiple of the first ratio's, as RATIO=MAX in percent, e.g. \"90=0.85\" (90% at most 0.85× of 0%); several comma-separated")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "markdown" && *format != "csv" {
		return fmt.Errorf("-format %q: want markdown or csv", *format)
	}
	if *batch < 1 || *steps < 1 {
		return fmt.Errorf("-batch %d, -steps %d: both must be ≥ 1", *batch, *steps)
	}
	if *paired < 0 {
		return fmt.Errorf("-paired %d: want a positive series length (a multiple of %d)", *paired, timing.BaseLength)
	}
	if *paired != 0 && *rounds < 1 {
		return fmt.Errorf("-rounds %d: must be ≥ 1", *rounds)
	}
	if st, err := os.Stat(*out); *out != "" && *paired == 0 && err == nil && !st.IsDir() {
		return fmt.Errorf("-out %s is a file, not a folder for the figures and tables", *out)
	}
	if *maxRatio != "" && *paired == 0 {
		return fmt.Errorf("-max-ratio %q applies to -paired only", *maxRatio)
	}
	formats, err := figureFormats("-figures", *figures)
	if err != nil {
		return err
	}
	if err := checkDPI(*dpi); err != nil {
		return err
	}
	if err := checkDataRoot(fs, *dataRoot); err != nil {
		return err
	}
	if *redraw != "" {
		dir := *redraw
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "out" {
				dir = *out
			}
		})
		return redrawTiming(stdout, *redraw, dir, formats, *dpi)
	}
	opts := timing.Options{Batch: *batch, Steps: *steps, NoDense: *noDense, DataRoot: *dataRoot, Seed: *seed, Log: os.Stderr}
	switch strings.TrimSpace(*lengths) {
	case "":
		opts.Lengths = timing.QuickLengths()
	case "full":
		opts.Lengths = timing.FullLengths()
	default:
		if opts.Lengths, err = parseInts(*lengths); err != nil {
			return fmt.Errorf("-lengths: %w", err)
		}
	}
	quick := slices.Max(opts.Lengths) < slices.Max(timing.FullLengths())
	if opts.Ratios, err = parsePercents(*ratios); err != nil {
		return fmt.Errorf("-ratios: %w", err)
	}
	bounds, err := parseMaxRatios(*maxRatio, opts.Ratios)
	if err != nil {
		return fmt.Errorf("-max-ratio %q: %w", *maxRatio, err)
	}
	cfg, err := softshape.DefaultConfig().WithSettings(*settings)
	if err != nil {
		return err
	}
	if names, _ := softshape.SettingNames(*settings); slices.Contains(names, softshape.ParamSparseRatio) {
		return fmt.Errorf("-set %s: timing takes the sparse ratios from -ratios (percent), which would override it; leave it out of -set", softshape.ParamSparseRatio)
	}
	opts.Config = &cfg
	if opts.Backend, err = backends.New(cliBackend(*backendName)); err != nil {
		return err
	}
	// Status lines go to stderr when stdout carries CSV.
	status := stdout
	if *format == "csv" {
		status = os.Stderr
	}
	fmt.Fprintf(status, "backend: %s\n", backends.Description(opts.Backend))
	if *paired != 0 {
		return runPaired(stdout, status, opts, *paired, *rounds, bounds, *out)
	}
	res, err := timing.Measure(opts)
	if err != nil {
		return err
	}
	var table bytes.Buffer
	if *format == "csv" {
		err = res.CSV(&table)
	} else {
		if quick {
			fmt.Fprintf(&table, "**%s** (lengths up to %d; -lengths full runs %d..%d)\n\n", plots.QuickModeNote, slices.Max(opts.Lengths),
				timing.BaseLength, slices.Max(timing.FullLengths()))
		}
		err = res.Markdown(&table)
	}
	if err != nil {
		return err
	}
	var paramsRows []timing.ParamsRow
	if *params {
		if paramsRows, err = timing.ParamsInference(timing.ParamsDatasets(), *dataRoot, cfg, opts.Backend, 3, *seed); err != nil {
			return err
		}
		table.WriteString("\n")
		if *format == "csv" {
			err = timing.ParamsCSV(&table, paramsRows, res.Backend)
		} else {
			err = timing.ParamsMarkdown(&table, paramsRows, res.Backend)
		}
		if err != nil {
			return err
		}
	}
	if _, err := stdout.Write(table.Bytes()); err != nil {
		return err
	}
	if *out == "" {
		return nil
	}
	paths, err := writeTimingFiles(*out, res, paramsRows, quick, formats, *dpi)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintf(status, "wrote %s\n", p)
	}
	return nil
}

// redrawTiming implements "softshape timing -redraw": the figures of the
// measurement saved under from, drawn again into dir.
func redrawTiming(stdout io.Writer, from, dir string, formats []string, dpi int) error {
	res, err := timing.Load(filepath.Join(from, timing.ResultFile))
	if err != nil {
		return fmt.Errorf("-redraw: %w", err)
	}
	quick := slices.Max(res.Lengths) < slices.Max(timing.FullLengths())
	paths, err := saveTimingFigures(dir, res, quick, formats, dpi)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	return nil
}

// runPaired implements "softshape timing -paired T": opts.Ratios[0] against
// each other ratio at length T, printed as Markdown and, with a folder out,
// saved there (timing.PairedFile, every round), then the -max-ratio bounds
// checked (and reported) against the median rounds.
func runPaired(stdout, status io.Writer, opts timing.Options, T, rounds int, bounds []maxRatioBound, out string) error {
	pairs, err := timing.CompareToBaseline(opts, T, opts.Ratios, rounds)
	if err != nil {
		return fmt.Errorf("-paired %d: %w", T, err)
	}
	for _, p := range pairs {
		fmt.Fprintln(stdout)
		if err := p.Markdown(stdout); err != nil {
			return err
		}
	}
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return fmt.Errorf("-out: %w", err)
		}
		path := filepath.Join(out, timing.PairedFile)
		if err := timing.SavePaired(path, hostinfo.CPU(), opts.Batch, pairs); err != nil {
			return err
		}
		fmt.Fprintf(status, "wrote %s\n", path)
	}
	return checkMaxRatios(stdout, pairs, bounds)
}

// maxRatioBound is one -max-ratio entry: the median round of Ratio may cost
// at most Max times the baseline's.
type maxRatioBound struct {
	Ratio, Max float64
}

// parseMaxRatios reads "90=0.85,50=1.05" (sparse ratio in percent = the
// largest median cost ratio against ratios[0]); each ratio must be one of
// ratios[1:].
func parseMaxRatios(s string, ratios []float64) ([]maxRatioBound, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []maxRatioBound
	for _, part := range strings.Split(s, ",") {
		r, m, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want RATIO=MAX, e.g. 90=0.85", part)
		}
		rs, err := parsePercents(r)
		if err != nil {
			return nil, err
		}
		if len(ratios) < 2 || !slices.Contains(ratios[1:], rs[0]) {
			return nil, fmt.Errorf("%s%% is not one of the compared -ratios after the first", strings.TrimSpace(r))
		}
		mv, err := strconv.ParseFloat(strings.TrimSpace(m), 64)
		if err != nil || math.IsNaN(mv) || math.IsInf(mv, 0) || mv <= 0 {
			return nil, fmt.Errorf("%q: the bound must be a positive number", m)
		}
		out = append(out, maxRatioBound{Ratio: rs[0], Max: mv})
	}
	return out, nil
}

// checkMaxRatios prints one line per bound, within or above it, and returns
// an error naming every bound exceeded.
func checkMaxRatios(w io.Writer, pairs []*timing.Paired, bounds []maxRatioBound) error {
	var failed []string
	for _, b := range bounds {
		for _, p := range pairs {
			if p.RatioB != b.Ratio {
				continue
			}
			verdict := "within the bound"
			if !(p.MedianRatio <= b.Max) {
				verdict = "ABOVE the bound"
				failed = append(failed, fmt.Sprintf("%.0f%% costs %.3f× %.0f%% (median of %d rounds), above %.2f×",
					p.RatioB*100, p.MedianRatio, p.RatioA*100, len(p.Ratios), b.Max))
			}
			fmt.Fprintf(w, "\n-max-ratio: %.0f%% at most %.2f× %.0f%% at T = %d: median round %.3f×, %s.\n",
				p.RatioB*100, b.Max, p.RatioA*100, p.Length, p.MedianRatio, verdict)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("-max-ratio: %s", strings.Join(failed, "; "))
	}
	return nil
}

// writeTimingFiles writes the figures (per epoch and per step, in formats,
// PNG at dpi), timing.csv and timing.md into dir and returns their paths.
func writeTimingFiles(dir string, res *timing.Result, paramsRows []timing.ParamsRow, quick bool, formats []string, dpi int) ([]string, error) {
	paths, err := saveTimingFigures(dir, res, quick, formats, dpi)
	if err != nil {
		return nil, err
	}
	var csvBuf, mdBuf bytes.Buffer
	if err := res.CSV(&csvBuf); err != nil {
		return nil, err
	}
	if quick {
		fmt.Fprintf(&mdBuf, "**%s**\n\n", plots.QuickModeNote)
	}
	if err := res.Markdown(&mdBuf); err != nil {
		return nil, err
	}
	if len(paramsRows) > 0 {
		mdBuf.WriteString("\n")
		if err := timing.ParamsMarkdown(&mdBuf, paramsRows, res.Backend); err != nil {
			return nil, err
		}
	}
	for name, b := range map[string][]byte{"timing.csv": csvBuf.Bytes(), "timing.md": mdBuf.Bytes()} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	p := filepath.Join(dir, timing.ResultFile)
	if err := res.Save(p); err != nil {
		return nil, err
	}
	paths = append(paths, p)
	slices.Sort(paths)
	return paths, nil
}

// saveTimingFigures draws res's running-time figures, per epoch
// (running_time) and per step (running_time_step), into dir in formats.
func saveTimingFigures(dir string, res *timing.Result, quick bool, formats []string, dpi int) ([]string, error) {
	var paths []string
	for _, perEpoch := range []bool{true, false} {
		name := "running_time_step"
		if perEpoch {
			name = "running_time"
		}
		fig, err := res.Figure(perEpoch, quick)
		if err != nil {
			return nil, err
		}
		fig.SetDPI(dpi)
		p, err := fig.SaveFormats(filepath.Join(dir, name), formats)
		if err != nil {
			return nil, err
		}
		paths = append(paths, p...)
	}
	return paths, nil
}

// parseInts reads "166,830,1660".
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// parsePercents reads "0,50,90" (percent, optional "%") into fractions.
func parsePercents(s string) ([]float64, error) {
	out := []float64{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(f), "%"), 64)
		if err != nil || math.IsNaN(v) || v < 0 || v >= 100 {
			return nil, fmt.Errorf("%q: want a percentage in [0, 100)", f)
		}
		out = append(out, v/100)
	}
	return out, nil
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}
