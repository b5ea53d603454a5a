package golden

import (
	"fmt"
	"strings"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/softshape"
)

// Path is the training code a case asks for, by the RunOptions that select
// it today.
type Path string

const (
	// PathSingle is one run at a time: softshape.Train with MaxRuns = 1
	// (each fold, or each fold_reset=carry chain, a run axis of one run,
	// the single-run model). It is what ONNX Runtime runs by default, and
	// fold_reset=carry on every backend.
	PathSingle Path = "single"
	// PathCopies is softshape.TrainRuns with MaxRuns = R and the run axis
	// off: R runs in one graph as model copies when the records were made,
	// R runs alone at the same time since the copies went (issue 38). It is
	// what `softshape train` runs for fresh folds on pure Go by default
	// (R = the folds), and what the sweeps run for several folds or seeds
	// of one variant.
	PathCopies Path = "copies"
	// PathAxis is R runs in one graph as one model with a run axis:
	// softshape.TrainRuns with MaxRuns = R and the run axis on (the default
	// of XLA on a GPU); fresh folds only.
	PathAxis Path = "axis"
)

// Preset names of the cases: the protocol a case trains.
const (
	// Fresh is protocol=reference_fresh: the authors' protocol, every fold
	// from new weights.
	Fresh = softshape.ProtocolReferenceFresh
	// Carry is protocol=reference_compat: the authors' protocol, each fold
	// continuing from the weights and Adam state the previous one ended with.
	Carry = softshape.ProtocolReferenceCompat
)

// Protocol is the short protocol of the standard cases, set after the
// preset: a dense warm-up of 4 epochs then up to 8 sparse ones, early
// stopping after 3 epochs of rising or flat validation loss, a narrow model
// so that the whole record stays short, and a learning rate of 0.01 so
// that 12 epochs of one or two steps learn enough for the folds to differ
// (some stop early, some run all 12 epochs, the selected epochs vary).
const Protocol = "epochs=12;warmup_epochs=4;patience=3;embed_dim=16;learning_rate=0.01"

// Backend configs of the cases (backends.New).
const (
	BackendGo   = "go"
	BackendONNX = "onnx:cpu"
)

// Case is one training job of a record: a dataset, a preset and the
// protocol settings, seeds and folds, on a backend through one path.
type Case struct {
	Dataset string `json:"dataset"`
	// Preset is Fresh or Carry; Settings are applied after it.
	Preset   string `json:"preset"`
	Settings string `json:"settings"`
	Backend  string `json:"backend"`
	Path     Path   `json:"path"`
	// RunsPerGraph is R, the runs trained together in one graph (1 on
	// PathSingle).
	RunsPerGraph int `json:"runs_per_graph"`
	// Seeds are the protocol seeds; Folds the number of folds trained of
	// each seed's softshape.ProtocolFolds (the first ones).
	Seeds []int64 `json:"seeds"`
	Folds int     `json:"folds"`
}

// Name identifies the case in a record and in a comparison, e.g.
// "GunPoint/carry/onnx:cpu/copies-R2".
func (c Case) Name() string {
	short := c.Preset
	switch c.Preset {
	case Fresh:
		short = "fresh"
	case Carry:
		short = "carry"
	}
	return fmt.Sprintf("%s/%s/%s/%s-R%d", c.Dataset, short, c.Backend, c.Path, c.RunsPerGraph)
}

// Config returns the case's configuration: the defaults, the preset, then
// Settings.
func (c Case) Config() (softshape.Config, error) {
	settings := softshape.ParamProtocol + "=" + c.Preset
	if strings.TrimSpace(c.Settings) != "" {
		settings += ";" + c.Settings
	}
	cfg, err := softshape.DefaultConfig().WithSettings(settings)
	if err != nil {
		return cfg, fmt.Errorf("case %s: %w", c.Name(), err)
	}
	return cfg, nil
}

// check reports what makes c impossible to record as named.
func (c Case) check() error {
	switch {
	case c.Preset != Fresh && c.Preset != Carry:
		return fmt.Errorf("case %s: preset %q: want %s or %s", c.Name(), c.Preset, Fresh, Carry)
	case len(c.Seeds) == 0:
		return fmt.Errorf("case %s: no seed", c.Name())
	case c.Folds < 1 || c.Folds > softshape.ProtocolFolds:
		return fmt.Errorf("case %s: %d folds: want 1 to %d", c.Name(), c.Folds, softshape.ProtocolFolds)
	case c.RunsPerGraph < 1:
		return fmt.Errorf("case %s: %d runs per graph: want at least 1", c.Name(), c.RunsPerGraph)
	}
	switch c.Path {
	case PathSingle:
		if c.RunsPerGraph != 1 {
			return fmt.Errorf("case %s: path %s trains one run at a time (runs per graph 1)", c.Name(), c.Path)
		}
	case PathCopies, PathAxis:
		if c.RunsPerGraph < 2 {
			return fmt.Errorf("case %s: path %s needs at least 2 runs per graph", c.Name(), c.Path)
		}
		if c.Path == PathAxis && c.Preset == Carry {
			return fmt.Errorf("case %s: the run axis trains fresh folds only", c.Name())
		}
	default:
		return fmt.Errorf("case %s: path %q: want %s, %s or %s", c.Name(), c.Path, PathSingle, PathCopies, PathAxis)
	}
	return nil
}

// Seed is the protocol seed of the standard cases.
const Seed = 42

// Cases returns the standard cases, on the given backends (BackendGo,
// BackendONNX) with the given settings after the preset (Protocol for the
// standard record): for each bundled dataset and backend, seed 42,
//
//   - fresh, 2 folds, one run at a time (PathSingle);
//   - carry, 5 folds, one run at a time (PathSingle);
//   - fresh, the same 2 folds together as model copies (PathCopies, R = 2);
//   - fresh, the same 2 folds together on a run axis (PathAxis, R = 2);
//   - carry, the 5-fold chains of seeds 42 and 43 together as model copies
//     (PathCopies, R = 2), as a sweep trains two seeds of one variant.
func Cases(backends []string, settings string) []Case {
	var out []Case
	for _, ds := range data.BundledNames() {
		for _, b := range backends {
			c := Case{Dataset: ds, Settings: settings, Backend: b, Seeds: []int64{Seed}}
			add := func(preset string, path Path, r, folds int, seeds ...int64) {
				c := c
				c.Preset, c.Path, c.RunsPerGraph, c.Folds = preset, path, r, folds
				if len(seeds) > 0 {
					c.Seeds = seeds
				}
				out = append(out, c)
			}
			add(Fresh, PathSingle, 1, 2)
			add(Carry, PathSingle, 1, softshape.ProtocolFolds)
			add(Fresh, PathCopies, 2, 2)
			add(Fresh, PathAxis, 2, 2)
			add(Carry, PathCopies, 2, softshape.ProtocolFolds, Seed, Seed+1)
		}
	}
	return out
}
