package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/softshape-go/softshape/ablations"
	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/experiments/pipeline"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/tablefigures"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/checkpointdir"
	"github.com/softshape-go/softshape/plots"
	"github.com/softshape-go/softshape/plots/modelplots"
	"github.com/softshape-go/softshape/plots/tsne"
	"github.com/softshape-go/softshape/softshape"
)

// plotKinds are the sub-commands of "softshape plot".
var plotKinds = []struct{ name, summary string }{
	{"sweep", "accuracy vs the swept value of a table (e.g. -table sparse_ratio), paper values dashed"},
	{"ranks", "average rank per column of a table, ours beside the paper's"},
	{"cd", "critical-difference diagram of a table's columns (Wilcoxon–Holm cliques)"},
	{"curves", "training curves: from a checkpoint saved by plot curves -save, or by training one fold now"},
	{"attention", "MIL attention map of a test series of class -class, from a checkpoint"},
	{"tsne", "t-SNE of the embeddings at the four stages, from a checkpoint"},
}

// runPlot implements "softshape plot KIND": figures (PNG, SVG, PDF) from a
// results folder or from checkpoints.
func runPlot(args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(stdout, "Usage: softshape plot KIND [flags]\n\nWrites figures as PNG and SVG (-format png,svg,pdf; PNG at -dpi). Kinds:\n")
		for _, k := range plotKinds {
			fmt.Fprintf(stdout, "  %-10s %s\n", k.name, k.summary)
		}
		fmt.Fprintf(stdout, "\nRun 'softshape plot KIND -h' for the flags of one kind.\n")
		if len(args) == 0 {
			return fmt.Errorf("plot needs a kind: one of %s", plotKindNames())
		}
		return nil
	}
	switch args[0] {
	case "sweep", "ranks", "cd":
		return plotTable(args[0], args[1:], stdout)
	case "curves":
		return plotCurves(args[1:], stdout)
	case "attention", "tsne":
		return plotModel(args[0], args[1:], stdout)
	}
	return fmt.Errorf("unknown plot kind %q: want one of %s", args[0], plotKindNames())
}

func plotKindNames() string {
	names := make([]string, len(plotKinds))
	for i, k := range plotKinds {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}

// figFlags are the output flags every plot kind has.
type figFlags struct {
	out    *string
	dpi    *int
	name   *string
	format *string
}

// defaultFigureFormats are the files a figure is written as by default.
const defaultFigureFormats = "png,svg"

func addFigFlags(fs *flag.FlagSet) figFlags {
	return figFlags{
		out:    fs.String("out", "figures", "output folder"),
		dpi:    fs.Int("dpi", plots.FileDPI, "PNG resolution in dots per inch (a 7.5 in wide figure at 150 dpi is 1125 pixels wide)"),
		name:   fs.String("name", "", "file name without extension (default: from the kind and its inputs)"),
		format: fs.String("format", defaultFigureFormats, "comma-separated file formats: "+strings.Join(plots.Formats(), ", ")+" (svg and pdf are vector formats, for papers)"),
	}
}

// check validates -format and -dpi, before any work is done.
func (f figFlags) check() error {
	if _, err := figureFormats("-format", *f.format); err != nil {
		return err
	}
	return checkDPI(*f.dpi)
}

// figureFormats parses a flag's list of figure formats; the error names the
// flag.
func figureFormats(flagName, value string) ([]string, error) {
	formats, err := plots.ParseFormats(value)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", flagName, value, err)
	}
	return formats, nil
}

// checkDPI refuses a -dpi below 1.
func checkDPI(dpi int) error {
	if dpi < 1 {
		return fmt.Errorf("-dpi %d: want a positive resolution in dots per inch (default %d)", dpi, plots.FileDPI)
	}
	return nil
}

// write saves fig in every -format under the output folder and prints its
// title, its caption and the paths.
func (f figFlags) write(stdout io.Writer, fig *plots.Figure, defaultName string) error {
	name := *f.name
	if name == "" {
		name = defaultName
	}
	formats, err := figureFormats("-format", *f.format)
	if err != nil {
		return err
	}
	fig.SetDPI(*f.dpi)
	paths, err := fig.SaveFormats(filepath.Join(*f.out, fileSafe(name)), formats)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n", fig.Title())
	if c := fig.Caption(); c != "" {
		fmt.Fprintf(stdout, "%s\n", c)
	}
	for _, p := range paths {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	return nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileSafe turns a name into a file name.
func fileSafe(s string) string { return strings.Trim(unsafeChars.ReplaceAllString(s, "_"), "_") }

func newPlotFlags(kind, usage string, stdout io.Writer) *flag.FlagSet {
	return newFlagSet("plot "+kind, fmt.Sprintf("Usage: softshape plot %s [flags]\n\n%s\n\nFlags:\n", kind, usage), stdout)
}

// parseFigFlags parses the flags of a plot command (parseFlags) and checks
// its figure flags ff.
func parseFigFlags(fs *flag.FlagSet, ff figFlags, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return ff.check()
}

// plotTable implements the figures built from a results folder.
func plotTable(kind string, args []string, stdout io.Writer) error {
	usage := map[string]string{
		"sweep": "Accuracy against the swept value of a table (one line per dataset, their average thick), the paper's values dashed;\na numeric axis where the columns name numbers (50%, k=2), else the column names; columns without an order\n(an ablation's variants) as markers and dashes, no lines.",
		"ranks": "Average rank (ties get the best rank, as the paper) of each column of a table over the datasets of our summary,\nbeside the paper's average rank over the same datasets (for the appendix studies, the ranks it prints).",
		"cd": fmt.Sprintf("Critical-difference diagram: average ranks (ties averaged) and the cliques of columns with no significant\n"+
			"pairwise difference (two-sided Wilcoxon signed-rank, Holm-corrected at -alpha); needs %d complete datasets.", tablefigures.MinCDDatasets),
	}[kind]
	fs := newPlotFlags(kind, usage, stdout)
	ff := addFigFlags(fs)
	table := fs.String("table", "", "paper table: "+strings.Join(ablations.TableNames(), ", "))
	results := fs.String("results", sweep.DefaultRoot, "results folder written by softshape sweep")
	quick := fs.Bool("quick", false, "the quick-mode sweeps (labelled "+sweep.QuickLabel+")")
	grid := fs.String("grid", "", "use only this grid id when several sweeps of the table disagree")
	alpha := fs.Float64("alpha", tablefigures.DefaultAlpha, "significance level of the cliques (cd; the paper's 0.05)")
	if err := parseFigFlags(fs, ff, args); err != nil {
		return err
	}
	if *table == "" {
		return fmt.Errorf("-table is required: one of %s", strings.Join(ablations.TableNames(), ", "))
	}
	_, t, err := pipeline.Stored(*results, *table, tables.Options{Quick: *quick, Grid: *grid})
	if err != nil {
		return err
	}
	fig, err := tablefigures.Draw(tablefigures.Kind(kind), t, *alpha)
	if err != nil {
		return fmt.Errorf("table %s: %w", *table, err)
	}
	return ff.write(stdout, fig, kind+"_"+*table)
}

// savedHistory is what plot curves -save writes beside a checkpoint.
type savedHistory struct {
	Dataset string                 `json:"dataset"`
	Fold    int                    `json:"fold"` // 1-based
	Seed    int64                  `json:"seed"`
	Config  string                 `json:"config"`
	Backend string                 `json:"backend"`
	History []softshape.EpochStats `json:"history"`
}

// saveHistories writes each fold's per-epoch history beside the checkpoint that
// softshape.Train saved in dir/fold-N (N the 1-based fold number,
// checkpointdir.FoldDir), so "plot curves -checkpoint dir -fold N" can
// draw it later.
func saveHistories(dir, dataset string, seed int64, backend string, res *softshape.Result) error {
	for _, fr := range res.Folds {
		h := savedHistory{Dataset: dataset, Fold: fr.Fold + 1, Seed: seed, Config: res.Config.String(), Backend: backend, History: fr.History}
		b, err := json.MarshalIndent(h, "", " ")
		if err != nil {
			return err
		}
		path := filepath.Join(checkpointdir.FoldDir(dir, fr.Fold), checkpointdir.HistoryFile)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return fmt.Errorf("saving the training history: %w", err)
		}
	}
	return nil
}

// plotCurves implements "plot curves".
func plotCurves(args []string, stdout io.Writer) error {
	fs := newPlotFlags("curves", "Training and validation loss and accuracy per epoch, the warm-up boundary dashed. With -checkpoint DIR\n"+
		"it reads DIR/"+checkpointdir.HistoryFile+" (written by -save); otherwise it trains one fold now (-dataset, -fold, -epochs, -warmup, -set)\n"+
		"and, with -save DIR, saves the selected model and its history there.", stdout)
	ff := addFigFlags(fs)
	ckpt := fs.String("checkpoint", "", "folder saved by plot curves -save, or by train -checkpoint (its subfolder fold-N for -fold N): plot its history without training")
	rf := addRunFlags(fs, execParts{})
	dataset := fs.String("dataset", data.CBFName, "dataset to train")
	fold := fs.Int("fold", 1, "fold to train (1-5)")
	seed := fs.Int64("seed", 42, "seed (folds, weights, batches)")
	schedule := addScheduleFlags(fs)
	settings := addSettingsFlag(fs, "", "hyperparameters, e.g. \"embed_dim=64\"")
	save := fs.String("save", "", "folder to save the trained model and its history (for later plot curves/attention/tsne -checkpoint)")
	if err := parseFigFlags(fs, ff, args); err != nil {
		return err
	}
	var h savedHistory
	if *ckpt != "" {
		dir, err := foldCheckpointDir(*ckpt, *fold)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(dir, checkpointdir.HistoryFile))
		if err != nil {
			return fmt.Errorf("checkpoint %s has no %s (saved by softshape train -checkpoint and plot curves -save): %w", dir, checkpointdir.HistoryFile, err)
		}
		if err := json.Unmarshal(b, &h); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, checkpointdir.HistoryFile), err)
		}
	} else {
		cfg, err := commandConfig("plot curves", *settings, schedule)
		if err != nil {
			return err
		}
		exec, err := rf.execution()
		if err != nil {
			return err
		}
		if err := checkDataRoot(fs, exec.DataRoot); err != nil {
			return err
		}
		if *fold < 1 || *fold > 5 {
			return fmt.Errorf("-fold %d: want 1..5", *fold)
		}
		if *save != "" {
			if err := checkpointdir.Check(*save); err != nil {
				return fmt.Errorf("-save: %w", err)
			}
		}
		ds, backend, err := openRun(exec, *dataset, *seed)
		if err != nil {
			return err
		}
		fr, trained, err := softshape.TrainFold(ds, cfg, *fold-1, softshape.RunOptions{Execution: exec, Backend: backend, Seed: *seed,
			RefShapeLen: softshape.RefShapeLength(ds.Name, ds.Length)})
		if err != nil {
			return err
		}
		h = savedHistory{Dataset: ds.Name, Fold: *fold, Seed: *seed, Config: cfg.String(), Backend: backend.Description(), History: fr.History}
		fmt.Fprintf(stdout, "fold %d: test accuracy %.4f (best epoch %d, %s phase)\n", *fold, fr.TestAcc, fr.BestEpoch, fr.SelectedPhase)
		if *save != "" {
			if err := trained.Save(*save); err != nil {
				return err
			}
			b, err := json.MarshalIndent(h, "", " ")
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(*save, checkpointdir.HistoryFile), b, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "saved the model and its history in %s\n", *save)
		}
	}
	if len(h.History) == 0 {
		return fmt.Errorf("no epoch history to plot")
	}
	cfg, err := softshape.DefaultConfig().WithSettings(h.Config)
	if err != nil {
		return err
	}
	fr := &softshape.FoldResult{Fold: h.Fold - 1, History: h.History}
	meta := plots.Meta{Title: "Training curves", Dataset: fmt.Sprintf("%s fold %d", h.Dataset, h.Fold),
		Config: configSummary(cfg) + fmt.Sprintf(", seed %d; %s", h.Seed, h.Backend), Quick: quickConfig(cfg)}
	fig, err := modelplots.TrainingCurves(meta, fr, cfg.WarmUpEpochs)
	if err != nil {
		return err
	}
	return ff.write(stdout, fig, fmt.Sprintf("curves_%s_fold%d", h.Dataset, h.Fold))
}

// configSummary names the hyperparameters that matter in a figure title.
func configSummary(c softshape.Config) string {
	return fmt.Sprintf("η=%g, k=%d, Ĉ=%s, L=%d, d=%d, %d epochs (%d warm-up)", c.SparseRatio, c.ExpertsK, c.NumExperts, c.Depth, c.EmbedDim, c.Epochs, c.WarmUpEpochs)
}

// quickConfig reports a schedule shorter than the paper's (500 epochs, 150
// warm-up): such figures carry the quick-mode label.
func quickConfig(c softshape.Config) bool {
	d := softshape.DefaultConfig()
	return c.Epochs < d.Epochs || c.WarmUpEpochs < d.WarmUpEpochs
}

// plotModel implements "plot attention" and "plot tsne" from a checkpoint.
func plotModel(kind string, args []string, stdout io.Writer) error {
	usage := map[string]string{
		"attention": "MIL attention map (paper Figs 4 and 9) of one test series of class -class: the series coloured by the\nattention score of the shapes covering it, the per-shape scores below.",
		"tsne":      "t-SNE of the token-mean embeddings at the four stages (input shapes, intra-shape, inter-shape, output)\nof up to -n test series, coloured by class (paper Figs 5, 10-12).",
	}[kind]
	fs := newPlotFlags(kind, usage+"\nThe series are those of fold -fold's test split, normalised as in training (same -seed).", stdout)
	ff := addFigFlags(fs)
	ckpt := fs.String("checkpoint", "", "checkpoint folder (Trained.Save, plot curves -save, or train -checkpoint's fold-N); a train -checkpoint folder of fold-1 … fold-5 subfolders uses -fold's")
	rf := addRunFlags(fs, execParts{})
	dataset := fs.String("dataset", data.CBFName, "dataset the model was trained on")
	fold := fs.Int("fold", 1, "fold (1-5) whose test split is drawn")
	seed := fs.Int64("seed", 42, "seed of the folds (the training run's)")
	class := fs.String("class", "0", "attention: class id (0-based) or class name")
	index := fs.Int("index", 0, "attention: which series of the class in the test split (0 = first)")
	n := fs.Int("n", 300, "tsne: at most this many test series")
	perplexity := fs.Float64("perplexity", 0, "tsne: perplexity (0 = 30, lowered for few series)")
	if err := parseFigFlags(fs, ff, args); err != nil {
		return err
	}
	if *ckpt == "" {
		return fmt.Errorf("-checkpoint is required (save one with softshape train -checkpoint DIR or plot curves -save DIR)")
	}
	if *fold < 1 || *fold > 5 {
		return fmt.Errorf("-fold %d: want 1..5", *fold)
	}
	dir, err := foldCheckpointDir(*ckpt, *fold)
	if err != nil {
		return err
	}
	exec, err := rf.execution()
	if err != nil {
		return err
	}
	if err := checkDataRoot(fs, exec.DataRoot); err != nil {
		return err
	}
	backend, err := backends.New(exec.BackendName)
	if err != nil {
		return err
	}
	m, err := softshape.LoadCheckpoint(dir, backend)
	if err != nil {
		return err
	}
	ds, err := data.LoadOrDownload(exec.DataRoot, *dataset, data.LoadOptions{Seed: *seed, Offline: exec.Offline, Log: os.Stderr})
	if err != nil {
		return err
	}
	sh := m.Model().Shape
	if ds.Length != sh.SeriesLen || ds.NumClasses() != sh.NumClasses {
		return fmt.Errorf("dataset %s (length %d, %d classes) does not fit the model of %s (length %d, %d classes)",
			ds.Name, ds.Length, ds.NumClasses(), dir, sh.SeriesLen, sh.NumClasses)
	}
	splits, err := data.Folds(ds, 5, *seed)
	if err != nil {
		return err
	}
	fd, err := data.Prepare(ds, splits[*fold-1])
	if err != nil {
		return err
	}
	cfg := m.Model().Config
	meta := plots.Meta{Dataset: fmt.Sprintf("%s fold %d test", ds.Name, *fold),
		Config: fmt.Sprintf("%s, m=%d, q=%d; %s phase", configSummary(cfg), sh.ShapeLen, sh.Stride, m.Phase), Quick: quickConfig(cfg)}
	switch kind {
	case "attention":
		c, err := classID(ds, *class)
		if err != nil {
			return err
		}
		var rows []int
		for i, y := range fd.TestY {
			if y == c {
				rows = append(rows, i)
			}
		}
		if *index < 0 || *index >= len(rows) {
			return fmt.Errorf("-index %d: the test split of fold %d has %d series of class %s", *index, *fold, len(rows), ds.ClassNames[c])
		}
		r := rows[*index]
		meta.Title = "MIL attention"
		meta.Dataset = fmt.Sprintf("%s fold %d test #%d (class %s)", ds.Name, *fold, r, ds.ClassNames[c])
		fig, err := modelplots.Attention(meta, m, fd.TestX, r)
		if err != nil {
			return err
		}
		return ff.write(stdout, fig, fmt.Sprintf("attention_%s_class%s_%d", ds.Name, ds.ClassNames[c], *index))
	default:
		x, y := fd.TestX, fd.TestY
		if len(x) > *n {
			x, y = x[:*n], y[:*n]
		}
		meta.Title = "t-SNE of the stage embeddings"
		fig, err := modelplots.StageTSNE(meta, m, x, y, ds.ClassNames, tsne.Options{Perplexity: *perplexity, Seed: *seed})
		if err != nil {
			return err
		}
		return ff.write(stdout, fig, "tsne_"+ds.Name)
	}
}

// classID reads a class id ("0") or name ("bell").
func classID(ds *data.Dataset, s string) (int, error) {
	if i := slices.Index(ds.ClassNames, s); i >= 0 {
		return i, nil
	}
	if i, err := strconv.Atoi(s); err == nil && i >= 0 && i < ds.NumClasses() {
		return i, nil
	}
	names := slices.Clone(ds.ClassNames)
	sort.Strings(names)
	return 0, fmt.Errorf("-class %q: want an id 0..%d or a class name (%s)", s, ds.NumClasses()-1, strings.Join(names, ", "))
}

// foldCheckpointDir returns the checkpoint of fold (1-based) in the folder
// dir given to -checkpoint: dir/fold-<fold> for a train -checkpoint folder
// (checkpointdir.FoldDir), or dir itself, a single checkpoint (plot
// curves -save, Trained.Save). It fails on a folder of the older 0-based
// fold subfolders (fold-0 … fold-4), whose fold-<fold> is another fold, and
// on a train -checkpoint folder without that fold.
func foldCheckpointDir(dir string, fold int) (string, error) {
	if checkpointdir.LegacyFoldDirs(dir) {
		return "", legacyFoldDirsError("checkpoint", dir)
	}
	if sub := checkpointdir.FoldDir(dir, fold-1); isDir(sub) {
		return sub, nil
	}
	var folds []string
	if m, err := filepath.Glob(filepath.Join(dir, "fold-[0-9]*")); err == nil {
		for _, p := range m {
			if isDir(p) {
				folds = append(folds, filepath.Base(p))
			}
		}
	}
	if len(folds) > 0 {
		return "", fmt.Errorf("-checkpoint %s has no fold-%d for -fold %d (it holds %s): train that fold with softshape train -folds %d -checkpoint DIR",
			dir, fold, fold, strings.Join(folds, ", "), fold)
	}
	return dir, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
