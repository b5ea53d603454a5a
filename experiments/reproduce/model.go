package reproduce

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/plots"
	"github.com/softshape-go/softshape/plots/modelplots"
	"github.com/softshape-go/softshape/plots/tsne"
	"github.com/softshape-go/softshape/reproduction"
	"github.com/softshape-go/softshape/softshape"
)

// ModelSettings are the settings of the committed fold-1 models
// (reproduction.ModelSettings): a notebook that passes them to TrainModel
// reloads those models in full mode, training nothing.
const ModelSettings = reproduction.ModelSettings

// TrainedFold is one trained fold: its data, configuration, result and selected
// model, kept on disk so that later notebook cells (each a new program under
// GoNB) reload it instead of training again.
type TrainedFold struct {
	Params  Params
	Dataset *data.Dataset
	// Fold is 1-based.
	Fold   int
	Seed   int64
	Config softshape.Config
	// Result holds the test accuracy and the per-epoch history.
	Result *softshape.FoldResult
	// Trained is the selected model.
	Trained *softshape.Trained
	// Data is the fold, imputed and z-normalised as the model saw it.
	Data *data.FoldData
	// Train, Val and Test are the fold's sets, raw (softshape.FoldSets), for
	// softshape.Fit and the Classifier's methods.
	Train, Val, Test *data.Dataset
	// Options are the run options the fold trains with, but for the
	// number of folds (sweep.NumFolds), which Fit does not take.
	Options softshape.RunOptions
	// Classifier is the selected model as a softshape.Classifier (of the
	// raw series; nil with Trained).
	Classifier *softshape.Classifier
	// Dir holds the checkpoint and result.json.
	Dir string
	// Cached says the model was loaded from Dir rather than trained now.
	Cached bool
	// NotTrained, when not empty, says which model is missing: full mode
	// without Train (Params.TrainingOff) found no saved model in Dir.
	// Result and Trained are then nil; Summary says so, ShowSummary shows
	// nothing, the other Show methods show one line each (what is missing
	// and how to make it), and TestSummary and the Figure methods return an
	// error.
	NotTrained string
}

// LoadDataset loads a dataset by name from p.DataRoot (data.CBFName is
// generated; a UCR name missing locally is downloaded unless p.Offline).
func LoadDataset(p Params, name string) (*data.Dataset, error) {
	p, err := p.Resolve()
	if err != nil {
		return nil, err
	}
	return data.LoadOrDownload(p.DataRoot, name, data.LoadOptions{Offline: p.Offline})
}

// ModelConfig is the configuration TrainModel uses: the (quick) base
// configuration, p.Settings, then settings.
func ModelConfig(p Params, settings string) (softshape.Config, error) {
	return sweep.BaseConfig(p.Quick, joinSettings(p.Settings, settings))
}

// TrainModel trains fold (1-based) of the named dataset with ModelConfig, or
// reloads it when the same dataset, fold, seed and configuration were trained
// before (under reproduction.ModelsDir(Results)). With live set and inside a
// notebook, the training curves are redrawn in place every few epochs. In
// full mode without Train (Params.TrainingOff) it trains nothing: a model not
// saved before comes back with NotTrained set; with no results folder given it
// reloads the committed models (reproduction.ModelsDir of the reproduction
// folder, trained with reproduction.ModelSettings).
func TrainModel(p Params, dataset string, fold int, settings string, live bool) (*TrainedFold, error) {
	m, err := foldModel(p, dataset, fold, settings, live)
	if err != nil || m.Trained != nil || m.NotTrained != "" {
		return m, err
	}
	opts := m.Options
	opts.NumFolds = sweep.NumFolds
	fr, tr, err := softshape.TrainFold(m.Dataset, m.Config, fold-1, opts)
	if err != nil {
		return nil, err
	}
	if m.Classifier, err = softshape.NewClassifier(tr, m.Dataset.ClassNames, m.Data.Fill); err != nil {
		return nil, err
	}
	m.Result, m.Trained = fr, tr
	return m, m.save(tr.Save)
}

// FitModel sets up fold 1 of the named dataset as TrainModel trains it, for
// softshape.Fit: its raw sets (Train, Val, Test: softshape.FoldSets),
// ModelConfig and the run options (Options, live training curves in a
// notebook), and reloads the model saved before, TrainModel's or LoadOrFit's,
// when there is one (Classifier). Fit on fold 1's sets with the run's seed
// is TrainModel's training, so LoadOrFit saves and reloads the same model
// under the same folder.
func FitModel(p Params, dataset, settings string) (*TrainedFold, error) {
	return foldModel(p, dataset, 1, settings, true)
}

// MustFitModel is FitModel that panics on error.
func MustFitModel(p Params, dataset, settings string) *TrainedFold {
	m, err := FitModel(p, dataset, settings)
	if err != nil {
		panic(err)
	}
	return m
}

// LoadOrFit returns the fold's classifier: the one saved before, or the one
// fit trains, e.g. softshape.Fit(m.Train, m.Val, m.Config, m.Options), which
// it saves, with its result (its test accuracy on m.Test), for the next
// cells (fit nil: an error); it shows the fold's Summary. In full mode without Train (NotTrained) it
// trains nothing: it shows one line saying which model is missing and how to
// train it, and returns nil.
func (m *TrainedFold) LoadOrFit(fit func() (*softshape.Classifier, error)) (*softshape.Classifier, error) {
	if m.Classifier != nil {
		m.ShowSummary()
		return m.Classifier, nil
	}
	if m.NotTrained != "" {
		m.showNotTrained(markMarkdown)
		return nil, nil
	}
	if fit == nil {
		return nil, fmt.Errorf("%s fold %d: no saved model under %s, and nothing to fit it with", m.Dataset.Name, m.Fold, repoPath(m.Dir))
	}
	clf, err := fit()
	if err != nil {
		return nil, err
	}
	fr := *clf.Result
	fr.Fold = m.Fold - 1
	if fr.TestAcc, _, err = clf.Evaluate(m.Test.Series, m.Test.LabelNames()); err != nil {
		return nil, err
	}
	m.Classifier, m.Trained, m.Result = clf, clf.Trained(), &fr
	if err := m.save(clf.Save); err != nil {
		return nil, err
	}
	m.ShowSummary()
	return clf, nil
}

// MustClassifier returns the fold's classifier, which an earlier cell saved
// (LoadOrFit) and FitModel reloaded. Without one (full mode without Train,
// or no earlier fit) it shows one line saying which model is missing and
// how to make it, then ends the program, a notebook cell, with exit status
// 0, so that the cells after the fit need no check of their own.
func (m *TrainedFold) MustClassifier() *softshape.Classifier {
	if m.Classifier != nil {
		return m.Classifier
	}
	if m.NotTrained == "" {
		m.NotTrained = fmt.Sprintf("no saved model of **%s** fold %d (seed %d) under `%s`: run the cell that fits it first", m.Dataset.Name, m.Fold, m.Seed, repoPath(m.Dir))
	}
	m.showNotTrained(markMarkdown)
	os.Exit(0)
	return nil
}

// MustLoadOrFit is LoadOrFit that panics on error and, where LoadOrFit
// trains nothing (NotTrained) and has shown the line saying so, ends the
// program, a notebook cell, with exit status 0 (as MustClassifier).
func (m *TrainedFold) MustLoadOrFit(fit func() (*softshape.Classifier, error)) *softshape.Classifier {
	clf, err := m.LoadOrFit(fit)
	if err != nil {
		panic(err)
	}
	if clf == nil {
		os.Exit(0)
	}
	return clf
}

// foldModel sets up fold (1-based) of the named dataset as TrainModel trains
// it (the folder, the fold's data and sets, the configuration, the run
// options, with live training curves when live) and loads the model saved
// there, if any; without one, in full mode without Train, NotTrained says
// which is missing.
func foldModel(p Params, dataset string, fold int, settings string, live bool) (*TrainedFold, error) {
	p, err := p.Resolve()
	if err != nil {
		return nil, err
	}
	if fold < 1 || fold > sweep.NumFolds {
		return nil, fmt.Errorf("fold %d: folds are 1..%d", fold, sweep.NumFolds)
	}
	cfg, err := ModelConfig(p, settings)
	if err != nil {
		return nil, err
	}
	ds, err := LoadDataset(p, dataset)
	if err != nil {
		return nil, err
	}
	m := &TrainedFold{Params: p, Dataset: ds, Fold: fold, Seed: p.Seeds[0], Config: cfg}
	root := p.Results
	if p.fullWithoutResults() {
		root = committedDir() // the committed models (reproduction.ModelsDir)
	}
	m.Dir = filepath.Join(reproduction.ModelsDir(root), sweep.Slug(dataset),
		fmt.Sprintf("fold%d-seed%d-%s", fold, m.Seed, sweep.CellHash(cfg, p.Quick, dataset)))
	backend, err := backends.New(p.BackendName)
	if err != nil {
		return nil, err
	}
	m.Options = softshape.RunOptions{Backend: backend, Seed: m.Seed, RefShapeLen: softshape.RefShapeLength(ds.Name, ds.Length)}
	folds := softshape.RunOptions{Seed: m.Seed, NumFolds: sweep.NumFolds}
	if m.Data, err = softshape.PrepareFold(ds, folds, fold-1); err != nil {
		return nil, err
	}
	if m.Train, m.Val, m.Test, err = softshape.FoldSets(ds, folds, fold-1); err != nil {
		return nil, err
	}
	if live {
		m.Options.OnEpoch = liveCurves(m)
	}
	if b, err := os.ReadFile(filepath.Join(m.Dir, "result.json")); err == nil {
		var fr softshape.FoldResult
		if json.Unmarshal(b, &fr) == nil {
			if tr, err := softshape.LoadCheckpoint(m.checkpointDir(), backend); err == nil {
				if m.Classifier, err = softshape.NewClassifier(tr, ds.ClassNames, m.Data.Fill); err != nil {
					return nil, err
				}
				m.Classifier.Result = &fr
				m.Result, m.Trained, m.Cached = &fr, tr, true
				return m, nil
			}
		}
	}
	if p.TrainingOff() {
		m.NotTrained = fmt.Sprintf("no saved model of **%s** fold %d (seed %d) under `%s`", ds.Name, fold, m.Seed, repoPath(m.Dir))
	}
	return m, nil
}

// checkpointDir is the folder of the fold's saved model.
func (m *TrainedFold) checkpointDir() string { return filepath.Join(m.Dir, "checkpoint") }

// save writes the fold's model with saveModel (to checkpointDir) and its
// result (result.json), which foldModel reloads.
func (m *TrainedFold) save(saveModel func(dir string) error) error {
	if err := saveModel(m.checkpointDir()); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m.Result, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(m.Dir, "result.json"), b, 0o644)
}

// MustTrainModel is TrainModel that panics on error.
func MustTrainModel(p Params, dataset string, fold int, settings string, live bool) *TrainedFold {
	m, err := TrainModel(p, dataset, fold, settings, live)
	if err != nil {
		panic(err)
	}
	return m
}

// liveCurves returns an OnEpoch callback that redraws the training curves in
// place (notebook) or prints a line every few epochs.
func liveCurves(m *TrainedFold) func(softshape.EpochStats) {
	id := ""
	var c plots.Curves
	c.WarmUp = m.Config.WarmUpEpochs
	last := time.Time{}
	return func(e softshape.EpochStats) {
		c.Epoch = append(c.Epoch, float64(e.Epoch+1))
		c.TrainLoss, c.ValLoss = append(c.TrainLoss, e.TrainLoss), append(c.ValLoss, e.ValLoss)
		c.TrainAcc, c.ValAcc = append(c.TrainAcc, e.TrainAcc), append(c.ValAcc, e.ValAcc)
		done := e.Epoch+1 == e.Epochs
		if !done && time.Since(last) < 2*time.Second {
			return
		}
		last = time.Now()
		line := fmt.Sprintf("epoch %d/%d (%s): train loss %.3f acc %.3f, val loss %.3f acc %.3f, %.1f s",
			e.Epoch+1, e.Epochs, e.Phase, e.TrainLoss, e.TrainAcc, e.ValLoss, e.ValAcc, e.Elapsed.Seconds())
		if !gonbui.IsNotebook {
			fmt.Println(line)
			return
		}
		html := "<p>" + line + "</p>"
		if id == "" {
			id = gonbui.UniqueId()
		}
		if done { // the final curves are drawn by ShowCurves
			updateHTML("", id, html)
			return
		}
		if len(c.Epoch) >= 2 {
			f, err := plots.TrainingCurves(m.Meta("Training curves (live)"), c)
			if err == nil {
				if png, err := f.PNG(f.Size()); err == nil {
					html += imgHTML(png, 800)
				}
			}
		}
		updateHTML("", id, html)
	}
}

// Meta is the labelling of a figure of the fold titled title: the dataset,
// fold, seed and schedule, and the quick-mode mark.
func (m *TrainedFold) Meta(title string) plots.Meta {
	return plots.Meta{Title: title, Dataset: m.Dataset.Name,
		Config: fmt.Sprintf("fold %d, seed %d, %d epochs", m.Fold, m.Seed, m.Config.Epochs), Quick: m.Params.Quick}
}

// Summary is a Markdown paragraph with the fold's outcome.
func (m *TrainedFold) Summary() string {
	if m.NotTrained != "" {
		return fmt.Sprintf("**%s**, fold %d (seed %d): no saved model (full mode trains nothing unless `p.Train = true`).", m.Dataset.Name, m.Fold, m.Seed)
	}
	fr := m.Result
	how := "trained now"
	if m.Cached {
		how = "reloaded from " + repoPath(m.Dir)
	}
	s := fmt.Sprintf("**%s**, fold %d (seed %d): test accuracy **%.4f** (model selected at epoch %d of %d, %s phase; %d parameters; batch %d; %.1f s). %s.",
		m.Dataset.Name, m.Fold, m.Seed, fr.TestAcc, fr.BestEpoch+1, fr.EpochsRun, fr.SelectedPhase, fr.Params, fr.BatchSize, fr.Wall.Seconds(), how)
	if m.Params.Quick {
		s += "\n\n*" + sweep.QuickLabel + ".*"
	}
	return s
}

// showNotTrained shows, marked missingMark(mark), the one line a cell shows
// of a fold not trained: which model is missing (NotTrained), and how to
// train it, at what cost.
func (m *TrainedFold) showNotTrained(mark string) {
	markdownAs(missingMark(mark), fmt.Sprintf("*Not run: %s, and full mode trains nothing unless asked. Set `p.Train = true` in the parameter cell (or %s=1) "+
		"to train it at the full schedule (%d epochs, %d warm-up; minutes to hours on a CPU) and save it there for the cells below.*",
		m.NotTrained, EnvTrain, m.Config.Epochs, m.Config.WarmUpEpochs))
}

// ShowSummary shows Summary for a trained or reloaded fold. A fold not
// trained (NotTrained) shows nothing here: the Show method of the output a
// cell wants from it (ShowCurves, ShowAttention, ShowTSNE, ShowTestSummary)
// says in one line which model is missing, where it would be saved and how
// to train it, so that a cell shows one line per fold, not two.
func (m *TrainedFold) ShowSummary() {
	if m.NotTrained != "" {
		return
	}
	Markdown(m.Summary())
}

// TestSummary evaluates the selected model on the fold's test split and
// describes the outcome in one Markdown sentence.
func (m *TrainedFold) TestSummary() (string, error) {
	if err := m.needTrained(); err != nil {
		return "", err
	}
	acc, ce, err := m.Trained.Evaluate(m.Data.TestX, m.Data.TestY)
	if err != nil {
		return "", fmt.Errorf("%s fold %d: evaluate the test split: %w", m.Dataset.Name, m.Fold, err)
	}
	return fmt.Sprintf("Test split of fold %d: **%d series, accuracy %.4f**, mean cross-entropy %.4f (selected in the %s phase).",
		m.Fold, len(m.Data.TestY), acc, ce, m.Result.SelectedPhase), nil
}

// ShowTestSummary shows TestSummary, or in full mode without a saved model
// the one line saying what it would train.
func (m *TrainedFold) ShowTestSummary() {
	if m.NotTrained != "" {
		m.showNotTrained(markMarkdown)
		return
	}
	s, err := m.TestSummary()
	if err != nil {
		panic(err)
	}
	Markdown(s)
}

// needTrained is the error of a figure or evaluation asked of a fold that
// was not trained (NotTrained).
func (m *TrainedFold) needTrained() error {
	if m.NotTrained != "" {
		return fmt.Errorf("%s fold %d: no saved model under %s (full mode trains nothing unless p.Train = true)", m.Dataset.Name, m.Fold, repoPath(m.Dir))
	}
	return nil
}

// CurvesFigure draws the fold's training curves.
func (m *TrainedFold) CurvesFigure() (*plots.Figure, error) {
	if err := m.needTrained(); err != nil {
		return nil, err
	}
	return modelplots.TrainingCurves(m.Meta("Training curves"), m.Result, m.Config.WarmUpEpochs)
}

// AttentionFigures draws the MIL attention map of the first test series of
// each class (at most maxClasses classes).
func (m *TrainedFold) AttentionFigures(maxClasses int) ([]Named, error) {
	if err := m.needTrained(); err != nil {
		return nil, err
	}
	in, err := m.Trained.Interpret(m.Data.TestX)
	if err != nil {
		return nil, fmt.Errorf("attention maps: %w", err)
	}
	var out []Named
	for c := 0; c < m.Dataset.NumClasses() && len(out) < maxClasses; c++ {
		i, err := modelplots.FirstOfClass(m.Data.TestY, c)
		if err != nil {
			continue
		}
		meta := m.Meta(fmt.Sprintf("MIL attention, test series %d (class %s)", i, m.Dataset.ClassNames[c]))
		f, err := modelplots.AttentionOf(meta, in, m.Data.TestX, i)
		out = append(out, Named{Name: fmt.Sprintf("%s_attention_class%d", sweep.Slug(m.Dataset.Name), c), Figure: f, Err: err})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no test series")
	}
	return out, nil
}

// ShowAttention shows AttentionFigures.
func (m *TrainedFold) ShowAttention(maxClasses int) {
	if m.NotTrained != "" {
		m.showNotTrained(markFigure + " " + sweep.Slug(m.Dataset.Name) + "_attention_class0")
		return
	}
	figs, err := m.AttentionFigures(maxClasses)
	if err != nil {
		Markdownf("*attention maps: %v*", err)
	}
	for _, n := range figs {
		ShowFigure(m.Params.FigureDir(), n.Name, n.Figure, n.Err)
	}
}

// TSNEFigure embeds the stage embeddings of up to maxSeries series of the
// fold (test, then validation and training series) with t-SNE.
func (m *TrainedFold) TSNEFigure(maxSeries int) (*plots.Figure, error) {
	if err := m.needTrained(); err != nil {
		return nil, err
	}
	var x [][]float32
	var y []int
	for _, part := range []struct {
		x [][]float32
		y []int
	}{{m.Data.TestX, m.Data.TestY}, {m.Data.ValX, m.Data.ValY}, {m.Data.TrainX, m.Data.TrainY}} {
		for i := range part.x {
			if len(x) < maxSeries {
				x, y = append(x, part.x[i]), append(y, part.y[i])
			}
		}
	}
	return modelplots.StageTSNE(m.Meta("t-SNE of the embeddings at four stages"), m.Trained, x, y, m.Dataset.ClassNames,
		tsne.Options{Seed: m.Seed, Iterations: 500})
}

// TinySettings make a model small and short enough to retrain while a person
// moves a slider (a few seconds on two cores).
const TinySettings = "epochs=8;warmup_epochs=4;embed_dim=32;patience=0"

// PanelHTML is an HTML fragment with the fold's test accuracy and the MIL
// attention map of its first test series, for interactive panels.
func (m *TrainedFold) PanelHTML() string {
	s := fmt.Sprintf("<p><b>%s</b>: test accuracy <b>%.3f</b> (fold %d, %d epochs%s)</p>",
		m.Dataset.Name, m.Result.TestAcc, m.Fold, m.Config.Epochs, map[bool]string{true: ", reloaded", false: ""}[m.Cached])
	figs, err := m.AttentionFigures(1)
	if err != nil || figs[0].Err != nil {
		return s + fmt.Sprintf("<p>attention map: %v %v</p>", err, figs)
	}
	png, err := figs[0].Figure.PNG(figs[0].Figure.Size())
	if err != nil {
		return s + "<p>" + err.Error() + "</p>"
	}
	return s + imgHTML(png, 700)
}

// MustLoadDataset is LoadDataset that panics on error.
func MustLoadDataset(p Params, name string) *data.Dataset {
	ds, err := LoadDataset(p, name)
	if err != nil {
		panic(err)
	}
	return ds
}

// DatasetSummary is a Markdown paragraph describing ds.
func DatasetSummary(ds *data.Dataset) string {
	lo, hi := ds.LengthRange()
	missing, _ := ds.MissingCount()
	split := fmt.Sprintf("%d train + %d test in the archive's split; the protocol merges them", ds.NumTrain, ds.NumTest())
	if ds.NumTrain == 0 && ds.NumTest() == 0 { // generated (CBF): no archive split
		split = "generated; the protocol splits them"
	}
	s := fmt.Sprintf("**%s**: %d series (%s into 5 stratified folds of 60/20/20), length %d", ds.Name, len(ds.Series), split, ds.Length)
	if lo != hi {
		s += fmt.Sprintf(" (observed %d–%d)", lo, hi)
	}
	s += fmt.Sprintf(", %d classes", ds.NumClasses())
	counts := ds.ClassCounts()
	if len(counts) <= 10 {
		var parts []string
		for c, n := range counts {
			parts = append(parts, fmt.Sprintf("%s: %d", ds.ClassNames[c], n))
		}
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	if missing > 0 {
		s += fmt.Sprintf(", %d missing values", missing)
	}
	return s + "."
}

// PresentDatasets returns the names whose files are under p.DataRoot (the
// generated data.CBFName always is); when none is, it returns substitute.
func PresentDatasets(p Params, substitute string, names ...string) []string {
	p, _ = p.Resolve()
	var out []string
	for _, n := range names {
		if n == data.CBFName || data.Present(p.DataRoot, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 && substitute != "" {
		out = []string{substitute}
	}
	return out
}

// ShowCurves shows the fold's training curves.
func (m *TrainedFold) ShowCurves() {
	if m.NotTrained != "" {
		m.showNotTrained(markFigure + " " + sweep.Slug(m.Dataset.Name) + "_curves")
		return
	}
	f, err := m.CurvesFigure()
	ShowFigure(m.Params.FigureDir(), sweep.Slug(m.Dataset.Name)+"_curves", f, err)
}

// ShowTSNE shows TSNEFigure.
func (m *TrainedFold) ShowTSNE(maxSeries int) {
	if m.NotTrained != "" {
		m.showNotTrained(markFigure + " " + sweep.Slug(m.Dataset.Name) + "_tsne")
		return
	}
	f, err := m.TSNEFigure(maxSeries)
	ShowFigure(m.Params.FigureDir(), sweep.Slug(m.Dataset.Name)+"_tsne", f, err)
}
