package reproduce

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/experiments/pipeline"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/softshape"
)

// Environment variables of the notebooks: EnvVars lists them, with what
// each does.
const (
	EnvQuick        = "SOFTSHAPE_QUICK"         // "1"/"true": quick mode
	EnvResults      = "SOFTSHAPE_RESULTS"       // results folder
	EnvDatasets     = "SOFTSHAPE_DATASETS"      // comma-separated dataset names
	EnvFolds        = "SOFTSHAPE_FOLDS"         // 1-based folds: "1-5", "1,3"
	EnvSeeds        = "SOFTSHAPE_SEEDS"         // comma-separated seeds
	EnvBackend      = "SOFTSHAPE_BACKEND"       // GoMLX backend ("go", "xla:cuda", ...)
	EnvData         = data.DataEnv              // SOFTSHAPE_DATA: UCR folder
	EnvTrain        = "SOFTSHAPE_TRAIN"         // "1"/"true": full mode trains what it lacks (Params.Train)
	EnvTrainMissing = "SOFTSHAPE_TRAIN_MISSING" // "0"/"false": list missing runs, train nothing
	EnvSettings     = "SOFTSHAPE_SETTINGS"      // extra hyperparameters, "name=value;..."
	EnvWorkers      = "SOFTSHAPE_WORKERS"       // cells trained at once; 0: automatic (sweep.PlanWorkers)
	EnvOffline      = "SOFTSHAPE_OFFLINE"       // "1": never download datasets
	EnvHeadless     = "SOFTSHAPE_HEADLESS"      // "1": interactive cells render once and return
	// EnvQuickstartDataset is the dataset of notebook 00 (read there with
	// EnvOr).
	EnvQuickstartDataset = "SOFTSHAPE_QUICKSTART_DATASET"
	// EnvShared is the shared research folder, whose
	// reference/reference-runs.csv CommittedFidelity reads
	// (fidelity.DefaultReferencePath).
	EnvShared = "SOFTSHAPE_SHARED"
	// EnvORTDir is the folder of the ONNX Runtime library for the onnx
	// backends (backends.FindONNXRuntime).
	EnvORTDir = "SOFTSHAPE_ORT_DIR"
)

// EnvVar is one environment variable of the notebooks.
type EnvVar struct {
	// Name is the variable, Example a value it may take, and Help what it
	// does, on one line.
	Name, Example, Help string
	// set applies the value (trimmed, not blank) to the parameters in
	// ParamsFromEnv; nil for a variable read elsewhere (EnvHeadless,
	// EnvQuickstartDataset, EnvShared, EnvORTDir).
	set func(p *Params, v string) error
}

// ReadByParams reports whether ParamsFromEnv reads the variable (else the
// display or one notebook does).
func (e EnvVar) ReadByParams() bool { return e.set != nil }

// envVars is the one list of the notebooks' environment variables:
// ParamsFromEnv applies them in this order, and EnvHelp (every notebook's
// parameter cell, through ShowEnvHelp) lists them.
var envVars = []EnvVar{
	{EnvQuick, "1", `"1"/"true": quick mode (short schedule, small datasets); "0"/"false": the paper's schedule`,
		func(p *Params, v string) (err error) { p.Quick, err = parseBool(EnvQuick, v); return err }},
	{EnvResults, "results-gpu", "results folder (the store shared with softshape sweep); a relative path is relative to the repository",
		func(p *Params, v string) error { p.Results = v; return nil }},
	{EnvDatasets, "GunPoint,ItalyPowerDemand", "comma-separated dataset names (unset: the notebook's)",
		func(p *Params, v string) error { p.Datasets = sweep.SplitList(v); return nil }},
	{EnvFolds, "1-2,4", `1-based folds: a range "1-5", a list "1,3" (unset: the notebook's, all 5 for a table)`,
		func(p *Params, v string) (err error) { p.Folds, err = ParseFolds(v); return err }},
	{EnvSeeds, "42,43", "comma-separated run seeds (unset: 42)",
		func(p *Params, v string) error {
			seeds, err := sweep.ParseSeeds(v)
			if err != nil {
				return fmt.Errorf("%s=%q: %w", EnvSeeds, v, err)
			}
			p.Seeds = seeds
			return nil
		}},
	{EnvBackend, "xla:cuda", `GoMLX backend: "fastest", "go", "onnx:cpu", "xla:cuda" (unset: the parameter cell's, "fastest" in the notebooks)`,
		func(p *Params, v string) error { p.BackendName = v; return nil }},
	{EnvData, "/data/ucr", "folder of the UCR datasets (unset: ../shared/ucr beside the repository, else the user cache)",
		func(p *Params, v string) error { p.DataRoot = v; return nil }},
	{EnvTrain, "1", `"1"/"true": full mode trains what the committed data lacks (hours per table on a CPU); unset: full mode renders committed data only`,
		func(p *Params, v string) (err error) { p.Train, err = parseBool(EnvTrain, v); return err }},
	{EnvTrainMissing, "0", `"0"/"false": train nothing, list the runs without a record`,
		func(p *Params, v string) (err error) { p.TrainMissing, err = parseBool(EnvTrainMissing, v); return err }},
	{EnvSettings, "epochs=4;warmup_epochs=2", `hyperparameters for every run, "name=value;...", after the notebook's`,
		func(p *Params, v string) error { p.Settings = joinSettings(p.Settings, v); return nil }},
	{EnvWorkers, "2", "runs trained at once (0: automatic)",
		func(p *Params, v string) (err error) {
			if p.Workers, err = strconv.Atoi(v); err != nil || p.Workers < 0 {
				return fmt.Errorf("%s=%q: want a number ≥ 0", EnvWorkers, v)
			}
			return nil
		}},
	{EnvOffline, "1", `"1"/"true": never download datasets`,
		func(p *Params, v string) (err error) { p.Offline, err = parseBool(EnvOffline, v); return err }},
	{EnvHeadless, "1", `"1"/"true": interactive cells draw once and return (how CI runs the notebooks)`, nil},
	{EnvQuickstartDataset, "GunPoint", "notebook 00: the dataset to train (unset: " + data.CBFName + ")", nil},
	{EnvShared, "/srv/shared", "notebook 10: the shared folder whose reference/reference-runs.csv holds the authors' runs (unset: ../shared beside the repository)", nil},
	{EnvORTDir, "/opt/onnxruntime", "onnx backends: the folder holding libonnxruntime.so (unset: where scripts/install-onnxruntime.sh installs it)", nil},
}

// EnvVars returns the environment variables of the notebooks, those that
// override the parameters (ParamsFromEnv) first.
func EnvVars() []EnvVar { return slices.Clone(envVars) }

// EnvHelp lists the environment variables of the notebooks, one a line:
// an example setting and what the variable does, and the current value of
// those set (not blank).
func EnvHelp() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, e := range envVars {
		now := ""
		if v := strings.TrimSpace(os.Getenv(e.Name)); v != "" {
			now = fmt.Sprintf(" [now %q]", v)
		}
		fmt.Fprintf(tw, "  %s=%s\t%s%s\n", e.Name, e.Example, e.Help, now)
	}
	_ = tw.Flush()
	return "Environment variables (they override the parameter cell):\n" + b.String()
}

// Params are the knobs of a notebook: its one parameter cell fills them, and
// the environment may override them (ParamsFromEnv).
type Params struct {
	// Quick selects quick mode (sweep.QuickEpochs epochs, small datasets);
	// every output is then labelled sweep.QuickLabel.
	Quick bool
	// Datasets are the dataset names; nil means the table's default
	// (sweep.DefaultDatasets: for "main" the UCR datasets present under
	// DataRoot).
	Datasets []string
	// Variants restricts the table's variants (nil: all of them).
	Variants []string
	// Folds are 1-based fold numbers (of sweep.NumFolds); nil means all.
	Folds []int
	// Seeds are the run seeds; nil means {42}.
	Seeds []int64
	// Execution is how the runs train (softshape.Execution): BackendName
	// the GoMLX backend ("" = $GOMLX_BACKEND or pure Go; the notebooks'
	// default is backends.Fastest); DataRoot the folder of the UCR datasets
	// ("" means $SOFTSHAPE_DATA, else ../shared/ucr beside the repository
	// when present, else the user cache folder); Workers the runs trained
	// at once (0 is automatic, sweep.PlanWorkers: on the pure-Go backend
	// one run per core sharing the backend, 1 on ONNX Runtime and XLA;
	// N > 0 is N runs sharing one backend); Offline forbids dataset
	// downloads; MaxRuns, RunAxis and Fast as the sweeps take them.
	softshape.Execution
	// Results is the results folder (the sweep store); "" means
	// <repository>/results; a relative path is relative to the repository.
	Results string
	// Settings are hyperparameters applied to every run after the (quick)
	// schedule, e.g. "epochs=4;warmup_epochs=2" (part of each run's key).
	Settings string
	// Train lets full mode train: without it a full-mode notebook trains
	// nothing and renders committed data only (the committed reproduction,
	// or the results folder given), saying in one line what is missing and
	// which command makes it. Quick mode trains regardless (minutes).
	Train bool
	// TrainMissing trains the runs that have no record (where training is
	// allowed: quick mode, or Train); when false they are listed as missing
	// in the table.
	TrainMissing bool
	// Log receives one line per run started and finished (nil: stdout).
	Log io.Writer
	// overridden lists the settings of the parameter cell that
	// SOFTSHAPE_SETTINGS gave another value (ParamsFromEnv), for String.
	overridden []string
	// defaultResults records that Resolve chose Results (none was given): a
	// full-mode table of the committed reproduction then still comes from the
	// committed store (Table), as with Results empty.
	defaultResults bool
}

// DefaultParams are quick mode, every fold, seed 42, training what is
// missing, folders resolved by Resolve.
func DefaultParams() Params {
	return Params{Quick: true, Seeds: []int64{42}, TrainMissing: true}
}

// ParamsFromEnv returns def with every variable of EnvVars that it reads
// (ReadByParams) and that is set overriding its field, then Resolve'd.
// SOFTSHAPE_SETTINGS is merged over def.Settings (softshape.JoinSettings):
// a setting both give takes the environment's value, and each one whose
// value that changes is listed in the parameter line (Params.String), so
// that the parameter cell's settings and the environment's never disagree
// silently.
func ParamsFromEnv(def Params) (Params, error) {
	p := def
	for _, e := range envVars {
		if e.set == nil {
			continue
		}
		if v := strings.TrimSpace(os.Getenv(e.Name)); v != "" {
			if err := e.set(&p, v); err != nil {
				return p, err
			}
		}
	}
	if v := strings.TrimSpace(os.Getenv(EnvSettings)); v != "" {
		p.overridden = overriddenSettings(def.Settings, v)
	}
	return p.Resolve()
}

// overriddenSettings lists each setting of base that over gives another
// value, as "name=base's value → over's value" ("epochs=8 → 4").
func overriddenSettings(base, over string) []string {
	values := func(settings string) map[string]string {
		out := map[string]string{}
		for _, part := range strings.Split(settings, ";") {
			names, err := softshape.SettingNames(part)
			if err != nil || len(names) != 1 {
				continue
			}
			_, v, _ := strings.Cut(part, "=")
			out[names[0]] = strings.TrimSpace(v)
		}
		return out
	}
	b, o := values(base), values(over)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(b)) {
		if v, ok := o[name]; ok && v != b[name] {
			out = append(out, fmt.Sprintf("%s=%s → %s", name, b[name], v))
		}
	}
	return out
}

// MustParamsFromEnv is ParamsFromEnv that panics on a malformed variable
// (for a notebook's parameter cell).
func MustParamsFromEnv(def Params) Params {
	p, err := ParamsFromEnv(def)
	if err != nil {
		panic(err)
	}
	return p
}

// Resolve fills the empty folders (Results, DataRoot) and Seeds, makes
// relative folders relative to the repository root (RepoRoot), and checks the
// folds. A Results it fills in still counts as none given for Table's
// committed tables (UsesCommitted).
func (p Params) Resolve() (Params, error) {
	root := RepoRoot()
	if p.Results == "" {
		p.Results = filepath.Join(root, "results")
		p.defaultResults = true
	}
	if p.DataRoot == "" {
		p.DataRoot = os.Getenv(data.DataEnv)
	}
	if p.DataRoot == "" {
		shared := filepath.Join(root, "..", "shared", "ucr")
		if st, err := os.Stat(shared); err == nil && st.IsDir() {
			p.DataRoot = filepath.Clean(shared)
		} else {
			p.DataRoot = data.DefaultRoot()
		}
	}
	// Relative folders are relative to the repository root: a GoNB cell runs
	// in a temporary folder.
	if !filepath.IsAbs(p.Results) {
		p.Results = filepath.Join(root, p.Results)
	}
	if !filepath.IsAbs(p.DataRoot) {
		p.DataRoot = filepath.Join(root, p.DataRoot)
	}
	if len(p.Seeds) == 0 {
		p.Seeds = []int64{42}
	}
	for _, f := range p.Folds {
		if f < 1 || f > sweep.NumFolds {
			return p, fmt.Errorf("fold %d: folds are 1..%d", f, sweep.NumFolds)
		}
	}
	return p, nil
}

// UsesCommitted reports whether Table renders the named table from the
// committed reproduction instead of training: full mode without Train, no
// results folder given (Results empty, or filled in by Resolve) and a table
// with committed runs (IsCommitted).
func (p Params) UsesCommitted(name string) bool {
	return p.fullWithoutResults() && IsCommitted(name)
}

// fullWithoutResults: full mode without Train, and no results folder given
// (Results empty, or filled in by Resolve).
func (p Params) fullWithoutResults() bool {
	return p.TrainingOff() && (p.Results == "" || p.defaultResults)
}

// TrainingOff reports whether p forbids training: full mode without Train.
// Every function of this package that would train then renders what is
// stored, or says in one line what it would train and how to ask for it.
func (p Params) TrainingOff() bool { return !p.Quick && !p.Train }

// folds returns the 1-based folds (all when none given).
func (p Params) folds() []int {
	if len(p.Folds) > 0 {
		return p.Folds
	}
	return pipeline.AllFolds()
}

// Mode is "full" or sweep.QuickLabel.
func (p Params) Mode() string {
	if p.Quick {
		return sweep.QuickLabel
	}
	return "full schedule"
}

// String is a one-line description for a notebook's parameter cell.
func (p Params) String() string {
	ds := "table default"
	if len(p.Datasets) > 0 {
		ds = strings.Join(p.Datasets, ", ")
	}
	backend := p.BackendName
	if backend == "" {
		backend = "$GOMLX_BACKEND or pure Go"
	}
	// A folder inside the repository is named relative to it (repoPath):
	// the notebooks show no machine's absolute path. (The line is Markdown:
	// no "<repository>", which would read as an HTML tag.)
	results := repoPath(p.Results)
	if results != "" && !filepath.IsAbs(results) {
		results += "/ in the repository"
	}
	if p.fullWithoutResults() {
		results = "the committed reproduction for its tables, else " + cmp.Or(results, "results/ in the repository")
	}
	train := fmt.Sprintf("train missing: %v", p.TrainMissing)
	if p.TrainingOff() {
		train = "train: false (full mode trains nothing; p.Train = true to train)"
	}
	s := fmt.Sprintf("mode: %s | schedule: %s | datasets: %s | folds: %v | seeds: %v | backend: %s | results: %s | data: %s | %s",
		p.Mode(), p.schedule(), ds, p.folds(), p.Seeds, backend, results, p.DataRoot, train)
	if p.Settings != "" {
		s += " | settings: " + p.Settings
	}
	if len(p.overridden) > 0 {
		s += fmt.Sprintf(" | **%s overrides the parameter cell's settings: %s** (the runs use the environment's value; unset %s to use the cell's)",
			EnvSettings, strings.Join(p.overridden, ", "), EnvSettings)
	}
	return s
}

// schedule is the training schedule in force: epochs and warm-up epochs of
// the (quick) base configuration with the settings.
func (p Params) schedule() string {
	cfg, err := ModelConfig(p, "")
	if err != nil {
		return "settings invalid: " + err.Error()
	}
	return fmt.Sprintf("%d epochs (%d warm-up)", cfg.Epochs, cfg.WarmUpEpochs)
}

// RepoRoot returns the repository root: the parent of $GONB_DIR (the
// notebook's folder) when set, else the nearest folder upwards from the
// working directory holding this module's go.mod, else ".".
func RepoRoot() string {
	if d := os.Getenv("GONB_DIR"); d != "" {
		if isRepo(filepath.Join(d, "..")) {
			return filepath.Clean(filepath.Join(d, ".."))
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := wd; ; {
		if isRepo(d) {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "."
		}
		d = parent
	}
}

// modulePath is the module path of this repository's go.mod.
const modulePath = "github.com/softshape-go/softshape"

// isRepo reports whether dir holds a go.mod declaring this module
// ("module github.com/softshape-go/softshape", quoted or not, with any
// comment after it), whatever else the file says.
func isRepo(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "//")
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], "\"`") == modulePath
		}
	}
	return false
}

// ParseFolds reads 1-based folds of the sweep's protocol: "1-5", "1,3", "2"
// (data.ParseFolds with sweep.NumFolds folds).
func ParseFolds(s string) ([]int, error) { return data.ParseFolds(s, sweep.NumFolds) }

func parseBool(name, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("%s=%q: want 1/true or 0/false", name, v)
}

// joinSettings is a's settings with b's on top (softshape.JoinSettings): a
// setting in both takes b's value.
func joinSettings(a, b string) string {
	return softshape.JoinSettings(a, b)
}

func logOf(p Params) io.Writer {
	if p.Log == nil {
		return os.Stdout
	}
	return p.Log
}

// EnvOr returns the environment variable key, or def when it is unset or
// blank.
func EnvOr(key, def string) string {
	if v := strings.TrimSpace(os.Getenv(key)); v != "" {
		return v
	}
	return def
}
