package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
)

// backendHelp documents every -backend flag.
const backendHelp = "GoMLX backend: go, onnx:cpu (binary built with -tags onnx), xla:cpu, xla:cuda, or fastest (the fastest one built in and installed); default $GOMLX_BACKEND, else fastest"

// cliBackend is the backend config a command runs on: its -backend flag,
// else $GOMLX_BACKEND, else backends.Fastest: ONNX Runtime in a binary
// built with -tags onnx where its library is installed, else XLA on CPU where
// a PJRT plugin is, else pure Go, saying on stderr in one line what would be
// faster. A CGO_ENABLED=0 build has neither ONNX Runtime nor XLA, and runs on
// pure Go.
func cliBackend(flagValue string) string {
	if v := strings.TrimSpace(flagValue); v != "" {
		return v
	}
	if v := strings.TrimSpace(os.Getenv(compute.ConfigEnvVar)); v != "" {
		return v
	}
	return backends.Fastest
}

// newFlagSet returns the flag set of the command "softshape name": parse
// errors and help go to stdout, and help prints usage, then the flags.
func newFlagSet(name, usage string, stdout io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs and rejects any argument left after the
// flags.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		if hint := switchValueHint(fs, args); hint != "" {
			return fmt.Errorf("unexpected arguments %q: %s", fs.Args(), hint)
		}
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return nil
}

// switchValueHint explains the first argument fs left unparsed in args when
// it is a switch's value written with a space (-run-axis off, -quiet false): a
// switch, a flag that may stand alone, takes a value only after "=", so
// the parser stopped at the value. It returns "" otherwise.
func switchValueHint(fs *flag.FlagSet, args []string) string {
	i := len(args) - fs.NArg() // the first argument left
	if i < 1 || i > len(args) {
		return ""
	}
	name := strings.TrimLeft(args[i-1], "-")
	if name == "" || strings.Contains(name, "=") || !strings.HasPrefix(args[i-1], "-") {
		return ""
	}
	f := fs.Lookup(name)
	if f == nil {
		return ""
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
		return ""
	}
	if !looksLikeSwitchValue(args[i]) {
		return "" // a stray argument after a switch, not its value
	}
	return fmt.Sprintf("-%s is a switch: give its value with \"=\", as -%s=%s (alone, -%s means on)", name, name, args[i], name)
}

// looksLikeSwitchValue reports whether s is a value some switch takes: a
// boolean (true, false, 1, 0, …) or a -run-axis mode (auto, on, off).
func looksLikeSwitchValue(s string) bool {
	if _, err := strconv.ParseBool(s); err == nil {
		return true
	}
	_, err := softshape.ParseRunAxis(s)
	return err == nil
}

// settingsFlag is a -set flag: hyperparameters "name=value;…". Given more
// than once, the values are joined, so that -set depth=3 -set embed_dim=64
// sets both; a setting given in two of them is then reported as given twice
// (softshape.SettingNames). The first -set replaces the flag's default.
type settingsFlag struct {
	value *string
	given bool
}

// addSettingsFlag declares -set on fs with default value and help usage,
// and returns the merged settings it holds after parsing.
func addSettingsFlag(fs *flag.FlagSet, value, usage string) *string {
	f := &settingsFlag{value: new(string)}
	*f.value = value
	fs.Var(f, "set", usage+" (several -set flags are joined)")
	return f.value
}

// String returns the settings.
func (f *settingsFlag) String() string {
	if f == nil || f.value == nil {
		return ""
	}
	return *f.value
}

// Set adds s to the settings given before, or replaces the default.
func (f *settingsFlag) Set(s string) error {
	switch {
	case !f.given || strings.TrimSpace(*f.value) == "":
		*f.value = s
	case strings.TrimSpace(s) != "":
		*f.value += ";" + s
	}
	f.given = true
	return nil
}

// parseDatasetFlags parses the flags of a command that runs on the one
// dataset its -dataset names, rejecting any other argument, and prints the
// settings' help when -set is "help" (settings), reporting then helped.
func parseDatasetFlags(fs *flag.FlagSet, args []string, settings *string, stdout io.Writer) (helped bool, err error) {
	if err := fs.Parse(args); err != nil {
		return false, err
	}
	if fs.NArg() > 0 {
		if hint := switchValueHint(fs, args); hint != "" {
			return false, fmt.Errorf("unexpected argument %q: %s", fs.Arg(0), hint)
		}
		return false, fmt.Errorf("unexpected argument %q (name the dataset with -dataset)", fs.Arg(0))
	}
	if *settings == "help" {
		fmt.Fprint(stdout, settingsHelp())
		return true, nil
	}
	return false, nil
}

// dataRootHelp documents the -data flag of the commands that train.
const dataRootHelp = "folder holding UCR datasets as NAME/NAME_TRAIN.tsv (default $SOFTSHAPE_DATA or the user cache)"

// offlineHelp documents every -offline flag.
const offlineHelp = "never download a dataset that is not under -data"

// openRun loads the dataset name for a run (from dataRoot, downloading it
// unless offline; folds drawn with seed; messages on stderr), then starts
// the backend that exec names (its BackendName, from execFlags.execution).
func openRun(exec softshape.Execution, name string, seed int64) (*data.Dataset, compute.Backend, error) {
	ds, err := data.LoadOrDownload(exec.DataRoot, name, data.LoadOptions{Seed: seed, Offline: exec.Offline, Log: os.Stderr})
	if err != nil {
		return nil, nil, err
	}
	backend, err := backends.New(exec.BackendName)
	if err != nil {
		return nil, nil, err
	}
	return ds, backend, nil
}

// runFlags are the flags shared by the commands that train: how they run
// (execFlags) and which folds.
type runFlags struct {
	*execFlags
	folds *string
}

// addRunFlags declares the flags of softshape.Execution (addExecFlags:
// -backend, -data, -offline and those of parts) and -folds on fs.
func addRunFlags(fs *flag.FlagSet, parts execParts) runFlags {
	return runFlags{
		execFlags: addExecFlags(fs, parts),
		folds:     fs.String("folds", "1-5", "folds to run, 1-based: a range \"1-5\", a list \"1,3\" or one fold \"2\""),
	}
}

// maxRunsHelp documents -max-runs, the cap on runs trained in one graph.
const maxRunsHelp = "runs trained together (softshape.TrainRuns): each alone at the same time, or in one graph with -run-axis: 0 = the backend's default (10 on pure Go and on XLA with a GPU, 1 on ONNX Runtime and XLA on a CPU, where it does not pay), 1 = one run at a time, N = at most N (memory)"

// speedFormsHelp documents -fast (softshape.RunOptions.Fast, sweep.Runner.Fast).
const speedFormsHelp = "train the model's speed forms (softshape.RunOptions.Fast: the Inception's convolutions without padding-only taps, as block-Toeplitz products or the backend's own convolution) instead of its plain graphs: the same computation summed in other orders, so other runs in the last bits; a results folder holds one form (sweep and fidelity refuse one holding the other's runs); see docs/performance.md"

// stoppedRunsHelp documents -stopped-runs, accepted for old scripts only.
const stoppedRunsHelp = "deprecated, without effect: leave or ride, accepted so that old scripts run (runs share a graph only on a run axis, where a run that stopped early stays, masked)"

// runAxisHelp documents -run-axis (softshape.RunOptions.RunAxis).
const runAxisHelp = "whether the runs of one graph train as one model with a leading run axis on every variable (one kernel for all runs: for GPUs, where a step is latency-bound) instead of each training alone, all at the same time: auto (the backend's default: on for XLA with a GPU, off on the CPU backends), on (-run-axis alone) or off. It applies where the runs allow it (fresh folds, settings differing at most in λ, learning rate, epochs and patience, not the appendix's transformer shared expert or fcn/icb experts); a step equals the run's alone within float rounding, which the sparse phase's top-1 routing and top-K shapes can amplify over epochs, as between two backends"

// runAxisFlag is -run-axis: auto, on or off, and on when given alone.
type runAxisFlag softshape.RunAxisMode

// String returns the mode.
func (f *runAxisFlag) String() string {
	if f == nil || *f == "" {
		return string(softshape.RunAxisAuto)
	}
	return string(*f)
}

// Set parses auto, on, off (or true, false).
func (f *runAxisFlag) Set(s string) error {
	m, err := softshape.ParseRunAxis(s)
	if err != nil {
		return err
	}
	*f = runAxisFlag(m)
	return nil
}

// IsBoolFlag lets -run-axis stand alone for on.
func (f *runAxisFlag) IsBoolFlag() bool { return true }

// optInt is an integer flag that remembers whether it was given, so that
// leaving it out (use the setting) differs from every value given.
type optInt struct {
	v   int
	set bool
}

// String implements flag.Value; it is "" when the flag was not given.
func (o *optInt) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.Itoa(o.v)
}

// Set implements flag.Value.
func (o *optInt) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return fmt.Errorf("%s is out of range", s)
		}
		return fmt.Errorf("%q is not an integer", s)
	}
	o.v, o.set = v, true
	return nil
}

// scheduleFlags are -epochs and -warmup, which override the epochs and
// warmup_epochs settings when given.
type scheduleFlags struct {
	epochs, warmup optInt
}

// addScheduleFlags declares -epochs and -warmup on fs.
func addScheduleFlags(fs *flag.FlagSet) *scheduleFlags {
	s := &scheduleFlags{}
	def := softshape.DefaultConfig()
	fs.Var(&s.epochs, "epochs", fmt.Sprintf("maximum epochs, ≥ 1 (default: the epochs setting, %d)", def.Epochs))
	fs.Var(&s.warmup, "warmup", fmt.Sprintf("warm-up (dense) epochs, ≥ 0 (default: the warmup_epochs setting, %d; with -epochs N alone, its share of the epochs setting's %d, scaled to N and said on stderr: 12 for -epochs 40)", def.WarmUpEpochs, def.Epochs))
	return s
}

// apply writes the given flags into cfg. A negative -warmup or an -epochs
// below 1 is an error naming the flag; a schedule whose warm-up covers every
// epoch (legal: a dense-only run) returns a warning line.
func (s *scheduleFlags) apply(cfg *softshape.Config) (warning string, err error) {
	if s.epochs.set {
		if s.epochs.v < 1 {
			return "", fmt.Errorf("-epochs %d: want at least 1 (leave -epochs out for the epochs setting, %d)", s.epochs.v, cfg.Epochs)
		}
		cfg.Epochs = s.epochs.v
	}
	if s.warmup.set {
		if s.warmup.v < 0 {
			return "", fmt.Errorf("-warmup %d: want 0 or more warm-up epochs (leave -warmup out for the warmup_epochs setting, %d)", s.warmup.v, cfg.WarmUpEpochs)
		}
		cfg.WarmUpEpochs = s.warmup.v
	}
	if cfg.Epochs >= 1 && cfg.WarmUpEpochs >= cfg.Epochs {
		return fmt.Sprintf("warning: %d warm-up epochs of %d: every epoch is dense, the sparse phase never runs", cfg.WarmUpEpochs, cfg.Epochs), nil
	}
	return "", nil
}

// commandConfig is configFromFlags for the command "softshape name": it
// writes its notes, if any, to stderr, one line each.
func commandConfig(name, settings string, s *scheduleFlags) (softshape.Config, error) {
	cfg, notes, err := configFromFlags(settings, s)
	if err != nil {
		return cfg, err
	}
	for _, n := range notes {
		fmt.Fprintln(os.Stderr, "softshape "+name+": "+n)
	}
	return cfg, nil
}

// configFromFlags returns the configuration of a command with -set settings
// and the schedule flags -epochs and -warmup: the default configuration, the
// settings, then the flags. A flag and a setting that disagree (-epochs 3
// with epochs=100) is an error naming both, as is a setting given twice.
// An -epochs given without -warmup or a warmup_epochs setting scales the
// warm-up with it (scaledWarmUp), which a note line says; a schedule whose
// warm-up covers every epoch returns a warning line.
func configFromFlags(settings string, s *scheduleFlags) (cfg softshape.Config, notes []string, err error) {
	cfg, err = softshape.DefaultConfig().WithSettings(settings)
	if err != nil {
		return cfg, nil, err
	}
	names, err := softshape.SettingNames(settings)
	if err != nil {
		return cfg, nil, err
	}
	for _, c := range []struct {
		flag, setting string
		f             optInt
		v             int
	}{
		{"-epochs", softshape.ParamEpochs, s.epochs, cfg.Epochs},
		{"-warmup", softshape.ParamWarmUpEpochs, s.warmup, cfg.WarmUpEpochs},
	} {
		if c.f.set && slices.Contains(names, c.setting) && c.f.v != c.v {
			return cfg, nil, fmt.Errorf("%s %d and -set %s=%d disagree: give the value once, with %s or in -set", c.flag, c.f.v, c.setting, c.v, c.flag)
		}
	}
	flags := *s
	if s.epochs.set && s.epochs.v >= 1 && !s.warmup.set && !slices.Contains(names, softshape.ParamWarmUpEpochs) && s.epochs.v != cfg.Epochs {
		w := scaledWarmUp(s.epochs.v, cfg.WarmUpEpochs, cfg.Epochs)
		flags.warmup = optInt{v: w, set: true}
		notes = append(notes, fmt.Sprintf("-epochs %d without -warmup: %d warm-up epochs, the warmup_epochs setting's %d of %d epochs scaled to %d (give -warmup to choose)",
			s.epochs.v, w, cfg.WarmUpEpochs, cfg.Epochs, s.epochs.v))
	}
	warning, err := flags.apply(&cfg)
	if warning != "" {
		notes = append(notes, warning)
	}
	return cfg, notes, err
}

// scaledWarmUp is the warm-up of a run of epochs epochs that keeps the
// share warmUp/of of a schedule of "of" epochs (the paper's 150 of 500),
// rounded to the nearest epoch: 12 of 40 epochs.
func scaledWarmUp(epochs, warmUp, of int) int {
	if of < 1 {
		return warmUp
	}
	return int(math.Round(float64(epochs) * float64(warmUp) / float64(of)))
}

// checkDataRoot checks the data folder root of -data on set. It must not be
// a file; given on the command line or by $SOFTSHAPE_DATA, it must exist (a
// missing one would silently fall back to the bundled datasets, or have a
// download land in a mistyped path), while the default, the user cache, may
// be missing.
func checkDataRoot(set *flag.FlagSet, root string) error {
	source, given := "-data "+root, false
	set.Visit(func(f *flag.Flag) { given = given || f.Name == "data" })
	if env := os.Getenv(data.DataEnv); !given && env != "" && env == root {
		source, given = "$"+data.DataEnv+"="+root, true
	}
	st, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !given {
			return nil
		}
		return fmt.Errorf("%s: no such folder (create it to download datasets into it; leave -data and $%s unset to use the user cache and the bundled %s)",
			source, data.DataEnv, strings.Join(data.BundledNames(), ", "))
	case err != nil:
		return fmt.Errorf("%s: %w", source, err)
	case !st.IsDir():
		return fmt.Errorf("%s is a file, not a folder of datasets", source)
	}
	return nil
}
